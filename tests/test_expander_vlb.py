"""Valiant load balancing on the static expander (routing.vlb): data goes through an intermediate rack, per flow
or per packet, only for flows above the size threshold, the same way for the same seed, and settings that
make no sense are one error naming the key."""

import pytest

from greendcn.sim import simulate
from greendcn.sim.scenario import scenario_from_dict
from greendcn.sim.topology import build_topology, shortest_hops
from conftest import assert_clean_error, run_greendcn

# 16 racks of one host each (radix 4 - 3 uplinks), our seeded graph.
TOPO = {"kind": "expander", "racks": 16, "uplinks": 3, "radix": 4, "graph_seed": 2}


def _net():
    return build_topology(scenario_from_dict({"topology": TOPO}).topology)


def _hops(net):
    """Rack links between every two racks (by rack number)."""
    return {a: shortest_hops(net, net.index[f"R{a}"]) for a in range(16)}


def _udp(dst, size="300KB", routing=None, seed=1):
    """One UDP flow from S0 (rack 0) to S{dst}: data only, no packets back, so every packet on a rack link is data."""
    return {
        "topology": TOPO,
        "routing": {"scheme": "ecmp", "vlb": True, **(routing or {})},
        "workload": {
            "kind": "flows",
            "flows": [{"src": 0, "dst": dst, "size": size, "transport": "udp", "rate": "1Gbps"}],
        },
        "run": {"seed": seed},
    }


def _rack_packets(res):
    """Packets sent over links between two racks."""
    li = res.links
    return sum(
        int(p)
        for f, t, p in zip(li["from"], li["to"], li["packets_sent"], strict=True)
        if f.startswith("R") and t.startswith("R")
    )


def _neighbour_of_r0(net):
    hops = _hops(net)
    return next(r for r in range(1, 16) if hops[0][net.index[f"R{r}"]] == 1), hops


def test_a_flow_goes_through_its_intermediate_rack_and_back():
    net = _net()
    dst, hops = _neighbour_of_r0(net)
    # Shortest: one rack link per packet. With VLB per flow (ecmp: the flow's hash picks one of its 20 draws)
    # the packets go to a third rack and on, d(R0, im) + d(im, dst) >= 2 rack links each, and that rack's ToR
    # forwards every one of them.
    plain = simulate({**_udp(dst), "routing": {"scheme": "ecmp"}}, progress=False)
    n = int(plain.flows["data_packets_sent"].iloc[0])
    assert _rack_packets(plain) == n
    res = simulate(_udp(dst, routing={"vlb_min_size": 0}), progress=False)
    assert int(res.flows["data_packets_sent"].iloc[0]) == n and res.flows["fct_s"].notna().all()
    per_packet, rest = divmod(_rack_packets(res), n)
    assert rest == 0 and per_packet >= 2  # one fixed path per flow (ecmp): the same length for every packet
    fwd = dict(zip(res.nodes["name"], res.nodes["packets_forwarded"], strict=True))
    d = {r: hops[r][net.index[f"R{dst}"]] + hops[0][net.index[f"R{r}"]] for r in range(1, 16) if r != dst}
    via = [r for r in d if fwd[f"R{r}"] >= n and d[r] == per_packet]
    assert via, (per_packet, fwd)


def test_per_packet_intermediates_spread_a_flow_over_many_racks():
    # rps: each data packet draws one of the flow's (up to 20) intermediates, so many racks forward some of the
    # flow and every packet still crosses at least two rack links.
    net = _net()
    dst, _ = _neighbour_of_r0(net)
    res = simulate(_udp(dst, size="1MB", routing={"scheme": "rps", "vlb_min_size": 0}), progress=False)
    n = int(res.flows["data_packets_sent"].iloc[0])
    assert _rack_packets(res) >= 2 * n
    fwd = dict(zip(res.nodes["name"], res.nodes["packets_forwarded"], strict=True))
    transit = [r for r in range(1, 16) if r != dst and fwd[f"R{r}"] > 0]
    assert len(transit) >= 6, fwd


def test_flows_at_or_below_the_threshold_take_shortest_paths():
    # The simulator's threshold: VLB for flows above 100,000 bytes. A 100 KB flow (100,000 bytes) stays on the
    # shortest path; a far rack shows it: its packets cross exactly d(R0, dst) rack links.
    net = _net()
    hops = _hops(net)
    dst = max(range(1, 16), key=lambda r: hops[0][net.index[f"R{r}"]])
    res = simulate(_udp(dst, size="100KB", routing={"scheme": "rps"}), progress=False)
    n = int(res.flows["data_packets_sent"].iloc[0])
    assert _rack_packets(res) == n * hops[0][net.index[f"R{dst}"]]
    res = simulate(_udp(dst, size="101KB", routing={"scheme": "rps"}), progress=False)
    n = int(res.flows["data_packets_sent"].iloc[0])
    assert _rack_packets(res) > n * hops[0][net.index[f"R{dst}"]]


def _permutation(seed, transport="tcp"):
    return {
        "topology": TOPO,
        "routing": {"scheme": "rps", "vlb": True},
        "transport": {"default": transport},
        "workload": {"kind": "permutation", "size": "300KB"},
        "run": {"seed": seed},
    }


def test_the_same_seed_gives_the_same_run_and_another_seed_another():
    a = simulate(_permutation(1, "ndp"), progress=False)
    b = simulate(_permutation(1, "ndp"), progress=False)
    assert a.flows["fct_s"].notna().all()  # NDP over VLB paths: every flow completes
    assert a.flows["fct_s"].tolist() == b.flows["fct_s"].tolist()
    assert a.links["packets_sent"].tolist() == b.links["packets_sent"].tolist()
    c = simulate(_permutation(2, "ndp"), progress=False)
    assert c.links["packets_sent"].tolist() != a.links["packets_sent"].tolist()
    # against shortest paths alone, the same flows cross more rack links
    plain = simulate({**_permutation(1, "ndp"), "routing": {"scheme": "rps"}}, progress=False)
    assert _rack_packets(a) > _rack_packets(plain) * 1.3
    assert a.summary["vlb"] is True and "vlb" not in plain.summary


@pytest.mark.parametrize(
    ("sets", "words"),
    [
        (["topology.kind=fattree", "topology.k=4"], ["routing.vlb", "fattree"]),
        (["routing.scheme=single"], ["routing.vlb", "single"]),
        (["routing.vlb_intermediates=0"], ["routing.vlb_intermediates"]),
    ],
)
def test_vlb_where_it_cannot_run_is_one_error_naming_the_key(tmp_path, sets, words):
    scenario = tmp_path / "exp.toml"
    scenario.write_text(
        '[topology]\nkind = "expander"\nracks = 8\nuplinks = 3\nradix = 4\n'
        '[routing]\nscheme = "ecmp"\nvlb = true\n[workload]\nkind = "permutation"\nsize = "10KB"\n'
    )
    out = run_greendcn("simulate", scenario, *[x for s in sets for x in ("--set", s)])
    assert_clean_error(out, *words)


def test_the_opera_paper_reproduction_keeps_the_expander_files_vlb(tmp_path):
    # `reproduce opera-paper` sprays NDP (rps) on the expander; a scenario file with routing.vlb keeps it, so
    # the simulator's -VLB 1 runs from a folder passed as --scenarios-dir.
    from greendcn.sim.reproduce.opera_paper import network_scenario

    (tmp_path / "expander-u7-650.toml").write_text(
        '[topology]\nkind = "expander"\nracks = 8\nuplinks = 3\nradix = 4\n'
        '[routing]\nscheme = "ecmp"\nvlb = true\nvlb_intermediates = 5\n'
    )
    ndp = network_scenario("expander", "ndp", tmp_path)["routing"]
    assert ndp == {"scheme": "rps", "vlb": True, "vlb_intermediates": 5}
    assert network_scenario("expander", "tcp", tmp_path)["routing"]["vlb"] is True
    sc = scenario_from_dict(
        {k: v for k, v in network_scenario("expander", "ndp", tmp_path).items() if k[0] != "_"}
    )
    assert sc.routing.vlb and sc.routing.scheme == "rps"
