"""Host tools for real Linux: AFFCON (seed 000: discovery, affinity/DVFS plans, apply/revert, rate control,
RAPL) here, and the TDMA precision probe (seed 001) in `greendcn.host.tdma`."""

from __future__ import annotations

from .actuators import CommandActuator, CpufreqActuator, FileActuator, LogActuator
from .apply import Changer, apply_plan, revert
from .control import ControlConfig, Decision, NetnsCounters, RateController, SysfsCounters
from .cpuset import cpus_to_mask, format_cpulist, mask_to_cpus, parse_cpulist
from .plan import Plan, make_plan
from .rapl import energy_delta_uj, measure, zones
from .sysfs import SysRoot, validate_ifname
from .topology import Topology, discover

__all__ = [
    "Changer",
    "CommandActuator",
    "ControlConfig",
    "CpufreqActuator",
    "Decision",
    "FileActuator",
    "LogActuator",
    "NetnsCounters",
    "Plan",
    "RateController",
    "SysRoot",
    "SysfsCounters",
    "Topology",
    "apply_plan",
    "cpus_to_mask",
    "discover",
    "energy_delta_uj",
    "format_cpulist",
    "make_plan",
    "mask_to_cpus",
    "measure",
    "parse_cpulist",
    "revert",
    "validate_ifname",
    "zones",
]
