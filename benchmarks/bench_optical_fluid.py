"""Benchmark of the RotorLB fluid model (seed 001 Fig 2.10's sweep): 56 densities x 300 random matrices on 8
racks, RotorLB and the one-hop baseline, in one vectorized batch on one core; wall and CPU time in seconds for
each layout (1x7, the thesis's testbed, and 2x4). The issue's target: under 10 s for the 56 x 300 sweep. CPU time
is printed too because a busy shared machine stretches the wall time."""

from __future__ import annotations

import time


def main() -> None:
    import numpy as np

    from greendcn.sim.optical.rotorlb import density_matrices, run_fluid
    from greendcn.sim.optical.rotornet import rotor_matchings

    densities, matrices = 56, 300
    for layout, switches in (("1x7", 1), ("2x4", 2)):
        t0, c0 = time.perf_counter(), time.process_time()
        demand = np.concatenate([density_matrices(8, k, matrices, seed=0) for k in range(1, densities + 1)])
        t1 = time.perf_counter()
        mats = rotor_matchings(8, switches)
        lb = run_fluid(demand, mats, rotorlb=True)
        t2 = time.perf_counter()
        one = run_fluid(demand, mats, rotorlb=False)
        t3, c3 = time.perf_counter(), time.process_time()
        ratio = lb.delivered_per_cycle / one.delivered_per_cycle
        print(
            f"{layout}: {densities} densities x {matrices} matrices ({len(demand)} matrices, 6 + 6 cycles): "
            f"total {t3 - t0:.2f} s wall, {c3 - c0:.2f} s CPU (matrices {t1 - t0:.2f} s, RotorLB {t2 - t1:.2f} s, one-hop {t3 - t2:.2f} s), "
            f"{len(demand) / (t3 - t0):.0f} matrices/s; ratio at k=1 {ratio[:matrices].mean():.3f}, "
            f"k=56 {ratio[-matrices:].mean():.3f}"
        )
