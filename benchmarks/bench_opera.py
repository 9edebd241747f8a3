"""Benchmark of Opera's schedule search (seed 001 section 2.6's 108 racks, 6 switches): wall time of the search
and of the per-slice low-latency paths, and the quality it reaches (mean and max hops)."""

from __future__ import annotations

import time


def main() -> None:
    from greendcn.sim.topology.opera import OperaParams, build_opera, slice_stats

    for moves in (0, 1000):
        t0 = time.perf_counter()
        sched = build_opera(OperaParams(search_moves=moves))
        search_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        st = slice_stats(sched)
        stats_s = time.perf_counter() - t1
        print(
            f"108 racks x 6 switches, {moves} scored moves: search + slice paths {search_s:.2f} s "
            f"(slice paths alone {stats_s:.2f} s), mean hops {st['mean_hops'].mean():.3f}, "
            f"max hops {int(st['max_hops'].max())}, {moves / search_s if moves else 0:.0f} moves/s"
        )
