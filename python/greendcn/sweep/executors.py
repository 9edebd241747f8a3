"""Where runs execute: `local` (a process pool on this machine; inline for one worker) or `ray` (a Ray cluster,
an existing one at `address` or a local one started for the sweep). Both return every result to the driver,
which alone writes the store, and both retry a run whose job crashed or whose worker was lost, at most
`retries` times; a job refusing its input (InputError) fails at once, since running it again cannot help.

`results` yields lists of finished runs, each (run, result, attempts): `result` is `jobs.execute`'s dict of
the last attempt, `attempts` one record per execution. A list may be empty: nothing finished for a moment,
which tells the driver to commit what it holds."""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from ..core.errors import InputError
from .jobs import execute
from ..core.pool import default_workers

__all__ = ["EXECUTORS", "Executor", "LocalExecutor", "RayExecutor", "make_executor"]

EXECUTORS = ("local", "ray")


def _lost(e: BaseException) -> dict[str, Any]:
    return {
        "status": "error",
        "output": None,
        "error": f"worker lost: {type(e).__name__}: {e}",
        "wall_s": None,
        "worker": None,
    }


class Executor:
    """Submit and wait; the retry loop is shared."""

    workers = 1

    def submit(self, kind: str, job: dict[str, Any]) -> Any:
        raise NotImplementedError

    def wait(self, handles: list[Any], timeout: float) -> list[tuple[Any, dict[str, Any]]]:
        """The handles finished within `timeout` seconds, with their results (a lost worker is an `error`)."""
        raise NotImplementedError

    def close(self) -> None:
        pass

    def window(self) -> int:
        # Runs in flight at once: enough to keep every worker busy, few enough that a lost pool costs little.
        return 2 * self.workers

    def results(
        self, kind: str, runs: list[Any], retries: int, idle_s: float = 0.1
    ) -> Iterator[list[tuple[Any, dict[str, Any], list[dict[str, Any]]]]]:
        queue = deque(runs)
        inflight: dict[Any, Any] = {}
        tries: dict[str, list[dict[str, Any]]] = {}
        try:
            while queue or inflight:
                while queue and len(inflight) < self.window():
                    run = queue.popleft()
                    inflight[self.submit(kind, run.job)] = run
                finished = []
                for handle, res in self.wait(list(inflight), idle_s):
                    run = inflight.pop(handle)
                    rec = {k: res.get(k) for k in ("status", "error", "wall_s", "worker")}
                    tries.setdefault(run.key, []).append(rec)
                    if res["status"] == "error" and len(tries[run.key]) <= retries:
                        queue.append(run)  # retried after the runs already queued
                        continue
                    finished.append((run, res, tries.pop(run.key)))
                yield finished
        finally:
            self.close()


class _Done:
    """A finished inline job, shaped like a future."""

    def __init__(self, res: dict[str, Any]):
        self.res = res


class LocalExecutor(Executor):
    def __init__(self, workers: int | None = None):
        self.workers = default_workers() if workers is None else workers
        if self.workers < 1:
            raise InputError(f"--workers: must be at least 1, got {self.workers}", hint="e.g. --workers 2")
        self.pool: ProcessPoolExecutor | None = None

    def submit(self, kind: str, job: dict[str, Any]) -> Any:
        if self.workers == 1:
            return _Done(execute(kind, job))
        if self.pool is None:
            # spawn: workers start clean, with no lock or thread state of the driver (DuckDB's included)
            self.pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"))
        return self.pool.submit(execute, kind, job)

    def window(self) -> int:
        # inline, a job runs when submitted: a few at a time keeps the driver's commits few
        return 16 if self.workers == 1 else super().window()

    def wait(self, handles: list[Any], timeout: float) -> list[tuple[Any, dict[str, Any]]]:
        if self.workers == 1:
            return [(h, h.res) for h in handles]
        done, _ = wait(handles, timeout=timeout, return_when=FIRST_COMPLETED)
        out = []
        broken = False
        for f in done:
            f: Future = f  # type: ignore[no-redef]
            try:
                out.append((f, f.result()))
            except Exception as e:  # BrokenProcessPool: a worker died (killed, out of memory)
                broken = True
                out.append((f, _lost(e)))
        if broken and self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None  # a fresh pool for the retries
        return out

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None


class RayExecutor(Executor):
    def __init__(self, address: str | None = None, workers: int | None = None):
        try:
            import ray
        except ImportError:
            raise InputError(
                "--executor ray: the ray package is not installed", hint="pip install ray"
            ) from None
        self.ray = ray
        self.owned = False
        if not ray.is_initialized():
            opts: dict[str, Any] = {
                "include_dashboard": False,
                "log_to_driver": False,
                "logging_level": "ERROR",
            }
            try:
                if address:
                    ray.init(address=address, **opts)
                else:
                    ray.init(num_cpus=workers or default_workers(), **opts)
            except ConnectionError as e:
                raise InputError(
                    f"--address {address}: no Ray cluster there ({e})",
                    hint="start one with `ray start --head`, or leave out --address for a local Ray",
                ) from None
            self.owned = True
        self.workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        # max_retries=0: the driver retries (bounded, counted in the store) rather than Ray behind its back
        self.remote = ray.remote(max_retries=0)(execute)

    def submit(self, kind: str, job: dict[str, Any]) -> Any:
        return self.remote.remote(kind, job)

    def wait(self, handles: list[Any], timeout: float) -> list[tuple[Any, dict[str, Any]]]:
        ready, _ = self.ray.wait(handles, num_returns=1, timeout=timeout)
        if ready:  # and whatever else is ready now, so that results come back in batches
            more, _ = self.ray.wait(
                [h for h in handles if h not in ready], num_returns=len(handles) - 1, timeout=0
            )
            ready = ready + more if len(handles) > 1 else ready
        out = []
        for ref in ready:
            try:
                out.append((ref, self.ray.get(ref)))
            except self.ray.exceptions.RayError as e:  # the worker or its node was lost
                out.append((ref, _lost(e)))
        return out

    def close(self) -> None:
        if self.owned:
            self.ray.shutdown()
            self.owned = False


def make_executor(name: str, workers: int | None = None, address: str | None = None) -> Executor:
    if name == "local":
        if address:
            raise InputError("--address: only the ray executor takes an address", hint="add --executor ray")
        return LocalExecutor(workers)
    if name == "ray":
        return RayExecutor(address, workers)
    raise InputError(f"--executor: unknown executor {name!r}", hint=f"choose one of {', '.join(EXECUTORS)}")
