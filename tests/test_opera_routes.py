"""Opera's low-latency routing table: every entry starts a shortest path of its slice, following the table
hop by hop reaches the destination in exactly the slice's hop count, and unreachable pairs are marked."""

from __future__ import annotations

import numpy as np

from greendcn.sim.optical.opera_routes import NO_PATH, next_switch_table, opera_spec_table
from greendcn.sim.topology.opera import OperaParams, build_opera


def test_following_the_table_takes_the_shortest_path_in_every_slice():
    sched = build_opera(OperaParams(racks=16, switches=4, search_moves=200))
    table = next_switch_table(sched)
    assert table.shape == (16, 16, 16)
    for t in range(sched.slices):
        dist = sched.hops(t)
        for a in range(16):
            for d in range(16):
                if a == d or not np.isfinite(dist[a, d]):
                    assert table[t, a, d] == NO_PATH
                    continue
                s = int(table[t, a, d])
                assert s != sched.reconfiguring(t)  # the switch about to reconfigure carries no low latency
                at, steps = a, 0
                while at != d:
                    at = int(sched.partners[sched.held(int(table[t, at, d]), t)][at])
                    steps += 1
                assert steps == dist[a, d]


def test_the_spec_entry_is_flat_and_sized():
    sched = build_opera(OperaParams(racks=8, switches=4, search_moves=50))
    entry = opera_spec_table(sched, slice_ps=100_000_000, cutoff_bytes=15_000_000)
    assert entry["slices"] == 8 and len(entry["next_switch"]) == 8 * 8 * 8
    assert entry["cutoff_bytes"] == 15_000_000
