"""greendcn: measure, simulate and cut the energy of datacenter networks.

Five capabilities, one package each: `sim` (the packet-level simulator and its energy ledger), `power` (analytic
power models), `host` (real Linux: AFFCON, RAPL, the TDMA probe and model), `nic` (receive-mode model and GA
tuner), `lifetime` (device lifetimes from access logs); `core` holds what they share. The compiled module
`greendcn._native` (crates/py) holds the Rust engine and the log scanner; docs/architecture.md maps it all."""

from __future__ import annotations

from .core.lazy import lazy_getattr

from . import _moved
from .core.errors import EngineCrash, EngineInputError, GreendcnError, InputError

_moved.install()  # old import paths (greendcn.scenario, ...) keep working for one release

# Loaded when first used, so that `import greendcn` (and every command) does not pay for pandas and the
# simulator unless it needs them.
_LAZY = {
    "SimResult": ".sim.run",
    "simulate": ".sim.run",
    "Scenario": ".sim.scenario",
    "load_scenario": ".sim.scenario",
}


__getattr__ = lazy_getattr(__name__, _LAZY, globals())


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
