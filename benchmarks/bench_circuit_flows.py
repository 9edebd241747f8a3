"""Many generated flows on a circuit fabric, whole `greendcn simulate` processes: web-search flows
(`workload.kind = "count"`, 30 % load) on Opera's 648 hosts (scenarios/opera-paper-648.toml), stopped at 10 us
simulated, so the figures are the front's cost of handing the flows to the circuit engine and building the
result tables, not the engine's work. No output file is written.

Per case: wall and CPU seconds and peak memory of the process (ru_maxrss); the engine's own work is a few
hundredths of a second here. `GREENDCN_BENCH_QUICK=1` runs 100,000 flows instead of 1,000,000."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_many_flows import GREENDCN, timed  # noqa: E402
from benchcommon import ROOT, is_quick  # noqa: E402

OPERA = ROOT / "scenarios" / "opera-paper-648.toml"


def argv(n: int) -> list[str]:
    sets = [
        "workload.kind=count",
        f"workload.count={n}",
        "workload.load=0.3",
        "workload.sizes=websearch",
        "run.stop_time=10us",
    ]
    return [*GREENDCN, "simulate", str(OPERA), *(a for s in sets for a in ("--set", s))]


def main() -> None:
    for n in [100_000] if is_quick() else [100_000, 1_000_000]:
        f = timed(argv(n))
        print(
            f"{n:,} generated web-search flows on Opera (648 hosts, stop 10 us): wall {f['wall_s']:.2f} s, "
            f"cpu {f['cpu_s']:.2f} s, peak {f['peak_mb']:.0f} MB"
        )


if __name__ == "__main__":
    main()
