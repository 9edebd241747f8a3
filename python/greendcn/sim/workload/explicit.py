"""Explicit flow lists: inline `[[workload.flows]]` entries and CSV files (`src,dst,size_bytes,start_s[,class]`).

Hosts are given by name ("S3") or by index among hosts (3). Sizes in the CSV are plain bytes and starts plain
seconds, as the column names say."""

from __future__ import annotations

import csv
import math
from pathlib import Path

from ...core.errors import InputError
from ...core.units import PS_PER_S
from ...core.userfile import read_text
from .flow import Flow

__all__ = ["flows_from_entries", "read_flows_csv"]

REQUIRED = ("src", "dst", "size_bytes", "start_s")


def flows_from_entries(net, entries, first_id: int = 0) -> list[Flow]:  # type: ignore[no-untyped-def]
    flows = []
    for i, e in enumerate(entries):
        where = f"workload.flows[{i}]"
        src = net.host_index(e.src, f"{where}.src")
        dst = net.host_index(e.dst, f"{where}.dst")
        if src == dst:
            raise InputError(
                f"{where}: src and dst are the same host", hint="a flow needs two distinct hosts"
            )
        if e.size <= 0:
            raise InputError(f"{where}.size: must be positive", hint="write a size like '200KB'")
        flows.append(Flow(first_id + i, src, dst, e.size, e.start, e.flow_class, e.transport, e.rate))
    return flows


def read_flows_csv(path: str | Path, net, first_id: int = 0, what: str = "--flows") -> list[Flow]:  # type: ignore[no-untyped-def]
    """`what` names where the path came from in messages: the option `--flows` or the key `workload.file`."""
    p = Path(path)
    text = read_text(p, what, kind="a CSV flow list (src,dst,size_bytes,start_s)")
    rows = list(csv.DictReader(text.splitlines()))
    header = [h.strip() for h in (csv.reader(text.splitlines()[:1]).__next__() if text.strip() else [])]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise InputError(
            f"{p.name}: missing column {missing[0]!r}",
            hint="the header must be src,dst,size_bytes,start_s with an optional class column",
        )
    unknown = [c for c in header if c not in (*REQUIRED, "class")]
    if unknown:
        raise InputError(
            f"{p.name}: unknown column {unknown[0]!r}",
            hint="columns are src,dst,size_bytes,start_s and optionally class",
        )
    flows = []
    for n, row in enumerate(rows):
        where = f"{p.name} line {n + 2}"
        row = {k.strip(): (v or "").strip() for k, v in row.items() if k is not None}
        src = net.host_index(row["src"], f"{where}: src")
        dst = net.host_index(row["dst"], f"{where}: dst")
        if src == dst:
            raise InputError(
                f"{where}: src and dst are the same host", hint="a flow needs two distinct hosts"
            )
        try:
            size = int(row["size_bytes"])
            start = float(row["start_s"])
        except ValueError:
            raise InputError(
                f"{where}: size_bytes must be a whole number of bytes and start_s a number of "
                f"seconds, got {row['size_bytes']!r}, {row['start_s']!r}",
                hint="for example: S0,S15,200000,0",
            ) from None
        if size <= 0:
            raise InputError(f"{where}: size_bytes must be positive, got {size}", hint="sizes are in bytes")
        if not math.isfinite(start) or start < 0:
            raise InputError(
                f"{where}: start_s must be >= 0, got {row['start_s']}", hint="starts are in seconds"
            )
        flows.append(Flow(first_id + n, src, dst, size, round(start * PS_PER_S), row.get("class") or "flow"))
    if not flows:
        raise InputError(f"{p.name}: no flows in the file", hint="add one row per flow under the header")
    return flows
