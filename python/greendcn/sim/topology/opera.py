"""Opera's circuit schedule (seed 001 section 2.6, lines 908-931): N racks, u rotor switches, N symmetric
matchings that together meet every rack pair (a rack with itself included) exactly once per cycle, N/u of them
per switch, with reconfigurations staggered so that exactly one switch changes per topology slice.

What seed 001 states: the slices and their length epsilon + r (line 925, Fig. 2.11), epsilon set by the
worst-case path, queue depth, rate and propagation (line 927), a 24 KB queue and epsilon = 90 us (line 927), 108
racks and 6 circuit switches (line 931), and that the paths available at any time form an expander (line 916).
What is ours (docs/opera.md says why): the slice bookkeeping below (the switch that reconfigures at the end of
a slice carries no low-latency traffic during it), the formula for epsilon, the search that makes the slices
good expanders, and the defaults the thesis does not give (rate, r, propagation; the rate and r = 10 us follow
the public Opera simulator, not the thesis).

The cyclic construction (matching k pairs rack i with rack k - i mod N) meets every pair once, but the union
of any few of its matchings is a Cayley graph of the dihedral group, whose diameter grows like a power of N: a
poor expander. So the search starts from it, mixes it with Kempe-chain swaps (exchanging two matchings along one
alternating cycle keeps every pair met exactly once), and keeps the moves (Kempe swaps, and exchanges of
matchings between switch positions) that do not worsen the score: the worst slice's largest hop count, then the
mean hop count over slices. Every random choice comes from one seeded generator: same parameters and seed, same
schedule."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ...core.errors import InputError

__all__ = [
    "OperaParams",
    "OperaSchedule",
    "build_opera",
    "cyclic_matchings",
    "epsilon_s",
    "kempe_swap",
    "slice_stats",
    "traffic_class",
]

THESIS_EPSILON_S = 90e-6  # seed 001 line 927
THESIS_RACKS, THESIS_SWITCHES = 108, 6  # seed 001 line 931
THESIS_QUEUE_BYTES = 24_000  # seed 001 line 927: "24 KB (8 1500-byte full packets + 187 64-byte headers)"


@dataclass(frozen=True)
class OperaParams:
    """Parameters of an Opera fabric; the source of each default is in the comment beside it."""

    racks: int = THESIS_RACKS  # seed 001 line 931
    switches: int = THESIS_SWITCHES  # seed 001 line 931
    hosts_per_rack: int = 6  # 648 hosts over 108 racks: the public Opera simulator, not the thesis
    rate_bps: int = 10 * 10**9  # the public Opera simulator, not the thesis (whose testbed runs 100 Gb/s)
    reconfig_s: float = 10e-6  # r: the public Opera simulator, not the thesis
    queue_bytes: int = THESIS_QUEUE_BYTES  # seed 001 line 927
    mtu_bytes: int = 1500  # seed 001 line 927 counts 1500-byte full packets
    propagation_s: float = 500e-9  # our choice: 100 m of fibre per hop
    epsilon: float | None = None  # seconds; None computes it with `epsilon_s` from the schedule's worst path
    cutoff_bytes: int = 15_000_000  # the public Opera simulator's cutoff for 108 racks, not the thesis
    seed: int = 0
    search_moves: int = 1000  # our choice: scored moves of the search (docs/opera.md, BENCHMARKS.md)

    def check(self) -> None:
        """Refuse parameters that make no Opera; each error names its field."""

        def bad(name: str, msg: str, hint: str) -> InputError:
            return InputError(f"opera.{name}: {msg}", hint=hint, loc=("opera", name))

        if self.racks < 2:
            raise bad("racks", f"needs at least 2 racks, got {self.racks}", "give racks >= 2")
        if self.switches < 2:
            raise bad(
                "switches",
                f"needs at least 2 circuit switches (one reconfigures while the others carry "
                f"traffic), got {self.switches}",
                "give switches >= 2",
            )
        if self.racks % self.switches:
            raise bad(
                "switches",
                f"{self.switches} switches do not divide {self.racks} racks: each switch must "
                f"hold racks / switches matchings",
                "choose a divisor of racks, e.g. 6 for 108",
            )
        if self.rate_bps <= 0:
            raise bad("rate_bps", f"must be positive, got {self.rate_bps}", "give a link rate such as 10e9")
        for name in ("reconfig_s", "propagation_s"):
            value = getattr(self, name)
            if not math.isfinite(value) or value < 0:
                raise bad(name, f"must be a finite time >= 0 s, got {value}", "give seconds, e.g. 10e-6")
        if self.queue_bytes < 0 or self.mtu_bytes <= 0:
            raise bad("queue_bytes", "queue must be >= 0 bytes and mtu_bytes > 0", "give byte counts")
        if self.cutoff_bytes < 0:
            raise bad(
                "cutoff_bytes",
                f"must be >= 0 bytes, got {self.cutoff_bytes}",
                "give a flow size in bytes; flows below it are low-latency",
            )
        if self.epsilon is not None:
            one_packet = self.mtu_bytes * 8 / self.rate_bps
            if not math.isfinite(self.epsilon) or self.epsilon < one_packet:
                raise bad(
                    "epsilon",
                    f"{self.epsilon:.6g} s is shorter than one {self.mtu_bytes}-byte packet's "
                    f"transmission ({one_packet:.6g} s at {self.rate_bps:.6g} b/s)",
                    "leave it unset to compute it from the worst path, or give a longer time",
                )
        if self.search_moves < 0:
            raise bad("search_moves", f"must be >= 0, got {self.search_moves}", "give a move count")


def cyclic_matchings(n: int) -> np.ndarray:
    """N matchings as an (N, N) array of partners: row k pairs rack i with rack (k - i) mod N. Every unordered
    pair {i, j} (i = j included) is met by exactly one row, k = i + j mod N, and every row is an involution."""
    k, i = np.arange(n)[:, None], np.arange(n)[None, :]
    return (k - i) % n


def kempe_swap(partners: np.ndarray, a: int, b: int, start: int) -> int:
    """Exchange matchings a and b along the alternating a/b chain through rack `start`, in place.

    Each rack has exactly one a-partner and one b-partner (itself, for a self-pair), so the racks reachable by
    alternating a- and b-links form a cycle or a path between two self-pairs; swapping a and b on all of them
    keeps both rows involutions and every pair met exactly once. Returns the number of racks swapped."""
    chain = [start]
    seen = {start}
    # walk one way from start, alternating a and b; then, for a path, the other way
    for first in (a, b):
        cur, use = start, first
        while True:
            nxt = int(partners[use, cur])
            if nxt in seen:
                break
            seen.add(nxt)
            chain.append(nxt)
            cur, use = nxt, (b if use == a else a)
    racks = np.fromiter(seen, dtype=np.int64)
    row_a = partners[a, racks].copy()
    partners[a, racks] = partners[b, racks]
    partners[b, racks] = row_a
    return len(racks)


def traffic_class(size_bytes: int, cutoff_bytes: int = OperaParams.cutoff_bytes) -> str:
    """Opera's two classes: flows below the cutoff are low-latency, the rest bulk."""
    return "low-latency" if size_bytes < cutoff_bytes else "bulk"


def epsilon_s(max_hops: int, params: OperaParams) -> float:
    """Our formula for the slice's guard epsilon (seed 001 line 927 names its inputs, not the formula): the
    worst low-latency path crosses `max_hops` rack-to-rack circuits, and at each it may wait behind a full queue,
    then is serialised and propagates: max_hops x ((queue + MTU) x 8 / rate + propagation)."""
    per_hop = (params.queue_bytes + params.mtu_bytes) * 8 / params.rate_bps + params.propagation_s
    return max_hops * per_hop


@dataclass
class OperaSchedule:
    """`layout[s, p]` is the matching switch s holds at its position p; `partners[m]` is matching m as an array
    of partners. Switch s reconfigures at the end of every slice t with t mod u == s, so the cycle has N slices;
    during slice t it carries no low-latency traffic (packets sent then have at least epsilon before any circuit
    they use changes)."""

    params: OperaParams
    partners: np.ndarray
    layout: np.ndarray
    epsilon_s: float = 0.0
    stats: dict[str, np.ndarray] = field(default_factory=dict)
    search: dict[str, float] = field(default_factory=dict)

    @property
    def slices(self) -> int:
        return self.params.racks

    @property
    def per_switch(self) -> int:
        return self.params.racks // self.params.switches

    @property
    def slice_s(self) -> float:
        return self.epsilon_s + self.params.reconfig_s

    @property
    def cycle_s(self) -> float:
        return self.slices * self.slice_s

    def reconfiguring(self, t: int) -> int:
        """The switch that reconfigures at the end of slice t."""
        return t % self.params.switches

    def held(self, s: int, t: int) -> int:
        """The matching switch s holds during slice t."""
        u = self.params.switches
        return int(self.layout[s, ((t - s - 1) // u + 1) % self.per_switch])

    def low_latency_matchings(self, t: int) -> list[int]:
        """The u - 1 matchings low-latency packets may use in slice t."""
        return [self.held(s, t) for s in range(self.params.switches) if s != self.reconfiguring(t)]

    def hops(self, t: int) -> np.ndarray:
        """Rack-to-rack hop counts over slice t's low-latency graph (inf where unreachable)."""
        return _hops(self.partners, self.low_latency_matchings(t))

    def next_hops(self, t: int, src: int, dst: int) -> list[int]:
        """Racks one hop from `src` on a shortest low-latency path to `dst` in slice t."""
        d = self.hops(t)
        return sorted(
            {
                int(self.partners[m, src])
                for m in self.low_latency_matchings(t)
                if self.partners[m, src] != src and d[int(self.partners[m, src]), dst] == d[src, dst] - 1
            }
        )


def _hops(partners: np.ndarray, matchings: list[int]) -> np.ndarray:
    """Hop counts between racks over the union of `matchings` (inf where unreachable), by a breadth-first
    search from every rack at once: a rack joins the frontier when one of its partners was on it. The search
    calls this thousands of times on small graphs (N = 108: 3,000 calls), where scipy's Dijkstra spent most of
    its time checking and converting its input; the counts are the same (`_hops_reference`). Matchings are
    symmetric, so a rack's partners are its neighbours in both directions; a self-pair only points back."""
    n = partners.shape[1]
    nbrs = [partners[m] for m in matchings]
    # row v holds, one bit per source rack, whether v is on that source's frontier (packed: 14 bytes for 108)
    frontier = np.packbits(np.eye(n, dtype=bool), axis=1)
    seen = frontier.copy()
    d = np.where(np.eye(n, dtype=bool), 0.0, np.inf)
    k = 0
    while True:
        k += 1
        reached = np.zeros_like(frontier)
        for p in nbrs:  # rack v is reached from source i if its partner p[v] was on i's frontier
            reached |= frontier[p]
        frontier = reached & ~seen
        if not frontier.any():
            return d  # symmetric: d[v, i] = d[i, v]
        d[np.unpackbits(frontier, axis=1, count=n).view(bool)] = k
        seen |= frontier


def _hops_reference(partners: np.ndarray, matchings: list[int]) -> np.ndarray:
    """The same hop counts by scipy's shortest paths: the reference the tests compare `_hops` with."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path

    n = partners.shape[1]
    rows = np.concatenate([np.arange(n)] * len(matchings))
    cols = np.concatenate([partners[m] for m in matchings])
    keep = rows != cols  # a self-pair is not a link
    graph = csr_matrix((np.ones(int(keep.sum())), (rows[keep], cols[keep])), shape=(n, n))
    return shortest_path(graph, method="D", unweighted=True, directed=False)


def _slice_score(d: np.ndarray) -> tuple[float, float]:
    n = d.shape[0]
    off = d[~np.eye(n, dtype=bool)]
    return float(off.max()), float(off.mean())


_BITS = np.array([bin(b).count("1") for b in range(256)], dtype=np.uint8)  # set bits per byte


def _hop_score(partners: np.ndarray, matchings: list[int]) -> tuple[float, float]:
    """`_slice_score(_hops(partners, matchings))` without the hop matrix: the same breadth-first search, counting
    the racks each level reaches (bits of the packed frontier) instead of writing their distances, so the search
    re-scores a slice in about half the time. The worst hop count is the last level that reached a rack; the
    mean, the sum of level x racks reached over the N (N - 1) pairs, is the same float as the matrix's mean (a
    sum of whole numbers far below 2^53 is exact in any order); inf for both when a rack is unreachable."""
    n = partners.shape[1]
    nbrs = partners[list(matchings)]  # one row of partners per matching
    frontier = np.packbits(np.eye(n, dtype=bool), axis=1)
    seen = frontier.copy()
    reached, total, k = n, 0, 0
    while True:
        k += 1
        step = np.bitwise_or.reduce(frontier[nbrs], axis=0)  # reached through any matching
        frontier = step & ~seen
        count = int(_BITS[frontier].sum(dtype=np.int64))
        if not count:
            break
        reached += count
        total += k * count
        seen |= frontier
    if reached < n * n:
        return math.inf, math.inf
    return float(k - 1), total / (n * (n - 1))


class _Scorer:
    """Per-slice (max hops, mean hops), recomputed only for the slices a move touches."""

    def __init__(self, sched: OperaSchedule):
        self.sched = sched
        self.per_slice = np.array([self.slice_score(t) for t in range(sched.slices)])
        # the slices in which each (switch, position) carries low-latency traffic
        u, per = sched.params.switches, sched.per_switch
        self.slices_of: dict[tuple[int, int], list[int]] = {}
        for t in range(sched.slices):
            for s in range(u):
                if s != sched.reconfiguring(t):
                    p = ((t - s - 1) // u + 1) % per
                    self.slices_of.setdefault((s, p), []).append(t)
        self.position_of = {
            int(m): (s, p) for s in range(u) for p in range(per) for m in [sched.layout[s, p]]
        }

    def score(self, per_slice: np.ndarray | None = None) -> tuple[float, float]:
        ps = self.per_slice if per_slice is None else per_slice
        return float(ps[:, 0].max()), float(ps[:, 1].mean())

    def touched(self, matchings: list[int]) -> list[int]:
        out: set[int] = set()
        for m in matchings:
            out.update(self.slices_of[self.position_of[m]])
        return sorted(out)

    def rescore(self, slices: list[int]) -> np.ndarray:
        ps = self.per_slice.copy()
        for t in slices:
            ps[t] = self.slice_score(t)
        return ps

    def slice_score(self, t: int) -> tuple[float, float]:
        """Slice t's (max hops, mean hops) over its low-latency graph."""
        return _hop_score(self.sched.partners, self.sched.low_latency_matchings(t))


def build_opera(
    params: OperaParams = OperaParams(), progress: Callable[[int, int], None] | None = None
) -> OperaSchedule:
    """Search for an Opera schedule whose slices are good expanders; deterministic for given parameters."""
    params.check()
    n, u = params.racks, params.switches
    per = n // u
    rng = np.random.default_rng(params.seed)
    t0 = time.perf_counter()
    partners = cyclic_matchings(n)
    for _ in range(20 * n):  # mix: unscored Kempe swaps take the matchings far from the cyclic structure
        a, b = rng.choice(n, size=2, replace=False)
        kempe_swap(partners, int(a), int(b), int(rng.integers(n)))
    layout = rng.permutation(n).reshape(u, per)
    sched = OperaSchedule(params, partners, layout)
    scorer = _Scorer(sched)
    start_score = scorer.score()
    best = start_score
    accepted = 0
    for move in range(params.search_moves):
        if rng.random() < 0.5:
            a, b = (int(x) for x in rng.choice(n, size=2, replace=False))
            saved = partners[[a, b]].copy()
            kempe_swap(partners, a, b, int(rng.integers(n)))
            touched = scorer.touched([a, b])
            ps = scorer.rescore(touched)
            cand = scorer.score(ps)
            if cand <= best:
                best, scorer.per_slice, accepted = cand, ps, accepted + 1
            else:
                partners[[a, b]] = saved
        else:
            (s1, p1), (s2, p2) = ((int(rng.integers(u)), int(rng.integers(per))) for _ in range(2))
            if (s1, p1) == (s2, p2):
                continue
            m1, m2 = int(layout[s1, p1]), int(layout[s2, p2])
            touched_before = scorer.touched([m1, m2])
            layout[s1, p1], layout[s2, p2] = m2, m1
            scorer.position_of[m1], scorer.position_of[m2] = (s2, p2), (s1, p1)
            ps = scorer.rescore(sorted(set(touched_before) | set(scorer.touched([m1, m2]))))
            cand = scorer.score(ps)
            if cand <= best:
                best, scorer.per_slice, accepted = cand, ps, accepted + 1
            else:
                layout[s1, p1], layout[s2, p2] = m1, m2
                scorer.position_of[m1], scorer.position_of[m2] = (s1, p1), (s2, p2)
        if progress is not None and (move + 1) % 100 == 0:
            progress(move + 1, params.search_moves)
    max_hops = int(best[0]) if math.isfinite(best[0]) else 0
    sched.epsilon_s = params.epsilon if params.epsilon is not None else epsilon_s(max_hops, params)
    sched.stats = slice_stats(sched)
    sched.search = {
        "start_max_hops": start_score[0],
        "start_mean_hops": start_score[1],
        "max_hops": best[0],
        "mean_hops": best[1],
        "moves": params.search_moves,
        "accepted": accepted,
        "wall_s": time.perf_counter() - t0,
    }
    return sched


def slice_stats(sched: OperaSchedule) -> dict[str, np.ndarray]:
    """Per slice: mean and max hops over rack pairs i != j, the share of ordered pairs (self-pairs included)
    one circuit apart, and the histogram of hop counts (column h = pairs at h hops)."""
    n = sched.params.racks
    means, maxes, direct, hists = [], [], [], []
    for t in range(sched.slices):
        d = sched.hops(t)
        off = d[~np.eye(n, dtype=bool)]
        means.append(off.mean())
        maxes.append(off.max())
        pairs = {(i, int(sched.partners[m, i])) for m in sched.low_latency_matchings(t) for i in range(n)}
        direct.append(len(pairs) / n**2)
        finite = off[np.isfinite(off)].astype(np.int64)
        hists.append(np.bincount(finite, minlength=8))
    width = max(len(h) for h in hists)
    return {
        "mean_hops": np.array(means),
        "max_hops": np.array(maxes),
        "one_hop_share": np.array(direct),
        "hop_histogram": np.array([np.pad(h, (0, width - len(h))) for h in hists]),
    }
