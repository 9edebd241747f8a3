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
    "ALL_PLATFORMS",
    "PERCENTILES",
    "WITHIN_DAYS",
    "OldnessResult",
    "browser_oldness",
    "device_oldness",
    "for_month",
    "for_months",
    "oldness",
    "oldness_report",
    "os_oldness",
    "parse_months",
    "summarize",
    "users_within",
]

ALL_PLATFORMS = "all"  # the platform value of the rows computed over every user's records

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
    out = last[
        ["user", "month", "year", "platform", "device_class", "browser", "browser_version", "access_day"]
    ]
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
    # A UA whose earliest possible release is after its use (a wrong clock or table) cannot be negative in
    # age: both bounds stop at 0, so the interval never inverts.
    hi = np.maximum(hi, lo)
    return last.assign(
        oldness_lo_days=lo.astype("int64"), oldness_hi_days=hi.astype("int64"), censored=censored
    )


def device_oldness(cs: pd.DataFrame) -> pd.DataFrame:
    """One row per (user, device, month) for dated and censored devices, as an interval (equal bounds when
    the model is known). A censored device is the user's model-less sightings of one platform and class."""
    rows = cs[cs["device_state"].isin(["exact", "censored"])]
    last = _latest(rows, ["user", "device_id"])
    out = _interval_rows(last, "device_release_lo", "device_release_hi")
    out["censored"] = out["censored"] | (out["device_state"] == "censored").to_numpy()
    cols = [
        "user",
        "month",
        "year",
        "platform",
        "device_class",
        "device_id",
        "device_name",
        "censored",
        "censor_reason",
        "access_day",
        "oldness_lo_days",
        "oldness_hi_days",
    ]
    return out[cols].reset_index(drop=True)


def os_oldness(cs: pd.DataFrame) -> pd.DataFrame:
    """One row per (user, OS, month): the OS version at its latest use, as an interval (frozen UAs)."""
    rows = cs[(cs["os"] != "") & cs["os_release_lo"].notna()]
    last = _latest(rows, ["user", "os"])
    out = _interval_rows(last, "os_release_lo", "os_release_hi")
    cols = [
        "user",
        "month",
        "year",
        "platform",
        "os",
        "os_version",
        "censored",
        "censor_reason",
        "access_day",
        "oldness_lo_days",
        "oldness_hi_days",
    ]
    return out[cols].reset_index(drop=True)


def _pcol(q: float) -> str:
    return f"p{q:g}".replace(".", "_")


def summarize(
    rows: pd.DataFrame,
    by: Sequence[str] = ("platform",),
    percentiles: Sequence[float] = PERCENTILES,
    within_days: int = WITHIN_DAYS,
) -> pd.DataFrame:
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
    return for_months(summary, [month])


def for_months(summary: pd.DataFrame, months: Sequence[int] | None) -> pd.DataFrame:
    """The rows of the given calendar months (1-12) in each year, or of every month when `months` is None."""
    if summary.empty:
        return summary.assign(year=pd.Series(dtype=int))
    keep = (
        summary["month"].str.slice(5, 7).astype(int).isin(list(months))
        if months is not None
        else pd.Series(True, index=summary.index)
    )
    out = summary[keep].copy()
    out.insert(0, "year", out["month"].str.slice(0, 4).astype(int))
    return out.reset_index(drop=True)


def parse_months(spec: str) -> list[int] | None:
    """`--months`: "all" (None: every month present), a month 1-12, or a list and ranges: "10", "1,4,10",
    "9-11". Raises InputError with a hint for anything else."""
    from ..core.errors import InputError

    text = spec.strip().lower()
    if text == "all":
        return None
    months: set[int] = set()
    try:
        for part in text.split(","):
            a, _, b = part.strip().partition("-")
            lo, hi = int(a), int(b) if b else int(a)
            if not (1 <= lo <= hi <= 12):
                raise ValueError(part)
            months.update(range(lo, hi + 1))
    except ValueError:
        raise InputError(
            f"--months: cannot read {spec!r}", hint="give all, a month 1-12, or a list such as 1,4,10 or 9-11"
        ) from None
    return sorted(months)


def users_within(
    browser_rows: pd.DataFrame,
    users_seen: pd.DataFrame,
    within_days: float,
    by: Sequence[str] = ("platform",),
) -> pd.DataFrame:
    """Seed 001's headline measure (line 1608): the share of users whose browser was released within
    `within_days`, per group and over all platforms (group `all`), pooled over the months of `browser_rows`.

    A user counts once per month, by the oldest of their browsers that month (the browser rows are already the
    latest use per user and browser). Users seen in a month without any dated browser (an app, an unknown UA)
    make the share an interval: `share_lo` counts them as older, `share_hi` as within; equal when none."""
    b = browser_rows
    seen = users_seen[users_seen["month"].isin(b["month"].unique())] if len(b) else users_seen.iloc[0:0]
    oldest = b.groupby(["user", "month", *by], sort=False)["oldness_days"].max().reset_index()
    oldest_all = b.groupby(["user", "month"], sort=False)["oldness_days"].max().reset_index()
    records = []

    def row(group: dict, old: pd.DataFrame, users: pd.DataFrame) -> dict:
        n_users = len(users)
        dated = len(old)
        within = int((old["oldness_days"] < within_days).sum())
        undated = max(n_users - dated, 0)
        return {
            **group,
            "users": n_users,
            "dated_users": dated,
            "share_lo": within / n_users if n_users else None,
            "share_hi": (within + undated) / n_users if n_users else None,
        }

    users_all = seen[["user", "month"]].drop_duplicates()
    records.append(row({k: ALL_PLATFORMS for k in by}, oldest_all, users_all))
    for key, g in oldest.groupby(list(by), sort=True):
        group = dict(zip(by, key if isinstance(key, tuple) else (key,)))
        mask = np.logical_and.reduce([seen[k] == v for k, v in group.items()])
        users = seen[mask][["user", "month"]].drop_duplicates()
        records.append(row(group, g, users))
    return pd.DataFrame.from_records(records)


@dataclass
class OldnessResult:
    """Row tables per kind and their monthly percentile summaries."""

    browser_rows: pd.DataFrame
    device_rows: pd.DataFrame
    os_rows: pd.DataFrame
    browser: pd.DataFrame
    device: pd.DataFrame
    os: pd.DataFrame


def _with_all(rows: pd.DataFrame, by: Sequence[str], **kw) -> pd.DataFrame:
    """Per-group summaries and, beside them, the same statistics over all groups' rows together (a group named
    `all`): computed from the rows, not recombined from the groups' percentiles, which cannot be done."""
    per_group = summarize(rows, by=by, **kw)
    if rows.empty:
        return per_group
    everyone = rows.assign(**{k: ALL_PLATFORMS for k in by})
    return pd.concat([per_group, summarize(everyone, by=by, **kw)], ignore_index=True)


def oldness(
    cs: pd.DataFrame,
    percentiles: Sequence[float] = PERCENTILES,
    within_days: int = WITHIN_DAYS,
    by: Sequence[str] = ("platform",),
) -> OldnessResult:
    """All three oldness kinds from classified sightings, summarised per `by` and month, each table with an
    all-platforms row per month beside the per-platform ones."""
    b, d, o = browser_oldness(cs), device_oldness(cs), os_oldness(cs)
    kw = dict(percentiles=percentiles, within_days=within_days)
    return OldnessResult(b, d, o, _with_all(b, by, **kw), _with_all(d, by, **kw), _with_all(o, by, **kw))


def oldness_report(
    cs: pd.DataFrame,
    months: Sequence[int] | None = (10,),
    percentiles: Sequence[float] = PERCENTILES,
    within_days: int = WITHIN_DAYS,
) -> dict:
    """What `greendcn lifetime oldness` reports: per kind the chosen months of each year (`by_year`, with the
    all-platforms rows), the monthly summaries and row counts, the months used, and the headline (the share of
    users within `within_days`, pooled over the chosen months). `months` None means every month."""
    res = oldness(cs, percentiles, within_days)
    label = "all months" if months is None else ("month " + ",".join(f"{m:02d}" for m in months))
    out: dict = {
        "params": {
            "months": "all" if months is None else list(months),
            "label": label,
            "percentiles": list(percentiles),
            "within_days": within_days,
        }
    }
    for kind, summary, rows in (
        ("browser", res.browser, res.browser_rows),
        ("device", res.device, res.device_rows),
        ("os", res.os, res.os_rows),
    ):
        out[kind] = {
            "by_year": for_months(summary, months),
            "monthly": summary,
            "rows": len(rows),
            **({} if kind == "browser" else {"censored_rows": int(rows["censored"].sum())}),
        }
    by_year = out["browser"]["by_year"]
    out["months_used"] = sorted(set(by_year["month"])) if len(by_year) else []

    def chosen(frame: pd.DataFrame) -> pd.DataFrame:
        return (
            frame if months is None else frame[frame["month"].str.slice(5, 7).astype(int).isin(list(months))]
        )

    head = users_within(chosen(res.browser_rows), chosen(cs[["user", "month", "platform"]]), within_days)
    out["headline"] = {
        "measure": f"share of users whose browser was released within {within_days / 365.25:g} "
        f"years ({within_days} days), pooled over {label}",
        "rows": head,
    }
    return out
