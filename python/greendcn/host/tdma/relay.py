"""Indirection A -> B -> C: A sends GRE-encapsulated probe packets to B, which strips the 4-byte GRE header in
user space and forwards the inner packet to C (kernel GRE is absent on this machine kind).

The analogue of seed 001's Fig 3.13 (forwarding latency with GRE, quartiles and 0.1/99.9 percentiles, loss vs
rate; lines 1219 and 1361), on veth: latency is C's kernel receive time minus A's send time, on the one
clock the three namespaces share. It measures this host's software relay, not a NIC's."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm import tqdm

from ...core.errors import GreendcnError, InputError
from .binaries import RECEIVER, binary
from .hostlock import exclusive_host
from .netns import Namespaces
from .probe import BASE_PORT, ProbeConfig, _finish, _sender_argv, _wait_ready, default_cpus
from .records import load_records
from .schedule import Schedule

__all__ = ["LATENCY_LEVELS", "RelayPoint", "relay_sweep", "run_relay"]

LATENCY_LEVELS = (0.1, 25, 50, 75, 99.9)  # the box and whiskers of Fig 3.13 (seed 001, line 1361)


@dataclass
class RelayPoint:
    rate_bps: int
    sent: int
    delivered: int
    relayed: int
    latency_ns: dict[str, float]
    drops_at_c: int = 0  # lost in C's socket queue: the measuring end, not the relay

    @property
    def loss_share(self) -> float:
        return 1 - self.delivered / self.sent if self.sent else float("nan")


def run_relay(
    rate_bps: int, size_bytes: int = 1472, duration_ns: int = 300_000_000, burst: int = 1
) -> RelayPoint:
    """Send paced GRE packets A -> B (relay) -> C for `duration_ns` and measure what reaches C."""
    if rate_bps <= 0:
        raise InputError("rate: must be positive", hint="for example --rates 100Mbps,500Mbps")
    period = 1_000_000
    sched = Schedule(period_ns=period, uptime_ns=period, slots=max(20, duration_ns // period))
    cfg = ProbeConfig(sched, size_bytes=size_bytes, burst=burst, rate_bps=rate_bps, gre=True)
    send_cpu, relay_cpu = default_cpus()
    with (
        Namespaces(["a", "b", "c"], [("a", "b"), ("b", "c")]) as ns,
        exclusive_host(),
        tempfile.TemporaryDirectory(prefix="gdn-tdma-") as tmp,
    ):
        b_in, c_in = f"{ns.addr[('b', 'a')]}:{BASE_PORT}", f"{ns.addr[('c', 'b')]}:{BASE_PORT}"
        start = -(-(time.time_ns() + 150_000_000) // period) * period
        until = start + sched.slots * period + 50_000_000
        log = Path(tmp) / "c.log"
        pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
        recv_c = ns.run(
            "c",
            [
                str(binary(RECEIVER)),
                "--listen",
                c_in,
                "--out",
                str(log),
                "--until-ns",
                str(until + 10_000_000),
                "--fifo",
                "11",
            ],
            **pipes,
        )  # above sender and relay
        relay_b = ns.run(
            "b",
            [
                str(binary(RECEIVER)),
                "--listen",
                b_in,
                "--relay-to",
                c_in,
                "--until-ns",
                str(until),
                "--cpu",
                str(-1 if relay_cpu is None else relay_cpu),
                "--fifo",
                "10",
            ],
            **pipes,
        )  # the relay is real-time like the sender (our choice)
        procs = [recv_c, relay_b]
        try:
            _wait_ready(recv_c, "receiver C")
            _wait_ready(relay_b, "relay B")
            s = sched.with_(start_ns=start)
            sender = ns.run("a", _sender_argv(cfg, s, 0, [b_in], send_cpu), **pipes)
            procs.append(sender)
            budget = (until - time.time_ns()) / 1e9 + 30
            sent = _finish(sender, "sender A", budget)
            relayed = _finish(relay_b, "relay B", budget)
            got = _finish(recv_c, "receiver C", budget)
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
        rec = load_records(log)
    if got["received"] and not sent["data_sent"]:
        raise GreendcnError(
            "receiver C got packets the sender did not count", hint="rebuild with `make build`"
        )
    lat = rec["rx_ns"].astype(np.int64) - rec["send_ns"].astype(np.int64)
    pct = (
        {
            f"p{q:g}".replace(".", "_"): float(v)
            for q, v in zip(LATENCY_LEVELS, np.percentile(lat, LATENCY_LEVELS))
        }
        if lat.size
        else {}
    )
    if lat.size:
        pct["max"] = float(lat.max())
    return RelayPoint(
        rate_bps,
        int(sent["data_sent"]),
        int(rec.size),
        int(relayed["relayed"]),
        pct,
        int(got["socket_drops"]),
    )


def relay_sweep(
    rates_bps: list[int],
    size_bytes: int = 1472,
    duration_ns: int = 300_000_000,
    out_dir: Path | None = None,
    progress: bool = True,
) -> tuple[pd.DataFrame, Path | None, Path | None]:
    rows = []
    for r in tqdm(rates_bps, desc="relay", unit="run", file=sys.stderr, disable=not progress, leave=False):
        p = run_relay(r, size_bytes, duration_ns)
        rows.append(
            {
                "offered_Mbps": r / 1e6,
                "sent": p.sent,
                "relayed": p.relayed,
                "delivered": p.delivered,
                "loss_share": p.loss_share,
                "drops_at_c": p.drops_at_c,
                **{f"latency_{k}_us": v / 1e3 for k, v in p.latency_ns.items()},
            }
        )
    table = pd.DataFrame(rows)
    csv = png = None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        csv = out_dir / "tdma_relay.csv"
        table.to_csv(csv, index=False)
        png = _plot(table, out_dir / "tdma_relay.png")
    return table, csv, png


def _plot(table: pd.DataFrame, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    x = table["offered_Mbps"]
    if "latency_p50_us" in table:
        a.fill_between(x, table["latency_p0_1_us"], table["latency_p99_9_us"], alpha=0.2, label="p0.1-p99.9")
        a.fill_between(x, table["latency_p25_us"], table["latency_p75_us"], alpha=0.4, label="p25-p75")
        a.plot(x, table["latency_p50_us"], "o-", label="median")
    a.set_yscale("log")
    a.set_xlabel("offered rate (Mb/s)")
    a.set_ylabel("A->B->C latency (us)")
    a.legend()
    b.plot(x, table["loss_share"], "o-")
    b.set_xlabel("offered rate (Mb/s)")
    b.set_ylabel("loss share")
    fig.suptitle("User-space GRE relay over veth (this host's software, not NIC forwarding)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
