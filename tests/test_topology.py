"""Topologies: seed 003's k=4 fat-tree names and paths, general k, oversubscription, leaf-spine (pure Python)."""

import pytest

from greendcn.sim.scenario import scenario_from_dict
from greendcn.sim.topology import build_topology, equal_cost_paths, fattree, leafspine, shortest_hops


def test_k4_counts_and_names_follow_seed003():
    net = fattree(4)
    names = [n.name for n in net.nodes]
    assert names[:16] == [f"S{i}" for i in range(16)]
    assert {f"E{i}" for i in range(8)} | {f"A{i}" for i in range(8)} | {f"C{i}" for i in range(4)} == set(
        names[16:]
    )
    assert len(net.links) == 16 + 16 + 16  # host-edge, edge-agg, agg-core


def test_k4_has_exactly_the_four_paths_seed003_lists():
    # seed 003 line 58 lists these four S0 -> S15 paths; the order here is lexical (our choice of listing).
    paths = equal_cost_paths(fattree(4), "S0", "S15")
    assert paths == [
        ["S0", "E0", "A0", "C0", "A6", "E7", "S15"],
        ["S0", "E0", "A0", "C1", "A6", "E7", "S15"],
        ["S0", "E0", "A1", "C2", "A7", "E7", "S15"],
        ["S0", "E0", "A1", "C3", "A7", "E7", "S15"],
    ]


def test_one_way_propagation_across_the_core_is_150us():
    # seed 003 line 58: 25 us per link, 150 us one way on the longest path; 6 links x 25 us, exactly.
    net = fattree(4, delay_ps=25_000_000)
    hops = shortest_hops(net, net.index["S0"])[net.index["S15"]]
    assert hops == 6
    assert hops * net.links[0].delay_ps == 150_000_000


@pytest.mark.parametrize("k", [4, 6, 8])
def test_general_k_has_k_cubed_over_4_hosts_and_k_squared_over_4_paths_between_pods(k):
    net = fattree(k)
    assert len(net.hosts) == k**3 // 4
    assert len(equal_cost_paths(net, "S0", net.hosts[-1])) == (k // 2) ** 2


def test_oversubscription_puts_more_hosts_under_each_edge_switch():
    net = fattree(4, oversubscription=3)
    assert len(net.hosts) == 8 * 6
    edge_of_first = {net.nodes[l.b].name for l in net.links if l.a < 6}
    assert edge_of_first == {"E0"}


def test_switch_and_host_queues_are_set_apart():
    net = build_topology(scenario_from_dict({"topology": {"queue": "100pkt", "host_queue": "64KB"}}).topology)
    host_link = net.links[0]
    assert host_link.queue_a == {"bytes": 64_000} and host_link.queue_b == {"packets": 100}
    core_link = net.links[-1]
    assert core_link.queue_a == core_link.queue_b == {"packets": 100}


def test_leafspine_has_one_path_per_spine():
    net = leafspine(leaves=4, spines=3, hosts_per_leaf=2)
    assert len(net.hosts) == 8
    assert len(equal_cost_paths(net, "S0", "S7")) == 3
    assert len(equal_cost_paths(net, "S0", "S1")) == 1
