"""Hostile and careless input across every command that reads a file: random bytes, a truncated file, a folder,
an unreadable file, an empty file, Latin-1 text, a byte-order mark. Each must end in the project's error format
(an `error:` line, a `hint:` line, exit 1) or succeed where the input is in fact valid; never a traceback.

Commands run in this process (greendcn.cli.main), so the whole sweep stays well under a minute; the runs
that must not hang run in their own process under a time limit."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from greendcn.cli import main

from conftest import run_greendcn

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "scenarios" / "seed003-static.toml"


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        main([str(a) for a in argv])
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    out = capsys.readouterr()
    return code, out.out, out.err


def assert_clean(code: int, err: str, *, ok_allowed: bool = False) -> None:
    assert "Traceback" not in err, err
    if code == 0 and ok_allowed:
        return
    assert code == 1, (code, err)
    err = err.split("] ", 1)[1] if err.startswith("[") else err
    lines = err.strip().splitlines()
    assert sum(line.startswith("error:") for line in lines) == 1, err
    assert lines[-1].startswith("hint:"), err


# Commands that read a user's file: argv with {} where the file goes.
READERS = {
    "scenario": ["simulate", "{}"],
    "flows": ["simulate", STATIC, "--flows", "{}"],
    "opera-sim-flows": ["reproduce", "opera-paper", "--flows", "{}", "--network", "opera", "-o", "{}.out"],
    "opera-sim-fct": [
        "reproduce",
        "opera-paper",
        "--flows",
        ROOT / "tests/data/opera-sim-flows.htsim",
        "--network",
        "opera",
        "--reference",
        "{}",
        "-o",
        "{}.out",
    ],
    "transmissions": ["nic", "tune", "--transmissions", "{}"],
    "log-oldness": ["lifetime", "oldness", "{}"],
    "log-upgrades": ["lifetime", "upgrades", "{}"],
    "factors": ["lifetime", "carbon", "--lifetime-years", "4", "--factors", "{}"],
    "switch-table": ["energy", "compare", "--nodes", "1024", "--switch-table", "{}"],
    "platform": ["energy", "router", "--platform", "{}"],
    "sweep-spec": ["sweep", "run", "{}", "--workers", "1"],
    "sweep-store": ["sweep", "query", "{}", "SELECT 1"],
    "report-store": ["report", "{}", "-o", "{}.html"],
    "state": ["host", "revert", "--state", "{}", "--root", "{root}"],
    "plan-file": [
        "host",
        "control",
        "--plan",
        "{}",
        "--actuator",
        "none",
        "--duration",
        "10ms",
        "--root",
        "{root}",
    ],
}


def hostile_inputs(tmp_path: Path) -> dict[str, Path]:
    rng = random.Random(20261124)
    files = {}
    for i in range(3):
        p = tmp_path / f"random{i}.bin"
        p.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000))))
        files[f"random{i}"] = p
    text = STATIC.read_text()
    (tmp_path / "truncated.toml").write_text(text[: len(text) // 2])
    files["truncated"] = tmp_path / "truncated.toml"
    (tmp_path / "folder").mkdir()
    files["folder"] = tmp_path / "folder"
    (tmp_path / "empty").write_text("")
    files["empty"] = tmp_path / "empty"
    (tmp_path / "latin1.csv").write_bytes(
        "src,dst,size_bytes,start_s\nS0,S15,200000,0\n# caf\xe9\n".encode("latin-1")
    )
    files["latin1"] = tmp_path / "latin1.csv"
    png = tmp_path / "picture.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    files["png"] = png
    locked = tmp_path / "locked.csv"
    locked.write_text("src,dst,size_bytes,start_s\n")
    locked.chmod(0)
    files["unreadable"] = locked  # as root it is readable: then it is just another input
    files["missing"] = tmp_path / "does-not-exist"
    return files


@pytest.fixture(scope="module")
def fake_root(tmp_path_factory):
    from greendcn.host.fake import build_tree, table1_machine

    return build_tree(tmp_path_factory.mktemp("host") / "t", table1_machine())


@pytest.mark.parametrize("reader", sorted(READERS))
def test_every_file_reading_command_answers_hostile_files_cleanly(reader, tmp_path, capsys, fake_root):
    for name, path in hostile_inputs(tmp_path).items():
        argv = [str(a).replace("{}", str(path)).replace("{root}", str(fake_root)) for a in READERS[reader]]
        code, _out, err = run(argv, capsys)
        # A truncated file may still be valid (half a scenario is a scenario), and root reads any file; an empty
        # scenario is the scenario of all defaults (docs/scenario-format.md).
        valid_possible = name in ("truncated", "unreadable") or (name == "empty" and reader == "scenario")
        assert_clean(code, f"[{name}] {err}" if code else err, ok_allowed=valid_possible)
        if code:
            assert str(path) in err or path.name in err, (name, err)
    os.chmod(tmp_path / "locked.csv", 0o600)


def test_a_flows_csv_with_a_byte_order_mark_and_crlf_line_ends_is_read(tmp_path, capsys):
    flows = tmp_path / "flows.csv"
    flows.write_bytes(b"\xef\xbb\xbfsrc,dst,size_bytes,start_s\r\nS0,S15,20000,0\r\nS1,S14,20000,0\r\n")
    code, out, err = run(["simulate", STATIC, "--flows", flows], capsys)
    assert code == 0, err
    assert "flows 2" in out


@pytest.mark.parametrize(
    "sets, words",
    [
        (["topology.k=1000"], ["250,000,000 hosts", "GiB"]),
        (["workload.long_flows=1000000000"], ["1,000,000,001 flows", "GiB"]),
        (["workload.start_jitter=1e300s"], ["start_jitter", "beyond"]),
    ],
)
def test_sizes_that_explode_are_refused_before_any_allocation(sets, words, capsys):
    argv = ["simulate", STATIC]
    for s in sets:
        argv += ["--set", s]
    code, _out, err = run(argv, capsys)
    assert_clean(code, err)
    for w in words:
        assert w in err, err


def test_a_window_too_narrow_for_the_run_is_an_error_not_an_abort(capsys):
    code, _out, err = run(
        [
            "simulate",
            STATIC,
            "--set",
            "power.window=1ps",
            "--set",
            "workload.long_flows=1",
            "--set",
            "workload.long_size=100KB",
        ],
        capsys,
    )
    assert_clean(code, err)
    assert "power.window" in err and "windows" in err


def test_deeply_nested_toml_is_an_error(tmp_path, capsys):
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    code, _out, err = run(["simulate", deep], capsys)
    assert_clean(code, err)


@pytest.mark.parametrize("levels", [17, 3000])
def test_deeply_nested_tables_are_an_error_naming_the_key(levels, tmp_path, capsys):
    # `[a.a.a...]` parses without recursion, but copying and validating the tables would exhaust the stack
    deep = tmp_path / "deep.toml"
    deep.write_text("[" + ".".join(["a"] * levels) + "]\nx = 1\n")
    code, _out, err = run(["simulate", deep], capsys)
    assert_clean(code, err)
    assert "deep.toml" in err and "a.a.a.a..." in err and "nested more than 16 levels" in err
    code, _out, err = run(["simulate", STATIC, "--set", ".".join(["b"] * levels) + "=1"], capsys)
    assert_clean(code, err)


def test_an_empty_scenario_is_the_scenario_of_all_defaults(tmp_path, capsys):
    (tmp_path / "empty.toml").write_text("")
    (tmp_path / "comment.toml").write_text("# nothing but a comment\n")
    outs = []
    for name in ("empty.toml", "comment.toml"):
        code, out, err = run(["simulate", tmp_path / name, "--set", "workload.size=100KB"], capsys)
        assert code == 0 and "warning" not in err, err  # the defaults run cleanly (docs/scenario-format.md)
        outs.append(out.split("engine wall")[0].replace("scenario comment", "scenario empty"))
    assert outs[0] == outs[1]


def test_a_missing_workload_file_names_the_scenario_key(tmp_path, capsys):
    sc = tmp_path / "s.toml"
    sc.write_text('[workload]\nkind = "flows"\nfile = "nowhere.csv"\n')
    code, _out, err = run(["simulate", sc], capsys)
    assert_clean(code, err)
    assert "workload.file" in err and "nowhere.csv" in err and "--flows" not in err


def test_the_memory_limit_option_refuses_quickly(capsys):
    code, _out, err = run(["simulate", STATIC, "--max-memory", "10MB"], capsys)
    assert_clean(code, err)
    assert "--max-memory" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--bogus"],
        ["simulate", STATIC, "--seed", "abc"],
        ["energy", "compare", "--bogus"],
        ["energy", "compare", "--max-tiers", "many"],
        ["host", "layout", "--bogus"],
        ["host", "plan", "--cores-per-port", "x", "--port", "e"],
        ["host", "tdma", "model", "--bogus"],
        ["host", "tdma", "model", "--duty", "nan"],
        ["lifetime", "oldness", "--bogus"],
        ["lifetime", "carbon", "--lifetime-years", "nan"],
        ["nic", "model", "--bogus"],
        ["nic", "model", "--cores", "inf"],
        ["reproduce", "rps", "--bogus"],
        ["reproduce", "rps", "--seeds", "ten"],
        ["no-such-command"],
    ],
)
def test_usage_errors_use_the_project_s_format_and_exit_2(argv, capsys):
    code, _out, err = run(argv, capsys)
    assert "Traceback" not in err and "╭" not in err, err
    assert code == 2, (code, err)
    lines = err.strip().splitlines()
    assert lines[0].startswith("error:") and lines[-1].startswith("hint:"), err


def test_json_to_standard_output_and_bad_json_paths_refused_before_the_work(tmp_path, capsys):
    import json

    code, out, err = run(["energy", "compare", "--nodes", "1024", "--json", "-"], capsys)
    assert code == 0, err
    assert json.loads(out)["records"]  # stdout holds the JSON document alone
    assert not (Path.cwd() / "-").exists()
    (tmp_path / "file").write_text("x")
    for bad in (tmp_path, tmp_path / "file" / "x.json"):
        code, out, err = run(["energy", "compare", "--nodes", "1024", "--json", bad], capsys)
        assert_clean(code, err)
        assert "--json" in err and out == ""  # refused before any table was printed


def test_a_log_with_no_readable_line_is_an_error(tmp_path, capsys):
    log = tmp_path / "bad.log"
    log.write_text("this is not an access log line\n" * 50)
    code, _out, err = run(["lifetime", "oldness", log], capsys)
    assert_clean(code, err)
    assert "no line of the logs could be read" in err


def test_log_lines_dated_in_the_future_are_flagged_and_left_out(tmp_path, capsys):
    ua = (
        "Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/118.0.0.0 Mobile Safari/537.36"
    )
    log = tmp_path / "access.log"
    log.write_text(
        f'1.1.1.1 - ann [10/Oct/2023:10:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "{ua}"\n'
        f'1.1.1.1 - bob [10/Oct/2099:10:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "{ua}"\n'
    )
    code, out, err = run(["lifetime", "oldness", log, "--json", tmp_path / "o.json"], capsys)
    assert code == 0, err
    assert "1 sightings dated outside 1995-01 .. tomorrow (months 2099-10)" in err
    assert "2099" not in out


@pytest.mark.parametrize(
    "args, words",
    [
        (["--users", "1000000000"], "users"),
        (["--end", "2099-12"], "this month"),
        (["--start", "1980-01"], "1995-01"),
    ],
)
def test_synthetic_logs_refuse_absurd_sizes_and_dates(args, words, tmp_path, capsys):
    code, _out, err = run(["lifetime", "synth", "--out", tmp_path, *args], capsys)
    assert_clean(code, err)
    assert words in err and not list(tmp_path.iterdir())


ROTORNET = ROOT / "scenarios" / "rotornet-permutation.toml"


def test_a_circuit_fabric_too_slow_for_its_windows_is_refused_naming_the_users_key(capsys):
    # 1 Mb/s needs 12 ms for one packet, the 200 us slots never carry one: the run could never end.
    code, _out, err = run(["simulate", ROTORNET, "--set", "topology.link_rate=1Mbps"], capsys)
    assert_clean(code, err)
    assert "nothing could ever be sent" in err and "topology.link_rate" in err, err


@pytest.mark.parametrize("setting", ["topology.link_delay=1e6s", "workload.start_jitter=1e6s"])
def test_circuit_runs_with_huge_delays_or_late_starts_finish(setting, tmp_path):
    # A fibre taking 11.6 days to cross, or flows starting up to 11.6 days in: slots with nothing to do are
    # skipped, so the run completes in a few thousand events instead of ticking through billions of slots.
    # In its own process with a time limit (a second or two is enough), so that a regression fails, not hangs.
    out_json = tmp_path / "r.json"
    out = run_greendcn("simulate", ROTORNET, "--set", setting, "--json", out_json, timeout=300)
    assert out.returncode == 0, out.stderr
    s = json.loads(out_json.read_text())["summary"]
    assert s["stopped_by"] == "completion" and s["events"] < 1_000_000, s
