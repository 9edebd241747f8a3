"""Power and energy models: device models, the shipped switch table, network power against node count,
the software-router model of seed 004 with its fitting and optimizer, and the energy of a simulated run."""

from __future__ import annotations

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

__all__ = [
    "PUBLISHED_CHI",
    "RouterPlatform",
    "chi",
    "core_capacity_pps",
    "example_platform",
    "load_platform",
    "p_idle",
    "phi",
    "phi_multicore",
    "throughput_multicore",
    "time_average_power",
]
