"""A flow list held as columns (numpy arrays): what a flow file of a million rows becomes, without a Python
object per flow. It reads like a list of `Flow` (len, index, iterate) for code written for a few flows, and
hands the engine its flows as one JSON text built column-wise."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, overload

import numpy as np

from .flow import Flow

__all__ = ["FlowColumns", "text_from_codes"]


def text_from_codes(codes: np.ndarray, names: Any) -> Any:
    """A text column (pandas' default string type) of `names[codes]`, built through an Arrow dictionary: about
    five times faster than converting an object array of a million strings."""
    import pandas as pd
    import pyarrow as pa

    names = [str(n) for n in names]
    arr = pa.DictionaryArray.from_arrays(
        pa.array(np.asarray(codes, dtype=np.int32)), pa.array(names, pa.string())
    )
    return pd.array(arr.cast(pa.string()), dtype=pd.Series(names[:1] or [""]).dtype)


@dataclass(frozen=True, eq=False)
class FlowColumns:
    """Flows as arrays of one length: node indices, bytes, picoseconds. `udp` marks UDP flows, whose
    `rate_bps` is their sending rate (0 for TCP flows); `cls` holds class codes into `classes`. `transport`,
    when given, is each flow's own transport as a code into `sim.engine.TRANSPORTS` (tcp, the default, then
    follows the flow's class; `udp` must agree with it); None: tcp or udp as `udp` says."""

    id: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    size_bytes: np.ndarray
    start_ps: np.ndarray
    cls: np.ndarray
    classes: tuple[str, ...]
    udp: np.ndarray
    rate_bps: np.ndarray
    transport: np.ndarray | None = None
    # How messages name row i (a flow file's "flows.csv line 7"); None: by the flow's id.
    where: Callable[[int], str] | None = None

    @classmethod
    def from_flows(cls, flows: list[Flow]) -> FlowColumns:
        """The columns of a list of `Flow` (a UDP flow without a rate gets 0)."""
        from ..engine import TRANSPORTS

        classes = tuple(dict.fromkeys(f.cls for f in flows))
        code = {c: i for i, c in enumerate(classes)}
        ints = np.array(
            [(f.id, f.src, f.dst, f.size_bytes, f.start_ps, code[f.cls], f.rate_bps or 0) for f in flows],
            dtype=np.int64,
        ).reshape(len(flows), 7)
        transport = np.array([TRANSPORTS.index(f.transport) for f in flows], dtype=np.uint8)
        return cls(
            *(ints[:, i] for i in range(6)),
            classes=classes,
            udp=transport == TRANSPORTS.index("udp"),
            rate_bps=ints[:, 6],
            transport=transport,
        )

    def row_name(self, i: int) -> str:
        """Row i as a message names it: its file and line, or its flow id."""
        return self.where(i) if self.where is not None else f"flow {int(self.id[i])}"

    def own_transport_codes(self) -> np.ndarray:
        """Each flow's own transport, as codes into `sim.engine.TRANSPORTS`."""
        if self.transport is not None:
            return self.transport
        return np.where(self.udp, 1, 0).astype(np.uint8)

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
        if self.transport is None:
            transport = "udp" if udp else "tcp"
        else:
            from ..engine import TRANSPORTS

            transport = TRANSPORTS[int(self.transport[i])]
        return Flow(
            int(self.id[i]),
            int(self.src[i]),
            int(self.dst[i]),
            int(self.size_bytes[i]),
            int(self.start_ps[i]),
            self.classes[int(self.cls[i])],
            transport,
            int(self.rate_bps[i]) if udp else None,
        )

    def __iter__(self) -> Iterator[Flow]:
        return (self[i] for i in range(len(self)))

    def class_names(self) -> np.ndarray:
        """Each flow's class name (an object array)."""
        return np.asarray(self.classes, dtype=object)[self.cls]

    def engine_buffers(
        self, handshake_ps: np.ndarray | None = None, transport_codes: np.ndarray | None = None
    ) -> list[tuple[str, bytes]]:
        """The flows as the engine's column buffers (`_native.run_columns`'s `flows`, docs/engine-spec.md).
        `transport_codes` (codes into `sim.engine.TRANSPORTS`, one per flow) defaults to the flows' own."""
        u64 = np.dtype("<u8")
        codes = self.own_transport_codes() if transport_codes is None else transport_codes
        hs = np.zeros(len(self), dtype=u64) if handshake_ps is None else np.where(self.udp, 0, handshake_ps)
        return self._endpoint_buffers() + [
            ("rate_bps", self.rate_bps.astype(u64).tobytes()),
            ("handshake_ps", np.asarray(hs).astype(u64).tobytes()),
            ("transport", np.asarray(codes).astype(np.uint8).tobytes()),
        ]

    def _endpoint_buffers(self) -> list[tuple[str, bytes]]:
        """The columns both engines take alike: id, src, dst, size_bytes, start_ps as little-endian u64."""
        u64 = np.dtype("<u8")
        return [
            (name, getattr(self, name).astype(u64).tobytes())
            for name in ("id", "src", "dst", "size_bytes", "start_ps")
        ]

    def circuit_buffers(self, codes: np.ndarray) -> list[tuple[str, bytes]]:
        """The flows as the circuit engine's column buffers (`_native.run_circuit_columns`'s `flows`,
        docs/circuit-engine.md "Flows as columns"): `codes` is each flow's engine transport, a code into
        `sim.engine.CIRCUIT_TRANSPORTS`."""
        return self._endpoint_buffers() + [("transport", np.asarray(codes).astype(np.uint8).tobytes())]

    def engine_flows_json(
        self, handshake_ps: np.ndarray | None = None, transport_codes: np.ndarray | None = None
    ) -> str:
        """The spec's `flows` array (docs/engine-spec.md) as JSON text, built column by column; `handshake_ps`
        (one per flow; UDP flows get none) adds the handshake delay; `transport_codes` as in
        `engine_buffers`."""
        import pandas as pd

        from ..engine import TRANSPORTS

        codes = self.own_transport_codes() if transport_codes is None else transport_codes
        cols: dict[str, Any] = {
            "id": self.id,
            "src": self.src,
            "dst": self.dst,
            "size_bytes": self.size_bytes,
            "start_ps": self.start_ps,
            "transport": np.asarray(TRANSPORTS, dtype=object)[codes],
        }
        if self.udp.any():
            cols["rate_bps"] = pd.array(np.where(self.udp, self.rate_bps, 0), dtype="Int64")
            cols["rate_bps"][~self.udp] = pd.NA
        if handshake_ps is not None:
            cols["handshake_ps"] = np.where(self.udp, 0, handshake_ps)  # 0 is the engine's default
        text = pd.DataFrame(cols).to_json(orient="records")
        return text if text is not None else "[]"
