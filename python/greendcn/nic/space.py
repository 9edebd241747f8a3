"""The discrete space of receive settings the tuner searches: per NIC, a catalogue of (mode, parameter).

The catalogue is ordered by mode, then by parameter, so neighbouring indices are similar settings; the GA
encodes one integer index per NIC. Grids are log-spaced (our choice: interrupt cost, latency and ring
overflow all change by ratios, not by differences) and deduplicated after rounding to whole packets.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ..core.errors import InputError
from .params import DEFAULT_HOST, MODE_CODES, Host, Setting

__all__ = ["Catalogue", "catalogue"]


@dataclass(frozen=True)
class Catalogue:
    """Distinct settings of one NIC: parallel arrays of mode codes and model parameters."""

    codes: np.ndarray
    params: np.ndarray
    settings: tuple[Setting, ...]

    def __len__(self) -> int:
        return len(self.settings)

    def index_of(self, setting: Setting, packet_bytes: int = 1500) -> int:
        """Index of the catalogue entry nearest to `setting` (same mode, closest parameter in log scale)."""
        same = np.flatnonzero(self.codes == setting.code)
        if setting.mode == "interrupt":
            return int(same[0])
        p = setting.param(packet_bytes)
        return int(same[np.argmin(np.abs(np.log(self.params[same]) - np.log(p)))])

    def enumerate(self, n_nics: int) -> np.ndarray:
        """Every combination of indices for n_nics NICs, shape (len**n_nics, n_nics)."""
        k = len(self)
        if k**n_nics > 5_000_000:
            raise InputError(f"cannot enumerate {k}**{n_nics} settings", hint="use the GA for this many NICs")
        return np.array(list(itertools.product(range(k), repeat=n_nics)), dtype=np.int64)


def _log_ints(lo: float, hi: float, n: int) -> np.ndarray:
    return np.unique(np.round(np.geomspace(lo, hi, n)).astype(np.int64))


def catalogue(
    host: Host = DEFAULT_HOST,
    n_timer: int = 40,
    n_watermark: int = 40,
    n_napi: int = 30,
    timer_range_s: tuple[float, float] = (10e-6, 100e-3),
    napi_max: int = 512,
) -> Catalogue:
    """The default catalogue: interrupt, timer periods from 10 us to 100 ms, watermarks from 1 packet to the
    ring size, NAPI budgets from 1 to 512 packets per poll."""
    settings: list[Setting] = [Setting("interrupt")]
    settings += [Setting("timer", float(t), "s") for t in np.geomspace(*timer_range_s, n_timer)]
    settings += [Setting("watermark", float(w), "pkt") for w in _log_ints(1, host.ring_slots, n_watermark)]
    settings += [Setting("napi", float(b), "pkt/poll") for b in _log_ints(1, napi_max, n_napi)]
    codes = np.array([MODE_CODES[s.mode] for s in settings], dtype=np.int64)
    params = np.array([s.param(1) if s.mode != "interrupt" else 0.0 for s in settings])
    return Catalogue(codes, params, tuple(settings))
