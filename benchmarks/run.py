"""Run every benchmark (benchmarks/bench_*.py, each with a `main()` that prints figures with units).

`python benchmarks/run.py [--quick] [NAME ...]` runs only the named ones (e.g. `engine`); `--quick` is the same as
GREENDCN_BENCH_QUICK=1 (smaller cases, for a first look). Figures go to stdout and each benchmark may also write
JSON under out/bench/. Record the figures in BENCHMARKS.md with the machine."""

from __future__ import annotations

import importlib.util
import os
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    if "--quick" in argv:
        os.environ["GREENDCN_BENCH_QUICK"] = "1"
    wanted = {a for a in argv if a != "--quick"}
    unknown = [a for a in wanted if a.startswith("-")]
    if unknown:
        print(f"error: unknown option {unknown[0]} (the only option is --quick)", file=sys.stderr)
        return 2
    files = sorted(HERE.glob("bench_*.py"))
    if wanted:
        missing = sorted(wanted - {f.stem.removeprefix("bench_") for f in files})
        if missing:
            names = ", ".join(f.stem.removeprefix("bench_") for f in files)
            print(f"error: no benchmark named {missing[0]} (there are: {names})", file=sys.stderr)
            return 2
        files = [f for f in files if f.stem.removeprefix("bench_") in wanted]
    print(
        f"# machine: {platform.machine()}, {platform.processor() or 'cpu'}, "
        f"{len(os.sched_getaffinity(0))} cores, Python {platform.python_version()}"
    )
    failed = 0
    for f in files:
        print(f"\n## {f.stem.removeprefix('bench_')}", flush=True)
        spec = importlib.util.spec_from_file_location(f.stem, f)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        t0 = time.perf_counter()
        try:
            spec.loader.exec_module(module)
            module.main()
        except Exception as e:  # keep going: one broken benchmark must not hide the others
            failed += 1
            print(f"FAILED: {type(e).__name__}: {e}", flush=True)
        print(f"(benchmark wall time: {time.perf_counter() - t0:.1f} s)", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
