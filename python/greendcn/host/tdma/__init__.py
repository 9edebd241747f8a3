"""Host TDMA probe: how precisely this host starts and stops sending, measured over veth in namespaces.

A native sender (crates/tdma-probe) follows a schedule; a receiver logs kernel RX timestamps; the circuit
emulator sorts packets into uptime, downtime and wrong destination; the measurements, guard search, sweeps,
pacing comparison and GRE relay build on that. The model of what timing error costs a circuit
(`model`: guard, preallocation, lag, goodput) and its fit to probe measurements (`fit`) live here too, so all
TDMA code, measured and modelled, is in this one package."""

from .classify import CLASS_NAMES, DOWN, UP, WRONG, classify
from .fit import fit_lag_law, load_lag_law, save_lag_law
from .metrics import Metrics, measure, percentiles, within_slot_gaps
from .model import LagLaw, TdmaLink, goodput_bps, leak_share, stall_shortfall
from .netns import Namespaces, check_capabilities, remove_stale
from .probe import ProbeConfig, ProbeRun, run_probe
from .records import RECORD_DTYPE, load_records, make_records
from .schedule import Schedule
from .search import GuardSearch, guard_search, upper_bound_share
from .synthetic import simulate_sender

__all__ = [
    "CLASS_NAMES",
    "DOWN",
    "RECORD_DTYPE",
    "UP",
    "WRONG",
    "GuardSearch",
    "LagLaw",
    "Metrics",
    "Namespaces",
    "ProbeConfig",
    "ProbeRun",
    "Schedule",
    "TdmaLink",
    "check_capabilities",
    "classify",
    "fit_lag_law",
    "goodput_bps",
    "guard_search",
    "leak_share",
    "load_lag_law",
    "load_records",
    "make_records",
    "measure",
    "percentiles",
    "remove_stale",
    "run_probe",
    "save_lag_law",
    "simulate_sender",
    "stall_shortfall",
    "upper_bound_share",
    "within_slot_gaps",
]
