"""Embodied carbon per device-year: a device class's embodied kg CO2e (and fossil MJ) spread over lifetimes.

A fleet whose devices live L_i years emits sum(kg) / sum(L_i) = kg / mean(L) per device-year; lifetimes grown
by N years give kg / (mean(L) + N). The factors come from `tables.carbon_factors()` or a CSV with the same
columns; the lifetimes from detected upgrades (the old device's age at its upgrade) or from the caller."""

from __future__ import annotations

import io

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.userfile import read_text

__all__ = ["FACTOR_COLUMNS", "YEAR_DAYS", "load_factors", "lifetimes_from_upgrades", "carbon_per_year"]

FACTOR_COLUMNS = ["device_class", "kg_co2e_lo", "kg_co2e_hi", "fossil_mj_lo", "fossil_mj_hi"]
YEAR_DAYS = 365.25


def load_factors(path: str | Path | None = None) -> pd.DataFrame:
    """Embodied-carbon factors per device class: the shipped table, or a CSV overriding it.

    The CSV needs `device_class` and either `kg_co2e` or `kg_co2e_lo`/`kg_co2e_hi` (likewise `fossil_mj`,
    optional). Classes in the file replace the shipped ones; others are kept."""
    from . import tables

    shipped = tables.carbon_factors()
    if path is None:
        return shipped.reset_index(drop=True)
    p = Path(path)
    try:
        extra = pd.read_csv(
            io.StringIO(read_text(p, "--factors", kind="a CSV of factors")), dtype={"device_class": str}
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as e:
        raise InputError(
            f"--factors: cannot read {p}: {e}", hint="give a CSV with device_class,kg_co2e"
        ) from e
    if "device_class" not in extra.columns:
        raise InputError(
            f"--factors {p}: no device_class column", hint="columns: device_class,kg_co2e[,fossil_mj]"
        )
    for name in ("kg_co2e", "fossil_mj"):
        if name in extra.columns:
            extra[f"{name}_lo"] = extra[name]
            extra[f"{name}_hi"] = extra[name]
        for side in ("lo", "hi"):
            col = f"{name}_{side}"
            if col not in extra.columns:
                if name == "kg_co2e":
                    raise InputError(
                        f"--factors {p}: no {name} column", hint="add kg_co2e (kg CO2e per device)"
                    )
                extra[col] = np.nan
            extra[col] = pd.to_numeric(extra[col], errors="coerce")
            if name == "kg_co2e" and (extra[col].isna().any() or (extra[col] < 0).any()):
                raise InputError(
                    f"--factors {p}: {col} must be a non-negative number on every row",
                    hint="write kg CO2e per device, e.g. smartphone,84",
                )
    extra["source"] = extra.get("source", pd.Series(f"override: {p.name}", index=extra.index))
    kept = shipped[~shipped["device_class"].isin(extra["device_class"])]
    return pd.concat([kept, extra[[*FACTOR_COLUMNS, "source"]]], ignore_index=True)


def lifetimes_from_upgrades(events: pd.DataFrame) -> pd.DataFrame:
    """Observed lifetimes: the old device's age at its upgrade, in years (our choice: the device's life runs
    from its model's release to the event, which counts a second-hand phone's earlier owners too). Events with
    a non-positive age (a use before the table's release date) are dropped."""
    ages = events["old_age_days"].to_numpy(dtype=float)
    keep = ages > 0
    return pd.DataFrame(
        {"device_class": events["device_class"].to_numpy()[keep], "lifetime_years": ages[keep] / YEAR_DAYS}
    )


def carbon_per_year(
    factors: pd.DataFrame,
    lifetimes: pd.DataFrame | Mapping[str, float],
    extend_years: Sequence[float] = (1.0,),
) -> pd.DataFrame:
    """kg CO2e and fossil MJ per device-year now and with every lifetime grown by each of `extend_years`.

    `lifetimes`: a frame of (device_class, lifetime_years) rows, or a mapping class -> one lifetime in years."""
    if isinstance(lifetimes, Mapping):
        lifetimes = pd.DataFrame(
            {"device_class": list(lifetimes), "lifetime_years": list(lifetimes.values())}
        )
    recs = []
    for cls, g in lifetimes.groupby("device_class", sort=True):
        f = factors[factors["device_class"] == cls]
        if f.empty:
            raise InputError(
                f"no embodied-carbon factor for device class {cls!r}",
                hint=f"known classes: {', '.join(sorted(factors['device_class']))}; add one with --factors",
            )
        f = f.iloc[0]
        years = g["lifetime_years"].to_numpy(dtype=float)
        if (years <= 0).any():
            raise InputError(f"lifetime of {cls}: must be positive", hint="give lifetimes in years, e.g. 4")
        mean = float(years.mean())
        for n in extend_years:
            rec = {
                "device_class": cls,
                "devices": len(years),
                "mean_lifetime_years": mean,
                "extend_years": float(n),
                "kg_co2e_lo": float(f["kg_co2e_lo"]),
                "kg_co2e_hi": float(f["kg_co2e_hi"]),
            }
            for side in ("lo", "hi"):
                kg, mj = float(f[f"kg_co2e_{side}"]), float(f[f"fossil_mj_{side}"])
                now, later = kg / mean, kg / (mean + n)
                rec[f"kg_co2e_per_year_{side}"] = now
                rec[f"kg_co2e_per_year_extended_{side}"] = later
                rec[f"saving_kg_co2e_per_year_{side}"] = now - later
                rec[f"fossil_mj_per_year_{side}"] = mj / mean
                rec[f"fossil_mj_per_year_extended_{side}"] = mj / (mean + n)
            rec["saving_share"] = n / (mean + n)
            rec["source"] = str(f.get("source", ""))
            recs.append(rec)
    return pd.DataFrame.from_records(recs)
