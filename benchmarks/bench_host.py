"""Benchmarks of greendcn.host: a 48-CPU tree's discovery, planning, the controller's cost per sample."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from greendcn.host.actuators import LogActuator
from greendcn.host.control import ControlConfig, RateController, SysfsCounters
from greendcn.host.fake import build_tree, table1_machine
from greendcn.host.plan import make_plan
from greendcn.host.sysfs import SysRoot
from greendcn.host.topology import discover


def _best(func, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        root = build_tree(Path(d) / "t", table1_machine())
        t = _best(lambda: discover(root), 5)
        print(f"discover, seed 000 Table I tree (48 CPUs, 48 cpufreq policies, 6 NICs): {t * 1e3:.1f} ms")
        topo = discover(root)
        ports = [f"enp3s0f{i}" for i in range(4)]
        t = _best(lambda: make_plan(topo, ports, 2), 20)
        print(f"plan, 4 ports x 2 cores: {t * 1e3:.2f} ms")
        ctl = RateController(
            {p: (2 * i + 4,) for i, p in enumerate(ports)},
            SysfsCounters(SysRoot(root)),
            LogActuator(),
            ControlConfig(dwell_s=0.0),
        )
        n = 500
        t0 = time.perf_counter()
        for k in range(n):
            ctl.step(float(k))
        per = (time.perf_counter() - t0) / n
        print(
            f"controller step, 4 ports read from sysfs files: {per * 1e6:.0f} us per sample "
            f"({per / 4 * 1e6:.0f} us per port)"
        )
    t = _best(lambda: discover("/"), 5)
    print(f"discover, this machine's /sys: {t * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
