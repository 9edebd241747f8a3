"""The sweep driver: check the spec, open the store, skip what is finished, run the rest on an executor and
write each run as it comes back. Progress (runs done, failed, left, ETA) goes to stderr."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from .executors import make_executor
from .jobs import versions
from .spec import SweepSpec, load_spec
from .store import Store

__all__ = ["SweepOutcome", "run_sweep"]

# Our choice: a commit costs a few ms whatever it holds, so tiny runs share one; 0.2 s bounds what a kill loses.
COMMIT_EVERY_S = 0.2
COMMIT_MAX = 256


@dataclass
class SweepOutcome:
    name: str
    store: Path
    runs: int
    skipped: int  # finished before this invocation
    done: int
    failed: int
    retried: int  # executions beyond the first, over all runs
    wall_s: float
    executor: str
    failures: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in self.__dict__.items()}


def run_sweep(
    spec: SweepSpec | str | Path,
    store: str | Path | None = None,
    executor: str = "local",
    workers: int | None = None,
    address: str | None = None,
    rerun_failed: bool = False,
    progress: bool = True,
) -> SweepOutcome:
    """Run every run of the spec not yet in the store. The spec is checked in full before the store is touched."""
    t0 = time.perf_counter()
    if not isinstance(spec, SweepSpec):
        spec = load_spec(spec, store)
    elif store is not None:
        spec.store = Path(store)
    with Store(spec.store) as st:
        st.check_params(spec)
        finished = st.finished(rerun_failed)
        todo = [r for r in spec.runs if r.key not in finished]
        out = SweepOutcome(
            spec.name, spec.store, len(spec.runs), len(spec.runs) - len(todo), 0, 0, 0, 0.0, executor
        )
        # before begin_sweep: a Ray that cannot be reached leaves no sweep row; nothing to run starts nothing
        ex = make_executor(executor, workers, address) if todo else None
        try:
            st.begin_sweep(spec)
            if progress:
                where = f"to run on {executor} ({ex.workers} workers)" if ex else "to run: nothing left to do"
                print(
                    f"sweep {spec.name}: {len(spec.runs)} runs, {out.skipped} already in {spec.store}, "
                    f"{len(todo)} {where}",
                    file=sys.stderr,
                    flush=True,
                )
            if ex is not None:
                _drive(spec, st, ex, todo, out, progress)
        finally:
            if ex is not None:
                ex.close()
    out.wall_s = time.perf_counter() - t0
    return out


def _drive(spec: SweepSpec, st: Store, ex: Any, todo: list[Any], out: SweepOutcome, progress: bool) -> None:
    ver = versions()
    bar = tqdm(
        total=len(todo), desc=spec.name, unit="run", file=sys.stderr, disable=not progress, dynamic_ncols=True
    )
    held: list[Any] = []
    since = time.monotonic()

    def commit() -> None:
        st.write_many(held, spec.kind, ver)
        for run, res, attempts in held:
            out.retried += len(attempts) - 1
            if res["status"] == "done":
                out.done += 1
            else:
                out.failed += 1
                out.failures.append(
                    {"key": run.key, "grid": run.grid, "params": run.params, "error": res["error"]}
                )
        bar.set_postfix_str(f"failed={out.failed} left={len(todo) - out.done - out.failed}", refresh=False)
        bar.update(len(held))
        held.clear()

    try:
        for batch in ex.results(spec.kind, todo, spec.retries):
            if not held:
                since = time.monotonic()
            held.extend(batch)
            # Commit when the workers pause, every COMMIT_EVERY_S, or every COMMIT_MAX runs: each run is stored
            # whole, and a kill loses at most the runs in flight and those held this long.
            if held and (not batch or time.monotonic() - since >= COMMIT_EVERY_S or len(held) >= COMMIT_MAX):
                commit()
        if held:
            commit()
    except KeyboardInterrupt:
        if held:  # runs that finished are kept; only those in flight are lost
            commit()
        raise
    finally:
        bar.close()
