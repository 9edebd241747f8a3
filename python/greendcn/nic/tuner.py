"""Multi-objective tuning of receive settings with pymoo's NSGA-II: maximise throughput, minimise interrupts.

Seed 002 tunes each NIC's receive mode with a multi-objective GA (throughput up, kernel interrupts down;
lines 63 and 69) but prints neither its encoding nor its operators; ours are our choice: one integer gene per
NIC indexing the setting catalogue (space.py), simulated binary crossover and polynomial mutation rounded to
integers, duplicates removed. Several NICs are tuned jointly when they share a CPU (model.evaluate_shared).

Every distinct setting vector is evaluated once (a cache keyed by the gene vector). After the GA two local
searches (ours) spend the rest of the budget: a coordinate search around the chosen point and a Pareto local
search over index neighbours of the front. The front is the non-dominated set of everything evaluated. The chosen setting follows a stated rule: the largest total
throughput, and among settings within `tol` of it, the fewest interrupts (then the least CPU power).

With `power=CpuPower(...)` CPU power becomes a third objective (our addition; cpupower.py prices the busy
cores with seed 004's Eq. 2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import InputError
from .cpupower import CpuPower, cpu_power_w
from .model import evaluate_shared
from .params import DEFAULT_HOST, Host, Setting, Transmission
from .space import Catalogue, catalogue

__all__ = ["CHOICE_RULE", "Evaluator", "TuneResult", "choose", "exhaustive", "pareto_mask", "tune"]

CHOICE_RULE = (
    "largest total throughput; among settings within {tol:.3g} (relative) of it, the fewest "
    "interrupts per second, then the least CPU power; ties go to the earlier catalogue entry"
)
_INFEASIBLE = 1e12


class Evaluator:
    """Objectives of gene vectors (rows of catalogue indices), with a cache so nothing is evaluated twice."""

    def __init__(
        self,
        txs: list[Transmission],
        cat: Catalogue,
        host: Host,
        max_latency_s: float | None,
        power: CpuPower | None = None,
    ):
        self.txs, self.cat, self.host, self.max_latency_s, self.power = txs, cat, host, max_latency_s, power
        self.rate = np.array([t.rate_pps for t in txs])
        self.burst = np.array([t.burst for t in txs], dtype=float)
        self.bits = np.array([8.0 * t.packet_bytes for t in txs])
        self.cache: dict[bytes, tuple[float, ...]] = {}

    @property
    def n_evaluations(self) -> int:
        return len(self.cache)

    def raw(self, X: np.ndarray) -> np.ndarray:
        """(throughput_bps, interrupts_per_s, worst latency_s, cpu power W) for each row of X, uncached.
        Without a power model the last column is the busy cores (a monotone stand-in, never an objective)."""
        r = evaluate_shared(self.cat.codes[X], self.cat.params[X], self.rate, self.burst, self.host)
        thr = (r.delivered_pps * self.bits).sum(axis=-1)
        busy = r.busy_cores.sum(axis=-1)
        pw = busy if self.power is None else cpu_power_w(busy, self.host.cpu_cores, self.power)
        return np.stack([thr, r.interrupts_per_s.sum(axis=-1), r.latency_s.max(axis=-1), pw], axis=-1)

    def __call__(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.int64)
        keys = [row.tobytes() for row in X]
        missing = [i for i, k in enumerate(keys) if k not in self.cache]
        if missing:
            uniq: dict[bytes, int] = {}
            for i in missing:
                uniq.setdefault(keys[i], i)
            idx = list(uniq.values())
            for k, vals in zip(uniq, self.raw(X[idx])):
                self.cache[k] = tuple(float(v) for v in vals)
        return np.array([self.cache[k] for k in keys])


def _problem_class():
    from pymoo.core.problem import Problem

    class _TuneProblem(Problem):
        def __init__(self, ev: Evaluator):
            n = len(ev.txs)
            super().__init__(
                n_var=n,
                n_obj=2 if ev.power is None else 3,
                n_ieq_constr=1 if ev.max_latency_s else 0,
                xl=0,
                xu=len(ev.cat) - 1,
                vtype=int,
            )
            self.ev = ev

        def _evaluate(self, X, out, *args, **kwargs):
            F = self.ev(np.round(X).astype(np.int64))
            cols = [-F[:, 0], F[:, 1]] + ([] if self.ev.power is None else [F[:, 3]])
            out["F"] = np.column_stack(cols)
            if self.ev.max_latency_s:
                out["G"] = np.minimum(F[:, 2], _INFEASIBLE)[:, None] - self.ev.max_latency_s

    return _TuneProblem


def pareto_mask(thr: np.ndarray, irq: np.ndarray, power: np.ndarray | None = None) -> np.ndarray:
    """True where no other point has throughput >= and interrupts <= (and power <=) with one strictly
    better. Exact duplicates of a front point are all kept."""
    if power is not None:
        from pymoo.util.nds.non_dominated_sorting import NonDominatedSorting

        F = np.column_stack([-np.asarray(thr), irq, power])
        keep = np.zeros(len(F), bool)
        keep[NonDominatedSorting().do(F, only_non_dominated_front=True)] = True
        return keep
    order = np.lexsort((irq, -thr))  # by throughput descending, then interrupts ascending
    keep = np.zeros(len(thr), bool)
    best_irq = np.inf
    best_thr = np.inf
    for i in order:
        if irq[i] < best_irq or (irq[i] == best_irq and thr[i] == best_thr):
            keep[i] = True
            if irq[i] < best_irq:
                best_irq, best_thr = irq[i], thr[i]
    return keep


def choose(thr: np.ndarray, irq: np.ndarray, tol: float = 1e-3, power: np.ndarray | None = None) -> int:
    """Index of the chosen point under CHOICE_RULE."""
    near = np.flatnonzero(thr >= (1 - tol) * thr.max())
    pw = np.zeros(len(near)) if power is None else np.asarray(power)[near]
    return int(near[np.lexsort((near, pw, irq[near]))[0]])


@dataclass
class TuneResult:
    """A tuning run: the front (gene vectors with objectives), the chosen point, and the bookkeeping."""

    front_genes: np.ndarray
    front_throughput_bps: np.ndarray
    front_interrupts_per_s: np.ndarray
    front_latency_s: np.ndarray
    front_power_w: np.ndarray | None
    chosen: int
    n_evaluations: int
    space_size: float
    catalogue: Catalogue
    rule: str
    seed: int

    @property
    def chosen_settings(self) -> list[Setting]:
        return [self.catalogue.settings[i] for i in self.front_genes[self.chosen]]

    @property
    def chosen_throughput_bps(self) -> float:
        return float(self.front_throughput_bps[self.chosen])

    @property
    def chosen_interrupts_per_s(self) -> float:
        return float(self.front_interrupts_per_s[self.chosen])


def _front(
    ev: Evaluator, genes: np.ndarray, F: np.ndarray, cat: Catalogue, tol: float, seed: int, space: float
) -> TuneResult:
    ok = np.ones(len(F), bool) if not ev.max_latency_s else F[:, 2] <= ev.max_latency_s
    if not ok.any():
        raise InputError(
            f"no setting meets the latency limit of {ev.max_latency_s} s",
            hint="raise --max-latency or drop it",
        )
    genes, F = genes[ok], F[ok]
    mask = pareto_mask(F[:, 0], F[:, 1], _power(ev, F))
    genes, F = genes[mask], F[mask]
    order = np.lexsort((F[:, 3], F[:, 1], -F[:, 0]))
    genes, F = genes[order], F[order]
    return TuneResult(
        genes,
        F[:, 0],
        F[:, 1],
        F[:, 2],
        None if ev.power is None else F[:, 3],
        choose(F[:, 0], F[:, 1], tol, _power(ev, F)),
        ev.n_evaluations,
        space,
        cat,
        CHOICE_RULE.format(tol=tol),
        seed,
    )


def _power(ev: Evaluator, F: np.ndarray) -> np.ndarray | None:
    return None if ev.power is None else F[:, 3]


def tune(
    txs: list[Transmission],
    host: Host = DEFAULT_HOST,
    cat: Catalogue | None = None,
    seed: int = 0,
    pop_size: int = 40,
    n_gen: int = 30,
    max_latency_s: float | None = None,
    tol: float = 1e-3,
    max_evaluations: int | None = None,
    power: CpuPower | None = None,
) -> TuneResult:
    """NSGA-II over one catalogue index per NIC; the NICs in `txs` share host.cpu_cores. With `power`, CPU
    power is a third objective and the host's costs are scaled to the power model's frequency."""
    from pymoo.algorithms.moo.nsga2 import NSGA2
    from pymoo.operators.crossover.sbx import SBX
    from pymoo.operators.mutation.pm import PM
    from pymoo.operators.repair.rounding import RoundingRepair
    from pymoo.operators.sampling.rnd import IntegerRandomSampling
    from pymoo.optimize import minimize
    from pymoo.termination import get_termination

    if not txs:
        raise InputError("no transmissions to tune", hint="give at least one transmission")
    cat = catalogue(host) if cat is None else cat
    if power is not None:
        host = power.host_at_frequency(host)
    ev = Evaluator(list(txs), cat, host, max_latency_s, power)
    algo = NSGA2(
        pop_size=pop_size,
        sampling=IntegerRandomSampling(),
        crossover=SBX(prob=0.9, eta=15, vtype=float, repair=RoundingRepair()),
        mutation=PM(eta=20, vtype=float, repair=RoundingRepair()),
        eliminate_duplicates=True,
    )
    from pymoo.core.termination import Termination
    from pymoo.termination.collection import TerminationCollection

    space = float(len(cat)) ** len(txs)
    # Stop early once every setting has been evaluated (a small space), or, under a budget, while one more
    # generation (at most pop_size new settings) and two polishing sweeps still fit in it.
    stop_at = space
    if max_evaluations is not None:
        stop_at = min(
            space, max(1, max_evaluations - pop_size - min(2 * len(txs) * len(cat), max_evaluations // 2))
        )

    class _Enough(Termination):
        def _update(self, algorithm):
            return min(1.0, ev.n_evaluations / stop_at)

    term = TerminationCollection(get_termination("n_gen", n_gen), _Enough())
    minimize(_problem_class()(ev), algo, term, seed=seed, verbose=False)
    _polish(ev, tol, max_evaluations)
    _front_search(ev, max_evaluations)
    genes = np.array([np.frombuffer(k, dtype=np.int64) for k in ev.cache])
    F = np.array(list(ev.cache.values()))
    return _front(ev, genes, F, cat, tol, seed, space)


def _archive(ev: Evaluator) -> tuple[np.ndarray, np.ndarray]:
    genes = np.array([np.frombuffer(k, dtype=np.int64) for k in ev.cache])
    F = np.array(list(ev.cache.values()))
    if ev.max_latency_s:
        ok = F[:, 2] <= ev.max_latency_s
        genes, F = (genes[ok], F[ok]) if ok.any() else (genes, F)
    return genes, F


def _polish(ev: Evaluator, tol: float, max_evaluations: int | None, sweeps: int = 3) -> None:
    """Coordinate search after the GA (our addition): for one NIC at a time, try every catalogue entry with
    the others held at the chosen point, and keep whatever the choice rule then prefers. Near-ties between
    different modes (a long timer against a large watermark) sit far apart in index space, where mutation
    rarely jumps; this finds them. Every try is a counted evaluation and stays within the budget."""
    k = len(ev.cat)
    for _ in range(sweeps):
        changed = False
        for j in range(len(ev.txs)):
            genes, F = _archive(ev)
            best = genes[choose(F[:, 0], F[:, 1], tol, _power(ev, F))]
            tries = np.repeat(best[None, :], k, axis=0)
            tries[:, j] = np.arange(k)
            new = [t for t in tries if t.tobytes() not in ev.cache]
            if max_evaluations is not None and ev.n_evaluations + len(new) > max_evaluations:
                return
            if new:
                ev(np.array(new))
            genes2, F2 = _archive(ev)
            changed |= not np.array_equal(genes2[choose(F2[:, 0], F2[:, 1], tol, _power(ev, F2))], best)
        if not changed:
            return


def _front_search(ev: Evaluator, max_evaluations: int | None, rounds: int = 50) -> None:
    """Pareto local search after the GA (our addition): every front point not yet explored has its catalogue
    neighbours (one index up or down, one NIC at a time) evaluated, until no unexplored front point remains,
    `rounds` rounds have passed, or the budget is spent. Neighbouring indices are similar settings (space.py),
    so this fills gaps along the front that the GA's last generations left, e.g. runs of slow timers that
    trade throughput for fewer interrupts. Candidates are taken in archive order, so the result is
    deterministic."""
    k = len(ev.cat)
    explored: set[bytes] = set()
    for _ in range(rounds):
        genes, F = _archive(ev)
        front = genes[pareto_mask(F[:, 0], F[:, 1], _power(ev, F))]
        todo = [g for g in front if g.tobytes() not in explored]
        if not todo:
            return
        new: dict[bytes, np.ndarray] = {}
        for g in todo:
            explored.add(g.tobytes())
            for j in range(len(g)):
                for step in (-1, 1):
                    x = g.copy()
                    x[j] += step
                    if 0 <= x[j] < k and x.tobytes() not in ev.cache:
                        new.setdefault(x.tobytes(), x)
        cand = list(new.values())
        if max_evaluations is not None:
            cand = cand[: max(0, max_evaluations - ev.n_evaluations)]
        if cand:
            ev(np.array(cand))
        elif max_evaluations is not None and ev.n_evaluations >= max_evaluations:
            return


def exhaustive(
    txs: list[Transmission],
    host: Host = DEFAULT_HOST,
    cat: Catalogue | None = None,
    max_latency_s: float | None = None,
    tol: float = 1e-3,
    power: CpuPower | None = None,
) -> TuneResult:
    """Evaluate every combination (small spaces only) and return the exact front and choice."""
    cat = catalogue(host) if cat is None else cat
    if power is not None:
        host = power.host_at_frequency(host)
    ev = Evaluator(list(txs), cat, host, max_latency_s, power)
    genes = cat.enumerate(len(txs))
    F = ev.raw(genes)
    res = _front(ev, genes, F, cat, tol, -1, float(len(genes)))
    res.n_evaluations = len(genes)
    return res


def tune_jointly(rows, host: Host, seed: int, max_latency_s: float | None, power=None) -> dict:
    """All NICs of `rows` tuned together on one CPU (`host.cpu_cores`): the front and the chosen settings."""
    txs = [r.transmission() for r in rows]
    res = tune(txs, host, seed=seed, pop_size=60, n_gen=60, max_latency_s=max_latency_s, power=power)
    return {
        "front": [
            {"throughput_bps": float(t), "interrupts_per_s": float(i)}
            | ({} if res.front_power_w is None else {"cpu_power_w": float(res.front_power_w[k])})
            for k, (t, i) in enumerate(zip(res.front_throughput_bps, res.front_interrupts_per_s))
        ],
        "chosen": [s.label() for s in res.chosen_settings],
        "chosen_throughput_bps": res.chosen_throughput_bps,
        "chosen_interrupts_per_s": res.chosen_interrupts_per_s,
        "evaluations": res.n_evaluations,
        "nics": len(txs),
    }
