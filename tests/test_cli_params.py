"""Plain command-line values are converted without typer's pydantic adapters, with typer's results and
messages (greendcn.core.cliparams), and a one-flow `simulate` imports neither those adapters nor importlib.metadata
(greendcn.core.startup)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import typer
import typer._coercion as typers
import typer.core

from greendcn import cli  # noqa: F401  (installs the plain conversion)

ONE = Path(__file__).resolve().parent.parent / "scenarios" / "bench-one-flow.toml"

sample = typer.Typer()


@sample.command()
def _all(
    path: Path = typer.Argument(...),
    count: int | None = typer.Option(None, "--count"),
    share: float | None = typer.Option(None, "--share"),
    name: str | None = typer.Option(None, "--name"),
    keys: list[str] | None = typer.Option(None, "--set"),
    paths: list[Path] | None = typer.Option(None, "--path"),
    must: Path | None = typer.Option(None, "--must", exists=True, dir_okay=False),
    bounded: int = typer.Option(1, "--bounded", min=0, max=9),
    flag: bool = typer.Option(False, "--flag"),
) -> None:
    """Every kind of parameter the commands use."""


VALUES = {
    "path": ["a/b", "", "-", ".", Path("a/b"), Path(".")],
    "count": ["7", "007", "+5", "-3", " 4 ", "1_000", "12.0", "1e3", "abc", "", "٣", 7, True, 2.0],
    "share": ["0.5", "1.", ".5", "1e5", "-2.5E-3", "inf", "1_0", "x", 2.5, 3, 2**60, True],
    "name": ["S3", "", "ünï"],
    "keys": [("a=1", "b=2"), ()],
    "paths": [("x", "y/z")],
    "must": [str(ONE), "/no/such/file", str(ONE.parent)],
    "bounded": ["3", "12", "x"],
    "flag": [True, False],
}


def _outcome(runtime: object, value: object, param: object, ctx: object) -> object:
    try:
        return ("value", runtime.coerce(value, param=param, ctx=ctx))  # type: ignore[attr-defined]
    except Exception as e:  # typer's BadParameter, compared by type and message
        return ("error", type(e).__name__, str(e))


@pytest.mark.parametrize("name", list(VALUES))
def test_plain_values_convert_as_typers_adapters_do(name):
    command = typer.main.get_command(sample)
    ctx = command.make_context("sample", ["x"])
    (param,) = [p for p in command.params if p.name == name]
    descriptor = param.type_descriptor
    plain = typer.core.build_runtime_param(descriptor)  # this module's, installed by greendcn.cli
    own = typers.build_runtime_param(descriptor)  # typer's, building a pydantic adapter
    for value in VALUES[name]:
        got, want = _outcome(plain, value, param, ctx), _outcome(own, value, param, ctx)
        assert got == want and type(got[-1]) is type(want[-1]), (name, value, got, want)
    if name in ("path", "count", "share", "name", "keys", "paths", "must"):
        assert type(plain).__name__ == "Plain", name  # converted here, not by an adapter
    if name == "bounded":
        assert type(plain).__name__ != "Plain"  # bounds are typer's


def test_a_bad_option_value_keeps_typers_message():
    from conftest import run_greendcn

    bad = run_greendcn("simulate", str(ONE), "--seed", "x")
    assert bad.returncode == 2, bad.stderr
    assert bad.stderr.splitlines()[0] == (
        "error: Invalid value for '--seed': Input should be a valid integer, unable to parse string as an integer"
    ), bad.stderr


def test_a_one_flow_simulate_builds_no_adapter_nor_reads_package_metadata():
    code = (
        "import sys\n"
        "from greendcn.cli import main\n"
        f"main(['simulate', {str(ONE)!r}, '--set', 'topology.k=4', '--seed', '2'])\n"
        "loaded = [m for m in ('typer._adapters', 'pydantic.type_adapter', 'importlib.metadata', 'email') "
        "if m in sys.modules]\n"
        "print('LOADED', loaded, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "LOADED []" in done.stderr, done.stderr
    assert "seed 2" in done.stdout


def test_plugins_turned_back_on_load_pydantics_own_loader():
    code = (
        "import os, sys\n"
        "import greendcn.cli\n"
        "stand_in = sys.modules['pydantic.plugin._loader']\n"
        "os.environ['PYDANTIC_DISABLE_PLUGINS'] = 'false'\n"
        "from pydantic import BaseModel\n"
        "class A(BaseModel):\n    x: int\n"
        "print(A(x=1).x, stand_in.__file__ if hasattr(stand_in, '__file__') else 'stand-in', "
        "sys.modules['pydantic.plugin._loader'].__file__.endswith('_loader.py'))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["1", "stand-in", "True"], done.stderr
