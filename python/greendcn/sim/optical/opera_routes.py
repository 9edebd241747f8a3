"""Opera's low-latency routing table for the circuit engine (docs/circuit-engine.md, routing "opera"): for
every topology slice, endpoint and destination, the circuit switch whose current circuit is the first hop of a
shortest path over that slice's expander (the u - 1 switches that do not reconfigure at the slice's end,
`OperaSchedule.low_latency_matchings`). Where several switches start shortest paths, the lowest-numbered one
is taken (our choice: deterministic, and every choice is shortest). 255 marks "no path" (a disconnected slice).

The engine re-reads the table at every hop, so a packet caught by a slice change continues on the new slice's
shortest path from where it is (seed 001 lines 914-918), and the move is counted as a re-route.

NDP's packets spray instead (`spray_table`): every switch that starts a shortest path is marked, and the engine
draws one at random per packet and hop (docs/circuit-engine.md, routing "opera")."""

from __future__ import annotations

import numpy as np

from ..topology.opera import OperaSchedule

__all__ = ["NO_PATH", "next_switch_table", "opera_spec_table"]

NO_PATH = 255
NO_CIRCUIT = 2**32 - 1


def _first_hops(sched: OperaSchedule, t: int):
    """Per switch s up in slice t: (s, good), good[a, d] when s's circuit from a starts a shortest path to d."""
    n = sched.params.racks
    ids = np.arange(n)
    dist = sched.hops(t)
    reconf = sched.reconfiguring(t)
    for s in range(sched.params.switches):
        if s == reconf:
            continue
        partner = sched.partners[sched.held(s, t)]  # partner[a]: the endpoint a reaches on switch s
        moves = partner != ids
        # s starts a shortest path from a to d when its circuit lands one hop closer to d.
        good = (dist[partner, :] == dist - 1) & moves[:, None] & np.isfinite(dist)
        good[ids, ids] = False
        yield s, good


def next_switch_table(sched: OperaSchedule) -> np.ndarray:
    """(slices, N, N) uint8: the switch to leave by, per slice, endpoint and destination."""
    n, u = sched.params.racks, sched.params.switches
    if u >= NO_PATH:
        raise ValueError("more than 254 circuit switches do not fit the engine's table")
    table = np.full((sched.slices, n, n), NO_PATH, dtype=np.uint8)
    for t in range(sched.slices):
        for s, good in _first_hops(sched, t):
            free = table[t] == NO_PATH
            table[t][good & free] = s
    return table


def spray_table(sched: OperaSchedule) -> np.ndarray:
    """(slices, N, N) uint64: bit s set when switch s starts a shortest path, per slice, endpoint and
    destination (every first hop `next_switch_table` chooses among; the engine's `opera.spray`)."""
    n, u = sched.params.racks, sched.params.switches
    if u > 64:
        raise ValueError("spraying covers at most 64 circuit switches")
    table = np.zeros((sched.slices, n, n), dtype=np.uint64)
    for t in range(sched.slices):
        for s, good in _first_hops(sched, t):
            table[t][good] |= np.uint64(1) << np.uint64(s)
    return table


def circuit_table(sched: OperaSchedule) -> np.ndarray:
    """(slices, N, switches) uint32: the endpoint switch s's circuit from a reaches in slice t's low-latency
    graph, NO_CIRCUIT where s reconfigures in the slice or holds a to itself (the engine's `opera.circuits`,
    over which it lists paths)."""
    n, u = sched.params.racks, sched.params.switches
    ids = np.arange(n)
    table = np.full((sched.slices, n, u), NO_CIRCUIT, dtype=np.uint32)
    for t in range(sched.slices):
        reconf = sched.reconfiguring(t)
        for s in range(u):
            if s == reconf:
                continue
            partner = sched.partners[sched.held(s, t)]
            table[t, :, s] = np.where(partner != ids, partner, NO_CIRCUIT)
    return table


def opera_spec_table(
    sched: OperaSchedule,
    slice_ps: int,
    cutoff_bytes: int,
    origin_ps: int = 0,
    spray: bool = False,
    paths: int = 0,
) -> dict:
    """The engine spec's `opera` entry; with `spray`, the table NDP's packets spray over (`spray_table`); with
    `paths` = k > 0, the slices' circuits over which the engine lists k paths per rack pair for NDP's packets."""
    table = next_switch_table(sched)
    out = {
        "slice_ps": int(slice_ps),
        "origin_ps": int(origin_ps),
        "slices": int(table.shape[0]),
        "cutoff_bytes": int(cutoff_bytes),
        "next_switch": table.ravel().tolist(),
    }
    if spray:
        out["spray"] = spray_table(sched).ravel().tolist()
    if paths:
        out["paths"] = int(paths)
        out["circuits"] = circuit_table(sched).ravel().tolist()
    return out
