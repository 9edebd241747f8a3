"""A switch priced port by port: a fixed chassis plus each port's power in its state (active, low-power idle,
off), calibrated so that a switch with every port active draws its switch-table power (docs/models.md).

The state times come from the packet engine when Energy-Efficient Ethernet is on (docs/energy-saving.md):
`Counters.state_s` holds the seconds the device's ports spent in each state, summed over its ports. Without
them every port is active and the model equals the table's constant power exactly."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.errors import InputError
from .models import Counters
from .switches import SwitchModel

__all__ = [
    "DEFAULT_LPI_FRACTION",
    "DEFAULT_PORT_SHARE",
    "DEFAULT_TOLERANCE",
    "STATES",
    "PortPowerModel",
    "port_model",
]

# States a port can be in. sleep and wake are 802.3az's transitions into and out of LPI.
STATES = ("active", "sleep", "lpi", "wake", "off")

# Our choice: the ports draw a quarter of a fully active switch's power, the chassis (fans, supplies, control
# plane, switching ASIC core) the rest. Mahadevan et al. 2009 ("A power benchmarking framework for network
# devices", IFIP Networking) measured that a switch's chassis dominates its draw and that turning ports on
# adds comparatively little; no published split fits the 100 Gbps switches of the shipped table, so the share
# is a parameter (power.ports.port_share).
DEFAULT_PORT_SHARE = 0.25
# A port in low-power idle draws about 10 % of its active power: Christensen et al. 2010 ("IEEE 802.3az: the
# road to Energy Efficient Ethernet", IEEE Communications Magazine) for the PHY in LPI. Our choice: the whole
# port's power scales so, as if the PHY were all of it.
DEFAULT_LPI_FRACTION = 0.1
# How far chassis + ports x active may stray from the table's power before the model is refused (our
# choice: 1 %, room for values written with a few digits).
DEFAULT_TOLERANCE = 0.01


@dataclass(frozen=True)
class PortPowerModel:
    """E = chassis_w * T + sum over ports of P(state) * time in state, with the table's unused ports active
    (unused = "active") or off. sleep and wake are priced at the active power (our choice: a PHY in
    transition runs its circuits, as Reviriego et al. 2009's EEE model assumes)."""

    chassis_w: float
    port_active_w: float
    port_lpi_w: float
    port_off_w: float
    table_ports: int
    label: str = "ports"
    unused: str = "active"

    def watts(self, state: str) -> float:
        if state == "lpi":
            return self.port_lpi_w
        if state == "off":
            return self.port_off_w
        return self.port_active_w

    def energy_j(self, c: Counters) -> Any:
        """Energy of a device with `c.ports` simulated ports over `c.duration_s` (arrays allowed)."""
        if c.ports > self.table_ports:
            raise InputError(
                f"{self.label}: a switch with {c.ports} ports priced as a {self.table_ports}-port table entry",
                hint="choose a power.switch with at least as many ports, or the constant model",
            )
        unused = (self.table_ports - c.ports) * self.watts(self.unused)
        e = (self.chassis_w + unused) * c.duration_s
        if not c.state_s:
            return e + c.ports * self.port_active_w * c.duration_s
        unknown = sorted(set(c.state_s) - set(STATES))
        if unknown:
            raise InputError(f"{self.label}: no power for state(s) {unknown}", hint=f"states: {list(STATES)}")
        return e + sum(self.watts(s) * t for s, t in c.state_s.items())

    def describe(self) -> str:
        return (
            f"{self.label}: chassis {self.chassis_w:g} W + {self.table_ports} ports x {self.port_active_w:g} W "
            f"active ({self.port_lpi_w:g} W in LPI, {self.port_off_w:g} W off)"
        )


def _refuse(key: str, message: str, hint: str) -> InputError:
    """An error that names the scenario key in its message (it is raised after the scenario was read)."""
    return InputError(f"{key}: {message}", hint=hint, loc=tuple(key.split(".")))


def port_model(
    entry: SwitchModel,
    *,
    port_share: float = DEFAULT_PORT_SHARE,
    chassis_w: float | None = None,
    port_active_w: float | None = None,
    lpi_fraction: float = DEFAULT_LPI_FRACTION,
    port_lpi_w: float | None = None,
    port_off_w: float = 0.0,
    tolerance: float = DEFAULT_TOLERANCE,
    unused: str = "active",
    where: str = "power.ports",
) -> PortPowerModel:
    """The port model of a switch-table entry. Given chassis_w and port_active_w (both, or one with the other
    derived), chassis + ports x active must be the table's power within `tolerance` (relative), else a
    FieldError names the key; without them the split is `port_share`."""
    total, n = entry.power_w, entry.ports
    if chassis_w is None and port_active_w is None:
        port_active_w = port_share * total / n
        chassis_w = total - n * port_active_w
    elif chassis_w is None:
        chassis_w = total - n * float(port_active_w)  # type: ignore[arg-type]
    elif port_active_w is None:
        port_active_w = (total - chassis_w) / n
    assert chassis_w is not None and port_active_w is not None
    full = chassis_w + n * port_active_w
    if abs(full - total) > tolerance * total:
        raise _refuse(
            f"{where}.port_active_w",
            f"chassis {chassis_w:g} W + {n} ports x {port_active_w:g} W = {full:g} W, but the switch table "
            f"gives {entry.id} {total:g} W (tolerance {tolerance:.1%})",
            hint=f"make chassis_w + {n} x port_active_w = {total:g} W, or give only one of them",
        )
    if chassis_w < 0 or port_active_w < 0:
        raise _refuse(
            f"{where}.chassis_w",
            f"the split leaves chassis {chassis_w:g} W and {port_active_w:g} W per port; both must be >= 0",
            hint=f"keep {n} x port_active_w at most {total:g} W",
        )
    lpi = lpi_fraction * port_active_w if port_lpi_w is None else port_lpi_w
    if lpi > port_active_w or port_off_w > port_active_w:
        raise _refuse(
            f"{where}.port_lpi_w" if lpi > port_active_w else f"{where}.port_off_w",
            f"a port in LPI ({lpi:g} W) or off ({port_off_w:g} W) draws more than active ({port_active_w:g} W)",
            hint="low-power states draw at most the active power",
        )
    return PortPowerModel(
        chassis_w=chassis_w,
        port_active_w=port_active_w,
        port_lpi_w=lpi,
        port_off_w=port_off_w,
        table_ports=n,
        label=f"{entry.id} by port",
        unused=unused,
    )
