"""The power model of a multi-core software router: Bolla, Bruschi and Ranieri, seed 004, Section V (Eq. 4-10).

Units: frequencies in Hz, packet rates in packets per second (pps), power in watts (W), times in seconds.
Everything here is a pure function of a `RouterPlatform`; the optimizer and the fitting live beside it
(`optimizer.py`, `router_fit.py`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..core.errors import InputError
from ..core.userfile import read_toml

__all__ = [
    "PUBLISHED_CHI",
    "RouterPlatform",
    "chi",
    "core_capacity_pps",
    "example_platform",
    "load_platform",
    "p_idle",
    "phi",
    "phi_multicore",
    "throughput_multicore",
    "time_average_power",
]

# Seed 004, Section V.A, the coefficients a0..a7 of Eq. 4 as printed. The curve is kept as published even
# where it is not monotone (it falls between t ~ 0.83 and t ~ 0.93) and where it exceeds 1 (just below t = 1,
# chi(1) = 1.0021): "fixing" it would change every number derived from the paper.
PUBLISHED_CHI: tuple[float, ...] = (0.0, 0.470487, 15.0124, -89.8629, 223.074, -256.469, 130.477, -21.6999)


def chi(t, coeffs: Sequence[float] = PUBLISHED_CHI):
    """The normalized form function chi(t) = sum a_i t^i (seed 004, Eq. 4); t = r / r_max(f) in [0, 1].

    Works on floats and numpy arrays alike; t outside [0, 1] is evaluated as the polynomial, not clipped
    (callers get t <= 1 from Eq. 6)."""
    # Horner's rule in the order numpy's polyval takes it (the same values bit for bit), without importing
    # numpy.polynomial (about 30 M instructions at a simulation's start, BENCHMARKS.md)
    c = np.asarray(coeffs, dtype=float)
    x = np.asarray(t) if isinstance(t, (tuple, list)) else t
    value = c[-1] + x * 0
    for a in c[-2::-1]:
        value = a + value * x
    return value


@dataclass(frozen=True)
class RouterPlatform:
    """A software-router platform: per-frequency capacity and power of one core, and how cores combine.

    - `frequencies_hz`, `r_max_pps`, `phi_idle_w`, `phi_active_w`: one entry per equivalent frequency f in F,
      ascending. r_max(f) is one core's maximum forwarding rate; Phi_idle(f) and Phi_active(f) are the powers
      of Eq. 5 (seed 004).
    - `gamma`: gamma[n-1] is the speed-up of n active cores over one (so gamma[0] = 1); Eq. 9-10 give each of
      the n active cores the capacity gamma(n)/n * r_max(f_c). Its length is the number of cores.
    - `idle_per_core`: the paper's Eq. 9 sums Phi_idle(f_c) over the active cores; when False (our option)
      Phi_idle is a platform-wide figure drawn once, at the highest frequency of any active core.
    - `inactive_core_w`: what a core outside the active set draws (W). The paper is silent; our parameter.
    """

    name: str
    frequencies_hz: tuple[float, ...]
    r_max_pps: tuple[float, ...]
    phi_idle_w: tuple[float, ...]
    phi_active_w: tuple[float, ...]
    gamma: tuple[float, ...] = (1.0,)
    idle_per_core: bool = True
    inactive_core_w: float = 0.0
    source: str = ""
    chi_coeffs: tuple[float, ...] = field(default=PUBLISHED_CHI)

    def __post_init__(self) -> None:
        n = len(self.frequencies_hz)
        if n == 0:
            raise InputError("platform.frequencies_hz is empty", hint="give at least one frequency")
        for name in ("r_max_pps", "phi_idle_w", "phi_active_w"):
            if len(getattr(self, name)) != n:
                raise InputError(
                    f"platform.{name} has {len(getattr(self, name))} values, expected {n}",
                    hint="give one value per frequency",
                )
        if list(self.frequencies_hz) != sorted(self.frequencies_hz) or len(set(self.frequencies_hz)) != n:
            raise InputError(
                "platform.frequencies_hz must be strictly ascending", hint="sort the frequencies"
            )
        for i in range(n):
            if not self.r_max_pps[i] > 0:
                raise InputError(f"platform.r_max_pps[{i}] must be > 0", hint="a core must forward something")
            if self.phi_active_w[i] < self.phi_idle_w[i] or self.phi_idle_w[i] < 0:
                raise InputError(
                    f"platform power at frequency {i}: need 0 <= phi_idle_w <= phi_active_w",
                    hint="check the units (W) and the order of the columns",
                )
        if not self.gamma or abs(self.gamma[0] - 1.0) > 1e-9:
            raise InputError(
                "platform.gamma[0] must be 1 (one core is its own speed-up)",
                hint="list gamma(1), gamma(2), ... one per core count",
            )
        if any(g <= 0 for g in self.gamma):
            raise InputError("platform.gamma values must be > 0", hint="gamma(n) is a speed-up factor")
        if self.inactive_core_w < 0:
            raise InputError("platform.inactive_core_w must be >= 0", hint="a power in W")

    @property
    def cores(self) -> int:
        return len(self.gamma)

    def freq_index(self, f_hz: float) -> int:
        """Index of frequency f in F; a frequency outside F is an error (F is a discrete set)."""
        for i, f in enumerate(self.frequencies_hz):
            if math.isclose(f, f_hz, rel_tol=1e-9):
                return i
        raise InputError(
            f"frequency {f_hz:g} Hz is not one of the platform's {list(self.frequencies_hz)}",
            hint="choose a frequency from the platform description",
        )


def phi(platform: RouterPlatform, f_hz: float, load_pps):
    """Power (W) of one core at frequency f offered load l (pps): Eq. 5 with r = min(l, r_max(f)) (Eq. 6)."""
    i = platform.freq_index(f_hz)
    rmax = platform.r_max_pps[i]
    r = np.minimum(np.asarray(load_pps, dtype=float), rmax)
    idle, active = platform.phi_idle_w[i], platform.phi_active_w[i]
    return idle + (active - idle) * chi(r / rmax, platform.chi_coeffs)


def core_capacity_pps(platform: RouterPlatform, f_hz: float, n_active: int) -> float:
    """Capacity of one of n active cores at frequency f: gamma(n)/n * r_max(f) (seed 004, Eq. 9-10)."""
    if not 1 <= n_active <= platform.cores:
        raise InputError(
            f"{n_active} active cores on a {platform.cores}-core platform",
            hint=f"use 1..{platform.cores} cores",
        )
    return platform.gamma[n_active - 1] / n_active * platform.r_max_pps[platform.freq_index(f_hz)]


def _check_active(platform: RouterPlatform, freqs_hz: Sequence[float], loads_pps: Sequence[float]) -> int:
    if len(freqs_hz) != len(loads_pps):
        raise InputError(
            f"{len(freqs_hz)} frequencies for {len(loads_pps)} per-core loads",
            hint="give one frequency and one load per active core",
        )
    if any(x < 0 for x in loads_pps):
        raise InputError("a per-core load is negative", hint="loads are packet rates >= 0")
    n = len(freqs_hz)
    core_capacity_pps(platform, platform.frequencies_hz[0], n)  # validates 1 <= n <= cores
    return n


def phi_multicore(platform: RouterPlatform, freqs_hz: Sequence[float], loads_pps: Sequence[float]) -> float:
    """Power (W) of the router with the active set C given by one (f_c, l_c) per active core: Eq. 9.

    r_c = min(l_c, gamma(|C|)/|C| r_max(f_c)) per Eq. 10, reading r_max(f_c) where Eq. 10 prints r_max(f).
    Cores outside C draw `inactive_core_w` each (our parameter). With `idle_per_core=False` Phi_idle is
    counted once, at the highest active frequency (our reading, see RouterPlatform)."""
    n = _check_active(platform, freqs_hz, loads_pps)
    total = (platform.cores - n) * platform.inactive_core_w
    idx = [platform.freq_index(f) for f in freqs_hz]
    for i, load in zip(idx, loads_pps):
        cap = platform.gamma[n - 1] / n * platform.r_max_pps[i]
        swing = platform.phi_active_w[i] - platform.phi_idle_w[i]
        total += swing * float(chi(min(load, cap) / cap, platform.chi_coeffs))
        if platform.idle_per_core:
            total += platform.phi_idle_w[i]
    if not platform.idle_per_core:
        total += platform.phi_idle_w[max(idx)]
    return total


def throughput_multicore(
    platform: RouterPlatform, freqs_hz: Sequence[float], loads_pps: Sequence[float]
) -> float:
    """Forwarded rate (pps) of the active cores: sum of min(l_c, gamma(|C|)/|C| r_max(f_c)), Eq. 10."""
    n = _check_active(platform, freqs_hz, loads_pps)
    return float(sum(min(load, core_capacity_pps(platform, f, n)) for f, load in zip(freqs_hz, loads_pps)))


def _weights(loads: np.ndarray, durations_s) -> np.ndarray:
    if durations_s is None:
        return np.full(loads.shape, 1.0 / loads.size)
    d = np.asarray(durations_s, dtype=float)
    if d.shape != loads.shape or np.any(d < 0) or d.sum() <= 0:
        raise InputError(
            "durations_s must match the loads, be >= 0 and sum to > 0",
            hint="one duration (s) per load sample",
        )
    return d / d.sum()


def time_average_power(platform: RouterPlatform, f_hz: float, loads_pps, durations_s=None) -> float:
    """Mean power (W) of one core over a piecewise-constant load trace: Eq. 7 integrated exactly.

    `loads_pps[k]` holds for `durations_s[k]` seconds (equal durations when omitted)."""
    loads = np.atleast_1d(np.asarray(loads_pps, dtype=float))
    return float(np.sum(_weights(loads, durations_s) * phi(platform, f_hz, loads)))


def p_idle(platform: RouterPlatform, f_hz: float, loads_pps, durations_s=None) -> float:
    """Probability that the core is idle over the trace, from Eq. 8: 1 - mean of chi(r(t)/r_max(f)).

    Eq. 2 with this p_idle gives the same mean power as Eq. 7; the tests use it as a consistency check."""
    loads = np.atleast_1d(np.asarray(loads_pps, dtype=float))
    rmax = platform.r_max_pps[platform.freq_index(f_hz)]
    t = np.minimum(loads, rmax) / rmax
    return float(1.0 - np.sum(_weights(loads, durations_s) * chi(t, platform.chi_coeffs)))


def example_platform() -> RouterPlatform:
    """An EXAMPLE platform sized on the figures seed 004 gives, not a measurement (see docs/models.md).

    From the paper (Section IV.B, Fig. 5-6): one 3 GHz Xeon core forwards about 1,040 kpps of 64-byte
    packets; r_max and Phi_active grow linearly together across frequencies (Section IV.A); two Xeon cores
    give a speed-up near 2 (Section V.B). Our choices: the four frequencies, r_max proportional to f, the
    watt figures, gamma beyond two cores, and what an inactive core draws."""
    return load_platform(Path(__file__).with_name("data") / "xeon_example.toml")


def load_platform(path: str | Path) -> RouterPlatform:
    """Read a platform description (TOML; format in docs/models.md and data/xeon_example.toml)."""
    p = Path(path)
    doc = read_toml(p, "--platform", kind="a TOML platform file")
    rows = doc.get("frequency")
    if not isinstance(rows, list) or not rows:
        raise InputError(f"{p}: no [[frequency]] tables", hint="add one [[frequency]] table per frequency")
    cols: dict[str, list[float]] = {k: [] for k in ("f_hz", "r_max_pps", "phi_idle_w", "phi_active_w")}
    for k, row in enumerate(rows):
        for key, values in cols.items():
            if key not in row:
                raise InputError(
                    f"{p}: frequency[{k}].{key} is missing", hint=f"add {key} to every [[frequency]]"
                )
            values.append(float(row[key]))
    known = {"name", "source", "gamma", "idle_per_core", "inactive_core_w", "chi", "frequency"}
    unknown = sorted(set(doc) - known)
    if unknown:
        raise InputError(f"{p}: unknown key(s) {unknown}", hint=f"allowed keys: {sorted(known)}")
    return RouterPlatform(
        name=str(doc.get("name", p.stem)),
        frequencies_hz=tuple(cols["f_hz"]),
        r_max_pps=tuple(cols["r_max_pps"]),
        phi_idle_w=tuple(cols["phi_idle_w"]),
        phi_active_w=tuple(cols["phi_active_w"]),
        gamma=tuple(float(g) for g in doc.get("gamma", [1.0])),
        idle_per_core=bool(doc.get("idle_per_core", True)),
        inactive_core_w=float(doc.get("inactive_core_w", 0.0)),
        source=str(doc.get("source", "")),
        chi_coeffs=tuple(float(a) for a in doc.get("chi", PUBLISHED_CHI)),
    )
