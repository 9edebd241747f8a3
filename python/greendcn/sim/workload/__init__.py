"""Workloads: the flows of a run (source, destination, size, start, class), built from a scenario."""

from __future__ import annotations

from ...core.lazy import lazy_dir, lazy_getattr
from .explicit import flows_from_entries, read_flows_csv
from .flow import Flow, add_start_jitter, rng_for
from .permutation import permutation
from .rps_scenarios import randomized, static

# The generators (size tables, arrivals, patterns) load on first use: a run of listed flows or of a paper's
# scenario does not import them.
_LAZY = {
    "FlowTable": ".table",
    "GenContext": ".generate",
    "SizeDistribution": ".distributions",
    "generate_table": ".generate",
    "is_generated": ".generate",
    "load_distribution": ".distributions",
}
__getattr__ = lazy_getattr(__name__, _LAZY, globals())
__dir__ = lazy_dir(_LAZY, globals())

__all__ = [
    "Flow",
    "FlowTable",
    "GenContext",
    "SizeDistribution",
    "add_start_jitter",
    "build_table",
    "build_workload",
    "flows_from_entries",
    "generate_table",
    "is_generated",
    "load_distribution",
    "permutation",
    "randomized",
    "read_flows_csv",
    "rng_for",
    "static",
]


def build_table(scenario, net, seed: int):  # type: ignore[no-untyped-def]
    """The generated flows (kinds poisson, count, all_at_once, mix) of `scenario` on `net` as a FlowTable."""
    from .generate import GenContext, generate_table

    ctx = GenContext.of(scenario.topology, len(net.hosts), scenario.base_dir)
    return generate_table(scenario.workload, ctx, seed)


def build_workload(scenario, net, seed: int) -> list[Flow]:  # type: ignore[no-untyped-def]
    """The flows of `scenario.workload` on network `net`; every random choice comes from `seed`. Generated
    workloads and a flow file alone come as `FlowColumns` (a list of `Flow` to read, numpy columns to the
    engine), the others as a list of `Flow`."""
    from ...core.errors import InputError

    w = scenario.workload
    if w.kind in ("poisson", "count", "all_at_once", "mix"):  # generate.is_generated, without importing it
        flows = build_table(scenario, net, seed).to_columns()
        if not flows:
            raise InputError(
                "workload: it produces no flows",
                hint="raise workload.load or workload.duration (or workload.count)",
            )
        return flows  # the start jitter is part of the table
    if w.kind == "static":
        flows = static(net, w.long_flows, w.long_size, w.short_size, w.destination)
    elif w.kind == "random":
        flows = randomized(net, w.long_flows, w.short_flows, w.long_size, w.short_size, seed)
    elif w.kind == "permutation":
        flows = permutation(net, w.size, seed, w.flow_class)
    else:
        flows = flows_from_entries(net, w.flows)
        if w.file:
            from pathlib import Path

            path = Path(w.file)
            if not path.is_absolute() and scenario.base_dir:
                path = Path(scenario.base_dir) / path
            from_file = read_flows_csv(path, net, first_id=len(flows), what="workload.file")
            from ..transports import check_flow_transports

            check_flow_transports(scenario, from_file)
            # a file alone stays columns (a million rows need no object each); mixed with inline flows, a list
            flows = from_file if not flows and not w.start_jitter else flows + list(from_file)
    if not flows:
        raise InputError(
            "workload: it produces no flows",
            hint="add flows (workload.flows or workload.file) or raise long_flows/short_flows",
        )
    return add_start_jitter(flows, w.start_jitter, seed)
