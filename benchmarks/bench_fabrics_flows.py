"""Many flows through the fabric comparison, whole `greendcn fabrics` processes on 648 hosts (108 racks x 6
switches: Opera, RotorNet and three fat-trees): a flow file of 100,000 flows of 1,000 bytes (`--workload`, with
`--json`), and a load sweep of two loads of 1,000-byte flows (`--load 0.15,0.3`, 0.2 ms: about 25,000 and
49,000 flows, with `--json`), and one load point of 0.3 for 0.41 ms (about 100,000 flows), whose observation
window narrows the host-pricing windows to 10 us (1 ms and 0.41 ms have 10 us as greatest common divisor), so
RotorNet's 20 ms run is priced over about 2,000 windows x 648 hosts. The flows are tiny so that the figures are
mostly the front's: building and handing over the flows, reading the results, pricing and writing the JSON,
beside each engine's own work.

Per case: wall and CPU seconds and peak memory of the process (ru_maxrss). `GREENDCN_BENCH_QUICK=1` runs 10,000
flows and one load instead, without the 0.41 ms point."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_many_flows import GREENDCN, timed  # noqa: E402
from benchcommon import is_quick  # noqa: E402
from flowfile import write_flow_file  # noqa: E402

LAYOUT = ["--racks", "108", "--switches", "6"]


def main() -> None:
    quick = is_quick()
    n = 10_000 if quick else 100_000
    loads = "0.3" if quick else "0.15,0.3"
    duration = "0.05ms" if quick else "0.2ms"
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        flows = t / "flows.csv"
        write_flow_file(n, str(flows), 1000, hosts=648)
        sizes = t / "sizes.csv"  # 999-1,000 bytes: a CDF needs two rising sizes
        sizes.write_text("size_bytes,cumulative_probability\n999,0\n1000,1\n")
        cases = [
            (f"{n:,} flows from a file (--workload, --json)", ["--workload", str(flows)]),
            (
                f"load sweep {loads}, 1 kB flows for {duration} (--load, --json)",
                ["--load", loads, "--sizes", str(sizes), "--duration", duration],
            ),
        ]
        if not quick:
            cases.append(
                (
                    "load point 0.3, 1 kB flows for 0.41 ms, hosts priced over 10 us windows (--json)",
                    ["--load", "0.3", "--sizes", str(sizes), "--duration", "0.41ms"],
                )
            )
        for label, args in cases:
            f = timed([*GREENDCN, "fabrics", *args, *LAYOUT, "--json", str(t / "out.json")])
            print(
                f"{label} on 648 hosts: wall {f['wall_s']:.2f} s, cpu {f['cpu_s']:.2f} s, "
                f"peak {f['peak_mb']:.0f} MB"
            )


if __name__ == "__main__":
    main()
