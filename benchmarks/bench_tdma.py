"""Benchmark of the TDMA probe and model: analysis speed, model speed, and the veth sender's packet rate."""

from __future__ import annotations

import time


def main() -> None:
    from greendcn.host.tdma.model import LagLaw, TdmaLink
    from greendcn.host.tdma import ProbeConfig, Schedule, measure, run_probe, simulate_sender

    sched = Schedule(period_ns=500_000, uptime_ns=250_000, guard_ns=5_000, slots=2_000, start_ns=10**9)
    rec = simulate_sender(sched, 1_000, 8, LagLaw(d0_s=2e-6, jitter_mean_s=0.5e-6), seed=1)
    t0 = time.perf_counter()
    measure(rec, sched)
    dt = time.perf_counter() - t0
    print(
        f"analysis: {rec.size} records measured in {dt * 1e3:.1f} ms = {rec.size / dt / 1e6:.2f} M records/s"
    )

    link = TdmaLink(
        100e9, 500e-6, 250e-6, 4e-6, 3e-6, 1500, 8, LagLaw(d0_s=3e-6, jitter_mean_s=0.3e-6), rate_bps=10e9
    )
    t0 = time.perf_counter()
    n = 200
    for _ in range(n):
        link.leak_share()
    dt = time.perf_counter() - t0
    print(f"model: leak_share at 100 Gb/s, 250 us uptime: {dt / n * 1e3:.2f} ms per evaluation")
    long = TdmaLink(
        10e9,
        10.15e-3,
        10e-3,
        1e-3,
        5.6e-6,
        1500,
        1,
        LagLaw(d0_s=5.6e-6, jitter_mean_s=1e-6, stall_prob=1 / 2000, stall_mean_s=200e-6),
    )
    t0 = time.perf_counter()
    long.leak_share()
    print(f"model: leak_share at 10 Gb/s, 10 ms uptime, stalls: {(time.perf_counter() - t0) * 1e3:.1f} ms")

    # The sender's own packet rate over veth, sending without a schedule gap (duty 1) for 300 ms.
    for size in (64, 1472):
        run = run_probe(
            ProbeConfig(Schedule(period_ns=1_000_000, uptime_ns=1_000_000, slots=300), size_bytes=size)
        )
        pps = run.metrics.data_received / 0.3
        print(
            f"veth sender, {size} B payload, burst 8: {pps / 1e3:.0f} kpps received, "
            f"{run.metrics.goodput_bps / 1e9:.2f} Gb/s of payload, loss {run.metrics.loss_share:.3g}"
        )


if __name__ == "__main__":
    main()
