"""A flow set as numpy columns (src, dst, size_bytes, start_ps, class, transport): what the generators make,
what `workload generate` writes, and what `simulate` hands the engine as column buffers (`to_columns`, no
Python object per flow); `to_flows` gives the `Flow` list to code that wants one."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ...core.units import PS_PER_S
from .flow import Flow

if TYPE_CHECKING:
    from .columns import FlowColumns

__all__ = ["TRANSPORTS", "FlowTable"]

# sim.engine.TRANSPORTS (the engine's codes), not imported here so that generating needs no engine
TRANSPORTS = ("tcp", "udp", "dctcp", "ndp")


@dataclass
class FlowTable:
    """One row per flow; hosts are endpoint indices, `cls` indexes `classes`, `transport` indexes TRANSPORTS."""

    src: np.ndarray  # int32
    dst: np.ndarray  # int32
    size_bytes: np.ndarray  # int64
    start_ps: np.ndarray  # int64
    cls: np.ndarray  # int16
    transport: np.ndarray  # int8
    classes: list[str] = field(default_factory=lambda: ["flow"])

    @classmethod
    def empty(cls) -> FlowTable:
        return cls.of(np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0), "flow")

    @classmethod
    def of(cls, src, dst, size_bytes, start_ps, class_name: str) -> FlowTable:  # type: ignore[no-untyped-def]
        n = len(src)
        return cls(
            np.asarray(src, dtype=np.int32),
            np.asarray(dst, dtype=np.int32),
            np.asarray(size_bytes, dtype=np.int64),
            np.asarray(start_ps, dtype=np.int64),
            np.zeros(n, dtype=np.int16),
            np.zeros(n, dtype=np.int8),
            [class_name],
        )

    def __len__(self) -> int:
        return len(self.src)

    @property
    def total_bytes(self) -> int:
        return int(self.size_bytes.sum())

    @staticmethod
    def concat(tables: list[FlowTable]) -> FlowTable:
        """The tables one after another, their class names merged (a name keeps one code)."""
        classes: list[str] = []
        codes = []
        for t in tables:
            remap = np.array([_code(classes, c) for c in t.classes] or [0], dtype=np.int16)
            codes.append(remap[t.cls])
        if not tables:
            return FlowTable.empty()
        return FlowTable(
            np.concatenate([t.src for t in tables]),
            np.concatenate([t.dst for t in tables]),
            np.concatenate([t.size_bytes for t in tables]),
            np.concatenate([t.start_ps for t in tables]),
            np.concatenate(codes).astype(np.int16),
            np.concatenate([t.transport for t in tables]),
            classes or ["flow"],
        )

    def take(self, order: np.ndarray) -> FlowTable:
        return FlowTable(
            self.src[order],
            self.dst[order],
            self.size_bytes[order],
            self.start_ps[order],
            self.cls[order],
            self.transport[order],
            list(self.classes),
        )

    def sorted_by_start(self) -> FlowTable:
        """Rows in start order; equal starts keep their order (a stable sort), so ids are reproducible."""
        return self.take(np.argsort(self.start_ps, kind="stable"))

    def class_names(self) -> np.ndarray:
        return np.asarray(self.classes, dtype=object)[self.cls]

    def to_columns(self, first_id: int = 0) -> FlowColumns:
        """The run path's flows as columns (sim/workload/columns.py), the same flows as `to_flows`: ids
        first_id + row; generated UDP flows carry no rate (0, as a `Flow`'s None)."""
        from .columns import FlowColumns

        n = len(self)
        return FlowColumns(
            id=np.arange(first_id, first_id + n, dtype=np.int64),
            src=self.src.astype(np.int64),
            dst=self.dst.astype(np.int64),
            size_bytes=self.size_bytes.astype(np.int64),
            start_ps=self.start_ps.astype(np.int64),
            cls=self.cls.astype(np.int64),
            classes=tuple(self.classes),
            udp=self.transport == TRANSPORTS.index("udp"),
            rate_bps=np.zeros(n, dtype=np.int64),
            transport=self.transport.astype(np.uint8),
        )

    def to_flows(self, first_id: int = 0) -> list[Flow]:
        """The run path's `Flow` list; flow ids are first_id + row."""
        names = self.classes
        kinds = TRANSPORTS
        return [
            Flow(first_id + i, s, d, z, t, names[c], kinds[k])
            for i, (s, d, z, t, c, k) in enumerate(
                zip(
                    self.src.tolist(),
                    self.dst.tolist(),
                    self.size_bytes.tolist(),
                    self.start_ps.tolist(),
                    self.cls.tolist(),
                    self.transport.tolist(),
                )
            )
        ]

    def write_csv(self, path: str | Path, host_names: list[str], rate_bps: np.ndarray | None = None) -> None:
        """`src,dst,size_bytes,start_s,class`, host names as `simulate` prints them; starts in seconds with
        picosecond precision (12 decimals), so reading the file back gives the same flows. With UDP flows (an
        explicit list's; generated flows are TCP) or flows of their own DCTCP or NDP also `transport,rate_bps`,
        the UDP flows' rates from `rate_bps`."""
        names = np.asarray(host_names, dtype=object)
        whole, frac = np.divmod(self.start_ps, PS_PER_S)
        starts = [f"{w}.{f:012d}" for w, f in zip(whole.tolist(), frac.tolist())]
        cls = self.class_names()
        udp = self.transport == TRANSPORTS.index("udp")
        own = bool(self.transport.any())
        extra = [""] * len(self)
        if own:
            assert rate_bps is not None or not udp.any(), "UDP flows need their rates"
            rates = rate_bps.tolist() if rate_bps is not None else [0] * len(self)
            extra = [
                f",udp,{int(r)}" if u else f",{TRANSPORTS[t]},"
                for u, t, r in zip(udp.tolist(), self.transport.tolist(), rates)
            ]
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write("src,dst,size_bytes,start_s,class" + (",transport,rate_bps" if own else "") + "\n")
            step = 200_000
            for lo in range(0, len(self), step):
                hi = min(lo + step, len(self))
                rows = zip(
                    names[self.src[lo:hi]],
                    names[self.dst[lo:hi]],
                    self.size_bytes[lo:hi].tolist(),
                    starts[lo:hi],
                    cls[lo:hi],
                    extra[lo:hi],
                )
                fh.write("".join(f"{a},{b},{z},{t},{c}{x}\n" for a, b, z, t, c, x in rows))


def _code(classes: list[str], name: str) -> int:
    if name not in classes:
        classes.append(name)
    return classes.index(name)
