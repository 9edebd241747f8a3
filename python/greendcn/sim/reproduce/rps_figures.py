"""Figures of the seed 003 reproduction, one PNG per paper figure (Figs 2-9) and one for the duplicate-ACK
threshold comparison. Each plots means over seeds with the standard deviation as error bars."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.ticker import MaxNLocator

__all__ = ["write_figures"]

_METRIC = {
    "long_throughput_bps": ("average long-flow throughput (Mbps)", 1e-6),
    "short_fct_s": ("average short-flow FCT (ms)", 1e3),
    "ooo_pct": ("out-of-order packets in short flows (%)", 1.0),
}
# figure number -> (experiment rows, metric, title)
_FIGS = {
    2: ("static", "long_throughput_bps", "static pairs: long flows"),
    3: ("static", "short_fct_s", "static pairs: short flow"),
    4: ("static", "ooo_pct", "static pairs: short flow"),
    5: ("random", "long_throughput_bps", "random pairs: long flows"),
    6: ("random", "short_fct_s", "random pairs: short flows"),
    7: ("random", "ooo_pct", "random pairs: short flows"),
}


def _line(ax, df: pd.DataFrame, metric: str, label: str) -> None:  # type: ignore[no-untyped-def]
    _, scale = _METRIC[metric]
    df = df.sort_values("n_long")
    ax.errorbar(
        df["n_long"],
        df[metric] * scale,
        yerr=df[f"{metric}_std"].fillna(0) * scale,
        marker="o",
        capsize=3,
        label=label,
    )


def _finish(ax, metric: str, title: str, path: Path) -> None:  # type: ignore[no-untyped-def]
    ax.set_xlabel("number of long flows")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel(_METRIC[metric][0])
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    ax.figure.tight_layout()
    ax.figure.savefig(path, dpi=110)
    plt.close(ax.figure)


def write_figures(summary: pd.DataFrame, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for num, (exp, metric, title) in _FIGS.items():
        _, ax = plt.subplots(figsize=(5, 3.6))
        rows = summary[summary["experiment"] == exp]
        for scheme, label in (("single", "single path"), ("rps", "packet spraying")):
            _line(ax, rows[rows["scheme"] == scheme], metric, label)
        paths.append(out / f"fig{num}_{exp}_{metric}.png")
        _finish(ax, metric, f"Fig {num} analogue, {title}", paths[-1])
    # Figs 8-9: spraying only, random pairs, fewer vs more short flows.
    shorts = pd.concat(
        [
            summary[summary["experiment"] == "shorts"],
            summary[(summary["experiment"] == "random") & (summary["scheme"] == "rps")],
        ]
    )
    for num, metric in ((8, "long_throughput_bps"), (9, "short_fct_s")):
        _, ax = plt.subplots(figsize=(5, 3.6))
        for m in sorted(shorts["n_short"].unique()):
            _line(ax, shorts[shorts["n_short"] == m], metric, f"{m} short flows")
        paths.append(out / f"fig{num}_shorts_{metric}.png")
        _finish(ax, metric, f"Fig {num} analogue, spraying, random pairs", paths[-1])
    # Ours: duplicate-ACK threshold 3 vs reorder-tolerant, under spraying.
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    base = summary[(summary["scheme"] == "rps") & summary["experiment"].isin(["static", "random", "dupack"])]
    for ax, metric in zip(axes, _METRIC):
        for (scen, th), rows in base.groupby(["scenario", "dupack_threshold"]):
            _line(ax, rows, metric, f"{scen}, dupack {th}")
        ax.set_xlabel("number of long flows")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel(_METRIC[metric][0])
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("packet spraying: duplicate-ACK threshold 3 vs reorder-tolerant")
    fig.tight_layout()
    paths.append(out / "fig_dupack_threshold.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    return paths
