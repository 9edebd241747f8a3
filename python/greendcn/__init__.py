"""greendcn: measure, simulate and cut the energy of datacenter networks.

The Rust engine (`greendcn._engine`) moves packets and counts; the Python packages build scenarios,
price the counters in watts and joules, drive real Linux hosts, and report."""

from __future__ import annotations

from .errors import EngineCrash, EngineInputError, GreendcnError, InputError
from .scenario import Scenario, load_scenario
from .simulate import SimResult, simulate

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
