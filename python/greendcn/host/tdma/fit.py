"""Fit a LagLaw to measured send-to-receive lags, and save/load the fit as a small JSON file.

The fit (all our choices, as the thesis measures guard times but publishes no lag distribution):
- d0 is the smallest lag (the fixed part, seed 001 line 507);
- a lag whose excess over d0 passes a threshold T is a stall; T = max(20 x median excess, 20 us), far above
  the jitter of any host we measured and far below a scheduler stall;
- exponential stalls are memoryless, so the excess beyond T of the stalls estimates their mean, and the
  count beyond T, divided by exp(-T/mean), estimates how many stalls there were, short ones included;
- the jitter mean is the mean excess of the lags below T."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from ...core.errors import InputError
from .model import LagLaw

__all__ = ["FIT_FORMAT", "fit_lag_law", "load_lag_law", "save_lag_law"]

# The format tag of saved fits; it names the module the fit lived in when the format was defined and stays
# unchanged so that fits saved before the move still load.
FIT_FORMAT = "greendcn.circuit.tdma.LagLaw/1"
_MIN_THRESHOLD_S = 20e-6


def fit_lag_law(lags_s, threshold_s: float | None = None) -> tuple[LagLaw, dict[str, float]]:
    """Fit to lags in seconds; returns the law and fit details (threshold, counts)."""
    lag = np.asarray(lags_s, dtype=np.float64)
    if lag.size < 10:
        raise InputError(
            f"lags: need at least 10 samples to fit a lag law, got {lag.size}",
            hint="run the probe longer (--duration)",
        )
    d0 = float(lag.min())
    excess = lag - d0
    T = threshold_s if threshold_s is not None else max(20 * float(np.median(excess)), _MIN_THRESHOLD_S)
    stalled = excess > T
    n_stall = int(stalled.sum())
    jitter = float(excess[~stalled].mean())
    if n_stall:
        mean_stall = float(excess[stalled].mean() - T)
        mean_stall = max(mean_stall, 1e-9)
        prob = min(1.0, n_stall / lag.size / math.exp(-T / mean_stall))
    else:
        mean_stall, prob = 0.0, 0.0
    law = LagLaw(d0_s=d0, jitter_mean_s=jitter, stall_prob=prob, stall_mean_s=mean_stall)
    return law, {"threshold_s": T, "samples": int(lag.size), "stalls_seen": n_stall}


def save_lag_law(path: str | Path, law: LagLaw, **details: object) -> None:
    """Write the fit as JSON (units in the key names) that a simulated TDMA host can load back."""
    payload = {
        "format": FIT_FORMAT,
        "d0_s": law.d0_s,
        "jitter_mean_s": law.jitter_mean_s,
        "stall_prob": law.stall_prob,
        "stall_mean_s": law.stall_mean_s,
        "stall_law": law.stall_law,
        "details": details,
    }
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(payload, indent=2, default=str) + "\n")


def load_lag_law(path: str | Path) -> LagLaw:
    p = Path(path)
    try:
        data = json.loads(p.read_text())
    except (OSError, ValueError) as e:
        raise InputError(
            f"cannot read lag fit {p}: {e}", hint="write one with `greendcn host tdma model --fit`"
        ) from e
    if data.get("format") != FIT_FORMAT:
        raise InputError(
            f"{p}: format is {data.get('format')!r}, expected {FIT_FORMAT!r}",
            hint="the file was not written by greendcn's lag fit",
        )
    try:
        return LagLaw(
            d0_s=float(data["d0_s"]),
            jitter_mean_s=float(data["jitter_mean_s"]),
            stall_prob=float(data["stall_prob"]),
            stall_mean_s=float(data["stall_mean_s"]),
            stall_law=str(data.get("stall_law", "exponential")),
        )
    except KeyError as e:
        raise InputError(f"{p}: field {e.args[0]} is missing", hint="write the fit again") from None
