"""Size guards of a simulation: before anything is built, estimate what a scenario will cost and refuse, in well
under a second, one that cannot fit this machine, with an `error:` naming the size and the estimate.

The estimate follows today's engine (our measurements, 2-core development machine): routing is built from one
breadth-first search per rack (attachment switch) over a nodes x racks table of 4-byte entries, then stored as
runs per node (crates/engine/src/routing.rs); each flow costs at most about 1.6 kB across Python and the engine
(a million generated flows of 1,000 bytes on a k = 8 fat-tree peaked at 1.58 GB, a million from a flow file, read
as columns, at 1.0 GB and 100,000 at 0.30 GB); the interpreter with numpy, pandas, pyarrow and the engine starts
near 200 MB.
When the engine's routing changes, `estimate_run_bytes` changes with it.
"""

from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass
from typing import Any

from ..core.errors import InputError

__all__ = [
    "RunSize",
    "available_memory_bytes",
    "check_run_size",
    "count_csv_rows",
    "estimate_run_bytes",
    "topology_size",
    "workload_flow_count",
    "workload_size_key",
]

BASE_BYTES = 200 * 2**20
BYTES_PER_FLOW = 1_600
BYTES_PER_NODE_OR_LINK = 400  # Python Node/Link objects, the engine's ports and per-node counters
ROUTE_ENTRY_BYTES = 4
# Routing setup costs racks x (nodes + links) search steps plus nodes x racks to store the runs: about 6e7 per
# second on one core of the development machine (a k=48 fat-tree, 1.6e8 steps, took 2.2 s of engine setup).
# Above MAX_SETUP_STEPS (about ten minutes) the run is refused; above NOTE_SETUP_STEPS (about ten seconds) the
# wait is announced on stderr.
SETUP_STEPS_PER_S = 6e7
MAX_SETUP_STEPS = 4 * 10**10
NOTE_SETUP_STEPS = 6 * 10**8


@dataclass(frozen=True)
class RunSize:
    hosts: int
    switches: int
    links: int
    flows: int
    racks: int = 0  # attachment switches (edge switches, leaves); 0: count every host as its own

    @property
    def searches(self) -> int:
        return self.racks or self.hosts

    @property
    def nodes(self) -> int:
        return self.hosts + self.switches


def topology_size(topo: Any) -> tuple[int, int, int, int]:
    """(hosts, switches, links, racks) a `Topology` will have, from its parameters alone (nothing is built)."""
    if topo.kind == "fattree":
        k = topo.k
        half = k // 2
        per_edge = round(half * topo.oversubscription)
        edges = k * half
        hosts = edges * per_edge
        switches = 2 * edges + half * half
        links = hosts + edges * half + edges * half
        return hosts, switches, links, edges
    if topo.kind == "clos":
        from .topology.clos import shape_of

        shape = shape_of(topo)
        return shape.hosts, sum(shape.switches), shape.links, shape.switches[0]
    if topo.kind == "expander":
        from .topology.expander import hosts_per_rack

        hosts = topo.racks * hosts_per_rack(topo)
        return hosts, topo.racks, hosts + topo.racks * topo.uplinks // 2, topo.racks
    if topo.kind in ("rotornet", "selectornet", "opera"):
        # racks (or hosts_per_rack hosts under each) are the endpoints; each rack has one uplink per circuit switch
        switches = topo.circuit_switches
        hosts = topo.racks * (topo.hosts_per_rack or 1)
        links = topo.racks * switches + (hosts if topo.hosts_per_rack else 0)
        return hosts, switches, links, topo.racks
    hosts = topo.leaves * topo.hosts_per_leaf
    return hosts, topo.leaves + topo.spines, hosts + topo.leaves * topo.spines, topo.leaves


def workload_flow_count(sc: Any, hosts: int) -> int:
    """How many flows the scenario's workload will create (a CSV file counts its lines; a generated workload
    is estimated from its parameters: load x duration x hosts' rate / mean size, before anything is drawn)."""
    w = sc.workload
    if w.kind in ("poisson", "count", "all_at_once", "mix"):
        from .workload.generate import GenContext, expected_flow_count

        return expected_flow_count(w, GenContext.of(sc.topology, hosts, sc.base_dir))
    if w.kind == "static":
        return w.long_flows + 1
    if w.kind == "random":
        return w.long_flows + w.short_flows
    if w.kind == "permutation":
        return hosts
    file = getattr(w, "file", None)
    return len(w.flows or []) + (count_csv_rows(os.path.join(sc.base_dir or ".", file)) if file else 0)


def workload_size_key(sc: Any) -> str:
    """The scenario key a too-large workload should name: what sets its flow count."""
    w = sc.workload
    if w.kind == "poisson":
        return "workload.duration"
    if w.kind == "count":
        return "workload.count"
    if w.kind == "mix":
        return "workload.components"
    return "workload"


def count_csv_rows(path: str | os.PathLike[str]) -> int:
    """Data rows of a flow file, counted without parsing: a CSV's lines less the header, or the row count in a
    Parquet file's footer (nothing else of it read); 0 if it cannot be read (the reader reports the file)."""
    try:
        with open(path, "rb") as f:
            if f.read(4) == b"PAR1":
                return _parquet_rows(path)
            f.seek(0)
            return max(0, sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b"")) - 1)
    except OSError:
        return 0


def _parquet_rows(path: str | os.PathLike[str]) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return int(pq.read_metadata(path).num_rows)
    except (pa.ArrowException, OSError):
        return 0  # truncated or damaged: the reader names the file


def estimate_run_bytes(size: RunSize) -> int:
    table = size.nodes * size.searches * ROUTE_ENTRY_BYTES * 3  # the search table, then the runs (8 B, ~half)
    return (
        BASE_BYTES + table + (size.nodes + size.links) * BYTES_PER_NODE_OR_LINK + size.flows * BYTES_PER_FLOW
    )


def available_memory_bytes() -> int:
    """Memory this process may still use: MemAvailable of /proc/meminfo (all physical memory if unknown)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return 2**63


def _gib(n: float) -> str:
    return f"{n / 2**30:.3g} GiB" if n >= 2**30 else f"{n / 2**20:.3g} MiB"


def check_run_size(size: RunSize, max_memory_bytes: int | None = None, where: str = "topology") -> int:
    """Refuse a run whose estimated memory exceeds the limit (default: the memory available now) or whose
    routing setup could not finish in reasonable time; returns the estimate in bytes."""
    estimate = estimate_run_bytes(size)
    limit = max_memory_bytes if max_memory_bytes is not None else available_memory_bytes()
    what = f"{size.hosts:,} hosts, {size.switches:,} switches, {size.links:,} links and {size.flows:,} flows"
    if estimate > limit:
        source = "--max-memory" if max_memory_bytes is not None else "the memory available on this machine"
        raise InputError(
            f"{where}: {what} would need about {_gib(estimate)}, more than {source} ({_gib(limit)})",
            hint="choose a smaller topology or fewer flows"
            + ("" if max_memory_bytes is None else ", or raise --max-memory"),
            loc=(where.split(".")[0],),
        )
    steps = size.searches * (2 * size.nodes + size.links)
    if steps > MAX_SETUP_STEPS:
        raise InputError(
            f"{where}: {what}: routing setup alone would take about "
            f"{steps / SETUP_STEPS_PER_S / 60:.3g} min on one core ({steps:.3g} search steps)",
            hint="choose a smaller topology",
            loc=(where.split(".")[0],),
        )
    if steps > NOTE_SETUP_STEPS and where == "topology":
        print(
            f"note: building routes for {size.hosts:,} hosts in {size.searches:,} racks takes about "
            f"{steps / SETUP_STEPS_PER_S:.0f} s before the run starts",
            file=sys.stderr,
            flush=True,
        )
    if not math.isfinite(estimate):
        raise InputError(f"{where}: size cannot be estimated", hint="check the topology parameters")
    return estimate
