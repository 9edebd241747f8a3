"""`greendcn report`: a store becomes one self-contained HTML page that real headless Chromium renders with no
console errors and one plotly figure per metric of the job kind; a screenshot is kept in the test's tmp dir.

Needs Debian's chromium and chromium-driver (`make test` installs them when run as root; README: Chromium).
Skipped, with that reason, only where they are not installed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from greendcn.sweep.driver import run_sweep
from greendcn.sweep.jobs import KINDS
from sweep_fixtures import small_spec, write_spec
from conftest import assert_clean_error, run_greendcn

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = "/usr/bin/chromedriver"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    store = tmp / "s.duckdb"
    run_sweep(small_spec(tmp, seeds=2, long_flows=2), store=store, workers=1, progress=False)
    spec = write_spec(
        tmp,
        '[sweep]\nkind = "router_power"\nname = "router"\n[axes]\nload = ["500kpps", "1Mpps"]\n',
        "r.toml",
    )
    run_sweep(spec, store=store, workers=1, progress=False)
    out = run_greendcn("report", store, "-o", tmp / "report.html", "--json", tmp / "r.json")
    assert out.returncode == 0, out.stderr
    return tmp / "report.html", json.loads((tmp / "r.json").read_text())


def test_report_is_self_contained(report):
    page, meta = report
    text = page.read_text()
    expected = len(KINDS["simulate"].metrics) + len(KINDS["router_power"].metrics)
    assert meta == {"report": str(page), "sweeps": 2, "figures": expected}
    # no script, style or image fetched from elsewhere: plotly.js is inline
    assert "<script src=" not in text and "<link" not in text
    assert text.count('<div id="fig-') == expected


def test_report_renders_in_headless_chromium(report, tmp_path):
    if not CHROMIUM or not Path(DRIVER).exists():
        pytest.skip("needs Debian's chromium and chromium-driver: apt-get install chromium chromium-driver")
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    page, meta = report
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1200,2000",
    ):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    try:
        driver.get(page.resolve().as_uri())
        WebDriverWait(driver, 60).until(
            lambda d: (
                len(d.find_elements(By.CSS_SELECTOR, "div.js-plotly-plot svg.main-svg")) >= meta["figures"]
            )
        )
        plots = driver.find_elements(By.CSS_SELECTOR, "div.js-plotly-plot")
        assert len(plots) == meta["figures"]
        for p in plots:  # every figure drew its axes and at least one trace with points
            assert p.find_elements(By.CSS_SELECTOR, "svg.main-svg g.xtick")
            assert p.find_elements(By.CSS_SELECTOR, "g.scatterlayer g.trace path.point")
        severe = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
        assert severe == [], severe
        assert driver.title.startswith("greendcn report")
        shot = tmp_path / "report.png"
        assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
    finally:
        driver.quit()


def test_report_errors(tmp_path):
    assert_clean_error(
        run_greendcn("report", tmp_path / "none.duckdb", "-o", tmp_path / "r.html"), "does not exist"
    )
    (tmp_path / "d").mkdir()
    assert_clean_error(run_greendcn("report", tmp_path / "none.duckdb", "-o", tmp_path / "d"), "-o")
