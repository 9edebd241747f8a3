"""What Energy-Efficient Ethernet costs the engine: engine wall time on the k = 8 web-search benchmark
(scenarios/bench-k8-websearch.toml) with EEE off, on (10GBASE-T's Ts and Tw), and on with zero sleep and wake
times (the EEE code runs at every idle gap but every packet moves as with EEE off, so the events are the same
and the difference is the code's own cost).

The target (issue 33): EEE adds at most 10 % to the engine's wall time. The machine may be shared, so the cases
run in paired rounds, each round in a rotated order, every case in its own process (bench_engine.run_case);
the ratio of each round's on/off wall times is printed, and their median. Times are the engine's own
(summary.wall_s). `--quick` (or GREENDCN_BENCH_QUICK=1) runs one round instead of three."""

from __future__ import annotations

import os
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from bench_engine import run_case  # noqa: E402

WEBSEARCH = ROOT / "scenarios" / "bench-k8-websearch.toml"
CASES = {
    "off": [],
    "on": ["eee.enabled=true"],
    "on, zero times": ["eee.enabled=true", "eee.sleep=0", "eee.wake=0"],
}


def main(argv: list[str] | None = None) -> None:
    quick = (
        "--quick" in (argv if argv is not None else sys.argv[1:])
        or os.environ.get("GREENDCN_BENCH_QUICK") == "1"
    )
    rounds = 1 if quick else 3
    names = list(CASES)
    walls: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        order = names[r % len(names) :] + names[: r % len(names)]
        for name in order:
            s = run_case(CASES[name], scenario=WEBSEARCH)
            if s is None:
                print(f"round {r + 1}, EEE {name}: did not finish within the time limit")
                return
            walls[name].append(s["wall_s"])
            print(
                f"round {r + 1}, EEE {name}: engine wall {s['wall_s']:.2f} s, events {s['events']}, "
                f"{s['wall_s'] / s['events'] * 1e9:.0f} ns/event, simulated {s['sim_time_s'] * 1e3:.1f} ms, "
                f"flows {s['completed']}/{s['flows']}",
                flush=True,
            )
    for name in names[1:]:
        ratios = [on / off for on, off in zip(walls[name], walls["off"])]
        med = statistics.median(ratios)
        verdict = "meets" if med <= 1.10 else "misses"
        print(
            f"EEE {name} / off, engine wall per round: {', '.join(f'{x:.3f}' for x in ratios)}; "
            f"median {med:.3f} ({verdict} the 1.10 target)"
        )


if __name__ == "__main__":
    main()
