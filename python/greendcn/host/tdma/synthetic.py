"""Synthetic receiver logs: what the native sender would produce with a given per-packet cost and lag law.

It follows the sender's rule exactly (check the clock once per burst, send the whole burst if the window is
still open) with a fixed per-packet send time, then adds lags drawn from a LagLaw with a seeded generator.
Tests use it to get timestamp streams whose answers are known; nothing here touches the network."""

from __future__ import annotations

import numpy as np

from .model import LagLaw
from .records import make_records
from .schedule import Schedule

__all__ = ["simulate_sender"]


def simulate_sender(
    schedule: Schedule,
    packet_time_ns: int,
    burst: int,
    lag: LagLaw,
    seed: int = 0,
    size_bytes: int = 1472,
    vhost: int = 0,
) -> np.ndarray:
    """Records of one virtual host over the whole schedule (destination k % destinations in slot k)."""
    rng = np.random.default_rng(seed)
    stamps, slots = [], []
    for k in range(schedule.slots):
        open_ns, close_ns = schedule.window_ns(k)
        n_bursts = max(0, -(-(close_ns - open_ns) // (burst * packet_time_ns)))
        t = open_ns + np.arange(n_bursts * burst, dtype=np.int64) * packet_time_ns
        stamps.append(t)
        slots.append(np.full(t.size, k, dtype=np.int64))
    send = np.concatenate(stamps) if stamps else np.zeros(0, dtype=np.int64)
    slot = np.concatenate(slots) if slots else np.zeros(0, dtype=np.int64)
    lag_ns = np.round(lag.sample(send.size, rng) * 1e9).astype(np.int64)
    port = vhost * schedule.destinations + slot % schedule.destinations
    return make_records(send + lag_ns, send_ns=send, slot=slot, vhost=vhost, port=port, length=size_bytes)
