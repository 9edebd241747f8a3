"""All-platforms figures of the oldness analysis against a synthetic log's truth (`greendcn lifetime synth`):
the all-platforms percentiles are computed from every user's rows (not averaged from the platform rows), months
can be chosen, and seed 001's headline (line 1608: the share of users whose browser is within four years)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from conftest import assert_clean_error, run_greendcn
from greendcn.core.errors import InputError
from greendcn.lifetime.oldness import ALL_PLATFORMS, for_months, oldness, parse_months, users_within
from greendcn.lifetime.pipeline import read_logs

YEAR = 365.25


@pytest.fixture(scope="module")
def synth(tmp_path_factory):
    out = tmp_path_factory.mktemp("synth")
    r = run_greendcn(
        "lifetime",
        "synth",
        "--out",
        out,
        "--users",
        "400",
        "--seed",
        "5",
        "--start",
        "2021-01",
        "--end",
        "2024-12",
    )
    assert r.returncode == 0, r.stderr
    cs, _stats = read_logs([out / "access.log"])
    return out, cs, oldness(cs), pd.read_csv(out / "truth_oldness.csv")


def test_the_all_platforms_browser_p50_matches_the_truth_of_every_user(synth):
    # Browser ages are exact; the analysis and the truth see the same (user, browser, month) rows, so the
    # all-platforms median must agree to the day (tolerance 7 days, the one the per-platform scores use).
    _out, _cs, res, truth = synth
    ours = res.browser[res.browser["platform"] == ALL_PLATFORMS].set_index("month")["p50_days"]
    t = truth[truth["kind"] == "browser"]
    want = t.groupby("month")["oldness_days"].median()
    common = ours.index.intersection(want.index)
    assert len(common) >= 40
    assert np.abs(ours[common] - want[common]).max() <= 7
    # and it is not a mean of the platform rows' medians
    per = res.browser[res.browser["platform"] != ALL_PLATFORMS].groupby("month")["p50_days"].mean()
    assert not np.allclose(per[common], ours[common])


def test_the_all_platforms_device_bounds_enclose_the_truth_with_censored_rows(synth):
    _out, _cs, res, truth = synth
    d = res.device[res.device["platform"] == ALL_PLATFORMS].set_index("month")
    t = truth[truth["kind"] == "device"]
    want = t.groupby("month")["oldness_days"].median()
    common = d.index.intersection(want.index)
    assert d.loc[common, "censored_rows"].sum() > 0  # censored rows take part
    # Percentiles of lower and upper bounds enclose the true percentile (order statistics are monotone);
    # 1 day of slack for the truth's day rounding.
    assert (d.loc[common, "p50_lo_days"] <= want[common] + 1).all()
    assert (d.loc[common, "p50_hi_days"] >= want[common] - 1).all()


def test_the_share_of_users_within_four_years_brackets_the_truth(synth):
    _out, cs, res, truth = synth
    october = res.browser_rows[res.browser_rows["month"].str.endswith("-10")]
    seen = cs[["user", "month", "platform"]]
    head = users_within(october, seen[seen["month"].str.endswith("-10")], 4 * YEAR).set_index("platform")
    t = truth[(truth["kind"] == "browser") & truth["month"].str.endswith("-10")]
    per_user = t.groupby(["user", "month"])["oldness_days"].max()
    true_share_dated = float((per_user < 4 * YEAR).mean())
    row = head.loc[ALL_PLATFORMS]
    # Among users with a dated browser the share is exact (tolerance 0.005: a user's rows are identical on
    # both sides); users with no dated browser (the app only) widen it to bounds.
    dated_share = row["share_lo"] * row["users"] / row["dated_users"]
    assert dated_share == pytest.approx(true_share_dated, abs=0.005)
    assert row["share_lo"] <= true_share_dated <= row["share_hi"] + 1e-9
    assert row["users"] > row["dated_users"] > 0
    assert {"android", "ios"} <= set(head.index)


def test_months_all_gives_one_row_per_month_present_and_the_json_says_which(synth, tmp_path):
    out, _cs, res, _truth = synth
    all_months = for_months(res.browser, None)
    present = sorted(res.browser_rows["month"].unique())
    assert list(all_months[all_months["platform"] == ALL_PLATFORMS]["month"]) == present
    r = run_greendcn(
        "lifetime", "oldness", out / "access.log", "--months", "all", "--json", tmp_path / "o.json"
    )
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "o.json").read_text())
    assert doc["params"]["months"] == "all" and doc["months_used"] == present
    assert "McGuinness 2021, section 4.4.1" in r.stdout and "headline" in doc
    r = run_greendcn(
        "lifetime", "oldness", out / "access.log", "--months", "9-11", "--json", tmp_path / "p.json"
    )
    doc = json.loads((tmp_path / "p.json").read_text())
    assert doc["params"]["months"] == [9, 10, 11]
    assert {m[5:] for m in doc["months_used"]} == {"09", "10", "11"}


@pytest.mark.parametrize("spec", ["13", "octobre", "3-1", "", "0"])
def test_an_unknown_month_spec_is_an_error_with_a_hint(spec, synth):
    with pytest.raises(InputError, match="--months"):
        parse_months(spec)
    out = synth[0]
    assert_clean_error(run_greendcn("lifetime", "oldness", out / "access.log", "--months", spec), "--months")


def test_month_specs_read_as_lists_and_ranges():
    assert parse_months("all") is None
    assert parse_months("10") == [10]
    assert parse_months("1,4, 9-11") == [1, 4, 9, 10, 11]


def test_the_report_behind_the_command_is_a_function(synth):
    from greendcn.lifetime.oldness import oldness_report

    _out, cs, res, _truth = synth
    rep = oldness_report(cs, None)
    assert rep["months_used"] == sorted(res.browser_rows["month"].unique())
    assert rep["params"]["months"] == "all" and rep["headline"]["rows"].iloc[0]["platform"] == ALL_PLATFORMS
    october = oldness_report(cs, [10])
    assert {m[5:] for m in october["months_used"]} == {"10"}
