"""The TDMA model set beside the statements of seed 001 (McGuinness thesis) about guard times and loss.

Each check names the thesis line it tests, the model inputs (the thesis gives rates, packet and burst sizes;
lag laws and unstated uptimes are our choice, and each row says so), the model's value and the thesis's.
Nothing here feeds a thesis number into a result: the model computes, the table compares."""

from __future__ import annotations

from .model import LagLaw, TdmaLink, goodput_bps

__all__ = ["NIC_LAG", "WATCHDOG_STALLS", "thesis_checks"]

SEED = "McGuinness 2021"  # seed 001; the lines: 1316, 1333, 1322, 626, 663, 713, 890
# Our choice for a 100 G software NIC: the thesis fixes preallocation at 3 us "from preliminary results"
# (line 1316), which we take as the fixed lag; the jitter mean of 0.3 us is an assumption, not a measurement.
NIC_LAG = LagLaw(d0_s=3e-6, jitter_mean_s=0.3e-6)
# Watchdog stalls (lines 857-859): "roughly 1 in every 2000 packets", "hundreds of microseconds". The same
# sentence also says "(0.2%)", which is 1 in 500: the thesis contradicts itself; we take 1 in 2,000, the
# number stated first, and 200 us, the low end of "hundreds". d0 = 5.6 us is the kernel qdisc's measured
# preallocation (line 663); the 1 us jitter mean is our assumption; the kernel-bypass sender of line 890 is
# assumed to share this law (our choice: the thesis gives no separate one).
WATCHDOG_STALLS = LagLaw(d0_s=5.6e-6, jitter_mean_s=1e-6, stall_prob=1 / 2000, stall_mean_s=200e-6)
_SIZES = (64, 128, 256, 512, 1024, 1500)


def _row(
    claim: str, source: str, inputs: str, model: float, thesis: float | None, agree: bool | None, unit: str
) -> dict[str, object]:
    return {
        "claim": claim,
        "source": source,
        "inputs": inputs,
        "model": model,
        "thesis": thesis,
        "unit": unit,
        "agree": agree,
    }


def thesis_checks() -> list[dict[str, object]]:
    """One row per thesis statement; `agree` uses the tolerance written in the row's claim."""
    rows = []
    gp = goodput_bps(25e9, 500e-6, 250e-6, 5e-6, 3e-6, 3e-6)
    rows.append(
        _row(
            "goodput at 25 Gb/s, P 500 us, duty 50%, guard 5 us, p = d0 (exact)",
            f"issue 12; {SEED}, section 3.4.3",
            "p = d0 = 3 us",
            gp,
            12.25e9,
            abs(gp - 12.25e9) < 1,
            "bps",
        )
    )
    worst = max(
        TdmaLink(100e9, 500e-6, 250e-6, 4e-6, 3e-6, s, 8, NIC_LAG, rate_bps=10e9).leak_share() for s in _SIZES
    )
    rows.append(
        _row(
            "a 4 us guard stops downtime packets at 100 G, burst 8, any size (leak < 1e-6)",
            f"{SEED}, section 3.4.3",
            "our NIC lag law, P 500 us, 50% duty, 10 Gb/s per host, sizes 64-1500 B",
            worst,
            None,
            worst < 1e-6,
            "share",
        )
    )
    small, big = (
        TdmaLink(100e9, 500e-6, 250e-6, 1e-6, 3e-6, s, 8, NIC_LAG, rate_bps=10e9).leak_share()
        for s in (64, 1500)
    )
    rows.append(
        _row(
            "bigger packets leak more at a fixed guard (1500 B vs 64 B at 1 us)",
            f"{SEED}, section 3.4.3",
            "as above, guard 1 us",
            big / small,
            None,
            big > small,
            "ratio",
        )
    )
    kernel = TdmaLink(10e9, 1.65e-3, 1.5e-3, 400e-9, 5.6e-6, 1500, 1, WATCHDOG_STALLS)
    short = kernel.stall_shortfall() + kernel.leak_share()
    rows.append(
        _row(
            "about 0.1% shortfall with a 400 ns guard (within a factor 3)",
            f"{SEED}, sections 2.4.2-2.4.4",
            "10 Gb/s, 1500 B, one packet at a time, uptime 1.5 ms (our choice), watchdog stalls",
            short,
            1e-3,
            1e-3 / 3 <= short <= 3e-3,
            "share",
        )
    )
    bypass = TdmaLink(10e9, 2.15e-3, 2e-3, 400e-6, 5.6e-6, 1500, 1, WATCHDOG_STALLS).leak_share()
    rows.append(
        _row(
            "about 0.05% loss with a 400 us guard (within a factor 3)",
            f"{SEED}, section 2.5.4",
            "uptime 2 ms (our choice: not stated), watchdog stalls",
            bypass,
            5e-4,
            5e-4 / 3 <= bypass <= 1.5e-3,
            "share",
        )
    )
    long = TdmaLink(10e9, 10.15e-3, 10e-3, 1e-3, 5.6e-6, 1500, 1, WATCHDOG_STALLS).leak_share()
    rows.append(
        _row(
            "1e-7 loss with 1 ms guard and 10 ms uptime (within a factor 10: the thesis rounds "
            "to a power of ten)",
            f"{SEED}, section 2.5.4",
            "watchdog stalls",
            long,
            1e-7,
            1e-8 <= long <= 1e-6,
            "share",
        )
    )
    return rows
