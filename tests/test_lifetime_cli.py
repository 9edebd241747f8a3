"""`greendcn lifetime ...` end to end: clear errors on missing input, bad input read through without a
traceback (parsed + malformed = lines read), the same JSON from a combined log, a CSV and JSON lines, the
synth command, carbon, tables and figures."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest


def run_cli(*args: str, cwd=None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "greendcn.cli", "lifetime", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        cwd=cwd,
    )


def _assert_clean_error(out: subprocess.CompletedProcess[str], *words: str) -> None:
    assert out.returncode == 1, out.stderr
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert lines[-2].startswith("error:") and lines[-1].startswith("hint:"), out.stderr
    for w in words:
        assert w in lines[-2]


@pytest.mark.parametrize("command", ["oldness", "upgrades"])
def test_missing_directory_and_dangling_inputs_are_clear_errors(tmp_path, command):
    _assert_clean_error(run_cli(command, str(tmp_path / "nope.log")), "nope.log", "no such file")
    _assert_clean_error(run_cli(command, str(tmp_path)), "directory")
    (tmp_path / "dangling.log").symlink_to(tmp_path / "gone.log")
    _assert_clean_error(run_cli(command, str(tmp_path / "dangling.log")), "dangling.log")


def test_option_errors_are_clear(tmp_path):
    log = tmp_path / "a.log"
    log.write_text("")
    _assert_clean_error(run_cli("oldness", str(log), "--format", "xml"), "--format")
    _assert_clean_error(run_cli("oldness", str(log), "--column", "colour=c"), "colour")
    _assert_clean_error(run_cli("oldness", str(log), "--month", "13"), "--month")
    _assert_clean_error(run_cli("carbon"), "--lifetime-years")
    bad = tmp_path / "f.csv"
    bad.write_text("device_class,kg_co2e\nsmartphone,lots\n")
    _assert_clean_error(run_cli("carbon", "--lifetime-years", "4", "--factors", str(bad)), "kg_co2e")


GOOD = (
    '10.0.0.1 - u1 [12/Oct/2023:10:00:00 +0000] "POST /webapps/login/ HTTP/1.1" 302 123 "-" '
    '"Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) '
    'Chrome/117.0.5938.60 Mobile Safari/537.36"'
)


def _bad_inputs(tmp_path):
    good = GOOD.encode()
    yield (
        "garbage",
        tmp_path / "garbage.log",
        b"\x00\x01 not a log\n%%%%\n" + good + b"\n" + b"}{" * 40 + b"\n",
    )
    full = gzip.compress((good + b"\n") * 4000)
    yield "truncated gzip", tmp_path / "cut.log.gz", full[: len(full) // 2]
    yield (
        "1 MB line",
        tmp_path / "long.log",
        good + b"\n" + good[:-1] + b"A" * 1_000_000 + b'"\n' + good + b"\n",
    )
    yield (
        "bad UTF-8",
        tmp_path / "utf8.log",
        good + b"\n" + good.replace(b"Mozilla", b"Moz\xff\xfeilla") + b"\n",
    )
    yield "CRLF", tmp_path / "crlf.log", (good + b"\r\n") * 3


def test_bad_input_is_read_through_and_counted(tmp_path):
    for name, path, data in _bad_inputs(tmp_path):
        path.write_bytes(data)
        out_json = tmp_path / f"{path.name}.json"
        out = run_cli("oldness", str(path), "--json", str(out_json))
        assert out.returncode == 0, f"{name}: {out.stderr}"
        assert "Traceback" not in out.stderr, name
        stats = json.loads(out_json.read_text())["input"]
        assert stats["parsed"] + sum(stats["malformed"].values()) == stats["lines_read"], name
        assert stats["lines_read"] > 0, name
        if name == "CRLF":
            assert stats["parsed"] == 3 and stats["kept"] == 3
        if name in ("1 MB line", "bad UTF-8"):
            assert sum(stats["malformed"].values()) == 1 and stats["parsed"] == stats["lines_read"] - 1, name


@pytest.fixture(scope="module")
def synth_dirs(tmp_path_factory):
    """One synthetic population written in the three formats (no client hints, which a combined log lacks)."""
    base = tmp_path_factory.mktemp("synth")
    dirs = {}
    for fmt in ("combined", "csv", "jsonl"):
        d = base / fmt
        gz = ["--gzip"] if fmt == "jsonl" else []
        out = run_cli(
            "synth",
            "--seed",
            "11",
            "--users",
            "150",
            "--out",
            str(d),
            "--format",
            fmt,
            "--client-hints",
            "0",
            *gz,
        )
        assert out.returncode == 0, out.stderr
        dirs[fmt] = d
    return dirs


def test_synth_writes_a_log_and_its_truth(synth_dirs):
    meta = json.loads((synth_dirs["combined"] / "truth.json").read_text())
    assert meta["seed"] == 11 and meta["counts"]["users"] == 150
    for name in ("access.log", "truth_devices.csv", "truth_upgrades.csv", "truth_oldness.csv"):
        assert (synth_dirs["combined"] / name).stat().st_size > 0
    assert (synth_dirs["jsonl"] / "access.jsonl.gz").exists()


def _results(path, command, *extra):
    out_json = path.parent / f"{command}.json"
    out = run_cli(command, str(path), "--json", str(out_json), *extra)
    assert out.returncode == 0, out.stderr
    data = json.loads(out_json.read_text())
    return data.pop("input"), data


@pytest.mark.parametrize("command", ["oldness", "upgrades"])
def test_combined_csv_and_jsonl_give_identical_json(synth_dirs, command):
    logs = {
        "combined": synth_dirs["combined"] / "access.log",
        "csv": synth_dirs["csv"] / "access.csv",
        "jsonl": synth_dirs["jsonl"] / "access.jsonl.gz",
    }
    results = {fmt: _results(p, command) for fmt, p in logs.items()}
    stats, combined = results["combined"]
    assert stats["kept"] > 10_000
    for fmt in ("csv", "jsonl"):
        other_stats, other = results[fmt]
        assert other == combined, fmt
        assert other_stats["kept"] == stats["kept"]


def test_upgrades_cli_prints_tables_and_draws_figures(synth_dirs, tmp_path):
    out = run_cli("upgrades", str(synth_dirs["combined"] / "access.log"), "--figures", str(tmp_path / "fig"))
    assert out.returncode == 0, out.stderr
    assert "upgrades among" in out.stdout and "old device's age at upgrade" in out.stdout
    for name in ("upgrades_per_month.png", "old_age_percentiles.png", "new_age_cdf.png"):
        assert (tmp_path / "fig" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    out = run_cli("oldness", str(synth_dirs["csv"] / "access.csv"), "--figures", str(tmp_path / "fig2"))
    assert out.returncode == 0, out.stderr
    assert "device age in month 10" in out.stdout
    for name in ("browser_age.png", "device_age.png", "os_age.png"):
        assert (tmp_path / "fig2" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_carbon_from_lifetimes_and_from_logs(synth_dirs, tmp_path):
    out = run_cli(
        "carbon", "--lifetime-years", "4", "--class", "smartphone", "--json", str(tmp_path / "c.json")
    )
    assert out.returncode == 0, out.stderr
    row = json.loads((tmp_path / "c.json").read_text())["carbon"][0]
    # 84 kg CO2e per phone is the shipped figure (issue 11); a 4-year life gives 21, one more year 16.8.
    assert row["kg_co2e_per_year_lo"] == pytest.approx(row["kg_co2e_lo"] / 4)
    assert row["kg_co2e_per_year_extended_lo"] == pytest.approx(row["kg_co2e_lo"] / 5)
    out = run_cli("carbon", str(synth_dirs["combined"] / "access.log"), "--json", str(tmp_path / "d.json"))
    assert out.returncode == 0, out.stderr
    row = json.loads((tmp_path / "d.json").read_text())["carbon"][0]
    assert row["device_class"] == "smartphone" and row["devices"] > 20
    assert 1.0 < row["mean_lifetime_years"] < 6.0


def test_tables_lists_every_shipped_table_with_its_provenance(tmp_path):
    out = run_cli("tables", "--json", str(tmp_path / "t.json"))
    assert out.returncode == 0, out.stderr
    rows = json.loads((tmp_path / "t.json").read_text())["tables"]
    assert len(rows) >= 3
    for r in rows:
        assert len(r["sha256"]) == 64 and r["source"] and r["licence"]
