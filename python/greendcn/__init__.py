"""greendcn: measure, simulate and cut the energy of datacenter networks.

Five capabilities, one package each: `sim` (the packet-level simulator and its energy ledger), `power` (analytic
power models), `host` (real Linux: AFFCON, RAPL, the TDMA probe and model), `nic` (receive-mode model and GA
tuner), `lifetime` (device lifetimes from access logs); `core` holds what they share. The compiled module
`greendcn._native` (crates/py) holds the Rust engine and the log scanner; docs/architecture.md maps it all."""

from __future__ import annotations

from . import _moved
from .core.errors import EngineCrash, EngineInputError, GreendcnError, InputError
from .sim.run import SimResult, simulate
from .sim.scenario import Scenario, load_scenario

_moved.install()  # old import paths (greendcn.scenario, ...) keep working for one release

__version__ = "0.1.0"

__all__ = [
    "EngineCrash",
    "EngineInputError",
    "GreendcnError",
    "InputError",
    "Scenario",
    "SimResult",
    "__version__",
    "load_scenario",
    "simulate",
]
