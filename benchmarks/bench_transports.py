"""Transports on the engine benchmark (scenarios/bench-k8-permutation.toml: k = 8 fat-tree, 10 Gb/s, 128 flows
of 10 MB): TCP, DCTCP and NDP in turn in the same process tree, each case in its own Python process, with the
engine's packet-hops per wall second (summary.wall_s, the time inside the engine). DCTCP acknowledges every
packet and NDP adds a NACK or ACK and a pull per packet, so compare packet-hops/s, not wall time.
`python benchmarks/bench_transports.py --quick` runs 1 MB flows."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_engine import run_case  # noqa: E402
from benchcommon import is_quick  # noqa: E402

CASES = [
    ("tcp", "transport.default=tcp"),
    ("dctcp", "transport.default=dctcp"),
    ("ndp", "transport.default=ndp"),
]


def main(argv: list[str] | None = None) -> None:
    quick = is_quick(argv)
    size = ["workload.size=1MB"] if quick else []
    base = None
    for name, override in CASES:
        s = run_case([override, *size])
        if s is None:
            print(f"{name}: did not finish within the time limit")
            continue
        rate = s["packet_hops"] / s["wall_s"]
        base = base or rate
        print(
            f"k=8, 128 x {'1' if quick else '10'} MB, {name}: engine wall {s['wall_s']:.2f} s, packet-hops "
            f"{s['packet_hops']}, {rate / 1e6:.2f} M packet-hops/s ({rate / base:.2f} x tcp), "
            f"flows completed {s['completed']}/{s['flows']}",
            flush=True,
        )


if __name__ == "__main__":
    main()
