"""Guard search: the thesis's guess-and-check binary search (seed 001, line 636), automated.

`guard_search(measure, target, lo, hi)` finds the smallest guard (to `resolution`) whose measured leak share
is at most `target`, calling `measure(guard_ns) -> (leaked, packets)` once per step. It assumes the leak
falls as the guard grows; on a noisy host a step can contradict that, so every step is kept for the report.
With zero leaked packets out of N, the share is only known to be below about 3/N (the "rule of three",
95% confidence); the result carries that bound so nobody reads 0 of 1,000 as 1e-7."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ...core.errors import InputError

__all__ = ["GuardSearch", "GuardStep", "guard_search", "upper_bound_share"]


def upper_bound_share(leaked: int, packets: int) -> float:
    """A 95% upper bound on the leak share: 3/N when nothing leaked, else leaked/N plus two standard errors."""
    if packets <= 0:
        return 1.0
    if leaked == 0:
        return min(1.0, 3.0 / packets)
    p = leaked / packets
    return min(1.0, p + 2 * (p * (1 - p) / packets) ** 0.5)


@dataclass
class GuardStep:
    guard_ns: int
    leaked: int
    packets: int

    @property
    def share(self) -> float:
        return self.leaked / self.packets if self.packets else float("nan")


@dataclass
class GuardSearch:
    target_share: float
    guard_ns: int | None  # None when even the upper end of the range misses the target
    leaked: int
    packets: int
    steps: list[GuardStep] = field(default_factory=list)

    @property
    def met(self) -> bool:
        return self.guard_ns is not None

    @property
    def share_upper_bound(self) -> float:
        return upper_bound_share(self.leaked, self.packets)


def guard_search(
    measure: Callable[[int], tuple[int, int]],
    target_share: float,
    lo_ns: int,
    hi_ns: int,
    resolution_ns: int = 1000,
) -> GuardSearch:
    if not 0 <= target_share < 1:
        raise InputError(
            f"target: a leak share must lie in [0, 1), got {target_share}", hint="for example 1e-3"
        )
    if not 0 <= lo_ns < hi_ns:
        raise InputError(
            f"guard range: need 0 <= low < high, got {lo_ns} ns and {hi_ns} ns",
            hint="for example --low 0us --high 200us",
        )
    if resolution_ns <= 0:
        raise InputError("resolution: must be positive", hint="for example --resolution 1us")
    steps: list[GuardStep] = []

    def probe(g: int) -> GuardStep:
        leaked, packets = measure(g)
        step = GuardStep(g, int(leaked), int(packets))
        steps.append(step)
        return step

    def ok(step: GuardStep) -> bool:
        return step.packets > 0 and step.leaked <= target_share * step.packets

    top = probe(hi_ns)
    if not ok(top):
        return GuardSearch(target_share, None, top.leaked, top.packets, steps)
    bottom = probe(lo_ns)
    if ok(bottom):
        return GuardSearch(target_share, lo_ns, bottom.leaked, bottom.packets, steps)
    best = top
    lo, hi = lo_ns, hi_ns
    while hi - lo > resolution_ns:
        mid = (lo + hi) // 2
        step = probe(mid)
        if ok(step):
            hi, best = mid, step
        else:
            lo = mid
    return GuardSearch(target_share, best.guard_ns, best.leaked, best.packets, steps)
