"""AFFCON (seed 000) on real Linux: discovery, affinity/DVFS plans, apply/revert, a rate controller, RAPL readings."""

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
    "SysRoot", "validate_ifname", "Topology", "discover", "Plan", "make_plan", "apply_plan", "revert", "Changer",
    "ControlConfig", "Decision", "RateController", "SysfsCounters", "NetnsCounters", "CpufreqActuator",
    "FileActuator", "CommandActuator", "LogActuator", "zones", "measure", "energy_delta_uj",
    "parse_cpulist", "format_cpulist", "mask_to_cpus", "cpus_to_mask",
]
