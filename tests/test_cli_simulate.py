"""`greendcn simulate` and `greendcn demo` from the command line: errors are one line naming the field, exit 1,
no traceback; with the engine, the JSON holds flows, links, nodes and summary."""

import json
from pathlib import Path

import pytest
from conftest import assert_clean_error, run_greendcn

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "scenarios" / "seed003-static.toml"


run_cli = run_greendcn


@pytest.mark.parametrize(
    "sets, field",
    [
        (["topology.k=5"], "topology.k"),
        (["topology.link_rate=-1Gbps"], "topology.link_rate"),
        (["topology.link_rate=1000"], "topology.link_rate"),
        (["topology.nonsense=1"], "topology.nonsense"),
        (["routing.scheme=spray"], "routing.scheme"),
        (["workload.kind=random", "workload.long_flows=0", "workload.short_flows=0"], "workload"),
        (["workload.destination=S99"], "workload.destination"),
        # cross-field checks name the scenario's key, not the engine's (tcp.min_rto, not min_rto_ps)
        (["tcp.min_rto=0"], "tcp.min_rto"),
        (["tcp.max_rto=1ms"], "tcp.max_rto"),
        (["tcp.max_window=1000B"], "tcp.max_window"),
    ],
)
def test_bad_overrides_give_one_clear_error(sets, field):
    args = ["simulate", STATIC]
    for s in sets:
        args += ["--set", s]
    out = run_cli(*args)
    assert_clean_error(out, field)
    # whether the loader or the run's build found it, the error names the scenario file
    assert f"error: {STATIC.name}: " in out.stderr, out.stderr


def test_bad_file_key_names_the_file_and_field(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text('[topology]\nk = 4\nlink_rate = "1Gbps"\nqueues = "10pkt"\n')
    out = run_cli("simulate", p)
    assert_clean_error(out, "topology.queues")
    assert "s.toml" in out.stderr


def test_workload_checked_against_the_topology_names_the_file(tmp_path):
    p = tmp_path / "big.toml"
    p.write_text('[topology]\nkind = "fattree"\nk = 4\n[workload]\nkind = "static"\nlong_flows = 40\n')
    out = run_cli("simulate", p)
    assert_clean_error(out, "workload.long_flows")
    assert "error: big.toml: workload.long_flows" in out.stderr, out.stderr


def test_flows_file_with_a_missing_host_is_refused(tmp_path):
    f = tmp_path / "flows.csv"
    f.write_text("src,dst,size_bytes,start_s\nS0,S15,1000,0\nS1,S42,1000,0\n")
    assert_clean_error(run_cli("simulate", STATIC, "--flows", f), "S42")


def test_missing_scenario_file_is_a_clean_error(tmp_path):
    assert_clean_error(run_cli("simulate", tmp_path / "nope.toml"), "nope.toml")


def test_simulate_prints_a_summary_and_writes_json(tmp_path):
    out = run_cli(
        "simulate",
        STATIC,
        "--seed",
        "3",
        "--set",
        "workload.long_flows=2",
        "--set",
        "workload.long_size=500KB",
        "--set",
        "routing.scheme=rps",
        "--json",
        tmp_path / "r.json",
    )
    assert out.returncode == 0, out.stderr
    assert "long" in out.stdout and "short" in out.stdout and "packet-hops" in out.stdout
    doc = json.loads((tmp_path / "r.json").read_text())
    assert set(doc) >= {"flows", "links", "nodes", "summary"}
    assert doc["summary"]["seed"] == 3 and doc["summary"]["routing"] == "rps"
    assert [f["size_bytes"] for f in doc["flows"]] == [500_000, 500_000, 200_000]
    assert all(f["fct_s"] > 0 and f["throughput_bps"] > 0 for f in doc["flows"])


def test_flows_file_replaces_the_workload(tmp_path):
    f = tmp_path / "flows.csv"
    f.write_text("src,dst,size_bytes,start_s,class\nS0,S15,100000,0,mouse\n5,S9,300000,0.001,elephant\n")
    out = run_cli("simulate", STATIC, "--flows", f, "--json", tmp_path / "r.json")
    assert out.returncode == 0, out.stderr
    flows = json.loads((tmp_path / "r.json").read_text())["flows"]
    assert [(x["src"], x["dst"], x["class"], x["start_s"]) for x in flows] == [
        ("S0", "S15", "mouse", 0.0),
        ("S5", "S9", "elephant", 0.001),
    ]


def test_demo_prints_single_and_rps_side_by_side(tmp_path):
    out = run_cli("demo", "--json", tmp_path / "d.json")
    assert out.returncode == 0, out.stderr
    rows = json.loads((tmp_path / "d.json").read_text())["rows"]
    assert [(r["scenario"], r["routing"]) for r in rows] == [
        ("seed003-static", "single"),
        ("seed003-static", "rps"),
        ("seed003-random", "single"),
        ("seed003-random", "rps"),
    ]
    assert all(r["short_ooo_%"] == 0 for r in rows if r["routing"] == "single")
    assert "seed003-random" in out.stdout
    # Energy beside throughput: the k=4 tree's 20 switches at the default SN2700's constant 90.5 W (seed 001
    # Table 2.1); energy per bit = that power x the run's length / the payload bits delivered, so it must be
    # positive and differ between runs that take different times.
    for r in rows:
        assert r["network_w"] == pytest.approx(20 * 90.5)
        assert r["energy_j_per_bit"] > 0
    assert len({round(r["energy_j_per_bit"], 12) for r in rows}) == 4


def test_two_runs_in_separate_processes_write_identical_json_apart_from_wall_s(tmp_path):
    docs = []
    for name in ("a.json", "b.json"):
        out = run_cli(
            "simulate",
            ROOT / "scenarios" / "seed003-random.toml",
            "--seed",
            "5",
            "--set",
            "routing.scheme=rps",
            "--set",
            "workload.long_size=1MB",
            "--json",
            tmp_path / name,
        )
        assert out.returncode == 0, out.stderr
        doc = json.loads((tmp_path / name).read_text())
        assert doc["summary"].pop("wall_s") > 0
        docs.append(doc)
    assert docs[0] == docs[1]
    assert sum(f["ooo_packets"] for f in docs[0]["flows"]) > 0  # spraying made random choices


def test_timeout_dominated_runs_say_so_in_one_warning_line(tmp_path):
    # 10 Gb/s with 20-packet queues loses packets; with the old 1 s minimum RTO a single timeout dominates a
    # flow's completion time. The count in the warning is checked against the flows table.
    sc = tmp_path / "fast.toml"
    sc.write_text(
        '[topology]\nlink_rate = "10Gbps"\nqueue = "20pkt"\n'
        '[workload]\nkind = "random"\nlong_flows = 5\nshort_flows = 20\nlong_size = "1MB"\n'
    )
    out = run_cli("simulate", sc, "--set", "tcp.min_rto=1s", "--json", tmp_path / "o.json")
    assert out.returncode == 0, out.stderr
    warnings = [line for line in out.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "tcp.min_rto = 1000 ms" in warnings[0]
    flows = json.loads((tmp_path / "o.json").read_text())["flows"]
    dominated = [f for f in flows if f["timeouts"] and f["timeouts"] * 1.0 >= 0.5 * f["fct_s"]]
    assert dominated and warnings[0].startswith(f"warning: {len(dominated)} of {len(flows)} flows")
    # the paper's scenario, which loses nothing, warns of nothing
    quiet = run_cli("simulate", STATIC, "--set", "workload.long_size=100KB")
    assert quiet.returncode == 0 and "warning:" not in quiet.stderr


def test_new_scenarios_get_linux_min_rto_and_the_paper_scenarios_pin_one_second():
    from greendcn.sim.reproduce.rps import seed003_scenario
    from greendcn.sim.scenario import load_scenario, scenario_from_dict

    assert scenario_from_dict({}).tcp.min_rto == 200 * 10**9  # Linux's TCP_RTO_MIN, in ps
    for kind in ("static", "random"):
        assert load_scenario(ROOT / "scenarios" / f"seed003-{kind}.toml").tcp.min_rto == 10**12
        assert scenario_from_dict(seed003_scenario(kind)).tcp.min_rto == 10**12
