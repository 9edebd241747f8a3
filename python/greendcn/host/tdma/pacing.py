"""Rate limiting and pacing: kernel qdiscs (tbf, htb) against the sender's own user-space pacing.

Like seed 001's Figs 3.8-3.9 (achieved vs requested rate; CDF of inter-packet gaps against the ideal gap),
but on veth: the kernel here shapes a virtual device, so the numbers describe this host's software path,
not a NIC. Which qdiscs exist is found at run time by asking tc to install each in a scratch namespace."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm import tqdm

from ...core.errors import InputError
from .metrics import within_slot_gaps
from .netns import Namespaces
from .probe import ProbeConfig, run_probe
from .schedule import Schedule

__all__ = ["PACING_MODES", "QDISC_PROBES", "PacingResult", "detect_qdiscs", "pacing_config", "run_pacing"]

# Minimal valid arguments for each kind, so that "unknown kind" can be told apart from "bad arguments".
QDISC_PROBES: dict[str, tuple[str, ...]] = {
    "pfifo": ("limit", "100"),
    "bfifo": ("limit", "100000"),
    "pfifo_fast": (),
    "tbf": ("rate", "1mbit", "burst", "10k", "latency", "10ms"),
    "htb": ("default", "1"),
    "fq": (),
    "fq_codel": (),
    "netem": ("delay", "1ms"),
    "etf": ("clockid", "CLOCK_TAI", "delta", "100000"),
    "taprio": (
        "num_tc",
        "1",
        "map",
        "0",
        "queues",
        "1@0",
        "base-time",
        "0",
        "sched-entry",
        "S",
        "01",
        "100000",
        "clockid",
        "CLOCK_TAI",
    ),
}
PACING_MODES = ("user", "tbf", "htb")


def detect_qdiscs(kinds: tuple[str, ...] | None = None) -> dict[str, str]:
    """kind -> "available", "absent" (kernel or tc does not know it) or "refused: <reason>" (known, but not
    usable on a veth here)."""
    out: dict[str, str] = {}
    with Namespaces(["q"], []) as ns:
        ns.check("q", ["ip", "link", "add", "name", "qa", "type", "veth", "peer", "name", "qb"])
        for kind in kinds or tuple(QDISC_PROBES):
            r = ns.check(
                "q", ["tc", "qdisc", "replace", "dev", "qa", "root", kind, *QDISC_PROBES.get(kind, ())]
            )
            msg = (r.stderr or r.stdout).strip()
            if r.returncode == 0:
                out[kind] = "available"
            elif "unknown" in msg.lower() or "no such file" in msg.lower():
                out[kind] = "absent"
            else:
                out[kind] = f"refused: {msg.splitlines()[0] if msg else r.returncode}"
    return out


def pacing_config(mode: str, rate_bps: int, size_bytes: int, burst: int, duration_ns: int) -> ProbeConfig:
    """A continuous (duty 1) run limited to `rate_bps` by the sender (`user`) or by a qdisc."""
    period = 1_000_000
    sched = Schedule(period_ns=period, uptime_ns=period, slots=max(20, duration_ns // period))
    if mode == "user":
        return ProbeConfig(sched, size_bytes=size_bytes, burst=burst, rate_bps=rate_bps)
    if mode == "tbf":
        # Bucket of 100 us at the rate, at least two packets (our choice): small enough to pace, large
        # enough that tbf accepts it on this kernel's timer granularity.
        bucket = max(2 * (size_bytes + 64), rate_bps // 8 // 10_000)
        tc = (
            (
                "qdisc",
                "replace",
                "dev",
                "{dev}",
                "root",
                "tbf",
                "rate",
                f"{rate_bps}bit",
                "burst",
                str(bucket),
                "latency",
                "20ms",
            ),
        )
    elif mode == "htb":
        tc = (
            ("qdisc", "replace", "dev", "{dev}", "root", "handle", "1:", "htb", "default", "1"),
            (
                "class",
                "add",
                "dev",
                "{dev}",
                "parent",
                "1:",
                "classid",
                "1:1",
                "htb",
                "rate",
                f"{rate_bps}bit",
                "ceil",
                f"{rate_bps}bit",
            ),
        )
    else:
        raise InputError(f"pacing mode {mode!r} is unknown", hint=f"choose from {', '.join(PACING_MODES)}")
    return ProbeConfig(sched, size_bytes=size_bytes, burst=burst, rate_bps=0, tc=tc)


@dataclass
class PacingResult:
    table: pd.DataFrame
    gaps: dict[tuple[str, int], np.ndarray]
    qdiscs: dict[str, str]
    csv: Path | None = None
    png: Path | None = None


def run_pacing(
    rates_bps: list[int],
    modes: tuple[str, ...] = PACING_MODES,
    size_bytes: int = 1472,
    burst: int = 1,
    duration_ns: int = 300_000_000,
    out_dir: Path | None = None,
    progress: bool = True,
) -> PacingResult:
    qd = detect_qdiscs(("tbf", "htb", "fq", "netem", "taprio", "etf", "pfifo"))
    usable = [m for m in modes if m == "user" or qd.get(m) == "available"]
    rows, gaps = [], {}
    jobs = [(m, r) for m in usable for r in rates_bps]
    for mode, rate in tqdm(
        jobs, desc="pacing", unit="run", file=sys.stderr, disable=not progress, leave=False
    ):
        run = run_probe(pacing_config(mode, rate, size_bytes, burst, duration_ns))
        g = within_slot_gaps(run.records)
        gaps[(mode, rate)] = g
        ideal = size_bytes * 8 * 1e9 / rate
        m = run.metrics
        rows.append(
            {
                "mode": mode,
                "requested_Mbps": rate / 1e6,
                "achieved_Mbps": m.goodput_bps / 1e6,
                "achieved_over_requested": m.goodput_bps / rate,
                "loss_share": m.loss_share,
                "ideal_gap_us": ideal / 1e3,
                "gap_p50_us": float(np.median(g)) / 1e3 if g.size else float("nan"),
                "gap_p99_us": float(np.percentile(g, 99)) / 1e3 if g.size else float("nan"),
                "gaps_within_10pct_share": float(np.mean(np.abs(g - ideal) <= 0.1 * ideal))
                if g.size
                else 0.0,
            }
        )
    result = PacingResult(pd.DataFrame(rows), gaps, qd)
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        result.csv = out_dir / "tdma_pacing.csv"
        result.table.to_csv(result.csv, index=False)
        result.png = _plot(result, out_dir / "tdma_pacing.png", size_bytes)
    return result


def _plot(result: PacingResult, path: Path, size_bytes: int) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    t = result.table
    for mode, grp in t.groupby("mode"):
        a.plot(grp["requested_Mbps"], grp["achieved_Mbps"], "o-", label=mode)
    lim = float(t["requested_Mbps"].max()) if len(t) else 1.0
    a.plot([0, lim], [0, lim], "k:", label="ideal")
    a.set_xlabel("requested rate (Mb/s)")
    a.set_ylabel("achieved rate (Mb/s)")
    a.legend()
    for (mode, rate), g in result.gaps.items():
        if g.size:
            ideal = size_bytes * 8 * 1e9 / rate
            xs = np.sort(g / ideal)
            b.plot(xs, np.arange(1, xs.size + 1) / xs.size, label=f"{mode} {rate / 1e6:g} Mb/s")
    b.axvline(1.0, color="k", linestyle=":", label="ideal gap")
    b.set_xscale("log")
    b.set_xlabel("inter-packet gap / ideal gap")
    b.set_ylabel("CDF")
    b.legend(fontsize=7)
    fig.suptitle("Pacing on this host's veth (software path only, not NIC timing)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
