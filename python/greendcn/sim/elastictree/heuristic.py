"""ElasticTree's topology-aware heuristic for fat-trees (Heller et al. 2010): how many aggregation switches each
pod needs and how many core switches the network needs, from the traffic up and down each layer, treating
flows as perfectly divisible over the links kept on, with a safety margin on each link's rate."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .fabric import FatTreeView

__all__ = ["Subset", "heuristic_subset"]


@dataclass(frozen=True)
class Subset:
    """Switches on: one bool per aggregation switch (pod-major) and per core switch (group-major). Edge
    switches and host links are always on (our choice: every host stays reachable)."""

    aggs_on: np.ndarray
    cores_on: np.ndarray

    @property
    def switches_on(self) -> int:
        return int(self.aggs_on.sum() + self.cores_on.sum())

    def links_on(self, view: FatTreeView) -> int:
        half = view.half
        ea = int(self.aggs_on.sum()) * half  # every edge of a pod to every aggregation switch on in it
        per_group = self.cores_on.reshape(half, half).sum(axis=1)  # cores on under agg position j
        return ea + int(sum(per_group[a % half] for a in np.flatnonzero(self.aggs_on)))


def heuristic_subset(view: FatTreeView, demand: np.ndarray, margin: float) -> Subset:
    """The subset for one interval's edge-to-edge demand (bit/s, shape (E, E)).

    Per edge switch, the traffic leaving it for other edges (up) and arriving from them (down); a pod keeps
    on as many aggregation switches as its busiest edge needs links up or down at `margin` x rate. Per pod,
    the traffic leaving the pod and entering it; the network keeps as many core switches as the busiest pod
    needs links (each core switch gives every pod one link). Cores are taken group by group (cores under
    aggregation position 0 first), and every pod keeps the aggregation switches of the groups in use, so each
    core on reaches every pod; at least one aggregation switch per pod and one core stay on, so no host pair is
    cut off."""
    half, k = view.half, view.k
    cap = margin * view.rate_bps
    d = np.array(demand, dtype=float)
    np.fill_diagonal(d, 0.0)
    up = d.sum(axis=1)
    down = d.sum(axis=0)
    per_edge = np.ceil(np.maximum(up, down) / cap - 1e-9).astype(np.int64)
    pod_need = per_edge.reshape(k, half).max(axis=1)
    pods = d.reshape(k, half, k, half).sum(axis=(1, 3))  # pod-to-pod
    np.fill_diagonal(pods, 0.0)
    busiest_pod = float(np.maximum(pods.sum(axis=1), pods.sum(axis=0)).max())
    n_cores = int(min(half * half, max(1, np.ceil(busiest_pod / cap - 1e-9))))
    # Our refinement for ECMP, which splits evenly where the heuristic assumes any split: an edge's traffic to
    # other pods goes up only through aggregation switches with cores on, so enough groups for the busiest
    # edge's inter-pod traffic, and every group in use gets the same number of cores.
    other_pod = np.repeat(np.arange(k), half)[:, None] != np.repeat(np.arange(k), half)[None, :]
    inter = np.maximum((d * other_pod).sum(axis=1), (d * other_pod).sum(axis=0))
    edge_groups = int(np.ceil(inter.max() / cap - 1e-9)) if len(inter) else 0
    groups = int(min(half, max(-(-n_cores // half), edge_groups, 1)))
    per_group = min(half, -(-n_cores // groups))
    aggs_per_pod = np.clip(np.maximum(pod_need, groups), 1, half)
    aggs_on = (np.arange(half)[None, :] < aggs_per_pod[:, None]).ravel()
    cores_on = (np.arange(half)[None, :] < per_group).repeat(half, axis=0)
    cores_on[groups:] = False
    cores_on = cores_on.ravel()
    return Subset(aggs_on, cores_on)
