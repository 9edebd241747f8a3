"""The release tables as the generator needs them: which browser version, OS version and device model was
current at a given time. Built from `greendcn.lifetime.tables` (or frames with the same columns)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..lookup import token_key

__all__ = ["Catalog", "Series", "to_seconds"]

_RELEASED = {"retired", "current", "esr"}


def to_seconds(values) -> np.ndarray:
    """Dates (strings or datetimes) as Unix seconds at UTC midnight."""
    return pd.to_datetime(pd.Series(values)).astype("datetime64[s]").astype("int64").to_numpy()


@dataclass(frozen=True)
class Series:
    """Released versions of one browser or OS, in release order."""

    versions: np.ndarray  # str
    release_s: np.ndarray  # int64

    @property
    def majors(self) -> np.ndarray:
        return np.array([_major(v) for v in self.versions])

    def at(self, t: float) -> int:
        """Index of the latest version released at or before t (0 if none was yet)."""
        return max(0, int(np.searchsorted(self.release_s, t, side="right")) - 1)


def _major(version: str) -> int:
    return int(str(version).split(".")[0])


class Catalog:
    """Lookups over the browser, OS and device tables, restricted to what was released by `end_s`."""

    def __init__(self, browsers: pd.DataFrame, devices: pd.DataFrame, os_releases: pd.DataFrame, end_s: int):
        b = browsers[browsers["status"].isin(_RELEASED) & browsers["release_date"].notna()].copy()
        b["release_s"] = to_seconds(b["release_date"])
        b = b[b["release_s"] <= end_s]
        self.browsers: dict[str, Series] = {}
        for name, g in b.groupby("browser"):
            g = g.sort_values(["release_s", "version"], kind="stable")
            self.browsers[str(name)] = Series(g["version"].astype(str).to_numpy(), g["release_s"].to_numpy())
        o = os_releases[os_releases["release_date"].notna()].copy()
        o["release_s"] = to_seconds(o["release_date"])
        self.os: dict[str, Series] = {}
        self._os_majors: dict[str, np.ndarray] = {}
        for name, g in o.groupby("os"):
            g = g.sort_values(["release_s", "version"], kind="stable")
            self.os[str(name)] = Series(g["version"].astype(str).to_numpy(), g["release_s"].to_numpy())
            self._os_majors[str(name)] = self.os[str(name)].majors
        # One row per model key, the first in table order, as the classifier looks models up: two tokens with
        # one key (Samsung's regional variants) are one model to it.
        d = devices.assign(model_key=devices["ua_token"].astype(str).map(token_key))
        d = d[d["model_key"] != ""].drop_duplicates("model_key", keep="first")
        # The app's key-value UA cannot carry a model with brackets, ";" or "=" (docs/lifetime.md): the
        # generator leaves such models out.
        d = d[~d["ua_token"].astype(str).str.contains(r"[();=]")]
        d = d[d["release_date"].notna()].copy()
        d["release_s"] = to_seconds(d["release_date"])
        d = d[d["release_s"] <= end_s].sort_values(["release_s", "ua_token"], kind="stable")
        self.devices = d.reset_index(drop=True)
        self._models: dict[tuple[str, str], tuple[np.ndarray, np.ndarray, list[dict]]] = {}

    def browser_release(self, browser: str, version: str) -> int:
        s = self.browsers[browser]
        return int(s.release_s[np.flatnonzero(s.versions == version)[0]])

    def first_release(self, browser: str) -> float:
        """When the table's first version of `browser` came out (inf for a browser it does not list)."""
        s = self.browsers.get(browser)
        return float(s.release_s[0]) if s is not None and len(s.release_s) else float("inf")

    def browser_at(self, browser: str, t: float) -> str:
        s = self.browsers[browser]
        return str(s.versions[s.at(t)])

    def os_at(self, os: str, t: float, lo_major: int, hi_major: int) -> str:
        """The newest `os` version released by t whose major is within [lo_major, hi_major]; the oldest
        version of lo_major if none was (a device ships with its launch version)."""
        s, majors = self.os[os], self._os_majors[os]
        ok = (majors >= lo_major) & (majors <= hi_major)
        idx = np.flatnonzero(ok & (s.release_s <= t))
        if len(idx):
            return str(s.versions[idx[-1]])
        first = np.flatnonzero(ok)
        return str(s.versions[first[0]]) if len(first) else str(lo_major)

    def os_release(self, os: str, version: str) -> float:
        s = self.os.get(os)
        if s is None:
            return float("nan")
        hit = np.flatnonzero(s.versions == version)
        return float(s.release_s[hit[0]]) if len(hit) else float("nan")

    def models(self, platform: str, device_class: str) -> tuple[np.ndarray, np.ndarray, list[dict]]:
        """Models of a platform and class in release order: release seconds, model keys, table rows."""
        key = (platform, device_class)
        if key not in self._models:
            d = self.devices
            m = d[(d["platform"] == platform) & (d["device_class"] == device_class)]
            self._models[key] = (m["release_s"].to_numpy(), m["model_key"].to_numpy(), m.to_dict("records"))
        return self._models[key]
