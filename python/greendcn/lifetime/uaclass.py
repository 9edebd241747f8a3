"""UA classification: browser, OS and device of each distinct (UA, app device id, client hints), with release
dates from the shipped tables, and release intervals where a reduced or frozen UA hides the truth.

Contract in docs/lifetime.md ("UA classification -> analyses"); rules in "UA classification and censoring"."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from . import tables
from .appua import DEFAULT_APP_NAME, parse_app_ua
from .lookup import NAT, Lookups, token_key, vtuple
from .uaparse import Parsed, parse

__all__ = ["CENSOR_REASONS", "OUTPUT_COLUMNS", "classify", "lookups"]

INPUT_COLUMNS = ["ua", "app_device_id", "ch_model", "ch_platform_version"]
OUTPUT_COLUMNS = [
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
    "app_device_id",
]
CENSOR_REASONS = (
    "",
    "reduced_android",
    "iphone_no_model",
    "ipad_no_model",
    "frozen_ios",
    "frozen_windows",
    "frozen_macos",
)
_DATE_COLUMNS = [
    "browser_release",
    "os_release_lo",
    "os_release_hi",
    "device_release_lo",
    "device_release_hi",
]

# ua-parser 1.0.2 family -> MDN browser id (per platform where it differs).
_FAMILY = {
    "Chrome Mobile": "chrome_android",
    "Chrome Mobile WebView": "webview_android",
    "Chrome Mobile iOS": "chrome_ios",
    "Mobile Safari": "safari_ios",
    "Mobile Safari UI/WKWebView": "webview_ios",
    "Safari": "safari",
    "Firefox Mobile": "firefox_android",
    "Firefox iOS": "firefox_ios",
    "Edge": "edge",
    "Opera Mobile": "opera_android",
    "Samsung Internet": "samsunginternet_android",
    "IE": "ie",
    "Android": "webview_android",
    "Chrome": "chrome",
    "Firefox": "firefox",
    "Opera": "opera",
}
_ON_ANDROID = {"chrome": "chrome_android", "firefox": "firefox_android", "opera": "opera_android"}
_OS = {
    "Android": "android",
    "iOS": "ios",
    "Mac OS X": "macos",
    "Windows": "windows",
    "Chrome OS": "chromeos",
    "Linux": "linux",
    "Ubuntu": "linux",
    "Fedora": "linux",
    "Debian": "linux",
}
_CLASS = {
    "ios": "smartphone",
    "ipados": "tablet",
    "macos": "computer",
    "windows": "computer",
    "chromeos": "computer",
    "linux": "computer",
}
# The OS versions Safari 26 and later freeze iOS/iPadOS at in the UA.
_FROZEN_IOS = {(18, 6), (18, 7)}
_FIRST_FROZEN_SAFARI = 26
# A model token after "Android x;" (and an optional locale), up to ")" or " Build/".
_ANDROID_MODEL = re.compile(
    r"Android [\d.]+;\s*(?:[a-z]{2}[-_][a-zA-Z]{2};\s*)?(?:SAMSUNG\s+)?([^;)]+?)\s*(?:Build/[^;)]*)?(?:;\s*wv)?\)"
)
_GENERIC_MODELS = {"", "K", "Smartphone", "Tablet", "Mobile"}

_SHIPPED_LOOKUPS: list[Lookups] = []


def lookups(
    browsers: pd.DataFrame | None = None,
    os_table: pd.DataFrame | None = None,
    devices: pd.DataFrame | None = None,
) -> Lookups:
    """Indexes over the given tables; those over the shipped tables are built once per process."""
    if browsers is None and os_table is None and devices is None:
        if not _SHIPPED_LOOKUPS:
            _SHIPPED_LOOKUPS.append(
                Lookups(tables.browser_releases(), tables.os_releases(), tables.devices())
            )
        return _SHIPPED_LOOKUPS[0]
    return Lookups(
        tables.browser_releases() if browsers is None else browsers,
        tables.os_releases() if os_table is None else os_table,
        tables.devices() if devices is None else devices,
    )


def _vstr(v: tuple[int, ...]) -> str:
    return ".".join(str(p) for p in v)


def _base_record() -> dict:
    return {
        "is_app": False,
        "platform": "other",
        "device_class": "unknown",
        "browser": "",
        "browser_version": "",
        "browser_release": NAT,
        "os": "",
        "os_version": "",
        "os_release_lo": NAT,
        "os_release_hi": NAT,
        "device_key": "",
        "device_name": "",
        "device_release_lo": NAT,
        "device_release_hi": NAT,
        "censor_reason": "",
        "app_device_id": "",
    }


def _set_device(rec: dict, row: dict) -> None:
    rec["device_key"] = f"{row['brand']} {row['model']}"
    rec["device_name"] = str(row["name"])
    rec["device_class"] = str(row["device_class"]) or rec["device_class"]
    if pd.notna(row["release_date"]):
        rec["device_release_lo"] = rec["device_release_hi"] = np.datetime64(row["release_date"], "s")


def _unknown_device_key(brand: str, model: str) -> str:
    """ "<brand> <model>" for a model the table lacks; Samsung codes lose their variant suffix."""
    if model in _GENERIC_MODELS:
        return ""
    key = token_key(model)
    model = key if key.startswith("SM-") else model
    brand = "" if brand.startswith("Generic") else brand
    return f"{brand} {model}".strip()


def _set_os(rec: dict, L: Lookups, os_name: str, version: tuple[int, ...]) -> None:
    rec["os"], rec["os_version"] = os_name, _vstr(version)
    rec["os_release_lo"] = rec["os_release_hi"] = L.os_release(os_name, version)


def _classify_app(rec: dict, app, L: Lookups) -> None:
    rec["is_app"] = True
    rec["app_device_id"] = app.device_id
    os_name = app.os.strip().lower().replace(" ", "")
    model = app.model
    if os_name in ("ios", "iphoneos", "ipados"):
        os_name = "ipados" if model.lower().startswith("ipad") or os_name == "ipados" else "ios"
    elif os_name != "android":
        os_name = os_name or "other"
    rec["platform"] = os_name if os_name in ("android", "ios", "ipados") else "other"
    rec["device_class"] = _CLASS.get(
        rec["platform"], "smartphone" if rec["platform"] == "android" else "unknown"
    )
    if app.os_version:
        _set_os(rec, L, os_name, vtuple(app.os_version))
    else:
        rec["os"] = os_name
    row = L.device(model)
    if row is not None:
        _set_device(rec, row)
    elif model:
        brand = (
            "Apple"
            if model.lower().startswith(("iphone", "ipad"))
            else ("Samsung" if token_key(model).startswith("SM-") else "")
        )
        rec["device_key"] = _unknown_device_key(brand, model)


def _browser(rec: dict, p: Parsed, L: Lookups, platform: str) -> None:
    b = _FAMILY.get(p.family, "")
    if platform == "android":
        b = _ON_ANDROID.get(b, b)
    if p.family == "Edge Mobile":
        b = {"android": "edge_android", "ios": "edge_ios", "ipados": "edge_ios"}.get(platform, "")
    version = p.version
    if b == "webview_android" and p.family == "Android":
        version = p.os_version  # the pre-Chromium Android browser is versioned by Android
    elif b == "webview_ios":
        version = p.os_version  # WKWebView is the OS's WebKit
    if not b:
        return
    rec["browser"] = b
    key, date = L.browser(b, version)
    rec["browser_version"] = key or _vstr(version[:2])
    rec["browser_release"] = date


def _censor_ios(rec: dict, p: Parsed, L: Lookups, platform: str) -> None:
    """iPhone and iPad web UAs name no model; Safari 26+ also freezes the OS at 18.6/18.7."""
    os_v = p.os_version
    safari_major = p.version[0] if rec["browser"] == "safari_ios" and p.version else None
    # A Safari older than 26 on 18.6/18.7 is a real iOS 18.6/18.7; Safari 26+ or another browser may not be.
    if os_v[:2] in _FROZEN_IOS and (safari_major is None or safari_major >= _FIRST_FROZEN_SAFARI):
        rec["censor_reason"] = "frozen_ios"
        if safari_major is not None:
            # Safari on iOS is part of the OS and shares its version: Version/26.1 runs on iOS 26.1.
            _set_os(rec, L, platform, p.version[:2])
            lo, hi = L.apple_bounds(platform, p.version[0], exact=True)
        else:
            # Another browser: the OS is 18.6/18.7 or any later release.
            rec["os"], rec["os_version"] = platform, _vstr(os_v)
            rec["os_release_lo"], rec["os_release_hi"] = L.os_release(platform, os_v), NAT
            lo, hi = L.apple_bounds(platform, os_v[0], exact=False)
        if rec["browser"] == "webview_ios":
            rec["browser_version"], rec["browser_release"] = "", NAT  # its version is the hidden OS's
    else:
        rec["censor_reason"] = "iphone_no_model" if platform == "ios" else "ipad_no_model"
        if os_v:
            lo, hi = L.apple_bounds(platform, os_v[0], exact=True)
        else:
            lo, hi = L.apple_bounds(platform, 0, exact=False)
    rec["device_release_lo"], rec["device_release_hi"] = lo, hi


def _android(rec: dict, ua: str, p: Parsed, L: Lookups, ch_model: str, ch_pv: str) -> None:
    reduced = p.os_version == (10,) and (p.model == "K" or "; K)" in ua)
    m = _ANDROID_MODEL.search(ua)
    token = "" if reduced else (m.group(1) if m else "")
    row = None
    for t in (ch_model, token, "" if reduced else p.model):
        row = L.device(t) if t else None
        if row is not None:
            break
    if row is not None:
        _set_device(rec, row)
    elif ch_model:
        rec["device_key"] = _unknown_device_key(
            "Samsung" if token_key(ch_model).startswith("SM-") else "", ch_model
        )
    elif not reduced:
        rec["device_key"] = _unknown_device_key(p.brand, p.model)
    if ch_pv:
        _set_os(rec, L, "android", vtuple(ch_pv))
    elif not reduced:
        _set_os(rec, L, "android", p.os_version)
    if not reduced:
        return
    # Chrome's reduced UA ("Android 10; K"): no model, no real version. What client hints recover is exact;
    # the rest is bounded only by Android's first release below and the access date above.
    if not ch_pv:
        rec["os"] = "android"
        rec["os_release_lo"], rec["os_release_hi"] = L.first_release("android"), NAT
    if row is None and not rec["device_key"]:
        rec["device_release_lo"], rec["device_release_hi"] = L.first_release("android"), NAT
    if not (ch_pv and row is not None):
        rec["censor_reason"] = "reduced_android"


def _desktop(rec: dict, p: Parsed, L: Lookups, platform: str, ch_pv: str) -> None:
    v = p.os_version
    if platform == "windows" and v == (10,):
        # Windows 10 and 11 both send "Windows NT 10.0"; Sec-CH-UA-Platform-Version 13+ is Windows 11.
        if ch_pv and vtuple(ch_pv):
            _set_os(
                rec, L, "windows", (11,) if vtuple(ch_pv)[0] >= 13 else (10,) if vtuple(ch_pv)[0] >= 1 else v
            )
        else:
            rec["os"], rec["os_version"] = "windows", "10"
            rec["os_release_lo"], rec["os_release_hi"] = L.os_release("windows", (10,)), NAT
            rec["censor_reason"] = "frozen_windows"
    elif platform == "macos" and v[:2] >= (10, 15):
        # Safari and Chrome stopped at "10_15_7", Firefox at "10.15", whatever macOS runs.
        if ch_pv and vtuple(ch_pv):
            _set_os(rec, L, "macos", vtuple(ch_pv))
        else:
            rec["os"], rec["os_version"] = "macos", _vstr(v)
            rec["os_release_lo"], rec["os_release_hi"] = L.os_release("macos", (10, 15)), NAT
            rec["censor_reason"] = "frozen_macos"
    elif v:
        _set_os(rec, L, platform, v)
    else:
        rec["os"] = platform


def classify_one(
    ua: str,
    app_device_id: str = "",
    ch_model: str = "",
    ch_platform_version: str = "",
    *,
    L: Lookups | None = None,
    app_name: str = DEFAULT_APP_NAME,
    resolver=None,
    namer=None,
    parser=None,
) -> dict:
    """The output record for one (UA, app device id, client hints) combination. `parser` (a callable
    UA -> Parsed) replaces ua-parser with `resolver`, e.g. to share one parse among combinations."""
    L = L or lookups()
    rec = _base_record()
    ch_model, ch_pv = ch_model.strip().strip('"'), ch_platform_version.strip().strip('"')
    app = parse_app_ua(ua, app_name)
    if app is not None:
        _classify_app(rec, app, L)
    else:
        p = parser(ua) if parser is not None else parse(ua, resolver)
        platform = _OS.get(p.os_family, "other")
        if platform == "ios" and (p.device_family == "iPad" or "iPad" in ua):
            platform = "ipados"
        rec["platform"] = platform
        if platform == "android":
            rec["device_class"] = "smartphone" if "Mobile" in ua else "tablet"
        else:
            rec["device_class"] = _CLASS.get(platform, "unknown")
        _browser(rec, p, L, platform)
        if platform == "android":
            _android(rec, ua, p, L, ch_model, ch_pv)
        elif platform in ("ios", "ipados"):
            if p.os_version:
                _set_os(rec, L, platform, p.os_version)
            _censor_ios(rec, p, L, platform)
        else:
            _desktop(rec, p, L, platform, ch_pv)
        if namer is not None and not rec["device_name"] and rec["device_key"]:
            rec["device_name"] = namer.name(ua)
    if app_device_id:
        rec["app_device_id"] = app_device_id
    return rec


def classify(
    frame: pd.DataFrame,
    *,
    app_name: str = DEFAULT_APP_NAME,
    browsers: pd.DataFrame | None = None,
    os_table: pd.DataFrame | None = None,
    devices: pd.DataFrame | None = None,
    resolver=None,
    namer=None,
) -> pd.DataFrame:
    """One output row per input row (same index). Each distinct (ua, app_device_id, ch_model,
    ch_platform_version) is classified once, and each distinct UA string parsed once.

    `frame` needs `ua`; the other input columns default to "". `app_name` is the app UA's name pattern;
    `browsers`/`os_table`/`devices` replace the shipped tables; `namer` (a devicedetect.DeviceNamer) names
    models the device table lacks."""
    if "ua" not in frame.columns:
        from ..core.errors import InputError

        raise InputError("classify: the frame has no 'ua' column", hint="give the scanner's sightings frame")
    L = lookups(browsers, os_table, devices)
    keys = pd.DataFrame(
        {c: (frame[c].fillna("").astype(str) if c in frame.columns else "") for c in INPUT_COLUMNS},
        index=frame.index,
    )
    distinct = keys.drop_duplicates(ignore_index=True)
    parsed_cache: dict[str, Parsed] = {}

    def parse_once(ua: str) -> Parsed:
        if ua not in parsed_cache:
            parsed_cache[ua] = parse(ua, resolver)
        return parsed_cache[ua]

    records = [
        classify_one(ua, app_id, chm, chpv, L=L, app_name=app_name, namer=namer, parser=parse_once)
        for ua, app_id, chm, chpv in distinct.itertuples(index=False, name=None)
    ]
    if namer is not None:
        namer.save()
    out = pd.DataFrame.from_records(records, columns=OUTPUT_COLUMNS)
    for c in _DATE_COLUMNS:
        out[c] = out[c].astype("datetime64[s]")
    out["is_app"] = out["is_app"].astype(bool)
    idx = keys.merge(distinct.reset_index(names="_row"), on=INPUT_COLUMNS, how="left")["_row"].to_numpy()
    return out.iloc[idx].set_axis(frame.index)
