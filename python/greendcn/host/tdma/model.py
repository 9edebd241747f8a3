"""The TDMA host model: goodput of a slot and the share of packets that leak into downtime.

A host sends during [start - p, start + U - p - g) of every period P (preallocation p, guard g, uptime U;
seed 001, Fig 3.3, lines 1203-1205). Each packet reaches the wire a lag L after the sender hands it over, and
L = d0 + J + S (LagLaw): a fixed part d0, a jitter J and, with probability q per packet, a stall S (seed 001,
lines 857-859: a watchdog interrupts the sender about once every 2,000 packets, for hundreds of us). Bursts of
b packets are handed over at once, so packet j of a burst also waits j serialisation times (s + 24) * 8 / C;
the 24 bytes are the preamble, FCS and gap the NIC adds on the wire (seed 001, line 657).

All times here are seconds (float, `_s`), rates bits per second, sizes bytes."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...core.errors import InputError

__all__ = ["WIRE_OVERHEAD_BYTES", "LagLaw", "TdmaLink", "goodput_bps", "leak_share", "stall_shortfall"]

WIRE_OVERHEAD_BYTES = 24  # seed 001, line 657: "(p_b + 24)"
_PHASES = 32  # burst phases averaged over (our choice: the sender's burst grid is not aligned to the window)
_TINY = 1e-15


@dataclass(frozen=True)
class LagLaw:
    """Send-to-wire lag: d0 + Exp(jitter_mean) + (with probability stall_prob) a stall of mean stall_mean.

    Our choice of shapes, as the thesis gives no distribution: jitter is exponential (the lag has a hard
    minimum d0 and a one-sided tail); stalls are exponential (`stall_law="exponential"`) or all of one
    length (`"fixed"`)."""

    d0_s: float = 0.0
    jitter_mean_s: float = 0.0
    stall_prob: float = 0.0
    stall_mean_s: float = 0.0
    stall_law: str = "exponential"

    def __post_init__(self) -> None:
        for name in ("d0_s", "jitter_mean_s", "stall_mean_s"):
            if not getattr(self, name) >= 0:
                raise InputError(
                    f"{name}: must be a non-negative number of seconds, got {getattr(self, name)}",
                    hint="lags and stall lengths are durations, e.g. 3us",
                )
        if not 0 <= self.stall_prob <= 1:
            raise InputError(
                f"stall_prob: must lie in [0, 1], got {self.stall_prob}",
                hint="a probability per packet, e.g. 0.0005 for one stall in 2,000 packets",
            )
        if self.stall_law not in ("exponential", "fixed"):
            raise InputError(
                f"stall_law: {self.stall_law!r} is not 'exponential' or 'fixed'",
                hint="choose exponential or fixed",
            )

    def _jitter_sf(self, x: np.ndarray) -> np.ndarray:
        s = self.jitter_mean_s
        if s <= 0:
            return (x < 0).astype(np.float64)
        return np.where(x < 0, 1.0, np.exp(-np.maximum(x, 0) / s))

    def excess_sf(self, x) -> np.ndarray:
        """P(L - d0 > x) for an array of x (seconds)."""
        x = np.asarray(x, dtype=np.float64)
        q, m, s = self.stall_prob, self.stall_mean_s, self.jitter_mean_s
        base = self._jitter_sf(x)
        if q == 0 or m == 0:
            return base
        if self.stall_law == "fixed":
            with_stall = self._jitter_sf(x - m)
        elif s <= 0:
            with_stall = np.where(x < 0, 1.0, np.exp(-np.maximum(x, 0) / m))
        elif abs(s - m) < 1e-12 * max(s, m):
            xp = np.maximum(x, 0)
            with_stall = np.where(x < 0, 1.0, np.exp(-xp / s) * (1 + xp / s))
        else:  # sum of two exponentials (hypoexponential) survival
            xp = np.maximum(x, 0)
            with_stall = np.where(x < 0, 1.0, (m * np.exp(-xp / m) - s * np.exp(-xp / s)) / (m - s))
        return (1 - q) * base + q * with_stall

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """n lags (seconds) drawn from this law with the caller's seeded generator."""
        lag = self.d0_s + (rng.exponential(self.jitter_mean_s, n) if self.jitter_mean_s > 0 else np.zeros(n))
        if self.stall_prob > 0 and self.stall_mean_s > 0:
            hit = rng.random(n) < self.stall_prob
            dur = (
                rng.exponential(self.stall_mean_s, n)
                if self.stall_law == "exponential"
                else np.full(n, self.stall_mean_s)
            )
            lag = lag + np.where(hit, dur, 0.0)
        return lag

    def tail_extent_s(self, eps: float = 1e-13) -> float:
        """An x beyond which P(L - d0 > x) < eps: bursts further than this from the window's end cannot leak."""
        x = max(self.jitter_mean_s, self.stall_mean_s, 1e-9)
        while self.excess_sf(np.array([x]))[0] > eps and x < 1e3:
            x *= 2
        return x


def goodput_bps(
    rate_bps: float, period_s: float, uptime_s: float, guard_s: float, prealloc_s: float, d0_s: float
) -> float:
    """R * (U - g + p - d0) / P, the goodput formula of issue 12.

    Our reading: the sender transmits for U - g of each period; when p < d0 the first d0 - p of the uptime
    carries nothing. For p > d0 we clamp at R * (U - g) / P (our choice): sending earlier than the lag needs
    only pushes the first packets into the previous downtime, it cannot add uptime."""
    if period_s <= 0 or not 0 < uptime_s <= period_s:
        raise InputError("period/uptime: need 0 < uptime <= period", hint="use a duty cycle in (0, 1]")
    useful = uptime_s - guard_s - max(0.0, d0_s - prealloc_s)
    return rate_bps * max(0.0, useful) / period_s


@dataclass(frozen=True)
class TdmaLink:
    """One host's TDMA sending on a link of `line_rate_bps`, optionally paced to `rate_bps` inside the slot.

    `packet_time_s` overrides the serialisation time (s + 24) * 8 / C: on veth there is no line rate and the
    host's own per-packet send cost plays that part (our choice, measured by the probe)."""

    line_rate_bps: float
    period_s: float
    uptime_s: float
    guard_s: float
    prealloc_s: float
    packet_bytes: int
    burst: int
    lag: LagLaw = field(default_factory=LagLaw)
    rate_bps: float | None = None
    packet_time_s: float | None = None
    # None: the burst grid has no relation to the window (a NIC batching on its own clock), so its phase is
    # uniform over one burst interval. A number: the sender starts its first burst as the window opens and
    # the grid then drifts; this is the width of the drift where the window ends (our choice, see sweeps).
    phase_spread_s: float | None = None

    def __post_init__(self) -> None:
        if not 0 < self.uptime_s <= self.period_s:
            raise InputError(
                f"uptime_s: must lie in (0, period_s], got {self.uptime_s}", hint="use a duty cycle in (0, 1]"
            )
        if not 0 <= self.guard_s < self.uptime_s:
            raise InputError(
                f"guard_s: must lie in [0, uptime_s), got {self.guard_s}",
                hint="the guard must be shorter than the uptime: lower it or raise the duty",
            )
        if self.burst < 1 or self.packet_bytes < 1 or self.line_rate_bps <= 0:
            raise InputError(
                "burst, packet_bytes and line_rate_bps must be positive",
                hint="for example --burst 8 --size 1500B --rate 25Gbps",
            )

    @property
    def t_pkt_s(self) -> float:
        if self.packet_time_s is not None:
            return self.packet_time_s
        return (self.packet_bytes + WIRE_OVERHEAD_BYTES) * 8 / self.line_rate_bps

    @property
    def batch_time_s(self) -> float:
        """b * (s + 24) * 8 / C: how long one burst occupies the wire."""
        return self.burst * self.t_pkt_s

    @property
    def burst_interval_s(self) -> float:
        if self.rate_bps:
            return max(self.batch_time_s, self.burst * self.packet_bytes * 8 / self.rate_bps)
        return self.batch_time_s

    def goodput_bps(self) -> float:
        rate = self.burst * self.packet_bytes * 8 / self.burst_interval_s
        return goodput_bps(rate, self.period_s, self.uptime_s, self.guard_s, self.prealloc_s, self.lag.d0_s)

    def leak_share(self) -> float:
        return leak_share(self)

    def stall_shortfall(self) -> float:
        return stall_shortfall(self)


def leak_share(link: TdmaLink) -> float:
    """Expected share of a slot's packets that reach the wire in downtime (before or after the uptime).

    Bursts start every burst interval tau from the window's opening at a phase phi; packet j of a burst
    (j = 1..b) ends on the wire at phi + i*tau + j*t_pkt + L - p relative to the uptime's start. It leaks when
    that is past U, or before 0 (over-preallocation). The phase is averaged over a grid (our choice): over one
    burst interval, or over `phase_spread_s` around 0 for a sender aligned to the window."""
    tau, t_pkt, b = link.burst_interval_s, link.t_pkt_s, link.burst
    window = link.uptime_s - link.guard_s
    d0, p, U = link.lag.d0_s, link.prealloc_s, link.uptime_s
    reach = link.lag.tail_extent_s() + link.batch_time_s + tau
    j = np.arange(1, b + 1, dtype=np.float64)
    leaked = 0.0
    sent = 0.0
    if link.phase_spread_s is None or link.phase_spread_s >= tau:
        phases = (np.arange(_PHASES) + 0.5) / _PHASES * tau
    else:  # aligned start, centred drift of the given width
        phases = ((np.arange(_PHASES) + 0.5) / _PHASES - 0.5) * link.phase_spread_s
    for phi in phases:
        n_bursts = max(0, math.ceil((window - phi) / tau))
        if n_bursts == 0:
            continue
        sent += n_bursts * b
        # Late side: only the last bursts within `reach` of the end can leak.
        first = max(0, n_bursts - math.ceil(reach / tau) - 1)
        i = np.arange(first, n_bursts, dtype=np.float64)[:, None]
        margin = U + p - d0 - (phi + i * tau + j[None, :] * t_pkt)  # spare time before the uptime ends
        leaked += float(np.sum(link.lag.excess_sf(margin)))
        # Early side: when p > d0 the first bursts may land before the uptime starts.
        if p > d0:
            last = min(n_bursts, math.ceil((p - d0) / tau) + 1)
            i0 = np.arange(0, last, dtype=np.float64)[:, None]
            early = p - d0 - (phi + i0 * tau + j[None, :] * t_pkt)  # how much extra lag would rescue it
            leaked += float(np.sum(1.0 - link.lag.excess_sf(early)))
    return leaked / sent if sent else 0.0


def stall_shortfall(link: TdmaLink) -> float:
    """Share of a slot's sending time lost to stalls: expected stalls per slot x mean stall length (capped
    at the window) / window. Our model of "throughput during the daytime is totally lost" (seed 001,
    line 859): a stalled sender cannot catch up at line rate."""
    window = link.uptime_s - link.guard_s
    pkts = window / link.burst_interval_s * link.burst
    q, m = link.lag.stall_prob, link.lag.stall_mean_s
    if q == 0 or m == 0:
        return 0.0
    if link.lag.stall_law == "fixed":
        lost_each = min(m, window)
    else:
        lost_each = m * (1 - math.exp(-window / m))  # E[min(D, window)] for exponential D
    return min(1.0, q * pkts * lost_each / window)
