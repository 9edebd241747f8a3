"""A small packet-level event simulation of the receive path, to cross-check the fluid model (model.py).

It follows single packets through the same mechanisms the fluid model averages: per NIC a ring of R slots
and the mode's rule for when the reader wakes, and one CPU that runs interrupt handlers, wake-ups, polls and
per-packet deliveries one task at a time. Several NICs may share the CPU (`simulate_shared`); interrupt-level
work (handlers, wake-ups) goes before delivery work, NICs take turns at interrupt level, and delivery work
goes to the NIC that has had the least delivery-level CPU time so far (our choice: hard interrupts before
SoftIRQ and reader work, and a fair share of the rest; model.evaluate_shared assumes the same).

Events sit in a heap ordered by (time, sequence number), so ties break the same way on every run; NIC i's
arrivals come from a generator seeded by (seed, i). Costs are divided by the CPU share `cores` (a half core
takes twice as long per task).
"""

from __future__ import annotations

import heapq
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from .params import DEFAULT_HOST, Host

__all__ = ["SimResult", "simulate", "simulate_shared"]

_ARRIVAL, _DONE, _TIMER = 0, 1, 2


@dataclass(frozen=True)
class SimResult:
    """One NIC's counts over [0, horizon_s]; busy_s is the CPU time spent on this NIC in that window."""

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


def _arrivals(
    rate_pps: float, burst: int, n_packets: int, pattern: str, rng: np.random.Generator
) -> np.ndarray:
    """Arrival times of n_packets: bursts of `burst` packets, periodic or Poisson, mean rate rate_pps."""
    n_bursts = -(-n_packets // burst)
    mean_gap = burst / rate_pps
    if pattern == "periodic":
        starts = mean_gap * np.arange(1, n_bursts + 1)
    elif pattern == "poisson":
        starts = np.cumsum(rng.exponential(mean_gap, n_bursts))
    else:
        raise ValueError(f"unknown arrival pattern {pattern!r}")
    return np.repeat(starts, burst)[:n_packets]


@dataclass
class _Nic:
    """The state of one receive path."""

    mode: int
    param: float
    ring: deque = field(default_factory=deque)  # arrival times of packets waiting in the NIC ring
    backlog: deque = field(default_factory=deque)  # interrupt mode: handled, waiting for delivery
    awake: bool = False  # timer/watermark: the reader is draining
    want_wake: bool = False  # timer/watermark: a wake-up is due and waits for the CPU
    irq_on: bool = True  # napi: interrupts enabled
    want_irq: bool = False  # napi: an interrupt is raised and waits for the CPU
    epoch: int = 0  # watermark: which sleep a timeout belongs to
    batch: int = 0
    delivered: int = 0
    dropped: int = 0
    irqs: int = 0
    polls: int = 0
    busy: float = 0.0
    busy2: float = 0.0  # delivery-level CPU time, for the fair share
    lat: float = 0.0

    def urgent(self) -> bool:
        """Interrupt-level work is waiting."""
        return bool(self.ring) if self.mode == 0 else (self.want_irq if self.mode == 3 else self.want_wake)

    def work(self) -> bool:
        """Delivery-level work is waiting."""
        if self.mode == 0:
            return bool(self.backlog)
        if self.mode == 3:
            return not self.irq_on and not self.want_irq and bool(self.ring)
        return self.awake and bool(self.ring)


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
    return simulate_shared([(mode, param, rate_pps, burst)], host, n_packets, pattern, seed, cores)[0]


def simulate_shared(
    nics: list[tuple[int, float, float, int]],
    host: Host = DEFAULT_HOST,
    n_packets: int = 20_000,
    pattern: str = "poisson",
    seed: int = 0,
    cores: float | None = None,
) -> list[SimResult]:
    """Several receive paths, given as (mode, param, rate_pps, burst), sharing one CPU. Each NIC receives
    n_packets; rates are measured up to the earliest of the NICs' last arrivals, so all are loaded throughout."""
    C = host.cpu_cores if cores is None else cores
    ci, cp, ck = host.irq_cost_s / C, host.poll_cost_s / C, host.pkt_cost_s / C
    R, tau = host.ring_slots, host.wake_timeout_s
    times = [
        _arrivals(rate, b, n_packets, pattern, np.random.default_rng([seed, i]))
        for i, (_, _, rate, b) in enumerate(nics)
    ]
    horizon = float(min(t[-1] for t in times))
    paths = [_Nic(mode, param) for mode, param, _, _ in nics]

    heap: list[tuple[float, int, int, int, int]] = []
    seq = 0

    def push(t: float, kind: int, nic: int = 0, data: int = 0) -> None:
        nonlocal seq
        heapq.heappush(heap, (t, seq, kind, nic, data))
        seq += 1

    cpu = {"task": None, "nic": -1, "next": 0}

    def run(now: float, i: int, task: str, cost: float) -> None:
        cpu["task"], cpu["nic"] = task, i
        paths[i].busy += min(cost, max(0.0, horizon - now))  # count busy time inside the window only
        push(now + cost, _DONE, i)

    def sleep(now: float, i: int) -> None:
        p = paths[i]
        p.awake = False
        p.epoch += 1
        if p.mode == 2:
            push(now + tau, _TIMER, i, p.epoch)

    def start(now: float, i: int, urgent: bool) -> None:
        p = paths[i]
        if urgent:
            p.irqs += 1
            if p.mode == 0:
                run(now, i, "irq", ci)
            elif p.mode == 3:
                p.want_irq = False
                run(now, i, "irq", ci)
            else:
                p.want_wake, p.awake = False, True
                p.polls += 1
                run(now, i, "wake", ci + cp)
        elif p.mode == 3:
            p.batch = min(len(p.ring), int(max(1, round(p.param))))
            p.polls += 1
            p.busy2 += cp + p.batch * ck
            run(now, i, "poll", cp + p.batch * ck)
        else:
            p.busy2 += ck
            run(now, i, "deliver", ck)

    def dispatch(now: float) -> None:
        """The CPU is free: interrupt-level work first, NICs in turn; then delivery-level work."""
        n = len(paths)
        for i in range(n):  # readers with nothing left go to sleep; NAPI re-enables its interrupt
            p = paths[i]
            if p.mode in (1, 2) and p.awake and not p.ring:
                sleep(now, i)
            elif p.mode == 3 and not p.irq_on and not p.want_irq and not p.ring:
                p.irq_on = True
        for k in range(n):
            i = (cpu["next"] + k) % n
            if paths[i].urgent():
                cpu["next"] = (i + 1) % n
                start(now, i, True)
                return
        ready = [i for i in range(n) if paths[i].work()]
        if ready:
            start(now, min(ready, key=lambda i: (paths[i].busy2, i)), False)
            return
        cpu["task"] = None

    for i, t in enumerate(times):
        for j, at in enumerate(t):
            push(float(at), _ARRIVAL, i, j)
        if paths[i].mode == 1:
            push(paths[i].param, _TIMER, i)
        elif paths[i].mode == 2:
            push(tau, _TIMER, i, 0)

    while heap:
        now, _, kind, i, data = heapq.heappop(heap)
        if now > horizon:
            break
        p = paths[i]
        if kind == _ARRIVAL:
            if len(p.ring) < R:
                p.ring.append(now)
            else:
                p.dropped += 1
            if p.mode == 2 and not p.awake and not p.want_wake and len(p.ring) >= p.param:
                p.want_wake = True
            elif p.mode == 3 and p.irq_on:
                p.irq_on, p.want_irq = False, True
        elif kind == _TIMER:
            if p.mode == 1:
                push(now + p.param, _TIMER, i)
                if not p.awake:
                    p.want_wake = True  # merged with a wake-up already due
            elif data == p.epoch and not p.awake:
                p.want_wake = True
        else:  # a task ends
            task = cpu["task"]
            if task == "irq" and p.mode == 0:
                arrived = p.ring.popleft()
                if len(p.backlog) < R:
                    p.backlog.append(arrived)
                else:
                    p.dropped += 1
            elif task == "deliver":
                p.delivered += 1
                p.lat += now - (p.backlog if p.mode == 0 else p.ring).popleft()
            elif task == "poll":
                for _ in range(p.batch):
                    p.delivered += 1
                    p.lat += now - p.ring.popleft()
            cpu["task"] = None
        if cpu["task"] is None:
            dispatch(now)

    out = []
    for i, p in enumerate(paths):
        offered = int(np.searchsorted(times[i], horizon, side="right"))
        out.append(
            SimResult(
                horizon_s=horizon,
                offered=offered,
                delivered=p.delivered,
                dropped=p.dropped,
                in_flight=len(p.ring) + len(p.backlog),  # a packet leaves the ring only when its task ends
                interrupts=p.irqs,
                polls=p.polls,
                busy_s=p.busy,
                mean_latency_s=p.lat / p.delivered if p.delivered else float("inf"),
            )
        )
    return out
