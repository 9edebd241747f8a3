"""Start-up of the `greendcn` command, whole processes: the interpreter alone, importing the three libraries every
simulation needs (typer, numpy, pydantic: the floor under any `simulate`), `greendcn --help` and a one-flow
`greendcn simulate` (scenarios/bench-one-flow.toml at k = 4), each run several times in turn.

Per case: median wall and CPU seconds (user + system) and peak memory (ru_maxrss) over the runs, against the
targets of the work that set them (`--help` under 0.25 s, one flow under 0.5 s). On a busy machine wall times
swing with the load; CPU is the steadier figure. `GREENDCN_BENCH_QUICK=1` runs each case 3 times instead of 7.
`python benchmarks/bench_startup.py --callgrind` counts each case's instructions under valgrind instead
(one run each, a minute or two per case; the same count whatever the load, for before/after comparisons)."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchcommon import is_quick  # noqa: E402

ONE = Path(__file__).resolve().parent.parent / "scenarios" / "bench-one-flow.toml"
CASES = [
    ("interpreter (python -c pass)", ["-c", "pass"], ""),
    ("typer + numpy + pydantic imported", ["-c", "import typer, numpy, pydantic.main"], ""),
    ("greendcn --help", ["-m", "greendcn", "--help"], "wall < 0.25 s"),
    (
        "one-flow simulate (k=4)",
        ["-m", "greendcn", "simulate", str(ONE), "--set", "topology.k=4"],
        "wall < 0.5 s",
    ),
]
# as the command runs them (greendcn/cli.py sets both when they are unset)
ENV = {**os.environ, "TYPER_USE_RICH": "0", "PYDANTIC_DISABLE_PLUGINS": "1"}


def timed(args: list[str]) -> tuple[float, float, float]:
    """One whole process: wall and CPU seconds and peak memory (MB), from the kernel's accounting."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise RuntimeError(f"{' '.join(args)} failed: {err.strip()[-300:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def instructions(args: list[str]) -> int:
    """Instructions of one whole process (valgrind's callgrind, its `Collected` total)."""
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, *args],
        capture_output=True,
        text=True,
        env=ENV,
        check=True,
    )
    (line,) = [x for x in out.stderr.splitlines() if "Collected" in x]
    return int(line.split()[-1])


def main() -> None:
    if "--callgrind" in sys.argv:
        if shutil.which("valgrind") is None:
            raise RuntimeError("--callgrind needs valgrind on the PATH")
        for name, args, _target in CASES:
            timed(args)  # bytecode compiled and cached before counting
            print(f"{name}: {instructions(args) / 1e6:,.0f} M instructions", flush=True)
        return
    runs = 3 if is_quick() else 7
    for _name, args, _target in CASES:
        timed(args)  # warm-up: bytecode compiled and cached, files in the page cache
    figures: dict[str, list[tuple[float, float, float]]] = {name: [] for name, _a, _t in CASES}
    for _ in range(runs):  # the cases in turn, so that a change of load touches them all alike
        for name, args, _target in CASES:
            figures[name].append(timed(args))
    for name, _args, target in CASES:
        wall, cpu, peak = (statistics.median(f[i] for f in figures[name]) for i in range(3))
        aim = f" (target: {target})" if target else ""
        print(f"{name}: wall {wall:.3f} s, cpu {cpu:.3f} s, peak {peak:.0f} MB, median of {runs}{aim}")


if __name__ == "__main__":
    main()
