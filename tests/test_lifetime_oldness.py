"""Oldness (seed 001 lines 1599-1606 and 1627): latest use per key and month, exact browser ages, device and OS
ages as intervals when censored, and percentile bounds that enclose the true percentiles."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from lifetime_fixtures import classify_rows, phone, sighting

from greendcn.lifetime.oldness import (
    PERCENTILES,
    browser_oldness,
    device_oldness,
    for_month,
    oldness,
    os_oldness,
    summarize,
)


def _browser(user, browser, version, release, at, platform="android"):
    return sighting(
        user=user, browser=browser, browser_version=version, browser_release=release, at=at, platform=platform
    )


def test_browser_oldness_is_taken_at_the_latest_use_in_each_month():
    rows = [
        _browser("u1", "chrome_android", "100", "2022-03-29", "2022-10-02"),
        _browser("u1", "chrome_android", "106", "2022-09-27", "2022-10-20"),  # updated later in the month
        _browser("u1", "chrome_android", "100", "2022-03-29", "2022-11-03"),  # an older copy seen in November
        _browser("u1", "samsunginternet_android", "18.0", "2022-08-08", "2022-10-05"),
        _browser("u2", "chrome_android", "90", "2021-04-13", "2022-10-07"),
    ]
    b = browser_oldness(classify_rows(rows)).set_index(["user", "browser", "month"])
    assert len(b) == 4
    oct_u1 = b.loc[("u1", "chrome_android", "2022-10")]
    assert oct_u1["browser_version"] == "106" and oct_u1["oldness_days"] == 23
    assert (
        b.loc[("u1", "chrome_android", "2022-11"), "oldness_days"]
        == (pd.Timestamp("2022-11-03") - pd.Timestamp("2022-03-29")).days
    )
    assert b.loc[("u2", "chrome_android", "2022-10"), "oldness_days"] == 542
    assert b.loc[("u1", "samsunginternet_android", "2022-10"), "oldness_days"] == 58


def test_apps_and_undated_browsers_have_no_browser_oldness():
    rows = [
        sighting(user="u1", is_app=True, at="2022-10-01"),
        _browser("u1", "chrome_android", "999", None, "2022-10-02"),
    ]
    assert browser_oldness(classify_rows(rows)).empty


def test_device_rows_exact_and_censored():
    rows = [
        phone("u1", "Samsung SM-S911B", "2023-02-17", "2023-10-10"),
        phone("u1", "Samsung SM-S911B", "2023-02-17", "2023-10-25", is_app=True, app_device_id="x1"),
        # The same user on a reduced UA: release known only to lie between the bounds.
        sighting(
            user="u1",
            device_release_lo="2019-01-01",
            device_release_hi="2023-10-01",
            censor_reason="reduced_android",
            at="2023-10-12",
        ),
    ]
    d = device_oldness(classify_rows(rows)).set_index("device_id")
    assert len(d) == 2
    exact = d.loc["m:Samsung SM-S911B"]
    assert not exact["censored"] and exact["oldness_lo_days"] == exact["oldness_hi_days"] == 250
    cens = d.loc["c:android/smartphone"]
    assert cens["censored"] and cens["censor_reason"] == "reduced_android"
    assert cens["oldness_lo_days"] == 11 and cens["oldness_hi_days"] == 1745


def test_os_oldness_is_an_interval_when_the_ua_is_frozen():
    rows = [
        sighting(
            user="u1",
            os="iOS",
            os_version="17.1",
            os_release_lo="2023-10-25",
            os_release_hi="2023-10-25",
            platform="ios",
            at="2023-11-01",
        ),
        sighting(
            user="u2",
            os="iOS",
            os_version="18.6",
            os_release_lo="2025-09-15",
            os_release_hi="2025-11-03",
            censor_reason="frozen_ios",
            platform="ios",
            at="2025-11-20",
        ),
    ]
    o = os_oldness(classify_rows(rows)).set_index("user")
    assert not o.loc["u1", "censored"] and o.loc["u1", "oldness_lo_days"] == 7
    assert o.loc["u2", "censored"]
    assert (o.loc["u2", "oldness_lo_days"], o.loc["u2", "oldness_hi_days"]) == (17, 66)


def _interval_rows(n: int, censored_share: float, seed: int = 3) -> tuple[pd.DataFrame, np.ndarray]:
    """Rows with a true oldness inside each row's interval; exact rows have equal bounds."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2500, n)
    cens = rng.random(n) < censored_share
    lo = np.where(cens, truth - rng.integers(0, 900, n), truth)
    hi = np.where(cens, truth + rng.integers(0, 900, n), truth)
    frame = pd.DataFrame(
        {
            "platform": "android",
            "month": "2023-10",
            "oldness_lo_days": lo,
            "oldness_hi_days": hi,
            "censored": cens,
        }
    )
    return frame, truth


def test_percentile_bounds_enclose_the_true_percentiles_and_count_censored_rows():
    rows, truth = _interval_rows(2000, 0.3)
    s = summarize(rows).iloc[0]
    assert s["rows"] == 2000 and s["censored_rows"] == rows["censored"].sum()
    assert s["censored_share"] == pytest.approx(rows["censored"].mean())
    for q in PERCENTILES:
        p = np.percentile(truth, q)
        lo, hi = s[f"p{q:g}_lo_days"], s[f"p{q:g}_hi_days"]
        assert lo <= p <= hi
        assert lo < hi  # with censored rows, a pair of bounds, not a point
    under = np.mean(truth < 1461)
    assert s["within_share_lo"] <= under <= s["within_share_hi"]


def test_without_censoring_the_bounds_meet_at_the_exact_percentiles():
    rows, truth = _interval_rows(500, 0.0)
    s = summarize(rows).iloc[0]
    for q in PERCENTILES:
        assert s[f"p{q:g}_lo_days"] == s[f"p{q:g}_hi_days"] == pytest.approx(np.percentile(truth, q))


def test_browser_summary_is_exact_per_platform_and_month():
    rng = np.random.default_rng(5)
    ages = rng.integers(0, 2000, 300)
    rows = pd.DataFrame(
        {
            "platform": np.where(np.arange(300) < 200, "android", "ios"),
            "month": np.where(np.arange(300) % 2 == 0, "2021-10", "2022-10"),
            "oldness_days": ages,
        }
    )
    s = summarize(rows).set_index(["platform", "month"])
    assert len(s) == 4
    sel = (rows["platform"] == "ios") & (rows["month"] == "2022-10")
    assert s.loc[("ios", "2022-10"), "p90_days"] == pytest.approx(np.percentile(ages[sel], 90))
    assert s.loc[("ios", "2022-10"), "within_share"] == pytest.approx(np.mean(ages[sel] < 1461))
    assert "p90_lo_days" not in s.columns


def test_for_month_keeps_one_month_per_year():
    rows = pd.DataFrame(
        {
            "platform": "ios",
            "month": ["2020-09", "2020-10", "2021-10", "2021-11"],
            "oldness_days": [1, 2, 3, 4],
        }
    )
    s = summarize(rows)
    assert list(for_month(s, 10)["year"]) == [2020, 2021]
    assert list(for_month(s, 11)["month"]) == ["2021-11"]


def test_oldness_bundles_the_three_kinds():
    rows = [
        _browser("u1", "chrome_android", "100", "2022-03-29", "2022-10-02"),
        phone("u1", "Google Pixel 6", "2021-10-28", "2022-10-02"),
        sighting(
            user="u1",
            os="Android",
            os_version="13",
            os_release_lo="2022-08-15",
            os_release_hi="2022-08-15",
            at="2022-10-03",
        ),
    ]
    res = oldness(classify_rows(rows))
    # one platform row and one all-platforms row per table
    assert len(res.browser) == len(res.device) == len(res.os) == 2
    assert list(res.os["platform"]) == ["android", "all"]
    assert res.device.iloc[0]["p50_lo_days"] == 339
    assert res.os.iloc[0]["censored_rows"] == 0


def test_an_open_upper_release_bound_is_the_access_date():
    rows = [
        # Reduced Android: released at some point after Android's first release, before the access.
        sighting(
            user="u1",
            device_release_lo="2008-09-23",
            device_release_hi=None,
            censor_reason="reduced_android",
            os="android",
            os_version="10",
            os_release_lo="2008-09-23",
            os_release_hi=None,
            at="2024-10-01",
        ),
        # A bound that ends after the access (a model launched days later): never younger than 0 days.
        sighting(
            user="u2",
            platform="ios",
            device_release_lo="2019-09-20",
            device_release_hi="2024-10-05",
            censor_reason="iphone_no_model",
            at="2024-10-01",
        ),
    ]
    cs = classify_rows(rows)
    d = device_oldness(cs).set_index("user")
    assert d.loc["u1", "censored"] and d.loc["u1", "oldness_lo_days"] == 0
    assert d.loc["u1", "oldness_hi_days"] == (pd.Timestamp("2024-10-01") - pd.Timestamp("2008-09-23")).days
    assert d.loc["u2", "oldness_lo_days"] == 0 and d.loc["u2", "oldness_hi_days"] == 1838
    o = os_oldness(cs)
    assert len(o) == 1 and o.iloc[0]["censored"] and o.iloc[0]["oldness_lo_days"] == 0


def test_age_figure_draws_exact_lines_and_censored_bands(tmp_path):
    from greendcn.lifetime.figures import age_by_year

    rows, _ = _interval_rows(400, 0.3)
    rows = pd.concat(
        [rows.assign(month=f"{y}-10", platform=p) for y in (2021, 2022) for p in ("android", "ios")]
    )
    bounds = for_month(summarize(rows))
    exact = for_month(summarize(rows.rename(columns={"oldness_lo_days": "oldness_days"})))
    for name, table in (("bands.png", bounds), ("lines.png", exact)):
        path = age_by_year(table, tmp_path / name, "device age")
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5000
