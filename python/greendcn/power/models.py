"""Device power models: small objects that turn a device's counters over an interval into joules.

Every model answers `energy_j(counters)`; `power_w(counters)` is that energy over the interval. Counters are
what the engine counts (bytes, packets, busy time) plus what a host probe may add (time per power state,
frequency). Units: seconds, bytes, packets, W, J."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from ..core.errors import InputError
from .router import RouterPlatform, phi
from .switches import SwitchModel

__all__ = [
    "ConstantPower",
    "Counters",
    "LinearPower",
    "PowerModel",
    "RouterPower",
    "StatePower",
    "from_switch",
]


@dataclass(frozen=True)
class Counters:
    """What a device did over `duration_s` seconds. `busy_s` sums over its ports; `ports` counts them."""

    duration_s: float
    bytes: float = 0.0
    packets: float = 0.0
    busy_s: float = 0.0
    ports: int = 0
    state_s: Mapping[str, float] = field(default_factory=dict)


class PowerModel(Protocol):
    def energy_j(self, c: Counters) -> float: ...

    def describe(self) -> str: ...


def _nonneg(owner: str, **values: float) -> None:
    for name, v in values.items():
        if v < 0:
            raise InputError(
                f"{owner}.{name} = {v} must be >= 0", hint="powers and energies are non-negative"
            )


class _Base:
    def power_w(self, c: Counters) -> float:
        return self.energy_j(c) / c.duration_s if c.duration_s > 0 else 0.0  # type: ignore[attr-defined]


@dataclass(frozen=True)
class ConstantPower(_Base):
    """A device that draws the same power whatever it does (seed 001 saw this for its four switches)."""

    watts: float
    label: str = "constant"

    def __post_init__(self) -> None:
        _nonneg("ConstantPower", watts=self.watts)

    def energy_j(self, c: Counters) -> float:
        return self.watts * c.duration_s

    def describe(self) -> str:
        return f"{self.label} {self.watts:g} W"


@dataclass(frozen=True)
class LinearPower(_Base):
    """Static power, plus power per port, plus energy per bit and per packet moved (linear in the counters).

    E = (static_w + per_port_w * ports) * T + joules_per_bit * 8 * bytes + joules_per_packet * packets
        + busy_port_w * busy_s (extra power of a port while it transmits)."""

    static_w: float = 0.0
    per_port_w: float = 0.0
    joules_per_bit: float = 0.0
    joules_per_packet: float = 0.0
    busy_port_w: float = 0.0
    label: str = "linear"

    def __post_init__(self) -> None:
        _nonneg(
            "LinearPower",
            static_w=self.static_w,
            per_port_w=self.per_port_w,
            joules_per_bit=self.joules_per_bit,
            joules_per_packet=self.joules_per_packet,
            busy_port_w=self.busy_port_w,
        )

    def energy_j(self, c: Counters) -> float:
        return (
            (self.static_w + self.per_port_w * c.ports) * c.duration_s
            + self.joules_per_bit * 8 * c.bytes
            + self.joules_per_packet * c.packets
            + self.busy_port_w * c.busy_s
        )

    def describe(self) -> str:
        return (
            f"{self.label}: {self.static_w:g} W + {self.per_port_w:g} W/port + "
            f"{self.joules_per_bit * 1e12:g} pJ/bit + {self.joules_per_packet * 1e9:g} nJ/packet"
        )


@dataclass(frozen=True)
class StatePower(_Base):
    """Power per named state (e.g. C-states, link sleep): E = sum of P(state) * time in state."""

    watts_by_state: Mapping[str, float]
    label: str = "states"

    def __post_init__(self) -> None:
        _nonneg("StatePower", **dict(self.watts_by_state))

    def energy_j(self, c: Counters) -> float:
        if not c.state_s:
            raise InputError(
                f"{self.label}: no time per state in the counters",
                hint="state models need state durations (the packet engine does not count them)",
            )
        unknown = sorted(set(c.state_s) - set(self.watts_by_state))
        if unknown:
            raise InputError(
                f"{self.label}: no power for state(s) {unknown}",
                hint=f"known states: {sorted(self.watts_by_state)}",
            )
        return sum(self.watts_by_state[s] * t for s, t in c.state_s.items())

    def describe(self) -> str:
        return f"{self.label}: " + ", ".join(f"{s} {w:g} W" for s, w in self.watts_by_state.items())


@dataclass(frozen=True)
class RouterPower(_Base):
    """One software-router core at frequency f forwarding the interval's mean packet rate (seed 004, Eq. 5-6).

    Using the mean rate is Eq. 7 for a constant rate; pass a finer trace to `time_average_power` otherwise."""

    platform: RouterPlatform
    f_hz: float

    def energy_j(self, c: Counters) -> float:
        if c.duration_s <= 0:
            return 0.0
        return float(phi(self.platform, self.f_hz, c.packets / c.duration_s)) * c.duration_s

    def describe(self) -> str:
        return f"router {self.platform.name} at {self.f_hz / 1e9:g} GHz"


def from_switch(entry: SwitchModel) -> ConstantPower:
    """A constant-power model from a switch-table entry."""
    return ConstantPower(entry.power_w, label=entry.id)
