"""simulate() through the engine: tables and units, determinism, conservation, and seed 003's mechanisms
(spraying splits a flow over the four paths; single path never reorders). Flows are kept small (1-2 MB long
flows instead of seed 003's 10 MB) so the suite stays fast; each test states its tolerance."""

import json
from pathlib import Path

import pytest

from greendcn.sim import simulate
from greendcn.sim.reproduce.metrics import run_metrics
from greendcn.sim.reproduce.rps import seed003_scenario
from greendcn.sweep import sweep

ROOT = Path(__file__).resolve().parent.parent


def small(kind="static", scheme="single", **workload):
    raw = seed003_scenario(kind, **{"long_size": "1MB", **workload})
    raw["routing"]["scheme"] = scheme
    return raw


def without_wall(doc):
    doc = json.loads(json.dumps(doc))
    doc["summary"].pop("wall_s")
    return doc


def test_tables_have_the_promised_columns_in_seconds_and_bits_per_second():
    res = simulate(small("static", long_flows=2))
    for col in [
        "id",
        "src",
        "dst",
        "size_bytes",
        "start_s",
        "fct_s",
        "throughput_bps",
        "retransmits",
        "spurious_retransmits",
        "ooo_packets",
        "packets_received",
        "class",
    ]:
        assert col in res.flows.columns
    assert set(res.flows["class"]) == {"long", "short"}
    assert res.flows["fct_s"].notna().all()
    # a 1 MB flow over 1 Gbps needs at least 8 ms; an uncongested fat-tree RTT is 300 us
    assert (res.flows["fct_s"] > 8 * res.flows["size_bytes"] / 1e9).all()
    for key in ["sim_time_s", "events", "packet_hops", "wall_s", "drops"]:
        assert key in res.summary
    assert {"from", "to", "bytes_sent", "packets_sent", "busy_s", "drops"} <= set(res.links.columns)
    json.dumps(res.to_json(), allow_nan=False)


@pytest.mark.parametrize("scheme", ["single", "ecmp", "rps"])
def test_same_scenario_and_seed_give_identical_results(scheme):
    raw = small("random", scheme, long_flows=3, short_flows=5)
    a, b = simulate(raw, seed=4), simulate(raw, seed=4)
    assert without_wall(a.to_json()) == without_wall(b.to_json())


def test_rps_results_depend_on_the_seed():
    raw = small("static", "rps", long_flows=3)
    a, b = simulate(raw, seed=1), simulate(raw, seed=2)
    assert not a.links["packets_sent"].equals(b.links["packets_sent"])


@pytest.mark.parametrize("scheme", ["single", "rps"])
def test_packets_are_conserved(scheme):
    res = simulate(small("random", scheme, long_flows=3, short_flows=5, long_size="500KB"), seed=3)
    s = res.summary
    assert s["packets_created"] == s["packets_delivered"] + s["drops"] + s["packets_in_flight"]
    assert s["packets_in_flight"] == 0  # ran to completion
    assert res.links["packets_sent"].sum() == s["packet_hops"]
    assert res.links["drops"].sum() == s["drops"]
    hosts = res.nodes[res.nodes["kind"] == "host"]
    assert hosts["packets_sent"].sum() == s["packets_created"]
    assert hosts["packets_received"].sum() == s["packets_delivered"]
    assert (res.flows["bytes_received"] == res.flows["size_bytes"]).all()


def test_spraying_puts_about_a_quarter_of_a_flow_on_each_of_the_four_paths():
    # One 2 MB flow S0 -> S15 (1382 data packets). Each path is two independent fair coin flips (E0, then
    # A0/A1), so each agg->core link carries a Binomial(n, 1/4) share: sd = sqrt(.25 x .75 / 1382) = 1.2 %.
    # We allow +-5 points (over 4 sd): fails only if spraying is not uniform.
    raw = {
        "routing": {"scheme": "rps"},
        "workload": {"kind": "flows", "flows": [{"src": "S0", "dst": "S15", "size": "2MB", "class": "long"}]},
    }
    res = simulate(raw, seed=11)
    up = res.links[res.links["from"].isin(["A0", "A1"]) & res.links["to"].str.startswith("C")]
    assert sorted(zip(up["from"], up["to"])) == [("A0", "C0"), ("A0", "C1"), ("A1", "C2"), ("A1", "C3")]
    share = up["packets_sent"] / up["packets_sent"].sum()
    assert ((share - 0.25).abs() < 0.05).all(), share.tolist()
    assert up["packets_sent"].sum() >= res.flows["data_packets_sent"].sum()


def test_single_path_uses_one_path_and_never_reorders_even_with_losses():
    # Five 1 MB flows into S15 through 20-packet queues: the E7 -> S15 port overflows, yet first
    # transmissions still arrive in order on one path, so out-of-order is exactly 0 (docs/out-of-order.md).
    raw = small("static", "single", long_flows=5)
    raw["topology"]["queue"] = "20pkt"
    res = simulate(raw)
    assert res.summary["drops"] > 0 and res.flows["retransmits"].sum() > 0
    assert (res.flows["ooo_packets"] == 0).all()
    up = res.links[res.links["from"].isin(["A0", "A1"]) & res.links["to"].str.startswith("C")]
    assert (up["packets_sent"] > 0).sum() == 1  # S0's flows to S15 all cross one core


def test_sweep_returns_one_row_per_flow_with_scenario_and_seed_and_matches_inline():
    pairs = [(small("random", "rps", long_flows=2, short_flows=3, long_size="300KB"), s) for s in (1, 2)]
    pooled = sweep(pairs, workers=2, progress=False)
    inline = sweep(pairs, workers=1, progress=False)
    assert len(pooled) == 10 and list(pooled["seed"].unique()) == [1, 2]
    assert (pooled["scenario"] == "seed003-random").all()
    cols = [c for c in pooled.columns if c != "wall_s"]
    assert pooled[cols].equals(inline[cols])


def test_run_metrics_follow_the_issue_definitions():
    res = simulate(small("random", "rps", long_flows=2, short_flows=4), seed=2)
    m = run_metrics(res.flows)
    long = res.flows[res.flows["class"] == "long"]
    short = res.flows[res.flows["class"] == "short"]
    assert m["long_throughput_bps"] == pytest.approx((8 * long["size_bytes"] / long["fct_s"]).mean())
    assert m["short_fct_s"] == pytest.approx(short["fct_s"].mean())
    assert m["ooo_pct"] == pytest.approx(100 * short["ooo_packets"].sum() / short["packets_received"].sum())


def test_leafspine_permutation_under_ecmp_completes():
    res = simulate(
        {
            "topology": {"kind": "leafspine", "leaves": 3, "spines": 2, "hosts_per_leaf": 2},
            "routing": {"scheme": "ecmp"},
            "workload": {"kind": "permutation", "size": "200KB"},
        }
    )
    assert len(res.flows) == 6 and res.flows["fct_s"].notna().all()
    spines = res.nodes[res.nodes["name"].str.startswith("P")]
    assert len(spines) == 2 and spines["packets_forwarded"].sum() > 0


def test_a_fat_tree_file_can_switch_to_leafspine_by_override():
    res = simulate(
        ROOT / "scenarios" / "seed003-static.toml",
        overrides=[
            "topology.kind=leafspine",
            "topology.leaves=3",
            "topology.hosts_per_leaf=2",
            "workload.long_size=300KB",
        ],
    )
    assert list(res.flows["dst"].unique()) == ["S5"]  # the static scenario's destination is the last host
    assert res.flows["fct_s"].notna().all()


def test_stop_time_leaves_flows_unfinished_with_no_fct():
    res = simulate(small("static", long_flows=2), overrides=["run.stop_time=2ms"])
    assert res.summary["stopped_by"] == "time_limit" and res.summary["sim_time_s"] == pytest.approx(0.002)
    assert res.flows["fct_s"].isna().all() and (res.flows["bytes_received"] < res.flows["size_bytes"]).all()
    s = res.summary
    assert s["packets_created"] == s["packets_delivered"] + s["drops"] + s["packets_in_flight"] > 0
    doc = res.to_json()
    assert doc["flows"][0]["fct_s"] is None


def test_an_inline_udp_flow_is_sent_at_its_constant_rate():
    # 1 MB of UDP payload at 100 Mbps: 680 datagrams of 1500 bytes on the wire, so about 81.6 ms; one
    # datagram of slack (0.12 ms) plus the 150 us path covers rounding and propagation.
    res = simulate(
        {
            "workload": {
                "kind": "flows",
                "flows": [
                    {
                        "src": "S0",
                        "dst": "S15",
                        "size": "1MB",
                        "transport": "udp",
                        "rate": "100Mbps",
                        "class": "cbr",
                    }
                ],
            }
        }
    )
    f = res.flows.iloc[0]
    wire_s = -(-1_000_000 // 1472) * 1500 * 8 / 100e6
    assert f["transport"] == "udp" and f["bytes_received"] == 1_000_000
    assert wire_s - 0.0002 < f["fct_s"] < wire_s + 0.0003


def test_a_udp_flow_without_a_rate_names_the_field():
    from greendcn.core.errors import InputError

    with pytest.raises(InputError, match=r"workload\.flows\[0\]\.rate"):
        simulate(
            {
                "workload": {
                    "kind": "flows",
                    "flows": [{"src": 0, "dst": 1, "size": "1MB", "transport": "udp"}],
                }
            }
        )


def test_docstring_examples_run():
    import doctest
    import importlib

    module = importlib.import_module("greendcn.sim.run")
    result = doctest.testmod(module)
    assert result.attempted >= 3 and result.failed == 0


def test_ecmp_keeps_each_flow_on_one_path_and_spreads_flows_over_cores():
    # Five 1 MB flows S0..S4 -> S15. Single path sends all of them through one core (test above); ECMP hashes
    # each flow onto one of the four paths, so no flow is reordered, yet several cores carry data. (For a
    # random seed, all five flows hashing onto one core has probability 4 x (1/4)^5 = 0.4 %; seed 1 is fixed.)
    res = simulate(small("static", "ecmp", long_flows=5), seed=1)  # sources in pods 0 and 1 (A0..A3)
    assert (res.flows["ooo_packets"] == 0).all()
    up = res.links[res.links["from"].isin(["A0", "A1", "A2", "A3"]) & res.links["to"].str.startswith("C")]
    assert (up["packets_sent"] > 0).sum() > 1


def test_one_way_delay_s0_to_s15_in_the_engine_is_150us_plus_serialization():
    # seed 003 line 58: 25 us per link, 150 us one way between pods on idle links. One 1-byte UDP datagram
    # (29 bytes on the wire with its 28 header bytes) crosses the 6 links store-and-forward: 6 x (25 us + 232 ns).
    res = simulate(
        {
            "topology": {"link_rate": "1Gbps", "link_delay": "25us"},  # Kaymak 2016's, not the defaults
            "workload": {
                "kind": "flows",
                "flows": [{"src": "S0", "dst": "S15", "size": "1B", "transport": "udp", "rate": "1Gbps"}],
            },
        }
    )
    assert res.flows.iloc[0]["fct_s"] == pytest.approx(6 * (25e-6 + 29 * 8 / 1e9), rel=0, abs=1e-12)
