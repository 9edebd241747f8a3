"""Fluid (steady-state) model of a NIC receive path under four receive modes, vectorised with numpy.

Every argument may be an array; they broadcast together, so one call evaluates a whole GA population or a
whole grid of loads. The equations and the reason for each are in docs/models.md ("NIC receive modes");
the names below follow that section: lam offered packets/s, C CPU cores, ci/cp/ck the per-interrupt,
per-poll and per-packet CPU costs, R the ring size, b the burst size, tau the reader's wake-up timeout.

Modes (codes from params.MODE_CODES):
  0 interrupt  one interrupt per arriving packet; interrupt work has priority over delivery (livelock)
  1 timer      the reader wakes every `param` seconds and drains the ring ("passive wait" in seed 002)
  2 watermark  the reader wakes when `param` packets wait, or after tau (PF_RING's poll watermark)
  3 napi       Linux NAPI: an interrupt when idle, then polls of at most `param` packets while any remain
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .params import DEFAULT_HOST, MODE_CODES, Host, Setting, Transmission

__all__ = ["PathResult", "evaluate", "evaluate_setting", "evaluate_shared", "napi_irq_per_packet"]

_TINY = 1e-300


@dataclass(frozen=True)
class PathResult:
    """Steady-state rates of one receive path (arrays broadcast from the inputs)."""

    offered_pps: np.ndarray
    delivered_pps: np.ndarray
    drops_pps: np.ndarray
    interrupts_per_s: np.ndarray
    polls_per_s: np.ndarray
    cpu_util: np.ndarray  # busy fraction of the CPU capacity given to this path
    busy_cores: np.ndarray  # CPU work per second, in cores (cpu_util times the capacity given)
    urgent_cores: np.ndarray  # the part of the demand at interrupt level (handlers, wake-ups)
    cpu_demand_cores: np.ndarray  # cores needed to deliver everything offered (may exceed the capacity)
    latency_s: np.ndarray  # mean arrival-to-delivery delay (inf when nothing is delivered)
    livelock: np.ndarray  # interrupt/wake-up work alone takes the whole CPU
    livelock_pps: np.ndarray  # offered load at which this setting livelocks (inf: never)

    def row(self, i: int | tuple = ()) -> dict[str, float]:
        return {k: (bool(v[i]) if v.dtype == bool else float(v[i])) for k, v in self.__dict__.items()}


def _backlog_delay(R: float, d: np.ndarray) -> np.ndarray:
    """Delay through a full ring of R packets drained at d packets/s (inf when nothing drains)."""
    return np.where(d > 1e-6, R / np.maximum(d, _TINY), np.inf)  # below a packet per 10^6 s: nothing drains


def evaluate(mode, param, rate_pps, burst=1, host: Host = DEFAULT_HOST, cores=None) -> PathResult:
    """Evaluate the receive path; `mode` holds integer codes, `param` the mode's parameter (seconds for timer,
    packets for watermark, packets per poll for napi, ignored for interrupt). `cores` overrides host.cpu_cores
    (the joint model passes each NIC's share).

    >>> r = evaluate([0, 3], [0, 64], 250e3)   # per-packet interrupts and NAPI at 250 kpps, one core
    >>> [round(x) for x in r.delivered_pps], r.livelock.tolist()
    ([0, 250000], [True, False])
    """
    C = host.cpu_cores if cores is None else cores
    m, p, lam, b, C = np.broadcast_arrays(
        np.asarray(mode, dtype=np.int64),
        np.asarray(param, dtype=float),
        np.asarray(rate_pps, dtype=float),
        np.asarray(burst, dtype=float),
        np.asarray(C, dtype=float),
    )
    ci, cp, ck, R, tau = (
        host.irq_cost_s,
        host.poll_cost_s,
        host.pkt_cost_s,
        float(host.ring_slots),
        host.wake_timeout_s,
    )
    o = ci + cp  # one wake-up: the interrupt plus the poll it starts
    inf = np.full(m.shape, np.inf)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # --- interrupt: one interrupt per packet; the handler (ci) runs before any delivery (ck).
        irq0 = np.minimum(lam, C / ci)
        d0 = np.minimum(lam, np.maximum(0.0, (C - irq0 * ci) / ck))
        d0 = np.where(d0 < 1e-9 * lam, 0.0, d0)  # round-off at the livelock point
        busy0 = irq0 * ci + d0 * ck
        s0 = (ci + ck) / C  # M/D/1 wait below saturation (Poisson arrivals)
        rho0 = np.minimum(lam * s0, 1.0)
        lat0 = np.where(
            d0 < lam * (1 - 1e-9), _backlog_delay(R, d0), s0 + rho0 * s0 / (2 * np.maximum(1 - rho0, _TINY))
        )

        # --- timer / watermark: the reader sleeps S seconds (the ring holds at most R of what arrives), wakes
        # (one interrupt + one poll, o) and drains until the ring is empty, taking in what arrives meanwhile.
        rk = lam * ck / C  # CPU share that delivery alone needs
        wp = b * np.ceil(np.maximum(p, 1.0) / b)  # the watermark is crossed a whole burst at a time
        wm_first = (wp <= R) & (wp / lam <= tau)
        S_wm = np.where(wm_first, wp / lam, tau)
        a_wm = np.where(wm_first, wp, np.minimum(lam * tau, R))
        n_wm = (a_wm + lam * o / C) / np.maximum(1.0 - rk, _TINY)  # n = a + lam * busy
        n_tm = np.minimum(lam * p, (R + lam * o / C) / np.maximum(1.0 - rk, _TINY))
        n1 = np.where(m == 1, n_tm, n_wm)
        drain = (o + n1 * ck) / C
        L_tm = p * np.maximum(1.0, np.ceil(drain / p - 1e-9))  # ticks during a drain are skipped
        L = np.where(m == 1, L_tm, S_wm + drain)
        sat1 = rk >= 1.0  # the reader never gets back to sleep
        d1 = np.where(sat1, C / ck, n1 / L)
        wakes = np.where(sat1, 0.0, 1.0 / L)
        busy1 = wakes * o + d1 * ck
        S1 = np.where(m == 1, np.maximum(L - drain, 0.0), S_wm)
        # Packets that arrived while the reader slept (a of the n) wait for the wake-up and their turn in the
        # drain; those that arrive during the drain are taken almost at once (per-packet time ck / C).
        a1 = np.minimum(np.minimum(lam * S1, R), n1)
        f_sleep = a1 / np.maximum(n1, _TINY)
        lat1 = np.where(
            sat1,
            _backlog_delay(R, d1),
            f_sleep * (S1 / 2 + (o + a1 * ck / 2) / C) + (1 - f_sleep) * ck / C / np.maximum(1 - rk, _TINY),
        )

        # --- NAPI: an interrupt only when a burst finds the path idle; polls of k packets while any remain.
        # Below the knee each poll finds one burst (k = min(b, beta)); above it the CPU never idles and the
        # batch grows until it reaches the budget beta (docs/models.md, NAPI equations).
        beta = np.maximum(np.round(p), 1.0)
        k_low = np.minimum(b, beta)
        knee = C / (ck + cp / k_low)
        lam_sat = C / (ck + cp / beta)
        u_low = lam * (ck + cp / k_low + ci / b) / (C + lam * ci / b)
        below = lam < knee
        u = np.where(below, np.minimum(u_low, 1.0), 1.0)
        k3 = np.where(below, k_low, np.clip(lam * cp / np.maximum(C - lam * ck, _TINY), k_low, beta))
        d3 = np.minimum(lam, lam_sat)
        irq3 = np.where(below, d3 * (1.0 - u) / b, 0.0)
        polls3 = d3 / k3
        busy3 = irq3 * ci + polls3 * cp + d3 * ck
        s3 = busy3 / np.maximum(d3, _TINY) / C  # mean CPU time per packet (wall seconds)
        lat3 = np.where(
            below,
            s3 + u * s3 / (2 * np.maximum(1.0 - u, _TINY)),
            np.where(lam < lam_sat, 1.5 * (cp + k3 * ck) / C, _backlog_delay(R, d3) + s3),
        )

    is0, is3 = m == 0, m == 3

    def pick(a0, a1, a3):
        return np.where(is0, a0, np.where(is3, a3, a1))

    delivered = pick(d0, d1, d3)
    return PathResult(
        offered_pps=lam.astype(float),
        delivered_pps=delivered,
        drops_pps=np.maximum(lam - delivered, 0.0),
        interrupts_per_s=pick(irq0, wakes, irq3),
        polls_per_s=pick(np.zeros_like(lam), wakes, polls3),
        cpu_util=np.minimum(pick(busy0, busy1, busy3) / C, 1.0),
        busy_cores=np.minimum(pick(busy0, busy1, busy3), C),
        urgent_cores=pick(lam * ci, wakes * o, irq3 * ci),
        cpu_demand_cores=pick(
            lam * (ci + ck), o * wakes + lam * ck, np.where(lam < lam_sat, busy3, lam * C / lam_sat)
        ),
        latency_s=pick(lat0, lat1, lat3),
        livelock=pick(lam * ci >= C, np.zeros(m.shape, bool), np.zeros(m.shape, bool)).astype(bool),
        livelock_pps=pick(C / ci, inf, inf),
    )


def evaluate_setting(setting: Setting, tx: Transmission, host: Host = DEFAULT_HOST, cores=None) -> PathResult:
    """One named setting on one transmission (scalars in, 0-d arrays out)."""
    return evaluate(setting.code, setting.param(tx.packet_bytes), tx.rate_pps, tx.burst, host, cores)


def _water_fill(capacity: np.ndarray, demand: np.ndarray) -> np.ndarray:
    """Max-min fair split of `capacity` (shape (..., 1)) over the demands on the last axis."""
    n = demand.shape[-1]
    order = np.argsort(demand, axis=-1, kind="stable")
    d = np.take_along_axis(demand, order, axis=-1)
    got = np.zeros_like(d)
    left = capacity[..., 0].astype(float).copy()
    for j in range(n):
        got[..., j] = np.minimum(d[..., j], left / (n - j))
        left = left - got[..., j]
    out = np.empty_like(got)
    np.put_along_axis(out, order, got, axis=-1)
    return out


def _livelocked(r: PathResult, storm: np.ndarray) -> PathResult:
    """Where interrupt-level work alone fills the shared CPU, no NIC gets to deliver anything."""
    from dataclasses import replace

    delivered = np.where(storm, 0.0, r.delivered_pps)
    return replace(
        r,
        delivered_pps=delivered,
        drops_pps=r.offered_pps - delivered,
        livelock=np.where(storm, True, r.livelock),
        latency_s=np.where(storm, np.inf, r.latency_s),
    )


def evaluate_shared(
    mode, param, rate_pps, burst=1, host: Host = DEFAULT_HOST, iterations: int = 16
) -> PathResult:
    """Several NICs (last axis) sharing host.cpu_cores (our model, docs/models.md, mirrored by
    eventsim.simulate_shared). Interrupt-level work (handlers, wake-ups) is served first; the rest of the CPU
    is split max-min fairly over the NICs' delivery-level needs as if alone. A NIC that gets its whole need
    runs as if alone; a NIC that gets less is evaluated on the CPU share it gets (interrupt work plus its
    slice), which moves its operating point (NAPI batches more and interrupts less), so the split is repeated,
    damped, until it settles. If interrupt-level work alone fills the CPU, no NIC delivers anything: one NIC's
    interrupt storm livelocks its neighbours."""
    alone = evaluate(mode, param, rate_pps, burst, host)
    C = host.cpu_cores
    contended = alone.cpu_demand_cores.sum(axis=-1, keepdims=True) > C
    if not contended.any():
        return alone
    lam = alone.offered_pps
    need2 = np.maximum(alone.cpu_demand_cores - alone.urgent_cores, 0.0)  # delivery-level work if alone
    urgent_alone = np.minimum(alone.urgent_cores, C)
    urgent = urgent_alone
    n = lam.shape[-1]
    share = slice2 = None
    for _ in range(iterations):
        u_total = urgent.sum(axis=-1, keepdims=True)
        level1 = np.where(u_total > C, C * urgent / np.maximum(u_total, _TINY), urgent)
        rest = np.maximum(C - level1.sum(axis=-1, keepdims=True), 0.0)
        got = _water_fill(rest, need2)
        spare = np.maximum(rest - got.sum(axis=-1, keepdims=True), 0.0) / n
        new = np.maximum(level1 + got + spare, _TINY)
        share = new if share is None else 0.5 * share + 0.5 * new
        slice2 = got if slice2 is None else 0.5 * slice2 + 0.5 * got
        squeezed = contended & (slice2 < need2 * (1 - 1e-3))
        r = evaluate(mode, param, rate_pps, burst, host, cores=np.where(squeezed, share, C))
        urgent = np.where(squeezed, np.minimum(r.urgent_cores, C), urgent_alone)
    storm = np.broadcast_to(contended & (urgent.sum(axis=-1, keepdims=True) >= C * (1 - 1e-9)), lam.shape)
    return _livelocked(r, storm) if storm.any() else r


def napi_irq_per_packet(
    rate_pps, budget: float = 64, host: Host = DEFAULT_HOST, burst: int = 1
) -> np.ndarray:
    """Interrupts per delivered packet under NAPI as the offered load rises (the curve of seed 004 Fig. 6)."""
    r = evaluate(MODE_CODES["napi"], budget, rate_pps, burst, host)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(r.delivered_pps > 0, r.interrupts_per_s / r.delivered_pps, 0.0)
