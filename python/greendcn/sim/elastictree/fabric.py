"""A fat-tree as the power manager sees it: pods, edge, aggregation and core switches by index, and the links
between them (sim/topology/fattree.py's layout)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...core.errors import InputError
from ..topology.graph import Network

__all__ = ["FatTreeView"]


@dataclass(frozen=True)
class FatTreeView:
    k: int
    rate_bps: int
    # node ids: hosts, edges (pod-major), aggs (pod-major), cores (group-major: core c hangs off agg c // (k/2))
    hosts: np.ndarray
    edges: np.ndarray
    aggs: np.ndarray
    cores: np.ndarray
    # edge index (0 .. k^2/2) of every host, in host order
    host_edge: np.ndarray
    # link ids: edge_agg[e, j] joins edge e to agg j of its pod; agg_core[a, c] joins agg a to core
    # (a % (k/2)) * (k/2) + c
    edge_agg: np.ndarray
    agg_core: np.ndarray

    @property
    def half(self) -> int:
        return self.k // 2

    @classmethod
    def of(cls, net: Network) -> FatTreeView:
        layers: dict[str, list[int]] = {"host": [], "edge": [], "agg": [], "core": []}
        for i, n in enumerate(net.nodes):
            if n.layer in layers:
                layers[n.layer].append(i)
        half = math.isqrt(len(layers["core"]))
        k = 2 * half
        if half < 1 or half * half != len(layers["core"]) or len(layers["edge"]) != k * half:
            raise InputError(
                "elastictree: the topology is not a fat-tree",
                hint='ElasticTree runs on topology.kind = "fattree"',
            )
        edges, aggs, cores = (np.array(layers[x]) for x in ("edge", "agg", "core"))
        e_pos = {int(n): i for i, n in enumerate(edges)}
        a_pos = {int(n): i for i, n in enumerate(aggs)}
        c_pos = {int(n): i for i, n in enumerate(cores)}
        hosts = np.array(layers["host"])
        h_pos = {int(n): i for i, n in enumerate(hosts)}
        host_edge = np.zeros(len(hosts), dtype=np.int64)
        edge_agg = np.full((len(edges), half), -1, dtype=np.int64)
        agg_core = np.full((len(aggs), half), -1, dtype=np.int64)
        for li, link in enumerate(net.links):
            a, b = link.a, link.b
            if a in h_pos and b in e_pos:
                host_edge[h_pos[a]] = e_pos[b]
            elif a in e_pos and b in a_pos:
                edge_agg[e_pos[a], a_pos[b] % half] = li
            elif a in a_pos and b in c_pos:
                agg_core[a_pos[a], c_pos[b] % half] = li
        if (edge_agg < 0).any() or (agg_core < 0).any():
            raise InputError(
                "elastictree: the topology is not a full fat-tree", hint='use topology.kind = "fattree"'
            )
        return cls(k, net.links[0].rate_bps, hosts, edges, aggs, cores, host_edge, edge_agg, agg_core)

    def pod_of_edge(self, e: np.ndarray | int) -> np.ndarray | int:
        return e // self.half

    def off_links(self, aggs_on: np.ndarray, cores_on: np.ndarray) -> list[int]:
        """Links that are off when only `aggs_on` (bool per agg) and `cores_on` (bool per core) are on: every
        link touching an off switch (edge switches and host links stay on)."""
        half = self.half
        off = self.edge_agg[~np.repeat(aggs_on.reshape(-1, half), half, axis=0)]
        ac_on = (
            aggs_on[:, None] & cores_on[(np.arange(len(aggs_on)) % half)[:, None] * half + np.arange(half)]
        )
        return np.sort(np.concatenate([off.ravel(), self.agg_core[~ac_on].ravel()])).tolist()
