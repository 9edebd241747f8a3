"""Engine memory per flow: the peak resident memory one `_native.run_columns` call adds to a fresh process, per
flow, for 100,000 and 1,000,000 flows of 1,000 bytes (one start per microsecond, random pairs of 128 hosts under
8 top-of-rack switches and a core, flows handed as column buffers, results returned as columns), all TCP and all
NDP; and the call's CPU seconds. What docs/engine-spec.md's "Memory per flow" counts, measured. `GREENDCN_BENCH_QUICK=1` leaves out
the million."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchcommon import is_quick  # noqa: E402


# The engine's transport codes (crates/py/src/columns.rs).
TRANSPORT_CODES = {"tcp": 0, "ndp": 3}


def spec_and_flows(n: int, transport: str = "tcp") -> tuple[dict, list[tuple[str, bytes]]]:
    import numpy as np

    hosts, tors = 128, 8
    nodes = [{"name": f"h{i}", "kind": "host"} for i in range(hosts)]
    nodes += [{"name": f"t{i}", "kind": "switch"} for i in range(tors)] + [{"name": "core", "kind": "switch"}]
    per = hosts // tors
    links = [{"a": h, "b": hosts + h // per, "rate_bps": 10**10, "delay_ps": 10**6} for h in range(hosts)]
    links += [
        {"a": hosts + t, "b": hosts + tors, "rate_bps": 4 * 10**10, "delay_ps": 10**6} for t in range(tors)
    ]
    rng = np.random.default_rng(1)
    src = rng.integers(0, hosts, n)
    dst = (src + rng.integers(1, hosts, n)) % hosts

    def u8(a: object) -> bytes:
        return np.ascontiguousarray(a, dtype="<u8").tobytes()

    zeros = u8(np.zeros(n))
    flows = [
        ("id", u8(np.arange(n))),
        ("src", u8(src)),
        ("dst", u8(dst)),
        ("size_bytes", u8(np.full(n, 1000))),
        ("start_ps", u8(np.arange(n) * 10**6)),
        ("rate_bps", zeros),
        ("handshake_ps", zeros),
        ("transport", bytes([TRANSPORT_CODES[transport]]) * n),
    ]
    return {"routing": "ecmp", "seed": 1, "nodes": nodes, "links": links, "flows": []}, flows


def child(n: int, transport: str) -> None:
    from greendcn import _native

    spec, flows = spec_and_flows(n, transport)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    c0 = time.process_time()
    text, _tables = _native.run_columns(json.dumps(spec), None, flows)
    cpu = time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    summary = json.loads(text)["summary"]
    assert summary["flows_completed"] == n
    print(json.dumps({"cpu_s": cpu, "engine_wall_s": summary["wall_s"], "growth_kb": peak - base}))


def main() -> None:
    quick = is_quick()
    for n in (100_000,) if quick else (100_000, 1_000_000):
        for transport in TRANSPORT_CODES:
            out = subprocess.run(
                [sys.executable, __file__, "--child", str(n), transport],
                capture_output=True,
                text=True,
                check=True,
            )
            f = json.loads(out.stdout)
            print(
                f"{n:,} {transport} flows x 1,000 B, engine call: {f['growth_kb'] * 1024 / n:.0f} bytes per flow of peak memory "
                f"({f['growth_kb'] / 1024:.0f} MB), cpu {f['cpu_s']:.2f} s, engine wall {f['engine_wall_s']:.2f} s"
            )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(int(sys.argv[2]), sys.argv[3])
    else:
        main()
