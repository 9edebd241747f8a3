"""What a generated workload made, per component: flows, bytes, offered load achieved against the target, and
the sizes' percentiles against the distribution's (`greendcn workload generate`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.units import PS_PER_S
from .distributions import PERCENTILES
from .generate import GenContext, events_per_s, group_size, components_of, distribution_of
from .table import FlowTable

__all__ = ["describe_table"]


def describe_table(workload: Any, ctx: GenContext, table: FlowTable) -> list[dict[str, Any]]:
    """One record per component (units in the keys)."""
    out = []
    names = list(table.classes)
    for i, c in enumerate(components_of(workload)):
        where = "workload" if workload.kind != "mix" else f"workload.components[{i}]"
        dist = distribution_of(c, ctx.base_dir, where)
        code = names.index(c.flow_class) if c.flow_class in names else -1
        sizes = table.size_bytes[table.cls == code]
        rec: dict[str, Any] = {
            "class": c.flow_class,
            "kind": c.kind,
            "pattern": c.pattern,
            "sizes": dist.name if c.size is None else f"{c.size} B each",
            "sampling": c.sampling,
            "flows": int(len(sizes)),
            "bytes": int(sizes.sum()),
            "load_on": c.load_on if c.load is not None else None,
            "target_load": c.load,
            "achieved_load": None,
            "window_s": None,
        }
        if c.load is not None and len(sizes):
            if c.kind == "poisson":
                window_ps = c.duration
            else:  # count: the window its arrivals fill at the target rate
                rate = events_per_s(c, ctx, dist.mean(c.sampling), where)
                window_ps = len(sizes) / group_size(c, ctx) / rate * PS_PER_S
            cap = ctx.capacity_bps(c.load_on)
            rec["window_s"] = window_ps / PS_PER_S
            rec["achieved_load"] = rec["bytes"] * 8 / (window_ps / PS_PER_S) / cap
        rec["mean_bytes"] = float(sizes.mean()) if len(sizes) else None
        rec["dist_mean_bytes"] = dist.mean(c.sampling)
        want = dist.quantile(np.array([p / 100 for p in PERCENTILES]), c.sampling)
        got = np.percentile(sizes, PERCENTILES, method="inverted_cdf") if len(sizes) else [None] * len(want)
        rec["percentiles"] = [
            {"percentile": p, "generated_bytes": None if g is None else int(g), "distribution_bytes": int(w)}
            for p, g, w in zip(PERCENTILES, got, want)
        ]
        rec["ks_distance"] = dist.ks_distance(sizes, c.sampling) if len(sizes) else None
        out.append(rec)
    return out
