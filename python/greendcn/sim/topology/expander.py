"""A static expander: racks whose ToRs link directly to `uplinks` other ToRs (a u-regular graph), hosts under them.

The graph comes from a topology file in the public Opera simulator's format or from our seeded generator.

The file format (TritonNetworking/opera-sim, read by src/expander/datacenter/expander_topology.cpp lines 52-70
and written by topologies/expander_topo_gen/MAIN.m lines 117-150): a first line `hosts hosts_per_rack uplinks
racks`, then `racks` lines of the 0/1 adjacency matrix, then optionally one line per path `src dst [racks
between]` (its up to 8 equal-cost shortest paths per rack pair, MAIN.m lines 50 and 67-70). Host i hangs under
rack i // hosts_per_rack (expander_topology.cpp lines 147-149 and 236-237), as here. We read the matrix and
check the path lines (each hop a link of the matrix) but route by our own ECMP over every shortest path,
hop by hop (docs/scenario-format.md says how that differs); routing.vlb adds the simulator's Valiant load
balancing through intermediate racks (crates/engine/src/vlb.rs).

The generator (ours): the random pairing of Steger and Wormald (1999, "Generating random regular graphs quickly"):
every rack has `uplinks` free ports; shuffled ports are paired in turn, pairs that would make a loop or a
second link between two racks go back to the pool, and an attempt that can pair no more starts over, as does
one whose graph is not connected. Every draw comes from `rng_for(seed, STREAM_GRAPH)`: same racks, uplinks and
seed, same graph. Names: hosts S*, ToRs R* (as the circuit fabrics name racks)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ...core.errors import FieldError, InputError
from .graph import Link, Network, Node, bfs_hops

__all__ = [
    "STREAM_GRAPH",
    "ExpanderGraph",
    "expander",
    "expander_graph",
    "rack_diameter",
    "random_regular",
    "read_topology_file",
]

STREAM_GRAPH = 90  # the generator's stream of rng_for (the workload's streams are 1, 2 and 100 up)
MAX_ATTEMPTS = 1000  # our bound: for u << racks most attempts succeed (Steger and Wormald, section 1)
MAX_FILE_BYTES = 64 * 2**20  # our bound: the 130-rack file with its paths is 0.5 MB


@dataclass(frozen=True)
class ExpanderGraph:
    racks: int
    uplinks: int
    hosts_per_rack: int
    edges: tuple[tuple[int, int], ...]  # (a, b) with a < b, sorted


def _connected(n: int, adj: list[set[int]]) -> bool:
    return min(bfs_hops(adj, 0)) >= 0


def _attempt(n: int, u: int, rng: np.random.Generator) -> list[set[int]] | None:
    adj: list[set[int]] = [set() for _ in range(n)]
    ports = np.repeat(np.arange(n), u)
    stuck = 0
    while len(ports):
        ports = rng.permutation(ports)
        left: list[int] = []
        for a, b in ports.reshape(-1, 2).tolist():
            if a != b and b not in adj[a]:
                adj[a].add(b)
                adj[b].add(a)
            else:
                left += (a, b)
        stuck = stuck + 1 if len(left) == len(ports) else 0
        if stuck:
            racks = sorted(set(left))
            if not any(b not in adj[a] for i, a in enumerate(racks) for b in racks[i + 1 :]) or stuck > 50:
                return None  # no valid pair remains (or none found in 50 shuffles): start over
        ports = np.array(left, dtype=np.int64)
    return adj


@lru_cache(maxsize=8)
def random_regular(racks: int, uplinks: int, seed: int = 0) -> ExpanderGraph:
    """A connected simple `uplinks`-regular graph on `racks` racks, drawn from the seeded generator."""
    from ..workload.flow import rng_for

    if racks * uplinks % 2 or not 1 <= uplinks < racks:
        raise ValueError(f"no {uplinks}-regular graph on {racks} racks")
    rng = rng_for(seed, STREAM_GRAPH)
    for _ in range(MAX_ATTEMPTS):
        adj = _attempt(racks, uplinks, rng)
        if adj is not None and _connected(racks, adj):
            edges = tuple(sorted((a, b) for a in range(racks) for b in adj[a] if a < b))
            return ExpanderGraph(racks, uplinks, 0, edges)
    raise InputError(
        f"topology.graph_seed: no connected {uplinks}-regular graph on {racks} racks in {MAX_ATTEMPTS} attempts",
        hint="try another topology.graph_seed or more uplinks",
        loc=("topology", "graph_seed"),
    )


def _ints(line: str, where: str) -> list[int]:
    try:
        return [int(x) for x in line.split()]
    except ValueError:
        bad = next(x for x in line.split() if not x.lstrip("-").isdigit())
        raise InputError(
            f"{where}: {bad!r} is not a whole number", hint="the file holds whole numbers separated by spaces"
        ) from None


def read_topology_file(path: str | Path) -> ExpanderGraph:
    """The graph of a topology file in the public Opera simulator's format; anything wrong is an InputError
    naming the file and line."""
    p = Path(path)
    st = p.stat() if p.exists() else None
    return _read_cached(str(p.resolve()), st.st_mtime_ns if st else 0, st.st_size if st else 0)


@lru_cache(maxsize=8)
def _read_cached(path: str, _mtime: int, _size: int) -> ExpanderGraph:
    from ...core.userfile import read_text

    text = read_text(path, "topology file", max_bytes=MAX_FILE_BYTES, kind="an expander topology file")
    lines = text.rstrip().split("\n")
    name = Path(path).name
    head = _ints(lines[0], f"{name} line 1")
    if len(head) != 4 or min(head) < 1:
        raise InputError(
            f"{name} line 1: expected 'hosts hosts_per_rack uplinks racks' (four positive numbers), got {lines[0]!r}",
            hint="the first line of the public Opera simulator's expander file, e.g. '650 5 7 130'",
        )
    hosts, per_rack, u, n = head
    if hosts != n * per_rack:
        raise InputError(
            f"{name} line 1: {hosts} hosts is not {n} racks x {per_rack} hosts per rack",
            hint="fix the header's first number",
        )
    if len(lines) < n + 1:
        raise InputError(
            f"{name} line {len(lines) + 1}: the adjacency matrix has {len(lines) - 1} of its {n} rows",
            hint="the header's last number is the number of racks, and rows of the matrix follow it",
        )
    rows = []
    for r in range(n):
        where = f"{name} line {r + 2}"
        row = _ints(lines[r + 1], where)
        if len(row) != n or any(x not in (0, 1) for x in row):
            raise InputError(
                f"{where}: rack {r}'s row must be {n} zeros and ones, got {len(row)} numbers",
                hint="one row of the 0/1 adjacency matrix per rack",
            )
        if row[r]:
            raise InputError(f"{where}: rack {r} links to itself", hint="the matrix's diagonal must be 0")
        if sum(row) != u:
            raise InputError(
                f"{where}: rack {r} has {sum(row)} links, the header says every rack has {u} (uplinks)",
                hint="an expander's racks all have the same number of uplinks",
            )
        rows.append(row)
    m = np.array(rows, dtype=np.int8)
    asym = np.argwhere(m != m.T)
    if len(asym):
        a, b = (int(x) for x in asym[0])
        raise InputError(
            f"{name} line {a + 2}: rack {a} links to rack {b} but line {b + 2} has no link back",
            hint="links are two-way: the matrix must be symmetric",
        )
    for i, line in enumerate(lines[n + 1 :], start=n + 2):
        if not line.strip():
            continue
        hops = _ints(line, f"{name} line {i}")
        path_ = [hops[0], *hops[2:], hops[1]] if len(hops) >= 2 else []
        if len(hops) < 2 or any(not 0 <= h < n for h in hops) or hops[0] == hops[1]:
            raise InputError(
                f"{name} line {i}: a path line is 'src dst [racks between]' of two or more racks 0..{n - 1}",
                hint="the lines after the matrix list paths between two different racks",
            )
        for a, b in zip(path_, path_[1:]):
            if not m[a, b]:
                raise InputError(
                    f"{name} line {i}: the path steps from rack {a} to rack {b}, which the matrix does not link",
                    hint="every step of a path must be a link of the matrix",
                )
    edges = tuple((int(a), int(b)) for a, b in np.argwhere(np.triu(m)))
    adj: list[set[int]] = [set() for _ in range(n)]
    for a, b in edges:
        adj[a].add(b)
        adj[b].add(a)
    if not _connected(n, adj):
        raise InputError(
            f"{name} lines 2-{n + 1}: the racks do not form one connected network",
            hint="some racks cannot reach others; give a connected graph",
        )
    return ExpanderGraph(n, u, per_rack, edges)


def expander_graph(topo, base_dir: str | None = None) -> ExpanderGraph:  # type: ignore[no-untyped-def]
    """The rack graph a `Topology` of kind "expander" names: its file (relative to `base_dir`) or our generator."""
    if topo.graph_file:
        p = Path(topo.graph_file)
        if not p.is_absolute() and base_dir:
            p = Path(base_dir) / p
        return read_topology_file(p)
    return random_regular(topo.racks, topo.uplinks, topo.graph_seed)


def rack_diameter(topo) -> int:  # type: ignore[no-untyped-def]
    """The most rack links between two racks of the expander a `Topology` names (by breadth-first search)."""
    g = expander_graph(topo, getattr(topo, "_base_dir", None))
    adj: list[list[int]] = [[] for _ in range(g.racks)]
    for a, b in g.edges:
        adj[a].append(b)
        adj[b].append(a)
    worst = 0
    for s in range(g.racks):
        worst = max(worst, max(bfs_hops(adj, s)))
    return worst


def hosts_per_rack(topo) -> int:  # type: ignore[no-untyped-def]
    """Hosts under each ToR: `hosts_per_rack`, else the ports the radix leaves, else 1 (our default)."""
    if topo.hosts_per_rack:
        return int(topo.hosts_per_rack)
    radix = topo.radix[0] if isinstance(topo.radix, list) else topo.radix
    return radix - topo.uplinks if radix else 1


def check_keys(topo) -> None:  # type: ignore[no-untyped-def]
    """Refuse [topology] keys that make no expander; each FieldError names its key."""
    n, u = topo.racks, topo.uplinks
    radix = topo.radix
    if isinstance(radix, list):
        if len(radix) != 1:
            raise FieldError(
                "radix", "an expander's ToRs have one radix; give one number", hint="e.g. radix = 12"
            )
        radix = radix[0]
    if radix is not None and u >= radix:
        raise FieldError(
            "uplinks",
            f"{u} uplinks leave no port for hosts on a radix-{radix} ToR",
            hint=f"at most {radix - 1} uplinks, or raise topology.radix",
        )
    h = hosts_per_rack(topo)
    if radix is not None and u + h > radix:
        raise FieldError(
            "hosts_per_rack",
            f"{h} hosts and {u} uplinks need {h + u} ports; the ToR's radix is {radix}",
            hint=f"at most {radix - u} hosts per rack, or raise topology.radix",
        )
    if topo.graph_file:
        return  # the file's header is compared with racks and uplinks once the file is read
    if u >= n:
        raise FieldError(
            "uplinks",
            f"{u} uplinks per rack need more than {n} racks (no two links to one rack)",
            hint="fewer uplinks",
        )
    if n * u % 2:
        raise FieldError(
            "uplinks",
            f"{n} racks with {u} uplinks each leave one port unpaired (racks x uplinks must be even)",
            hint="make topology.racks or topology.uplinks even",
        )
    if u == 1 and n > 2:
        raise FieldError("uplinks", f"1 uplink per rack cannot connect {n} racks", hint="at least 2 uplinks")


def check_file(topo, base_dir: str | None) -> ExpanderGraph:  # type: ignore[no-untyped-def]
    """Read the topology's graph file and hold it against racks, uplinks and hosts_per_rack; a problem is a
    FieldError naming topology.graph_file (the file's own errors name its line) or the key that differs."""
    try:
        g = expander_graph(topo, base_dir)
    except InputError as e:
        raise FieldError("topology.graph_file", str(e), hint=e.hint) from None
    name = Path(topo.graph_file).name
    for key, ours, theirs in (
        ("racks", topo.racks, g.racks),
        ("uplinks", topo.uplinks, g.uplinks),
        ("hosts_per_rack", hosts_per_rack(topo), g.hosts_per_rack),
    ):
        if ours != theirs:
            raise FieldError(
                f"topology.{key}",
                f"{ours}, but {name} line 1 gives {theirs}",
                hint=f"set topology.{key} = {theirs} to match the file",
            )
    return g


def expander(
    graph: ExpanderGraph,
    hosts_per_rack: int,
    *,
    rate_bps: int = 10**9,
    delay_ps: int = 25_000_000,
    switch_queue: dict[str, int] | None = None,
    host_queue: dict[str, int] | None = None,
    host_delay_ps: int | None = None,
) -> Network:
    """Hosts S* (host i under ToR i // hosts_per_rack), then ToRs R*; links: hosts' first, then the graph's."""
    n_hosts = graph.racks * hosts_per_rack
    nodes = [Node(f"S{i}", "host", "host") for i in range(n_hosts)]
    nodes += [Node(f"R{r}", "switch", "tor") for r in range(graph.racks)]
    hd = delay_ps if host_delay_ps is None else host_delay_ps  # host links (None: as the others)
    links = [
        Link(h, n_hosts + h // hosts_per_rack, rate_bps, hd, host_queue, switch_queue) for h in range(n_hosts)
    ]
    links += [
        Link(n_hosts + a, n_hosts + b, rate_bps, delay_ps, switch_queue, switch_queue) for a, b in graph.edges
    ]
    return Network(nodes, links)
