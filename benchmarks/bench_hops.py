"""Cost per packet-hop at scale: the fat-tree permutation (scenarios/bench-k8-permutation.toml) at k = 8
(128 flows of 10 MB) and k = 32 (8,192 flows of 200 kB), the engine alone, in alternating runs.

The target (issue 34): k = 32 moves packets at no less than half k = 8's packet-hops per second, in the same
run, with a peak under 1 GB. Each case is crates/engine/examples/run_spec.rs on the spec `simulate` would build,
in its own process; the machine may be shared, so besides the engine's wall time each run reports the CPU time
of the run alone (`cpu_s`), which a busy machine disturbs far less, and the process's peak RSS. Printed: per
round both cases and the k = 32 / k = 8 ratio of packet-hops per CPU second, then the median ratio.
`--quick` (or GREENDCN_BENCH_QUICK=1) runs k = 16 with 100 kB flows instead of k = 32, one round."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchcommon import RUN_SPEC, is_quick, run_spec_runner  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "bench-k8-permutation.toml"
RUNNER = RUN_SPEC
SMALL = ("k = 8, 128 x 10 MB", [])
LARGE = ("k = 32, 8192 x 200 kB", ["topology.k=32", "workload.size=200KB"])
LARGE_QUICK = ("k = 16, 1024 x 100 kB", ["topology.k=16", "workload.size=100KB"])


def write_spec(overrides: list[str], path: Path) -> None:
    from greendcn.sim.run import build_spec
    from greendcn.sim.scenario import load_scenario
    from greendcn.sim.topology import build_topology
    from greendcn.sim.workload import build_workload

    sc = load_scenario(SCENARIO).with_overrides(overrides)
    net = build_topology(sc.topology)
    spec = build_spec(sc, net, build_workload(sc, net, sc.run.seed), sc.run.seed)
    path.write_text(json.dumps(spec))


def run(path: Path) -> dict:
    """The engine's summary, with the run's CPU seconds (`cpu_s`) and the process's peak RSS (`peak_rss_mb`)."""
    out = subprocess.run([str(RUNNER), str(path)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main(argv: list[str] | None = None) -> None:
    quick = is_quick(argv)
    run_spec_runner()  # built before the cases are timed
    cases = [SMALL, LARGE_QUICK if quick else LARGE]
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = [Path(tmp) / f"spec{i}.json" for i in range(len(cases))]
        for (_, overrides), path in zip(cases, paths):
            write_spec(overrides, path)
        for r in range(1 if quick else 3):
            rate = []
            for (name, _), path in zip(cases, paths):
                s = run(path)
                rate.append(s["packet_hops"] / s["cpu_s"])
                print(
                    f"round {r + 1}, {name}: packet-hops {s['packet_hops']}, engine wall {s['wall_s']:.2f} s "
                    f"({s['packet_hops'] / s['wall_s'] / 1e6:.2f} M packet-hops/s), run CPU {s['cpu_s']:.2f} s "
                    f"({rate[-1] / 1e6:.2f} M packet-hops per CPU s), peak RSS {s['peak_rss_mb']:.0f} MB, "
                    f"flows completed {s['flows_completed']}",
                    flush=True,
                )
            ratios.append(rate[1] / rate[0])
            print(f"round {r + 1}: {cases[1][0]} / {cases[0][0]} packet-hops per CPU s {ratios[-1]:.2f}")
    med = statistics.median(ratios)
    verdict = "meets" if med >= 0.5 else "misses"
    print(f"median ratio {med:.2f} ({verdict} the 0.5 target{', quick: k = 16' if quick else ''})")


if __name__ == "__main__":
    main()
