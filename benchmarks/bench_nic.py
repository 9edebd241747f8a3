"""Benchmark of greendcn.nic: model evaluations per second and the wall time of the 47-transmission tuning."""

from __future__ import annotations

import time

import numpy as np


def main() -> None:
    from greendcn.nic import DEFAULT_HOST, evaluate, simulate
    from greendcn.nic.transmissions import load_transmissions, tune_rows
    from greendcn.nic.tuner import tune

    rng = np.random.default_rng(0)
    n = 1_000_000
    modes = rng.integers(0, 4, n)
    params = np.where(modes == 1, 10 ** rng.uniform(-5, -1, n), rng.integers(1, 512, n).astype(float))
    loads = 10 ** rng.uniform(3, 6.3, n)
    evaluate(modes[:10], params[:10], loads[:10])
    t0 = time.perf_counter()
    evaluate(modes, params, loads, 1, DEFAULT_HOST)
    dt = time.perf_counter() - t0
    print(f"model, vectorised: {n / dt:,.0f} evaluations/s ({n:,} settings in {dt:.3f} s)")

    t0 = time.perf_counter()
    for i in range(2000):
        evaluate(int(modes[i]), params[i], loads[i])
    dt = time.perf_counter() - t0
    print(f"model, one call per setting: {2000 / dt:,.0f} evaluations/s")

    t0 = time.perf_counter()
    r = simulate(3, 64, 5e5, n_packets=50_000, seed=0)
    dt = time.perf_counter() - t0
    print(f"event simulation: {r.offered / dt:,.0f} packets/s of wall time (NAPI, 500 kpps, 50,000 packets)")

    rows = load_transmissions()
    for workers in (1, None):
        t0 = time.perf_counter()
        tune_rows(rows, workers=workers, progress=False)
        dt = time.perf_counter() - t0
        print(f"47-transmission tuning (workers={workers or 'all cores'}): {dt:.2f} s wall")

    txs = [r.transmission() for r in rows]
    t0 = time.perf_counter()
    res = tune(txs, seed=0, pop_size=60, n_gen=60, max_latency_s=10e-3)
    dt = time.perf_counter() - t0
    print(
        f"joint tuning, 47 NICs on one core: {dt:.2f} s wall, {res.n_evaluations:,} distinct evaluations "
        f"({res.n_evaluations / dt:,.0f}/s through the GA and cache)"
    )


if __name__ == "__main__":
    main()
