"""Green optimization of a software router (the future work of seed 004, Section VI): pick the active cores,
their frequencies and their share of the load that forward an offered load at the least power (Eq. 9-10).

chi is neither monotone nor convex, so splitting the load evenly or greedily can miss the optimum. Two
methods search the same space, the offered load cut into `units` equal quanta (a per-core load is a whole
number of quanta; our discretization, reported with the plan):
- `optimize_exact`: plain enumeration of every active-core count, frequency vector and split (small platforms);
- `optimize`: for each active-core count n, the best power of one core carrying v quanta is h_n(v) = min over
  feasible f; the best n-core split is the n-fold min-plus convolution of h_n, computed by repeated squaring.
  Cores are interchangeable, so this is exact on the grid; the tests check it equals `optimize_exact`. With a
  platform-wide idle (drawn at the highest active frequency F) the search runs once per F, with one core
  pinned at F and the others at or below it, so the idle term is known exactly.
The default plan to beat: every core active at the highest frequency with an even split."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ..core.errors import InputError
from .router import RouterPlatform, chi, core_capacity_pps, phi_multicore, throughput_multicore

__all__ = [
    "CoreSetting",
    "Plan",
    "default_plan",
    "default_units",
    "max_capacity_pps",
    "optimize",
    "optimize_exact",
    "optimize_per_core",
]

_TOL = 1e-9  # relative slack when comparing a core's load with its capacity (float rounding only)


@dataclass(frozen=True)
class CoreSetting:
    f_hz: float
    load_pps: float
    capacity_pps: float


@dataclass(frozen=True)
class Plan:
    """Active cores with their frequency and load; power from Eq. 9, throughput from Eq. 10."""

    cores: tuple[CoreSetting, ...]
    power_w: float
    throughput_pps: float
    offered_pps: float
    method: str
    units: int = 0

    @property
    def active_cores(self) -> int:
        return len(self.cores)


def _make_plan(
    platform: RouterPlatform,
    freqs: list[float],
    loads: list[float],
    offered: float,
    method: str,
    units: int = 0,
) -> Plan:
    n = len(freqs)
    settings = tuple(CoreSetting(f, load, core_capacity_pps(platform, f, n)) for f, load in zip(freqs, loads))
    return Plan(
        settings,
        phi_multicore(platform, freqs, loads),
        throughput_multicore(platform, freqs, loads),
        offered,
        method,
        units,
    )


def max_capacity_pps(platform: RouterPlatform) -> float:
    """The most the platform can forward: max over n of gamma(n) r_max(f_max) (Eq. 10)."""
    return max(platform.gamma) * platform.r_max_pps[-1]


def _check_load(platform: RouterPlatform, load_pps: float) -> None:
    if not (isinstance(load_pps, (int, float)) and math.isfinite(load_pps)) or load_pps <= 0:
        raise InputError(
            f"offered load {load_pps!r} pps must be a positive number", hint="e.g. --load 1.5Mpps"
        )
    cap = max_capacity_pps(platform)
    if load_pps > cap * (1 + _TOL):
        raise InputError(
            f"offered load {load_pps:.6g} pps is above the capacity of platform "
            f"'{platform.name}' ({cap:.6g} pps with every core at the highest frequency)",
            hint=f"offer at most {cap / 1e6:.4g} Mpps, or describe a bigger platform",
        )


def default_plan(platform: RouterPlatform, load_pps: float) -> Plan:
    """Every core active at the highest frequency, the load split evenly (the setup the paper measures)."""
    _check_load(platform, load_pps)
    n, f = platform.cores, platform.frequencies_hz[-1]
    if load_pps > n * core_capacity_pps(platform, f, n) * (1 + _TOL):
        raise InputError(
            f"offered load {load_pps:.6g} pps exceeds what all {n} cores forward together",
            hint="gamma(n) of this platform falls with n; use fewer cores (see `optimize`)",
        )
    return _make_plan(platform, [f] * n, [load_pps / n] * n, load_pps, "default: all cores, max frequency")


def default_units(platform: RouterPlatform) -> int:
    """Our default grid: a multiple of the core count (so the even split is on it), at least 256 quanta."""
    return platform.cores * max(8, math.ceil(256 / platform.cores))


def _core_table(platform: RouterPlatform, n: int, delta: float, units: int, top: int, lo: int = 0):
    """h(v), argmin f index: least power of one of n active cores carrying v quanta, frequency index in
    [lo, top].

    Phi_idle enters per core only when the platform says so; a shared idle is added by the caller."""
    v = np.arange(units + 1) * delta
    best = np.full(units + 1, np.inf)
    arg = np.full(units + 1, -1)
    for i in range(lo, top + 1):
        cap = platform.gamma[n - 1] / n * platform.r_max_pps[i]
        swing = platform.phi_active_w[i] - platform.phi_idle_w[i]
        cost = swing * chi(np.minimum(v / cap, 1.0), platform.chi_coeffs)
        if platform.idle_per_core:
            cost = cost + platform.phi_idle_w[i]
        cost = np.where(v <= cap * (1 + _TOL), cost, np.inf)
        better = cost < best
        best = np.where(better, cost, best)
        arg = np.where(better, i, arg)
    return best, arg


class _Node:
    """A min-plus convolution result; `split[u]` = quanta given to the right operand when the total is u.
    A leaf is one core's table and carries `arg[u]`, the frequency index that reaches its value."""

    def __init__(self, value: np.ndarray, left=None, right=None, split=None, arg=None):
        self.value, self.left, self.right, self.split, self.arg = value, left, right, split, arg

    def loads(self, u: int) -> list[tuple[int, int]]:
        """(quanta, frequency index) of every core when the total is u quanta."""
        if self.left is None:
            return [(u, int(self.arg[u]))]
        v = int(self.split[u])
        return self.left.loads(u - v) + self.right.loads(v)


def _minplus(a: _Node, b: _Node) -> _Node:
    k = a.value.size
    u = np.arange(k)[:, None]
    v = np.arange(k)[None, :]
    # candidates[u, v] = a[u - v] + b[v] for v <= u; inf elsewhere.
    cand = np.where(v <= u, a.value[np.clip(u - v, 0, None)] + b.value[v], np.inf)
    split = np.argmin(cand, axis=1)
    return _Node(cand[np.arange(k), split], a, b, split)


def _power(node: _Node, n: int) -> _Node:
    result, base = None, node
    while n:
        if n & 1:
            result = base if result is None else _minplus(result, base)
        n >>= 1
        if n:
            base = _minplus(base, base)
    return result


def optimize(platform: RouterPlatform, load_pps: float, units: int | None = None) -> Plan:
    """Least-power plan forwarding `load_pps` (total), exact on a grid of `units` quanta (see module doc)."""
    _check_load(platform, load_pps)
    units = units or default_units(platform)
    delta = load_pps / units
    best: tuple[float, list[float], list[float]] | None = None
    tops = (
        range(len(platform.frequencies_hz))
        if not platform.idle_per_core
        else [len(platform.frequencies_hz) - 1]
    )
    for n in range(1, platform.cores + 1):
        if n * core_capacity_pps(platform, platform.frequencies_hz[-1], n) * (1 + _TOL) < load_pps:
            continue
        for top in tops:
            h, arg = _core_table(platform, n, delta, units, top)
            if platform.idle_per_core:
                node = _power(_Node(h, arg=arg), n)
            else:
                # A shared idle is drawn at the highest active frequency, so fix it: one core runs at `top`
                # exactly, the other n - 1 at or below it. Cores are interchangeable, so putting the core at
                # `top` first loses nothing, and the plan's power is the table's value plus Phi_idle(top).
                h_top, arg_top = _core_table(platform, n, delta, units, top, lo=top)
                node = _Node(h_top, arg=arg_top)
                if n > 1:
                    node = _minplus(node, _power(_Node(h, arg=arg), n - 1))
            if not math.isfinite(node.value[units]):
                continue
            cores = node.loads(units)
            freqs = [platform.frequencies_hz[i] for _, i in cores]
            loads = [q * delta for q, _ in cores]
            cost = phi_multicore(platform, freqs, loads)  # Eq. 9 evaluated directly on the candidate
            if best is None or cost < best[0] - 1e-12:
                best = (cost, freqs, loads)
    if best is None:
        raise InputError(
            f"no set of cores forwards {load_pps:.6g} pps on a grid of {units} quanta",
            hint="raise --units, or lower the load",
        )
    return _make_plan(platform, best[1], best[2], load_pps, "dynamic program over load quanta", units)


def optimize_exact(
    platform: RouterPlatform, load_pps: float, units: int | None = None, max_cases: int = 2_000_000
) -> Plan:
    """Brute force on the same grid: every n, every frequency vector, every split; Eq. 9 evaluated directly."""
    _check_load(platform, load_pps)
    units = units or default_units(platform)
    delta = load_pps / units
    nf = len(platform.frequencies_hz)
    cases = sum(nf**n * math.comb(units + n - 1, n - 1) for n in range(1, platform.cores + 1))
    if cases > max_cases:
        raise InputError(
            f"exact search would evaluate {cases} plans", hint="use `optimize` (dynamic program)"
        )
    best = None
    for n in range(1, platform.cores + 1):
        for bars in itertools.combinations(range(units + n - 1), n - 1):
            quanta = [b - a - 1 for a, b in zip((-1, *bars), (*bars, units + n - 1))]
            loads = [q * delta for q in quanta]
            for freqs in itertools.product(platform.frequencies_hz, repeat=n):
                if any(
                    load > core_capacity_pps(platform, f, n) * (1 + _TOL) for f, load in zip(freqs, loads)
                ):
                    continue
                p = phi_multicore(platform, list(freqs), loads)
                if best is None or p < best[0] - 1e-12:
                    best = (p, list(freqs), loads)
    if best is None:
        raise InputError(f"no plan forwards {load_pps:.6g} pps", hint="lower the load")
    return _make_plan(platform, best[1], best[2], load_pps, "exhaustive search", units)


def optimize_per_core(platform: RouterPlatform, loads_pps: list[float]) -> Plan:
    """Loads bound to cores (one per queue): cores with load stay active, each at its cheapest feasible f."""
    if len(loads_pps) > platform.cores or any(x < 0 for x in loads_pps):
        raise InputError(
            f"{len(loads_pps)} per-core loads for {platform.cores} cores (all must be >= 0)",
            hint="give at most one non-negative load per core",
        )
    loads = [x for x in loads_pps if x > 0]
    if not loads:
        raise InputError("every per-core load is zero", hint="give at least one positive load")
    n = len(loads)
    best = None
    tops = (
        range(len(platform.frequencies_hz))
        if not platform.idle_per_core
        else [len(platform.frequencies_hz) - 1]
    )
    fs = platform.frequencies_hz
    for top in tops:
        freqs = []
        for load in loads:
            ok = [f for f in fs[: top + 1] if load <= core_capacity_pps(platform, f, n) * (1 + _TOL)]
            if not ok:
                break
            freqs.append(min(ok, key=lambda f: _one(platform, f, load, n)))
        else:
            if not platform.idle_per_core and fs[top] not in freqs:
                # A shared idle is drawn at the highest active frequency: pin the core that loses least by
                # running at `top`, so that `top` is the plan's highest frequency and its idle is exact.
                extra = [
                    _one(platform, fs[top], load, n) - _one(platform, f, load, n)
                    if load <= core_capacity_pps(platform, fs[top], n) * (1 + _TOL)
                    else math.inf
                    for f, load in zip(freqs, loads)
                ]
                j = int(np.argmin(extra))
                freqs[j] = fs[top]
            p = phi_multicore(platform, freqs, loads)
            if best is None or p < best[0]:
                best = (p, freqs)
    if best is None:
        raise InputError(
            f"a per-core load is above one core's capacity with {n} active cores",
            hint="spread the load over more queues or lower it",
        )
    return _make_plan(platform, best[1], loads, float(sum(loads)), "per-core loads")


def _one(platform: RouterPlatform, f: float, load: float, n: int) -> float:
    i = platform.freq_index(f)
    cap = core_capacity_pps(platform, f, n)
    idle = platform.phi_idle_w[i] if platform.idle_per_core else 0.0
    return idle + (platform.phi_active_w[i] - platform.phi_idle_w[i]) * float(
        chi(min(load / cap, 1.0), platform.chi_coeffs)
    )


def power_curve(platform: RouterPlatform, units: int) -> tuple[float, np.ndarray]:
    """The optimizer's least power (W) for every load on one grid at once: returns (delta_pps, power_w) with
    power_w[u] the best plan's power (Eq. 9, inactive cores included) for a total load of u * delta_pps,
    u = 0..units, and delta_pps = the platform's maximum capacity / units.

    The min-plus powers `optimize` builds already hold the best split for every total on the grid, so one
    pass prices a whole trace of per-window loads (the host ledger's optimizer policy). Exact on the grid: for
    a load u * delta it equals `optimize(platform, u * delta, units=u)` (the tests check this). A zero load
    is one core idle at the cheapest frequency, every other core inactive (our reading: the plan keeps one
    core awake to take the next packet)."""
    if units < 1:
        raise InputError(f"units must be >= 1, got {units}", hint="e.g. 1024 quanta")
    delta = max_capacity_pps(platform) / units
    best = np.full(units + 1, np.inf)
    tops = (
        range(len(platform.frequencies_hz))
        if not platform.idle_per_core
        else [len(platform.frequencies_hz) - 1]
    )
    for n in range(1, platform.cores + 1):
        inactive = (platform.cores - n) * platform.inactive_core_w
        for top in tops:
            h, arg = _core_table(platform, n, delta, units, top)
            if platform.idle_per_core:
                value = _power(_Node(h, arg=arg), n).value
            else:
                h_top, arg_top = _core_table(platform, n, delta, units, top, lo=top)
                node = _Node(h_top, arg=arg_top)
                if n > 1:
                    node = _minplus(node, _power(_Node(h, arg=arg), n - 1))
                value = node.value + platform.phi_idle_w[top]
            best = np.minimum(best, value + inactive)
    return delta, best
