"""The root command mounts each capability's commands on first use: `greendcn --help` lists them all from
COMMAND_HELP without importing pandas, numpy or any command module, and each command still runs."""

from __future__ import annotations

import subprocess
import sys

import typer
from conftest import run_greendcn

from greendcn import cli


def test_the_listed_help_is_each_commands_own():
    group = typer.main.get_group(cli.app)
    names = group.list_commands(None)
    assert names[0] == "version" and set(cli.COMMAND_HELP) <= set(names)
    for name in cli.COMMAND_HELP:
        command = group.get_command(None, name)
        assert command is not None and not isinstance(command, cli._Listed), name
        assert command.help == cli.COMMAND_HELP[name], name
    # every sub-app of the table is reachable by its name
    assert {n for n, _m, _a in cli.SUBAPPS if n} <= set(group.commands)


def test_help_imports_no_command_module_nor_pandas():
    code = (
        "import sys\n"
        "from greendcn.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('pandas', 'numpy', 'pyarrow', 'duckdb', 'matplotlib', 'ray', 'greendcn.sim.cli',"
        " 'greendcn.sim.run', 'greendcn.power.cli', 'greendcn.sweep.cli') if m in sys.modules]\n"
        "print('HEAVY', heavy, file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "HEAVY []" in out.stderr, out.stderr
    for name in cli.COMMAND_HELP:
        assert name in out.stdout, name


def test_a_sub_apps_help_and_an_unknown_command_still_work():
    out = run_greendcn("energy", "--help")
    assert out.returncode == 0 and "Usage: greendcn energy" in out.stdout, out.stderr
    bad = run_greendcn("simulat")
    assert bad.returncode == 2 and "error:" in bad.stderr and "simulat" in bad.stderr, bad.stderr
