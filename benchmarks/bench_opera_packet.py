"""Opera on the circuit engine: a 648-host Opera (108 racks x 6 rotor switches, seed 001 line 931; 6 hosts per
rack and 10 Gb/s from the public Opera simulator, not the thesis) running a 100 kB all-to-all shuffle between
racks (11,556 flows), all bulk via RotorLB, in packet-hops per wall second, beside the fat-tree engine's figure
(scenarios/bench-k8-permutation.toml, k = 8, 1 MB flows) measured in the same run (issue 24's target: at least
half of it).

Opera here: r = 10 us (public Opera simulator), epsilon computed from the searched schedule's worst path
(greendcn.sim.topology.opera.epsilon_s), 1 us guard, 500 ns fibre (our choices). `--quick` (or
GREENDCN_BENCH_QUICK=1) runs 24 racks x 6 switches instead.

Both engines run three times and the median run counts (the fat-tree case lasts about 0.1 s of engine time, so
one run alone swings by 10 % on a busy 2-core machine); the range is printed beside it."""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_circuit_packet import shuffle  # noqa: E402
from bench_engine import run_case  # noqa: E402

from greendcn.sim.engine import run_circuit_spec  # noqa: E402
from greendcn.sim.optical.opera_fabric import opera_fabric, slice_ps  # noqa: E402
from greendcn.sim.optical.packet import circuit_spec  # noqa: E402
from greendcn.sim.topology.opera import OperaParams, build_opera  # noqa: E402
from benchcommon import is_quick  # noqa: E402


REPEATS = 3


def opera_case(racks: int, switches: int, size: int) -> dict:
    t0 = time.perf_counter()
    sched = build_opera(OperaParams(racks=racks, switches=switches))
    search_s = time.perf_counter() - t0
    fabric = opera_fabric(sched, 10 * 10**9, guard_ps=1_000_000)
    spec = circuit_spec(fabric, shuffle(racks, size), "rotorlb", seed=1, delay_ps=500_000)
    runs = []
    for _ in range(REPEATS):
        t1 = time.perf_counter()
        res = run_circuit_spec(spec, None)
        runs.append({"total_s": time.perf_counter() - t1, **res["summary"]})
    runs.sort(key=lambda r: r["wall_s"])
    return {
        "search_s": search_s,
        "slice_us": slice_ps(sched) / 1e6,
        "rates": rates(runs),
        **runs[len(runs) // 2],
    }


def rates(runs: list[dict]) -> list[float]:
    return sorted(r["packet_hops"] / r["wall_s"] for r in runs)


def main(argv: list[str] | None = None) -> None:
    quick = is_quick(argv)
    fts = [r for r in (run_case(["workload.size=1MB"]) for _ in range(REPEATS)) if r]
    ft_rates = rates(fts) or [float("nan")]
    ft_rate = statistics.median(ft_rates)
    print(
        f"fat-tree k=8, 128 x 1 MB (packet engine): {ft_rate / 1e6:.2f} M packet-hops/s (median of "
        f"{len(fts)}; {ft_rates[0] / 1e6:.2f}-{ft_rates[-1] / 1e6:.2f})",
        flush=True,
    )
    racks = 24 if quick else 108
    r = opera_case(racks, 6, 100_000)
    rate = statistics.median(r["rates"])
    print(
        f"Opera {racks} racks x 6 switches ({racks * 6} hosts), all-to-all 100 kB ({racks * (racks - 1)} flows), "
        f"rotorlb: schedule search {r['search_s']:.2f} s, slice {r['slice_us']:.1f} us, engine wall "
        f"{r['wall_s']:.2f} s, {r['events'] / r['wall_s'] / 1e6:.2f} M events/s, {rate / 1e6:.2f} M packet-hops/s "
        f"(median of {REPEATS}; {r['rates'][0] / 1e6:.2f}-{r['rates'][-1] / 1e6:.2f}; {rate / ft_rate:.2f} x the "
        f"fat-tree engine), {r['events'] / r['packet_hops']:.2f} events per packet-hop, flows completed {r['flows_completed']}/"
        f"{racks * (racks - 1)}, simulated {r['sim_time_ps'] / 1e9:.2f} ms, no-circuit drops "
        f"{r['no_circuit_drops']}, total {r['total_s']:.2f} s",
        flush=True,
    )


if __name__ == "__main__":
    main()
