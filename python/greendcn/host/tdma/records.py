"""The receiver's log (48-byte records written by greendcn-tdma-recv) as a numpy structured array.

The layout must match `write_record` in crates/tdma-probe/src/wire.rs; `make_records` builds the same array
from Python values, which is how the tests feed synthetic timestamp streams to the analysis."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...core.errors import InputError

__all__ = ["FLAG_PAD", "RECORD_DTYPE", "load_records", "make_records"]

FLAG_PAD = 1
RECORD_DTYPE = np.dtype(
    [
        ("rx_ns", "<u8"),
        ("send_ns", "<u8"),
        ("seq", "<u8"),
        ("slot", "<u8"),
        ("vhost", "<u2"),
        ("flags", "<u2"),
        ("port", "<u2"),
        ("dst", "<u2"),
        ("len", "<u4"),
        ("reserved", "<u4"),
    ]
)
assert RECORD_DTYPE.itemsize == 48


def load_records(path: str | Path) -> np.ndarray:
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise InputError(f"cannot read probe log {p}: {e.strerror}", hint="run the probe again") from e
    if len(raw) % RECORD_DTYPE.itemsize:
        raise InputError(
            f"probe log {p} is truncated ({len(raw)} bytes is not a multiple of 48)",
            hint="the receiver was probably killed; run the probe again",
        )
    return np.frombuffer(raw, dtype=RECORD_DTYPE).copy()


def make_records(rx_ns, send_ns=None, slot=0, vhost=0, port=None, flags=0, length=1472) -> np.ndarray:
    """Build records from arrays (or scalars broadcast to the length of `rx_ns`); `port` defaults to the
    destination the payload names, `dst`, which defaults to 0."""
    rx = np.asarray(rx_ns, dtype=np.int64)
    n = rx.size
    out = np.zeros(n, dtype=RECORD_DTYPE)
    out["rx_ns"] = rx
    out["send_ns"] = rx if send_ns is None else np.broadcast_to(np.asarray(send_ns, dtype=np.int64), n)
    out["seq"] = np.arange(n)
    out["slot"] = np.broadcast_to(slot, n)
    out["vhost"] = np.broadcast_to(vhost, n)
    out["port"] = np.broadcast_to(0 if port is None else port, n)
    out["dst"] = out["port"]
    out["flags"] = np.broadcast_to(flags, n)
    out["len"] = np.broadcast_to(length, n)
    return out
