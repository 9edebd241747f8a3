"""Measurements of one probe run from the receiver's records: duty, goodput, leak, lateness, gaps and lag.

Definitions (all times in ns, on the one clock sender and receiver share):
- a packet's *slot* is the one the sender meant (carried in the payload); its *class* comes from the circuit
  emulator (classify.py), which looks only at the receive time;
- achieved duty: mean over slots that carried traffic of (last receive - first receive) / period;
- goodput: UDP payload bits of data packets classed UP, divided by the run's length (slots x period);
- downtime share: data packets classed DOWN / data packets received (WRONG is reported apart);
- lateness: first receive of a slot - start of its uptime; overrun: last receive - end of its uptime
  (positive overrun means the slot spilled into downtime);
- empty-slot share: scheduled (virtual host, slot) pairs with no data packet received;
- gaps: receive-time differences between consecutive packets of one virtual host within one slot;
- lag: receive time - send time; the fixed lag d0 is its minimum (seed 001, line 507: the fixed, minimum part
  of the delay is what preallocation compensates), so the suggested preallocation is d0."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .classify import DOWN, UP, WRONG, classify
from .records import FLAG_PAD
from .schedule import Schedule

__all__ = ["GAP_LEVELS", "Metrics", "measure", "percentiles", "send_gaps", "slot_edges", "within_slot_gaps"]

GAP_LEVELS = (0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99)


def percentiles(x: np.ndarray) -> dict[str, float]:
    """p50, p99, p99.9 and max of `x` (nan when empty); keys carry no unit, the caller's name does."""
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return {"p50": float("nan"), "p99": float("nan"), "p99_9": float("nan"), "max": float("nan")}
    p = np.percentile(x, [50, 99, 99.9])
    return {"p50": float(p[0]), "p99": float(p[1]), "p99_9": float(p[2]), "max": float(x.max())}


def slot_edges(records: np.ndarray, schedule: Schedule) -> dict[str, np.ndarray]:
    """Per (vhost, intended slot) that received anything: the key, first and last receive time (ns)."""
    slot = records["slot"].astype(np.int64)
    keep = slot < schedule.slots
    r = records[keep]
    key = r["vhost"].astype(np.int64) * schedule.slots + r["slot"].astype(np.int64)
    rx = r["rx_ns"].astype(np.int64)
    order = np.lexsort((rx, key))
    key, rx = key[order], rx[order]
    if key.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return {"key": empty, "first": empty, "last": empty}
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    ends = np.r_[starts[1:], key.size] - 1
    return {"key": key[starts], "first": rx[starts], "last": rx[ends]}


def within_slot_gaps(records: np.ndarray) -> np.ndarray:
    """Inter-arrival gaps (ns) between consecutive packets of the same virtual host and intended slot."""
    vh = records["vhost"].astype(np.int64)
    sl = records["slot"].astype(np.int64)
    rx = records["rx_ns"].astype(np.int64)
    order = np.lexsort((rx, sl, vh))
    vh, sl, rx = vh[order], sl[order], rx[order]
    same = (vh[1:] == vh[:-1]) & (sl[1:] == sl[:-1])
    return np.diff(rx)[same]


def send_gaps(records: np.ndarray) -> np.ndarray:
    """Send-stamp differences (ns) between consecutive packets of one virtual host within one slot: the
    sender's own cost per packet, which on veth plays the part of the serialisation time."""
    vh = records["vhost"].astype(np.int64)
    sl = records["slot"].astype(np.int64)
    tx = records["send_ns"].astype(np.int64)
    order = np.lexsort((tx, sl, vh))
    vh, sl, tx = vh[order], sl[order], tx[order]
    same = (vh[1:] == vh[:-1]) & (sl[1:] == sl[:-1])
    return np.diff(tx)[same]


@dataclass
class Metrics:
    packets_received: int
    data_received: int
    pad_received: int
    data_up: int
    data_down: int
    data_wrong: int
    data_sent: int | None
    duty_scheduled: float
    duty_achieved: float
    goodput_bps: float
    downtime_share: float
    wrong_share: float
    loss_share: float | None
    empty_slot_share: float
    lateness_ns: dict[str, float]
    overrun_ns: dict[str, float]
    lag_ns: dict[str, float]
    fixed_lag_ns: float
    suggested_prealloc_ns: float
    gap_ns: dict[str, float] = field(default_factory=dict)
    ideal_gap_ns: float | None = None


def measure(
    records: np.ndarray,
    schedule: Schedule,
    vhosts: int = 1,
    data_sent: int | None = None,
    ideal_gap_ns: float | None = None,
) -> Metrics:
    """All measurements of one run; `data_sent` (from the senders' summaries) enables the loss share."""
    cls = classify(records, schedule)
    is_data = (records["flags"] & FLAG_PAD) == 0
    data = records[is_data]
    dcls = cls[is_data]
    n_up, n_down, n_wrong = (int(np.sum(dcls == c)) for c in (UP, DOWN, WRONG))
    n_data = int(data.size)
    span_s = schedule.slots * schedule.period_ns / 1e9
    goodput = float(np.sum(data["len"][dcls == UP].astype(np.float64)) * 8 / span_s)

    edges = slot_edges(records, schedule)
    slot_k = edges["key"] % schedule.slots
    up_start = schedule.start_ns + slot_k * schedule.period_ns
    lateness = edges["first"] - up_start
    overrun = edges["last"] - (up_start + schedule.uptime_ns)
    duty = float(np.mean((edges["last"] - edges["first"]) / schedule.period_ns)) if edges["key"].size else 0.0
    in_run = data[data["slot"].astype(np.int64) < schedule.slots]
    data_slots = np.unique(
        in_run["vhost"].astype(np.int64) * schedule.slots + in_run["slot"].astype(np.int64)
    )
    empty = 1.0 - min(data_slots.size, vhosts * schedule.slots) / (vhosts * schedule.slots)

    lag = data["rx_ns"].astype(np.int64) - data["send_ns"].astype(np.int64)
    d0 = float(lag.min()) if lag.size else float("nan")
    gaps = within_slot_gaps(records)
    gap_q = (
        {f"q{int(q * 100):02d}": float(v) for q, v in zip(GAP_LEVELS, np.quantile(gaps, GAP_LEVELS))}
        if gaps.size
        else {}
    )
    return Metrics(
        packets_received=int(records.size),
        data_received=n_data,
        pad_received=int(records.size - n_data),
        data_up=n_up,
        data_down=n_down,
        data_wrong=n_wrong,
        data_sent=data_sent,
        duty_scheduled=schedule.duty,
        duty_achieved=duty,
        goodput_bps=goodput,
        downtime_share=n_down / n_data if n_data else float("nan"),
        wrong_share=n_wrong / n_data if n_data else float("nan"),
        loss_share=(1 - n_data / data_sent) if data_sent else None,
        empty_slot_share=empty,
        lateness_ns=percentiles(lateness),
        overrun_ns=percentiles(overrun),
        lag_ns=percentiles(lag),
        fixed_lag_ns=d0,
        suggested_prealloc_ns=d0,
        gap_ns=gap_q,
        ideal_gap_ns=ideal_gap_ns,
    )
