"""Browser, device and OS oldness: days from a version's (or model's) release to its latest use in a month.

Seed 001 lines 1599-1606 define browser oldness (latest use per user and browser in each month) and line 1627
repeats it per device. OS oldness is our addition. Device and OS oldness can be censored (the UA bounds the
release date but does not give it); such rows carry an interval and every summary of them is a pair of
bounds, never a point estimate. Browser oldness is always exact."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .sightings import day_number

__all__ = [
    "PERCENTILES",
    "WITHIN_DAYS",
    "OldnessResult",
    "browser_oldness",
    "device_oldness",
    "os_oldness",
    "summarize",
    "for_month",
    "oldness",
]

PERCENTILES: tuple[float, ...] = (1, 5, 10, 25, 50, 75, 90, 95, 99)
WITHIN_DAYS = 1461  # four years of 365.25 days: the window of seed 001 line 1608


def _latest(rows: pd.DataFrame, key: list[str]) -> pd.DataFrame:
    """The latest sighting per key and month (ties broken by the UA text, so the choice is deterministic)."""
    ordered = rows.sort_values([*key, "month", "last_s", "ua"], kind="stable")
    return ordered.groupby([*key, "month"], sort=False).tail(1)


def browser_oldness(cs: pd.DataFrame) -> pd.DataFrame:
    """One row per (user, browser, month): the browser version at its latest use and its exact oldness."""
    rows = cs[(cs["browser"] != "") & cs["browser_release"].notna()]
    last = _latest(rows, ["user", "browser"])
    out = last[["user", "month", "year", "platform", "device_class", "browser", "browser_version", "access_day"]]
    out = out.assign(oldness_days=(last["access_day"] - day_number(last["browser_release"])).astype("int64"))
    return out.reset_index(drop=True)


def _interval_rows(last: pd.DataFrame, lo_col: str, hi_col: str) -> pd.DataFrame:
    """Oldness bounds from release bounds: a later release means a younger device. An open upper release
    bound (NaT) is the access date itself, and a censored row is never younger than 0 days: whatever sent
    the UA was out by then."""
    access = last["access_day"].to_numpy(dtype=float)
    hi_release = day_number(last[hi_col])
    open_hi = np.isnan(hi_release)
    lo = access - np.where(open_hi, access, hi_release)
    hi = access - day_number(last[lo_col])
    censored = (lo != hi) | open_hi
    lo = np.where(censored, np.maximum(lo, 0.0), lo)
    return last.assign(oldness_lo_days=lo.astype("int64"), oldness_hi_days=hi.astype("int64"), censored=censored)


def device_oldness(cs: pd.DataFrame) -> pd.DataFrame:
    """One row per (user, device, month) for dated and censored devices, as an interval (equal bounds when
    the model is known). A censored device is the user's model-less sightings of one platform and class."""
    rows = cs[cs["device_state"].isin(["exact", "censored"])]
    last = _latest(rows, ["user", "device_id"])
    out = _interval_rows(last, "device_release_lo", "device_release_hi")
    out["censored"] = out["censored"] | (out["device_state"] == "censored").to_numpy()
    cols = ["user", "month", "year", "platform", "device_class", "device_id", "device_name", "censored",
            "censor_reason", "access_day", "oldness_lo_days", "oldness_hi_days"]
    return out[cols].reset_index(drop=True)


def os_oldness(cs: pd.DataFrame) -> pd.DataFrame:
    """One row per (user, OS, month): the OS version at its latest use, as an interval (frozen UAs)."""
    rows = cs[(cs["os"] != "") & cs["os_release_lo"].notna()]
    last = _latest(rows, ["user", "os"])
    out = _interval_rows(last, "os_release_lo", "os_release_hi")
    cols = ["user", "month", "year", "platform", "os", "os_version", "censored", "censor_reason", "access_day",
            "oldness_lo_days", "oldness_hi_days"]
    return out[cols].reset_index(drop=True)


def _pcol(q: float) -> str:
    return f"p{q:g}".replace(".", "_")


def summarize(rows: pd.DataFrame, by: Sequence[str] = ("platform",), percentiles: Sequence[float] = PERCENTILES,
              within_days: int = WITHIN_DAYS) -> pd.DataFrame:
    """Percentiles per group and month.

    Exact rows (a column `oldness_days`) give `p50_days` ...; interval rows give `p50_lo_days` and
    `p50_hi_days`: the percentile of the lower bounds and of the upper bounds, which enclose the percentile of
    the true values because order statistics are monotone. `within_share` (or its `_lo`/`_hi` bounds) is the
    share of rows younger than `within_days`."""
    exact = "oldness_days" in rows.columns
    lo_col, hi_col = ("oldness_days", "oldness_days") if exact else ("oldness_lo_days", "oldness_hi_days")
    qs = np.asarray(percentiles, dtype=float)
    records = []
    for key, g in rows.groupby([*by, "month"], sort=True):
        rec = dict(zip([*by, "month"], key if isinstance(key, tuple) else (key,)))
        lo = g[lo_col].to_numpy(dtype=float)
        hi = g[hi_col].to_numpy(dtype=float)
        rec["rows"] = len(g)
        if exact:
            for q, v in zip(qs, np.percentile(lo, qs)):
                rec[f"{_pcol(q)}_days"] = float(v)
            rec["within_share"] = float(np.mean(lo < within_days))
        else:
            n_cens = int(g["censored"].sum())
            rec["censored_rows"] = n_cens
            rec["censored_share"] = n_cens / len(g)
            for q, a, b in zip(qs, np.percentile(lo, qs), np.percentile(hi, qs)):
                rec[f"{_pcol(q)}_lo_days"] = float(a)
                rec[f"{_pcol(q)}_hi_days"] = float(b)
            # A row is surely within the window when its upper bound is, possibly when its lower bound is.
            rec["within_share_lo"] = float(np.mean(hi < within_days))
            rec["within_share_hi"] = float(np.mean(lo < within_days))
        records.append(rec)
    return pd.DataFrame.from_records(records)


def for_month(summary: pd.DataFrame, month: int = 10) -> pd.DataFrame:
    """The rows of one calendar month in each year (seed 001 plots October, line 1606), with a `year` column."""
    if summary.empty:
        return summary.assign(year=pd.Series(dtype=int))
    keep = summary["month"].str.slice(5, 7).astype(int) == month
    out = summary[keep].copy()
    out.insert(0, "year", out["month"].str.slice(0, 4).astype(int))
    return out.reset_index(drop=True)


@dataclass
class OldnessResult:
    """Row tables per kind and their monthly percentile summaries."""

    browser_rows: pd.DataFrame
    device_rows: pd.DataFrame
    os_rows: pd.DataFrame
    browser: pd.DataFrame
    device: pd.DataFrame
    os: pd.DataFrame


def oldness(cs: pd.DataFrame, percentiles: Sequence[float] = PERCENTILES, within_days: int = WITHIN_DAYS,
            by: Sequence[str] = ("platform",)) -> OldnessResult:
    """All three oldness kinds from classified sightings, summarised per `by` and month."""
    b, d, o = browser_oldness(cs), device_oldness(cs), os_oldness(cs)
    kw = dict(by=by, percentiles=percentiles, within_days=within_days)
    return OldnessResult(b, d, o, summarize(b, **kw), summarize(d, **kw), summarize(o, **kw))
