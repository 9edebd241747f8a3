"""Synthetic users and their device histories: when each phone, tablet and computer was bought and used.

A user is present for a window of years; phones follow one another (bought new or second-hand, discarded
at an age drawn per user), with an overlap or a gap at each switch; some users add a tablet or use a
computer. Everything is drawn from the user's own generator, so user i is the same whatever the number of
users."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .catalog import Catalog
from .params import SynthParams
from .ua import WEB_BROWSERS

__all__ = ["Device", "User", "make_user", "DAY", "YEAR"]

DAY = 86400
YEAR = 365 * DAY


@dataclass
class Device:
    uid: str
    kind: str  # phone, tablet, computer, borrowed
    platform: str
    device_class: str
    use_start_s: float
    use_end_s: float
    token: str = ""
    brand: str = ""
    model: str = ""
    name: str = ""
    release_s: float = float("nan")
    launch_os_major: int = 0
    last_os_major: int = 0
    second_hand: bool = False
    app_id: str = ""
    browsers: tuple[str, ...] = ()
    browser_weights: tuple[float, ...] = ()
    frozen: bool = False  # software never updated after purchase


@dataclass
class User:
    uid: str
    index: int
    window: tuple[float, float]
    devices: list[Device] = field(default_factory=list)
    browser_lag_s: float = 0.0
    os_lag_s: float = 0.0
    ios: bool = False
    app: bool = False
    second_hand: bool = False


def _major(v) -> int:
    try:
        return int(str(v).split(".")[0])
    except ValueError:
        return 0


def _pick_model(
    rng: np.random.Generator,
    cat: Catalog,
    platform: str,
    device_class: str,
    t: float,
    age_years: tuple[float, float] | None,
    exclude: set[str],
) -> dict | None:
    """A model of the platform and class on sale at t: released in the past year (new) or in the given age
    range (second-hand); the latest ones released by t when the table has none in the range. Models in
    `exclude` (the user's own, past and present) are never picked: a model names one device of a user."""
    rel, keys, rows = cat.models(platform, device_class)
    allowed = ~np.isin(keys, list(exclude)) if exclude else np.ones(len(keys), dtype=bool)
    if not allowed.any():
        return None
    lo, hi = (t - YEAR, t) if age_years is None else (t - age_years[1] * YEAR, t - age_years[0] * YEAR)
    idx = np.flatnonzero(allowed & (rel >= lo) & (rel <= hi))
    if len(idx) == 0:
        idx = np.flatnonzero(allowed & (rel <= t))[-2:]
        if len(idx) == 0:
            idx = np.flatnonzero(allowed)[:1]
    return rows[int(idx[rng.integers(len(idx))])]


def _device_from(row: dict, uid: str, kind: str, start: float, end: float, second_hand: bool) -> Device:
    return Device(
        uid=uid,
        kind=kind,
        platform=str(row["platform"]),
        device_class=str(row["device_class"]),
        use_start_s=start,
        use_end_s=end,
        token=str(row["ua_token"]),
        brand=str(row["brand"]),
        model=str(row["model"]),
        name=str(row.get("name", "")),
        release_s=float(row["release_s"]),
        launch_os_major=_major(row.get("launch_os_version", "0")),
        last_os_major=_major(row.get("last_os_major", "0")) or 99,
        second_hand=second_hand,
    )


def _phone_browsers(rng: np.random.Generator, d: Device) -> None:
    if d.platform != "android":
        d.browsers, d.browser_weights = WEB_BROWSERS[d.platform][:1], (1.0,)
        return
    main = (
        "samsunginternet_android"
        if d.brand.lower() == "samsung" and rng.random() < 0.2
        else ("firefox_android" if rng.random() < 0.05 else "chrome_android")
    )
    # The in-app browser (WebView) opens some LMS links from other apps.
    d.browsers, d.browser_weights = (main, "webview_android"), (0.9, 0.1)


def make_user(i: int, seed: int, p: SynthParams, cat: Catalog, span: tuple[int, int]) -> User:
    rng = np.random.default_rng([seed, i])
    s0, s1 = span
    stay = rng.uniform(p.stay_years_min, p.stay_years_max) * YEAR
    w0 = rng.uniform(s0 - stay + 0.5 * YEAR, s1 - 0.5 * YEAR)
    w1 = w0 + stay
    u = User(uid=f"u{i:05d}", index=i, window=(max(w0, s0), min(w1, s1)))
    u.ios = bool(rng.random() < p.ios_share)
    u.app = bool(rng.random() < p.app_share)
    u.second_hand = bool(rng.random() < p.second_hand_share)
    eager = bool(rng.random() < p.eager_share)
    u.browser_lag_s = float(rng.lognormal(np.log(p.browser_lag_median_days), p.browser_lag_sigma)) * DAY
    u.os_lag_s = float(rng.lognormal(np.log(p.os_lag_median_days), p.os_lag_sigma)) * DAY
    discard_median = float(rng.lognormal(np.log(p.discard_age_median_years), p.discard_age_sigma))
    if eager:
        u.second_hand, discard_median = False, p.eager_discard_years

    def new_id() -> str:
        return rng.bytes(8).hex()

    # Phones: the first was bought before the window opened; each is discarded at the user's age, and the next
    # one is in use from then (after a gap if the old one broke).
    platform = "ios" if u.ios else "android"
    t = w0 - rng.uniform(0.0, 2.5) * YEAR
    first = cat.models(platform, "smartphone")[0]
    if len(first):  # nobody buys a phone before the table's first one came out
        t = max(t, float(first.min()) + rng.uniform(0, 180) * DAY)
    k = 0
    owned: set[str] = set()
    while t < w1:
        if k and rng.random() < p.switch_platform_share:
            platform = "android" if platform == "ios" else "ios"
        second = u.second_hand and rng.random() < 0.8
        ages = p.second_hand_age_years if second else (0.0, 0.15) if eager else None  # eager: a fresh launch
        row = _pick_model(rng, cat, platform, "smartphone", t, ages, owned)
        if row is None:
            break
        owned.add(str(row["model_key"]))
        t = max(t, float(row["release_s"]))  # a sparse table may offer only a model not yet out: wait for it
        age = discard_median * float(rng.lognormal(0.0, 0.1)) * YEAR
        discard = max(t + p.min_keep_years * YEAR, row["release_s"] + age)
        d = _device_from(row, f"{u.uid}-p{k}", "phone", t, discard, second)
        d.app_id = new_id() if u.app else ""
        d.frozen = bool(rng.random() < p.frozen_browser_share)
        _phone_browsers(rng, d)
        u.devices.append(d)
        r = rng.random()
        if r < p.long_gap_share:
            t = discard + rng.uniform(95, 200) * DAY
        elif r < p.long_gap_share + p.gap_share:
            t = discard + rng.uniform(1, p.gap_max_days) * DAY
        else:  # the old phone stays in use a little after the new one arrives
            t = discard
            d.use_end_s = discard + min(60.0, rng.exponential(p.overlap_mean_days)) * DAY
        k += 1

    if rng.random() < p.tablet_share:
        tab_platform = "ipados" if u.ios else "android"
        t = rng.uniform(w0, w1)
        row = _pick_model(rng, cat, tab_platform, "tablet", t, None, owned)
        if row is not None and row["release_s"] <= t:
            d = _device_from(row, f"{u.uid}-t0", "tablet", t, t + rng.uniform(3, 6) * YEAR, False)
            d.app_id = new_id() if u.app else ""
            d.browsers, d.browser_weights = WEB_BROWSERS[tab_platform][:1], (1.0,)
            u.devices.append(d)

    if rng.random() < p.computer_share:
        plat = "windows" if rng.random() < 0.7 else "macos"
        names = WEB_BROWSERS[plat]
        main = names[int(rng.choice(len(names), p=[0.6, 0.25, 0.15]))]
        other = names[(names.index(main) + 1) % len(names)]
        d = Device(
            uid=f"{u.uid}-c0",
            kind="computer",
            platform=plat,
            device_class="computer",
            use_start_s=w0,
            use_end_s=w1,
            browsers=(main, other),
            browser_weights=(0.85, 0.15),
        )
        u.devices.append(d)

    # Now and then a session on somebody else's phone (an Android phone of the past three years).
    n_borrow = rng.poisson(p.borrow_per_year * (u.window[1] - u.window[0]) / YEAR)
    for b in range(int(n_borrow)):
        t = rng.uniform(*u.window)
        row = _pick_model(rng, cat, "android", "smartphone", t, (0.0, 3.0), owned)
        if row is not None and row["release_s"] <= t:
            d = _device_from(row, f"{u.uid}-b{b}", "borrowed", t, t + 3600, False)
            d.browsers, d.browser_weights = ("chrome_android",), (1.0,)
            u.devices.append(d)
    return u
