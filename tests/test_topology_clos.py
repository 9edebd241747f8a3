"""The folded Clos builder: the public Opera simulator's 3:1 tree for 648 hosts, each tier's oversubscription,
the k-ary fat-tree as its special case, runs through simulate and workload generation, and bad keys."""

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from greendcn.core.errors import InputError
from greendcn.sim.limits import topology_size
from greendcn.sim.scenario import load_scenario, scenario_from_dict
from greendcn.sim.topology import build_topology, fattree, shortest_hops
from greendcn.sim.topology.clos import clos, clos_shape
from greendcn.sim.workload.racks import bisection_bps, host_racks
from conftest import assert_clean_error, run_greendcn

ROOT = Path(__file__).resolve().parent.parent
CLOS = ROOT / "scenarios" / "clos-3to1-648.toml"
TIER = {"host": 0, "edge": 1, "agg": 2, "agg2": 3, "core": 9}


def _neighbours(net, name):
    adj = net.adjacency()
    return sorted(net.nodes[v].name for v in adj[net.index[name]])


def _down_up(net):
    """Per switch layer, the set of (down, up) port counts its switches have (down: towards hosts)."""
    adj = net.adjacency()
    seen: dict[str, set] = {}
    for i, n in enumerate(net.nodes):
        if n.kind == "host":
            continue
        tiers = [TIER[net.nodes[v].layer] for v in adj[i]]
        down = sum(t < TIER[n.layer] for t in tiers)
        seen.setdefault(n.layer, set()).add((down, len(tiers) - down))
    return seen


def test_the_opera_simulators_3to1_tree_switch_for_switch():
    # TritonNetworking/opera-sim src/clos/datacenter/fat_tree_topology_3to1_k12.cpp: lines 83-87 (counts),
    # 176-178 (host j*9+l under ToR j), 228-232 (pods of 6 ToRs and 3 upper switches), 282-289 (upper switch
    # j to cores (j mod 3)*6 .. +5)
    sc = load_scenario(CLOS)
    net = build_topology(sc.topology)
    assert Counter(n.layer for n in net.nodes) == {"host": 648, "edge": 72, "agg": 36, "core": 18}
    adj = net.adjacency()
    for i, n in enumerate(net.nodes):
        assert len(adj[i]) == (1 if n.kind == "host" else 12), n.name
        assert len(set(adj[i])) == len(adj[i]), f"{n.name} has a doubled link"
    for h in range(648):
        assert _neighbours(net, f"S{h}") == [f"E{h // 9}"]
    for j in range(72):
        ups = [v for v in _neighbours(net, f"E{j}") if v.startswith("A")]
        assert ups == sorted(f"A{(j // 6) * 3 + l}" for l in range(3))
    for k in range(36):
        ups = [v for v in _neighbours(net, f"A{k}") if v.startswith("C")]
        assert ups == sorted(f"C{(k % 3) * 6 + l}" for l in range(6))
    # nothing built: the size guards and the workload's rack map agree with the network
    assert topology_size(sc.topology) == (648, 126, len(net.links), 72)
    assert np.array_equal(host_racks(sc.topology, 648), np.arange(648) // 9)
    # half the 12 pods' core uplinks: 6 x 3 x 6 = 108 links, a third of half the hosts' links (3:1)
    assert bisection_bps(sc.topology, 648) == 108 * 10**10


@pytest.mark.parametrize(
    ("radix", "ratios", "want"),
    [
        ([12, 12, 12], [3, 1], {"edge": {(9, 3)}, "agg": {(6, 6)}, "core": {(12, 0)}}),
        ([8, 8, 8], [1, 3], {"edge": {(4, 4)}, "agg": {(6, 2)}, "core": {(8, 0)}}),
        ([6, 4], [2], {"edge": {(4, 2)}, "core": {(4, 0)}}),
        ([4, 4, 4, 4], [1, 1, 1], {"edge": {(2, 2)}, "agg": {(2, 2)}, "agg2": {(2, 2)}, "core": {(4, 0)}}),
        ([10, 6, 4], [1.5, 2], {"edge": {(6, 4)}, "agg": {(4, 2)}, "core": {(4, 0)}}),
    ],
)
def test_every_tier_has_its_oversubscription_and_every_host_pair_a_path(radix, ratios, want):
    shape = clos_shape(radix, ratios)
    net = clos(shape)
    assert _down_up(net) == want
    assert len(net.hosts) == shape.hosts and len(net.links) == shape.links
    assert Counter(n.layer for n in net.nodes if n.kind == "switch") == dict(
        zip(want, shape.switches, strict=True)
    )
    # every host reaches every other over at most 2 x tiers links, and its rack-mates over 2
    tiers = len(radix)
    for src in (0, len(net.hosts) - 1):
        hops = np.array(shortest_hops(net, src)[: len(net.hosts)])
        assert (hops[np.arange(len(hops)) != src] >= 2).all() and hops.max() == 2 * tiers
        mates = [h for h in range(len(hops)) if h // shape.down[0] == src // shape.down[0] and h != src]
        assert (hops[mates] == 2).all()


@pytest.mark.parametrize("k", [4, 6, 8])
def test_the_k_ary_fat_tree_is_the_special_case(k):
    a, b = clos(clos_shape([k] * 3, [1, 1])), fattree(k)
    assert a.nodes == b.nodes and a.links == b.links  # node for node, link for link, in the same order
    # through the scenario: radix unset takes k, so `--set topology.kind=clos` on a fat-tree file keeps it
    fat = scenario_from_dict({"topology": {"kind": "fattree", "k": k}}).topology
    cl = scenario_from_dict({"topology": {"kind": "clos", "k": k}}).topology
    assert topology_size(cl) == topology_size(fat)
    assert build_topology(cl).links == build_topology(fat).links
    assert bisection_bps(cl, k**3 // 4) == bisection_bps(fat, k**3 // 4)
    # the fat-tree's edge oversubscription (k/2 x r hosts over k/2 uplinks) is a radix-(k/2)(1+r) ToR
    r = 3
    over = clos(clos_shape([k // 2 * (1 + r), k, k], [r, 1]))
    ft = fattree(k, oversubscription=r)
    assert over.nodes == ft.nodes and over.links == ft.links


def test_a_small_clos_runs_through_simulate_and_is_priced():
    from greendcn.sim import simulate

    sc = {
        "topology": {"kind": "clos", "tiers": 2, "radix": 6, "tier_oversubscription": [2]},
        "routing": {"scheme": "ecmp"},
        "workload": {"kind": "permutation", "size": "200KB"},
    }
    res = simulate(sc, progress=False)
    assert len(res.flows) == 24 and res.flows["fct_s"].notna().all()
    # 6 ToRs (4 hosts, 2 uplinks) and 2 spines of radix 6, each priced as the SN2700 (90.5 W, McGuinness 2021
    # Table 2.1; our choice for every packet switch, docs/scenario-format.md) over the whole run
    e = res.energy
    switches = [d for d in e.devices if d["kind"] == "node:switch"]
    assert len(switches) == 8
    assert sum(d["energy_j"] for d in switches) == pytest.approx(8 * 90.5 * e.sim_time_s, rel=1e-9)
    # priced by the ports they have ([power.ports] unused = "off"): the chassis (3/4 of 90.5 W, port_share
    # 0.25) and 6 of the SN2700's 32 ports
    off = simulate({**sc, "power": {"ports": {"unused": "off"}}}, progress=False).energy
    watts = [d["avg_power_w"] for d in off.devices if d["kind"] == "node:switch"]
    assert watts == pytest.approx([90.5 * (0.75 + 0.25 * 6 / 32)] * 8, rel=1e-9)


def test_host_links_can_have_their_own_delay():
    # The public Opera simulator's host links have 0 ns (RTT_rack) and its switch links 500 ns (RTT_net):
    # topology.host_link_delay sets the first alone; a one-packet flow across the tree then arrives 2 x 500 ns
    # sooner (its two host links), and the ideal FCT follows the links, so its slowdown stays 1.
    from greendcn.sim import simulate

    base = {
        "topology": {"kind": "clos", "tiers": 2, "radix": 4, "tier_oversubscription": [1]},
        "workload": {"kind": "flows", "flows": [{"src": 0, "dst": 7, "size": "1000B"}]},
    }
    net = build_topology(scenario_from_dict(base).topology)
    zero = {**base, "topology": {**base["topology"], "host_link_delay": "0ns"}}
    net0 = build_topology(scenario_from_dict(zero).topology)
    hosts = len(net.hosts)
    assert {l.delay_ps for l in net0.links if l.a < hosts} == {0}
    assert {l.delay_ps for l in net0.links if l.a >= hosts} == {500_000}
    assert [l.delay_ps for l in net.links] == [500_000] * len(net.links)
    a, b = (simulate(sc, progress=False).flows for sc in (base, zero))
    assert a["fct_s"].iloc[0] - b["fct_s"].iloc[0] == pytest.approx(1e-6, abs=1e-12)
    assert b["slowdown"].iloc[0] == pytest.approx(1.0, abs=1e-9)
    with pytest.raises(InputError, match="topology.host_link_delay"):
        scenario_from_dict(
            {"topology": {"kind": "opera", "racks": 8, "circuit_switches": 4, "host_link_delay": 0}}
        )


def test_ndps_initial_window_is_the_trees_round_trip():
    # one bandwidth-delay product of the longest path: 2 x tiers links, each a 1500-byte packet's 1.2 us at
    # 10 Gb/s; 500 ns on the 2 x tiers - 2 switch links and 0 ns on the two host links of the shipped tree
    from greendcn.sim.transports import ndp_initial_window

    sc = load_scenario(CLOS)
    assert ndp_initial_window(sc) == math.ceil(2 * (6 * 1.2 + 4 * 0.5) / 1.2)  # 16 packets
    two = sc.with_overrides({"topology.tiers": 2, "topology.tier_oversubscription": [3]})
    assert ndp_initial_window(two) == math.ceil(2 * (4 * 1.2 + 2 * 0.5) / 1.2)  # 10


def test_workload_generate_keeps_flows_between_tors(tmp_path):
    # inter_rack uniform flows need each host's ToR: host i is under ToR i // 9 on the 3:1 tree
    out = tmp_path / "flows.csv"
    r = run_greendcn(
        "workload",
        "generate",
        CLOS,
        "--set",
        'workload={kind="all_at_once", count=200, sizes="websearch", pattern="uniform", inter_rack=true}',
        "-o",
        out,
    )
    assert r.returncode == 0, r.stderr
    import pandas as pd

    flows = pd.read_csv(out)
    src, dst = (flows[c].str.removeprefix("S").astype(int) for c in ("src", "dst"))
    assert len(flows) == 200 and ((src // 9) != (dst // 9)).all()


@pytest.mark.parametrize(
    ("topology", "key", "words"),
    [
        ({"radix": 10}, "topology.tier_oversubscription", ["3:1 does not split radix 10"]),
        ({"radix": [12, 12]}, "topology.radix", ["2 radixes for 3 tiers"]),
        ({"tier_oversubscription": [3]}, "topology.tier_oversubscription", ["one ratio per tier"]),
        ({"radix": 8, "tier_oversubscription": [1.5, 1]}, "topology.tier_oversubscription", ["1.5:1"]),
        (
            {"tier_oversubscription": [3, 0]},
            "topology.tier_oversubscription",
            ["tier 2: must be a finite positive ratio"],
        ),
        ({"radix": 1, "tiers": 2, "tier_oversubscription": [1]}, "topology.radix", ["at least 2 ports"]),
        ({"tiers": 5}, "topology.tiers", []),
        ({"tier_oversubscription": None, "oversubscription": 1.5}, "topology.oversubscription", ["1.5:1"]),
    ],
)
def test_bad_clos_keys_are_named(topology, key, words):
    raw = {"topology": {"kind": "clos", "radix": 12, "tier_oversubscription": [3, 1], **topology}}
    raw["topology"] = {k: v for k, v in raw["topology"].items() if v is not None}
    with pytest.raises(InputError) as e:
        scenario_from_dict(raw)
    assert str(e.value).startswith(key), str(e.value)
    assert all(w in str(e.value) for w in words), str(e.value)
    assert e.value.hint


def test_a_bad_radix_on_the_command_line_is_one_error_line():
    out = run_greendcn("simulate", CLOS, "--set", "topology.radix=10")
    assert_clean_error(out, "topology.tier_oversubscription", "radix 10")
