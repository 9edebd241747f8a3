"""Run many independent jobs on a local process pool with a progress bar on stderr.

`run_parallel(func, tasks)` is the one primitive: results come back in task order whatever order the workers
finish in, so a sweep is as deterministic as its jobs. `workers=1` runs inline (no pool), which is also what
happens for a single task. Later executors (a Ray cluster) keep this signature."""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import TYPE_CHECKING, TypeVar

from tqdm import tqdm

from .errors import InputError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["default_workers", "run_parallel", "sweep"]

T = TypeVar("T")
R = TypeVar("R")


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def run_parallel(
    func: Callable[[T], R],
    tasks: Sequence[T],
    workers: int | None = None,
    desc: str = "runs",
    progress: bool = True,
) -> list[R]:
    """Apply `func` (a picklable, module-level function) to every task; return results in task order.

    An exception in any job is raised here after the pool is shut down, naming the task's index."""
    n = len(tasks)
    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise InputError(f"workers must be at least 1, got {workers}")
    bar = tqdm(
        total=n,
        desc=desc,
        unit="run",
        file=sys.stderr,
        disable=not progress or n == 0,
        dynamic_ncols=True,
        leave=False,
    )
    results: list[R | None] = [None] * n
    try:
        if workers == 1 or n <= 1:
            for i, task in enumerate(tasks):
                results[i] = func(task)
                bar.update(1)
            return results  # type: ignore[return-value]
        # spawn: workers start clean, so no lock or thread state of the parent leaks into them.
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=min(workers, n), mp_context=ctx) as pool:
            futures = {pool.submit(func, task): i for i, task in enumerate(tasks)}
            for fut in as_completed(futures):
                i = futures[fut]
                try:
                    results[i] = fut.result()
                except Exception as e:
                    for other in futures:
                        other.cancel()
                    e.add_note(f"in job {i} of {n}")
                    raise
                bar.update(1)
        return results  # type: ignore[return-value]
    finally:
        bar.close()


def _sweep_job(pair: tuple[object, int]) -> pd.DataFrame:
    from ..sim.run import simulate

    scenario, seed = pair
    res = simulate(scenario, seed=seed)  # type: ignore[arg-type]
    df = res.flows.copy()
    df.insert(0, "seed", seed)
    df.insert(0, "scenario", res.summary["scenario"])
    return df


def sweep(
    pairs: Sequence[tuple[object, int]], workers: int | None = None, progress: bool = True
) -> pd.DataFrame:
    """Simulate every (scenario, seed) pair on a process pool; one row per flow, with scenario and seed columns.

    A scenario is a `greendcn.sim.scenario.Scenario`, a raw dict or a TOML path."""
    import pandas as pd

    frames = run_parallel(_sweep_job, list(pairs), workers=workers, desc="simulations", progress=progress)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
