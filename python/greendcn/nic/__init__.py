"""NIC receive modes (per-packet interrupts, timer polling, watermark, NAPI): a fluid model, a packet-level
cross-check, and a multi-objective GA tuner, after seed 002 (Nurika et al.) and seed 004's NAPI account."""

from __future__ import annotations

import sys
import types

from ..core.lazy import lazy_dir, lazy_getattr

# Each name is imported from its module when first used (core/lazy.py): the simulator prices host CPUs with
# cpupower.py alone and should not pay for the tuner, the event simulation or pymoo.
_LAZY = {
    "crosscheck": ".crosscheck",
    "SimResult": ".eventsim",
    "simulate": ".eventsim",
    "CAVEAT": ".linux",
    "linux_commands": ".linux",
    "PathResult": ".model",
    "evaluate": ".model",
    "evaluate_setting": ".model",
    "evaluate_shared": ".model",
    "napi_irq_per_packet": ".model",
    "DEFAULT_HOST": ".params",
    "MODES": ".params",
    "Host": ".params",
    "Setting": ".params",
    "Transmission": ".params",
    "default_setting": ".params",
    "parse_setting": ".params",
    "load_transmissions": ".transmissions",
    "tune_rows": ".transmissions",
    "Catalogue": ".space",
    "catalogue": ".space",
    "TuneResult": ".tuner",
    "choose": ".tuner",
    "exhaustive": ".tuner",
    "pareto_mask": ".tuner",
    "tune": ".tuner",
}

__getattr__ = lazy_getattr(__name__, _LAZY, globals())
__dir__ = lazy_dir(_LAZY, globals())


class _Package(types.ModuleType):
    """`crosscheck` names both a function of this package and its module: importing the module (as `greendcn
    nic crosscheck` does) must not put the module in the function's place."""

    def __setattr__(self, name: str, value: object) -> None:
        if name == "crosscheck" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


__all__ = [
    "CAVEAT",
    "DEFAULT_HOST",
    "MODES",
    "Catalogue",
    "Host",
    "PathResult",
    "Setting",
    "SimResult",
    "Transmission",
    "TuneResult",
    "catalogue",
    "choose",
    "crosscheck",
    "default_setting",
    "evaluate",
    "evaluate_setting",
    "evaluate_shared",
    "exhaustive",
    "linux_commands",
    "load_transmissions",
    "napi_irq_per_packet",
    "pareto_mask",
    "parse_setting",
    "simulate",
    "tune",
    "tune_rows",
]
