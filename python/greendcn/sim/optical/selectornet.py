"""SelectorNet (seed 001 sections 2.3-2.4): N = 2^k ports, one-way matchings +2^i mod N, multi-hop routes, the
bandwidth tax, our schedule for a workload and our scheduler's predicted maximum per-host throughput.

What seed 001 states: log2 N matchings spaced at powers of two, like Chord's fingers (line 565); on 16 ports
they are +1, +2, +4, +8 and each input port selects one of them (line 571); a destination off every matching
needs several passes, e.g. 0 -> 4 -> 6 (lines 577-579); a route of l hops costs l times the bandwidth, and the
average over an even workload is (1/2) log2 N (line 583); uptime efficiency (U - g) / U, 90 % for g = 100 us and
U = 1 ms (line 538; its words say "guard time over uptime", its formula and number say (U - g) / U, which we
use); the testbed's 150 us reconfiguration, 400 ns guard and 5.6 us preallocation (line 663, 675), 10 Gb/s
(line 673); the three workloads (lines 705-711). What is ours (docs/selectornet.md says why): routes take the
largest power of two first; all ports switch together; the slot counts per matching; how time-varying
workloads are averaged; and the predicted maximum below (the thesis's scheduler is not described)."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import reduce

import numpy as np

from ...core.errors import InputError
from ...host.tdma.model import goodput_bps
from .schedule import CircuitFabric, Slot, SwitchSchedule

__all__ = [
    "THESIS_GUARD_PS",
    "THESIS_PORTS",
    "THESIS_PREALLOC_PS",
    "THESIS_RATE_BPS",
    "THESIS_RECONFIG_PS",
    "WORKLOADS",
    "SelectorTiming",
    "all_to_all",
    "bandwidth_tax_uniform",
    "build_selectornet",
    "duty_cycle",
    "hops",
    "is_self_inverse",
    "matching_offsets",
    "port_loads",
    "predicted_per_host_bps",
    "random_bijections",
    "route",
    "routes_for",
    "schedule_slots",
    "stride",
    "uptime_efficiency",
    "workload_prediction",
]

THESIS_PORTS = 16  # seed 001 line 571
THESIS_RATE_BPS = 10 * 10**9  # seed 001 line 673
THESIS_RECONFIG_PS = 150_000_000  # 150 us, seed 001 lines 663, 675
THESIS_GUARD_PS = 400_000  # 400 ns, seed 001 line 663
THESIS_PREALLOC_PS = 5_600_000  # 5.6 us, seed 001 line 663
WORKLOADS = ("all-to-all", "rolling-stride", "random-bijection")


def _check_ports(n: int) -> int:
    if not isinstance(n, (int, np.integer)) or n < 2 or n & (n - 1):
        raise InputError(
            f"ports: a selector switch has 2^k >= 2 ports, got {n!r}",
            hint="use 8, 16, 32, ...",
            loc=("ports",),
        )
    return int(math.log2(n))


def matching_offsets(n: int) -> list[int]:
    """The selector's matchings as offsets: +1, +2, ..., +N/2 (matching i sends port p to p + 2^i mod N)."""
    return [1 << i for i in range(_check_ports(n))]


def is_self_inverse(offset: int, n: int) -> bool:
    """Whether the +offset matching is its own inverse (a bidirectional circuit): only +N/2 is. The reverse
    of +2^i is -2^i = +(N - 2^i), which is not a matching and needs popcount(N - 2^i) = log2 N - i hops."""
    return (2 * offset) % n == 0 and offset % n != 0


def hops(offset: int, n: int) -> int:
    """Hops from p to p + offset (mod N): one pass per set bit of the offset, popcount(offset mod N)."""
    _check_ports(n)
    return int(offset % n).bit_count()


def route(src: int, dst: int, n: int) -> list[tuple[int, int]]:
    """The hops from src to dst as (port, offset taken): our choice takes the largest power of two first, as
    the thesis's example 0 -> 4 -> 6 does (line 579). Empty when src == dst."""
    _check_ports(n)
    off = (dst - src) % n
    out, at = [], src
    for i in reversed(range(int(math.log2(n)))):
        step = 1 << i
        if off & step:
            out.append((at, step))
            at = (at + step) % n
    return out


def bandwidth_tax_uniform(n: int, self_pairs: bool) -> float:
    """Mean hops over all ordered pairs of an even workload. With self-pairs (offset 0, zero hops) counted it
    is exactly (1/2) log2 N, the thesis's figure (line 583); over the N - 1 other destinations it is
    (N/2) log2 N / (N - 1): 2.0 and 32/15 = 2.133 on 16 ports."""
    k = _check_ports(n)
    total = (n // 2) * k  # each of the k bits is set in half of the N offsets
    return total / n if self_pairs else total / (n - 1)


def uptime_efficiency(uptime_s: float, guard_s: float) -> float:
    """(U - g) / U, the share of an uptime a host can send in (seed 001 line 538's formula)."""
    if not uptime_s > 0 or not 0 <= guard_s < uptime_s:
        raise InputError(
            f"guard: need 0 <= guard < uptime, got guard {guard_s} s, uptime {uptime_s} s",
            hint="the guard must be shorter than the uptime",
            loc=("guard",),
        )
    return (uptime_s - guard_s) / uptime_s


def duty_cycle(uptime_s: float, reconfig_s: float) -> float:
    """U / (U + r): the share of time a circuit is up (seed 001 line 530)."""
    if not uptime_s > 0 or not reconfig_s >= 0:
        raise InputError(
            "uptime: need uptime > 0 and reconfiguration >= 0", hint="check the times", loc=("uptime",)
        )
    return uptime_s / (uptime_s + reconfig_s)


# ---- workloads: demand matrices of 0/1 (row = source, column = destination), one unit per pair -------------


def all_to_all(n: int) -> np.ndarray:
    return 1 - np.eye(n, dtype=np.int64)


def stride(n: int, x: int) -> np.ndarray:
    """Stride-x: every port p sends to p + x mod N (line 707)."""
    d = np.zeros((n, n), dtype=np.int64)
    d[np.arange(n), (np.arange(n) + x) % n] = 1
    return d


def random_bijections(n: int, count: int, seed: int) -> list[np.ndarray]:
    """`count` random permutations without fixed points (our choice: a port sending to itself would use no
    network and flatter the throughput), by rejection from one seeded generator."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        p = rng.permutation(n)
        if (p != np.arange(n)).all():
            d = np.zeros((n, n), dtype=np.int64)
            d[np.arange(n), p] = 1
            out.append(d)
    return out


def _walk(src: int, order: tuple[int, ...], n: int) -> list[tuple[int, int]]:
    out, at = [], src
    for step in order:
        out.append((at, step))
        at = (at + step) % n
    return out


def routes_for(demand: np.ndarray, balanced: bool = True) -> dict[tuple[int, int], list[tuple[int, int]]]:
    """The route of every (src, dst) with demand, as (port, offset) hops. Unbalanced: `route` (largest power
    first). Balanced (our scheduler's choice): the same hops in the order, among all orders of the offset's
    bits, that least raises sum_i max_p loads[p, i] so far; routes are placed longest first, ties keep the
    largest-first order; if that ends worse than the plain routes (it can break the symmetry of all-to-all),
    the plain routes are kept. The order of a route's bits does not change its hop count, only which ports relay."""
    demand = np.asarray(demand)
    n = demand.shape[0]
    k = _check_ports(n)
    pairs = [(int(s), int(d)) for s, d in zip(*np.nonzero(demand), strict=True) if s != d]
    if not balanced:
        return {(s, d): route(s, d, n) for s, d in pairs}
    loads = np.zeros((n, k))
    out: dict[tuple[int, int], list[tuple[int, int]]] = {}
    pairs.sort(key=lambda sd: (-hops(sd[1] - sd[0], n), sd))
    for s, d in pairs:
        bits = [step for _, step in route(s, d, n)]
        best, best_score = None, math.inf
        for order in itertools.permutations(bits):
            hops_ = _walk(s, order, n)
            trial = loads.copy()
            for at, step in hops_:
                trial[at, step.bit_length() - 1] += demand[s, d]
            score = float(trial.max(axis=0).sum())
            if score < best_score - 1e-12:
                best, best_score, best_loads = hops_, score, trial
        out[(s, d)] = best  # type: ignore[assignment]
        loads = best_loads
    plain = routes_for(demand, balanced=False)
    # the greedy can break a symmetry the plain routes have (all-to-all): keep whichever is better
    return out if _score(out, demand, n) < _score(plain, demand, n) - 1e-12 else plain


def _score(routes: dict[tuple[int, int], list[tuple[int, int]]], demand: np.ndarray, n: int) -> float:
    loads = np.zeros((n, _check_ports(n)))
    for (s, d), hops_ in routes.items():
        for at, step in hops_:
            loads[at, step.bit_length() - 1] += demand[s, d]
    return float(loads.max(axis=0).sum())


def port_loads(demand: np.ndarray, balanced: bool = True) -> np.ndarray:
    """loads[p, i]: demand units port p sends over the +2^i matching, its own and relayed, along `routes_for`."""
    demand = np.asarray(demand)
    n = demand.shape[0]
    loads = np.zeros((n, _check_ports(n)), dtype=demand.dtype)
    for (s, d), hops_ in routes_for(demand, balanced).items():
        for at, step in hops_:
            loads[at, step.bit_length() - 1] += demand[s, d]
    return loads


def schedule_slots(demand: np.ndarray) -> list[tuple[int, int]]:
    """Our schedule for an integer demand matrix, all ports switching together: (offset, slots) per matching
    in the order +N/2, ..., +1 (the order routes take them, so a route can finish within one cycle), with
    slots proportional to the matching's bottleneck load max_p loads[p, i], reduced by their common divisor.
    Matchings nobody uses get no slot."""
    bottleneck = port_loads(np.asarray(demand, dtype=np.int64)).max(axis=0)
    used = [int(b) for b in bottleneck if b > 0]
    if not used:
        raise InputError(
            "demand: the matrix moves nothing between distinct ports",
            hint="give some demand",
            loc=("demand",),
        )
    g = reduce(math.gcd, used)
    n = demand.shape[0]
    return [
        (off, int(b) // g)
        for off, b in reversed(list(zip(matching_offsets(n), bottleneck, strict=True)))
        if b > 0
    ]


@dataclass(frozen=True)
class SelectorTiming:
    """The testbed's timing (seed 001 lines 663, 673, 675); `lag_ps` is the host's fixed send-to-wire lag,
    which the preallocation covers (our default: exactly, so preallocation costs no throughput)."""

    rate_bps: int = THESIS_RATE_BPS
    uptime_ps: int = 1_000_000_000
    reconfig_ps: int = THESIS_RECONFIG_PS
    guard_ps: int = THESIS_GUARD_PS
    prealloc_ps: int = THESIS_PREALLOC_PS
    lag_ps: int | None = None

    def check(self) -> None:
        for name in ("rate_bps", "uptime_ps"):
            if getattr(self, name) <= 0:
                raise InputError(
                    f"{name}: must be > 0, got {getattr(self, name)}",
                    hint="give a positive value",
                    loc=(name,),
                )
        for name in ("reconfig_ps", "guard_ps", "prealloc_ps"):
            if getattr(self, name) < 0:
                raise InputError(
                    f"{name}: must be >= 0, got {getattr(self, name)}", hint="give a time >= 0", loc=(name,)
                )
        if self.guard_ps >= self.uptime_ps:
            raise InputError(
                f"guard_ps: a guard of {self.guard_ps} ps is not shorter than the uptime ({self.uptime_ps} ps)",
                hint="lower the guard or lengthen the uptime",
                loc=("guard_ps",),
            )

    def link_goodput_bps(self) -> float:
        """What one port sends on average while its slots cycle: issue 12's R (U - g + p - d0) / (U + r)."""
        self.check()
        lag = self.prealloc_ps if self.lag_ps is None else self.lag_ps
        ps = 1e-12
        return goodput_bps(
            self.rate_bps,
            (self.uptime_ps + self.reconfig_ps) * ps,
            self.uptime_ps * ps,
            self.guard_ps * ps,
            self.prealloc_ps * ps,
            lag * ps,
        )


def predicted_per_host_bps(demand: np.ndarray, timing: SelectorTiming) -> float:
    """Our scheduler's predicted maximum for one demand matrix, per host (docs/selectornet.md):
    G x (sum of demand) / N / sum_i max_p loads[p, i], with G the link goodput. Each matching i is up for a
    share of the cycle proportional to its bottleneck load, so every pair's route moves the same amount."""
    demand = np.asarray(demand)
    n = demand.shape[0]
    bottleneck = port_loads(demand).max(axis=0)
    return timing.link_goodput_bps() * float(demand.sum()) / n / float(bottleneck.sum())


def workload_prediction(
    workload: str, n: int, timing: SelectorTiming, bijections: int = 1000, seed: int = 0
) -> dict[str, float]:
    """Predicted maximum per-host throughput of a workload and its effective bandwidth tax (hops per
    delivered unit). Averaging, our choice: all-to-all is one matrix; a rolling stride holds each stride
    x = 1..N-1 for the same time (line 707: x advances every T), so the throughputs average; random bijections
    each carry the same volume served back to back (line 709: 1000 matrices), so their times add (the
    harmonic mean of the throughputs)."""
    g = timing.link_goodput_bps()
    if workload == "all-to-all":
        per = [predicted_per_host_bps(all_to_all(n), timing)]
        return {"per_host_bps": per[0], "effective_tax": g / per[0], "matrices": 1}
    if workload == "rolling-stride":
        per = [predicted_per_host_bps(stride(n, x), timing) for x in range(1, n)]
        mean = float(np.mean(per))
        return {"per_host_bps": mean, "effective_tax": g / mean, "matrices": n - 1}
    if workload == "random-bijection":
        per = [predicted_per_host_bps(d, timing) for d in random_bijections(n, bijections, seed)]
        hmean = len(per) / float(np.sum(1.0 / np.asarray(per)))
        return {"per_host_bps": hmean, "effective_tax": g / hmean, "matrices": bijections}
    raise InputError(
        f"workload: {workload!r} is not one of {', '.join(WORKLOADS)}",
        hint="e.g. all-to-all",
        loc=("workload",),
    )


def build_selectornet(demand: np.ndarray, timing: SelectorTiming) -> CircuitFabric:
    """One selector switch cycling our schedule for `demand` (all ports on the same matching in a slot)."""
    timing.check()
    n = demand.shape[0]
    slots = []
    for off, count in schedule_slots(demand):
        matching = tuple((p + off) % n for p in range(n))
        slots += [Slot(matching, timing.uptime_ps, timing.reconfig_ps)] * count
    return CircuitFabric(
        kind="selectornet",
        endpoints=n,
        switches=(SwitchSchedule(tuple(slots)),),
        link_rate_bps=int(timing.rate_bps),
        guard_ps=int(timing.guard_ps),
        prealloc_ps=int(timing.prealloc_ps),
    )
