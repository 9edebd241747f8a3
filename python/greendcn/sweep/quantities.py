"""Parameters written with units, as numbers: "50pkt" -> queue_pkt = 50, "10Gbps" -> link_rate_bps = 1e10.

The store keeps a spec's value as written ("topology.queue" = '50pkt') and, beside it, the number in SI units in
a typed column named with the unit ("topology.queue_pkt" = 50), so that SQL and the report sort and plot by
value (50 < 100 < 200) rather than by text. `format_value` prints a number of a column with its unit."""

from __future__ import annotations

import math
import re
from typing import Any

from ..core.errors import InputError
from ..core.units import (
    format_rate,
    format_time,
    parse_packet_rate_pps,
    parse_queue,
    parse_rate_bps,
    parse_size_bytes,
    parse_time_s,
)

__all__ = ["UNIT_SUFFIXES", "format_value", "numeric_column", "quantity_columns"]

# the unit a typed column carries, by the end of its name
UNIT_SUFFIXES = ("_bps", "_s", "_pkt", "_bytes", "_pps")

_RATE = re.compile(r"^\s*[0-9.eE+-]+\s*[kMGT]?(bps|Bps)\s*$")
_PPS = re.compile(r"^\s*[0-9.eE+-]+\s*[kMG]?pps\s*$")
_TIME = re.compile(r"^\s*[0-9.eE+-]+\s*(ps|ns|us|µs|ms|s|min)\s*$")
_PKT = re.compile(r"^\s*[0-9.eE+-]+\s*(pkt|pkts|packets?)\s*$")
_SIZE = re.compile(r"^\s*[0-9.eE+-]+\s*([kKMGT]i?)?(B|bytes?)\s*$")


def quantity_columns(key: str, value: Any) -> dict[str, float]:
    """The typed columns of one parameter: {} for anything that is not a quantity with a unit."""
    if not isinstance(value, str):
        return {}
    try:
        if _RATE.match(value):
            return {f"{key}_bps": float(parse_rate_bps(value, key))}
        if _PPS.match(value):
            return {f"{key}_pps": float(parse_packet_rate_pps(value, key))}
        if _TIME.match(value):
            return {f"{key}_s": float(parse_time_s(value, key))}
        if _PKT.match(value):
            q = parse_queue(value, key)
            return {f"{key}_pkt": float(q["packets"])} if q else {}
        if _SIZE.match(value):
            return {f"{key}_bytes": float(parse_size_bytes(value, key))}
    except InputError:
        return {}
    return {}


def numeric_column(axis: str, columns: Any) -> str | None:
    """The typed column of a parameter axis, when the store has one."""
    for suffix in UNIT_SUFFIXES:
        if f"{axis}{suffix}" in columns:
            return f"{axis}{suffix}"
    return None


def format_value(column: str, value: Any) -> str:
    """A number of a column named with its unit, printed with the unit and an SI prefix: 1.94e10 in a `_bps`
    column is '19.4 Gbps'."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return str(value)
    v = float(value)
    if column.endswith("_bps"):
        return format_rate(v)
    if column.endswith("_s"):
        return format_time(v) if v else "0 s"
    if column.endswith("_pkt"):
        return f"{v:g} pkt"
    if column.endswith("_bytes"):
        for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
            if abs(v) >= scale:
                return f"{v / scale:.4g} {unit}"
        return f"{v:g} B"
    if column.endswith("_pps"):
        return f"{v / 1e3:.4g} kpps" if abs(v) >= 1e3 else f"{v:.4g} pps"
    if column.endswith("_j"):
        return f"{v:.4g} J"
    if column.endswith("_w"):
        return f"{v:.4g} W"
    if column.endswith("_pj"):
        return f"{v:.4g} pJ/bit"
    if column.endswith("_pct"):
        return f"{v:.3g} %"
    return f"{v:.4g}"
