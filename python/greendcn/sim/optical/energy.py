"""Energy of an optical fabric from its device list: each circuit switch and each ToR packet switch draws the
constant power of its entry in the switch table (seed 001 Table 2.1, line 460: selector switch v1 2.7 W for
SelectorNet and RotorNet, line 472; no difference between idle and loaded, line 470). Servers are left out, as
seed 001 leaves them out (line 458). The run's energy is the sum over the devices; joules per delivered bit
follow from the throughput the caller supplies (a model's or a simulation's, which the caller labels)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...core.errors import InputError
from ...power.switches import SwitchModel, get_switch

__all__ = ["CIRCUIT_SWITCH", "DEFAULT_TOR", "FabricPower", "fabric_power"]

CIRCUIT_SWITCH = "selector_v1"  # seed 001 line 472: the v1 selector switch serves SelectorNet and RotorNet
DEFAULT_TOR = "sn2700"  # our choice: the ledger's default packet switch (the 32-port SN2700 of Table 2.1)


@dataclass(frozen=True)
class FabricPower:
    devices: tuple[dict, ...]  # name, model, count, power_w each

    @property
    def power_w(self) -> float:
        return sum(d["power_w"] for d in self.devices)

    def energy(self, duration_s: float, delivered_bps: float) -> dict:
        """Energy over `duration_s` at a steady `delivered_bps`: per device and in total (the sum), W, and pJ per
        delivered bit (None when nothing is delivered)."""
        if not math.isfinite(duration_s) or duration_s <= 0:
            raise InputError(
                f"duration_s: must be a positive time, got {duration_s}", hint="e.g. 1.0", loc=("duration_s",)
            )
        devices = [{**d, "energy_j": d["power_w"] * duration_s} for d in self.devices]
        total = sum(d["energy_j"] for d in devices)
        bits = delivered_bps * duration_s
        return {
            "duration_s": duration_s,
            "power_w": self.power_w,
            "energy_j": total,
            "delivered_bits": bits,
            "pj_per_bit": total / bits * 1e12 if bits > 0 else None,
            "devices": devices,
        }


def fabric_power(
    circuit_switches: int,
    tors: int,
    tor: str | None = DEFAULT_TOR,
    table: dict[str, SwitchModel] | None = None,
    circuit_switch: str = CIRCUIT_SWITCH,
) -> FabricPower:
    """`circuit_switches` circuit switches of model `circuit_switch` (selector v1 by default; Opera's is v2) and
    `tors` ToR switches of model `tor` (None or 'none': leave the ToRs out, e.g. when hosts face the circuit
    switches directly, as in the thesis's testbeds)."""
    optical = get_switch(circuit_switch, table)
    if tor not in (None, "none"):
        try:
            get_switch(tor, table)
        except InputError as e:
            raise InputError(f"tor: {e}", hint=e.hint, loc=("tor",)) from None
    devices = [
        {"name": f"circuit switch {i}", "model": optical.id, "power_w": optical.power_w}
        for i in range(circuit_switches)
    ]
    if tor not in (None, "none"):
        packet = get_switch(tor, table)
        if packet.kind != "packet":
            raise InputError(
                f"tor: '{tor}' is a {packet.kind} switch, not a packet switch",
                hint="e.g. --tor sn2700 or --tor wedge100bf65x",
                loc=("tor",),
            )
        devices += [{"name": f"tor {i}", "model": packet.id, "power_w": packet.power_w} for i in range(tors)]
    return FabricPower(tuple(devices))
