"""Seed 003's qualitative statements next to what our runs show: one row per statement, paper and ours kept
in separate columns (the paper's figures are lost, so its sentences are all there is to compare)."""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["findings"]


def _mean(summary: pd.DataFrame, metric: str, **where: Any) -> float:
    sel = summary
    for k, v in where.items():
        sel = sel[sel[k] == v]
    return float(sel[metric].mean()) if len(sel) else float("nan")


def _pct(new: float, old: float) -> str:
    return f"{100 * (new / old - 1):+.1f} %"


def findings(summary: pd.DataFrame) -> list[dict[str, str]]:
    """Means over N (and seeds) of the summary table, for each of the paper's statements."""
    s = summary[summary["n_long"] >= 1]
    st2 = s[(s["experiment"] == "static") & (s["n_long"] >= 2)]
    rnd = s[s["experiment"].isin(["random", "dupack"]) & (s["scenario"] == "random")]
    tol = s["dupack_threshold"].max()
    rows = []

    def add(figure: str, paper: str, ours: str) -> None:
        rows.append(
            {"figure": figure, "Kaymak 2016 states": paper, "our runs (means over N and seeds)": ours}
        )

    add(
        "Fig 2",
        "static: spraying gives slightly larger long-flow throughput",
        "rps vs single: "
        + _pct(
            _mean(st2, "long_throughput_bps", scheme="rps"),
            _mean(st2, "long_throughput_bps", scheme="single"),
        )
        + " (N >= 2)",
    )
    add(
        "Fig 3",
        "static: spraying gives a smaller short-flow FCT",
        "rps vs single: "
        + _pct(_mean(st2, "short_fct_s", scheme="rps"), _mean(st2, "short_fct_s", scheme="single"))
        + f"; with dupack {tol}: "
        + _pct(
            _mean(
                s[(s["experiment"] == "dupack") & (s["scenario"] == "static") & (s["n_long"] >= 2)],
                "short_fct_s",
            ),
            _mean(st2, "short_fct_s", scheme="single"),
        ),
    )
    by_n = st2[st2["scheme"] == "rps"].groupby("n_long")["ooo_pct"].mean()
    add(
        "Fig 4",
        "static: about the same out-of-order share for N >= 2",
        "rps: " + ", ".join(f"N={n}: {v:.1f} %" for n, v in by_n.items()),
    )
    single = {"experiment": "random", "scheme": "single"}
    add(
        "Fig 5",
        "random pairs: spraying gives larger long-flow throughput",
        "rps vs single: "
        + _pct(
            _mean(rnd, "long_throughput_bps", experiment="random", scheme="rps"),
            _mean(rnd, "long_throughput_bps", **single),
        )
        + f"; with dupack {tol}: "
        + _pct(
            _mean(rnd, "long_throughput_bps", experiment="dupack"),
            _mean(rnd, "long_throughput_bps", **single),
        ),
    )
    add(
        "Fig 6",
        "random pairs: spraying gives a smaller short-flow FCT",
        "rps vs single: "
        + _pct(
            _mean(rnd, "short_fct_s", experiment="random", scheme="rps"), _mean(rnd, "short_fct_s", **single)
        )
        + f"; with dupack {tol}: "
        + _pct(_mean(rnd, "short_fct_s", experiment="dupack"), _mean(rnd, "short_fct_s", **single)),
    )
    add(
        "Fig 7",
        "random pairs: about 20 % of packets out of order",
        f"rps: {_mean(rnd, 'ooo_pct', experiment='random', scheme='rps'):.1f} %; with dupack {tol}: "
        f"{_mean(rnd, 'ooo_pct', experiment='dupack'):.1f} %",
    )
    shorts = s[s["experiment"] == "shorts"]
    if len(shorts):
        few = int(shorts["n_short"].min())
        many = int(rnd[rnd["experiment"] == "random"]["n_short"].max())
        full = _mean(rnd, "short_fct_s", experiment="random", scheme="rps")
        add(
            "Figs 8-9",
            "more short flows: slightly lower long-flow throughput, higher short FCT",
            f"{few} -> {many} short flows: throughput "
            + _pct(
                _mean(rnd, "long_throughput_bps", experiment="random", scheme="rps"),
                _mean(shorts, "long_throughput_bps"),
            )
            + ", FCT "
            + _pct(full, _mean(shorts, "short_fct_s")),
        )
    return rows
