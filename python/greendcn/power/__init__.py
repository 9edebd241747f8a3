"""Power and energy models: device models, the shipped switch table, network power against node count,
the software-router model of seed 004 with its fitting and optimizer. Pricing a simulated run with these models
is the simulator's ledger (`greendcn.sim.ledger`)."""

from __future__ import annotations

from .models import ConstantPower, Counters, LinearPower, PowerModel, RouterPower, StatePower, from_switch
from .network import (
    FatTree,
    OpticalDesign,
    compare,
    default_architectures,
    fat_tree_counts,
    fat_tree_max_hosts,
    network_power,
    node_counts,
)
from .optimizer import Plan, default_plan, max_capacity_pps, optimize, optimize_exact, optimize_per_core
from .router import (
    PUBLISHED_CHI,
    RouterPlatform,
    chi,
    core_capacity_pps,
    example_platform,
    load_platform,
    p_idle,
    phi,
    phi_multicore,
    throughput_multicore,
    time_average_power,
)
from .router_fit import FitResult, fit_chi, fit_gamma, fit_router, read_samples
from .switches import SwitchModel, get_switch, load_switch_table, shipped_switches

__all__ = [
    # router model (seed 004)
    "PUBLISHED_CHI",
    "ConstantPower",
    # devices and switches
    "Counters",
    # networks (seed 001) and simulated runs
    "FatTree",
    # fitting and optimization
    "FitResult",
    "LinearPower",
    "OpticalDesign",
    "Plan",
    "PowerModel",
    "RouterPlatform",
    "RouterPower",
    "StatePower",
    "SwitchModel",
    "chi",
    "compare",
    "core_capacity_pps",
    "default_architectures",
    "default_plan",
    "example_platform",
    "fat_tree_counts",
    "fat_tree_max_hosts",
    "fit_chi",
    "fit_gamma",
    "fit_router",
    "from_switch",
    "get_switch",
    "load_platform",
    "load_switch_table",
    "max_capacity_pps",
    "network_power",
    "node_counts",
    "optimize",
    "optimize_exact",
    "optimize_per_core",
    "p_idle",
    "phi",
    "phi_multicore",
    "read_samples",
    "shipped_switches",
    "throughput_multicore",
    "time_average_power",
]
