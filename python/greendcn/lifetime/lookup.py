"""Lookups over the release tables for the UA classifier: MDN version keys and dates, OS release dates,
device models by UA token, and the release bounds of devices a UA names only by platform and OS."""

from __future__ import annotations

import re
from bisect import bisect_right

import numpy as np
import pandas as pd

__all__ = ["Lookups", "token_key", "vtuple"]

NAT = np.datetime64("NaT", "s")
# Samsung's model code: SM-, a series letter and three digits; what follows is the regional/carrier variant
# (SM-G991B, SM-G991U1, SM-G991W are one Galaxy S21 5G).
_SAMSUNG = re.compile(r"\bSM-([A-Z])(\d{3})", re.IGNORECASE)
_APPLE = re.compile(r"^(iPhone|iPad|iPod)(\d+),(\d+)$", re.IGNORECASE)
_MOTO_PREFIX = re.compile(r"^(motorola|moto)")


def vtuple(v: str) -> tuple[int, ...]:
    """ "17.4.1" -> (17, 4, 1); stops at the first non-numeric part."""
    out = []
    for p in str(v).split("."):
        if not p.isdigit():
            break
        out.append(int(p))
    return tuple(out)


def token_key(token: str) -> str:
    """The key a model token is matched by: Samsung codes without their variant suffix, Apple identifiers as
    they are, anything else lower-cased, alphanumerics only, without a leading "motorola"/"moto"."""
    t = token.strip()
    m = _SAMSUNG.search(t)
    if m:
        return f"SM-{m.group(1).upper()}{m.group(2)}"
    m = _APPLE.match(t)
    if m:
        return f"{m.group(1)[:3].lower()}{m.group(1)[3:]}{m.group(2)},{m.group(3)}"
    s = re.sub(r"[^a-z0-9]", "", t.lower())
    return _MOTO_PREFIX.sub("", s)


def _dates(col: pd.Series) -> np.ndarray:
    return col.astype("datetime64[s]").to_numpy()


class Lookups:
    """Indexes built once per set of tables."""

    def __init__(self, browsers: pd.DataFrame, os_table: pd.DataFrame, devices: pd.DataFrame):
        self.browsers: dict[str, tuple[list[tuple[int, ...]], list[str], np.ndarray]] = {}
        for name, g in browsers.groupby("browser", sort=True):
            g = g.assign(_v=g["version"].map(vtuple)).sort_values("_v", kind="stable")
            self.browsers[str(name)] = (
                list(g["_v"]),
                list(g["version"].astype(str)),
                _dates(g["release_date"]),
            )
        self.os: dict[str, tuple[list[tuple[int, ...]], list[str], np.ndarray]] = {}
        for name, g in os_table.groupby("os", sort=True):
            g = g[g["release_date"].notna()]
            g = g.assign(_v=g["version"].map(vtuple)).sort_values("_v", kind="stable")
            self.os[str(name)] = (list(g["_v"]), list(g["version"].astype(str)), _dates(g["release_date"]))
        self.devices: dict[str, dict] = {}
        for rec in devices.to_dict("records"):
            key = token_key(str(rec["ua_token"]))
            if key and key not in self.devices:
                self.devices[key] = rec
        self._platform_devices = {
            p: g[g["release_date"].notna()] for p, g in devices.groupby("platform", sort=True)
        }
        self._bounds: dict[tuple[str, int, bool], tuple[np.datetime64, np.datetime64]] = {}

    def version_key(self, table: dict, name: str, version: tuple[int, ...]) -> tuple[str, np.datetime64]:
        """The newest listed version <= `version` with the same major, and its date; ("", NaT) if none."""
        if name not in table or not version:
            return "", NAT
        keys, labels, dates = table[name]
        i = bisect_right(keys, version) - 1
        if i >= 0 and keys[i] and keys[i][0] == version[0]:
            return labels[i], dates[i]
        return "", NAT

    def browser(self, name: str, version: tuple[int, ...]) -> tuple[str, np.datetime64]:
        return self.version_key(self.browsers, name, version)

    def os_release(self, os_name: str, version: tuple[int, ...]) -> np.datetime64:
        table_os = "ios" if os_name == "ipados" else os_name  # iPadOS shares iOS's numbers and dates
        return self.version_key(self.os, table_os, version)[1]

    def first_release(self, os_name: str) -> np.datetime64:
        entry = self.os.get("ios" if os_name == "ipados" else os_name)
        return entry[2].min() if entry and len(entry[2]) else NAT

    def device(self, token: str) -> dict | None:
        return self.devices.get(token_key(token)) if token else None

    def apple_bounds(self, platform: str, os_major: int, exact: bool) -> tuple[np.datetime64, np.datetime64]:
        """Release bounds of an Apple device of `platform` known only to run iOS/iPadOS `os_major`.

        lo: the oldest model whose last supported major is >= os_major (or still supported);
        hi: when the OS major is exact, the newest model that launched on a major <= os_major; when the OS is
        only known to be at least os_major (a frozen UA), open (NaT: the access date bounds it)."""
        key = (platform, os_major, exact)
        if key not in self._bounds:
            self._bounds[key] = self._apple_bounds(platform, os_major, exact)
        return self._bounds[key]

    def _apple_bounds(self, platform: str, os_major: int, exact: bool) -> tuple[np.datetime64, np.datetime64]:
        d = self._platform_devices.get(platform)
        if d is None or d.empty:
            return NAT, NAT
        last = d["last_os_major"].astype(str)
        supports = (last == "") | (pd.to_numeric(last, errors="coerce") >= os_major)
        lo = d.loc[supports, "release_date"].min()
        hi = NAT
        if exact:
            launch = pd.to_numeric(d["launch_os_version"].astype(str).str.split(".").str[0], errors="coerce")
            launched = launch.isna() | (launch <= os_major)
            hi = d.loc[launched, "release_date"].max()
        lo = NAT if pd.isna(lo) else np.datetime64(lo, "s")
        hi = NAT if pd.isna(hi) else np.datetime64(hi, "s")
        return lo, hi
