"""`greendcn reproduce rps --report`: the reproduction also runs as the shipped seed 003 sweep into a DuckDB
store beside its CSVs and writes the HTML report from it (the page itself is checked in Chromium by
tests/test_sweep_report.py)."""

from __future__ import annotations

import duckdb
import pytest

from conftest import assert_clean_error, run_greendcn


def test_report_needs_the_default_matrix(tmp_path):
    out = run_greendcn("reproduce", "rps", "--quick", "--report", "--out", tmp_path)
    assert_clean_error(out, "--report", "default matrix")
    assert not (tmp_path / "seed003.duckdb").exists()


@pytest.mark.slow
def test_report_writes_the_store_and_the_page(tmp_path):
    out = run_greendcn("reproduce", "rps", "--report", "--out", tmp_path, "--json", tmp_path / "r.json")
    assert out.returncode == 0, out.stderr
    html = (tmp_path / "report.html").read_text()
    assert "kaymak 2016" in html.lower() and "plotly" in html.lower()
    con = duckdb.connect(str(tmp_path / "seed003.duckdb"), read_only=True)
    try:
        assert con.execute("select count(*) from runs").fetchone()[0] == 380
    finally:
        con.close()
