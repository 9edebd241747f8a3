"""Upgrade detection: each of seed 001's criteria (lines 1646-1651) just inside and just outside its threshold,
the duplicate rule, device identity, and the Fig 4.5-4.7 summaries."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from lifetime_fixtures import DAY, classify_rows, sighting, ts

from greendcn.lifetime.upgrades import (
    SEED_RULES,
    UpgradeRules,
    detect_upgrades,
    device_table,
    monthly_upgrades,
    new_age_by_group,
    old_age_percentiles,
    upgrades,
)

T = ts("2021-06-01")  # the new phone's first use in the base case


def _date(t: float) -> str:
    return pd.Timestamp(int(t), unit="s").strftime("%Y-%m-%d %H:%M:%S")


def _uses(
    user: str, key: str, release: float, first: float, last: float, platform: str = "android"
) -> list[dict]:
    """Two sightings of a dated phone: its first and its last use."""
    rel = pd.Timestamp(int(release), unit="s").strftime("%Y-%m-%d")
    return [
        sighting(
            user=user,
            device_key=key,
            device_name=key,
            device_release_lo=rel,
            device_release_hi=rel,
            platform=platform,
            at=_date(t),
            ua=f"{key}-{i}",
        )
        for i, t in enumerate((first, last))
    ]


def _pair(r_old=-900, r_new=-150, f_old=-800, l_old=0, f_new=0, l_new=365, user="u1") -> list[dict]:
    """An old and a new phone, times in days from T; the defaults meet every criterion."""
    d = lambda x: T + x * DAY  # noqa: E731
    return _uses(user, "Old Phone", d(r_old), d(f_old), d(l_old)) + _uses(
        user, "New Phone", d(r_new), d(f_new), d(l_new)
    )


def _events(rows: list[dict], rules: UpgradeRules = SEED_RULES) -> pd.DataFrame:
    return detect_upgrades(device_table(classify_rows(rows), rules.classes), rules)


def test_the_base_case_is_one_upgrade_dated_at_the_new_phones_first_use():
    ev = _events(_pair())
    assert len(ev) == 1
    e = ev.iloc[0]
    assert (e["old_device"], e["new_device"]) == ("Old Phone", "New Phone")
    assert e["time_s"] == T and e["month"] == "2021-06"
    assert e["old_age_days"] == 900 and e["new_age_days"] == 150


# Each case: (name, fields of _pair just inside, the same just outside). Release dates are days, so a one-day
# step crosses a day threshold; rule 1a is held apart from rule 1b by a release gap under two years.
CASES = [
    (
        "1a released within a year before first use",
        dict(r_new=-365, r_old=-700),
        dict(r_new=-366, r_old=-700),
    ),
    ("1b newer than the old by two years", dict(r_new=-400, r_old=-1130), dict(r_new=-400, r_old=-1129)),
    ("2 released six months after the old", dict(r_new=-100, r_old=-280), dict(r_new=-100, r_old=-279)),
    ("3 first use within 90 days after the old's last", dict(l_old=-90), dict(l_old=-91)),
    (
        "4 old's last use within 90 days after the new's first",
        dict(l_old=90, l_new=400),
        dict(l_old=91, l_new=400),
    ),
    ("5 new in use a month past the old", dict(l_old=10, l_new=40), dict(l_old=10, l_new=39)),
]


@pytest.mark.parametrize("name,inside,outside", CASES, ids=[c[0][:2].strip() for c in CASES])
def test_each_criterion_just_inside_and_just_outside(name, inside, outside):
    assert len(_events(_pair(**inside))) == 1, f"{name}: inside the threshold"
    assert len(_events(_pair(**outside))) == 0, f"{name}: outside the threshold"


def test_thresholds_are_parameters():
    rows = _pair(l_old=-120)  # a 120-day gap breaks the seed's 90 days
    assert len(_events(rows)) == 0
    assert len(_events(rows, UpgradeRules(max_gap_days=120))) == 1


def test_a_new_device_in_use_before_the_old_one_is_not_an_upgrade():
    assert len(_events(_pair(f_old=-300, f_new=-310, l_old=0, l_new=365))) == 0


def _two_switches(c_first: int, a2_last: int) -> list[dict]:
    """Two old phones dropped and two new ones added around T: A1 -> B at T, A2 -> C later."""
    d = lambda x: T + x * DAY  # noqa: E731
    return (
        _uses("u1", "A1", d(-900), d(-800), d(0))
        + _uses("u1", "A2", d(-950), d(-700), d(a2_last))
        + _uses("u1", "B", d(-100), d(0), d(500))
        + _uses("u1", "C", d(-120), d(c_first), d(500))
    )


@pytest.mark.parametrize(
    "c_first,a2_last,expected",
    [
        (60, 70, 1),  # C added 60 days after the accepted event: not counted
        (61, 70, 2),  # 61 days: a second upgrade
        (70, 60, 1),  # A2 dropped 60 days after the event: not counted
        (70, 61, 2),
    ],
)
def test_devices_added_or_dropped_within_two_months_are_not_counted_again(c_first, a2_last, expected):
    ev = _events(_two_switches(c_first, a2_last))
    assert len(ev) == expected
    assert ev.iloc[0]["old_device"] == "A1" and ev.iloc[0]["new_device"] == "B"


def test_a_device_is_old_in_one_event_and_new_in_one_event_at_most():
    d = lambda x: T + x * DAY  # noqa: E731
    # A overlaps both B (added at T) and C (added 80 days later, outside the duplicate window): only A -> B.
    rows = (
        _uses("u1", "A", d(-900), d(-800), d(85))
        + _uses("u1", "B", d(-100), d(0), d(500))
        + _uses("u1", "C", d(-90), d(80), d(500))
    )
    ev = _events(rows)
    assert list(zip(ev["old_device"], ev["new_device"])) == [("A", "B")]


def test_app_and_web_sightings_of_one_phone_are_one_device():
    rows = _pair()
    # The new phone also seen through the app, under a different installation id, a month later.
    rows.append(
        sighting(
            user="u1",
            device_key="New Phone",
            device_name="New Phone",
            is_app=True,
            app_device_id="abc123",
            device_release_lo=_date(T - 150 * DAY)[:10],
            device_release_hi=_date(T - 150 * DAY)[:10],
            at=_date(T + 30 * DAY),
            ua="app",
        )
    )
    cs = classify_rows(rows)
    dev = device_table(cs)
    assert sorted(dev["device_id"]) == ["m:New Phone", "m:Old Phone"]
    assert len(detect_upgrades(dev)) == 1


def test_app_installation_id_comes_from_the_ua_when_no_column_gives_it():
    rows = [
        sighting(
            user="u1",
            is_app=True,
            ua="LMSApp/7.4.1 (device_id=feed01; model=; os=iOS; os_version=17.0)",
            platform="ios",
            at="2022-01-05",
        )
    ]
    cs = classify_rows(rows)
    assert cs.loc[0, "device_id"] == "a:feed01" and cs.loc[0, "device_state"] == "undated"


def test_censored_and_undated_devices_take_no_part():
    rows = _pair()
    # A reduced-UA phone that would otherwise look like a fresh upgrade, and an undated model.
    rows.append(
        sighting(
            user="u1",
            device_key="",
            platform="android",
            device_release_lo="2021-01-01",
            device_release_hi="2021-05-01",
            censor_reason="reduced_android",
            at="2021-06-10",
        )
    )
    rows.append(sighting(user="u1", device_key="Odd Phone", at="2021-06-12"))
    cs = classify_rows(rows)
    assert set(cs["device_state"]) == {"exact", "censored", "undated"}
    assert len(device_table(cs)) == 2


def test_only_the_chosen_classes_and_pairs_within_a_class():
    rows = _pair()
    for r in rows[2:]:
        r["device_class"] = "tablet"  # the "new phone" is a tablet: no phone upgrade
    assert len(_events(rows)) == 0
    tablets = _pair(user="u2")
    for r in tablets:
        r["device_class"] = "tablet"
    assert len(_events(tablets, UpgradeRules(classes=("smartphone", "tablet")))) == 1
    assert len(_events(tablets)) == 0


def test_platform_is_the_discarded_devices_and_switches_count_there():
    rows = _pair()
    for r in rows[2:]:
        r["platform"] = "ios"
    ev = _events(rows)
    assert ev.iloc[0]["platform"] == "android" and ev.iloc[0]["new_platform"] == "ios"


def _synthetic_events(n: int, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    old = rng.integers(200, 2000, n)
    return pd.DataFrame(
        {
            "platform": rng.choice(["android", "ios"], n),
            "old_age_days": old,
            "new_age_days": (old // 3 + rng.integers(0, 100, n)),
            "month": "2020-01",
        }
    )


def test_old_age_percentiles_match_numpy_per_platform_and_overall():
    ev = _synthetic_events(500)
    tab = old_age_percentiles(ev)
    assert set(tab["platform"]) == {"all", "android", "ios"}
    row = tab[(tab["platform"] == "ios") & (tab["percentile"] == 50)].iloc[0]
    assert row["old_age_days"] == pytest.approx(
        np.percentile(ev.loc[ev["platform"] == "ios", "old_age_days"], 50)
    )
    assert row["events"] == (ev["platform"] == "ios").sum()
    assert tab[tab["platform"] == "all"]["old_age_days"].is_monotonic_increasing


def test_new_age_cdf_by_old_age_group():
    ev = _synthetic_events(1000)
    tab = new_age_by_group(ev)
    groups = tab.drop_duplicates("group")
    assert list(groups["group"]) == ["p0-20", "p20-40", "p40-60", "p60-80", "p80-100"]
    assert groups["events"].sum() == 1000
    # The raw thresholds are the old-age percentiles at the group edges.
    assert groups["old_age_lo_days"].iloc[1] == pytest.approx(np.percentile(ev["old_age_days"], 20))
    # New age grows with old age in this data: each group's median new age is above the previous one's.
    med = tab[tab["cdf_share"] == 0.5]["new_age_days"].to_numpy()
    assert (np.diff(med) > 0).all()
    for _, g in tab.groupby("group"):
        assert g["new_age_days"].is_monotonic_increasing and g["cdf_share"].iloc[-1] == 1.0


def test_monthly_counts_fill_months_without_events():
    ev = pd.DataFrame({"month": ["2020-01", "2020-01", "2020-03"], "platform": ["ios", "android", "ios"]})
    tab = monthly_upgrades(ev, ["2020-01", "2020-02", "2020-03"])
    counts = {(m, p): n for m, p, n in tab.itertuples(index=False)}
    assert (
        counts[("2020-02", "ios")] == 0
        and counts[("2020-01", "ios")] == 1
        and counts[("2020-03", "ios")] == 1
    )
    assert len(tab) == 6


def test_upgrades_bundles_events_and_summaries():
    res = upgrades(classify_rows(_pair() + _pair(user="u2", l_old=-91)))
    assert len(res.events) == 1 and res.summary()["events"] == 1
    assert res.summary()["old_age_under_1y_share"] == 0.0
    assert res.monthly["upgrades"].sum() == 1


def test_upgrade_figures_are_pngs(tmp_path):
    from greendcn.lifetime.figures import upgrade_figures

    ev = _synthetic_events(300)
    ev["month"] = np.where(np.arange(300) % 2 == 0, "2020-01", "2020-02")
    paths = upgrade_figures(monthly_upgrades(ev), old_age_percentiles(ev), new_age_by_group(ev), tmp_path)
    assert [p.name for p in paths] == ["upgrades_per_month.png", "old_age_percentiles.png", "new_age_cdf.png"]
    for p in paths:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
