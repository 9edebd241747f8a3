"""The known truth of a synthetic log: the devices, the phone replacements (and which of them meet seed
001's upgrade criteria), and the true browser, device and OS oldness per user and month.

Computed from the generator's own records (true device, true versions), never from parsing the log, so
that it can judge the whole pipeline: scanner, UA classification, device identity and the analyses."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..upgrades import SEED_RULES, UpgradeRules
from .catalog import Catalog
from .people import DAY, User

__all__ = ["KEPT_EVENTS", "truth_tables", "meets_rules"]

KEPT_EVENTS = ("login", "logout")  # the lines the default event/status filters keep


def _months(t: pd.Series) -> pd.Series:
    return pd.to_datetime(t, unit="s").dt.strftime("%Y-%m")


def _day(t) -> np.ndarray:
    return np.floor(np.asarray(t, dtype=float) / DAY)


def meets_rules(
    r: UpgradeRules, r_old: float, r_new: float, f_old: float, l_old: float, f_new: float, l_new: float
) -> bool:
    """Seed 001's criteria (lines 1646-1650, our readings in docs/lifetime.md) for one known replacement."""
    if np.isnan([r_old, r_new, f_old, l_old, f_new, l_new]).any():
        return False
    recent = f_new - r_new <= r.recent_release_days * DAY
    newer = r_new - r_old >= r.newer_by_days * DAY
    return bool(
        (recent or newer)
        and r_new - r_old >= r.min_release_gap_days * DAY
        and f_new - l_old <= r.max_gap_days * DAY
        and l_old - f_new <= r.max_overlap_days * DAY
        and l_new - l_old >= r.min_outlast_days * DAY
        and f_new >= f_old
    )


def _devices(users: list[User], kept: pd.DataFrame) -> pd.DataFrame:
    rows = [
        {
            "device": d.uid,
            "user": u.uid,
            "kind": d.kind,
            "platform": d.platform,
            "device_class": d.device_class,
            "brand": d.brand,
            "model": d.model,
            "ua_token": d.token,
            "name": d.name,
            "release_s": d.release_s,
            "second_hand": d.second_hand,
            "app": bool(d.app_id),
            "use_start_s": d.use_start_s,
            "use_end_s": d.use_end_s,
        }
        for u in users
        for d in u.devices
    ]
    dev = pd.DataFrame.from_records(rows).set_index("device")
    span = kept.groupby("device")["time_s"].agg(["min", "max"])
    ident = kept[kept["identified"]].groupby("device")["time_s"].agg(["min", "max"])
    dev["first_s"], dev["last_s"] = span["min"], span["max"]
    dev["first_identified_s"], dev["last_identified_s"] = ident["min"], ident["max"]
    dev["release_date"] = pd.to_datetime(dev["release_s"], unit="s").dt.strftime("%Y-%m-%d")
    return dev.reset_index()


def _replacements(users: list[User], dev: pd.DataFrame, rules: UpgradeRules) -> pd.DataFrame:
    info = dev.set_index("device")
    recs = []
    for u in users:
        phones = [d.uid for d in u.devices if d.kind == "phone"]
        for a, b in zip(phones, phones[1:]):
            A, B = info.loc[a], info.loc[b]
            if np.isnan(A["first_s"]) or np.isnan(B["first_s"]):
                continue  # one of them never reached the log (before the user's window)
            seen = not (np.isnan(A["first_identified_s"]) or np.isnan(B["first_identified_s"]))
            t = B["first_identified_s"] if seen else B["first_s"]
            recs.append(
                {
                    "user": u.uid,
                    "old_device": a,
                    "new_device": b,
                    "platform": A["platform"],
                    "new_platform": B["platform"],
                    "old_token": A["ua_token"],
                    "new_token": B["ua_token"],
                    "new_second_hand": bool(B["second_hand"]),
                    "time_s": t,
                    "month": None,
                    "old_age_days": float(_day(t) - _day(A["release_s"])),
                    "new_age_days": float(_day(t) - _day(B["release_s"])),
                    "meets_rules": meets_rules(
                        rules,
                        A["release_s"],
                        B["release_s"],
                        A["first_s"],
                        A["last_s"],
                        B["first_s"],
                        B["last_s"],
                    ),
                    "observable": seen,
                    "meets_rules_observed": seen
                    and meets_rules(
                        rules,
                        A["release_s"],
                        B["release_s"],
                        A["first_identified_s"],
                        A["last_identified_s"],
                        B["first_identified_s"],
                        B["last_identified_s"],
                    ),
                }
            )
    out = pd.DataFrame.from_records(recs)
    if len(out):
        out["month"] = _months(out["time_s"])
    return out


def _latest(frame: pd.DataFrame, key: list[str]) -> pd.DataFrame:
    return frame.sort_values([*key, "month", "time_s"], kind="stable").groupby([*key, "month"]).tail(1)


def _oldness(kept: pd.DataFrame, dev: pd.DataFrame, cat: Catalog) -> pd.DataFrame:
    release = dev.set_index("device")["release_s"]
    cols = ["kind", "user", "month", "platform", "device_class", "key", "censored", "oldness_days"]
    parts = []
    web = _latest(kept[kept["channel"] == "web"], ["user", "browser"])
    rel = np.array([cat.browser_release(b, v) for b, v in zip(web["browser"], web["browser_version"])])
    parts.append(
        web.assign(
            kind="browser", key=web["browser"], censored=False, oldness_days=_day(web["time_s"]) - _day(rel)
        )
    )
    known = _latest(kept[kept["identified"] & kept["kind"].ne("computer")], ["user", "device"])
    parts.append(
        known.assign(
            kind="device",
            key=known["device"],
            censored=False,
            oldness_days=_day(known["time_s"]) - _day(release[known["device"]].to_numpy()),
        )
    )
    cens = _latest(kept[kept["dev_censored"]], ["user", "platform", "device_class"])
    parts.append(
        cens.assign(
            kind="device",
            key="c:" + cens["platform"] + "/" + cens["device_class"],
            censored=True,
            oldness_days=_day(cens["time_s"]) - _day(release[cens["device"]].to_numpy()),
        )
    )
    osl = _latest(kept, ["user", "platform"])
    tables = {"android": "android", "ios": "ios", "ipados": "ios"}
    os_rel = np.array(
        [cat.os_release(tables.get(p, ""), v) for p, v in zip(osl["platform"], osl["os_version"])]
    )
    parts.append(
        osl.assign(
            kind="os",
            key=osl["platform"],
            censored=osl["os_censored"],
            oldness_days=_day(osl["time_s"]) - _day(os_rel),
        )
    )
    return pd.concat([p[cols] for p in parts], ignore_index=True)


def truth_tables(
    lines: pd.DataFrame, users: list[User], cat: Catalog, rules: UpgradeRules = SEED_RULES
) -> dict[str, pd.DataFrame]:
    """`devices`, `replacements` and `oldness` (kind, user, month, key, censored, true oldness in days)."""
    kept = lines[lines["event"].isin(KEPT_EVENTS)].copy()
    kept["month"] = _months(kept["time_s"])
    dev = _devices(users, kept)
    return {
        "devices": dev,
        "replacements": _replacements(users, dev, rules),
        "oldness": _oldness(kept, dev, cat),
    }
