"""Generated workloads (sim/workload/generate.py): shipped size tables, load, size fit, every pattern's defining
property, determinism, and that a run uses exactly the generated flows."""

from __future__ import annotations

from importlib import resources

import numpy as np
import pytest

from greendcn.core.errors import InputError
from greendcn.sim.limits import workload_flow_count
from greendcn.sim.scenario import scenario_from_dict
from greendcn.sim.topology import build_topology
from greendcn.sim.workload import build_table, build_workload, read_flows_csv
from greendcn.sim.workload.distributions import SHIPPED, load_distribution, read_cdf_text
from greendcn.sim.workload.generate import GenContext
from greendcn.sim.workload.racks import bisection_bps, host_racks

K8 = {"kind": "fattree", "k": 8, "link_rate": "10Gbps"}


def _table(workload: dict, topology: dict | None = None, seed: int = 1, base_dir: str | None = None):
    sc = scenario_from_dict({"topology": topology or K8, "workload": workload}, base_dir=base_dir)
    net = build_topology(sc.topology)
    return sc, net, build_table(sc, net, seed)


def _racks(sc, net):
    return host_racks(sc.topology, len(net.hosts))


# --- the shipped tables -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_tables_are_cdfs_and_the_points_mean_is_the_public_generators(name):
    d = load_distribution(name)
    assert (np.diff(d.sizes) > 0).all() and (np.diff(d.cdf) >= 0).all() and d.cdf[-1] == 1.0
    # the public generator's mean: sum over points of size x (p_j - p_(j-1)), from the raw file's numbers
    text = (resources.files("greendcn.sim.workload") / "data" / SHIPPED[name][0]).read_text()
    rows = [line.split(",") for line in text.splitlines() if line and line[0].isdigit()]
    sizes = [float(r[0]) for r in rows]
    probs = [float(r[1]) for r in rows]
    mean = sum(s * (p - q) for s, p, q in zip(sizes[1:], probs[1:], probs[:-1])) + sizes[0] * probs[0]
    assert d.mean("points") == pytest.approx(mean, rel=1e-12)
    assert d.mean("interpolate") < d.mean("points")  # linear between points moves mass to smaller sizes


def test_websearch_table_holds_the_published_numbers():
    d = load_distribution("websearch")
    assert (len(d.sizes), int(d.sizes[0]), int(d.sizes[-1])) == (16, 4000, 28589215)
    assert d.cdf_at(77113) == pytest.approx(0.532786885)


def test_cdf_reader_refuses_decreasing_probabilities_and_a_cdf_not_ending_at_1():
    with pytest.raises(InputError, match="line 3.*never decreases"):
        read_cdf_text("1000,0\n2000,0.5\n3000,0.4\n4000,1\n", "x.csv")
    with pytest.raises(InputError, match="ends at 1"):
        read_cdf_text("1000,0\n2000,0.5\n3000,0.9\n", "x.csv")
    with pytest.raises(InputError, match="line 2.*sizes must increase"):
        read_cdf_text("1000,0\n1000,0.5\n3000,1\n", "x.csv")
    sizes, cdf = read_cdf_text("# ours\nsize,p\n1000 0.2\n3000 1\n", "x.csv")
    assert sizes.tolist() == [1000, 3000] and cdf.tolist() == [0.2, 1.0]


def test_interpolated_sampling_stays_between_points_and_points_sampling_only_draws_table_sizes(tmp_path):
    (tmp_path / "two.csv").write_text("1000,0\n3000,1\n")
    _, _, t = _table(
        {"kind": "count", "count": 2000, "load": 0.1, "sizes": "two.csv", "sampling": "interpolate"},
        base_dir=str(tmp_path),
    )
    assert t.size_bytes.min() >= 1000 and t.size_bytes.max() <= 3000
    assert abs(t.size_bytes.mean() - 2000) < 10  # uniform on [1000, 3000], stratified: within 1/n of exact
    _, _, t = _table(
        {"kind": "count", "count": 2000, "load": 0.1, "sizes": "two.csv"}, base_dir=str(tmp_path)
    )
    assert set(t.size_bytes.tolist()) == {3000}  # the point 1000 has probability 0


# --- load and size fit (the acceptance: k = 8 fat-tree, web search, 30 %, 50 ms) --------------------


@pytest.mark.parametrize("sampling", ["points", "interpolate"])
def test_websearch_30_percent_on_k8_hits_load_within_3_percent_and_ks_within_0_02(sampling):
    w = {"kind": "poisson", "sizes": "websearch", "load": 0.3, "duration": "50ms", "sampling": sampling}
    sc, net, t = _table(w)
    assert len(net.hosts) == 128
    achieved = t.total_bytes * 8 / (0.05 * 128 * 10e9)
    # Tolerance 3 % (the issue's): stratified draws fix the count at lambda x T and each size stratum gets
    # one draw, so the residual error is the table's largest size over the total bytes (about 1 %).
    assert achieved == pytest.approx(0.3, rel=0.03)
    d = load_distribution("websearch")
    assert d.ks_distance(t.size_bytes, sampling) <= 0.02
    assert len(t) == round(0.3 * 128 * 10e9 / 8 / d.mean(sampling) * 0.05)
    assert (np.diff(t.start_ps) >= 0).all() and t.start_ps.max() < 50 * 10**9


def test_independent_draws_vary_the_count_and_stratified_draws_do_not():
    base = {"kind": "poisson", "sizes": "websearch", "load": 0.3, "duration": "20ms"}
    strat = {len(_table(base, seed=s)[2]) for s in (1, 2, 3)}
    indep = {len(_table({**base, "draws": "independent"}, seed=s)[2]) for s in (1, 2, 3)}
    assert len(strat) == 1 and len(indep) > 1


def test_load_on_the_bisection_scales_the_rate_by_the_stated_bisection():
    topo = {"kind": "leafspine", "leaves": 8, "spines": 2, "hosts_per_leaf": 4, "link_rate": "10Gbps"}
    sc, net, t = _table(
        {"kind": "poisson", "size": "100KB", "load": 0.5, "load_on": "bisection", "duration": "10ms"},
        topology=topo,
    )
    bis = bisection_bps(sc.topology, 32)
    assert bis == 4 * 2 * 10**10  # four leaves' two uplinks each, below their 16 hosts' links
    assert len(t) == round(0.5 * bis / 8 / 100_000 * 0.01)


def test_a_circuit_fabrics_bisection_is_capped_by_its_racks_host_links():
    base = {"kind": "rotornet", "racks": 8, "circuit_switches": 4, "uptime": "100us", "link_rate": "10Gbps"}
    route = {"scheme": "rotorlb"}
    racks = scenario_from_dict({"topology": base, "routing": route}).topology
    hosts = scenario_from_dict({"topology": {**base, "hosts_per_rack": 2}, "routing": route}).topology
    assert bisection_bps(racks, 8) == 4 * 4 * 10**10  # four racks' four uplinks
    assert bisection_bps(hosts, 16) == 4 * 2 * 10**10  # four racks' two hosts' links, below their uplinks


def test_same_seed_same_flows_and_another_seed_other_flows():
    w = {"kind": "poisson", "sizes": "datamining", "load": 0.2, "duration": "5ms"}
    a, b, c = (_table(w, seed=s)[2] for s in (7, 7, 8))
    for col in ("src", "dst", "size_bytes", "start_ps"):
        assert np.array_equal(getattr(a, col), getattr(b, col))
    assert not np.array_equal(a.size_bytes[:50], c.size_bytes[:50])


def test_the_run_path_and_the_written_csv_are_the_generated_flows(tmp_path):
    sc, net, t = _table(
        {
            "kind": "poisson",
            "sizes": "websearch",
            "load": 0.3,
            "duration": "2ms",
            "start_jitter": "10us",
            "class": "ws",
        }
    )
    flows = build_workload(sc, net, 1)
    assert [(f.src, f.dst, f.size_bytes, f.start_ps, f.cls) for f in flows] == list(
        zip(t.src.tolist(), t.dst.tolist(), t.size_bytes.tolist(), t.start_ps.tolist(), ["ws"] * len(t))
    )
    t.write_csv(tmp_path / "f.csv", net.hosts)
    back = read_flows_csv(tmp_path / "f.csv", net)
    assert [(f.src, f.dst, f.size_bytes, f.start_ps, f.cls) for f in back] == [
        (f.src, f.dst, f.size_bytes, f.start_ps, f.cls) for f in flows
    ]


def test_size_guard_estimate_matches_the_generated_count():
    w = {"kind": "poisson", "sizes": "hadoop", "load": 0.4, "duration": "30ms"}
    sc, net, t = _table(w)
    est = workload_flow_count(sc, 128)
    assert abs(est - len(t)) <= 1


# --- patterns ----------------------------------------------------------------------------------------------


def test_permutation_is_a_derangement_fixed_for_the_run():
    sc, net, t = _table(
        {"kind": "poisson", "size": "10KB", "load": 0.2, "duration": "5ms", "pattern": "permutation"}
    )
    mapping = {}
    for s, d in zip(t.src.tolist(), t.dst.tolist()):
        assert mapping.setdefault(s, d) == d and s != d
    _, _, r = _table({"kind": "all_at_once", "size": "1MB", "pattern": "permutation"})
    assert sorted(r.src.tolist()) == list(range(128)) and sorted(r.dst.tolist()) == list(range(128))
    assert not (r.src == r.dst).any() and (r.start_ps == 0).all()


def test_incast_has_one_receiver_per_burst_and_fan_in_distinct_senders():
    _, _, t = _table({"kind": "all_at_once", "size": "64KB", "pattern": "incast", "fan_in": 20})
    assert len(t) == 20 and len(set(t.dst.tolist())) == 1
    assert len(set(t.src.tolist())) == 20 and t.dst[0] not in t.src
    _, _, t = _table(
        {
            "kind": "all_at_once",
            "size": "64KB",
            "pattern": "incast",
            "fan_in": 8,
            "period": "1ms",
            "duration": "10ms",
        }
    )
    assert len(t) == 80
    for b in range(10):
        burst = t.start_ps == b * 10**9
        assert burst.sum() == 8 and len(set(t.dst[burst].tolist())) == 1
        assert len(set(t.src[burst].tolist())) == 8


def test_stride_x_sends_i_to_i_plus_x_and_rolls_every_period():
    _, _, t = _table(
        {"kind": "poisson", "size": "10KB", "load": 0.1, "duration": "2ms", "pattern": "stride", "stride": 5}
    )
    assert ((t.src + 5) % 128 == t.dst).all()
    _, _, t = _table(
        {
            "kind": "all_at_once",
            "size": "10KB",
            "pattern": "stride",
            "stride": 3,
            "period": "1ms",
            "duration": "4ms",
        }
    )
    for p in range(4):
        rows = t.start_ps == p * 10**9
        assert rows.sum() == 128 and (((t.src[rows] + 3 + p) % 128) == t.dst[rows]).all()


def test_bijection_is_one_to_one_in_every_period_and_redrawn_between():
    _, _, t = _table(
        {
            "kind": "poisson",
            "size": "10KB",
            "load": 0.3,
            "duration": "4ms",
            "pattern": "bijection",
            "period": "1ms",
        }
    )
    maps = []
    for p in range(4):
        rows = (t.start_ps // 10**9) == p
        pairs = set(zip(t.src[rows].tolist(), t.dst[rows].tolist()))
        srcs = [s for s, _ in pairs]
        dsts = [d for _, d in pairs]
        assert len(srcs) == len(set(srcs)) and len(dsts) == len(set(dsts))  # one destination, one source
        assert all(s != d for s, d in pairs)
        maps.append(dict(pairs))
    common = set(maps[0]) & set(maps[1])
    assert common and any(maps[0][s] != maps[1][s] for s in common)


def test_hotspot_racks_receive_their_share_of_bytes():
    sc, net, t = _table(
        {
            "kind": "count",
            "count": 20000,
            "load": 0.3,
            "sizes": "websearch",
            "pattern": "hotspot",
            "hot_racks": 0.125,
            "hot_share": 0.5,
        }
    )
    racks = _racks(sc, net)
    per_rack = np.bincount(racks[t.dst], weights=t.size_bytes, minlength=32)
    hot = np.argsort(per_rack)[-4:]  # ceil(0.125 x 32) = 4 hot racks
    # Tolerance 0.03: the hot flows' share is exact in expectation; web-search sizes (coefficient of variation
    # about 2.2) make the byte share's standard deviation about 0.5 x sqrt((1 + 2.2^2) / 20000) = 0.009.
    assert per_rack[hot].sum() / per_rack.sum() == pytest.approx(0.5, abs=0.03)
    assert not (t.src == t.dst).any()


def test_inter_rack_has_no_intra_rack_pairs_and_rack_local_keeps_its_share():
    sc, net, t = _table(
        {"kind": "poisson", "size": "10KB", "load": 0.2, "duration": "5ms", "inter_rack": True}
    )
    racks = _racks(sc, net)
    assert len(t) > 1000 and not (racks[t.src] == racks[t.dst]).any()
    sc, net, t = _table({"kind": "count", "count": 10000, "load": 0.2, "size": "10KB", "rack_local": 0.3})
    local = racks[t.src] == racks[t.dst]
    assert not (t.src == t.dst).any()
    # 3 standard deviations of a binomial share over 10,000 flows: 3 x sqrt(0.3 x 0.7 / 10000) = 0.014
    assert local.mean() == pytest.approx(0.3, abs=0.014)


def test_uniform_pairs_never_self_and_reach_every_host():
    _, _, t = _table({"kind": "count", "count": 5000, "load": 0.2, "size": "10KB"})
    assert not (t.src == t.dst).any() and len(set(t.dst.tolist())) == 128


def test_uniform_destinations_are_uniform_over_the_other_hosts_and_other_racks():
    # 64,000 flows on 128 hosts: each host expects 500 as destination (binomial sd about 22); 5 sd is 110.
    # The seed is fixed, so the bound is a check that the draw is uniform, not a flaky statistical test.
    sc, net, t = _table({"kind": "count", "count": 64_000, "load": 0.2, "size": "10KB"})
    per_dst = np.bincount(t.dst, minlength=128)
    assert np.abs(per_dst - 500).max() < 110
    # each source's destinations spread over the others alike: the same source's offsets are uniform on 1..127
    offsets = (t.dst - t.src) % 128
    assert offsets.min() == 1 and np.abs(np.bincount(offsets, minlength=128)[1:] - 64_000 / 127).max() < 110
    # inter_rack: uniform over the 124 hosts of the other 31 racks
    sc, net, t = _table({"kind": "count", "count": 62_000, "load": 0.2, "size": "10KB", "inter_rack": True})
    racks = _racks(sc, net)
    same = racks[t.src] == racks[t.dst]
    assert not same.any() and np.abs(np.bincount(t.dst, minlength=128) - 484.4).max() < 110


def test_all_to_all_is_every_ordered_pair_once_per_round():
    topo = {"kind": "leafspine", "leaves": 4, "spines": 2, "hosts_per_leaf": 3}
    _, _, t = _table(
        {"kind": "all_at_once", "size": "100KB", "pattern": "all_to_all", "period": "1ms", "duration": "2ms"},
        topology=topo,
    )
    assert len(t) == 2 * 12 * 11
    first = set(zip(t.src[t.start_ps == 0].tolist(), t.dst[t.start_ps == 0].tolist()))
    assert len(first) == 132 and all(s != d for s, d in first)
    sc, net, t = _table(
        {"kind": "all_at_once", "size": "100KB", "pattern": "all_to_all", "inter_rack": True}, topology=topo
    )
    racks = _racks(sc, net)
    assert len(t) == 12 * 9 and not (racks[t.src] == racks[t.dst]).any()


def test_components_keep_their_classes_and_streams():
    w = {
        "kind": "mix",
        "components": [
            {
                "kind": "all_at_once",
                "size": "100KB",
                "pattern": "all_to_all",
                "class": "bulk",
                "start": "1ms",
            },
            {"kind": "poisson", "sizes": "websearch", "load": 0.05, "duration": "50ms", "class": "ws"},
        ],
    }
    k4 = {"kind": "fattree", "k": 4, "link_rate": "10Gbps"}
    sc, net, t = _table(w, topology=k4)
    names = t.class_names()
    assert (names == "bulk").sum() == 16 * 15 and (names == "ws").sum() > 0
    assert (np.diff(t.start_ps) >= 0).all()
    alone = _table(w["components"][1], topology=k4)[2]
    # component 1 draws from its own streams, not the single workload's (component 0's): same count, other flows
    ws = t.take(np.flatnonzero(names == "ws"))
    assert len(alone) == len(ws) and not np.array_equal(alone.src, ws.src)
    with pytest.raises(InputError, match="components\\[1\\].class"):
        scenario_from_dict(
            {
                "workload": {
                    "kind": "mix",
                    "components": [
                        {"kind": "all_at_once", "size": "1KB", "pattern": "permutation", "class": "a"},
                        {"kind": "all_at_once", "size": "1KB", "pattern": "permutation", "class": "a"},
                    ],
                }
            }
        )


def test_circuit_fabric_endpoints_are_their_own_racks():
    topo = {"kind": "opera", "racks": 12, "circuit_switches": 4}
    sc = scenario_from_dict(
        {
            "topology": topo,
            "routing": {"scheme": "opera"},
            "workload": {"kind": "poisson", "size": "10KB", "load": 0.1, "duration": "1ms"},
        }
    )
    ctx = GenContext.of(sc.topology, 12)
    assert ctx.racks.tolist() == list(range(12)) and ctx.rate_bps == 4 * sc.topology.link_rate


# --- refusals ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("workload", "words"),
    [
        ({"kind": "poisson", "load": 0, "duration": "1ms"}, ["workload.load", "(0, 1]"]),
        ({"kind": "poisson", "load": 1.5, "duration": "1ms"}, ["workload.load", "1.5"]),
        ({"kind": "poisson", "load": 0.3}, ["workload.duration"]),
        ({"kind": "all_at_once", "pattern": "stride", "stride": 0}, ["workload.stride", "0"]),
        ({"kind": "poisson", "load": 0.3, "duration": "1ms", "pattern": "all_to_all"}, ["workload.pattern"]),
        ({"kind": "all_at_once", "pattern": "bijection"}, ["workload.period"]),
        ({"kind": "all_at_once", "pattern": "uniform"}, ["workload.count"]),
    ],
)
def test_scenario_refuses_impossible_workloads(workload, words):
    with pytest.raises(InputError) as e:
        scenario_from_dict({"workload": workload})
    for w in words:
        assert w in str(e.value)


def test_refusals_inside_a_mix_carry_the_component_in_their_location():
    w = {
        "kind": "mix",
        "components": [{"kind": "all_at_once", "size": "1KB", "pattern": "incast", "fan_in": 999}],
    }
    with pytest.raises(InputError, match=r"workload.components\[0\].fan_in") as e:
        _table(w)
    assert e.value.loc == ("workload", "components", 0, "fan_in")


def test_topology_dependent_refusals_name_the_key():
    with pytest.raises(InputError, match="workload.fan_in: 200 senders"):
        _table({"kind": "all_at_once", "size": "1KB", "pattern": "incast", "fan_in": 200})
    with pytest.raises(InputError, match="workload.stride: 128 is a multiple"):
        _table({"kind": "all_at_once", "size": "1KB", "pattern": "stride", "stride": 128})
    with pytest.raises(InputError, match="workload.sizes: 'webserch' is neither"):
        _table({"kind": "poisson", "sizes": "webserch", "load": 0.1, "duration": "1ms"})


def test_poisson_incast_bursts_carry_the_load_in_whole_bursts():
    sc, net, t = _table(
        {
            "kind": "poisson",
            "sizes": "websearch",
            "load": 0.3,
            "duration": "50ms",
            "pattern": "incast",
            "fan_in": 10,
        }
    )
    starts, first = np.unique(t.start_ps, return_index=True)
    assert len(t) == 10 * len(starts)
    for s in starts[:50]:
        rows = t.start_ps == s
        assert len(set(t.dst[rows].tolist())) == 1 and len(set(t.src[rows].tolist())) == 10
    assert t.total_bytes * 8 / (0.05 * 128 * 10e9) == pytest.approx(0.3, rel=0.05)


def test_count_kind_makes_exactly_count_flows_in_both_draw_modes():
    for draws in ("stratified", "independent"):
        _, _, t = _table({"kind": "count", "count": 777, "load": 0.2, "sizes": "hadoop", "draws": draws})
        assert len(t) == 777 and (np.diff(t.start_ps) >= 0).all() and t.start_ps[-1] > 0


def test_rack_local_is_refused_where_every_rack_is_one_endpoint():
    sc = scenario_from_dict(
        {
            "topology": {"kind": "opera", "racks": 12, "circuit_switches": 4},
            "routing": {"scheme": "opera"},
            "workload": {"kind": "count", "count": 10, "load": 0.1, "rack_local": 0.5},
        }
    )
    from greendcn.sim.optical.scenario_run import endpoint_network

    with pytest.raises(InputError, match="workload.rack_local"):
        build_table(sc, endpoint_network(sc.topology), 1)


@pytest.mark.parametrize(
    "topology",
    [
        {"kind": "fattree", "k": 6, "oversubscription": 2},
        {"kind": "leafspine", "leaves": 5, "spines": 3, "hosts_per_leaf": 7},
    ],
)
def test_racks_are_the_switches_the_built_network_hangs_hosts_from(topology):
    sc = scenario_from_dict({"topology": topology})
    net = build_topology(sc.topology)
    n = len(net.hosts)
    attach = {}
    for link in net.links:
        if link.a < n:
            attach[link.a] = link.b
    racks = host_racks(sc.topology, n)
    switch_of_rack = {}
    for h in range(n):
        assert switch_of_rack.setdefault(int(racks[h]), attach[h]) == attach[h]
    assert len(switch_of_rack) == len(set(attach.values()))


def test_websearch_30_percent_on_opera_108_racks_hits_load_and_sizes():
    # Opera 108 x 6 with racks as endpoints (each sends over its 6 uplinks); the same check as on the k = 8 tree
    sc = scenario_from_dict(
        {
            "topology": {"kind": "opera", "racks": 108, "circuit_switches": 6, "link_rate": "10Gbps"},
            "routing": {"scheme": "opera"},
            "workload": {"kind": "poisson", "sizes": "websearch", "load": 0.3, "duration": "50ms"},
        }
    )
    ctx = GenContext.of(sc.topology, 108)
    from greendcn.sim.workload.generate import generate_table

    t = generate_table(sc.workload, ctx, 1)
    assert t.total_bytes * 8 / (0.05 * 108 * 6 * 10e9) == pytest.approx(0.3, rel=0.03)
    assert load_distribution("websearch").ks_distance(t.size_bytes) <= 0.02
    assert not (t.src == t.dst).any() and t.dst.max() == 107


@pytest.mark.parametrize(
    ("extra", "key"),
    [
        ({"pattern": "bijection", "period": "1ns"}, "workload.period"),
        ({"pattern": "incast", "fan_in": 1}, "workload.count"),
    ],
)
def test_patterns_drawn_per_period_or_burst_refuse_runaway_work(extra, key):
    topo = {"kind": "leafspine", "leaves": 100, "spines": 2, "hosts_per_leaf": 20, "link_rate": "10Gbps"}
    with pytest.raises(InputError, match=f"{key}: drawing the"):
        _table({"kind": "count", "count": 600_000, "load": 0.5, "size": "1KB", **extra}, topology=topo)


def test_websearch_30_percent_on_opera_648_hosts_hits_load_and_sizes():
    # Opera 108 x 6 with 6 hosts behind each ToR (the public Opera simulator's 648 hosts), through the same
    # endpoint network `simulate` builds: each host sends at 30 % of its own 10 Gb/s link, within 3 % of the target
    # (stratified draws, docs/workloads.md), and the sizes within KS 0.02 of the shipped table.
    from greendcn.sim.optical.scenario_run import endpoint_network

    sc = scenario_from_dict(
        {
            "topology": {
                "kind": "opera",
                "racks": 108,
                "circuit_switches": 6,
                "hosts_per_rack": 6,
                "link_rate": "10Gbps",
            },
            "routing": {"scheme": "opera"},
            "workload": {"kind": "poisson", "sizes": "websearch", "load": 0.3, "duration": "50ms"},
        }
    )
    net = endpoint_network(sc.topology)
    assert len(net.hosts) == 648
    t = build_table(sc, net, 1)
    assert t.total_bytes * 8 / (0.05 * 648 * 10e9) == pytest.approx(0.3, rel=0.03)
    assert load_distribution("websearch").ks_distance(t.size_bytes) <= 0.02
    assert not (t.src == t.dst).any() and t.dst.max() <= 647 and len(np.unique(t.src)) > 600


def test_a_generated_workload_reaches_the_engine_as_columns_with_the_flow_lists_results():
    from greendcn.sim import simulate
    from greendcn.sim.workload.columns import FlowColumns

    doc = {
        "topology": {"kind": "fattree", "k": 4},
        "tcp": {"handshake": True},
        "transport": {"classes": {"ws": "dctcp"}},
        "workload": {
            "kind": "mix",
            "components": [
                {"kind": "poisson", "size": "50KB", "load": 0.2, "duration": "1ms", "class": "ws"},
                {"kind": "count", "count": 20, "load": 0.1, "size": "20KB", "class": "small"},
            ],
        },
    }
    sc = scenario_from_dict(doc)
    net = build_topology(sc.topology)
    flows = build_workload(sc, net, 3)
    assert isinstance(flows, FlowColumns) and len(flows) > 20
    as_list = build_table(sc, net, 3).to_flows()
    assert list(flows) == as_list  # the same flows, read one by one
    by_columns = simulate(sc, seed=3, progress=False)
    by_list = simulate(sc, seed=3, flows=as_list, progress=False)
    a, b = by_columns.flows, by_list.flows
    assert set(a["class"]) == {"ws", "small"} and set(a["transport"]) == {"dctcp", "tcp"}
    assert a.equals(b)
    assert by_columns.links.equals(by_list.links)
    assert by_columns.energy.total_energy_j == by_list.energy.total_energy_j
