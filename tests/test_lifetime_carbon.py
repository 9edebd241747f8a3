"""Embodied carbon per device-year: the mechanism (kg over the mean lifetime), the issue's check (a phone kept
5 years instead of 4: 84 kg CO2e gives 21 -> 16.8 kg/yr), ranges, and lifetimes from detected upgrades."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from greendcn.core.errors import InputError
from greendcn.lifetime.carbon import YEAR_DAYS, carbon_per_year, lifetimes_from_upgrades


def _factors() -> pd.DataFrame:
    # The figures of issue 11 (boaviztapi's ADEME data), written out here so the test does not depend on
    # the shipped table's exact values.
    return pd.DataFrame(
        {
            "device_class": ["smartphone", "tablet", "laptop"],
            "kg_co2e_lo": [84.0, 75.9, 175.0],
            "kg_co2e_hi": [84.0, 75.9, 181.0],
            "fossil_mj_lo": [1110.0, 1000.0, 2360.0],
            "fossil_mj_hi": [1110.0, 1000.0, 2410.0],
            "source": "test",
        }
    )


def test_a_phone_kept_five_years_not_four():
    row = carbon_per_year(_factors(), {"smartphone": 4.0}, extend_years=[1.0]).iloc[0]
    assert row["kg_co2e_per_year_lo"] == pytest.approx(21.0)
    assert row["kg_co2e_per_year_extended_lo"] == pytest.approx(16.8)
    assert row["saving_kg_co2e_per_year_lo"] == pytest.approx(4.2)
    assert row["saving_share"] == pytest.approx(0.2)
    assert row["fossil_mj_per_year_lo"] == pytest.approx(1110 / 4)


@pytest.mark.parametrize("kg,years,extra", [(84.0, 2.5, 1.0), (75.9, 6.0, 2.0), (50.0, 1.0, 0.5)])
def test_per_year_is_kg_over_lifetime_for_any_numbers(kg, years, extra):
    f = pd.DataFrame(
        {
            "device_class": ["x"],
            "kg_co2e_lo": [kg],
            "kg_co2e_hi": [kg],
            "fossil_mj_lo": [1.0],
            "fossil_mj_hi": [1.0],
        }
    )
    row = carbon_per_year(f, {"x": years}, extend_years=[extra]).iloc[0]
    assert row["kg_co2e_per_year_lo"] == pytest.approx(kg / years)
    assert row["kg_co2e_per_year_extended_lo"] == pytest.approx(kg / (years + extra))


def test_a_fleet_is_total_carbon_over_total_device_years():
    lifetimes = pd.DataFrame({"device_class": "smartphone", "lifetime_years": [2.0, 3.0, 4.0, 7.0]})
    row = carbon_per_year(_factors(), lifetimes, extend_years=[1.0]).iloc[0]
    assert row["devices"] == 4 and row["mean_lifetime_years"] == pytest.approx(4.0)
    assert row["kg_co2e_per_year_lo"] == pytest.approx(4 * 84.0 / 16.0)
    assert row["kg_co2e_per_year_extended_lo"] == pytest.approx(4 * 84.0 / 20.0)


def test_a_range_of_factors_gives_a_range_per_year():
    row = carbon_per_year(_factors(), {"laptop": 5.0}, extend_years=[1.0, 2.0])
    assert list(row["extend_years"]) == [1.0, 2.0]
    assert row.iloc[0]["kg_co2e_per_year_lo"] == pytest.approx(35.0)
    assert row.iloc[0]["kg_co2e_per_year_hi"] == pytest.approx(36.2)
    assert row.iloc[1]["kg_co2e_per_year_extended_hi"] == pytest.approx(181.0 / 7.0)


def test_lifetimes_from_upgrades_are_old_device_ages_in_years():
    ev = pd.DataFrame({"device_class": ["smartphone"] * 3, "old_age_days": [730.5, 1461.0, -3.0]})
    lt = lifetimes_from_upgrades(ev)
    assert np.allclose(lt["lifetime_years"], [730.5 / YEAR_DAYS, 1461.0 / YEAR_DAYS])


def test_unknown_class_and_bad_lifetime_are_input_errors():
    with pytest.raises(InputError, match="no embodied-carbon factor"):
        carbon_per_year(_factors(), {"toaster": 4.0})
    with pytest.raises(InputError, match="must be positive"):
        carbon_per_year(_factors(), {"smartphone": 0.0})


def test_shipped_factors_and_an_override_file(tmp_path):
    from greendcn.lifetime.carbon import load_factors

    shipped = load_factors().set_index("device_class")
    assert {"smartphone", "tablet", "laptop", "desktop"} <= set(shipped.index)
    f = tmp_path / "f.csv"
    f.write_text("device_class,kg_co2e,fossil_mj\nsmartphone,70,900\nwatch,10,100\n")
    over = load_factors(f).set_index("device_class")
    assert over.loc["smartphone", "kg_co2e_lo"] == over.loc["smartphone", "kg_co2e_hi"] == 70.0
    assert over.loc["watch", "fossil_mj_hi"] == 100.0
    assert over.loc["laptop", "kg_co2e_hi"] == shipped.loc["laptop", "kg_co2e_hi"]  # untouched classes kept
    row = carbon_per_year(load_factors(f), {"smartphone": 3.5}).iloc[0]
    assert row["kg_co2e_per_year_lo"] == pytest.approx(20.0)
    bad = tmp_path / "bad.csv"
    bad.write_text("class,kg\nsmartphone,70\n")
    with pytest.raises(InputError, match="device_class"):
        load_factors(bad)
