"""CPU sets as the kernel and DPDK write them: cpulists ("0-4,8") and hexadecimal masks ("0x1f")."""

from __future__ import annotations

from collections.abc import Iterable

from ..core.errors import InputError

__all__ = ["cpus_to_mask", "format_cpulist", "mask_to_cpus", "parse_cpulist"]


def parse_cpulist(text: str, what: str = "cpu list") -> list[int]:
    """'0-2,8,10-11' -> [0, 1, 2, 8, 10, 11]; an empty string is the empty set (as in sysfs `isolated`)."""
    cpus: set[int] = set()
    text = text.strip()
    if not text:
        return []
    for part in text.split(","):
        part = part.strip()
        lo, sep, hi = part.partition("-")
        try:
            a = int(lo)
            b = int(hi) if sep else a
        except ValueError:
            raise InputError(
                f"{what}: '{part}' is not a CPU number or range", hint="write CPUs like 0-4,8,10"
            ) from None
        if a < 0 or b < a:
            raise InputError(
                f"{what}: '{part}' is not an increasing range of CPU numbers", hint="write e.g. 2-5"
            )
        cpus.update(range(a, b + 1))
    return sorted(cpus)


def format_cpulist(cpus: Iterable[int]) -> str:
    """[0, 1, 2, 8] -> '0-2,8' (the kernel's and DPDK `-l` form)."""
    out: list[str] = []
    ordered = sorted(set(cpus))
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        out.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(out)


def mask_to_cpus(mask: str, what: str = "cpu mask") -> list[int]:
    """'0x155' -> [0, 2, 4, 6, 8]: bit n set allows logical CPU n. Commas (sysfs `cpumap`) are ignored."""
    text = mask.strip().lower().replace(",", "")
    text = text.removeprefix("0x")
    # Hex digits only: int() alone would also take a sign or underscores and return a wrong CPU set.
    if not text or text.strip("0123456789abcdef"):
        raise InputError(f"{what}: '{mask}' is not a hexadecimal mask", hint="write a mask like 0x1f")
    value = int(text, 16)
    return [bit for bit in range(value.bit_length()) if value >> bit & 1]


def cpus_to_mask(cpus: Iterable[int]) -> str:
    """[1, 3, 5, 7, 9] -> '0x2aa' (the DPDK `-c` coremask form)."""
    value = 0
    for cpu in cpus:
        if cpu < 0:
            raise InputError(f"cpu mask: CPU {cpu} is negative", hint="CPU numbers start at 0")
        value |= 1 << cpu
    return hex(value)
