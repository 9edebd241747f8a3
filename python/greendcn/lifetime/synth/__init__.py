"""Synthetic LMS access logs with a known truth (`greendcn lifetime synth`): users with device histories
drawn from the shipped release tables, their logs in any input format, and beside them the true upgrades and
oldness. Deterministic per seed."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ...core.clitools import info
from ..upgrades import SEED_RULES, UpgradeRules
from .catalog import Catalog
from .lines import LINE_COLUMNS, month_starts, user_lines
from .params import APP_NAME, DEFAULT_PARAMS, SynthParams
from .people import User, make_user
from .truth import KEPT_EVENTS, meets_rules, truth_tables
from .ua import app_ua, browser_ua
from .write import FORMATS, MALFORMED_KINDS, format_lines, malformed_lines, write_log

__all__ = [
    "APP_NAME",
    "FORMATS",
    "KEPT_EVENTS",
    "LINE_COLUMNS",
    "MALFORMED_KINDS",
    "SynthLog",
    "SynthParams",
    "app_ua",
    "browser_ua",
    "format_lines",
    "malformed_lines",
    "meets_rules",
    "os_releases",
    "synthesize",
    "write_synth",
]


def os_releases(browsers: pd.DataFrame, devices: pd.DataFrame) -> pd.DataFrame:
    """OS versions and their release dates as the generator uses them: `tables.os_releases()` (iOS from
    `safari_ios`, issue 11; Android curated). Without that table, iOS from the browser table's `safari_ios`
    and each Android major dated by its first phone in the device table (our approximation)."""
    from .. import tables

    if hasattr(tables, "os_releases"):
        t = tables.os_releases()
        t = t[t["os"].str.lower().isin(["android", "ios"])]
        return pd.DataFrame(
            {
                "os": t["os"].str.lower(),
                "version": t["version"].astype(str),
                "release_date": t["release_date"],
            }
        ).reset_index(drop=True)
    ios = browsers[browsers["browser"] == "safari_ios"]
    a = devices[devices["platform"] == "android"].copy()
    a["major"] = a["launch_os_version"].astype(str).str.split(".").str[0]
    first = a.groupby("major")["release_date"].min().reset_index()
    return pd.concat(
        [
            pd.DataFrame(
                {"os": "ios", "version": ios["version"].astype(str), "release_date": ios["release_date"]}
            ),
            pd.DataFrame({"os": "android", "version": first["major"], "release_date": first["release_date"]}),
        ],
        ignore_index=True,
    )


@dataclass
class SynthLog:
    """Generated records in log order (LINE_COLUMNS), the users behind them and how they were made."""

    lines: pd.DataFrame
    users: list[User]
    catalog: Catalog
    params: SynthParams
    seed: int

    def records(self, fmt: str) -> pd.DataFrame:
        """The records as a log of this format can carry them: a combined log has no client hints, so its
        hinted lines become censored ones."""
        if fmt != "combined":
            return self.lines
        out = self.lines.copy()
        hinted = out["ch_model"] != ""
        out.loc[hinted, ["ch_model", "ch_platform_version"]] = ""
        out.loc[hinted, "identified"] = False
        out.loc[hinted, ["dev_censored", "os_censored"]] = True
        return out

    def truth(self, fmt: str = "combined", rules: UpgradeRules = SEED_RULES) -> dict[str, pd.DataFrame]:
        return truth_tables(self.records(fmt), self.users, self.catalog, rules)


def synthesize(
    seed: int = 0,
    params: SynthParams = DEFAULT_PARAMS,
    *,
    browsers: pd.DataFrame | None = None,
    devices: pd.DataFrame | None = None,
    os_table: pd.DataFrame | None = None,
    progress: bool = False,
) -> SynthLog:
    """Generate `params.users` users and their log records. Tables default to the shipped ones."""
    if browsers is None or devices is None:
        from .. import tables

        browsers = tables.browser_releases() if browsers is None else browsers
        devices = tables.devices() if devices is None else devices
    if os_table is None:
        os_table = os_releases(browsers, devices)
    months = month_starts(params.start, params.end)
    span = (int(months[0]), int(months[-1]) - 1)
    cat = Catalog(browsers, devices, os_table, span[1])
    users, rows = [], []
    for i in range(params.users):
        u = make_user(i, seed, params, cat, span)
        users.append(u)
        rows.extend(user_lines(u, seed, params, cat, months))
        if progress and (i + 1) % 500 == 0:
            info(f"synth: {i + 1}/{params.users} users, {len(rows)} lines")
    lines = pd.DataFrame.from_records(rows, columns=LINE_COLUMNS)
    lines = lines[(lines["time_s"] >= span[0]) & (lines["time_s"] <= span[1])]
    order = np.lexsort((lines["event"].to_numpy(), lines["user"].to_numpy(), lines["time_s"].to_numpy()))
    return SynthLog(lines.iloc[order].reset_index(drop=True), users, cat, params, seed)


def write_synth(
    log: SynthLog, out: str | Path, fmt: str = "combined", gz: bool = False, rules: UpgradeRules = SEED_RULES
) -> dict:
    """Write the log and its truth into directory `out`; return what was written (paths and counts)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    name = {"combined": "access.log", "csv": "access.csv", "jsonl": "access.jsonl"}[fmt] + (
        ".gz" if gz else ""
    )
    records = log.records(fmt)
    counts = write_log(out / name, records, fmt, log.params.malformed_share, log.seed)
    truth = truth_tables(records, log.users, log.catalog, rules)
    truth["devices"].to_csv(out / "truth_devices.csv", index=False)
    truth["replacements"].to_csv(out / "truth_upgrades.csv", index=False)
    truth["oldness"].to_csv(out / "truth_oldness.csv", index=False)
    kept = int(records["event"].isin(KEPT_EVENTS).sum())
    rep = truth["replacements"]
    meta = {
        "seed": log.seed,
        "format": fmt,
        "log": name,
        "params": log.params.as_dict(),
        "rules": rules.as_dict(),
        "counts": {
            **counts,
            "kept_records": kept,
            "filtered_records": len(records) - kept,
            "users": len(log.users),
            "devices": len(truth["devices"]),
            "replacements": len(rep),
            "upgrades_meeting_rules_observed": int(rep["meets_rules_observed"].sum()) if len(rep) else 0,
        },
        "files": {
            "truth_devices": "truth_devices.csv",
            "truth_upgrades": "truth_upgrades.csv",
            "truth_oldness": "truth_oldness.csv",
        },
    }
    (out / "truth.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    return meta
