"""The `host tdma` commands, called through their typer app: tables on stdout, JSON with units, clear errors."""

import json

import pandas as pd
from typer.testing import CliRunner

from greendcn.core.errors import InputError
from greendcn.host.tdma.cli import app

runner = CliRunner()


def test_model_prints_the_issue_goodput_and_writes_json(tmp_path):
    out = tmp_path / "m.json"
    r = runner.invoke(
        app,
        [
            "model",
            "--rate",
            "100Gbps",
            "--pace",
            "25Gbps",
            "--period",
            "500us",
            "--duty",
            "0.5",
            "--guard",
            "5us",
            "--prealloc",
            "3us",
            "--d0",
            "3us",
            "--json",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    data = json.loads(out.read_text())
    assert abs(data["goodput_bps"] - 12.25e9) < 1.0
    assert 0 <= data["leak_share"] < 1e-3
    assert "goodput" in r.stdout and "Gb/s" in r.stdout


def test_model_thesis_table_lists_sources():
    r = runner.invoke(app, ["model", "--thesis"])
    assert r.exit_code == 0, r.output
    assert "McGuinness 2021, section 2.5.4" in r.stdout and "agree" in r.stdout


def test_probe_runs_over_veth_and_writes_json(tmp_path):
    out, fit = tmp_path / "p.json", tmp_path / "fit.json"
    r = runner.invoke(
        app,
        [
            "probe",
            "--period",
            "500us",
            "--duty",
            "0.5",
            "--guard",
            "5us",
            "--duration",
            "100ms",
            "--json",
            str(out),
            "--fit",
            str(fit),
        ],
    )
    assert r.exit_code == 0, r.output
    data = json.loads(out.read_text())
    m = data["metrics"]
    assert m["data_received"] > 0 and m["data_received"] == m["data_up"] + m["data_down"] + m["data_wrong"]
    assert set(m["lateness_ns"]) == {"p50", "p99", "p99_9", "max"}
    assert data["schedule"]["guard_ns"] == 5000 and data["schedule"]["slots"] == 200
    assert json.loads(fit.read_text())["d0_s"] > 0
    assert "fixed lag d0 = suggested preallocation" in r.stdout


def test_sweep_writes_csv_and_png(tmp_path):
    r = runner.invoke(
        app, ["sweep", "guard", "--values", "0us,60us", "--duration", "60ms", "--out", str(tmp_path)]
    )
    assert r.exit_code == 0, r.output
    table = pd.read_csv(tmp_path / "tdma_sweep_guard.csv")
    assert list(table["guard"]) == [0, 60_000]
    assert {"down_share", "model_down_share", "goodput_Mbps", "model_goodput_Mbps"} <= set(table.columns)
    assert (tmp_path / "tdma_sweep_guard.png").stat().st_size > 1000
    assert "largest model-measurement gap" in r.stdout


def test_pacing_lists_qdiscs_found_at_run_time():
    r = runner.invoke(app, ["pacing", "--list"])
    assert r.exit_code == 0, r.output
    assert "tbf" in r.stdout and "status" in r.stdout


def test_bad_input_names_the_field_with_a_hint():
    r = runner.invoke(app, ["probe", "--duty", "2"])
    assert isinstance(r.exception, InputError)
    assert "duty" in str(r.exception) and r.exception.hint
    r = runner.invoke(app, ["sweep", "nonsense"])
    assert isinstance(r.exception, InputError) and "guard" in r.exception.hint
    r = runner.invoke(app, ["pacing", "--rates", "fast"])
    assert isinstance(r.exception, InputError) and "rates" in str(r.exception)


def test_model_reads_an_exported_fit(tmp_path):
    from greendcn.host.tdma import LagLaw, save_lag_law

    fit, out = tmp_path / "fit.json", tmp_path / "m.json"
    save_lag_law(fit, LagLaw(d0_s=4e-6, jitter_mean_s=1e-6, stall_prob=1e-4, stall_mean_s=50e-6))
    r = runner.invoke(app, ["model", "--lag-fit", str(fit), "--prealloc", "0us", "--json", str(out)])
    assert r.exit_code == 0, r.output
    data = json.loads(out.read_text())
    assert data["lag"]["d0_s"] == 4e-6 and data["lag"]["stall_prob"] == 1e-4
    # 4 us of lag not preallocated: 25 Gb/s x 1500/1524 x (250 - 5 - 4) / 500 us of payload
    assert abs(data["goodput_bps"] - 25e9 * 1500 / 1524 * 241 / 500) < 1e3


def test_search_runs_a_short_binary_search(tmp_path):
    out = tmp_path / "s.json"
    r = runner.invoke(
        app,
        [
            "search",
            "--period",
            "1ms",
            "--target",
            "0.05",
            "--low",
            "0us",
            "--high",
            "200us",
            "--resolution",
            "50us",
            "--duration",
            "40ms",
            "--json",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    data = json.loads(out.read_text())
    assert 2 <= len(data["steps"]) <= 4  # both ends, then at most two halvings of 200 us down to 50 us
    assert all(s["packets"] > 0 for s in data["steps"])
    if data["met"]:
        assert data["leaked"] <= 0.05 * data["packets"]


def test_probe_pins_the_sender_to_the_chosen_cpu(tmp_path):
    import os

    cpu = min(os.sched_getaffinity(0))
    out = tmp_path / "p.json"
    r = runner.invoke(app, ["probe", "--duration", "20ms", "--sender-cpu", str(cpu), "--json", str(out)])
    assert r.exit_code == 0, r.output
    assert json.loads(out.read_text())["senders"][0]["cpu"] == cpu  # as the sender reports it after pinning
    r = runner.invoke(app, ["probe", "--sender-cpu", "4096"])
    assert isinstance(r.exception, InputError) and "sender-cpu" in str(r.exception)


def test_a_sweep_refuses_every_bad_value_before_its_first_run(tmp_path):
    # 0.5 alone would run; 1.5 must be refused first, so nothing is written to --out.
    for args, field in (
        (["duty", "--values", "abc"], "duty"),
        (["vhosts", "--values", "1.5"], "vhosts"),
        (["duty", "--values", "0.5,1.5"], "duty"),
        (["guard", "--values", "0us,300us"], "guard"),
    ):
        r = runner.invoke(app, ["sweep", *args, "--out", str(tmp_path / "o")])
        assert isinstance(r.exception, InputError), (args, r.output)
        assert field in str(r.exception) and r.exception.hint
    assert not (tmp_path / "o").exists()


def test_model_errors_carry_hints():
    for args in (["--stall-prob", "2"], ["--guard", "300us"], ["--stall-law", "gamma"]):
        r = runner.invoke(app, ["model", *args])
        assert isinstance(r.exception, InputError) and r.exception.hint, args
