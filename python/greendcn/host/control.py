"""Seed 000's rate affinity as a controller: sample each port's rate from its interface counters and move the
port's cores between "working" and "idle" (seed 000 Algorithm 1 lines 16-23).

The paper says only "high" and "low" rate. Ours, with defaults in `ControlConfig`: two thresholds with a
hysteresis band between them, and a dwell time: a port goes idle only after its rate stayed below the low
threshold for `dwell_s`; it goes back to working at the first sample at or above the high threshold, since a
slowed poll loop drops packets while a spare fast one only wastes watts."""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..core.errors import GreendcnError, InputError
from ..core.units import format_rate
from ..core.userfile import read_text
from .actuators import Actuator
from .cpuset import parse_cpulist
from .sysfs import SysRoot, validate_ifname

__all__ = [
    "ControlConfig",
    "CounterReader",
    "Decision",
    "NetnsCounters",
    "RateController",
    "Sample",
    "SysfsCounters",
    "validate_netns",
]


class CounterReader(Protocol):
    def read(self, port: str) -> tuple[int, int]:
        """(rx_bytes, tx_bytes) of the interface."""
        ...


class SysfsCounters:
    """Reads <root>/sys/class/net/<port>/statistics: only interfaces of the namespace that mounted it."""

    def __init__(self, sys: SysRoot):
        self.sys = sys

    def read(self, port: str) -> tuple[int, int]:
        base = f"sys/class/net/{validate_ifname(port)}/statistics"
        rx, tx = self.sys.read_int(f"{base}/rx_bytes"), self.sys.read_int(f"{base}/tx_bytes")
        if rx is None or tx is None:
            raise GreendcnError(
                f"cannot read the byte counters of '{port}' under {self.sys.path(base)}",
                hint="is the interface in this network namespace? see --netns",
            )
        return rx, tx


def validate_netns(name: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9_.][A-Za-z0-9_.-]{0,254}", name or "") or name in (".", ".."):
        raise InputError(f"--netns: '{name}' is not a namespace name", hint="names from `ip netns list`")
    return name


class NetnsCounters:
    """Reads counters inside a named network namespace: `ip -n NS -j -s link` (argument list, no shell)."""

    def __init__(self, netns: str):
        self.netns = validate_netns(netns)

    def read(self, port: str) -> tuple[int, int]:
        argv = ["ip", "-n", self.netns, "-j", "-s", "link", "show", "dev", validate_ifname(port)]
        r = subprocess.run(argv, capture_output=True, text=True, timeout=10, check=False)
        if r.returncode != 0:
            raise GreendcnError(
                f"`{' '.join(argv)}` failed: {r.stderr.strip()}",
                hint="check the namespace and interface names (ip netns list)",
            )
        try:
            stats = json.loads(r.stdout)[0]["stats64"]
            return int(stats["rx"]["bytes"]), int(stats["tx"]["bytes"])
        except (ValueError, LookupError, TypeError):
            raise GreendcnError(
                f"`{' '.join(argv)}` gave no byte counters (stats64)",
                hint="iproute2 too old for -j -s? read the counters in the root namespace instead",
            ) from None


@dataclass(frozen=True)
class ControlConfig:
    high_bps: float = 1e9  # our default: 10 % of a 10 GbE port (the paper's ports, seed 000 line 223)
    low_bps: float = 0.5e9  # our default: half the high threshold, a wide band against flapping
    dwell_s: float = 5.0  # our default: five samples at the default interval
    interval_s: float = 1.0
    direction: str = "both"  # "rx", "tx" or "both" (the larger of the two rates)

    def check(self) -> None:
        if not self.interval_s > 0:
            raise InputError("--interval must be positive", hint="e.g. --interval 1s")
        if self.dwell_s < 0:
            raise InputError("--dwell must not be negative", hint="e.g. --dwell 5s")
        if not 0 <= self.low_bps < self.high_bps:
            raise InputError(
                f"--low-rate ({self.low_bps:g} b/s) must be below --high-rate ({self.high_bps:g} b/s)",
                hint="the band between them is the hysteresis, e.g. --low-rate 500Mbps --high-rate 1Gbps",
            )
        if self.direction not in ("rx", "tx", "both"):
            raise InputError(f"--direction: '{self.direction}' is not rx, tx or both", hint="use both")


@dataclass(frozen=True)
class Decision:
    t_s: float
    port: str
    rate_bps: float
    previous: str
    state: str
    reason: str
    actions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Sample:
    t_s: float
    port: str
    rate_bps: float
    state: str


@dataclass
class _PortState:
    cpus: tuple[int, ...]
    state: str = "working"
    last: tuple[float, int, int] | None = None  # (time, rx, tx) of the previous reading
    low_since: float | None = None  # start of the current run of samples below the low threshold


@dataclass
class RateController:
    ports: dict[str, tuple[int, ...]]
    reader: CounterReader
    actuator: Actuator
    config: ControlConfig = field(default_factory=ControlConfig)
    decisions: list[Decision] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.config.check()
        if not self.ports:
            raise InputError("no port to control", hint="pass --port NAME --cpus LIST, or --plan plan.json")
        for p in self.ports:
            validate_ifname(p, "--port")
        # Every port starts working, as after Algorithm 1's DVFS step (seed 000 lines 8-15).
        self._state = {p: _PortState(tuple(c)) for p, c in self.ports.items()}

    def state(self, port: str) -> str:
        return self._state[port].state

    def _rate(self, st: _PortState, now: float, rx: int, tx: int) -> float | None:
        last, st.last = st.last, (now, rx, tx)
        if last is None or now <= last[0]:
            return None
        drx, dtx = rx - last[1], tx - last[2]
        if drx < 0 or dtx < 0:  # counters reset (interface re-created): no rate for this interval
            return None
        dt = now - last[0]
        by = {"rx": drx, "tx": dtx, "both": max(drx, dtx)}[self.config.direction]
        return 8.0 * by / dt

    def step(self, now: float) -> list[Decision]:
        """Read every port's counters at time `now` (seconds) and decide; returns this step's decisions."""
        made = []
        cfg = self.config
        for port, st in self._state.items():
            prev_t = st.last[0] if st.last else now
            rx, tx = self.reader.read(port)
            rate = self._rate(st, now, rx, tx)
            if rate is None:
                continue
            self.samples.append(Sample(now, port, rate, st.state))
            if rate < cfg.low_bps:
                st.low_since = prev_t if st.low_since is None else st.low_since
            else:
                st.low_since = None
            new, reason = None, ""
            if st.state == "working" and st.low_since is not None and now - st.low_since >= cfg.dwell_s:
                new = "idle"
                reason = (
                    f"rate {format_rate(rate)} below the low threshold {format_rate(cfg.low_bps)} "
                    f"for {now - st.low_since:.3g} s (dwell {cfg.dwell_s:g} s)"
                )
            elif st.state == "idle" and rate >= cfg.high_bps:
                new = "working"
                reason = (
                    f"rate {format_rate(rate)} at or above the high threshold {format_rate(cfg.high_bps)}"
                )
            if new:
                actions = self.actuator.set_state(port, st.cpus, new)
                d = Decision(now, port, rate, st.state, new, reason, tuple(actions))
                st.state = new
                made.append(d)
        self.decisions.extend(made)
        return made

    def run(
        self,
        duration_s: float | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        on_decision: Callable[[Decision], None] | None = None,
        on_sample: Callable[[Sample], None] | None = None,
    ) -> None:
        """Sample every `interval_s` until `duration_s` has passed (None: until Ctrl-C). Times in the log are
        seconds since the start."""
        t0 = clock()
        self.step(0.0)
        k = 1
        try:
            while duration_s is None or k * self.config.interval_s <= duration_s + 1e-9:
                wait = t0 + k * self.config.interval_s - clock()
                if wait > 0:
                    sleep(wait)
                seen = len(self.samples)
                for d in self.step(clock() - t0):
                    if on_decision:
                        on_decision(d)
                if on_sample:
                    for s in self.samples[seen:]:
                        on_sample(s)
                # After a stall (a loaded machine), resume on the next tick instead of sampling in a burst.
                k = max(k + 1, int((clock() - t0) / self.config.interval_s) + 1)
        except KeyboardInterrupt:
            pass

    def to_json(self, actuator: str) -> dict[str, object]:
        """What `greendcn host control --json` writes: the configuration, every decision and every sample."""
        return {
            "config": {
                "high_rate_bps": self.config.high_bps,
                "low_rate_bps": self.config.low_bps,
                "dwell_s": self.config.dwell_s,
                "interval_s": self.config.interval_s,
                "direction": self.config.direction,
                "actuator": actuator,
            },
            "decisions": [
                {
                    "t_s": d.t_s,
                    "port": d.port,
                    "rate_bps": d.rate_bps,
                    "from": d.previous,
                    "to": d.state,
                    "reason": d.reason,
                    "actions": list(d.actions),
                }
                for d in self.decisions
            ],
            "samples": [
                {"t_s": s.t_s, "port": s.port, "rate_bps": s.rate_bps, "state": s.state} for s in self.samples
            ],
        }


def ports_from(port: list[str], plan_file: Path | None) -> tuple[dict[str, tuple[int, ...]], int | None]:
    """The ports to control and their CPUs, from a `plan --json` file and/or NAME:CPULIST specs; the main
    lcore from the plan file (None without one)."""
    ports: dict[str, tuple[int, ...]] = {}
    main = None
    if plan_file is not None:
        try:
            data = json.loads(read_text(plan_file, "--plan", kind="the JSON file of `greendcn host plan`"))
            for x in data["ports"]:
                ports[validate_ifname(x["port"], "--plan ports")] = tuple(int(c) for c in x["cpus"])
            main = data.get("main_lcore")
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise InputError(
                f"--plan: cannot read ports from {plan_file}: {e}",
                hint="pass the --json file written by `greendcn host plan`",
            ) from None
    for spec in port:
        name, sep, cpus = spec.partition(":")
        if not sep:
            raise InputError(
                f"--port: '{spec}' lacks its CPUs", hint="write NAME:CPULIST, e.g. --port eth1:2,4"
            )
        ports[validate_ifname(name, "--port")] = tuple(parse_cpulist(cpus, f"--port {name} CPUs"))
    return ports, main
