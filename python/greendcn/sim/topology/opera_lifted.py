"""Opera schedules drawn the way the public Opera simulator's topology generator draws them (Mellette et al.,
NSDI 2020; its MATLAB code in topologies/opera_dynexp_topo_gen/, read for the algorithm, none of it copied):
random matchings of a base graph, lifted to the full rack count, assigned to rotor switches in a random order,
and the best of a few such orders kept by the slices' hop counts. docs/opera-paper.md ("How the simulator's
schedule is built") gives file and line for each step.

1. Base: when there are more than 64 racks, the matchings are built on the largest even base of 8-64 racks whose
   lift factor N / base is an even integer (108 racks: a base of 54, factor 2); otherwise on the N racks.
2. Decomposition: the complete graph on the base racks, self-pairs included, is split into `base` symmetric
   matchings that meet every pair exactly once. The generator draws them greedily at random with restarts;
   we draw an equivalent random decomposition our way (our choice, faster): the cyclic one
   (`opera.cyclic_matchings`) under a random relabelling of racks, mixed by random Kempe-chain swaps.
3. Lifting: every base matching becomes `factor` matchings of the full racks. Each pair {s, d} of the base
   matching becomes a factor x factor block between rack groups s and d, filled by one random decomposition of
   the factor-rack complete graph (self-pairs included), its matchings dealt to the lifted ones in a random
   order. Every pair of the N racks is still met exactly once.
4. Assignment and order: the N matchings in a random order, N / u consecutive ones per rotor switch; the
   switches step through theirs staggered so that one switch reconfigures per slice (as in `opera.py`).
5. Pick: `runs` random orders of the same matchings; the kept one has the smallest worst hop count over every
   slice's low-latency graph, then the smallest mean hop count (the generator's pick_topo.m). It ships with
   one run, so the order it keeps is plain random: no search improves the slices' expanders.

Every random choice comes from one seeded generator: same racks, switches, seed and runs, same schedule."""

from __future__ import annotations

import math
import time

import numpy as np

from ...core.errors import InputError
from .opera import OperaParams, OperaSchedule, cyclic_matchings, epsilon_s, kempe_swap, slice_stats

__all__ = [
    "LIFT_BASES",
    "build_opera_lifted",
    "lift",
    "lift_plan",
    "random_decomposition",
    "schedule_score",
]

# the generator's candidate bases for more than 64 racks, largest first (MAIN.m lines 33-36)
LIFT_BASES = tuple(range(64, 7, -2))
LIFT_ABOVE = 64  # racks above which the generator lifts (MAIN.m line 30)
LIFT_POOL = 10  # random decompositions of the small complete graph the lift draws from (lift_construction.m)


def lift_plan(racks: int) -> tuple[int, int]:
    """(base racks, lift factor) as the generator chooses them: no lift up to 64 racks; above, the largest even
    base of 64..8 racks that divides `racks` into an even factor. Raises InputError naming
    topology.opera_schedule when there is none."""
    if racks <= LIFT_ABOVE:
        return racks, 1
    for base in LIFT_BASES:
        if racks % base == 0 and (racks // base) % 2 == 0:
            return base, racks // base
    raise InputError(
        f"topology.opera_schedule: 'lifted' cannot build {racks} racks: above {LIFT_ABOVE} racks it lifts an "
        f"even base of 8-{LIFT_ABOVE} racks by an even factor, and none divides {racks}",
        hint="choose racks such as 108 (54 x 2) or 128 (64 x 2), or use opera_schedule = 'search'",
        loc=("topology", "opera_schedule"),
    )


def random_decomposition(n: int, rng: np.random.Generator, mix: int | None = None) -> np.ndarray:
    """A random split of the complete graph on n racks (self-pairs included) into n symmetric matchings, as an
    (n, n) array of partners: the cyclic split, racks relabelled at random, then `mix` (default 20 n) random
    Kempe-chain swaps, each of which keeps every pair met exactly once."""
    relabel = rng.permutation(n)
    inverse = np.argsort(relabel)
    # matching k of the relabelled split pairs relabel[i] with relabel[cyclic[k, i]]
    partners = relabel[cyclic_matchings(n)][:, inverse]
    partners = partners[rng.permutation(n)]
    if n >= 2:
        for _ in range(20 * n if mix is None else mix):
            a, b = rng.choice(n, size=2, replace=False)
            kempe_swap(partners, int(a), int(b), int(rng.integers(n)))
    return partners


def lift(base: np.ndarray, factor: int, rng: np.random.Generator) -> np.ndarray:
    """Lift the base matchings (B, B) by `factor` to B x factor matchings of B x factor racks: base rack s becomes
    racks s * factor .. s * factor + factor - 1, and base matching m becomes matchings m * factor + i."""
    b = base.shape[1]
    if factor == 1:
        return base.copy()
    pool = [random_decomposition(factor, rng) for _ in range(LIFT_POOL)]
    n = b * factor
    lifted = np.empty((b * factor, n), dtype=np.int64)
    a = np.arange(factor)
    for m in range(base.shape[0]):
        for s in range(b):
            d = int(base[m, s])
            if d < s:
                continue  # filled from the pair's other end
            blocks = pool[int(rng.integers(LIFT_POOL))][rng.permutation(factor)]
            for i, q in enumerate(blocks):
                lifted[m * factor + i, s * factor + a] = d * factor + q
                lifted[m * factor + i, d * factor + q] = s * factor + a
    return lifted


def schedule_score(sched: OperaSchedule) -> tuple[float, float]:
    """What the generator's pick minimises: the worst hop count over every slice and ordered rack pair i != j,
    then the mean over the same (inf when a slice leaves a pair unconnected)."""
    n = sched.params.racks
    off = ~np.eye(n, dtype=bool)
    worst, total = 0.0, 0.0
    for t in range(sched.slices):
        d = sched.hops(t)[off]
        worst = max(worst, float(d.max()))
        total += float(d.sum())
    return worst, total / (sched.slices * n * (n - 1))


def build_opera_lifted(params: OperaParams | None = None, runs: int = 1) -> OperaSchedule:
    """The schedule as the simulator's generator builds it (module docstring); deterministic for given
    parameters (default: the thesis's 108 racks and 6 switches). `runs` random orders are scored and the best
    kept."""
    params = OperaParams() if params is None else params
    params.check()
    if runs < 1:
        raise InputError(
            f"topology.schedule_runs: must be >= 1, got {runs}",
            hint="give the number of random orders to score, e.g. 1 as the generator ships",
            loc=("topology", "schedule_runs"),
        )
    n, u = params.racks, params.switches
    base_n, factor = lift_plan(n)
    rng = np.random.default_rng(params.seed)
    t0 = time.perf_counter()
    partners = lift(random_decomposition(base_n, rng), factor, rng)
    best: tuple[tuple[float, float], np.ndarray] | None = None
    first: tuple[float, float] | None = None
    for _ in range(runs):
        layout = rng.permutation(n).reshape(u, n // u)
        score = schedule_score(OperaSchedule(params, partners, layout))
        first = score if first is None else first
        if best is None or score < best[0]:
            best = (score, layout)
    assert best is not None and first is not None
    (max_hops, mean_hops), layout = best
    sched = OperaSchedule(params, partners, layout)
    worst = int(max_hops) if math.isfinite(max_hops) else 0
    sched.epsilon_s = params.epsilon if params.epsilon is not None else epsilon_s(worst, params)
    sched.stats = slice_stats(sched)
    sched.search = {
        "start_max_hops": first[0],
        "start_mean_hops": first[1],
        "max_hops": max_hops,
        "mean_hops": mean_hops,
        "moves": 0,
        "accepted": 0,
        "runs": runs,
        "base_racks": base_n,
        "lift_factor": factor,
        "wall_s": time.perf_counter() - t0,
    }
    return sched
