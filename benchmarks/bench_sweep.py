"""Benchmark of the sweep platform (greendcn.sweep): what the store and the executor add per run on top of the
jobs, on 1,000 tiny runs (one 1,000-byte flow on a k=4 fat-tree), and the seed 003 matrix (380 runs of
scenarios/sweep-seed003.toml) as a sweep, against `reproduce rps`'s own runner on the same machine.

Overhead per run = (sweep wall - the jobs' own time / workers) / runs, where the jobs' own time is the sum of
`runs.wall_s` (each job's time inside its worker). Inline (one worker) this is the store's and the driver's
cost alone; with a pool it adds the executor's. Ray is started once, before the timed sweeps (its start-up is
reported apart). `python benchmarks/bench_sweep.py --quick` (or GREENDCN_BENCH_QUICK=1): 200 tiny runs, no
seed 003 matrix."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchcommon import is_quick  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

TINY = """
[sweep]
name = "tiny"
[base]
"workload.kind" = "flows"
"workload.flows" = [{{src = 0, dst = 1, size = "1000B"}}]
[axes]
"run.seed" = {{start = 1, stop = {n}}}
"""


def _sweep(spec_path: Path, store: Path, executor: str, workers: int | None) -> tuple[float, float, int]:
    import greendcn.sweep
    from greendcn.sweep.driver import run_sweep
    from greendcn.sweep.spec import load_spec

    spec = load_spec(spec_path, store)
    t0 = time.perf_counter()
    out = run_sweep(spec, executor=executor, workers=workers, progress=False)
    wall = time.perf_counter() - t0
    assert out.failed == 0 and out.done == len(spec.runs), out
    jobs_s = float(greendcn.sweep.open(store).query("SELECT sum(wall_s) AS s FROM runs")["s"][0])
    return wall, jobs_s, out.done


def main(argv: list[str] | None = None) -> None:
    import ray

    quick = is_quick(argv)
    n = 200 if quick else 1000
    tmp = Path(tempfile.mkdtemp(prefix="bench_sweep_"))
    spec = tmp / "tiny.toml"
    spec.write_text(TINY.format(n=n))
    t0 = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    print(f"local Ray start-up (ray.init, 2 CPUs): {time.perf_counter() - t0:.2f} s")
    try:
        for executor, workers in (("local", 1), ("local", 2), ("ray", None)):
            store = tmp / f"tiny-{executor}-{workers}.duckdb"
            wall, jobs_s, runs = _sweep(spec, store, executor, workers)
            w = workers or 2
            over = (wall - jobs_s / w) / runs
            print(
                f"{runs} tiny runs, {executor} x{w}: sweep {wall:.2f} s ({1e3 * wall / runs:.2f} ms/run), jobs "
                f"{1e3 * jobs_s / runs:.2f} ms/run each, overhead of store + executor {1e3 * over:.2f} ms/run"
            )
        if quick:
            return
        matrix = ROOT / "scenarios" / "sweep-seed003.toml"
        for executor, workers in (("local", 2), ("ray", None)):
            wall, jobs_s, runs = _sweep(matrix, tmp / f"seed003-{executor}.duckdb", executor, workers)
            print(
                f"seed 003 matrix as a sweep, {executor} on 2 cores: {runs} runs in {wall:.1f} s (jobs {jobs_s:.1f} s)"
            )
        from greendcn.sim.reproduce.rps import RpsConfig, reproduce_rps

        t0 = time.perf_counter()
        runs_df = reproduce_rps(RpsConfig(), workers=2, progress=False)
        print(
            f"seed 003 matrix by reproduce rps's runner (no store), 2 workers: {len(runs_df)} runs in {time.perf_counter() - t0:.1f} s"
        )
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
