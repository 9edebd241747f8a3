"""A plain `greendcn simulate` command line runs without typer (greendcn/launch.py): the values it gives the
command are typer's for every plain form, any other command line goes to typer, the option table matches the
typer command's, and the program run this way imports no typer and prints what the typer way prints."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import typer

from greendcn import cli, launch
from greendcn.sim.cli import simulate_app

ONE = Path(__file__).resolve().parent.parent / "scenarios" / "bench-one-flow.toml"

PLAIN = [
    ["simulate", "s.toml"],
    ["simulate", "s.toml", "--seed", "7"],
    ["simulate", "--seed=+7", "s.toml"],
    ["simulate", "s.toml", "--json", "-", "--flows", "f.csv", "--parquet", "out/p"],
    ["simulate", "s.toml", "--set", "topology.k=4", "--set=routing.scheme=rps", "--max-memory", "4GB"],
    ["simulate", "dir/with space.toml", "--json=o.json", "--seed", "0012"],
]

NOT_PLAIN = [
    ["simulate"],
    ["simulate", "--help"],
    ["simulate", "s.toml", "--help"],
    ["simulate", "s.toml", "--seed", "x"],
    ["simulate", "s.toml", "--seed", "-1"],
    ["simulate", "s.toml", "--seed", "1", "--seed", "2"],
    ["simulate", "s.toml", "--seed"],
    ["simulate", "s.toml", "--sed", "1"],
    ["simulate", "s.toml", "t.toml"],
    ["simulate", "s.toml", "--", "x"],
    ["simulate", "s.toml", "--json", ""],
    ["simulate", "-"],
    ["demo"],
    [],
]


def _typer_values(argv, monkeypatch):
    seen = {}

    def capture(*args):
        names = ("scenario", "seed", "json_out", "flows", "set_", "max_memory", "parquet")
        seen.update(zip(names, args))
        return 0

    monkeypatch.setattr(simulate_app, "run_simulate", capture)
    try:
        cli.main(argv)
    except SystemExit as e:
        assert not e.code, e
    if seen.get("set_") is not None:
        seen["set_"] = list(seen["set_"])
    return seen


@pytest.mark.parametrize("argv", PLAIN)
def test_a_plain_command_line_gives_the_command_typers_values(argv, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    mine = launch.plain_simulate(argv)
    assert mine is not None
    assert mine == _typer_values(argv, monkeypatch)
    assert all(type(mine[k]) is type(v) for k, v in _typer_values(argv, monkeypatch).items())


@pytest.mark.parametrize("argv", NOT_PLAIN)
def test_anything_else_is_left_to_typer(argv):
    assert launch.plain_simulate(argv) is None


def test_the_option_table_is_the_typer_commands():
    holder = typer.Typer(add_completion=False)  # as greendcn.cli mounts it
    holder.command("simulate")(simulate_app.simulate_cmd)
    command = typer.main.get_command(holder)
    options = {p.opts[0]: p for p in command.params if p.opts[0].startswith("--")}
    assert set(options) == set(launch.SIMULATE_OPTIONS)
    for name, kind in launch.SIMULATE_OPTIONS.items():
        assert options[name].multiple == (kind == "list"), name
    arguments = [p for p in command.params if not p.opts[0].startswith("--")]
    assert [p.name for p in arguments] == ["scenario"]


def _run(*args, module):
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('TYPER', 'typer' in sys.modules, file=sys.stderr))\n"
        f"sys.argv = ['greendcn', *{list(map(str, args))!r}]\n"
        f"from greendcn.{module} import main\n"
        "main()\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_the_program_runs_a_plain_simulate_without_typer_and_prints_the_same(tmp_path):
    args = ("simulate", ONE, "--set", "topology.k=4", "--json", tmp_path / "a.json")
    plain = _run(*args, module="launch")
    assert plain.returncode == 0 and "TYPER False" in plain.stderr, plain.stderr
    full = _run(*args[:-1], tmp_path / "b.json", module="cli")
    assert full.returncode == 0 and "TYPER True" in full.stderr, full.stderr

    def lines(text):
        return [x for x in text.splitlines() if "engine wall" not in x]

    assert lines(plain.stdout) == lines(full.stdout)


def test_errors_and_exit_statuses_are_the_same_both_ways(tmp_path):
    missing = tmp_path / "nope.toml"
    plain = _run("simulate", missing, module="launch")
    full = _run("simulate", missing, module="cli")
    assert plain.returncode == full.returncode == 1
    assert "TYPER False" in plain.stderr
    assert plain.stderr.splitlines()[:2] == full.stderr.splitlines()[:2]
    assert plain.stderr.startswith("error: ")
    folder = _run("simulate", ONE, "--json", tmp_path, module="launch")
    assert folder.returncode == 1 and folder.stderr.startswith("error: --json:"), folder.stderr
    usage = _run("simulate", ONE, "--seed", "x", module="launch")
    assert usage.returncode == 2 and "TYPER True" in usage.stderr, usage.stderr
