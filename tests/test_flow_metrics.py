"""Flow metrics as papers report them (sim/metrics.py, docs/metrics.md): ideal FCT and slowdown per flow, FCT
and slowdown by size bucket and by class, on packet and circuit fabrics, in the summary, --json and the
sweep store's summary rows."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import run_greendcn
from greendcn.sim import simulate
from greendcn.sim.metrics import bucket_labels, flow_table, summary_keys

ROTORNET = Path(__file__).resolve().parent.parent / "scenarios" / "rotornet-permutation.toml"


def one_flow(size, **tcp):
    return {"tcp": tcp, "workload": {"kind": "flows", "flows": [{"src": "S0", "dst": "S15", "size": size}]}}


@pytest.mark.parametrize("handshake", [False, True])
def test_a_one_packet_flow_on_the_idle_network_has_slowdown_one(handshake):
    # One packet stored and forwarded over the six links S0 -> S15 is exactly the ideal FCT's model; the
    # engine's serialization is in whole picoseconds, hence the 1e-9 tolerance.
    r = simulate(one_flow("1000B", handshake=handshake), progress=False)
    assert r.flows["slowdown"].iloc[0] == pytest.approx(1.0, abs=1e-9)
    assert r.flows["slowdown"].iloc[0] >= 1.0 - 1e-12
    # by hand, on the default 10 Gb/s links of 500 ns: 1052 wire bytes on each of 6 links (0.8416 us) plus
    # 6 x 0.5 us, and with the handshake a round trip of 52-byte packets (6 x (0.0416 + 0.5) us, twice)
    ideal = 6 * (1052 * 8 / 1e10 + 0.5e-6) + (2 * 6 * (52 * 8 / 1e10 + 0.5e-6) if handshake else 0.0)
    assert r.flows["ideal_fct_s"].iloc[0] == pytest.approx(ideal, rel=1e-12)


@pytest.mark.parametrize("transport", ["ndp", "tcp"])
def test_a_lone_two_packet_flow_has_slowdown_one_sprayed_or_not_and_ndp_makes_no_handshake(transport):
    # 2,000 bytes S0 -> S15 on the default k = 4 fat-tree (10 Gb/s, 500 ns): a full packet F (1,500 wire
    # bytes: 1,448 of payload and 52 of header) and a last one L (552 + 52). On one path L waits behind F on
    # every link: 6 F + L + 6 d. Sprayed, L takes another aggregation or core switch and reaches the
    # destination's edge switch first, so the flow ends with F: 6 F + 6 d (the ideal used to say 6 F + L + 6 d
    # there, slowdown 0.95). Exact in whole picoseconds, hence the 1e-9 tolerance.
    f_us, l_us, d_us = 1500 * 8 / 1e4, 604 * 8 / 1e4, 0.5
    for scheme, ideal_us in (("ecmp", 6 * f_us + l_us + 6 * d_us), ("rps", 6 * f_us + 6 * d_us)):
        sc = {**one_flow("2000B"), "routing": {"scheme": scheme}, "transport": {"default": transport}}
        fl = simulate(sc, progress=False).flows
        assert fl["ideal_fct_s"].iloc[0] * 1e6 == pytest.approx(ideal_us, rel=1e-12), scheme
        assert fl["slowdown"].iloc[0] == pytest.approx(1.0, abs=1e-9), scheme
    # With tcp.handshake, TCP's FCT and ideal carry the handshake's round trip; NDP makes none, so neither does.
    sc = {**one_flow("2000B", handshake=True), "transport": {"default": transport}}
    fl = simulate(sc, progress=False).flows
    assert fl["slowdown"].iloc[0] == pytest.approx(1.0, abs=1e-9)
    rtt_us = 2 * 6 * (52 * 8 / 1e4 + d_us)
    with_rtt = 6 * f_us + l_us + 6 * d_us + (rtt_us if transport == "tcp" else 0.0)
    assert fl["ideal_fct_s"].iloc[0] * 1e6 == pytest.approx(with_rtt, rel=1e-9)


def test_a_udp_flow_at_the_link_rate_has_slowdown_one():
    # 1 MB in 680 datagrams sent back to back at the default 10 Gbps over S0 -> E0 -> S1: the ideal is exact
    # here (the last, shorter datagram waits at the switch for the full one before it); whole picoseconds again.
    flow = {"src": "S0", "dst": "S1", "size": "1MB", "transport": "udp", "rate": "10Gbps"}
    r = simulate({"workload": {"kind": "flows", "flows": [flow]}}, progress=False)
    # by hand: (1,000,000 + 680 x 28) bytes at 10 Gbps, 2 x 0.5 us, and one 1500-byte datagram at the switch
    ideal = (1_000_000 + 680 * 28) * 8 / 1e10 + 2 * 0.5e-6 + 1500 * 8 / 1e10
    assert r.flows["ideal_fct_s"].iloc[0] == pytest.approx(ideal, rel=1e-12)
    assert r.flows["slowdown"].iloc[0] == pytest.approx(1.0, abs=1e-9)


def test_a_long_flow_alone_on_the_idle_network_is_within_one_percent_of_ideal():
    # 10 MB at the default 10 Gbps takes ~8.3 ms at line rate; TCP's slow start (initial window 10, up to 2
    # segments per ACK) costs at most a few round trips of about 8 us (six 0.5 us links each way plus
    # serialization) before the window covers the path's bandwidth-delay product: well under a percent.
    # 1 % is the stated tolerance: above it, the ideal or the engine is wrong.
    r = simulate(one_flow("10MB"), progress=False)
    s = r.flows["slowdown"].iloc[0]
    assert 1.0 <= s < 1.01


def test_every_finished_flow_of_a_loaded_run_has_slowdown_at_least_one():
    raw = {"workload": {"kind": "random", "long_flows": 4, "short_flows": 8, "long_size": "1MB"}}
    r = simulate(raw, seed=3, progress=False)
    done = r.flows[r.flows["fct_s"].notna()]
    assert len(done) == 12
    assert (done["slowdown"] >= 1.0).all()
    assert np.allclose(done["slowdown"], done["fct_s"] / done["ideal_fct_s"])


def test_buckets_and_percentiles_match_a_hand_computation():
    # Five flows below 100 KB with FCTs 1..5 ms and slowdowns 1..5, two of 2 MB, one of 20 MB unfinished.
    flows = pd.DataFrame(
        {
            "size_bytes": [1_000, 50_000, 99_999, 10_000, 20_000, 2_000_000, 2_000_000, 20_000_000],
            "fct_s": [1e-3, 2e-3, 3e-3, 4e-3, 5e-3, 10e-3, 30e-3, np.nan],
            "slowdown": [1.0, 2.0, 3.0, 4.0, 5.0, 1.5, 2.5, np.nan],
            "class": ["short"] * 5 + ["long"] * 3,
        }
    )
    t = flow_table(flows).set_index("name")
    small = t.loc["lt_100KB"]
    assert small["flows"] == 5 and small["completed"] == 5
    # linear interpolation between order statistics: p = 1 + q x 4 for 1..5
    assert small["fct_p50_s"] == pytest.approx(3e-3)
    assert small["fct_p99_s"] == pytest.approx(4.96e-3)
    assert small["fct_p999_s"] == pytest.approx(4.996e-3)
    assert small["slowdown_mean"] == pytest.approx(3.0)
    mid = t.loc["1MB_10MB"]
    assert mid["flows"] == 2 and mid["fct_p50_s"] == pytest.approx(20e-3)
    assert mid["slowdown_p99"] == pytest.approx(1.5 + 0.99 * 1.0)
    big = t.loc["ge_10MB"]
    assert big["flows"] == 1 and big["completed"] == 0 and np.isnan(big["fct_p99_s"])
    assert t.loc["100KB_1MB"]["flows"] == 0
    assert t.loc["long"]["flows"] == 3 and t.loc["long"]["completed"] == 2
    # all completed slowdowns sorted: 1, 1.5, 2, 2.5, 3, 4, 5; the median is the 4th
    assert t.loc["all"]["flows"] == 8 and t.loc["all"]["slowdown_p50"] == pytest.approx(2.5)
    keys = summary_keys(flow_table(flows))
    assert keys["size_lt_100KB_fct_p99_s"] == pytest.approx(4.96e-3)
    assert keys["class_long_completed"] == 2 and keys["size_ge_10MB_slowdown_p99"] is None
    # settable edges; a size on an edge belongs to the bucket above it
    assert bucket_labels([1500, 64_000]) == ["lt_1500B", "1500B_64KB", "ge_64KB"]
    t2 = flow_table(flows, [99_999]).set_index("name")
    assert t2.loc["lt_99999B"]["flows"] == 4 and t2.loc["ge_99999B"]["flows"] == 4


def test_circuit_fabrics_get_slowdown_against_a_direct_circuit():
    r = simulate(ROTORNET, progress=False)
    # by hand: 10 MB in 6794 datagrams of 1472 payload bytes, each with 28 header and 24 framing bytes, at
    # 10 Gbps, plus 2 x 500 ns (rack -> circuit switch -> rack)
    packets = -(-10_000_000 // 1472)
    ideal = (10_000_000 + packets * 52) * 8 / 10e9 + 2 * 500e-9
    assert r.flows["ideal_fct_s"].to_numpy() == pytest.approx(ideal, rel=1e-12)
    assert (r.flows["slowdown"] > 1.0).all()  # circuits come and go: every flow waits for some
    t = r.fct_table.set_index("name")
    assert t.loc["ge_10MB"]["flows"] == 8 and t.loc["long"]["completed"] == 8
    assert r.summary["size_ge_10MB_slowdown_p99"] == pytest.approx(t.loc["ge_10MB"]["slowdown_p99"])


def test_simulate_prints_the_table_and_writes_the_keys_to_json(tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(
        '[workload]\nkind = "random"\nlong_flows = 2\nshort_flows = 3\nlong_size = "1MB"\n'
        '[run]\nwindow = ["1ms", "4ms"]\nsize_buckets = ["500KB"]\n'
    )
    out = run_greendcn("simulate", scenario, "--json", tmp_path / "r.json")
    assert out.returncode == 0, out.stderr
    assert (
        "slow_p99" in out.stdout and "lt_500KB" in out.stdout and "window 1 ms to 4 ms (3 ms)" in out.stdout
    )
    doc = json.loads((tmp_path / "r.json").read_text())
    s = doc["summary"]
    for key in (
        "slowdown_p99",
        "slowdown_p999",
        "fct_p999_s",
        "size_lt_500KB_slowdown_p99",
        "size_ge_500KB_fct_p50_s",
        "class_short_fct_p99_s",
        "class_long_flows",
        "window_energy_j",
        "window_length_s",
        "window_start_s",
    ):
        assert key in s, key
    assert s["size_buckets_bytes"] == [500_000]
    assert all("slowdown" in f and "ideal_fct_s" in f for f in doc["flows"])
    assert {r["group"] for r in doc["fct_table"]} == {"all", "size", "class"}
    assert doc["energy"]["interval"]["name"] == "run"
    assert doc["window_energy"]["interval"] == {
        "name": "window",
        "start_s": 1e-3,
        "end_s": 4e-3,
        "length_s": pytest.approx(3e-3),
    }


def test_the_sweep_summary_row_carries_the_metric_keys():
    from greendcn.sweep.jobs import _simulate_run

    raw = {
        "workload": {"kind": "random", "long_flows": 2, "short_flows": 3, "long_size": "1MB"},
        "run": {"window": ["1ms", "3ms"]},
    }
    row = _simulate_run({"raw": raw, "base_dir": None}).summary
    for key in ("slowdown_p99", "size_lt_100KB_slowdown_p99", "class_short_fct_p999_s", "window_energy_j"):
        assert key in row, key
    assert row["size_100KB_1MB_flows"] == 3  # seed 003's 200 KB short flows


@pytest.mark.parametrize("topo", [{"k": 4}, {"k": 8}, {"kind": "leafspine"}, {"k": 6, "oversubscription": 2}])
def test_the_vectorized_hop_count_agrees_with_the_plain_breadth_first_search(topo):
    from greendcn.sim.metrics import _host_attachment, _hops_to, _switch_paths
    from greendcn.sim.scenario import scenario_from_dict
    from greendcn.sim.topology import build_topology

    net = build_topology(scenario_from_dict({"topology": topo}).topology)
    sw, _, _ = _host_attachment(net)
    h = len(sw)
    src, dst = np.repeat(np.arange(h), h), np.tile(np.arange(h), h)
    s_sw, d_sw = sw[src[src != dst]], sw[dst[src != dst]]
    shuffle = np.random.default_rng(7).permutation(len(s_sw))  # flows in no order of their source switch
    s_sw, d_sw = s_sw[shuffle], d_sw[shuffle]
    fast = _hops_to(net, h, np.unique(s_sw), s_sw, d_sw)
    slow = np.zeros(len(s_sw))
    for s, (delay, _) in _switch_paths(net, np.unique(s_sw)).items():
        slow[s_sw == s] = delay[d_sw[s_sw == s]] / net.links[-1].delay_ps
    assert np.array_equal(fast, slow)
    assert set(fast.tolist()) == ({0.0, 2.0} if topo.get("kind") == "leafspine" else {0.0, 2.0, 4.0})


def test_the_percentiles_and_distinct_values_are_numpys_bit_for_bit():
    # quantile_sorted and _distinct stand in for np.quantile and np.unique (which import numpy.ma): the same
    # floats exactly, on sizes from one value up, with ties, and at the quantiles' ends.
    from greendcn.sim.metrics import _distinct, quantile_sorted

    rng = np.random.default_rng(7)
    for trial in range(300):
        n = int(rng.integers(1, 80))
        v = rng.lognormal(size=n) * 10.0 ** int(rng.integers(-9, 3))
        if trial % 3 == 0:
            v = np.round(v, 2)  # ties
        ordered = np.sort(v)
        for q in (0.0, 0.5, 0.99, 0.999, 1.0, float(rng.random())):
            assert quantile_sorted(ordered, q) == float(np.quantile(v, q)), (n, q)
        codes = rng.integers(0, 9, size=n).astype(np.int32)
        assert np.array_equal(_distinct(codes), np.unique(codes))
        assert _distinct(codes).dtype == np.unique(codes).dtype
    signed = np.array([3, -1, 3, 0])
    assert np.array_equal(_distinct(signed), np.unique(signed))
