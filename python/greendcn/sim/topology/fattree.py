"""The k-ary fat-tree, named as seed 003's Fig. 1 for k=4 and generalised to any even k.

Seed 003 (lines 48 and 58) names servers S, edge E, aggregation A and core C switches, numbered from 0, and
lists the four paths S0 -> S15 through E0, A0/A1, C0..C3, A6/A7, E7: so aggregation switch j of every pod
reaches cores j*(k/2) .. j*(k/2)+k/2-1 (A0 -> C0, C1; A1 -> C2, C3), as in the standard fat-tree. The
oversubscription ratio at the edge (our generalisation) puts k/2 x ratio hosts under each edge switch."""

from __future__ import annotations

from .graph import Link, Network, Node

__all__ = ["fattree"]


def fattree(
    k: int = 4,
    *,
    oversubscription: float = 1.0,
    rate_bps: int = 10**9,
    delay_ps: int = 25_000_000,
    switch_queue: dict[str, int] | None = None,
    host_queue: dict[str, int] | None = None,
    host_delay_ps: int | None = None,
) -> Network:
    """Hosts S*, then edge E*, aggregation A*, core C* switches; every link has the same rate and delay.

    `switch_queue` limits switch output ports, `host_queue` host NICs (each None = unlimited); host links have
    `host_delay_ps` (None: `delay_ps`)."""
    if k < 2 or k % 2:
        raise ValueError(f"k must be even and >= 2, got {k}")
    half = k // 2
    per_edge = round(half * oversubscription)
    n_edge = k * half
    n_hosts = n_edge * per_edge
    nodes = [Node(f"S{i}", "host", "host") for i in range(n_hosts)]
    edge0 = len(nodes)
    nodes += [Node(f"E{i}", "switch", "edge") for i in range(n_edge)]
    agg0 = len(nodes)
    nodes += [Node(f"A{i}", "switch", "agg") for i in range(n_edge)]
    core0 = len(nodes)
    nodes += [Node(f"C{i}", "switch", "core") for i in range(half * half)]

    def link(a: int, b: int, qa: dict[str, int] | None, qb: dict[str, int] | None) -> Link:
        return Link(a, b, rate_bps, delay_ps, qa, qb)

    hd = delay_ps if host_delay_ps is None else host_delay_ps
    links = [Link(h, edge0 + h // per_edge, rate_bps, hd, host_queue, switch_queue) for h in range(n_hosts)]
    for pod in range(k):
        for e in range(half):
            for a in range(half):
                links.append(link(edge0 + pod * half + e, agg0 + pod * half + a, switch_queue, switch_queue))
    for pod in range(k):
        for a in range(half):
            for c in range(half):
                links.append(link(agg0 + pod * half + a, core0 + a * half + c, switch_queue, switch_queue))
    return Network(nodes, links)
