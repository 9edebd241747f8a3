"""Topologies as flat node and link lists, the form the engine takes (docs/engine-spec.md)."""

from __future__ import annotations

from ...core.lazy import lazy_dir, lazy_getattr
from .fattree import fattree
from .graph import Link, Network, Node, equal_cost_paths, shortest_hops
from .leafspine import leafspine

# The Clos and expander builders load on first use: a fat-tree or leaf-spine run does not import them.
_LAZY = {"clos": ".clos", "expander": ".expander"}
__getattr__ = lazy_getattr(__name__, _LAZY, globals())
__dir__ = lazy_dir(_LAZY, globals())

__all__ = [
    "Link",
    "Network",
    "Node",
    "build_topology",
    "clos",
    "equal_cost_paths",
    "expander",
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
        "host_delay_ps": topo.host_link_delay,
    }
    if topo.kind == "fattree":
        return fattree(topo.k, oversubscription=topo.oversubscription, **common)
    if topo.kind == "clos":
        from .clos import clos, shape_of

        return clos(shape_of(topo), **common)
    if topo.kind == "expander":
        from .expander import expander, expander_graph, hosts_per_rack

        graph = expander_graph(topo, getattr(topo, "_base_dir", None))
        return expander(graph, hosts_per_rack(topo), **common)
    return leafspine(topo.leaves, topo.spines, topo.hosts_per_leaf, **common)
