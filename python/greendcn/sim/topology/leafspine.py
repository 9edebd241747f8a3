"""A two-tier leaf-spine network: every leaf switch links to every spine switch, hosts hang under leaves.

Names (our choice): hosts S*, leaves L*, spines P*; hosts are numbered leaf by leaf."""

from __future__ import annotations

from .graph import Link, Network, Node

__all__ = ["leafspine"]


def leafspine(
    leaves: int = 4,
    spines: int = 2,
    hosts_per_leaf: int = 4,
    *,
    rate_bps: int = 10**9,
    delay_ps: int = 25_000_000,
    switch_queue: dict[str, int] | None = None,
    host_queue: dict[str, int] | None = None,
    host_delay_ps: int | None = None,
) -> Network:
    if min(leaves, spines, hosts_per_leaf) < 1:
        raise ValueError("leaves, spines and hosts_per_leaf must be at least 1")
    n_hosts = leaves * hosts_per_leaf
    hd = delay_ps if host_delay_ps is None else host_delay_ps  # host links (None: as the others)
    nodes = [Node(f"S{i}", "host", "host") for i in range(n_hosts)]
    leaf0 = len(nodes)
    nodes += [Node(f"L{i}", "switch", "leaf") for i in range(leaves)]
    spine0 = len(nodes)
    nodes += [Node(f"P{i}", "switch", "spine") for i in range(spines)]
    links = [
        Link(h, leaf0 + h // hosts_per_leaf, rate_bps, hd, host_queue, switch_queue) for h in range(n_hosts)
    ]
    links += [
        Link(leaf0 + l, spine0 + s, rate_bps, delay_ps, switch_queue, switch_queue)
        for l in range(leaves)
        for s in range(spines)
    ]
    return Network(nodes, links)
