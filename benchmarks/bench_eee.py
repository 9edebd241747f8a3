"""What Energy-Efficient Ethernet costs the engine: the k = 8 web-search benchmark
(scenarios/bench-k8-websearch.toml) with EEE off, on (10GBASE-T's Ts and Tw), and on with zero sleep and wake
times (the EEE code runs at every idle gap but every packet moves as with EEE off: the same events, so the
difference is the code's own cost).

The target (issue 33): EEE adds at most 10 % to the engine's wall time. Each case is the engine alone
(crates/engine/examples/run_spec.rs on the spec `simulate` would build), in its own process; the machine may be
shared, so the cases run in paired rounds in a rotated order, and each run reports the engine's wall time
(summary.wall_s) and the process's user CPU time, which a busy machine disturbs far less. Printed: per round
the on/off ratios, and their medians. `--quick` (or GREENDCN_BENCH_QUICK=1) runs one round instead of four."""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchcommon import RUN_SPEC, is_quick, run_spec_runner  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
WEBSEARCH = ROOT / "scenarios" / "bench-k8-websearch.toml"
RUNNER = RUN_SPEC
CASES = {
    "off": [],
    "on": ["eee.enabled=true"],
    "on, zero times": ["eee.enabled=true", "eee.sleep=0", "eee.wake=0"],
}


def write_spec(overrides: list[str], path: Path) -> None:
    from greendcn.sim.engine import spec_json
    from greendcn.sim.run import build_spec
    from greendcn.sim.scenario import load_scenario
    from greendcn.sim.topology import build_topology
    from greendcn.sim.workload import build_workload

    sc = load_scenario(WEBSEARCH).with_overrides(overrides)
    net = build_topology(sc.topology)
    spec = build_spec(sc, net, build_workload(sc, net, sc.run.seed), sc.run.seed)
    path.write_text(spec_json(spec))


def run(path: Path) -> tuple[dict, float]:
    """The engine's summary and the user CPU seconds of its process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    out = subprocess.run([str(RUNNER), str(path)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout), resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before


def main(argv: list[str] | None = None) -> None:
    quick = is_quick(argv)
    run_spec_runner()  # built before the cases are timed
    names = list(CASES)
    wall: dict[str, list[float]] = {n: [] for n in names}
    cpu: dict[str, list[float]] = {n: [] for n in names}
    with tempfile.TemporaryDirectory() as tmp:
        paths = {n: Path(tmp) / f"spec{i}.json" for i, n in enumerate(names)}
        for n in names:
            write_spec(CASES[n], paths[n])
        for r in range(1 if quick else 4):
            for n in names[r % 3 :] + names[: r % 3]:
                s, user = run(paths[n])
                wall[n].append(s["wall_s"])
                cpu[n].append(user)
                print(
                    f"round {r + 1}, EEE {n}: engine wall {s['wall_s']:.2f} s, process user CPU {user:.2f} s, "
                    f"events {s['events']}, {user / s['events'] * 1e9:.0f} ns CPU/event",
                    flush=True,
                )
    for n in names[1:]:
        for what, t in (("engine wall", wall), ("user CPU", cpu)):
            ratios = [a / b for a, b in zip(t[n], t["off"])]
            med = statistics.median(ratios)
            print(
                f"EEE {n} / off, {what} per round: {', '.join(f'{x:.3f}' for x in ratios)}; median {med:.3f} "
                f"({'meets' if med <= 1.10 else 'misses'} the 1.10 target)"
            )


if __name__ == "__main__":
    main()
