"""The circuit emulator: sorts each received packet by where its kernel RX time falls in the schedule.

A real circuit switch judges a packet by when it reaches the switch, not by when the sender meant to send it,
so the emulator uses the receive timestamp only: in the uptime of a slot whose circuit leads to the port the
packet reached -> UP (delivered); in the uptime of a slot whose circuit leads elsewhere -> WRONG; between
uptimes -> DOWN (a real switch would lose it). The receiver listens on one port per (virtual host,
destination), port index = vhost * destinations + destination; that is our stand-in for distinct
destination hosts, since a veth cannot be reconfigured like an optical circuit."""

from __future__ import annotations

import numpy as np

from .schedule import Schedule

__all__ = ["CLASS_NAMES", "DOWN", "UP", "WRONG", "classify"]

UP, DOWN, WRONG = 0, 1, 2
CLASS_NAMES = {UP: "up", DOWN: "down", WRONG: "wrong"}


def classify(records: np.ndarray, schedule: Schedule) -> np.ndarray:
    """Class code (UP, DOWN, WRONG) of every record, as an int8 array."""
    t = records["rx_ns"].astype(np.int64) - schedule.start_ns
    k = np.floor_divide(t, schedule.period_ns)  # floor: packets before the first slot get k = -1
    phase = t - k * schedule.period_ns
    reached = records["port"].astype(np.int64) % schedule.destinations
    circuit = np.mod(k, schedule.destinations)
    out = np.full(t.shape, DOWN, dtype=np.int8)
    up = phase < schedule.uptime_ns
    out[up & (reached == circuit)] = UP
    out[up & (reached != circuit)] = WRONG
    return out
