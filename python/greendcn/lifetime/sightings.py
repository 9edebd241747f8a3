"""Scanner sightings joined with their UA classification, and the device each sighting belongs to.

Every analysis (oldness, upgrades, carbon) starts from `classified_sightings`; the device rules live here so
that they are the same everywhere (docs/lifetime.md, "Analyses" and "Our choices")."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

__all__ = [
    "SIGHTING_COLUMNS",
    "CLASS_COLUMNS",
    "DEVICE_STATES",
    "classified_sightings",
    "day_number",
]

SIGHTING_COLUMNS = [
    "user",
    "ua",
    "app_device_id",
    "ch_model",
    "ch_platform_version",
    "month",
    "first_s",
    "last_s",
    "hits",
]
CLASS_COLUMNS = [
    "is_app",
    "platform",
    "device_class",
    "browser",
    "browser_version",
    "browser_release",
    "os",
    "os_version",
    "os_release_lo",
    "os_release_hi",
    "device_key",
    "device_name",
    "device_release_lo",
    "device_release_hi",
    "censor_reason",
]
# exact: a dated model; censored: no model, but the UA bounds the release date; undated: a model (or an app
# installation) the tables cannot date; none: nothing to tell the device apart (desktop browsers, mostly).
DEVICE_STATES = ("exact", "censored", "undated", "none")

_APP_ID = r"device_id=([^;)]+)"


def day_number(values: pd.Series | np.ndarray) -> np.ndarray:
    """Days since 1970-01-01 (UTC) of datetimes or of Unix seconds; NaT becomes NaN."""
    s = pd.Series(values)
    if pd.api.types.is_datetime64_any_dtype(s):
        out = s.astype("datetime64[s]").astype("int64").to_numpy().astype(float)
        out[s.isna().to_numpy()] = np.nan
        return np.floor(out / 86400.0)
    return np.floor(s.to_numpy(dtype=float) / 86400.0)


def _app_ids(frame: pd.DataFrame) -> pd.Series:
    """The app installation id: the scanner's column, else the `device_id=` field of the app's UA."""
    ids = frame["app_device_id"].astype(str)
    missing = frame["is_app"].astype(bool) & (ids == "")
    if missing.any():
        found = frame.loc[missing, "ua"].str.extract(_APP_ID, expand=False).fillna("").str.strip()
        ids = ids.copy()
        ids[missing] = found
    return ids


def _devices(frame: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """Device id and state of each sighting (the user is a separate column).

    A known model names the device ("m:<brand model>"): app and web sightings of one phone share it, and a
    reinstalled app (a new installation id on the same phone) stays one device. An app installation without
    a model is its own device ("a:<id>"). A UA that bounds the release date but names no model is one
    censored device per user, platform and class ("c:<platform>/<class>"): we do not guess which of the
    user's devices it was."""
    key = frame["device_key"].astype(str)
    app_id = _app_ids(frame)
    has_lo = frame["device_release_lo"].notna()
    dev = pd.Series("", index=frame.index, dtype=object)
    state = pd.Series("none", index=frame.index, dtype=object)

    named = key != ""
    dev[named] = "m:" + key[named]
    state[named & has_lo] = "exact"
    state[named & ~has_lo] = "undated"

    app_only = ~named & (app_id != "")
    dev[app_only] = "a:" + app_id[app_only]
    state[app_only] = "undated"

    cens = ~named & ~app_only & has_lo
    dev[cens] = (
        "c:" + frame.loc[cens, "platform"].astype(str) + "/" + frame.loc[cens, "device_class"].astype(str)
    )
    state[cens] = "censored"
    return dev, state


def classified_sightings(
    sightings: pd.DataFrame, classifier: Callable[[pd.DataFrame], pd.DataFrame] | None = None
) -> pd.DataFrame:
    """The scanner's sightings with classify()'s columns beside them, plus `device_id`, `device_state`,
    `access_day` (UTC day number of the sighting's last access in its month) and `year`.

    `classifier` defaults to `greendcn.lifetime.uaclass.classify`; tests pass a stand-in frame builder."""
    missing = [c for c in SIGHTING_COLUMNS if c not in sightings.columns]
    if missing:
        raise ValueError(f"sightings lack columns {missing}")
    if classifier is None:
        from .uaclass import classify as classifier
    base = sightings.reset_index(drop=True)
    cls = classifier(base[["ua", "app_device_id", "ch_model", "ch_platform_version"]])
    lacking = [c for c in CLASS_COLUMNS if c not in cls.columns]
    if lacking:
        raise ValueError(f"classification lacks columns {lacking}")
    out = pd.concat([base, cls[CLASS_COLUMNS].reset_index(drop=True)], axis=1)
    out["device_id"], out["device_state"] = _devices(out)
    out["access_day"] = day_number(out["last_s"]).astype("int64")
    out["year"] = out["month"].str.slice(0, 4).astype(int)
    return out
