"""Power and energy models: device models, the shipped switch table, network power against node count,
the software-router model of seed 004 with its fitting and optimizer. Pricing a simulated run with these models
is the simulator's ledger (`greendcn.sim.ledger`)."""

from __future__ import annotations

from ..core.lazy import lazy_dir, lazy_getattr

# Each name is imported from its module when first used (core/lazy.py), so the simulator's ledger, which needs
# only the device models, does not pay for the router model's fitting, the optimizer and their libraries.
_LAZY = {
    "ConstantPower": ".models",
    "Counters": ".models",
    "LinearPower": ".models",
    "PowerModel": ".models",
    "RouterPower": ".models",
    "StatePower": ".models",
    "from_switch": ".models",
    "FatTree": ".network",
    "OpticalDesign": ".network",
    "compare": ".network",
    "default_architectures": ".network",
    "fat_tree_counts": ".network",
    "fat_tree_max_hosts": ".network",
    "network_power": ".network",
    "node_counts": ".network",
    "Plan": ".optimizer",
    "default_plan": ".optimizer",
    "max_capacity_pps": ".optimizer",
    "optimize": ".optimizer",
    "optimize_exact": ".optimizer",
    "optimize_per_core": ".optimizer",
    "PUBLISHED_CHI": ".router",
    "RouterPlatform": ".router",
    "chi": ".router",
    "core_capacity_pps": ".router",
    "example_platform": ".router",
    "load_platform": ".router",
    "p_idle": ".router",
    "phi": ".router",
    "phi_multicore": ".router",
    "throughput_multicore": ".router",
    "time_average_power": ".router",
    "FitResult": ".router_fit",
    "fit_chi": ".router_fit",
    "fit_gamma": ".router_fit",
    "fit_router": ".router_fit",
    "read_samples": ".router_fit",
    "SwitchModel": ".switches",
    "get_switch": ".switches",
    "load_switch_table": ".switches",
    "shipped_switches": ".switches",
}

__getattr__ = lazy_getattr(__name__, _LAZY, globals())
__dir__ = lazy_dir(_LAZY, globals())


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
