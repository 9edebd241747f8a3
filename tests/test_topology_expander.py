"""The static expander: the public Opera simulator's topology file read to the same graph, our seeded random
regular graphs (regular, simple, connected, reproducible), hosts numbered as its flow files number them, runs
through simulate and workload generation, and bad files and keys named in one error."""

import math
from pathlib import Path

import numpy as np
import pytest

from greendcn.core.errors import InputError
from greendcn.sim.limits import topology_size
from greendcn.sim.scenario import load_scenario, scenario_from_dict
from greendcn.sim.topology import build_topology, shortest_hops
from greendcn.sim.topology.expander import rack_diameter, random_regular, read_topology_file
from greendcn.sim.transports import ndp_initial_window
from greendcn.sim.workload.racks import host_racks
from conftest import assert_clean_error, run_greendcn

ROOT = Path(__file__).resolve().parent.parent
EXPANDER = ROOT / "scenarios" / "expander-u7-650.toml"
GRAPH = ROOT / "scenarios" / "data" / "opera-sim-expander-N130-u7.txt"


def _degrees(n, edges):
    deg = np.zeros(n, dtype=int)
    for a, b in edges:
        deg[a] += 1
        deg[b] += 1
    return deg


def _connected(n, edges):
    adj = [[] for _ in range(n)]
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    seen, todo = {0}, [0]
    while todo:
        for v in adj[todo.pop()]:
            if v not in seen:
                seen.add(v)
                todo.append(v)
    return len(seen) == n


def test_the_shipped_file_reads_to_its_matrix():
    g = read_topology_file(GRAPH)
    assert (g.racks, g.uplinks, g.hosts_per_rack) == (130, 7, 5)
    # the matrix read independently: the same 455 links
    m = np.loadtxt(GRAPH, skiprows=1, dtype=int)
    assert m.shape == (130, 130) and (m == m.T).all()
    assert set(g.edges) == {(int(a), int(b)) for a, b in np.argwhere(np.triu(m))}
    assert len(g.edges) == 130 * 7 // 2 and (_degrees(130, g.edges) == 7).all()
    assert _connected(130, g.edges)


def test_path_lines_after_the_matrix_are_checked(tmp_path):
    # The simulator's files list paths after the matrix (src dst [racks between]); a file written back with
    # paths of its own links reads to the same graph, and a path over a missing link names its line.
    g = read_topology_file(GRAPH)
    a, b = g.edges[0]
    c = next(y for x, y in g.edges if x == b and y != a) if any(x == b for x, _ in g.edges) else None
    lines = GRAPH.read_text().splitlines()
    paths = [f"{a} {b}", f"{b} {a}"] + ([f"{a} {c} {b}"] if c is not None else [])
    good = tmp_path / "good.txt"
    good.write_text("\n".join(lines + paths))
    assert read_topology_file(good).edges == g.edges
    m = np.loadtxt(GRAPH, skiprows=1, dtype=int)
    far = next(j for j in range(130) if j != a and not m[a, j])  # a rack a has no link to
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines + paths + [f"{a} {far}"]))
    with pytest.raises(
        InputError, match=f"bad.txt line {131 + len(paths) + 1}: the path steps from rack {a}"
    ):
        read_topology_file(bad)


def test_the_papers_network_from_the_scenario():
    sc = load_scenario(EXPANDER)
    net = build_topology(sc.topology)
    hosts = net.hosts
    assert len(hosts) == 650
    adj = net.adjacency()
    for h in range(650):  # host i under rack i // 5, as the simulator's expander_topology.cpp numbers them
        assert [net.nodes[v].name for v in adj[h]] == [f"R{h // 5}"]
    for r in range(130):
        assert len(adj[net.index[f"R{r}"]]) == 12  # 7 uplinks + 5 hosts: the radix
    assert topology_size(sc.topology) == (650, 130, len(net.links), 130)
    assert np.array_equal(host_racks(sc.topology, 650), np.arange(650) // 5)
    hops = np.array(shortest_hops(net, 0)[:650])
    assert (hops[1:] >= 2).all() and hops.max() <= 2 + 4  # connected; the ToRs' diameter is 4 (below)
    assert rack_diameter(sc.topology) == 4
    # NDP's initial window: 6 links of 1.2 us packets, 4 rack links of 500 ns and 2 host links of 0 ns
    assert ndp_initial_window(sc) == math.ceil(2 * (6 * 1.2 + 4 * 0.5) / 1.2)


@pytest.mark.parametrize(("racks", "u"), [(8, 3), (20, 4), (130, 7), (11, 2)])
def test_random_regular_graphs_are_regular_simple_connected_and_seeded(racks, u):
    g = random_regular(racks, u, seed=3)
    assert len(set(g.edges)) == len(g.edges) == racks * u // 2
    assert all(a < b for a, b in g.edges)  # no loops (and each pair once)
    assert (_degrees(racks, g.edges) == u).all() and _connected(racks, g.edges)
    random_regular.cache_clear()
    assert random_regular(racks, u, seed=3) == g  # the same seed draws the same graph
    if racks > 8:
        assert random_regular(racks, u, seed=4).edges != g.edges


def test_a_generated_expander_runs_through_simulate_over_shortest_paths():
    from greendcn.sim import simulate

    sc = {
        "topology": {"kind": "expander", "racks": 10, "uplinks": 3, "radix": 5, "graph_seed": 2},
        "routing": {"scheme": "ecmp"},
        "workload": {"kind": "permutation", "size": "200KB"},
    }
    s = scenario_from_dict(sc)
    assert topology_size(s.topology)[:2] == (20, 10)  # radix 5 - 3 uplinks = 2 hosts per rack
    res = simulate(sc, progress=False)
    assert len(res.flows) == 20 and res.flows["fct_s"].notna().all()


def _shortest_path_links(net, src, dst):
    """Directed rack links on some shortest path from rack src to rack dst."""
    to_dst, from_src = shortest_hops(net, net.index[dst]), shortest_hops(net, net.index[src])
    total = to_dst[net.index[src]]
    return {
        (net.nodes[a].name, net.nodes[b].name)
        for link in net.links
        for a, b in ((link.a, link.b), (link.b, link.a))
        if net.nodes[a].kind == "switch" == net.nodes[b].kind and from_src[a] + 1 + to_dst[b] == total
    }


@pytest.mark.parametrize("seed", [2, 5])
def test_a_sprayed_flow_uses_every_shortest_path_and_nothing_else(seed):
    # The engine's equal-cost groups on the expander: one flow sprayed packet by packet (rps) puts data on
    # exactly the rack links of the shortest paths to its destination rack (ecmp hashes a flow onto one).
    from greendcn.sim import simulate

    topo = {"kind": "expander", "racks": 16, "uplinks": 3, "radix": 4, "graph_seed": seed}
    net = build_topology(scenario_from_dict({"topology": topo}).topology)
    # the rack (one host each: radix 4 - 3 uplinks) with the most shortest-path links from R0
    dst = max(range(1, 16), key=lambda r: len(_shortest_path_links(net, "R0", f"R{r}")))
    dag = _shortest_path_links(net, "R0", f"R{dst}")
    sc = {
        "topology": topo,
        "routing": {"scheme": "rps"},
        "workload": {"kind": "flows", "flows": [{"src": 0, "dst": dst, "size": "2MB"}]},
    }
    res = simulate(sc, progress=False)
    assert res.flows["fct_s"].notna().all()
    links = res.links
    used = {
        (f, t)
        for f, t, b in zip(links["from"], links["to"], links["bytes_sent"], strict=True)
        if f.startswith("R") and t.startswith("R") and b > 100_000  # data, not the ACKs flowing back
    }
    hops = shortest_hops(net, net.index["R0"])[net.index[f"R{dst}"]]
    assert used == dag and len(dag) > hops  # more than one path to spread over


def test_generated_workloads_use_the_racks_of_the_file():
    # inter_rack uniform flows need each host's rack: host i is under rack i // 5 (the scenario's file)
    from greendcn.sim.workload import build_table

    sc = load_scenario(
        EXPANDER,
        {
            "workload": {
                "kind": "all_at_once",
                "count": 300,
                "sizes": "websearch",
                "pattern": "uniform",
                "inter_rack": True,
            }
        },
    )
    table = build_table(sc, build_topology(sc.topology), seed=1)
    assert len(table.src) == 300 and ((table.src // 5) != (table.dst // 5)).all()
    assert set(table.src.tolist()) | set(table.dst.tolist()) <= set(range(650))


def _file_with(tmp_path, edit):
    lines = GRAPH.read_text().splitlines()
    edit(lines)
    p = tmp_path / "topo.txt"
    p.write_text("\n".join(lines) + "\n")
    return p


def _flip(lines, i, j):
    row = lines[i + 1].split()
    row[j] = "1" if row[j] == "0" else "0"
    lines[i + 1] = " ".join(row)


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (lambda L: _flip(L, 3, 0 if L[4].split()[0] == "0" else 1), ["line 5", "rack 3 has", "uplinks"]),
        (lambda L: L.__setitem__(0, "650 5 7"), ["line 1", "four positive numbers"]),
        (lambda L: L.__setitem__(0, "651 5 7 130"), ["line 1", "651 hosts"]),
        (lambda L: L.__setitem__(10, L[10].replace("0", "x", 1)), ["line 11", "'x'"]),
        (lambda L: L.__delitem__(slice(60, None)), ["line 61", "59 of its 130 rows"]),
    ],
)
def test_a_bad_file_is_one_error_naming_its_line(tmp_path, edit, words):
    p = _file_with(tmp_path, edit)
    with pytest.raises(InputError) as e:
        read_topology_file(p)
    assert all(w in str(e.value) for w in words), str(e.value)


def test_a_file_whose_degrees_differ_fails_the_command_with_one_line(tmp_path):
    p = _file_with(tmp_path, lambda L: _flip(L, 3, 0 if L[4].split()[0] == "0" else 1))
    scenario = tmp_path / "exp.toml"
    text = EXPANDER.read_text().replace('"data/opera-sim-expander-N130-u7.txt"', f'"{p.name}"')
    scenario.write_text(text)
    out = run_greendcn("simulate", scenario)
    assert_clean_error(out, "topology.graph_file", "topo.txt line 5", "rack 3")


@pytest.mark.parametrize(
    ("topology", "key", "words"),
    [
        ({"uplinks": 12}, "topology.uplinks", ["12 uplinks leave no port"]),
        ({"hosts_per_rack": 6}, "topology.hosts_per_rack", ["6 hosts and 7 uplinks need 13 ports"]),
        ({"racks": 129}, "topology.racks", ["129, but", "line 1 gives 130"]),
        ({"graph_file": "missing.txt"}, "topology.graph_file", ["no such file"]),
        ({"graph_file": None, "racks": 7}, "topology.uplinks", ["7 uplinks per rack need more than 7 racks"]),
        ({"graph_file": None, "racks": 9, "uplinks": 3}, "topology.uplinks", ["must be even"]),
        (
            {"graph_file": None, "uplinks": 1, "radix": 4, "hosts_per_rack": 2},
            "topology.uplinks",
            ["connect"],
        ),
    ],
)
def test_bad_expander_keys_are_named(topology, key, words):
    import tomllib

    raw = tomllib.loads(EXPANDER.read_text())
    raw["topology"].update(topology)
    raw["topology"] = {k: v for k, v in raw["topology"].items() if v is not None}
    with pytest.raises(InputError) as e:
        scenario_from_dict(raw, base_dir=str(EXPANDER.parent))
    assert str(e.value).startswith(key), str(e.value)
    assert all(w in str(e.value) for w in words), str(e.value)
    assert e.value.hint
