"""Scenario files: units are parsed, defaults fit a 10 Gb/s datacenter and the shipped scenarios pin their own
network, overrides re-validate, bad input names its field in one error with a hint."""

import tomllib
from pathlib import Path

import pytest

from greendcn.core.errors import InputError
from greendcn.sim.reproduce.rps import seed003_scenario
from greendcn.sim.scenario import load_scenario, parse_set, scenario_from_dict
from conftest import assert_clean_error, run_greendcn

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"


def test_units_become_picoseconds_bytes_and_bits_per_second():
    s = scenario_from_dict(
        {
            "topology": {"link_rate": "10Gbps", "link_delay": "2.5us", "queue": "128KB"},
            "tcp": {"min_rto": "200ms", "max_window": "64KiB", "mss": "9000B"},
        }
    )
    assert s.topology.link_rate == 10_000_000_000
    assert s.topology.link_delay == 2_500_000
    assert s.topology.queue == {"bytes": 128_000}
    assert s.tcp.min_rto == 200_000_000_000
    assert s.tcp.max_window == 65_536
    assert s.tcp.mss == 9000


def test_defaults_fit_a_10gbps_datacenter():
    # docs/scenario-format.md's table of defaults: 10 Gb/s, 500 ns links, 500-packet switch and 1000-packet NIC
    # queues, Linux's 200 ms minimum RTO, a permutation of 10 MB flows; the Kaymak 2016 files pin their own (below).
    s = scenario_from_dict({})
    assert (s.topology.kind, s.topology.k) == ("fattree", 4)
    assert s.topology.link_rate == 10**10 and s.topology.link_delay == 500_000
    assert s.topology.queue == {"packets": 500} and s.topology.host_queue == {"packets": 1000}
    assert s.tcp.min_rto == 200 * 10**9 and s.transport.default == "tcp"
    assert s.workload.kind == "permutation" and s.workload.size == 10**7 and s.workload.start_jitter == 0
    # a [workload] table without `kind` is the same default kind
    assert scenario_from_dict({"workload": {"size": "1MB"}}).workload.kind == "permutation"


def test_the_default_scenario_runs_without_retransmission_timeouts():
    # The defaults must run cleanly: every flow completes and `simulate` has no timeout warning to print.
    from greendcn.sim import simulate
    from greendcn.sim.cli.simulate import rto_dominated_flows, rto_warning

    res = simulate({}, progress=False)
    assert len(res.flows) == 16 and res.flows["fct_s"].notna().all()
    assert (
        int(res.flows["timeouts"].sum()) == 0 and rto_dominated_flows(res) == 0 and rto_warning(res) is None
    )
    # Kaymak 2016's static incast (six flows into S15) on the same network completes without a timeout too: the
    # 500-packet port to S15 holds their windows. In a 100-packet port they overflow it, flows wait out 200 ms
    # timeouts, and the one warning line says how many.
    inc = simulate({"workload": {"kind": "static"}}, progress=False)
    assert inc.flows["fct_s"].notna().all() and rto_warning(inc) is None
    shallow = simulate({"workload": {"kind": "static"}, "topology": {"queue": "100pkt"}}, progress=False)
    n = rto_dominated_flows(shallow)
    assert n >= 1 and rto_warning(shallow).startswith(f"warning: {n} of 6 flows")


@pytest.mark.parametrize("name", ["seed003-static", "seed003-random"])
def test_shipped_seed003_files_match_the_experiment_definition(name):
    from_file = load_scenario(ROOT / "scenarios" / f"{name}.toml")
    built = scenario_from_dict(seed003_scenario(name.split("-")[1]))
    assert from_file.model_dump(exclude={"base_dir"}) == built.model_dump(exclude={"base_dir"})


def test_bench_scenario_is_k8_permutation():
    s = load_scenario(ROOT / "scenarios" / "bench-k8-permutation.toml")
    assert s.topology.k == 8 and s.topology.link_rate == 10 * 10**9
    assert s.workload.kind == "permutation" and s.workload.size == 10_000_000


def test_set_overrides_by_dotted_path_with_the_same_validation():
    s = scenario_from_dict({}).with_overrides(
        ["routing.scheme=rps", "tcp.min_rto=1ms", "topology.k=8", "tcp.delayed_ack=false"]
    )
    assert s.routing.scheme == "rps" and s.tcp.min_rto == 10**9 and s.topology.k == 8
    assert s.tcp.delayed_ack is False
    with pytest.raises(InputError, match=r"topology\.k"):
        s.with_overrides(["topology.k=7"])


def test_set_indexes_lists_of_tables_by_number():
    path = SCENARIOS / "shuffle-plus-websearch.toml"
    s = load_scenario(path, ["workload.components.1.load=0.1", "workload.components.0.size=50KB"])
    assert s.workload.components[1].load == 0.1 and s.workload.components[0].size == 50_000
    assert load_scenario(path).workload.components[1].load == 0.05  # the file itself is unchanged
    with pytest.raises(InputError, match=r"workload\.components\.2: .*entries 0\.\.1"):
        load_scenario(path, ["workload.components.2.load=0.1"])
    with pytest.raises(InputError, match=r"workload\.components\.first: .*entries 0\.\.1"):
        load_scenario(path, ["workload.components.first.load=0.1"])
    with pytest.raises(InputError, match=r"workload\.components\.1\.load is a value, not a section"):
        load_scenario(path, ["workload.components.1.load.x=0.1"])


def test_set_with_a_bad_list_index_is_one_error_naming_the_key():
    out = run_greendcn(
        "simulate", SCENARIOS / "shuffle-plus-websearch.toml", "--set", "workload.components.-1.load=0.1"
    )
    assert_clean_error(out, "workload.components.-1", "workload.components.-1.load")


def test_parse_set_reads_toml_values_and_keeps_text():
    assert parse_set("topology.k=8") == ("topology.k", 8)
    assert parse_set("tcp.min_rto=1ms") == ("tcp.min_rto", "1ms")
    with pytest.raises(InputError, match="KEY=VALUE"):
        parse_set("routing.scheme")


@pytest.mark.parametrize(
    "raw, field",
    [
        ({"topology": {"k": 5}}, "topology.k"),
        ({"topology": {"linkrate": "1Gbps"}}, "topology.linkrate"),
        ({"topology": {"link_rate": "-1Gbps"}}, "topology.link_rate"),
        ({"topology": {"link_rate": 1000000000}}, "topology.link_rate"),
        ({"topology": {"link_delay": "25"}}, "topology.link_delay"),
        ({"topology": {"queue": "many"}}, "topology.queue"),
        ({"topology": {"oversubscription": 1.25}}, "topology.oversubscription"),
        ({"routing": {"scheme": "spray"}}, "routing.scheme"),
        ({"tcp": {"dupack_threshold": 0}}, "tcp.dupack_threshold"),
        ({"workload": {"kind": "bursty"}}, "workload.kind"),
        ({"workload": {"kind": "random", "long_flows": -1}}, "workload.long_flows"),
        (
            {"workload": {"kind": "flows", "flows": [{"src": 0, "dst": 1, "size": "1MB", "colour": 1}]}},
            "workload.flows[0].colour",
        ),
    ],
)
def test_bad_input_names_its_field_with_a_hint(raw, field):
    with pytest.raises(InputError) as info:
        scenario_from_dict(raw)
    assert field in str(info.value)
    assert info.value.hint


def test_unreadable_and_invalid_files_are_input_errors(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        load_scenario(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[topology\nk = 4\n")
    with pytest.raises(InputError, match="not valid TOML"):
        load_scenario(bad)


def test_the_example_in_the_format_doc_is_valid():
    import re
    import tomllib

    text = (ROOT / "docs" / "scenario-format.md").read_text()
    block = re.search(r"```toml\n(.*?)```", text, re.DOTALL).group(1)
    s = scenario_from_dict(tomllib.loads(block))
    assert s.routing.scheme == "rps" and s.workload.kind == "random" and s.run.stop_time == 10 * 10**12


def test_tcp_options_for_the_ns3_cross_check_are_validated_and_named():
    from greendcn.core.errors import InputError
    from greendcn.sim.reproduce.rps import seed003_scenario
    from greendcn.sim.scenario import scenario_from_dict

    raw = seed003_scenario("static")
    raw["tcp"].update(handshake=True, slow_start_segments_per_ack=1)
    sc = scenario_from_dict(raw)
    assert sc.tcp.handshake and sc.tcp.slow_start_segments_per_ack == 1
    raw["tcp"]["slow_start_segments_per_ack"] = 0
    with pytest.raises(InputError, match=r"tcp\.slow_start_segments_per_ack"):
        scenario_from_dict(raw)


def test_one_segment_per_ack_slows_slow_start_and_a_handshake_adds_one_round_trip():
    from greendcn.sim import simulate

    base = {
        "topology": {"k": 4, "link_rate": "1Gbps", "link_delay": "25us", "queue": "1000pkt"},
        "workload": {"kind": "flows", "flows": [{"src": "S0", "dst": "S15", "size": "200KB"}]},
    }
    fct = {}
    for name, tcp in {
        "plain": {},
        "handshake": {"handshake": True},
        "one_per_ack": {"slow_start_segments_per_ack": 1},
    }.items():
        fct[name] = simulate({**base, "tcp": tcp}, progress=False).flows["fct_s"].iloc[0]
    # S0 -> S15 crosses 6 links of 25 us; a 52-byte header takes 0.416 us at 1 Gbps: 2 x 6 x 25.416 us
    assert fct["handshake"] - fct["plain"] == pytest.approx(2 * 6 * (25e-6 + 416e-12 * 1000), rel=1e-6)
    assert fct["one_per_ack"] > fct["plain"] + 100e-6  # at least one more round trip of slow start


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.toml")), ids=lambda p: p.name)
def test_every_shipped_scenario_loads_and_pins_its_network(path):
    # The scenario defaults may change (they did, to a 10 Gb/s datacenter's); the shipped scenarios, and the
    # papers' settings they reproduce, must not move with them (docs/scenario-format.md).
    raw = tomllib.loads(path.read_text())
    if "sweep" in raw:
        return  # a sweep spec: its scenarios are the files it names, checked here themselves
    load_scenario(path)
    topo = raw["topology"]
    needed = {"kind", "link_rate", "link_delay"}
    if topo["kind"] in ("fattree", "leafspine", "clos", "expander") or "hosts_per_rack" in topo:
        needed |= {"queue", "host_queue"}  # only packet ports and hosts' NICs have these queues
    assert needed <= set(topo), f"{path.name} leaves {sorted(needed - set(topo))} to the defaults"
    assert "kind" in raw["workload"]


def test_only_the_workload_kind_a_scenario_uses_gets_its_model_built():
    # the scenario's validator holds no workload schema: each kind's model is built on first use (start-up), and
    # a kind built later validates and reports errors as the others do
    import subprocess
    import sys

    code = (
        "from greendcn.sim import scenario as s\n"
        f"s.load_scenario({str(SCENARIOS / 'bench-one-flow.toml')!r})\n"
        "print(sorted(k for k, m in s._WORKLOADS.items() if m.__pydantic_complete__))\n"
        "try:\n"
        "    s.scenario_from_dict({'workload': {'kind': 'mix', 'components': [{'kind': 'count', 'count': 0}]}})\n"
        "except Exception as e:\n"
        "    print(e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    built, error = done.stdout.splitlines()
    assert built == "['flows']"
    assert error.startswith("workload.components[0].count: Input should be greater than or equal to 1"), error
