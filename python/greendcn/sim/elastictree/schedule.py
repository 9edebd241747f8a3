"""The power manager's plan for a run: one subset per interval (the heuristic on that interval's offered
demand), the engine's link schedule built from it, and when each switch and link is off."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..topology.graph import Network
from .config import ElasticTree
from .demand import flow_arrays, offered_demand
from .fabric import FatTreeView
from .heuristic import Subset, heuristic_subset

__all__ = ["Plan", "plan"]


@dataclass
class Plan:
    view: FatTreeView
    config: ElasticTree
    interval_ps: int
    subsets: list[Subset]
    # peak edge-to-edge demand (bit/s) per interval, for the report
    demand_bps: np.ndarray

    def link_schedule(self) -> dict[str, Any]:
        """The engine's `link_schedule` (docs/engine-spec.md): interval i starts at i x interval."""
        return {
            "times_ps": [i * self.interval_ps for i in range(len(self.subsets))],
            "off_links": [self.view.off_links(s.aggs_on, s.cores_on) for s in self.subsets],
        }

    def table(self) -> list[dict[str, Any]]:
        """Per interval: start, switches and links on, offered load."""
        return [
            {
                "interval": i,
                "start_s": i * self.interval_ps * 1e-12,
                "aggs_on": int(s.aggs_on.sum()),
                "cores_on": int(s.cores_on.sum()),
                "switches_on": s.switches_on + len(self.view.edges),
                "offered_gbps": float(self.demand_bps[i]) / 1e9,
            }
            for i, s in enumerate(self.subsets)
        ]


def plan(net: Network, flows: Any, config: ElasticTree, horizon_ps: int | None = None) -> Plan:
    """A subset per interval from time 0 until the last flow's ideal end (or `horizon_ps`, if later); the last
    subset stays in force until the run ends."""
    view = FatTreeView.of(net)
    src, _, size, start = flow_arrays(flows)
    ideal_end = int((start + np.ceil(size * 8.0 / view.rate_bps * 1e12)).max()) if len(size) else 0
    horizon = max(ideal_end, horizon_ps or 0, 1)
    n = -(-horizon // config.interval)
    demand = offered_demand(view, flows, config.interval, n)
    subsets = [heuristic_subset(view, demand[i], config.margin) for i in range(n)]
    return Plan(view, config, config.interval, subsets, demand.sum(axis=(1, 2)))
