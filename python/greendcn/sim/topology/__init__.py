"""Topologies as flat node and link lists, the form the engine takes (docs/engine-spec.md)."""

from __future__ import annotations

from .fattree import fattree
from .graph import Link, Network, Node, equal_cost_paths, shortest_hops
from .leafspine import leafspine

__all__ = [
    "Link",
    "Network",
    "Node",
    "build_topology",
    "equal_cost_paths",
    "fattree",
    "leafspine",
    "shortest_hops",
]


def build_topology(topo) -> Network:  # type: ignore[no-untyped-def]
    """Build the network a `greendcn.sim.scenario.Topology` describes."""
    common = {
        "rate_bps": topo.link_rate,
        "delay_ps": topo.link_delay,
        "switch_queue": topo.queue,
        "host_queue": topo.host_queue,
    }
    if topo.kind == "fattree":
        return fattree(topo.k, oversubscription=topo.oversubscription, **common)
    return leafspine(topo.leaves, topo.spines, topo.hosts_per_leaf, **common)
