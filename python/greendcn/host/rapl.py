"""RAPL energy counters read from powercap (sys/class/powercap/intel-rapl:*), with wraparound handled.

These are readings, never estimates: where the counters are absent (VMs, this kind of cloud machine, most ARM
servers) the functions say so and return no number."""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass

from ..core.errors import GreendcnError
from .sysfs import SysRoot

__all__ = ["Measurement", "RaplAbsent", "Zone", "energy_delta_uj", "measure", "read_energy", "zones"]

POWERCAP = "sys/class/powercap"


class RaplAbsent(GreendcnError):
    """No RAPL counters can be read here."""


@dataclass(frozen=True)
class Zone:
    zone: str  # "intel-rapl:0", "intel-rapl:0:0"
    name: str  # "package-0", "dram", "core", ...
    max_range_uj: int


def zones(sys: SysRoot) -> list[Zone]:
    """Every RAPL zone with an energy counter; [] when powercap or RAPL is absent."""
    out = []
    for z in sys.listdir(POWERCAP):
        if not z.startswith(("intel-rapl:", "amd-rapl:")):
            continue  # intel-rapl itself is the control type, holding no counter
        if not sys.exists(f"{POWERCAP}/{z}/energy_uj"):
            continue
        out.append(
            Zone(
                z,
                sys.read(f"{POWERCAP}/{z}/name") or z,
                sys.read_int(f"{POWERCAP}/{z}/max_energy_range_uj") or 0,
            )
        )
    return sorted(out, key=lambda z: z.zone)


def read_energy(sys: SysRoot, zone: Zone) -> int:
    """The zone's counter in microjoules. Since Linux 5.10 energy_uj is root-only (a side channel)."""
    try:
        value = sys.read_int(f"{POWERCAP}/{zone.zone}/energy_uj")
    except PermissionError:
        raise GreendcnError(
            f"{sys.path(POWERCAP)}/{zone.zone}/energy_uj is readable by root only",
            hint="run as root (the kernel hides RAPL energy from other users)",
        ) from None
    if value is None:
        raise RaplAbsent(f"{zone.zone}/energy_uj gave no value", hint="the counter may be disabled")
    return value


def energy_delta_uj(before: int, after: int, max_range_uj: int) -> int:
    """Energy between two readings of a counter that wraps to 0 after max_range_uj. At most one wrap can be
    seen, so readings must come more often than one wrap period (about 45 min at 100 W, 2^38 uJ range)."""
    if after >= before:
        return after - before
    if max_range_uj <= 0:
        raise GreendcnError(
            "the energy counter went backwards and max_energy_range_uj is unknown",
            hint="sample more often; this reading cannot be trusted",
        )
    return max_range_uj - before + after


@dataclass
class Measurement:
    argv: list[str]
    returncode: int
    seconds: float
    energy_j: dict[str, float]  # zone name -> joules

    @property
    def power_w(self) -> dict[str, float]:
        return {k: v / self.seconds if self.seconds > 0 else float("nan") for k, v in self.energy_j.items()}


def measure(sys: SysRoot, argv: list[str], interval_s: float = 1.0) -> Measurement:
    """Run `argv` (no shell) and read every RAPL zone before, during (to catch wraps) and after it."""
    if not argv:
        raise GreendcnError("no command to measure", hint="greendcn host measure -- sleep 5")
    zs = zones(sys)
    if not zs:
        raise RaplAbsent(
            f"no RAPL energy counters under {sys.path(POWERCAP)}: this machine cannot report measured "
            "energy, and greendcn will not pass an estimate off as a reading",
            hint="run on bare metal with the intel_rapl_common (or amd) powercap driver loaded",
        )
    last = {z.zone: read_energy(sys, z) for z in zs}
    total = {z.zone: 0 for z in zs}

    def sample() -> None:
        for z in zs:
            now = read_energy(sys, z)
            total[z.zone] += energy_delta_uj(last[z.zone], now, z.max_range_uj)
            last[z.zone] = now

    t0 = time.monotonic()
    try:
        proc = subprocess.Popen(argv)
    except OSError as e:
        raise GreendcnError(
            f"cannot run {argv[0]}: {e.strerror}", hint="give the full path of the command"
        ) from None
    while True:
        try:
            rc = proc.wait(timeout=interval_s)
            break
        except subprocess.TimeoutExpired:
            sample()
    sample()
    seconds = time.monotonic() - t0
    names = {z.zone: f"{z.name} ({z.zone})" for z in zs}
    return Measurement(argv, rc, seconds, {names[k]: v / 1e6 for k, v in total.items()})
