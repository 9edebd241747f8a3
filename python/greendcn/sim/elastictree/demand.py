"""The demand the power manager plans for: the workload's offered load per interval, between edge switches.

Our choice (Heller et al. 2010 plan from a traffic matrix too, without fixing how it is measured): each flow's
bytes are spread evenly over its ideal duration, its size at the host link's rate from its start, and each
interval's demand is the bits that fall in it divided by the interval. The manager thus knows the offered load
ahead of time (an oracle, the best case for ElasticTree); a measured sliding window would lag the load."""

from __future__ import annotations

from typing import Any

import numpy as np

from .fabric import FatTreeView

__all__ = ["flow_arrays", "offered_demand"]


def flow_arrays(flows: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(src node, dst node, size bytes, start ps) of a FlowColumns or a list of Flow."""
    if hasattr(flows, "size_bytes") and isinstance(flows.size_bytes, np.ndarray):
        return (
            np.asarray(flows.src),
            np.asarray(flows.dst),
            np.asarray(flows.size_bytes),
            np.asarray(flows.start_ps),
        )
    return (
        np.array([f.src for f in flows], dtype=np.int64),
        np.array([f.dst for f in flows], dtype=np.int64),
        np.array([f.size_bytes for f in flows], dtype=np.int64),
        np.array([f.start_ps for f in flows], dtype=np.int64),
    )


def offered_demand(view: FatTreeView, flows: Any, interval_ps: int, intervals: int) -> np.ndarray:
    """Offered load (bit/s) from edge switch to edge switch in each interval: shape (intervals, E, E).
    Bits past the last interval are dropped."""
    src, dst, size, start = flow_arrays(flows)
    n_edge = len(view.edges)
    out = np.zeros((intervals, n_edge, n_edge))
    if len(size) == 0:
        return out
    host_pos = np.full(int(max(src.max(), dst.max(), view.hosts.max())) + 1, -1, dtype=np.int64)
    host_pos[view.hosts] = np.arange(len(view.hosts))
    se = view.host_edge[host_pos[src]]
    de = view.host_edge[host_pos[dst]]
    bits = size.astype(float) * 8
    dur = np.maximum(1, np.ceil(bits / view.rate_bps * 1e12)).astype(np.int64)
    end = start + dur
    i0 = start // interval_ps
    i1 = (end - 1) // interval_ps
    one = (i0 == i1) & (i0 < intervals)
    np.add.at(out, (i0[one], se[one], de[one]), bits[one])
    for f in np.flatnonzero(~one & (i0 < intervals)):
        rate = bits[f] / dur[f]  # bits per ps
        for i in range(int(i0[f]), min(int(i1[f]), intervals - 1) + 1):
            lo = max(int(start[f]), i * interval_ps)
            hi = min(int(end[f]), (i + 1) * interval_ps)
            out[i, se[f], de[f]] += rate * (hi - lo)
    return out / (interval_ps * 1e-12)
