"""Listed paths of an Opera slice: the k shortest simple rack paths between two racks over the slice's
low-latency graph, shortest first, as a topology file of the public Opera simulator lists them per rack pair and
slice (its sources draw one listed path per packet, src/opera/queue.cpp line 503). With k = 5 and paths
longer than the shortest kept, such a list spreads a rack pair's packets over more first hops and longer paths
than shortest-path spraying does; docs/opera-paper.md measures what that does to flow completion times.

Our code, for analysis (the circuit engine lists paths the same way itself with `routing.opera_paths`,
crates/engine/src/circuit/opera_paths.rs, and routes NDP over them): paths of each length are found by a
depth-first search that only steps to racks still close enough to the destination, lengths tried from the
shortest up to `max_slack` hops more. Among paths of equal length the order is the search's, over switches in
increasing number (deterministic); the simulator's generator takes Yen's order."""

from __future__ import annotations

import numpy as np

from .opera import OperaSchedule

__all__ = ["listed_paths", "listed_path_stats"]


def _neighbours(sched: OperaSchedule, t: int) -> list[list[int]]:
    n = sched.params.racks
    out: list[list[int]] = [[] for _ in range(n)]
    for m in sched.low_latency_matchings(t):
        partner = sched.partners[m]
        for a in range(n):
            if partner[a] != a:
                out[a].append(int(partner[a]))
    return out


def listed_paths(
    sched: OperaSchedule,
    t: int,
    src: int,
    dst: int,
    k: int = 5,
    max_slack: int = 4,
    _cache: tuple[list[list[int]], np.ndarray] | None = None,
) -> list[list[int]]:
    """Up to k simple paths (rack sequences from src to dst) over slice t's low-latency graph, shortest first."""
    nbrs, dist = _cache if _cache is not None else (_neighbours(sched, t), sched.hops(t))
    if src == dst or not np.isfinite(dist[src, dst]):
        return []
    to_dst = dist[:, dst]
    shortest = int(to_dst[src])
    found: list[list[int]] = []

    def walk(path: list[int], on: set[int], budget: int) -> None:
        x = path[-1]
        if x == dst:
            if len(path) - 1 == budget:
                found.append(list(path))
            return
        left = budget - (len(path) - 1)
        for y in nbrs[x]:
            if len(found) >= k:
                return
            if y not in on and to_dst[y] <= left - 1:
                path.append(y)
                on.add(y)
                walk(path, on, budget)
                on.discard(y)
                path.pop()

    for slack in range(max_slack + 1):
        if len(found) >= k:
            break
        walk([src], {src}, shortest + slack)
    return found[:k]


def listed_path_stats(sched: OperaSchedule, slices: list[int], k: int = 5) -> dict[str, float]:
    """Over the given slices and every rack pair i != j: the mean hops of a listed path drawn uniformly per
    packet, the mean shortest hops, the mean number of distinct first hops, and the share of pairs whose
    listed paths all leave by one first hop."""
    n = sched.params.racks
    hops, shortest, firsts, single, pairs = 0.0, 0.0, 0.0, 0, 0
    for t in slices:
        cache = (_neighbours(sched, t), sched.hops(t))
        for a in range(n):
            for b in range(n):
                if a == b:
                    continue
                paths = listed_paths(sched, t, a, b, k, _cache=cache)
                if not paths:
                    continue
                pairs += 1
                hops += float(np.mean([len(p) - 1 for p in paths]))
                shortest += len(paths[0]) - 1
                first = {p[1] for p in paths}
                firsts += len(first)
                single += len(first) == 1
    return {
        "mean_listed_hops": hops / pairs,
        "mean_shortest_hops": shortest / pairs,
        "first_hops_per_pair": firsts / pairs,
        "one_first_hop_share": single / pairs,
    }
