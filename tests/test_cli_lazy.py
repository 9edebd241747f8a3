"""The root command mounts each capability's commands on first use: `greendcn --help` lists them all from
COMMAND_HELP without importing pandas, numpy or any command module, and each command still runs; a small
`simulate` imports no pandas (its tables stay numpy columns until asked for as DataFrames)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import typer
from conftest import run_greendcn

from greendcn import cli

ONE = Path(__file__).resolve().parent.parent / "scenarios" / "bench-one-flow.toml"


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


def test_a_one_flow_simulate_with_json_imports_no_pandas(tmp_path):
    # The run's tables are numpy columns until someone asks for a DataFrame; the power and NIC packages load
    # only the modules the ledger uses; listed flows need none of the workload generators; the FCT percentiles
    # and Bolla's chi(t) import neither numpy.ma nor numpy.polynomial.
    out = tmp_path / "one.json"
    code = (
        "import sys\n"
        "from greendcn.cli import main\n"
        f"main(['simulate', {str(ONE)!r}, '--set', 'topology.k=4', '--json', {str(out)!r}])\n"
        "heavy = [m for m in ('pandas', 'pyarrow', 'scipy', 'pymoo', 'greendcn.power.optimizer',"
        " 'greendcn.power.router_fit', 'greendcn.nic.tuner', 'greendcn.sim.cli.demo', 'numpy.ma',"
        " 'numpy.polynomial', 'greendcn.sim.workload.generate', 'greendcn.sim.workload.distributions',"
        " 'greendcn.sim.workload.table') if m in sys.modules]\n"
        "print('HEAVY', heavy, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "HEAVY []" in done.stderr, done.stderr
    doc = json.loads(out.read_text())
    assert [f["src"] for f in doc["flows"]] == ["S0"] and doc["flows"][0]["fct_s"] > 0


def test_the_result_tables_are_still_dataframes():
    import pandas as pd

    from greendcn.sim import simulate

    res = simulate(ONE, overrides=["topology.k=4"], progress=False)
    assert isinstance(res.flows, pd.DataFrame) and isinstance(res.fct_table, pd.DataFrame)
    assert res.flows["src"].tolist() == ["S0"] and res.links["utilization"].max() > 0
    res.flows["note"] = "mine"  # a change made to the DataFrame stays
    assert res.flows["note"].tolist() == ["mine"]


def test_power_and_nic_names_load_on_first_use():
    code = (
        "import sys, greendcn.power, greendcn.nic\n"
        "assert 'greendcn.power.optimizer' not in sys.modules and 'greendcn.nic.tuner' not in sys.modules\n"
        "import greendcn.nic.crosscheck\n"  # the module of the same name does not hide the function
        "from greendcn.nic import crosscheck\n"
        "from greendcn.power import optimize\n"
        "print(callable(crosscheck), 'greendcn.power.optimizer' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "True"], done.stderr


def test_simulate_as_the_program_ends_quickly_yet_runs_exit_handlers_and_flushes(tmp_path):
    # `greendcn simulate` ends the process without Python's teardown: what it printed and wrote is all there,
    # exit handlers still run (after its output), and an error still exits 1 with its `error:` line.
    out = tmp_path / "one.json"
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('handler ran'))\n"
        f"sys.argv = ['greendcn', 'simulate', {str(ONE)!r}, '--set', 'topology.k=4', '--json', {str(out)!r}]\n"
        "from greendcn.cli import main\n"
        "main()\n"
        "print('not reached: main ends the process')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("scenario bench-one-flow") and done.stdout.endswith("handler ran\n")
    assert "not reached" not in done.stdout
    assert json.loads(out.read_text())["flows"][0]["src"] == "S0"
    bad = run_greendcn("simulate", ONE, "--set", "topology.k=5")
    assert bad.returncode == 1 and bad.stderr.startswith("error: ") and "hint: " in bad.stderr, bad.stderr
