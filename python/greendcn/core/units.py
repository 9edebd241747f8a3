"""Quantities with units, as users write them: "1Gbps", "25us", "1000pkt", "128KB", "1.5Mpps".

Parsing happens once, at the edge (scenario files, command lines); inside greendcn, times are picoseconds
(int) or seconds (float, named `_s`), sizes are bytes, rates are bits per second. Decimal prefixes (k, M, G, T)
mean powers of 1000, binary ones (Ki, Mi, Gi) powers of 1024; "KB" is 1000 bytes (our choice, as SI).
"""

from __future__ import annotations

import math
import re

from .errors import InputError

__all__ = [
    "parse_freq_khz",
    "parse_time_ps",
    "parse_time_s",
    "parse_rate_bps",
    "parse_size_bytes",
    "parse_packet_rate_pps",
    "parse_queue",
    "format_time",
    "format_rate",
    "PS_PER_S",
]

PS_PER_S = 10**12
_NUM = r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*"
_PREFIX = {
    "": 1,
    "k": 10**3,
    "K": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
}
_TIME = {"ps": 1, "ns": 10**3, "us": 10**6, "µs": 10**6, "ms": 10**9, "s": 10**12, "min": 60 * 10**12}


def _split(text: object, what: str, example: str) -> tuple[float, str]:
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise InputError(f"{what}: expected a quantity with a unit like {example!r}, got {text!r}")
    m = re.fullmatch(_NUM + r"([A-Za-zµ/]*)\s*", str(text))
    if not m:
        raise InputError(f"{what}: cannot read {text!r}", hint=f"write it with a unit, like {example!r}")
    value = float(m.group(1))
    if not math.isfinite(value):
        raise InputError(f"{what}: {text!r} is not a finite number", hint=f"write it like {example!r}")
    return value, m.group(2)


# The engine counts in unsigned 64-bit integers; we keep every quantity below 2^62 so that sums of a few stay
# representable (2^62 ps is 53 days of simulated time; 2^62 bytes is 4.6 EB).
_MAX_QUANTITY = 2**62


def _bounded(value: float, what: str, text: object, unit: str) -> int:
    if not abs(value) < _MAX_QUANTITY:
        raise InputError(
            f"{what}: {text!r} is beyond what greendcn can count ({_MAX_QUANTITY:.3g} {unit})",
            hint="give a smaller value",
        )
    return round(value)


def parse_time_ps(text: object, what: str = "time") -> int:
    """'25us' -> 25_000_000 ps. A bare number is refused: a unit is required."""
    value, unit = _split(text, what, "25us")
    if unit not in _TIME:
        raise InputError(
            f"{what}: unknown or missing time unit in {text!r}",
            hint="use one of ps, ns, us, ms, s, for example '25us'",
        )
    return _bounded(value * _TIME[unit], what, text, "ps")


def parse_time_s(text: object, what: str = "time") -> float:
    return parse_time_ps(text, what) / PS_PER_S


def _scaled(text: object, what: str, base_units: dict[str, float], example: str) -> float:
    value, unit = _split(text, what, example)
    for base, factor in base_units.items():
        if unit.endswith(base):
            prefix = unit[: len(unit) - len(base)]
            if prefix in _PREFIX:
                return value * _PREFIX[prefix] * factor
    raise InputError(f"{what}: unknown or missing unit in {text!r}", hint=f"write it like {example!r}")


def parse_rate_bps(text: object, what: str = "rate") -> int:
    """'1Gbps' -> 1_000_000_000. Accepts bps, b/s and Bps (bytes per second, times 8)."""
    bps = _scaled(text, what, {"bps": 1, "b/s": 1, "Bps": 8, "B/s": 8}, "10Gbps")
    if bps <= 0:
        raise InputError(f"{what}: a rate must be positive, got {text!r}")
    return _bounded(bps, what, text, "b/s")


def parse_packet_rate_pps(text: object, what: str = "packet rate") -> float:
    """'1.5Mpps' -> 1.5e6 packets per second."""
    return _scaled(text, what, {"pps": 1}, "1.5Mpps")


def parse_size_bytes(text: object, what: str = "size") -> int:
    """'128KB' -> 128_000; '64KiB' -> 65_536; '1500B' -> 1500."""
    return _bounded(_scaled(text, what, {"B": 1, "bytes": 1, "byte": 1}, "128KB"), what, text, "bytes")


def parse_queue(text: object, what: str = "queue") -> dict[str, int] | None:
    """'1000pkt' -> {'packets': 1000}; '128KB' -> {'bytes': 128000}; 'unlimited' -> None."""
    if isinstance(text, str) and text.strip().lower() in ("unlimited", "inf", "none"):
        return None
    value, unit = _split(text, what, "1000pkt")
    if unit in ("pkt", "pkts", "packets", "packet", "p"):
        if value != int(value) or value < 1:
            raise InputError(f"{what}: a queue holds a whole, positive number of packets, got {text!r}")
        return {"packets": int(value)}
    size = parse_size_bytes(text, what)
    if size < 1:
        raise InputError(f"{what}: a queue limit must be positive, got {text!r}")
    return {"bytes": size}


def format_time(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if abs(seconds) >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e12:.3g} ps"


def format_rate(bps: float) -> str:
    for unit, scale in (("Tbps", 1e12), ("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)):
        if abs(bps) >= scale:
            return f"{bps / scale:.4g} {unit}"
    return f"{bps:.4g} bps"


def parse_freq_khz(text: str | None, what: str) -> int | None:
    """'1.2GHz', '1200MHz' or '1200000kHz' -> kHz (cpufreq's unit); None stays None."""
    if text is None:
        return None
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(GHz|MHz|kHz)\s*", text)
    if not m:
        raise InputError(f"{what}: cannot read {text!r}", hint="write a frequency with its unit, e.g. 1.2GHz")
    return round(float(m.group(1)) * {"GHz": 1e6, "MHz": 1e3, "kHz": 1}[m.group(2)])


def per_bit_unit(largest_pj: float) -> tuple[str, float]:
    """A readable unit for energies per bit whose largest is `largest_pj` picojoules: (unit, factor from pJ).
    pJ up to 10^4, nJ up to 10^7, uJ beyond (our choice: axis labels of at most four digits)."""
    if largest_pj > 1e7:
        return "uJ", 1e-6
    if largest_pj > 1e4:
        return "nJ", 1e-3
    return "pJ", 1.0
