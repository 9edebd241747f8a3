"""Figures of `greendcn reproduce opera-paper`: the CDF of FCT per size bucket, ours beside the public Opera
simulator's on the same flows, and p99 short-flow FCT against joules per delivered bit (`opera-paper-energy`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .opera_paper import BUCKET_EDGES

__all__ = ["write_cdf_figure", "write_energy_figure"]

_TITLES = ("< 100 KB", "100 KB - 1 MB", ">= 1 MB")


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def write_cdf_figure(per_flow: Any, path: Path, label: str) -> Path:
    """One panel per size bucket: the CDF of completed flows' FCT (ms, log scale), ours and, when the table has
    `reference_fct_ms`, the simulator's."""
    plt = _plt()
    size = per_flow["size_bytes"].to_numpy()
    bucket = np.searchsorted(np.asarray(BUCKET_EDGES), size, side="right")
    sides = [("greendcn", "fct_ms", "-")]
    if "reference_fct_ms" in per_flow.columns:
        sides.append(("opera-sim", "reference_fct_ms", "--"))
    from matplotlib.ticker import NullFormatter

    fig, axes = plt.subplots(1, len(_TITLES), figsize=(11, 3.4))
    for i, (ax, title) in enumerate(zip(axes, _TITLES)):
        for name, col, style in sides:
            v = per_flow[col].to_numpy(dtype=float)[bucket == i]
            v = np.sort(v[np.isfinite(v)])
            if v.size:
                ax.step(v, np.arange(1, v.size + 1) / v.size, style, where="post", label=f"{name} ({v.size})")
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())  # decades only: minor labels overlap on narrow ranges
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("FCT (ms)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    axes[0].set_ylabel("CDF of completed flows")
    fig.suptitle(label, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def write_energy_figure(rows: list[dict[str, Any]], path: Path) -> Path:
    """p99 FCT of flows < 100 KB against energy per delivered bit (every device, hosts too), one marker per run,
    one colour per network, each point labelled with its flow file's load."""
    from ...core.units import per_bit_unit

    plt = _plt()
    pts = [
        r for r in rows if r.get("energy_per_bit_pj") is not None and r.get("short_fct_p99_ms") is not None
    ]
    unit, factor = per_bit_unit(max((r["energy_per_bit_pj"] for r in pts), default=0.0))
    fig, ax = plt.subplots(figsize=(5.8, 4.0))
    for net in dict.fromkeys(r["network"] for r in pts):
        mine = [r for r in pts if r["network"] == net]
        x = [r["energy_per_bit_pj"] * factor for r in mine]
        y = [r["short_fct_p99_ms"] for r in mine]
        ax.plot(x, y, "o", label=net)
        for r, a, b in zip(mine, x, y):
            ax.annotate(r["label"], (a, b), fontsize=7, xytext=(3, 3), textcoords="offset points")
    xs = [r["energy_per_bit_pj"] for r in pts]
    if xs and max(xs) > 10 * min(xs):  # loads from 1 % to 25 % span decades; one load does not
        ax.set_xscale("log")
    ax.set_xlabel(f"{unit} per delivered bit (network devices and hosts)")
    ax.set_ylabel("p99 FCT of flows < 100 KB (ms)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
