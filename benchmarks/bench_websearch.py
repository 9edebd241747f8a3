"""Many short flows against a few long ones: engine packet-hops per second of web search at 30 % load for 100 ms
(scenarios/bench-k8-websearch.toml: about 2,560 flows, 4 KB to 28.6 MB) beside the k = 8 permutation of 128 x 10 MB
(scenarios/bench-k8-permutation.toml, the same fabric and TCP), measured in the same run, and their ratio.

The target (issue 30): web search within 20 % of the permutation, a ratio of at least 0.8. Each case runs in its
own process (bench_engine.run_case); rates use the engine's own wall time (summary.wall_s). The machine may be
shared, so the permutation runs before and after the web-search cases and the ratio is to the mean of its two
rates (both are printed). Web search runs until its last flow completes (no run.stop_time): flows arrive over the
first 100 ms and the last ones drain after. The full run adds scenarios/websearch-k8.toml (ECMP, 1 us links) with
duration 100 ms; `--quick` (or GREENDCN_BENCH_QUICK=1) leaves it out."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from bench_engine import run_case  # noqa: E402
from benchcommon import is_quick  # noqa: E402

PERMUTATION = ROOT / "scenarios" / "bench-k8-permutation.toml"
WEBSEARCH = ROOT / "scenarios" / "bench-k8-websearch.toml"
QUICK_CASES = [("web search 30 %, 100 ms, same fabric", WEBSEARCH, [])]
CASES = QUICK_CASES + [
    (
        "web search 30 %, 100 ms, websearch-k8.toml (ECMP, 1 us)",
        ROOT / "scenarios" / "websearch-k8.toml",
        ["workload.duration=100ms"],
    )
]


def line(name: str, s: dict) -> str:
    wall = s["wall_s"]
    return (
        f"{name}: flows {s['completed']}/{s['flows']} completed, simulated {s['sim_time_s'] * 1e3:.1f} ms, "
        f"engine wall {wall:.2f} s, events {s['events']}, {s['events'] / wall / 1e6:.2f} M events/s, "
        f"packet-hops {s['packet_hops']}, {s['packet_hops'] / wall / 1e6:.2f} M packet-hops/s"
    )


def main(argv: list[str] | None = None) -> None:
    quick = is_quick(argv)
    before = permutation("before")
    if before is None:
        return
    results = []
    for name, scenario, overrides in QUICK_CASES if quick else CASES:
        s = run_case(overrides, scenario=scenario)
        if s is None:
            print(f"{name}: did not finish within the time limit")
            continue
        print(line(name, s), flush=True)
        results.append((name, s["packet_hops"] / s["wall_s"]))
    after = permutation("after")
    base_rate = before if after is None else (before + after) / 2
    print(f"k=8 permutation, mean: {base_rate / 1e6:.2f} M packet-hops/s")
    for name, rate in results:
        ratio = rate / base_rate
        verdict = "meets" if ratio >= 0.8 else "misses"
        print(f"{name}: packet-hops/s ratio to the permutation {ratio:.2f} ({verdict} the 0.8 target)")


def permutation(when: str) -> float | None:
    """Run the k = 8 permutation once, print its line and return its packet-hops per engine wall second."""
    s = run_case([], scenario=PERMUTATION)
    if s is None:
        print(f"k=8 permutation ({when}): did not finish within the time limit")
        return None
    print(line(f"k=8 permutation, 128 x 10 MB ({when})", s), flush=True)
    return s["packet_hops"] / s["wall_s"]


if __name__ == "__main__":
    main()
