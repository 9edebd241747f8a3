"""Experiments as data: sweeps from a spec file, a DuckDB results store, local or Ray executors, an HTML report.

- `run_parallel` and `sweep` (re-exported from `greendcn.core.pool`, the in-memory process pool the reproductions
  and the NIC tuner use; `sweep.pool` keeps the old import path);
- `spec`: a sweep spec (TOML) checked and expanded into runs, each with a stable key;
- `jobs`: the job kinds a spec can name (`simulate`, `router_power`), each a function of its parameters;
- `store`: the DuckDB file the driver alone writes, one transaction per finished run;
- `executors`: the local process pool and Ray, both with bounded retries;
- `report`: a self-contained HTML page of a store; `cli`: `greendcn sweep run|query` and `greendcn report`.
docs/sweeps.md walks through an example."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.pool import default_workers, run_parallel, sweep

if TYPE_CHECKING:
    from pathlib import Path

    from .store import Results

__all__ = ["default_workers", "open", "run_parallel", "sweep"]


def open(store: str | Path) -> Results:  # noqa: A001 - `greendcn.sweep.open(store)` reads like the builtin
    """A results store, read-only: `.runs`, `.summaries`, `.flows`, `.devices`, `.attempts` and `.query(sql)`
    return pandas DataFrames. Each read opens the file briefly, so a sweep can write it between reads."""
    from .store import Results

    return Results(store)
