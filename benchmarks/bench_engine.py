"""Engine speed on scenarios/bench-k8-permutation.toml (fat-trees of k = 8..48, 10 Gbps, a permutation of TCP
flows): wall time, simulated time, events, events/s, packet-hops per wall second and peak memory per case, and
the setup time of large fat-trees (one 1,000-byte flow: topology, routes, flows).

Each case runs in its own Python process so that ru_maxrss is that case's peak. `wall_s` is the time inside
the engine's run (summary.wall_s), so building the spec, the routes and the tables is not counted; `total`
is the whole `simulate` call. `python benchmarks/bench_engine.py --quick` (or GREENDCN_BENCH_QUICK=1) runs the
CI-sized cases only (k <= 16)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchcommon import is_quick  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "bench-k8-permutation.toml"

QUICK_CASES = [
    ("k=8, 128 x 10 MB", []),
    ("k=8, 128 x 1 MB", ["workload.size=1MB"]),
    ("k=16, 1024 x 1 MB", ["topology.k=16", "workload.size=1MB"]),
]
CASES = QUICK_CASES + [
    ("k=24, 3456 x 1 MB", ["topology.k=24", "workload.size=1MB"]),
    ("k=32, 8192 x 1 MB", ["topology.k=32", "workload.size=1MB"]),
    ("k=48, 27648 x 1 MB", ["topology.k=48", "workload.size=1MB"]),
]
# Setup of large trees: one 1,000-byte flow, so the time is topology, routes, spec and tables.
SETUP_SCENARIO = ROOT / "scenarios" / "bench-one-flow.toml"
SETUP_CASES = [(f"k={k} setup, one 1,000-byte flow", [f"topology.k={k}"]) for k in (32, 48)]

_CHILD = """
import json, resource, sys, time
from greendcn.sim import simulate
t0 = time.perf_counter()
res = simulate(sys.argv[1], overrides=sys.argv[2:])
s = res.summary
s["total_wall_s"] = time.perf_counter() - t0
s["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
s["completed"] = int(res.flows["fct_s"].notna().sum())
print(json.dumps(s))
"""


def run_case(overrides: list[str], timeout_s: float = 900, scenario: Path = SCENARIO) -> dict | None:
    try:
        out = subprocess.run(
            [sys.executable, "-c", _CHILD, str(scenario), *overrides],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:

    quick = is_quick(argv)
    print(
        f"scenario: {SCENARIO.relative_to(ROOT)} (single path, 1000-packet queues, MSS 1448, 128 KB window)"
    )
    for name, overrides in [] if quick else SETUP_CASES:
        s = run_case(overrides, scenario=SETUP_SCENARIO)
        if s is None:
            print(f"{name}: did not finish within the time limit")
            continue
        print(f"{name}: total {s['total_wall_s']:.2f} s, peak memory {s['peak_rss_mb']:.0f} MB", flush=True)
    for name, overrides in QUICK_CASES if quick else CASES:
        s = run_case(overrides)
        if s is None:
            print(f"{name}: did not finish within the time limit")
            continue
        wall = s["wall_s"]
        print(
            f"{name}: engine wall {wall:.2f} s, simulated {s['sim_time_s'] * 1e3:.2f} ms, events {s['events']}, "
            f"{s['events'] / wall / 1e6:.2f} M events/s, packet-hops {s['packet_hops']}, "
            f"{s['packet_hops'] / wall / 1e6:.2f} M packet-hops/s, peak memory {s['peak_rss_mb']:.0f} MB, "
            f"flows completed {s['completed']}/{s['flows']}, total wall {s['total_wall_s']:.2f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
