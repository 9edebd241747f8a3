"""The flat network a topology builder returns, and hop-count path search over it (pure Python, for checks)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from collections.abc import Iterable, Sequence
from typing import Any

from ...core.errors import InputError

__all__ = ["Link", "Network", "Node", "bfs_hops", "equal_cost_paths", "shortest_hops"]


@dataclass(frozen=True)
class Node:
    name: str
    kind: str  # "host" or "switch"
    layer: str = ""  # "host", "edge", "agg", "core", "leaf", "spine": for reports only


@dataclass(frozen=True)
class Link:
    """A full-duplex link; `queue_a` limits a's output queue onto it, `queue_b` b's (None = unlimited)."""

    a: int
    b: int
    rate_bps: int
    delay_ps: int
    queue_a: dict[str, int] | None
    queue_b: dict[str, int] | None


@dataclass
class Network:
    nodes: list[Node]
    links: list[Link]
    index: dict[str, int] = field(default_factory=dict)
    # Host names in host order, built once: every flow's host reference is looked up against them.
    _hosts: list[str] = field(default_factory=list, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.index = {n.name: i for i, n in enumerate(self.nodes)}
        # Hosts come first, so host number i is node i: flows may name hosts by index (our convention).
        kinds = [n.kind for n in self.nodes]
        n_hosts = kinds.count("host")
        assert kinds[:n_hosts] == ["host"] * n_hosts, "hosts must come first"
        self._hosts = [n.name for n in self.nodes[:n_hosts]]

    @property
    def hosts(self) -> list[str]:
        return list(self._hosts)

    def host_lookup(self) -> dict[str, int]:
        """Every way a flow may name a host, to its node index: the name ('S15') and the index as digits
        ('15'; digits mean an index, as in `host_index`). One dictionary for a whole flow list; a reference it
        lacks is resolved, or refused, by `host_index`."""
        lookup = {name: i for i, name in enumerate(self._hosts)}
        lookup.update((str(i), i) for i in range(len(self._hosts)))
        return lookup

    def host_index(self, ref: str | int, what: str = "host") -> int:
        """Node index of a host named 'S15' or numbered 15 (its position among hosts)."""
        hosts = self._hosts
        if isinstance(ref, bool):
            ref = str(ref)
        if isinstance(ref, int) or (isinstance(ref, str) and ref.strip().isdigit()):
            i = int(ref)
            if 0 <= i < len(hosts):
                return i
            raise InputError(
                f"{what}: host index {i} does not exist (hosts are 0..{len(hosts) - 1})",
                hint=f"use an index below {len(hosts)} or a name like {hosts[-1]!r}",
            )
        name = str(ref).strip()
        i = self.index.get(name)
        if i is None or self.nodes[i].kind != "host":
            raise InputError(
                f"{what}: no host named {name!r} in this topology",
                hint=f"hosts are {hosts[0]}..{hosts[-1]} (or their index 0..{len(hosts) - 1})",
            )
        return i

    def adjacency(self) -> list[list[int]]:
        adj: list[list[int]] = [[] for _ in self.nodes]
        for link in self.links:
            adj[link.a].append(link.b)
            adj[link.b].append(link.a)
        return adj

    def to_spec(self) -> dict[str, Any]:
        """The `nodes` and `links` of an engine spec."""
        return {
            "nodes": [{"name": n.name, "kind": n.kind} for n in self.nodes],
            "links": [
                {
                    "a": l.a,
                    "b": l.b,
                    "rate_bps": l.rate_bps,
                    "delay_ps": l.delay_ps,
                    "queue_a": l.queue_a,
                    "queue_b": l.queue_b,
                }
                for l in self.links
            ],
        }


def shortest_hops(net: Network, src: int) -> list[int]:
    """Hop count from `src` to every node (-1 if unreachable), by breadth-first search."""
    return bfs_hops(net.adjacency(), src)


def bfs_hops(adj: Sequence[Iterable[int]], src: int) -> list[int]:
    """Hop count from `src` to every vertex of an adjacency list (-1 if unreachable), by breadth-first search."""
    dist = [-1] * len(adj)
    dist[src] = 0
    todo = deque([src])
    while todo:
        u = todo.popleft()
        for v in adj[u]:
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                todo.append(v)
    return dist


def equal_cost_paths(net: Network, src: str, dst: str) -> list[list[str]]:
    """Every hop-count shortest path from src to dst that never transits a host, in lexical node order."""
    s, d = net.index[src], net.index[dst]
    to_dst = shortest_hops(net, d)
    adj = net.adjacency()
    paths: list[list[str]] = []

    def walk(u: int, path: list[int]) -> None:
        if u == d:
            paths.append([net.nodes[i].name for i in path])
            return
        for v in sorted(adj[u]):
            if to_dst[v] == to_dst[u] - 1 and (v == d or net.nodes[v].kind == "switch"):
                walk(v, path + [v])

    walk(s, [s])
    return paths
