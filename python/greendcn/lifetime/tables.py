"""The shipped release-date and embodied-carbon tables (python/greendcn/lifetime/data), loaded once, with
their provenance and an optional user override per table. See docs/lifetime.md, "Release tables"."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pandas as pd

from ..core.errors import InputError

__all__ = [
    "DATA_DIR",
    "browser_releases",
    "carbon_factors",
    "devices",
    "os_releases",
    "tables_info",
    "TABLE_COLUMNS",
]

DATA_DIR = Path(__file__).resolve().parent / "data"

TABLE_COLUMNS = {
    "browser_releases": ["browser", "version", "release_date", "status", "source"],
    "os_releases": ["os", "version", "release_date", "source"],
    "devices": [
        "platform",
        "brand",
        "model",
        "ua_token",
        "name",
        "device_class",
        "release_date",
        "launch_os_version",
        "last_os_major",
        "source",
    ],
    "carbon_factors": ["device_class", "kg_co2e_lo", "kg_co2e_hi", "fossil_mj_lo", "fossil_mj_hi", "source"],
}
# Rows of an override replace shipped rows with the same key; other rows are added.
_KEYS = {
    "browser_releases": ["browser", "version"],
    "os_releases": ["os", "version"],
    "devices": ["platform", "brand", "ua_token"],
    "carbon_factors": ["device_class"],
}
_DATES = {
    "browser_releases": ["release_date"],
    "os_releases": ["release_date"],
    "devices": ["release_date"],
    "carbon_factors": [],
}
_NUMBERS = {"carbon_factors": ["kg_co2e_lo", "kg_co2e_hi", "fossil_mj_lo", "fossil_mj_hi"]}


def _read(table: str, path: Path, origin: str) -> pd.DataFrame:
    """Read one CSV as strings, check its columns, and type its dates and numbers."""
    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8")
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as e:
        raise InputError(
            f"{origin}: cannot read {path}: {e}",
            hint=f"give a UTF-8 CSV with columns {','.join(TABLE_COLUMNS[table])}",
        ) from e
    missing = [c for c in TABLE_COLUMNS[table] if c not in df.columns]
    if missing:
        raise InputError(
            f"{origin} {path}: missing column {missing[0]!r}",
            hint=f"{table} needs columns {','.join(TABLE_COLUMNS[table])}",
        )
    df = df[TABLE_COLUMNS[table]].copy()
    for col in _DATES[table]:
        parsed = pd.to_datetime(df[col].where(df[col] != ""), format="%Y-%m-%d", errors="coerce")
        bad = parsed.isna() & (df[col] != "")
        if bad.any():
            i = int(bad.to_numpy().nonzero()[0][0])
            raise InputError(
                f"{origin} {path}: row {i + 2}, {col}: {df[col].iloc[i]!r} is not a date",
                hint="write dates as YYYY-MM-DD (empty for unknown)",
            )
        df[col] = parsed.astype("datetime64[s]")
    for col in _NUMBERS.get(table, []):
        num = pd.to_numeric(df[col], errors="coerce")
        if num.isna().any():
            i = int(num.isna().to_numpy().nonzero()[0][0])
            raise InputError(
                f"{origin} {path}: row {i + 2}, {col}: {df[col].iloc[i]!r} is not a number",
                hint="give the figure as a plain number",
            )
        df[col] = num.astype(float)
    return df


@functools.lru_cache(maxsize=None)
def _shipped(table: str, file: str) -> pd.DataFrame:
    return _read(table, DATA_DIR / file, "shipped table")


def _load(table: str, files: tuple[str, ...], override: str | Path | None) -> pd.DataFrame:
    df = pd.concat([_shipped(table, f) for f in files], ignore_index=True)
    if override is not None:
        extra = _read(table, Path(override), "override")
        keys = _KEYS[table]
        merged = df.merge(extra[keys].drop_duplicates(), on=keys, how="left", indicator=True)
        df = pd.concat([df[(merged["_merge"] == "left_only").to_numpy()], extra], ignore_index=True)
    return df.reset_index(drop=True)


def browser_releases(override: str | Path | None = None) -> pd.DataFrame:
    """Browser versions and their release dates: MDN browser-compat-data ids and version keys, WebView gaps
    filled from Chrome for Android and iOS/Edge-mobile browsers dated by their desktop twin (`source` says)."""
    return _load("browser_releases", ("browser_releases.csv",), override)


def os_releases(override: str | Path | None = None) -> pd.DataFrame:
    """OS versions and release dates: iOS from MDN's Safari on iOS, Android/macOS/Windows curated."""
    return _load("os_releases", ("ios_releases.csv", "os_releases.csv"), override)


def devices(override: str | Path | None = None) -> pd.DataFrame:
    """Curated device models: the token a UA carries, marketing name, class, release date, OS range."""
    return _load("devices", ("devices.csv",), override)


def carbon_factors(override: str | Path | None = None) -> pd.DataFrame:
    """Embodied kg CO2e and fossil MJ per device class (boaviztapi 2.5.0's ADEME figures)."""
    return _load("carbon_factors", ("carbon_factors.csv",), override)


def tables_info() -> pd.DataFrame:
    """One record per shipped table: file, source, version, source and extraction dates, licence, sha256
    of the CSV bytes, rows."""
    records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(DATA_DIR.glob("*.provenance.json"))]
    cols = [
        "file",
        "source",
        "version",
        "source_date",
        "extracted_on",
        "licence",
        "sha256",
        "rows",
        "command",
    ]
    return pd.DataFrame.from_records(records, columns=cols)
