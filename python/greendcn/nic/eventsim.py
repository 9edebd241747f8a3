"""A small packet-level event simulation of the receive path, to cross-check the fluid model (model.py).

It follows single packets through the same mechanisms the fluid model averages: a ring of R slots, one CPU
that runs interrupt handlers, polls and per-packet delivery one task at a time, and the mode's rule for
when the reader wakes. Events sit in a heap ordered by (time, sequence number), so ties break the same way
on every run; arrivals come from a generator seeded by `seed`. Costs are divided by the CPU share `cores`
(a half core takes twice as long per task).
"""

from __future__ import annotations

import heapq
from collections import deque
from dataclasses import dataclass

import numpy as np

from .params import DEFAULT_HOST, Host

__all__ = ["SimResult", "simulate"]

_ARRIVAL, _DONE, _TIMER = 0, 1, 2


@dataclass(frozen=True)
class SimResult:
    """Counts and rates measured over [0, horizon_s], the time of the last arrival."""

    horizon_s: float
    offered: int
    delivered: int
    dropped: int
    in_flight: int
    interrupts: int
    polls: int
    busy_s: float
    mean_latency_s: float

    @property
    def delivered_pps(self) -> float:
        return self.delivered / self.horizon_s

    @property
    def offered_pps(self) -> float:
        return self.offered / self.horizon_s

    @property
    def interrupts_per_s(self) -> float:
        return self.interrupts / self.horizon_s

    @property
    def cpu_util(self) -> float:
        return self.busy_s / self.horizon_s


def _arrivals(rate_pps: float, burst: int, n_packets: int, pattern: str, seed: int) -> np.ndarray:
    """Arrival times of n_packets: bursts of `burst` packets, periodic or Poisson, mean rate rate_pps."""
    n_bursts = -(-n_packets // burst)
    mean_gap = burst / rate_pps
    if pattern == "periodic":
        starts = mean_gap * np.arange(1, n_bursts + 1)
    elif pattern == "poisson":
        starts = np.cumsum(np.random.default_rng(seed).exponential(mean_gap, n_bursts))
    else:
        raise ValueError(f"unknown arrival pattern {pattern!r}")
    return np.repeat(starts, burst)[:n_packets]


def simulate(
    mode: int,
    param: float,
    rate_pps: float,
    burst: int = 1,
    host: Host = DEFAULT_HOST,
    n_packets: int = 20_000,
    pattern: str = "poisson",
    seed: int = 0,
    cores: float | None = None,
) -> SimResult:
    """Run one receive path until the last of n_packets arrives; see model.evaluate for the modes."""
    C = host.cpu_cores if cores is None else cores
    ci, cp, ck = host.irq_cost_s / C, host.poll_cost_s / C, host.pkt_cost_s / C
    R, tau = host.ring_slots, host.wake_timeout_s
    times = _arrivals(rate_pps, burst, n_packets, pattern, seed)
    horizon = float(times[-1])

    heap: list[tuple[float, int, int, int]] = []
    seq = 0

    def push(t: float, kind: int, data: int = 0) -> None:
        nonlocal seq
        heapq.heappush(heap, (t, seq, kind, data))
        seq += 1

    ring: deque[float] = deque()  # arrival times of packets waiting in the NIC ring
    backlog: deque[float] = deque()  # interrupt mode: handled packets waiting for delivery
    st = {
        "busy_until": 0.0,
        "task": None,
        "delivered": 0,
        "dropped": 0,
        "irq": 0,
        "polls": 0,
        "busy": 0.0,
        "lat": 0.0,
        "awake": False,
        "irq_on": True,
        "epoch": 0,
        "batch": 0,
    }

    def run(now: float, task: str, cost: float) -> None:
        st["task"] = task
        st["busy"] += min(cost, max(0.0, horizon - now))  # count busy time inside the window only
        push(now + cost, _DONE)

    def deliver(now: float, arrived: float) -> None:
        st["delivered"] += 1
        st["lat"] += now - arrived

    def sleep(now: float) -> None:
        st["awake"], st["task"] = False, None
        st["epoch"] += 1
        if mode == 2:
            push(now + tau, _TIMER, st["epoch"])

    def wake(now: float) -> None:
        st["awake"] = True
        st["irq"] += 1
        st["polls"] += 1
        run(now, "wake", ci + cp)

    def dispatch(now: float) -> None:
        """The CPU is free: start the next task the mode calls for."""
        if mode == 0:
            if ring:
                st["irq"] += 1
                run(now, "irq", ci)
            elif backlog:
                run(now, "deliver", ck)
            else:
                st["task"] = None
        elif mode in (1, 2):
            if st["awake"] and ring:
                run(now, "deliver", ck)
            elif st["awake"]:
                sleep(now)
        else:  # napi
            if ring:
                k = min(len(ring), int(max(1, round(param))))
                st["batch"] = k
                st["polls"] += 1
                run(now, "poll", cp + k * ck)
            else:
                st["irq_on"], st["task"] = True, None

    for i, t in enumerate(times):
        push(float(t), _ARRIVAL, i)
    if mode == 1:
        push(param, _TIMER)
    elif mode == 2:
        push(tau, _TIMER, 0)

    while heap:
        now, _, kind, data = heapq.heappop(heap)
        if now > horizon:
            break
        if kind == _ARRIVAL:
            if len(ring) < R:
                ring.append(now)
            else:
                st["dropped"] += 1
            idle = st["task"] is None
            if mode == 0 and idle:
                dispatch(now)
            elif mode == 2 and idle and not st["awake"] and len(ring) >= param:
                wake(now)
            elif mode == 3 and st["irq_on"] and idle:
                st["irq_on"] = False
                st["irq"] += 1
                run(now, "irq", ci)
        elif kind == _TIMER:
            if mode == 1:
                push(now + param, _TIMER)
                if st["task"] is None and not st["awake"]:
                    wake(now)
            elif data == st["epoch"] and not st["awake"] and st["task"] is None:
                wake(now)
        else:  # a task ends
            task = st["task"]
            if task == "irq" and mode == 0:
                arrived = ring.popleft()
                if len(backlog) < R:
                    backlog.append(arrived)
                else:
                    st["dropped"] += 1
            elif task == "deliver":
                deliver(now, (backlog if mode == 0 else ring).popleft())
            elif task == "poll":
                for _ in range(st["batch"]):
                    deliver(now, ring.popleft())
            st["task"] = None
            dispatch(now)

    offered = int(np.searchsorted(times, horizon, side="right"))
    in_flight = len(ring) + len(backlog)  # a packet leaves the ring only when its task ends
    d = st["delivered"]
    return SimResult(
        horizon_s=horizon,
        offered=offered,
        delivered=d,
        dropped=st["dropped"],
        in_flight=in_flight,
        interrupts=st["irq"],
        polls=st["polls"],
        busy_s=st["busy"],
        mean_latency_s=st["lat"] / d if d else float("inf"),
    )
