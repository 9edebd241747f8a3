"""A flow list held as columns (numpy arrays): what a flow file of a million rows becomes, without a Python
object per flow. It reads like a list of `Flow` (len, index, iterate) for code written for a few flows, and
hands the engine its flows as one JSON text built column-wise."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, overload

import numpy as np

from .flow import Flow

__all__ = ["FlowColumns"]


@dataclass(frozen=True, eq=False)
class FlowColumns:
    """Flows as arrays of one length: node indices, bytes, picoseconds. `udp` marks UDP flows, whose
    `rate_bps` is their sending rate (0 for TCP flows); `cls` holds class codes into `classes`."""

    id: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    size_bytes: np.ndarray
    start_ps: np.ndarray
    cls: np.ndarray
    classes: tuple[str, ...]
    udp: np.ndarray
    rate_bps: np.ndarray

    def __len__(self) -> int:
        return len(self.id)

    @overload
    def __getitem__(self, i: int) -> Flow: ...
    @overload
    def __getitem__(self, i: slice) -> list[Flow]: ...
    def __getitem__(self, i: int | slice) -> Flow | list[Flow]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        udp = bool(self.udp[i])
        return Flow(
            int(self.id[i]),
            int(self.src[i]),
            int(self.dst[i]),
            int(self.size_bytes[i]),
            int(self.start_ps[i]),
            self.classes[int(self.cls[i])],
            "udp" if udp else "tcp",
            int(self.rate_bps[i]) if udp else None,
        )

    def __iter__(self) -> Iterator[Flow]:
        return (self[i] for i in range(len(self)))

    def class_names(self) -> np.ndarray:
        """Each flow's class name (an object array)."""
        return np.asarray(self.classes, dtype=object)[self.cls]

    def engine_flows_json(self, handshake_ps: np.ndarray | None = None) -> str:
        """The spec's `flows` array (docs/engine-spec.md) as JSON text, built column by column; `handshake_ps`
        (one per flow; UDP flows get none) adds the handshake delay."""
        import pandas as pd

        cols: dict[str, Any] = {
            "id": self.id,
            "src": self.src,
            "dst": self.dst,
            "size_bytes": self.size_bytes,
            "start_ps": self.start_ps,
            "transport": np.where(self.udp, "udp", "tcp"),
        }
        if self.udp.any():
            cols["rate_bps"] = pd.array(np.where(self.udp, self.rate_bps, 0), dtype="Int64")
            cols["rate_bps"][~self.udp] = pd.NA
        if handshake_ps is not None:
            cols["handshake_ps"] = np.where(self.udp, 0, handshake_ps)  # 0 is the engine's default
        text = pd.DataFrame(cols).to_json(orient="records")
        return text if text is not None else "[]"
