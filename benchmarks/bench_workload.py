"""Workload generation: 1,000,000 web-search flows with Poisson arrivals on 648 endpoints (a leaf-spine of 108
racks x 6 hosts at 10 Gbps, the public Opera simulator's host count) at 30 % load, uniform pairs. Reports the
generation's wall time (best and median of 3), its peak memory (numpy's allocations traced, and the whole
process's peak RSS in a fresh interpreter), writing the CSV, and the conversion to the run path's Flow list.

`python benchmarks/run.py workload`; `--quick` (or GREENDCN_BENCH_QUICK=1) makes 100,000 flows."""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchcommon import is_quick  # noqa: E402

TOPOLOGY = {"kind": "leafspine", "leaves": 108, "spines": 6, "hosts_per_leaf": 6, "link_rate": "10Gbps"}
TARGET = 1_000_000

CHILD = """
import resource, sys, time
from greendcn.sim.scenario import scenario_from_dict
from greendcn.sim.workload.generate import GenContext, generate_table
sc = scenario_from_dict({"topology": %r, "workload": %r})
before = [int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmRSS:")][0]
t = generate_table(sc.workload, GenContext.of(sc.topology, 648), 1)
print(len(t), before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _workload(flows: int) -> dict:
    from greendcn.sim.workload.distributions import load_distribution

    mean = load_distribution("websearch").mean("points")
    rate = 0.3 * 648 * 10e9 / 8 / mean  # flows per second at 30 % of every host's 10 Gbps
    return {"kind": "poisson", "sizes": "websearch", "load": 0.3, "duration": f"{flows / rate:.6f}s"}


def main(argv: list[str] | None = None) -> None:
    from greendcn.sim.scenario import scenario_from_dict
    from greendcn.sim.workload.generate import GenContext, generate_table

    quick = is_quick(argv)
    flows = TARGET // 10 if quick else TARGET
    w = _workload(flows)
    sc = scenario_from_dict({"topology": TOPOLOGY, "workload": w})
    ctx = GenContext.of(sc.topology, 648)
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        table = generate_table(sc.workload, ctx, 1)
        times.append(time.perf_counter() - t0)
    tracemalloc.start()
    generate_table(sc.workload, ctx, 1)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"web search, 30 % load, 648 endpoints, duration {w['duration']}: {len(table):,} flows")
    print(
        f"generate: best {min(times):.3f} s, median {statistics.median(times):.3f} s "
        f"({len(table) / min(times) / 1e6:.2f} M flows/s); peak traced allocations {peak / 2**20:.0f} MiB"
    )
    out = subprocess.run(
        [sys.executable, "-c", CHILD % (TOPOLOGY, w)], capture_output=True, text=True, check=True
    ).stdout.split()
    print(
        f"fresh interpreter: peak RSS {int(out[2]) / 1024:.0f} MiB after generating "
        f"({int(out[1]) / 1024:.0f} MiB resident before it: Python, numpy, pydantic and greendcn's imports)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        table.write_csv(Path(tmp) / "flows.csv", [f"S{i}" for i in range(648)])
        wrote = time.perf_counter() - t0
        size = (Path(tmp) / "flows.csv").stat().st_size
    print(f"write CSV: {wrote:.3f} s ({size / 2**20:.0f} MiB)")
    t0 = time.perf_counter()
    table.to_flows()
    print(f"to Flow list (the run path today): {time.perf_counter() - t0:.3f} s")


if __name__ == "__main__":
    main()
