"""Mellette et al., NSDI 2020, Figure 9 on identical flows (`greendcn reproduce opera-paper`): the web-search
flow files of the public Opera simulator's checkout in OPERA_SIM_DIR run on their networks with NDP, engine
wall time and packet-hops per second of each, and the whole run's wall and CPU time (network, engine,
results, energy; on a shared machine the CPU time is the figure to compare). Loads: OPERA_BENCH_LOADS (default 1, i.e. the 1 % files; "1,10" adds the 10 % ones); networks whose
scenario file greendcn does not ship are passed over with the reason. Without OPERA_SIM_DIR it says so and
measures nothing (the files are not shipped; docs/opera-paper.md)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "validate"))


def main() -> None:
    root = os.environ.get("OPERA_SIM_DIR")
    if not root:
        print(
            "OPERA_SIM_DIR is not set: nothing measured (set it to a checkout of TritonNetworking/opera-sim)"
        )
        return
    from opera_paper import pairs

    from greendcn.core.errors import InputError
    from greendcn.sim.reproduce.opera_paper import reproduce_opera_paper

    loads = os.environ.get("OPERA_BENCH_LOADS", "1").split(",")
    for net, load, flows, _ref in pairs(Path(root), loads):
        cpu0 = time.process_time()
        try:
            doc = reproduce_opera_paper(flows, net, None, "ndp")
        except InputError as e:
            print(f"{net} {load} %: passed over: {e}")
            continue
        cpu = time.process_time() - cpu0  # CPU seconds of the whole run: a busy machine stretches wall time
        r = doc["run"]
        hops, wall = r["packet_hops"], r["engine_wall_s"]
        rate = f"{hops / wall / 1e6:.2f} M packet-hops/s" if hops and wall else "packet-hops n/a"
        print(
            f"{net}, {load} % web search ({doc['flows']} flows, {doc['completed_ours']} completed, NDP): engine "
            f"wall {wall:.2f} s, {(hops or 0) / 1e6:.1f} M packet-hops, {rate}; simulated "
            f"{r['sim_time_s']:.4f} s; whole run {r['wall_s']:.1f} s wall, {cpu:.1f} s CPU",
            flush=True,
        )
