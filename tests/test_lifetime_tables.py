"""The shipped lifetime tables: provenance and sha256, regeneration from fixtures, loaders and overrides."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from greendcn.core.errors import InputError
from greendcn.lifetime import tablegen, tables

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "data" / "lifetime_tables"
MDN_FIXTURE = FIXTURES / "mdn_data_subset.json"
FACTORS_FIXTURE = FIXTURES / "boaviztapi_factors_subset.yml"
SHIPPED = ["browser_releases.csv", "ios_releases.csv", "carbon_factors.csv", "devices.csv", "os_releases.csv"]


def _provenance(name: str) -> dict:
    return json.loads((tables.DATA_DIR / name.replace(".csv", ".provenance.json")).read_text())


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_table_matches_its_provenance(name):
    data = (tables.DATA_DIR / name).read_bytes()
    rec = _provenance(name)
    assert rec["file"] == name
    assert rec["sha256"] == hashlib.sha256(data).hexdigest()
    assert rec["rows"] == len(pd.read_csv(tables.DATA_DIR / name, dtype=str))
    for field in ("source", "licence", "extracted_on", "command"):
        assert rec[field], field


def test_tables_info_lists_every_shipped_table():
    info = tables.tables_info()
    assert sorted(info["file"]) == sorted(SHIPPED)
    mdn = info.set_index("file").loc["browser_releases.csv"]
    assert (mdn["version"], mdn["licence"]) == ("8.1.9", "CC0-1.0")
    assert info.set_index("file").loc["carbon_factors.csv", "version"] == "2.5.0"


def test_regeneration_from_the_mdn_fixture_reproduces_shipped_rows():
    data = json.loads(MDN_FIXTURE.read_text())
    first = tablegen.to_csv(tablegen.browser_rows(data), tablegen.BROWSER_COLUMNS)
    assert first == tablegen.to_csv(
        tablegen.browser_rows(json.loads(MDN_FIXTURE.read_text())), tablegen.BROWSER_COLUMNS
    )
    shipped = set((tables.DATA_DIR / "browser_releases.csv").read_text().splitlines())
    lines = first.decode().splitlines()
    assert lines[0] == ",".join(tablegen.BROWSER_COLUMNS)
    missing = [ln for ln in lines[1:] if ln not in shipped]
    assert not missing, missing
    ios = tablegen.to_csv(tablegen.ios_rows(data), tablegen.OS_COLUMNS).decode().splitlines()
    shipped_ios = set((tables.DATA_DIR / "ios_releases.csv").read_text().splitlines())
    assert len(ios) == 3 and all(ln in shipped_ios for ln in ios)


def test_webview_gap_is_filled_from_chrome_android_and_says_so():
    data = json.loads(MDN_FIXTURE.read_text())
    rows = {(r["browser"], r["version"]): r for r in tablegen.browser_rows(data)}
    gap = rows[("webview_android", "30")]  # the fixture's WebView has 4.4 and 120, not 30
    assert gap["release_date"] == data["browsers"]["chrome_android"]["releases"]["30"]["release_date"]
    assert gap["source"] == "mdn:chrome_android (webview gap)"
    assert rows[("webview_android", "120")]["source"] == "mdn:webview_android"
    assert rows[("chrome_ios", "121")]["source"] == "mdn:chrome (proxy)"


def test_carbon_factors_regenerate_byte_identically_from_the_fixture():
    yaml = pytest.importorskip("yaml")  # a dev dependency; the shipped loader needs no YAML
    factors = yaml.safe_load(FACTORS_FIXTURE.read_text())
    out = tablegen.to_csv(tablegen.carbon_rows(factors), tablegen.CARBON_COLUMNS)
    assert out == (tables.DATA_DIR / "carbon_factors.csv").read_bytes()


def test_regen_script_offline_writes_the_same_bytes_and_stable_provenance(tmp_path):
    cmd = [
        sys.executable,
        str(ROOT / "scripts" / "regen_tables"),
        "--mdn-json",
        str(MDN_FIXTURE),
        "--factors",
        str(FACTORS_FIXTURE),
        "--out",
        str(tmp_path),
    ]
    env = {"SOURCE_DATE_EPOCH": "1700000000", "PATH": "/usr/bin:/bin"}
    subprocess.run(cmd, check=True, env=env, capture_output=True)
    first = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    prov = json.loads(first["browser_releases.provenance.json"])
    assert prov["extracted_on"] == "2023-11-14"  # from SOURCE_DATE_EPOCH, not the clock
    assert prov["source_date"] == "2026-11-12" and prov["version"] == "8.1.9"  # from the input's __meta
    subprocess.run(cmd, check=True, env={**env, "SOURCE_DATE_EPOCH": "1800000000"}, capture_output=True)
    second = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert first == second  # same inputs: nothing changes, not even the provenance dates
    assert first["carbon_factors.csv"] == (tables.DATA_DIR / "carbon_factors.csv").read_bytes()
    check = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "regen_tables"), "--check", "--out", str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0 and "MISMATCH" not in check.stdout
    (tmp_path / "ios_releases.csv").write_bytes(first["ios_releases.csv"] + b"ios,99,2099-01-01,x\n")
    check = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "regen_tables"), "--check", "--out", str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert check.returncode == 1 and "ios_releases.csv: MISMATCH" in check.stdout


def test_shipped_carbon_factors_are_boaviztapis_ademe_figures():
    yaml = pytest.importorskip("yaml")
    factors = yaml.safe_load(FACTORS_FIXTURE.read_text())
    c = tables.carbon_factors().set_index("device_class")
    assert c.loc["laptop", "kg_co2e_lo"] == min(v["impact"] for v in factors["LAPTOP"]["gwp"].values())
    assert c.loc["laptop", "kg_co2e_hi"] == max(v["impact"] for v in factors["LAPTOP"]["gwp"].values())
    assert c.loc["smartphone", "fossil_mj_lo"] == factors["SMARTPHONE"]["adpf"]["impact"]
    assert (c["kg_co2e_lo"] <= c["kg_co2e_hi"]).all() and (c["fossil_mj_lo"] <= c["fossil_mj_hi"]).all()


def test_loaders_type_their_columns_and_cover_the_logs_era():
    b = tables.browser_releases()
    assert list(b.columns) == tables.TABLE_COLUMNS["browser_releases"]
    assert b["release_date"].dtype == "datetime64[s]"
    released = b[b["status"].isin(["retired", "current"])]
    assert released["release_date"].notna().all()
    d = tables.devices()
    assert d["release_date"].dtype == "datetime64[s]" and d["release_date"].notna().all()
    assert (d["source"].str.len() > 0).all()
    years = d["release_date"].dt.year
    assert years.min() <= 2012 and years.max() >= 2026
    for platform, brand in [
        ("ios", "Apple"),
        ("ipados", "Apple"),
        ("android", "Samsung"),
        ("android", "Google"),
        ("android", "OnePlus"),
        ("android", "Motorola"),
    ]:
        assert ((d["platform"] == platform) & (d["brand"] == brand)).sum() > 0, (platform, brand)
    assert not d.duplicated(["platform", "brand", "ua_token"]).any()
    o = tables.os_releases()
    assert set(o["os"]) >= {"ios", "android", "macos", "windows"}
    assert o["release_date"].notna().all()


def test_ios_dates_are_safari_on_ios_dates():
    b = tables.browser_releases()
    safari = b[(b["browser"] == "safari_ios") & b["release_date"].notna()].set_index("version")[
        "release_date"
    ]
    ios = tables.os_releases().query("os == 'ios'").set_index("version")["release_date"]
    assert len(ios) == len(safari)
    assert (ios.sort_index() == safari.sort_index()).all()


def test_device_override_replaces_and_extends(tmp_path):
    shipped = tables.devices()
    row = shipped[shipped["ua_token"] == "SM-G991"].iloc[0]
    cols = tables.TABLE_COLUMNS["devices"]
    lines = [
        ",".join(cols),
        "android,Samsung,SM-G991,SM-G991,Galaxy S21 (ours),smartphone,2021-02-01,11,,our note",
        "android,Fairphone,FP5,FP5,Fairphone 5,smartphone,2023-09-14,13,,our note",
    ]
    path = tmp_path / "devices.csv"
    path.write_text("\n".join(lines) + "\n")
    merged = tables.devices(override=path)
    assert len(merged) == len(shipped) + 1
    s21 = merged[merged["ua_token"] == "SM-G991"]
    assert len(s21) == 1 and s21.iloc[0]["name"] == "Galaxy S21 (ours)" and row["name"] != "Galaxy S21 (ours)"
    assert str(merged[merged["ua_token"] == "FP5"].iloc[0]["release_date"])[:10] == "2023-09-14"
    assert len(tables.devices()) == len(shipped)  # the cached shipped table is untouched


def test_override_errors_name_the_field(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("platform,brand,model\nandroid,X,Y\n")
    with pytest.raises(InputError, match="missing column 'ua_token'") as e:
        tables.devices(override=bad)
    assert e.value.hint
    cols = tables.TABLE_COLUMNS["devices"]
    bad.write_text(",".join(cols) + "\nandroid,X,Y,Y,Y,smartphone,21/03/2020,,,s\n")
    with pytest.raises(InputError, match="row 2, release_date"):
        tables.devices(override=bad)
    with pytest.raises(InputError, match="cannot read"):
        tables.carbon_factors(override=tmp_path / "absent.csv")
