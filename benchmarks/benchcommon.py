"""What the benchmarks share: the quick switch (`--quick` on the command line or GREENDCN_BENCH_QUICK=1, which
`benchmarks/run.py --quick` sets) and the engine's `run_spec` example, built in release mode before use."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

__all__ = ["ROOT", "RUN_SPEC", "is_quick", "run_spec_runner"]

ROOT = Path(__file__).resolve().parent.parent
RUN_SPEC = ROOT / "target" / "release" / "examples" / "run_spec"  # run_spec_runner() builds it


def is_quick(argv: list[str] | None = None) -> bool:
    """Whether to run the smaller cases: `--quick` in `argv` (default: the command line) or
    GREENDCN_BENCH_QUICK=1 in the environment."""
    args = argv if argv is not None else sys.argv[1:]
    return "--quick" in args or os.environ.get("GREENDCN_BENCH_QUICK") == "1"


def run_spec_runner() -> Path:
    """crates/engine/examples/run_spec.rs built (release; quick when it is up to date), and its path."""
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "greendcn-engine", "--example", "run_spec"],
        cwd=ROOT,
        check=True,
    )
    return RUN_SPEC
