"""CPU power of the receive path: seed 004's Eq. 2 with the busy fraction our receive-path model computes.

Seed 004 writes a core's mean power as p_idle * Phi_idle(f) + (1 - p_idle) * Phi_active(f) (Eq. 1-2), and
reads chi(r / r_max) as the probability that the core is active (Eq. 8). Its Eq. 5 prices throughput alone,
which would give every receive mode with the same throughput the same power; the modes differ precisely in
how much CPU they burn per packet, so we use Eq. 2 with 1 - p_idle = our busy fraction (our choice). The
platform figures (Phi_idle, Phi_active, r_max per frequency) come from greendcn.power's router platforms.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NoReturn

import numpy as np

from ..core.errors import InputError
from .params import Host

__all__ = ["CpuPower", "cpu_power_w", "power_objective"]


@dataclass(frozen=True)
class CpuPower:
    """Idle and fully active power of one core at the frequency the receive path runs at."""

    phi_idle_w: float
    phi_active_w: float
    f_hz: float
    speed: float  # r_max(f) / r_max(f_max): host costs are for the platform's highest frequency

    @classmethod
    def from_platform(cls, platform=None, f_hz: float | None = None) -> CpuPower:
        from ..power.router import example_platform

        plat = example_platform() if platform is None else platform
        f = plat.frequencies_hz[-1] if f_hz is None else f_hz
        i = plat.freq_index(f)
        return cls(plat.phi_idle_w[i], plat.phi_active_w[i], f, plat.r_max_pps[i] / plat.r_max_pps[-1])

    def host_at_frequency(self, host: Host) -> Host:
        """A slower core takes proportionally longer per event (seed 004: r_max scales with f)."""
        k = 1.0 / self.speed
        return host.with_(
            irq_cost_s=host.irq_cost_s * k, poll_cost_s=host.poll_cost_s * k, pkt_cost_s=host.pkt_cost_s * k
        )


def cpu_power_w(busy_cores, cores: float, model: CpuPower) -> np.ndarray:
    """Power (W) of `cores` receiving cores doing `busy_cores` of work per second, spread evenly:
    cores * Phi_idle + (Phi_active - Phi_idle) * busy_cores (Eq. 2 summed over the cores, as in Eq. 9)."""
    busy = np.minimum(np.asarray(busy_cores, dtype=float), cores)
    return cores * model.phi_idle_w + (model.phi_active_w - model.phi_idle_w) * busy


def _refuse(message: str, hint: str) -> NoReturn:
    raise InputError(message, hint=hint)


def power_objective(power: bool, frequency: str | None) -> CpuPower | None:
    """The CPU power objective (--power), priced on greendcn.power's example platform."""
    if frequency is not None and not power:
        _refuse("--frequency only applies with --power", hint="add --power, or drop --frequency")
    if not power:
        return None
    f = None
    if frequency is not None:
        t = frequency.strip().lower().removesuffix("hz")
        scale = {"g": 1e9, "m": 1e6, "k": 1e3}.get(t[-1:], 1.0)
        try:
            f = float(t[:-1] if scale != 1.0 else t) * scale
        except ValueError:
            _refuse(f"--frequency: cannot read {frequency!r}", hint="write it like 3GHz")
    return CpuPower.from_platform(None, f)
