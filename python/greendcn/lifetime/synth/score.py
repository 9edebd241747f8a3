"""Scoring the analyses against a synthetic log's truth: upgrades found and false, oldness percentiles against
the true ones, censored rows counted, and the headline shares beside seed 001's statements.

The log is read the way a user's would be (scanner, classifier, default filters), so the score covers the
whole pipeline."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from ..oldness import PERCENTILES, oldness
from ..pipeline import read_logs
from ..upgrades import upgrades

__all__ = ["score_dir", "score_frames", "headline"]

MIN_ROWS = 30  # percentiles are compared per platform and month where both sides have this many rows


def _events_score(events: pd.DataFrame, truth: pd.DataFrame) -> dict:
    true = truth[truth["meets_rules_observed"].astype(bool)]
    key = lambda df: set(zip(df["user"], df["time_s"].astype("int64")))  # noqa: E731
    found, wanted = key(events), key(true)
    return {
        "replacements": len(truth),
        "observable": int(truth["observable"].astype(bool).sum()),
        "true_upgrades": len(wanted),
        "detected": len(found),
        "found": len(found & wanted),
        "recall_share": len(found & wanted) / len(wanted) if wanted else None,
        "false_share": len(found - wanted) / len(found) if found else None,
    }


def _worst_percentile_gap(a: pd.DataFrame, av: str, b: pd.DataFrame, bv: str) -> tuple[float, int]:
    worst, groups = 0.0, 0
    for (plat, month), ga in a.groupby(["platform", "month"]):
        gb = b[(b["platform"] == plat) & (b["month"] == month)]
        if len(ga) < MIN_ROWS or len(gb) < MIN_ROWS:
            continue
        groups += 1
        gap = np.abs(np.percentile(ga[av], PERCENTILES) - np.percentile(gb[bv], PERCENTILES)).max()
        worst = max(worst, float(gap))
    return worst, groups


def _oldness_score(res, truth: pd.DataFrame) -> dict:
    out = {}
    for kind, rows in (("browser", res.browser_rows), ("device", res.device_rows), ("os", res.os_rows)):
        t = truth[truth["kind"] == kind]
        rec: dict = {}
        if kind == "browser":
            exact, value = rows, "oldness_days"
        else:
            exact, value = rows[~rows["censored"]], "oldness_lo_days"
            cens, tcens = rows[rows["censored"]], t[t["censored"].astype(bool)]
            key = "device_id" if kind == "device" else "platform"
            tkey = "key" if kind == "device" else "platform"
            got = set(zip(cens["user"], cens["month"], cens[key]))
            want = set(zip(tcens["user"], tcens["month"], tcens[tkey]))
            both = cens.merge(tcens, left_on=["user", "month", key], right_on=["user", "month", tkey])
            both = both[both["oldness_days"].notna()]
            inside = (both["oldness_days"] >= both["oldness_lo_days"]) & (
                both["oldness_days"] <= both["oldness_hi_days"]
            )
            rec.update(
                {
                    "censored_rows": len(got),
                    "censored_rows_truth": len(want),
                    "censored_rows_equal": got == want,
                    "truth_inside_bounds_share": float(inside.mean()) if len(both) else None,
                }
            )
            t = t[~t["censored"].astype(bool)]
        worst, groups = _worst_percentile_gap(exact, value, t, "oldness_days")
        rec.update(
            {
                "exact_rows": len(exact),
                "exact_rows_truth": len(t),
                "worst_percentile_gap_days": worst,
                "compared_platform_months": groups,
            }
        )
        out[kind] = rec
    return out


def _share_bounds(rows: pd.DataFrame, a: float, b: float) -> tuple[float | None, float | None]:
    """Bounds on the share of rows whose true age lies in [a, b): surely (interval inside), possibly (overlap)."""
    if rows.empty:
        return None, None
    lo, hi = rows["oldness_lo_days"], rows["oldness_hi_days"]
    return float(((lo >= a) & (hi < b)).mean()), float(((hi >= a) & (lo < b)).mean())


def headline(res_old, res_up, month: int = 10) -> dict:
    """The shares seed 001 states (lines 1608, 1631, 1669), measured the same way on these logs."""
    in_month = lambda df: df[df["month"].str.slice(5, 7).astype(int) == month]  # noqa: E731
    b = in_month(res_old.browser_rows)
    b = b[b["platform"].isin(["android", "ios"])]
    d = in_month(res_old.device_rows)
    d = d[d["device_class"] == "smartphone"]
    year = 365.25
    ages = res_up.events["old_age_days"].to_numpy(dtype=float)
    five_six = _share_bounds(d, 5 * year, 6 * year)
    over_five = _share_bounds(d, 5 * year, np.inf)
    exact = d[~d["censored"]]
    return {
        "browser_rows": len(b),
        "browser_under_4y_share": float((b["oldness_days"] < 4 * year).mean()) if len(b) else None,
        "phone_rows": len(d),
        "phone_censored_share": float(d["censored"].mean()) if len(d) else None,
        "phone_5_to_6y_share_lo": five_six[0],
        "phone_5_to_6y_share_hi": five_six[1],
        "phone_over_5y_share_lo": over_five[0],
        "phone_over_5y_share_hi": over_five[1],
        "phone_5_to_6y_share_exact_rows": float(
            ((exact["oldness_lo_days"] >= 5 * year) & (exact["oldness_lo_days"] < 6 * year)).mean()
        )
        if len(exact)
        else None,
        "upgrades": len(ages),
        "old_age_under_1y_share": float(np.mean(ages < year)) if len(ages) else None,
        "old_age_under_4y_share": float(np.mean(ages < 4 * year)) if len(ages) else None,
        "old_age_under_5y_share": float(np.mean(ages < 5 * year)) if len(ages) else None,
    }


def score_frames(cs: pd.DataFrame, truth: dict[str, pd.DataFrame]) -> dict:
    """Scores from classified sightings and the truth tables (`replacements`, `oldness`)."""
    up, old = upgrades(cs), oldness(cs)
    return {
        "upgrades": _events_score(up.events, truth["replacements"]),
        "oldness": _oldness_score(old, truth["oldness"]),
        "headline": headline(old, up),
    }


def score_dir(out: str | Path) -> dict:
    """Read the log `greendcn lifetime synth` wrote into `out` and score it against the truth beside it."""
    out = Path(out)
    meta = json.loads((out / "truth.json").read_text())
    cs, stats = read_logs([out / meta["log"]])
    truth = {
        "replacements": pd.read_csv(out / "truth_upgrades.csv"),
        "oldness": pd.read_csv(out / "truth_oldness.csv"),
    }
    scores = score_frames(cs, truth)
    c = meta["counts"]
    scores["input"] = {
        "lines_read": stats.get("lines_read"),
        "lines_written": c["lines"],
        "kept": stats.get("kept"),
        "kept_truth": c["kept_records"],
        "malformed": sum(stats.get("malformed", {}).values()),
        "malformed_truth": c["malformed"],
    }
    return scores
