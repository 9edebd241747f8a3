"""Many flows end to end, whole `greendcn` processes (interpreter start-up included): 100,000 and 1,000,000 flows of
1,000 bytes on a k = 8 fat-tree read from a CSV file (benchmarks/flowfile.py writes it), the first with `--json`,
the second with `--parquet`; a million generated flows (`workload.kind = "count"`, 1,000 bytes, 1 % load) on the same
fabric with `--parquet`; `greendcn --help`; and a one-flow `simulate` (scenarios/bench-one-flow.toml at k = 4).

Per case: wall and CPU seconds, peak memory of the process (ru_maxrss), and for simulations the engine's own wall
time (summary.wall_s), against the targets of the work that set them (100,000 flows: under 2 s and 400 MB; a
million: under twice the engine's wall time plus 1 s, and under 2 GB; --help under 0.25 s; one flow under
0.5 s). `GREENDCN_BENCH_QUICK=1` leaves out the million."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from flowfile import write_flow_file  # noqa: E402
from benchcommon import is_quick  # noqa: E402

K8 = ROOT / "scenarios" / "bench-k8-permutation.toml"
ONE = ROOT / "scenarios" / "bench-one-flow.toml"
GENERATED = [
    *("--set", "workload.kind=count", "--set", "workload.count=1000000"),
    *("--set", "workload.load=0.01", "--set", "workload.size=1000B"),
]
GREENDCN = [sys.executable, "-m", "greendcn"]


def timed(argv: list[str]) -> dict[str, float]:
    """Run a whole process; its wall and CPU seconds and peak memory (MB), from the kernel's accounting."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(argv[3:])} failed: {err.strip()[-300:]}")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024}


def main() -> None:
    quick = is_quick()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        rows.append(("greendcn --help", timed([*GREENDCN, "--help"]), "wall < 0.25 s"))
        one = timed([*GREENDCN, "simulate", str(ONE), "--set", "topology.k=4"])
        rows.append(("one-flow simulate (k=4)", one, "wall < 0.5 s"))
        for n, out, target in [
            (100_000, "--json", "wall < 2 s, peak < 400 MB"),
            (1_000_000, "--parquet", ""),
            (-1_000_000, "--parquet", ""),  # generated, not read from a file
        ]:
            if quick and abs(n) > 100_000:
                continue
            dest = t / f"out{n}"
            if n > 0:
                flows = t / f"flows{n}.csv"
                write_flow_file(n, str(flows))
                workload = ["--flows", str(flows)]
            else:
                workload = GENERATED
            figures = timed([*GREENDCN, "simulate", str(K8), *workload, out, str(dest)])
            if out == "--json":
                engine = json.loads(dest.read_text())["summary"]["wall_s"]
            else:
                import pandas as pd

                engine = float(pd.read_parquet(dest / "summary.parquet")["wall_s"].iloc[0])
            figures["engine_wall_s"] = engine
            target = target or f"wall < 2 x engine + 1 s = {2 * engine + 1:.1f} s, peak < 2000 MB"
            what = f"{n:,} flows" if n > 0 else f"{-n:,} generated flows"
            rows.append((f"{what} x 1,000 B, k=8, {out}", figures, target))
    for name, f, target in rows:
        engine = f" engine {f['engine_wall_s']:.2f} s," if "engine_wall_s" in f else ""
        print(
            f"{name}: wall {f['wall_s']:.2f} s, cpu {f['cpu_s']:.2f} s,{engine} peak {f['peak_mb']:.0f} MB "
            f"(target: {target})"
        )


if __name__ == "__main__":
    main()
