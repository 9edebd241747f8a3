"""PNG figures in the manner of seed 001 Figs 4.3-4.7, drawn from the analyses' DataFrames.

Ages are shown in years (days / 365.25). Censored device and OS ages are drawn as bands between the lower and
upper percentile curves, never as a single line."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

__all__ = [
    "age_by_year",
    "upgrades_per_month",
    "old_age_by_percentile",
    "new_age_cdf",
    "oldness_figures",
    "upgrade_figures",
]

YEAR = 365.25
_BANDS = ((50, "tab:blue"), (90, "tab:orange"), (99, "tab:red"))


def _save(fig, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return path


def age_by_year(by_year: pd.DataFrame, path: Path, title: str, platforms=("android", "ios")) -> Path:
    """Percentiles of age per year for each platform (Figs 4.3 and 4.4). `by_year` is `for_month()` output:
    exact columns `p50_days` or bounds `p50_lo_days`/`p50_hi_days`."""
    fig, axes = plt.subplots(1, len(platforms), figsize=(5 * len(platforms), 3.6), sharey=True, squeeze=False)
    for ax, plat in zip(axes[0], platforms):
        g = by_year[by_year["platform"] == plat].sort_values("year") if len(by_year) else by_year
        for q, colour in _BANDS:
            if len(g) == 0:
                continue
            if f"p{q}_days" in g.columns:
                ax.plot(g["year"], g[f"p{q}_days"] / YEAR, "o-", color=colour, label=f"p{q}")
            else:
                lo, hi = g[f"p{q}_lo_days"] / YEAR, g[f"p{q}_hi_days"] / YEAR
                ax.fill_between(g["year"], lo, hi, color=colour, alpha=0.3, label=f"p{q} (bounds)")
                ax.plot(g["year"], lo, "-", color=colour, lw=0.8)
                ax.plot(g["year"], hi, "-", color=colour, lw=0.8)
        for year in g["year"] if len(g) else []:
            if year % 2:
                ax.axvspan(year - 0.5, year + 0.5, color="0.93", zorder=0)
        ax.set_title(f"{title}: {plat}")
        ax.set_xlabel("year")
        ax.grid(alpha=0.3)
        if len(g):
            ax.legend(fontsize=8)
    axes[0][0].set_ylabel("age at last use in the month (years)")
    return _save(fig, path)


def upgrades_per_month(monthly: pd.DataFrame, path: Path) -> Path:
    """Upgrades per month, one panel per platform of the discarded device (Fig 4.5)."""
    plats = sorted(monthly["platform"].unique()) if len(monthly) else ["none"]
    fig, axes = plt.subplots(1, len(plats), figsize=(5 * len(plats), 3.4), squeeze=False)
    for ax, plat in zip(axes[0], plats):
        g = monthly[monthly["platform"] == plat] if len(monthly) else monthly
        x = pd.to_datetime(g["month"] + "-15") if len(g) else []
        ax.bar(x, g["upgrades"] if len(g) else [], width=25)
        ax.set_title(f"upgrades per month: {plat}")
        ax.set_ylabel("upgrades")
        ax.grid(alpha=0.3)
    return _save(fig, path)


def old_age_by_percentile(old_age: pd.DataFrame, path: Path) -> Path:
    """The discarded device's age at the upgrade by percentile (Fig 4.6)."""
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    for plat, g in old_age.groupby("platform", sort=True):
        ax.plot(
            g["percentile"], g["old_age_days"] / YEAR, "o-", ms=3, label=f"{plat} ({g['events'].iloc[0]})"
        )
    ax.set_xlabel("percentile of upgrades")
    ax.set_ylabel("old device's age (years)")
    ax.grid(alpha=0.3)
    if len(old_age):
        ax.legend(fontsize=8)
    return _save(fig, path)


def new_age_cdf(new_age: pd.DataFrame, path: Path) -> Path:
    """CDF of the new device's age at first use per group of old-device age percentiles (Fig 4.7)."""
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    for group, g in new_age.groupby("group", sort=False):
        lo, hi = g["old_age_lo_days"].iloc[0] / YEAR, g["old_age_hi_days"].iloc[0] / YEAR
        ax.plot(g["new_age_days"] / YEAR, g["cdf_share"], "-", label=f"{group} (old {lo:.1f}-{hi:.1f} y)")
    ax.set_xlabel("new device's age at first use (years)")
    ax.set_ylabel("share of upgrades")
    ax.grid(alpha=0.3)
    if len(new_age):
        ax.legend(fontsize=7)
    return _save(fig, path)


def oldness_figures(
    browser_by_year: pd.DataFrame, device_by_year: pd.DataFrame, os_by_year: pd.DataFrame, out: Path
) -> list[Path]:
    return [
        age_by_year(browser_by_year, out / "browser_age.png", "browser age"),
        age_by_year(device_by_year, out / "device_age.png", "device age"),
        age_by_year(os_by_year, out / "os_age.png", "OS age"),
    ]


def upgrade_figures(
    monthly: pd.DataFrame, old_age: pd.DataFrame, new_age: pd.DataFrame, out: Path
) -> list[Path]:
    return [
        upgrades_per_month(monthly, out / "upgrades_per_month.png"),
        old_age_by_percentile(old_age, out / "old_age_percentiles.png"),
        new_age_cdf(new_age, out / "new_age_cdf.png"),
    ]
