"""Benchmark of the green optimizer: time to plan a 64-core, 16-frequency software router (seed 004 model)."""

from __future__ import annotations

import time

import numpy as np


def _platform(idle_per_core: bool = True):
    from greendcn.power import RouterPlatform

    # A synthetic 64-core platform with 16 frequencies, shaped like the shipped example (r_max and
    # Phi_active linear in f; gamma 0.9 per extra core). Only its size matters for the timing.
    f = np.linspace(1.2e9, 3.2e9, 16)
    r_max = 1.04e6 * f / 3e9
    return RouterPlatform(
        "bench-64x16",
        tuple(f),
        tuple(r_max),
        tuple(5 + f / 1e9),
        tuple(4 + 24e-6 * r_max),
        gamma=tuple(1 + 0.9 * n for n in range(64)),
        idle_per_core=idle_per_core,
        inactive_core_w=0.5,
    )


def main() -> None:
    import math

    from greendcn.power import default_plan, optimize

    p = _platform()
    plans = sum(16**n * math.comb(512 + n - 1, n - 1) for n in range(1, 65))
    print(f"exhaustive search on 512 quanta would evaluate about 10^{math.log10(plans):.0f} plans")
    for load in (5e6, 30e6):
        for units in (256, 512):
            t0 = time.perf_counter()
            plan = optimize(p, load, units=units)
            dt = time.perf_counter() - t0
            base = default_plan(p, load).power_w
            print(
                f"optimize 64 cores x 16 freqs, load {load / 1e6:g} Mpps, {units} quanta: {dt:.2f} s; "
                f"{plan.active_cores} active cores, {plan.power_w:.1f} W vs default {base:.1f} W"
            )
    # A platform-wide idle (drawn once, at the highest active frequency) repeats the search per frequency.
    shared = _platform(idle_per_core=False)
    t0 = time.perf_counter()
    plan = optimize(shared, 5e6, units=256)
    dt = time.perf_counter() - t0
    print(
        f"optimize 64 cores x 16 freqs, shared idle, load 5 Mpps, 256 quanta: {dt:.2f} s; "
        f"{plan.active_cores} active cores, {plan.power_w:.1f} W vs default {default_plan(shared, 5e6).power_w:.1f} W"
    )


if __name__ == "__main__":
    main()
