"""ElasticTree planning speed: the topology-aware heuristic picking a subset for one interval's demand on a k = 32
fat-tree (8,192 hosts, 512 edge switches; issue target: under 1 s), from a dense random edge-to-edge demand at
30 % load, and the whole plan (demand from a flow table plus a subset per interval) for the k = 8 web-search
benchmark scenario (scenarios/websearch-k8.toml, 1 ms intervals).

`python benchmarks/run.py elastictree`."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPEATS = 5


def main() -> None:
    import numpy as np

    from greendcn.sim.elastictree import ElasticTree, FatTreeView, heuristic_subset, plan
    from greendcn.sim.run import as_scenario
    from greendcn.sim.topology import build_topology
    from greendcn.sim.topology.fattree import fattree
    from greendcn.sim.workload import build_workload

    t0 = time.perf_counter()
    view = FatTreeView.of(fattree(32, rate_bps=10**10))
    setup = time.perf_counter() - t0
    n = len(view.edges)
    rng = np.random.default_rng(1)
    demand = rng.random((n, n))
    demand *= 0.3 * 16 * 10**10 / demand.sum(axis=1).max()  # busiest edge at 30 % of its 16 hosts' rate
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        s = heuristic_subset(view, demand, 0.8)
        times.append(time.perf_counter() - t0)
    print(f"k=32 fat-tree view from the network: {setup:.3f} s")
    print(
        f"k=32 heuristic subset ({n}x{n} demand): median {statistics.median(times) * 1e3:.1f} ms, "
        f"max {max(times) * 1e3:.1f} ms over {REPEATS}; {s.switches_on} of {len(view.aggs) + len(view.cores)} "
        "aggregation and core switches on"
    )
    sc = as_scenario(ROOT / "scenarios" / "websearch-k8.toml")
    net = build_topology(sc.topology)
    flows = build_workload(sc, net, sc.run.seed)
    t0 = time.perf_counter()
    p = plan(net, flows, ElasticTree(enabled=True, interval="1ms"))
    print(
        f"k=8 web-search plan: {len(flows)} flows, {len(p.subsets)} intervals in "
        f"{(time.perf_counter() - t0) * 1e3:.1f} ms"
    )


if __name__ == "__main__":
    main()
