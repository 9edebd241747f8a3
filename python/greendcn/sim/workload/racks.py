"""What a workload generator needs to know of a topology: each endpoint's rack, an endpoint's link rate and the
network's bisection bandwidth, from the scenario's [topology] alone (nothing is built).

Endpoints are numbered rack by rack on every fabric (fat-tree: k/2 x oversubscription hosts per edge switch;
leaf-spine: hosts_per_leaf per leaf; Clos: the ToRs' down ports; expander: hosts_per_rack). On circuit fabrics with `topology.hosts_per_rack` the endpoints are hosts
S0.. under the racks' ToRs, grouped like a leaf-spine; without it the racks themselves (R0..), so every endpoint
is its own rack. Extend `_hosts_per_rack` (and `endpoint_rate_bps`) when a fabric changes its endpoints."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["bisection_bps", "endpoint_rate_bps", "host_racks"]

CIRCUIT_KINDS = ("rotornet", "selectornet", "opera")


def _hosts_per_rack(topo: Any) -> int:
    if topo.kind == "fattree":
        return round(topo.k // 2 * topo.oversubscription)
    if topo.kind == "leafspine":
        return topo.hosts_per_leaf
    if topo.kind == "clos":  # hosts under each ToR, numbered ToR by ToR (topology/clos.py)
        from ..topology.clos import shape_of

        return shape_of(topo).down[0]
    if topo.kind == "expander":
        from ..topology.expander import hosts_per_rack

        return hosts_per_rack(topo)
    return int(getattr(topo, "hosts_per_rack", None) or 1)  # circuit fabrics: racks are the endpoints


def host_racks(topo: Any, n_hosts: int) -> np.ndarray:
    """The rack (attachment switch) of each endpoint, as int32, non-decreasing."""
    return (np.arange(n_hosts, dtype=np.int64) // max(1, _hosts_per_rack(topo))).astype(np.int32)


def endpoint_rate_bps(topo: Any) -> int:
    """The link rate of one endpoint: a host's NIC; a rack-as-endpoint (a circuit fabric without
    topology.hosts_per_rack) sends over all its circuit uplinks, one per circuit switch (our choice)."""
    if topo.kind in CIRCUIT_KINDS and not getattr(topo, "hosts_per_rack", None):
        return topo.link_rate * topo.circuit_switches
    return topo.link_rate


def bisection_bps(topo: Any, n_hosts: int) -> int:
    """The capacity of the narrowest cut that splits the endpoints in two halves, one direction (our reading,
    docs/workloads.md): fat-tree: half the pods' core links, k^3/8 x rate (at most half the hosts' links);
    leaf-spine: floor(leaves/2) leaves' uplinks (at most their hosts' links); circuit fabrics: half the racks'
    uplinks, floor(racks/2) x circuit_switches x rate (with hosts_per_rack, at most those racks' host links)."""
    rate = topo.link_rate
    if topo.kind == "fattree":
        return min(topo.k**3 // 8, n_hosts // 2) * rate
    if topo.kind == "leafspine":
        half = topo.leaves // 2 or 1
        return min(half * topo.spines, half * topo.hosts_per_leaf) * rate
    if topo.kind == "clos":  # half the top-level pods' narrowest tier of uplinks (ClosShape.bisection_links)
        from ..topology.clos import shape_of

        return shape_of(topo).bisection_links() * rate
    if topo.kind == "expander":  # as leaf-spine: floor(racks/2) racks' uplinks, at most their hosts' links
        return (topo.racks // 2) * min(topo.uplinks, _hosts_per_rack(topo)) * rate
    half = topo.racks // 2
    per_rack = getattr(topo, "hosts_per_rack", None)
    return (min(topo.circuit_switches, per_rack) if per_rack else topo.circuit_switches) * half * rate
