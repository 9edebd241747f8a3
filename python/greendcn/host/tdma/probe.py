"""One probe run: virtual hosts in a sender namespace, a timestamping receiver in another, joined by veth.

`run_probe(ProbeConfig(...))` creates the namespaces, starts the receiver (one UDP port per virtual host and
destination), starts one pinned native sender per virtual host on a shared start time, waits, removes the
namespaces and returns the records and the measurements."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ...core.errors import GreendcnError, InputError
from .binaries import RECEIVER, SENDER, binary
from .hostlock import exclusive_host
from .metrics import Metrics, measure
from .netns import Namespaces
from .records import load_records
from .schedule import Schedule

__all__ = ["BASE_PORT", "ProbeConfig", "ProbeRun", "default_cpus", "run_probe"]

BASE_PORT = 9000
PREFIX_TMP = "gdn-tdma-"  # temporary folders carry the same prefix as the namespaces
_START_MARGIN_NS = 150_000_000  # time for `ip netns exec` and process start before slot 0


def default_cpus() -> tuple[int | None, int | None]:
    """(sender CPU, receiver CPU): the last allowed CPU sends, the first receives, when there are two."""
    cpus = sorted(os.sched_getaffinity(0))
    return cpus[-1], (cpus[0] if len(cpus) > 1 else None)


def sender_cpu(v: int, first: int | None) -> int | None:
    """CPU of virtual host v: the first sender gets `first`, the others go round the allowed CPUs downwards.

    Two SCHED_FIFO senders of equal priority on one CPU would starve each other, so we spread them (our
    choice); with more virtual hosts than CPUs they share, as the sweep over virtual hosts then shows."""
    if first is None:
        return None
    cpus = sorted(os.sched_getaffinity(0))
    i = cpus.index(first) if first in cpus else len(cpus) - 1
    return cpus[(i - v) % len(cpus)]


@dataclass(frozen=True)
class ProbeConfig:
    schedule: Schedule
    vhosts: int = 1
    size_bytes: int = 1472  # UDP payload; 1472 fills a 1500-byte IP packet
    burst: int = 8  # seed 001 line 1320 uses bursts of 8 for its TDMA runs
    rate_bps: int = 0  # in-slot pacing per virtual host; 0 sends as fast as the host can
    demand_pkts: int = 0  # data packets per slot; 0 means infinite demand
    pad_bytes: int = 0  # padding packets complete a burst when demand runs out; 0 disables them
    sender_cpu: int | None = None
    receiver_cpu: int | None = None
    # tc commands for the sender's veth (arguments after `tc`, "{dev}" stands for the device), run in order
    tc: tuple[tuple[str, ...], ...] = field(default_factory=tuple)
    gre: bool = False
    fifo_priority: int = 10  # SCHED_FIFO for the sender (our choice; 0 = ordinary scheduling), see sys.rs

    def __post_init__(self) -> None:
        if self.vhosts < 1:
            raise InputError(
                f"vhosts: need at least one virtual host, got {self.vhosts}", hint="for example --vhosts 1"
            )
        if not 40 <= self.size_bytes <= 65000:
            raise InputError(
                f"size: {self.size_bytes} B is outside 40..65000 bytes",
                hint="the payload holds a 40-byte probe header; for example --size 1472B",
            )
        if self.burst < 1:
            raise InputError("burst: must be at least 1 packet", hint="for example --burst 8")
        if self.pad_bytes and not 40 <= self.pad_bytes <= 65000:
            raise InputError(
                f"pad: {self.pad_bytes} B is outside 40..65000 bytes", hint="for example --pad 128B"
            )
        allowed = sorted(os.sched_getaffinity(0))
        for name, cpu in (("sender-cpu", self.sender_cpu), ("receiver-cpu", self.receiver_cpu)):
            if cpu is not None and cpu not in allowed:
                raise InputError(
                    f"{name}: CPU {cpu} is not one this process may run on",
                    hint=f"choose one of {', '.join(map(str, allowed))}",
                )


@dataclass
class ProbeRun:
    config: ProbeConfig
    schedule: Schedule  # with the start time actually used
    records: np.ndarray
    metrics: Metrics
    senders: list[dict]
    receiver: dict


def _sender_argv(cfg: ProbeConfig, s: Schedule, v: int, dests: list[str], cpu: int | None) -> list[str]:
    return [
        str(binary(SENDER)),
        "--dest",
        ",".join(dests),
        "--start-ns",
        str(s.start_ns),
        "--period-ns",
        str(s.period_ns),
        "--uptime-ns",
        str(s.uptime_ns),
        "--guard-ns",
        str(s.guard_ns),
        "--prealloc-ns",
        str(s.prealloc_ns),
        "--slots",
        str(s.slots),
        "--size",
        str(cfg.size_bytes),
        "--burst",
        str(cfg.burst),
        "--rate-bps",
        str(cfg.rate_bps),
        "--demand",
        str(cfg.demand_pkts),
        "--pad-size",
        str(cfg.pad_bytes),
        "--cpu",
        str(-1 if cpu is None else cpu),
        "--vhost",
        str(v),
        "--gre",
        "1" if cfg.gre else "0",
        "--fifo",
        str(cfg.fifo_priority),
    ]


def _wait_ready(proc: subprocess.Popen, what: str, timeout_s: float = 10.0) -> None:
    assert proc.stderr is not None
    line = proc.stderr.readline()
    while line.startswith("warning:"):  # pass the binary's warnings on, then expect "ready"
        print(line.rstrip(), file=sys.stderr)
        line = proc.stderr.readline()
    if line.strip() != "ready":
        proc.kill()
        rest = line + (proc.stderr.read() or "")
        raise GreendcnError(
            f"{what} did not start: {rest.strip() or 'no message'}",
            hint="run `make build` again; check that the ports are free",
        )


def _finish(proc: subprocess.Popen, what: str, timeout_s: float) -> dict:
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise GreendcnError(
            f"{what} did not finish within {timeout_s:.0f} s",
            hint="the machine may be overloaded; try a shorter --duration",
        ) from None
    if proc.returncode:
        raise GreendcnError(
            f"{what} failed (exit {proc.returncode}): {(err or '').strip()}",
            hint="see the message above; `make build` rebuilds the probe",
        )
    try:
        return json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise GreendcnError(f"{what} printed no summary: {out!r}", hint="rebuild with `make build`") from None


def run_probe(cfg: ProbeConfig, log_path: Path | None = None) -> ProbeRun:
    """Run the schedule once over veth and measure it. `log_path` keeps the raw receiver log."""
    s = cfg.schedule
    d = s.destinations
    send_cpu, recv_cpu = default_cpus()
    send_cpu = cfg.sender_cpu if cfg.sender_cpu is not None else send_cpu
    recv_cpu = cfg.receiver_cpu if cfg.receiver_cpu is not None else recv_cpu
    # The lock comes after the namespaces, whose setup checks the capabilities and says what is missing.
    with (
        Namespaces(["tx", "rx"], [("tx", "rx")]) as ns,
        exclusive_host(),
        tempfile.TemporaryDirectory(prefix=PREFIX_TMP) as tmp,
    ):
        for args in cfg.tc:
            argv = [a.replace("{dev}", ns.dev[("tx", "rx")]) for a in args]
            r = ns.check("tx", ["tc", *argv])
            if r.returncode:
                raise GreendcnError(
                    f"`tc {' '.join(argv)}` failed: {r.stderr.strip()}",
                    hint="`greendcn host tdma pacing --list` shows the qdiscs this kernel has",
                )
        rx_addr = ns.addr[("rx", "tx")]
        ports = [BASE_PORT + i for i in range(cfg.vhosts * d)]
        now = time.time_ns()
        start = -(-(now + _START_MARGIN_NS + s.prealloc_ns) // s.period_ns) * s.period_ns
        s = replace(s, start_ns=start)
        until = start + s.slots * s.period_ns + 50_000_000
        log = Path(tmp) / "rx.log"
        recv = ns.run(
            "rx",
            [
                str(binary(RECEIVER)),
                "--listen",
                ",".join(f"{rx_addr}:{p}" for p in ports),
                "--out",
                str(log),
                "--until-ns",
                str(until),
                "--cpu",
                str(-1 if recv_cpu is None else recv_cpu),
                # Above the senders: a receiver that shares a CPU with a spinning sender must still
                # drain its socket, or the run measures socket drops instead of timing.
                "--fifo",
                str(min(cfg.fifo_priority + 1, 99) if cfg.fifo_priority else 0),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        senders = []
        try:
            _wait_ready(recv, "the receiver")
            if time.time_ns() > start - 20_000_000:
                raise GreendcnError(
                    "the receiver took too long to start; slot 0 would already have begun",
                    hint="the machine is overloaded; try again",
                )
            for v in range(cfg.vhosts):
                dests = [f"{rx_addr}:{BASE_PORT + v * d + j}" for j in range(d)]
                senders.append(
                    ns.run(
                        "tx",
                        _sender_argv(cfg, s, v, dests, sender_cpu(v, send_cpu)),
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                    )
                )
            budget = (until - time.time_ns()) / 1e9 + 30
            sent = [_finish(p, f"sender {i}", budget) for i, p in enumerate(senders)]
            got = _finish(recv, "the receiver", budget)
        finally:
            for p in [recv, *senders]:
                if p.poll() is None:
                    p.kill()
                    p.wait()
        records = load_records(log)
        if log_path is not None:
            Path(log_path).parent.mkdir(parents=True, exist_ok=True)
            Path(log_path).write_bytes(records.tobytes())
    if cfg.fifo_priority and any(x.get("fifo", 0) == 0 for x in sent):
        print(
            "warning: the sender could not use SCHED_FIFO (no CAP_SYS_NICE?); timing includes "
            "ordinary scheduling delays",
            file=sys.stderr,
        )
    ideal = cfg.size_bytes * 8 * 1e9 / cfg.rate_bps if cfg.rate_bps else None
    m = measure(
        records, s, vhosts=cfg.vhosts, data_sent=sum(x["data_sent"] for x in sent), ideal_gap_ns=ideal
    )
    return ProbeRun(cfg, s, records, m, sent, got)
