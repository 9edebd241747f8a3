"""Fit the software-router model of seed 004 to a user's measurements: chi (a0 fixed at 0) and gamma by least
squares, normalized as the paper does (Section V.A: t = r / r_max(f), y = (Phi - Phi_idle) / (Phi_active -
Phi_idle)), and the maximum model error as its Fig. 8 reports it.

Samples are a CSV with columns frequency_hz, cores, offered_load_pps, throughput_pps, power_w (one row per
measurement; `cores` = active forwarding cores)."""

from __future__ import annotations

import csv
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from ..core.errors import InputError
from ..core.userfile import read_text
from .router import RouterPlatform, phi_multicore

__all__ = ["SAMPLE_COLUMNS", "FitResult", "fit_chi", "fit_gamma", "fit_router", "read_samples"]

SAMPLE_COLUMNS = ("frequency_hz", "cores", "offered_load_pps", "throughput_pps", "power_w")


def read_samples(path: str | Path) -> dict[str, np.ndarray]:
    """Read the samples CSV into arrays; a missing column or a non-number names the row and column."""
    p = Path(path)
    try:
        rows = list(csv.DictReader(read_text(p, "samples", kind="a CSV of samples").splitlines()))
    except csv.Error as e:
        raise InputError(f"samples {p}: not a readable CSV ({e})", hint="check the file") from None
    if not rows:
        raise InputError(f"{p} holds no samples", hint=f"columns: {', '.join(SAMPLE_COLUMNS)}")
    missing = [c for c in SAMPLE_COLUMNS if c not in rows[0]]
    if missing:
        raise InputError(f"{p}: missing column(s) {missing}", hint=f"columns: {', '.join(SAMPLE_COLUMNS)}")
    out: dict[str, list[float]] = {c: [] for c in SAMPLE_COLUMNS}
    for k, row in enumerate(rows, start=2):
        for c in SAMPLE_COLUMNS:
            try:
                out[c].append(float(row[c]))
            except (TypeError, ValueError):
                raise InputError(
                    f"{p} line {k}: {c} = {row[c]!r} is not a number", hint="fix that cell"
                ) from None
    return {c: np.asarray(v) for c, v in out.items()}


def fit_chi(t, y) -> tuple[float, ...]:
    """Least-squares 7th-order polynomial through (t, y) with a0 = 0 (chi(0) = 0), as in seed 004 Eq. 4."""
    t, y = np.asarray(t, dtype=float), np.asarray(y, dtype=float)
    if t.size < 7:
        raise InputError(f"{t.size} samples cannot fix 7 coefficients", hint="measure more load levels")
    design = np.vander(t, 8, increasing=True)[:, 1:]
    coeffs, *_ = np.linalg.lstsq(design, y, rcond=None)
    return (0.0, *(float(a) for a in coeffs))


def fit_gamma(r_max_single, r_max_n) -> float:
    """gamma(n) minimizing sum over frequencies of (R_n(f) - gamma r_max(f))^2 (Eq. 10 at saturation)."""
    a, b = np.asarray(r_max_single, dtype=float), np.asarray(r_max_n, dtype=float)
    return float(np.dot(a, b) / np.dot(a, a))


@dataclass(frozen=True)
class FitResult:
    """Fitted values end in `_`: the chi coefficients, gamma(1..n), the fitted platform, and model errors."""

    chi_coeffs_: tuple[float, ...]
    gamma_: tuple[float, ...]
    platform_: RouterPlatform
    max_error_w_: float
    max_error_pct_: float
    max_error_pct_by_cores_: dict[int, float]
    samples: int


def _per_frequency(s: dict[str, np.ndarray], freqs: np.ndarray, top: int):
    """r_max, Phi_idle, Phi_active per frequency and the inactive-core power, from the samples (our estimators).

    Zero-throughput samples give n Phi_idle(f) + (top - n) w; with such samples at two or more core counts
    Phi_idle(f) and the inactive-core power w are solved jointly by least squares, otherwise w = 0.
    r_max(f) is the highest single-core throughput; Phi_active(f) the mean power of single-core samples
    within 0.5 % of it, less the inactive cores' draw."""
    cores = s["cores"].astype(int)
    r_max = []
    for f in freqs:
        m = (s["frequency_hz"] == f) & (cores == 1)
        if not m.any():
            raise InputError(
                f"no single-core samples at {f:g} Hz", hint="measure one core at every frequency"
            )
        r_max.append(s["throughput_pps"][m].max())
    r_max = np.array(r_max)
    k = np.searchsorted(freqs, s["frequency_hz"])
    zero = s["throughput_pps"] <= 1e-9 * r_max[k]
    for j, f in enumerate(freqs):
        if not (zero & (k == j)).any():
            raise InputError(
                f"no zero-throughput sample at {f:g} Hz to give Phi_idle",
                hint="add a sample with offered_load_pps = 0 at each frequency",
            )
    z = np.flatnonzero(zero)
    design = np.zeros((z.size, freqs.size + 1))
    design[np.arange(z.size), k[z]] = cores[z]
    design[:, -1] = top - cores[z]
    if np.unique(cores[z]).size < 2 or top == 1:
        design = design[:, :-1]
    sol, *_ = np.linalg.lstsq(design, s["power_w"][z], rcond=None)
    idle = sol[: freqs.size]
    inactive_w = float(sol[-1]) if sol.size > freqs.size else 0.0
    active = []
    for j in range(freqs.size):
        m = (k == j) & (cores == 1) & (s["throughput_pps"] >= 0.995 * r_max[j])
        active.append(s["power_w"][m].mean() - (top - 1) * inactive_w)
    return r_max, idle, np.array(active), max(inactive_w, 0.0)


def fit_router(samples: dict[str, np.ndarray], platform: RouterPlatform | None = None) -> FitResult:
    """Fit chi and gamma; r_max, Phi_idle, Phi_active come from `platform` when given, else from the samples.

    Our choices where the paper is silent: a sample's throughput is split evenly over its active cores (the
    paper's router spreads load evenly, Section II); without a platform, Phi_idle is per core and the
    inactive-core power is estimated from zero-load samples (see `_per_frequency`)."""
    s = samples
    freqs = np.unique(s["frequency_hz"])
    cores = s["cores"].astype(int)
    if cores.min() < 1:
        raise InputError("a sample has cores < 1", hint="`cores` counts active forwarding cores")
    top = int(cores.max()) if platform is None else platform.cores
    if platform is None:
        r_max, idle, active, inactive_w = _per_frequency(s, freqs, top)
        idle_per_core = True
    else:
        idx = [platform.freq_index(f) for f in freqs]
        r_max = np.array([platform.r_max_pps[i] for i in idx])
        idle = np.array([platform.phi_idle_w[i] for i in idx])
        active = np.array([platform.phi_active_w[i] for i in idx])
        idle_per_core, inactive_w = platform.idle_per_core, platform.inactive_core_w
    gamma = [1.0]
    for n in range(2, top + 1):
        fs = [k for k, f in enumerate(freqs) if ((s["frequency_hz"] == f) & (cores == n)).any()]
        if fs:
            rn = [s["throughput_pps"][(s["frequency_hz"] == freqs[k]) & (cores == n)].max() for k in fs]
            gamma.append(fit_gamma(r_max[fs], rn))
        elif platform is not None:
            gamma.append(platform.gamma[n - 1])
        else:
            gamma.append(np.nan)  # filled by interpolation below
    g = np.array(gamma)
    if np.isnan(g).any():  # our choice: interpolate gamma linearly over core counts nobody measured
        known = ~np.isnan(g)
        g[~known] = np.interp(np.flatnonzero(~known), np.flatnonzero(known), g[known])
    k = np.searchsorted(freqs, s["frequency_hz"])
    n = cores
    t = s["throughput_pps"] / (g[n - 1] * r_max[k])
    base = (n * idle[k] if idle_per_core else idle[k]) + (top - n) * inactive_w
    y = (s["power_w"] - base) / (n * (active[k] - idle[k]))
    coeffs = fit_chi(t, y)
    fitted = RouterPlatform(
        name=(platform.name if platform else "fitted"),
        frequencies_hz=tuple(float(f) for f in freqs),
        r_max_pps=tuple(r_max),
        phi_idle_w=tuple(idle),
        phi_active_w=tuple(active),
        gamma=tuple(g),
        idle_per_core=idle_per_core,
        inactive_core_w=inactive_w,
        source="fitted from samples",
        chi_coeffs=coeffs,
    )
    if platform is not None:
        fitted = replace(fitted, source=platform.source)
    pred = np.array(
        [
            phi_multicore(fitted, [f] * m, [load / m] * m)
            for f, m, load in zip(s["frequency_hz"], n, s["offered_load_pps"])
        ]
    )
    err = np.abs(pred - s["power_w"])
    pct = 100 * err / np.abs(s["power_w"])
    by_cores = {int(m): float(pct[n == m].max()) for m in np.unique(n)}
    return FitResult(
        coeffs, tuple(float(x) for x in g), fitted, float(err.max()), float(pct.max()), by_cores, int(t.size)
    )
