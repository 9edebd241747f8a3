"""The inputs of the NIC receive-path model: a host (ring, CPU costs), a transmission, and a receive setting.

Every default here is an assumption (seed 002 gives no NIC, CPU or cost figure); docs/models.md, section
"NIC receive modes", gives the reason for each. Validation happens here, once, with the field's name in the
error, so the vectorised model can trust its inputs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import NoReturn

from ..core.errors import InputError
from ..core.units import parse_packet_rate_pps, parse_rate_bps, parse_size_bytes, parse_time_s

__all__ = [
    "host_from_options",
    "quantity",
    "transmission_from_options",
    "DEFAULT_HOST",
    "MODES",
    "MODE_CODES",
    "Host",
    "Setting",
    "Transmission",
    "default_setting",
    "parse_setting",
]

# Mode names as users write them, and the integer codes the vectorised model uses.
MODES = ("interrupt", "timer", "watermark", "napi")
MODE_CODES = {name: i for i, name in enumerate(MODES)}


def _positive(value: float, name: str, hint: str, allow_zero: bool = False) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected a number, got {value!r}", hint=hint) from None
    if not math.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        raise InputError(
            f"{name}: must be {'non-negative' if allow_zero else 'positive'}, got {value!r}", hint=hint
        )
    return v


@dataclass(frozen=True)
class Host:
    """The receiving NIC and the CPU that serves it. Costs are CPU seconds on one full core."""

    ring_slots: int = 4096  # packets the receive ring holds
    irq_cost_s: float = 5e-6  # one hardware interrupt: entry, handler, softirq raise
    poll_cost_s: float = 0.475e-6  # one poll / softirq run, however many packets it finds
    pkt_cost_s: float = 0.954e-6  # delivering one packet to the reader
    cpu_cores: float = 1.0  # CPU capacity given to receiving (cores)
    wake_timeout_s: float = 10e-3  # a sleeping reader also wakes after this long (watermark mode)

    def __post_init__(self) -> None:
        h = "all host costs are CPU seconds per event, e.g. irq_cost_s=5e-6"
        slots = _positive(self.ring_slots, "host.ring_slots", "give the ring size in packets, e.g. 4096")
        if slots != int(slots):
            raise InputError(
                f"host.ring_slots: must be a whole number, got {self.ring_slots!r}",
                hint="give the ring size in packets, e.g. 4096",
            )
        object.__setattr__(self, "ring_slots", int(slots))
        for name in ("irq_cost_s", "poll_cost_s", "pkt_cost_s"):
            _positive(getattr(self, name), f"host.{name}", h)
        _positive(self.cpu_cores, "host.cpu_cores", "give the CPU share in cores, e.g. 1.0")
        _positive(
            self.wake_timeout_s, "host.wake_timeout_s", "give the wake-up timeout in seconds, e.g. 0.01"
        )

    def with_(self, **changes: float) -> Host:
        return replace(self, **changes)


DEFAULT_HOST = Host()


@dataclass(frozen=True)
class Transmission:
    """One stream arriving at one NIC: packets of one size at a mean rate, in bursts of `burst` packets."""

    rate_pps: float
    packet_bytes: int
    size_bytes: float = math.inf  # total size; only used for durations and reporting
    burst: int = 1  # packets that arrive back to back
    name: str = ""

    def __post_init__(self) -> None:
        _positive(self.rate_pps, "transmission.rate_pps", "give the offered load, e.g. --rate 3.6kpps")
        pb = _positive(
            self.packet_bytes,
            "transmission.packet_bytes",
            "a packet carries at least one byte, e.g. --packet-size 1500B",
        )
        object.__setattr__(self, "packet_bytes", round(pb))
        if self.size_bytes != math.inf:
            _positive(self.size_bytes, "transmission.size_bytes", "give the transmission size, e.g. 7.5GB")
        b = _positive(self.burst, "transmission.burst", "burst is a whole number of packets >= 1")
        if b != int(b) or b < 1:
            raise InputError(
                f"transmission.burst: must be a whole number >= 1, got {self.burst!r}",
                hint="burst is a whole number of packets >= 1",
            )
        object.__setattr__(self, "burst", int(b))

    @property
    def rate_bps(self) -> float:
        return self.rate_pps * self.packet_bytes * 8


@dataclass(frozen=True)
class Setting:
    """A receive mode and its one parameter.

    interrupt: no parameter; timer: period_s; watermark: packets (or bytes, converted with the packet size);
    napi: budget (packets per poll)."""

    mode: str
    value: float = 0.0
    unit: str = field(default="")  # "s", "pkt", "B" or "pkt/poll"; informative

    def __post_init__(self) -> None:
        if self.mode not in MODE_CODES:
            raise InputError(
                f"setting.mode: unknown receive mode {self.mode!r}", hint=f"use one of: {', '.join(MODES)}"
            )
        if self.mode != "interrupt":
            _positive(self.value, f"setting.value ({self.mode})", _VALUE_HINT[self.mode])
        if self.mode == "watermark" and self.unit not in ("pkt", "B"):
            raise InputError(
                f"setting.unit: a watermark counts packets ('pkt') or bytes ('B'), got {self.unit!r}",
                hint="write the watermark as e.g. 64pkt or 16KB",
            )

    @property
    def code(self) -> int:
        return MODE_CODES[self.mode]

    def param(self, packet_bytes: int) -> float:
        """The model's parameter: seconds (timer), packets (watermark, bytes rounded up) or budget (napi)."""
        if self.mode == "watermark" and self.unit == "B":
            return float(max(1, math.ceil(self.value / packet_bytes)))
        if self.mode == "watermark":
            return float(max(1, math.ceil(self.value)))
        if self.mode == "napi":
            return float(max(1, round(self.value)))
        return float(self.value)

    def label(self) -> str:
        if self.mode == "interrupt":
            return "interrupt"
        if self.mode == "timer":
            return f"timer {self.value * 1e6:.6g}us"
        if self.mode == "watermark":
            return f"watermark {self.value:.6g}{self.unit}"
        return f"napi budget {self.value:.6g}"


_VALUE_HINT = {
    "timer": "give the polling period, e.g. timer:100us",
    "watermark": "give the watermark in packets or bytes, e.g. watermark:64pkt or watermark:16KB",
    "napi": "give the NAPI budget in packets per poll, e.g. napi:64",
}


def default_setting() -> Setting:
    """The setting we compare with as 'the default'. Our assumption: one kernel interrupt per packet (the
    seed's own definition of active wait, seed 002 line 67). Seed 002 does not print PF_RING 5.4.6's default;
    it blames Node 3's crash on the CPU not keeping up with interrupts (line 183), which fits this mode."""
    return Setting("interrupt")


def parse_setting(text: str) -> Setting:
    """'interrupt', 'timer:100us', 'watermark:64pkt', 'watermark:16KB', 'napi:64' -> Setting."""
    from ..core.units import parse_size_bytes, parse_time_s

    mode, _, arg = str(text).strip().partition(":")
    mode = mode.strip().lower()
    if mode not in MODE_CODES:
        raise InputError(
            f"setting: unknown receive mode {mode!r} in {text!r}",
            hint=f"use one of: {', '.join(MODES)} (e.g. timer:100us, watermark:64pkt, napi:64)",
        )
    if mode == "interrupt":
        return Setting("interrupt")
    if not arg:
        raise InputError(f"setting: mode {mode!r} needs a value in {text!r}", hint=_VALUE_HINT[mode])
    if mode == "timer":
        return Setting("timer", parse_time_s(arg, "setting timer period"), "s")
    if mode == "watermark":
        a = arg.strip()
        for suffix in ("pkts", "pkt", "packets", "p"):
            if a.endswith(suffix):
                try:
                    count = float(a[: -len(suffix)].strip())
                except ValueError:
                    break
                return Setting("watermark", count, "pkt")
        return Setting("watermark", float(parse_size_bytes(a, "setting watermark")), "B")
    try:
        return Setting("napi", float(arg), "pkt/poll")
    except ValueError:
        raise InputError(
            f"setting: NAPI budget must be a number, got {arg!r}", hint=_VALUE_HINT["napi"]
        ) from None


def _refuse(message: str, hint: str) -> NoReturn:
    raise InputError(message, hint=hint)


def quantity(text: str, parse, name: str, hint: str):  # type: ignore[no-untyped-def]
    """A positive quantity with its unit, read by `parse`; a leading minus sign is refused by name."""
    if text.strip().startswith("-"):
        _refuse(f"{name}: must be positive, got {text!r}", hint=hint)
    return parse(text, name)


def host_from_options(
    ring: int, irq_cost: str, poll_cost: str, pkt_cost: str, cores: float, wake_timeout: str
) -> Host:
    """The receiving host from the command's option strings (times with units)."""

    def t(v: str, n: str) -> float:
        return quantity(v, parse_time_s, n, "give a time with a unit, e.g. 5us")

    return Host(
        ring_slots=ring,
        irq_cost_s=t(irq_cost, "--irq-cost"),
        poll_cost_s=t(poll_cost, "--poll-cost"),
        pkt_cost_s=t(pkt_cost, "--pkt-cost"),
        cpu_cores=cores,
        wake_timeout_s=t(wake_timeout, "--wake-timeout"),
    )


def transmission_from_options(
    rate: str | None, link_rate: str | None, packet_size: str, burst: int, size: str | None
) -> Transmission:
    """One transmission from the command's options: exactly one of a packet rate and a bit rate."""
    pkt = quantity(packet_size, parse_size_bytes, "--packet-size", "give the packet size, e.g. 1500B")
    if pkt <= 0:
        _refuse(
            f"--packet-size: must be positive, got {packet_size!r}", hint="give the packet size, e.g. 1500B"
        )
    if (rate is None) == (link_rate is None):
        _refuse("give exactly one of --rate (packets/s) and --link-rate (bits/s)", hint="e.g. --rate 3.6kpps")
    if rate is not None:
        pps = quantity(rate, parse_packet_rate_pps, "--rate", "give the offered load, e.g. 3.6kpps")
    else:
        pps = quantity(link_rate, parse_rate_bps, "--link-rate", "give a bit rate, e.g. 1Gbps") / (8 * pkt)
    total = None if size is None else quantity(size, parse_size_bytes, "--size", "give a size, e.g. 7.5GB")
    if total is not None and total <= 0:
        _refuse(f"--size: must be positive, got {size!r}", hint="give the transmission size, e.g. 7.5GB")
    return Transmission(pps, pkt, float("inf") if total is None else float(total), burst)
