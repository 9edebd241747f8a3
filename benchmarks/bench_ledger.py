"""Energy-ledger overhead on the k=8 benchmark run (scenarios/bench-k8-permutation.toml, 128 hosts, 10 Gbps,
a permutation of 10 MB TCP flows): the time to price the run (hosts from the engine's per-host windows,
switches, links and the per-window series) as a share of the engine's wall time, per host policy, and what the
per-window counters cost inside the engine (the same run with hosts left out, so no windows).

`python benchmarks/run.py ledger`; `--quick` (or GREENDCN_BENCH_QUICK=1) uses 1 MB flows."""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchcommon import is_quick  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "bench-k8-permutation.toml"
REPEATS = 5


def main(argv: list[str] | None = None) -> None:
    from greendcn.sim import simulate
    from greendcn.sim.host_power import _optimizer_curve
    from greendcn.sim.ledger import run_energy

    quick = is_quick(argv)
    size = ["workload.size=1MB"] if quick else []
    off = [
        simulate(str(SCENARIO), overrides=[*size, "power.hosts.enabled=false"], progress=False)
        for _ in range(3)
    ]
    on = [simulate(str(SCENARIO), overrides=size, progress=False) for _ in range(3)]
    wall_off = statistics.median(r.summary["wall_s"] for r in off)
    wall_on = statistics.median(r.summary["wall_s"] for r in on)
    res = on[0]
    out = res.engine_results
    windows = len(res.energy.series["power_w"])
    print(
        f"k=8 permutation, {'1 MB' if quick else '10 MB'} flows: {res.summary['sim_time_s'] * 1e3:.3g} ms "
        f"simulated, {windows} windows of 1 ms, 128 hosts, {len(res.energy.devices)} priced devices"
    )
    print(
        f"engine wall (median of 3): {wall_off:.3f} s without windows, {wall_on:.3f} s with per-host windows "
        f"({100 * (wall_on / wall_off - 1):+.1f} %)"
    )
    for policy in ("fixed", "affcon", "optimizer"):
        sc = res.scenario.with_overrides([*size, f"power.hosts.policy={policy}"])
        models, pricer = sc.power.models(sc.base_dir), sc.power.host_pricer(sc.base_dir)
        _optimizer_curve.cache_clear()
        t0 = time.perf_counter()
        run_energy(out, models, hosts=pricer)
        cold = time.perf_counter() - t0
        times = []
        for _ in range(REPEATS):
            t0 = time.perf_counter()
            run_energy(out, models, hosts=pricer)
            times.append(time.perf_counter() - t0)
        warm = statistics.median(times)
        print(
            f"pricing, policy {policy}: {warm * 1e3:.1f} ms ({100 * warm / wall_on:.1f} % of engine wall), "
            f"first call {cold * 1e3:.1f} ms ({100 * cold / wall_on:.1f} %)"
        )


if __name__ == "__main__":
    main()
