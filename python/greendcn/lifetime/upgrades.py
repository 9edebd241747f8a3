"""Device upgrades: pairs (old, new) of one user's devices that meet seed 001's criteria (lines 1646-1651).

Each criterion is a field of `UpgradeRules` with the seed's value as default; how we read the ambiguous ones
is written beside each field and in docs/lifetime.md ("Upgrade detection"). A month is 30 days and a year 365
days throughout; every bound is inclusive."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from .sightings import day_number

__all__ = [
    "SEED_RULES",
    "UpgradeRules",
    "UpgradeResult",
    "device_table",
    "candidate_pairs",
    "detect_upgrades",
    "monthly_upgrades",
    "old_age_percentiles",
    "new_age_by_group",
    "upgrades",
]

DAY = 86400


@dataclass(frozen=True)
class UpgradeRules:
    """Seed 001's upgrade criteria (lines 1646-1651) as parameters; defaults are the seed's values."""

    # 1a. "released within the past year": our reading is within this many days before the new device's
    #     first use, which is also the date of the event (line 1653).
    recent_release_days: int = 365
    # 1b. ... "or newer than the old device by at least two years": release dates this far apart.
    newer_by_days: int = 730
    # 2. the new device was released at least six months after the old one.
    min_release_gap_days: int = 180
    # 3. the new device's first use at most this long after the old device's last use (a gap).
    max_gap_days: int = 90
    # 4. the old device's last use at most this long after the new device's first use (an overlap).
    max_overlap_days: int = 90
    # 5. the new device's last use at least this long after the old device's last use.
    min_outlast_days: int = 30
    # 6. no second event counted for devices added or dropped this close to an accepted event.
    dedupe_days: int = 60
    # Device classes whose upgrades we look for; both devices of a pair are of the same class.
    classes: tuple[str, ...] = field(default=("smartphone",))

    def as_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items()}


SEED_RULES = UpgradeRules()


def device_table(cs: pd.DataFrame, classes: Sequence[str] = ("smartphone",)) -> pd.DataFrame:
    """One row per (user, dated device) of the given classes: release, first and last use over the whole log.

    Censored and undated devices are left out: without a release date no criterion can be checked."""
    rows = cs[(cs["device_state"] == "exact") & cs["device_class"].isin(list(classes))]
    if rows.empty:
        return pd.DataFrame(
            columns=[
                "user",
                "device_id",
                "platform",
                "device_class",
                "device_name",
                "release_s",
                "first_s",
                "last_s",
            ]
        )
    # The platform and name of the sighting with the most hits (app and web sightings of a phone agree).
    top = rows.sort_values(
        ["user", "device_id", "hits", "ua"], ascending=[True, True, False, True], kind="stable"
    )
    head = top.groupby(["user", "device_id"], sort=True).head(1).set_index(["user", "device_id"])
    span = rows.groupby(["user", "device_id"], sort=True).agg(
        first_s=("first_s", "min"), last_s=("last_s", "max")
    )
    out = head[["platform", "device_class", "device_name"]].join(span)
    out["release_s"] = head["device_release_lo"].astype("datetime64[s]").astype("int64")
    return out.reset_index()[
        ["user", "device_id", "platform", "device_class", "device_name", "release_s", "first_s", "last_s"]
    ]


def candidate_pairs(devices: pd.DataFrame, rules: UpgradeRules = SEED_RULES) -> pd.DataFrame:
    """Every ordered pair (old, new) of one user's devices of one class that meets criteria 1-5."""
    pairs = devices.merge(devices, on=["user", "device_class"], suffixes=("_old", "_new"))
    pairs = pairs[pairs["device_id_old"] != pairs["device_id_new"]]
    r_old, r_new = pairs["release_s_old"], pairs["release_s_new"]
    f_old, f_new = pairs["first_s_old"], pairs["first_s_new"]
    l_old, l_new = pairs["last_s_old"], pairs["last_s_new"]
    recent = (f_new - r_new) <= rules.recent_release_days * DAY
    much_newer = (r_new - r_old) >= rules.newer_by_days * DAY
    ok = (
        (recent | much_newer)
        & ((r_new - r_old) >= rules.min_release_gap_days * DAY)
        & ((f_new - l_old) <= rules.max_gap_days * DAY)
        & ((l_old - f_new) <= rules.max_overlap_days * DAY)
        & ((l_new - l_old) >= rules.min_outlast_days * DAY)
        # Our addition: the new device is not in use before the old one was.
        & (f_new >= f_old)
    )
    return pairs[ok].reset_index(drop=True)


def _dedupe(cands: pd.DataFrame, rules: UpgradeRules) -> np.ndarray:
    """Accept candidates in time order; skip one whose new device was added, or whose old device was dropped,
    within `dedupe_days` of an accepted event of the user, and use each device at most once as old and once
    as new."""
    window = rules.dedupe_days * DAY
    keep = np.zeros(len(cands), dtype=bool)
    users = cands["user"].to_numpy()
    old, new = cands["device_id_old"].to_numpy(), cands["device_id_new"].to_numpy()
    t, dropped = cands["first_s_new"].to_numpy(), cands["last_s_old"].to_numpy()
    start = 0
    while start < len(cands):
        end = start
        while end < len(cands) and users[end] == users[start]:
            end += 1
        times: list[int] = []
        used_old: set[str] = set()
        used_new: set[str] = set()
        for i in range(start, end):
            if old[i] in used_old or new[i] in used_new:
                continue
            if any(abs(t[i] - e) <= window or abs(dropped[i] - e) <= window for e in times):
                continue
            keep[i] = True
            times.append(int(t[i]))
            used_old.add(old[i])
            used_new.add(new[i])
        start = end
    return keep


def detect_upgrades(devices: pd.DataFrame, rules: UpgradeRules = SEED_RULES) -> pd.DataFrame:
    """Upgrade events, one row each, dated at the new device's first use (seed 001 line 1653).

    `platform` is the old device's (Fig 4.5 counts discarded devices); ages are in days at the event."""
    cands = candidate_pairs(devices, rules)
    cands = cands.assign(_closeness=(cands["first_s_new"] - cands["last_s_old"]).abs())
    cands = cands.sort_values(
        ["user", "first_s_new", "_closeness", "device_id_old", "device_id_new"], kind="stable"
    ).reset_index(drop=True)
    ev = cands[_dedupe(cands, rules)]
    t = ev["first_s_new"]
    out = pd.DataFrame(
        {
            "user": ev["user"],
            "platform": ev["platform_old"],
            "new_platform": ev["platform_new"],
            "device_class": ev["device_class"],
            "old_device": ev["device_id_old"].str.slice(2),
            "new_device": ev["device_id_new"].str.slice(2),
            "old_name": ev["device_name_old"],
            "new_name": ev["device_name_new"],
            "time_s": t,
            "month": pd.to_datetime(t, unit="s").dt.strftime("%Y-%m"),
            "old_release": pd.to_datetime(ev["release_s_old"], unit="s").dt.strftime("%Y-%m-%d"),
            "new_release": pd.to_datetime(ev["release_s_new"], unit="s").dt.strftime("%Y-%m-%d"),
            "old_age_days": (day_number(t) - day_number(ev["release_s_old"])).astype("int64"),
            "new_age_days": (day_number(t) - day_number(ev["release_s_new"])).astype("int64"),
            "switch_gap_days": ((ev["first_s_new"] - ev["last_s_old"]) / DAY).round(1),
        }
    )
    return out.sort_values(["time_s", "user"], kind="stable").reset_index(drop=True)


def monthly_upgrades(events: pd.DataFrame, months: Sequence[str] | None = None) -> pd.DataFrame:
    """Upgrades per month and platform (Fig 4.5), with zero rows for months in `months` without events."""
    counts = events.groupby(["month", "platform"]).size().rename("upgrades")
    platforms = sorted(events["platform"].unique()) if len(events) else []
    all_months = sorted(set(months or []) | set(events["month"]))
    if not platforms:
        return pd.DataFrame(columns=["month", "platform", "upgrades"])
    grid = pd.MultiIndex.from_product([all_months, platforms], names=["month", "platform"])
    return counts.reindex(grid, fill_value=0).reset_index()


def old_age_percentiles(
    events: pd.DataFrame, percentiles: Sequence[float] = tuple(range(0, 101, 5))
) -> pd.DataFrame:
    """The old device's age at the upgrade by percentile, all platforms together and each one (Fig 4.6)."""
    recs = []
    groups = [("all", events)] + [(p, g) for p, g in events.groupby("platform", sort=True)]
    for name, g in groups:
        if g.empty:
            continue
        ages = g["old_age_days"].to_numpy(dtype=float)
        for q, v in zip(percentiles, np.percentile(ages, list(percentiles))):
            recs.append(
                {"platform": name, "percentile": float(q), "old_age_days": float(v), "events": len(g)}
            )
    return pd.DataFrame.from_records(recs, columns=["platform", "percentile", "old_age_days", "events"])


def new_age_by_group(
    events: pd.DataFrame,
    edges: Sequence[float] = (0, 20, 40, 60, 80, 100),
    points: Sequence[float] = tuple(range(0, 101, 5)),
) -> pd.DataFrame:
    """The new device's age at first use as a CDF (age at each cumulative share) per group of events by the
    old device's age percentile (Fig 4.7), with the groups' raw old-age thresholds."""
    cols = [
        "group",
        "old_pct_lo",
        "old_pct_hi",
        "old_age_lo_days",
        "old_age_hi_days",
        "events",
        "cdf_share",
        "new_age_days",
    ]
    if events.empty:
        return pd.DataFrame(columns=cols)
    old = events["old_age_days"].to_numpy(dtype=float)
    thresholds = np.percentile(old, list(edges))
    # Rank-based groups so equal ages split evenly; the thresholds are reported as measured.
    rank = (events["old_age_days"].rank(method="first").to_numpy() - 0.5) / len(events) * 100.0
    recs = []
    for i in range(len(edges) - 1):
        lo, hi = edges[i], edges[i + 1]
        sel = (rank >= lo) & ((rank < hi) if i < len(edges) - 2 else (rank <= hi))
        new = events["new_age_days"].to_numpy(dtype=float)[sel]
        if len(new) == 0:
            continue
        for p, v in zip(points, np.percentile(new, list(points))):
            recs.append(
                {
                    "group": f"p{lo:g}-{hi:g}",
                    "old_pct_lo": float(lo),
                    "old_pct_hi": float(hi),
                    "old_age_lo_days": float(thresholds[i]),
                    "old_age_hi_days": float(thresholds[i + 1]),
                    "events": int(sel.sum()),
                    "cdf_share": float(p) / 100.0,
                    "new_age_days": float(v),
                }
            )
    return pd.DataFrame.from_records(recs, columns=cols)


@dataclass
class UpgradeResult:
    """Devices considered, the events, and the three summaries of seed 001 Figs 4.5-4.7."""

    devices: pd.DataFrame
    events: pd.DataFrame
    monthly: pd.DataFrame
    old_age: pd.DataFrame
    new_age: pd.DataFrame
    rules: UpgradeRules

    def summary(self) -> dict:
        ev = self.events
        ages = ev["old_age_days"].to_numpy(dtype=float)
        return {
            "devices": len(self.devices),
            "events": len(ev),
            "events_by_platform": {str(k): int(v) for k, v in ev.groupby("platform").size().items()},
            "old_age_median_days": float(np.median(ages)) if len(ev) else None,
            "old_age_under_1y_share": float(np.mean(ages < 365)) if len(ev) else None,
            "old_age_under_4y_share": float(np.mean(ages < 1461)) if len(ev) else None,
        }


def upgrades(cs: pd.DataFrame, rules: UpgradeRules = SEED_RULES) -> UpgradeResult:
    """Upgrade detection and its summaries from classified sightings."""
    devices = device_table(cs, rules.classes)
    events = detect_upgrades(devices, rules)
    months = sorted(cs.loc[cs["device_class"].isin(list(rules.classes)), "month"].unique())
    return UpgradeResult(
        devices,
        events,
        monthly_upgrades(events, months),
        old_age_percentiles(events),
        new_age_by_group(events),
        rules,
    )
