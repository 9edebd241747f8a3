"""Circuit-fabric engine speed: a RotorNet run with RotorLB on an all-to-all shuffle, in packet-hops per wall
second, beside the fat-tree engine's figure (scenarios/bench-k8-permutation.toml, k = 8, 1 MB flows) measured
in the same run (issue target: the circuit engine at least half the fat-tree engine's packet-hops/s).

Cases: 64 racks on 7 rotor switches x 9 matchings (10 Gb/s uplinks, 100 us uptime, 10 us reconfiguration,
1 us guard), every rack sending 1 MB to every other (4,032 flows), RotorLB and one-hop; and the thesis's 8-rack
testbed layout with a heavy all-to-all (`--quick` runs the 8-rack case and the fat-tree case only)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_engine import run_case  # noqa: E402

from greendcn.sim.optical.packet import run_fabric  # noqa: E402
from greendcn.sim.optical.rotornet import build_rotornet  # noqa: E402
from benchcommon import is_quick  # noqa: E402


def shuffle(racks: int, size: int) -> list[dict]:
    """Every rack sends `size` bytes to every other rack (flow specs of the circuit engine)."""
    return [
        {"id": s * racks + d, "src": s, "dst": d, "size_bytes": size}
        for s in range(racks)
        for d in range(racks)
        if s != d
    ]


def case(racks: int, switches: int, routing: str, size: int) -> dict:
    fabric = build_rotornet(
        racks=racks, switches=switches, uptime_ps=100_000_000, reconfig_ps=10_000_000, guard_ps=1_000_000
    )
    cycle = fabric.switches[0].cycle_ps()
    t0 = time.perf_counter()
    run = run_fabric(fabric, shuffle(racks, size), routing, duration_ps=400 * cycle, delay_ps=500_000)
    total = time.perf_counter() - t0
    s = run.summary
    return {"wall_s": s["wall_s"], "total_s": total, "hops": s["packet_hops"], "events": s["events"], **s}


def main(argv: list[str] | None = None) -> None:
    quick = is_quick(argv)
    ft = run_case(["workload.size=1MB"])
    ft_rate = ft["packet_hops"] / ft["wall_s"] if ft else float("nan")
    print(f"fat-tree k=8, 128 x 1 MB (packet engine): {ft_rate / 1e6:.2f} M packet-hops/s", flush=True)
    cases = [("8 racks, 1 x 7, all-to-all 10 MB", 8, 1, 10_000_000)]
    if not quick:
        cases.append(("64 racks, 7 x 9, all-to-all 1 MB", 64, 7, 1_000_000))
    for name, racks, switches, size in cases:
        for routing in ("rotorlb", "direct"):
            r = case(racks, switches, routing, size)
            rate = r["hops"] / r["wall_s"]
            print(
                f"{name}, {routing}: engine wall {r['wall_s']:.2f} s, {r['events'] / r['wall_s'] / 1e6:.2f} M events/s, "
                f"{rate / 1e6:.2f} M packet-hops/s ({rate / ft_rate:.2f} x the fat-tree engine), "
                f"flows completed {r['flows_completed']}/{racks * (racks - 1)}, total {r['total_s']:.2f} s",
                flush=True,
            )


if __name__ == "__main__":
    main()
