"""`greendcn simulate`'s command line (typer): its argument and options, and the command registered on the
simulator's app; the work is sim/cli/simulate.py's `run_simulate`."""

from __future__ import annotations

from pathlib import Path

import typer

from ...core.clitools import JsonOption
from ._apps import app
from .simulate import run_simulate

__all__ = ["simulate_cmd"]


def simulate_cmd(
    scenario: Path = typer.Argument(..., help="Scenario TOML file (docs/scenario-format.md)."),
    seed: int | None = typer.Option(None, "--seed", help="Replaces run.seed."),
    json_out: Path | None = JsonOption,
    flows: Path | None = typer.Option(
        None, "--flows", help="CSV src,dst,size_bytes,start_s[,class] replacing the scenario's workload."
    ),
    set_: list[str] | None = typer.Option(None, "--set", help="Override a key: --set routing.scheme=rps."),
    max_memory: str | None = typer.Option(
        None,
        "--max-memory",
        help="Refuse runs estimated to need more, e.g. 4GB (default: the memory available now).",
    ),
    parquet: Path | None = typer.Option(
        None,
        "--parquet",
        help="Also write flows, links, nodes and summary as Parquet files into this folder.",
    ),
) -> None:
    """Simulate one scenario and print a summary per flow class; --json writes flows, links, nodes, summary."""
    code = run_simulate(scenario, seed, json_out, flows, set_, max_memory, parquet)
    if code:
        raise typer.Exit(code)


app.command("simulate")(simulate_cmd)
