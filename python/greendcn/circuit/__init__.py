"""Circuit-switched fabrics: host-side TDMA timing (guard, preallocation, lag) and what it costs in goodput."""

from .tdma import LagLaw, TdmaLink, goodput_bps, leak_share, stall_shortfall
from .tdma_fit import fit_lag_law, load_lag_law, save_lag_law

__all__ = [
    "LagLaw",
    "TdmaLink",
    "fit_lag_law",
    "goodput_bps",
    "leak_share",
    "load_lag_law",
    "save_lag_law",
    "stall_shortfall",
]
