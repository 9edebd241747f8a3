"""Log lines of one synthetic user: sessions on each device (a login and a logout line, now and then a
failed login before), each with the UA the device's browser or the LMS app would send at that time, and
the facts the truth needs (true device, versions, and whether the UA hides the model or the OS version)."""

from __future__ import annotations

import numpy as np

from .catalog import Catalog
from .params import SynthParams
from .people import Device, User
from .ua import dotted, app_ua, browser_ua

__all__ = ["LINE_COLUMNS", "user_lines", "month_starts"]

LINE_COLUMNS = [
    "time_s",
    "user",
    "event",
    "status",
    "ua",
    "app_device_id",
    "ch_model",
    "ch_platform_version",
    "device",
    "kind",
    "platform",
    "device_class",
    "channel",
    "browser",
    "browser_version",
    "os_version",
    "identified",
    "dev_censored",
    "os_censored",
]
_APP_OS = {"android": "Android", "ios": "iOS", "ipados": "iPadOS"}
_OS_TABLE = {"android": "android", "ios": "ios", "ipados": "ios"}


def month_starts(start: str, end: str) -> np.ndarray:
    """Unix seconds of the first instant of each month from `start` through the month after `end`."""
    y0, m0 = int(start[:4]), int(start[5:])
    y1, m1 = int(end[:4]), int(end[5:])
    n = (y1 - y0) * 12 + (m1 - m0) + 2
    months = np.arange(n) + (y0 * 12 + m0 - 1)
    stamps = [np.datetime64(f"{m // 12:04d}-{m % 12 + 1:02d}-01", "s") for m in months]
    return np.array(stamps).astype("int64")


def _session_times(
    rng: np.random.Generator, lo: float, hi: float, rate: float, months: np.ndarray, summer: float
) -> np.ndarray:
    """Poisson sessions at `rate` per month (less in June-August) over [lo, hi]."""
    ms, me = months[:-1], months[1:]
    a, b = np.maximum(lo, ms), np.minimum(hi, me)
    ok = b > a
    a, b, ms_ok, me_ok = a[ok], b[ok], ms[ok], me[ok]
    month_of_year = (ms_ok.astype("datetime64[s]").astype("datetime64[M]").astype(int) % 12) + 1
    factor = np.where((month_of_year >= 6) & (month_of_year <= 8), summer, 1.0)
    k = rng.poisson(rate * factor * (b - a) / (me_ok - ms_ok))
    return np.repeat(a, k) + rng.random(int(k.sum())) * np.repeat(b - a, k)


def _os_version(cat: Catalog, u: User, d: Device, t: float) -> str:
    if d.platform not in _OS_TABLE:
        return ""
    lag = u.os_lag_s * (4.0 if d.platform == "android" else 1.0)  # OEM roll-outs are slower than Apple's
    when = d.use_start_s if d.frozen else t - lag
    return cat.os_at(_OS_TABLE[d.platform], when, d.launch_os_major, d.last_os_major)


def _session(rng: np.random.Generator, p: SynthParams, cat: Catalog, u: User, d: Device, t: float) -> tuple:
    """UA and truth facts of one session (shared by its lines)."""
    os_version = _os_version(cat, u, d, t)
    tablet = d.device_class == "tablet"
    use_app = bool(d.app_id) and (d.platform == "ipados" or rng.random() < p.app_session_share)
    if use_app:
        shown = os_version if d.platform == "android" else dotted(os_version)
        ua = app_ua(d.app_id, d.token, _APP_OS[d.platform], shown)
        return (ua, d.app_id, "", "", "app", "", "", os_version, True, False, False)
    browser = d.browsers[int(rng.choice(len(d.browsers), p=np.asarray(d.browser_weights)))]
    when = d.use_start_s if d.frozen else t - u.browser_lag_s
    if browser != "safari_ios" and cat.first_release(browser) > when:
        # No version of that browser was out yet: the user ran another of the device's browsers, or the
        # platform's default, so that no line shows a browser before its release (a negative age).
        released = [b for b in d.browsers if b == "safari_ios" or cat.first_release(b) <= when]
        browser = (
            released[0]
            if released
            else ("chrome" if d.platform in ("windows", "macos") else "chrome_android")
        )
        when = max(when, cat.first_release(browser)) if browser != "safari_ios" else when
    if browser == "safari_ios":
        version = os_version  # Safari on iOS is the OS's
        frozen = int(version.split(".")[0]) >= 26 and rng.random() < p.frozen_ios_share
        ua = browser_ua(browser, version, os_version=os_version, tablet=tablet, frozen_ios=frozen)
        # The model is never named; a frozen OS version is not censored, Safari's own version gives it.
        return (ua, "", "", "", "web", browser, version, os_version, False, True, False)
    if d.platform in ("windows", "macos"):
        version = cat.browser_at(browser, when)
        ua = browser_ua(browser, version, os_version=d.platform)
        # Every desktop UA today says Windows NT 10.0 or macOS 10.15.7, whatever the OS is.
        return (ua, "", "", "", "web", browser, version, "", False, False, True)
    version = cat.browser_at(browser, when)
    chrome = int(cat.browser_at("chrome_android", when).split(".")[0])
    reduced = (
        browser == "chrome_android"
        and int(version.split(".")[0]) >= p.reduced_from_chrome
        and rng.random() < p.reduced_share
    )
    ua = browser_ua(
        browser,
        version,
        os_version=os_version,
        token=d.token,
        tablet=tablet,
        reduced=reduced,
        chrome_major=chrome,
    )
    if reduced:
        if rng.random() < p.client_hints_share:
            return (
                ua,
                "",
                d.token,
                f"{os_version}.0.0",
                "web",
                browser,
                version,
                os_version,
                True,
                False,
                False,
            )
        return (ua, "", "", "", "web", browser, version, os_version, False, True, True)
    named = browser != "firefox_android"  # Firefox for Android never names the model
    return (ua, "", "", "", "web", browser, version, os_version, named, False, False)


def user_lines(u: User, seed: int, p: SynthParams, cat: Catalog, months: np.ndarray) -> list[tuple]:
    """Every line of user `u` in LINE_COLUMNS order (unsorted)."""
    rng = np.random.default_rng([seed, u.index, 1])
    w0, w1 = u.window
    end = float(months[-1] - 1)
    rates = {"phone": p.phone_sessions, "tablet": p.tablet_sessions, "computer": p.computer_sessions}
    out: list[tuple] = []
    for d in u.devices:
        lo, hi = max(d.use_start_s, w0), min(d.use_end_s, w1)
        # iPads appear through the app only: Safari on iPadOS poses as a Mac, so its web lines would belong to
        # no device the truth could name.
        if hi <= lo or (d.platform == "ipados" and not d.app_id):
            continue
        if d.kind == "borrowed":
            times = np.array([lo])
        else:
            times = _session_times(rng, lo, hi, rates[d.kind], months, p.summer_factor)
            # A phone's first and last days are in the log when they fall in the user's window, so the
            # switch between two phones shows as the generator made it.
            forced = [
                x for x, inside in ((lo, d.use_start_s >= w0), (hi - 3600, d.use_end_s <= w1)) if inside
            ]
            times = np.sort(np.concatenate([times, np.asarray(forced, dtype=float)]))
        for t in times:
            facts = _session(rng, p, cat, u, d, float(t))
            ua, app_id, ch_model, ch_pv = facts[:4]
            common = (ua, app_id, ch_model, ch_pv, d.uid, d.kind, d.platform, d.device_class, *facts[4:])
            login = int(t)
            logout = int(min(end, t + rng.uniform(300, 5400)))
            if rng.random() < p.failed_share:
                out.append(
                    (
                        max(int(months[0]), login - int(rng.uniform(10, 300))),
                        u.uid,
                        "login_failed",
                        401,
                        *common,
                    )
                )
            out.append((login, u.uid, "login", 302, *common))
            out.append((logout, u.uid, "logout", 302, *common))
    return out
