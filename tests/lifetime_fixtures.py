"""Hand-built inputs for the lifetime tests: classified sightings in the documented schema, and small device
and browser tables (a few real models; a made-up but regular browser release calendar)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from greendcn.lifetime.sightings import CLASS_COLUMNS, classified_sightings

DAY = 86400

_DEFAULTS = {
    "user": "u1",
    "ua": "",
    "app_device_id": "",
    "ch_model": "",
    "ch_platform_version": "",
    "month": None,
    "first_s": None,
    "last_s": None,
    "hits": 1,
    "is_app": False,
    "platform": "android",
    "device_class": "smartphone",
    "browser": "",
    "browser_version": "",
    "browser_release": None,
    "os": "",
    "os_version": "",
    "os_release_lo": None,
    "os_release_hi": None,
    "device_key": "",
    "device_name": "",
    "device_release_lo": None,
    "device_release_hi": None,
    "censor_reason": "",
}
_DATES = ["browser_release", "os_release_lo", "os_release_hi", "device_release_lo", "device_release_hi"]


def ts(date: str) -> int:
    """Unix seconds of an ISO date or datetime (UTC)."""
    return int(pd.Timestamp(date, tz="UTC").timestamp())


def sighting(**kw) -> dict:
    """One classified sighting; `at` (a date) sets first_s, last_s and month together."""
    row = dict(_DEFAULTS)
    at = kw.pop("at", None)
    row.update(kw)
    if at is not None:
        t = ts(at)
        row["first_s"] = row["first_s"] if kw.get("first_s") is not None else t
        row["last_s"] = t
        row["month"] = pd.Timestamp(t, unit="s").strftime("%Y-%m")
    if not row["ua"]:
        row["ua"] = f"ua-{row['device_key']}-{row['browser']}-{row['browser_version']}-{row['os_version']}"
    return row


def classify_rows(rows: list[dict]) -> pd.DataFrame:
    """Classified sightings built by the real join from hand-written rows."""
    frame = pd.DataFrame.from_records(rows)
    for c in _DATES:
        frame[c] = pd.to_datetime(frame[c]).astype("datetime64[s]")
    sightings = frame[
        [
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
    ].astype({"first_s": "int64", "last_s": "int64", "hits": "int64"})
    classes = frame[CLASS_COLUMNS]
    return classified_sightings(sightings, classifier=lambda f: classes.loc[f.index])


def phone(user: str, key: str, release: str, at: str, **kw) -> dict:
    """A sighting of a dated phone model."""
    return sighting(
        user=user,
        device_key=key,
        device_name=key,
        device_release_lo=release,
        device_release_hi=release,
        at=at,
        **kw,
    )


def small_devices() -> pd.DataFrame:
    """A few phones and tablets with their release dates (public launch dates)."""
    rows = [
        ("android", "Samsung", "SM-G930F", "Galaxy S7", "smartphone", "2016-03-11", "6", 8),
        ("android", "Samsung", "SM-G950F", "Galaxy S8", "smartphone", "2017-04-21", "7", 9),
        ("android", "Samsung", "SM-G960F", "Galaxy S9", "smartphone", "2018-03-16", "8", 10),
        ("android", "Samsung", "SM-G973F", "Galaxy S10", "smartphone", "2019-03-08", "9", 12),
        ("android", "Samsung", "SM-G981B", "Galaxy S20 5G", "smartphone", "2020-03-06", "10", 13),
        ("android", "Samsung", "SM-G991B", "Galaxy S21 5G", "smartphone", "2021-01-29", "11", 15),
        ("android", "Samsung", "SM-S901B", "Galaxy S22", "smartphone", "2022-02-25", "12", 16),
        ("android", "Samsung", "SM-S911B", "Galaxy S23", "smartphone", "2023-02-17", "13", 17),
        ("android", "Samsung", "SM-S921B", "Galaxy S24", "smartphone", "2024-01-31", "14", 21),
        ("android", "Google", "Pixel 2", "Pixel 2", "smartphone", "2017-10-19", "8", 11),
        ("android", "Google", "Pixel 4", "Pixel 4", "smartphone", "2019-10-24", "10", 13),
        ("android", "Google", "Pixel 6", "Pixel 6", "smartphone", "2021-10-28", "12", 15),
        ("android", "Google", "Pixel 8", "Pixel 8", "smartphone", "2023-10-12", "14", 21),
        ("android", "Samsung", "SM-T870", "Galaxy Tab S7", "tablet", "2020-08-21", "10", 13),
        ("ios", "Apple", "iPhone8,1", "iPhone 6s", "smartphone", "2015-09-25", "9.0", 15),
        ("ios", "Apple", "iPhone10,1", "iPhone 8", "smartphone", "2017-09-22", "11.0", 16),
        ("ios", "Apple", "iPhone11,2", "iPhone XS", "smartphone", "2018-09-21", "12.0", 17),
        ("ios", "Apple", "iPhone12,1", "iPhone 11", "smartphone", "2019-09-20", "13.0", 26),
        ("ios", "Apple", "iPhone13,2", "iPhone 12", "smartphone", "2020-10-23", "14.1", 26),
        ("ios", "Apple", "iPhone14,5", "iPhone 13", "smartphone", "2021-09-24", "15.0", 26),
        ("ios", "Apple", "iPhone15,4", "iPhone 15", "smartphone", "2023-09-22", "17.0", 26),
        ("ipados", "Apple", "iPad12,1", "iPad (9th generation)", "tablet", "2021-09-24", "15.0", 26),
    ]
    cols = [
        "platform",
        "brand",
        "ua_token",
        "name",
        "device_class",
        "release_date",
        "launch_os_version",
        "last_os_major",
    ]
    frame = pd.DataFrame(rows, columns=cols)
    frame["model"] = frame["ua_token"]
    frame["source"] = "test fixture"
    return frame


def small_browsers(start: str = "2014-01-01", end: str = "2026-12-31") -> pd.DataFrame:
    """A regular release calendar (made up for tests): Chromium majors every 6 weeks, Firefox every 4,
    Safari majors each September with minors every two months."""
    t0, t1 = pd.Timestamp(start), pd.Timestamp(end)
    rows = []
    for browser, first, step_days in (
        ("chrome_android", 33, 42),
        ("webview_android", 33, 42),
        ("chrome", 33, 42),
        ("edge", 79, 42),
        ("firefox", 27, 28),
        ("firefox_android", 27, 28),
    ):
        t, v = t0, first
        while t <= t1:
            rows.append((browser, str(v), t.strftime("%Y-%m-%d"), "retired"))
            t, v = t + pd.Timedelta(days=step_days), v + 1
    for year in range(t0.year, t1.year + 1):
        major = year - 2006 if year < 2025 else year + 1 - 2000  # iOS 26 follows iOS 18
        for minor in range(6):
            when = pd.Timestamp(f"{year}-09-15") + pd.Timedelta(days=61 * minor)
            key = str(major) if minor == 0 else f"{major}.{minor}"
            for b in ("safari_ios", "safari"):
                rows.append((b, key, when.strftime("%Y-%m-%d"), "retired"))
    for i, year in enumerate(range(2016, t1.year + 1)):
        rows.append(("samsunginternet_android", f"{4 + 2 * i}.0", f"{year}-03-01", "retired"))
        rows.append(("samsunginternet_android", f"{5 + 2 * i}.0", f"{year}-09-01", "retired"))
    frame = pd.DataFrame(rows, columns=["browser", "version", "release_date", "status"])
    frame["source"] = "test calendar"
    return frame


def small_os_releases() -> pd.DataFrame:
    """Android majors (public release dates) and iOS from the test calendar."""
    android = [
        ("6", "2015-10-05"),
        ("7", "2016-08-22"),
        ("8", "2017-08-21"),
        ("9", "2018-08-06"),
        ("10", "2019-09-03"),
        ("11", "2020-09-08"),
        ("12", "2021-10-04"),
        ("13", "2022-08-15"),
        ("14", "2023-10-04"),
        ("15", "2024-10-15"),
        ("16", "2025-06-10"),
    ]
    b = small_browsers()
    ios = b[b["browser"] == "safari_ios"]
    frame = pd.concat(
        [
            pd.DataFrame(
                {"os": "android", "version": [v for v, _ in android], "release_date": [d for _, d in android]}
            ),
            pd.DataFrame({"os": "ios", "version": ios["version"], "release_date": ios["release_date"]}),
        ],
        ignore_index=True,
    )
    return frame


def percentile(values, q) -> float:
    return float(np.percentile(np.asarray(values, dtype=float), q))
