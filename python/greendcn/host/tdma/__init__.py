"""Host TDMA probe: how precisely this host starts and stops sending, measured over veth in namespaces.

A native sender (crates/tdma-probe) follows a schedule; a receiver logs kernel RX timestamps; the circuit
emulator sorts packets into uptime, downtime and wrong destination; the measurements, guard search, sweeps,
pacing comparison and GRE relay build on that. The model lives in `greendcn.circuit.tdma`."""

from .classify import CLASS_NAMES, DOWN, UP, WRONG, classify
from .metrics import Metrics, measure, percentiles, within_slot_gaps
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
    "Metrics",
    "Namespaces",
    "ProbeConfig",
    "ProbeRun",
    "Schedule",
    "check_capabilities",
    "classify",
    "guard_search",
    "load_records",
    "make_records",
    "measure",
    "percentiles",
    "remove_stale",
    "run_probe",
    "simulate_sender",
    "upper_bound_share",
    "within_slot_gaps",
]
