"""Generated workloads: arrivals (poisson, count, all_at_once) x sizes (a CDF table) x a pattern, as a FlowTable.

Load (docs/workloads.md): with load_on = "host" (default), `load` is the offered bytes per second of each
sending endpoint over its link rate, as the public Opera simulator's generator defines it (rate per host =
load x link rate / mean size; generate_traffic.m); every endpoint sends (sources are drawn uniformly, or each
endpoint once), so the network's arrival rate is N times that. With load_on = "bisection", the network's
offered bytes per second are `load` x the bisection bandwidth (racks.bisection_bps), all flows counted.

Arrivals (our choices, docs/workloads.md): "poisson" starts flows over `duration` as a Poisson process at that
rate; "count" makes `count` flows at the same rate; "all_at_once" starts one round of the pattern at `start`
(every `period` until `duration` when both are given). With draws = "stratified" (default) the number of
arrivals is the expected one, rounded, and their times are independent uniform draws over the window (a
Poisson process conditioned on its count), and the sizes are stratified (distributions.py), so the achieved
load and size distribution match the target instead of varying by about 1/sqrt(flows); "independent" draws a
Poisson count and independent sizes, as the public generator does."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.errors import FieldError, InputError
from ...core.units import PS_PER_S
from . import patterns as pat
from .distributions import SizeDistribution, fixed_size, key_loc, load_distribution
from .flow import STREAM_JITTER, rng_for
from .racks import bisection_bps, endpoint_rate_bps, host_racks
from .table import FlowTable

__all__ = [
    "GenContext",
    "check_component",
    "components_of",
    "distribution_of",
    "events_per_s",
    "expected_flow_count",
    "generate_component",
    "generate_table",
    "group_size",
    "is_generated",
]

# Streams of the run's seed (flow.rng_for): component i draws its arrivals, sizes, pairs and pattern
# structure from STREAM_BASE + STREAMS_PER_COMPONENT x i + 0..3, apart from the seed-003 workloads' streams.
STREAM_BASE = 100
STREAMS_PER_COMPONENT = 8
ONE_ROUND = ("permutation", "stride", "bijection")  # patterns whose natural round is each endpoint once


def is_generated(workload: Any) -> bool:
    return getattr(workload, "kind", None) in ("poisson", "count", "all_at_once", "mix")


def components_of(workload: Any) -> list[Any]:
    return list(workload.components) if workload.kind == "mix" else [workload]


def check_component(c: Any) -> None:
    """Checks that need no topology (the scenario model calls this); FieldError names the key."""
    k = c.kind
    if c.load is not None and not (0.0 < c.load <= 1.0):
        raise FieldError(
            "load",
            f"must be in (0, 1], the share of each sending endpoint's link rate (or of the bisection), got "
            f"{c.load:g}",
            hint="e.g. load = 0.3 for 30 %",
        )
    if k in ("poisson", "count") and c.load is None:
        raise FieldError("load", f"kind = {k!r} needs a load", hint="e.g. load = 0.3")
    if k == "all_at_once" and c.load is not None:
        raise FieldError(
            "load",
            "all_at_once starts its flows together; a load applies to poisson and count",
            hint="remove workload.load or set kind = 'poisson'",
        )
    if k == "poisson":
        if c.duration is None or c.duration <= 0:
            raise FieldError("duration", "kind = 'poisson' needs a positive duration", hint="e.g. '50ms'")
    if k == "count" and c.count is None:
        raise FieldError("count", "kind = 'count' needs the number of flows", hint="e.g. count = 10000")
    if k == "poisson" and c.count is not None:
        raise FieldError(
            "count",
            "kind = 'poisson' takes its flow count from load and duration",
            hint="remove workload.count or set kind = 'count'",
        )
    if k == "count" and c.duration is not None:
        raise FieldError(
            "duration",
            "kind = 'count' runs until its flows have arrived",
            hint="remove workload.duration or set kind = 'poisson'",
        )
    if c.size is not None and c.size <= 0:
        raise FieldError("size", "must be positive", hint="e.g. size = '100KB'")
    if c.period is not None and c.period <= 0:
        raise FieldError("period", "must be a positive time", hint="e.g. period = '1ms'")
    p = c.pattern
    if p == "stride":
        if c.stride is None:
            raise FieldError(
                "stride", "pattern = 'stride' needs a stride x (i sends to i + x)", hint="e.g. 1"
            )
        if c.stride <= 0:
            raise FieldError(
                "stride",
                f"must be at least 1, got {c.stride} (a stride of 0 sends every endpoint to itself)",
                hint="e.g. stride = 1",
            )
    elif c.stride is not None:
        raise FieldError("stride", "applies to pattern = 'stride'", hint="remove workload.stride")
    if p == "incast":
        if c.fan_in is None or c.fan_in < 1:
            raise FieldError(
                "fan_in", "pattern = 'incast' needs fan_in >= 1 senders per burst", hint="e.g. 16"
            )
        if k == "poisson" and c.period is not None:
            raise FieldError(
                "period",
                "incast bursts under kind = 'poisson' arrive at random",
                hint="for a burst every period use kind = 'all_at_once' with period and duration",
            )
        if k == "count" and c.count % c.fan_in:
            raise FieldError(
                "count",
                f"{c.count} flows are not whole bursts of fan_in = {c.fan_in}",
                hint=f"use a multiple of {c.fan_in}",
            )
    elif c.fan_in is not None:
        raise FieldError("fan_in", "applies to pattern = 'incast'", hint="remove workload.fan_in")
    if p == "hotspot":
        if c.hot_racks is None or c.hot_share is None:
            raise FieldError(
                "hot_racks" if c.hot_racks is None else "hot_share",
                "pattern = 'hotspot' needs hot_racks (share of racks) and hot_share (share of flows they receive)",
                hint="e.g. hot_racks = 0.1, hot_share = 0.5",
            )
    elif c.hot_racks is not None or c.hot_share is not None:
        raise FieldError("hot_racks", "applies to pattern = 'hotspot'", hint="remove hot_racks and hot_share")
    if c.rack_local is not None and p != "uniform":
        raise FieldError("rack_local", "applies to pattern = 'uniform'", hint="remove workload.rack_local")
    if c.rack_local is not None and c.inter_rack:
        raise FieldError(
            "rack_local",
            "inter_rack = true means a rack-local share of 0",
            hint="set one of rack_local and inter_rack",
        )
    if c.inter_rack and p not in ("uniform", "all_to_all"):
        raise FieldError(
            "inter_rack", "applies to the uniform and all_to_all patterns", hint="remove workload.inter_rack"
        )
    if p == "bijection" and c.period is None:
        raise FieldError(
            "period", "pattern = 'bijection' is re-drawn every period", hint="e.g. period = '1ms'"
        )
    if k in ("poisson", "count") and c.period is not None and p not in ("bijection", "stride", "incast"):
        raise FieldError(
            "period",
            f"with kind = {k!r} a period applies to the bijection and stride patterns",
            hint="remove workload.period",
        )
    if p == "all_to_all" and k != "all_at_once":
        raise FieldError(
            "pattern",
            "all_to_all is a shuffle (every pair once per round): it needs kind = 'all_at_once'",
            hint="set kind = 'all_at_once' (with period and duration for repeated rounds)",
        )
    if k == "all_at_once":
        if c.count is not None and p in ("all_to_all", "incast"):
            raise FieldError("count", f"a round of {p} has a fixed size", hint="remove workload.count")
        if c.count is None and p in ("uniform", "hotspot"):
            raise FieldError(
                "count",
                f"all_at_once with pattern = {p!r} needs the flows per round",
                hint="e.g. count = 1000",
            )
        if c.duration is not None and c.period is None:
            raise FieldError(
                "period",
                "all_at_once with a duration repeats its round every period",
                hint="add period, or remove duration for one round",
            )


@dataclass(frozen=True)
class GenContext:
    """The topology facts a generator needs (racks.py)."""

    n_hosts: int
    racks: np.ndarray
    rate_bps: int
    bisection_bps: int
    base_dir: str | None = None

    @classmethod
    def of(cls, topology: Any, n_hosts: int, base_dir: str | None = None) -> GenContext:
        return cls(
            n_hosts,
            host_racks(topology, n_hosts),
            endpoint_rate_bps(topology),
            bisection_bps(topology, n_hosts),
            base_dir,
        )

    def capacity_bps(self, load_on: str) -> int:
        return self.n_hosts * self.rate_bps if load_on == "host" else self.bisection_bps


def distribution_of(c: Any, base_dir: str | None, where: str) -> SizeDistribution:
    return (
        fixed_size(c.size) if c.size is not None else load_distribution(c.sizes, base_dir, f"{where}.sizes")
    )


def group_size(c: Any, ctx: GenContext) -> int:
    return c.fan_in if c.pattern == "incast" else 1


def events_per_s(c: Any, ctx: GenContext, mean: float, where: str) -> float:
    """Arrivals (flows, or incast bursts) per second at the component's load."""
    cap = ctx.capacity_bps(c.load_on)
    per_host = c.load * cap / (ctx.n_hosts * ctx.rate_bps)
    if per_host > 1.0 + 1e-12:
        raise InputError(
            f"{where}.load: {c.load:g} of the bisection ({cap / 1e9:g} Gbps) asks each endpoint for "
            f"{per_host:.3g} of its link rate",
            hint="lower workload.load",
            loc=key_loc(where, "load"),
        )
    return c.load * cap / 8.0 / (mean * group_size(c, ctx))


def _rounds(c: Any) -> int:
    if c.period is None or c.duration is None:
        return 1
    return max(1, math.ceil(c.duration / c.period))


def _round_flows(c: Any, ctx: GenContext) -> int:
    if c.pattern == "all_to_all":
        if c.inter_rack:
            sizes = np.bincount(ctx.racks)
            return int(ctx.n_hosts * ctx.n_hosts - (sizes.astype(np.int64) ** 2).sum())
        return ctx.n_hosts * (ctx.n_hosts - 1)
    if c.pattern == "incast":
        return c.fan_in
    return c.count if c.count is not None else ctx.n_hosts


def expected_flow_count(workload: Any, ctx: GenContext, where: str = "workload") -> int:
    """Flows the workload will make, from its parameters (the size guard's estimate; sim/limits.py)."""
    total = 0
    for i, c in enumerate(components_of(workload)):
        w = where if workload.kind != "mix" else f"{where}.components[{i}]"
        if c.kind == "count":
            total += c.count
        elif c.kind == "all_at_once":
            total += _rounds(c) * _round_flows(c, ctx)
        else:
            mean = distribution_of(c, ctx.base_dir, w).mean(c.sampling)
            total += math.ceil(events_per_s(c, ctx, mean, w) * c.duration / PS_PER_S) * group_size(c, ctx)
    return total


def _check_topology(c: Any, ctx: GenContext, where: str) -> None:
    n = ctx.n_hosts

    def bad(key: str, msg: str, hint: str) -> None:
        raise InputError(f"{where}.{key}: {msg}", hint=hint, loc=key_loc(where, key))

    if n < 2:
        bad("pattern", f"a flow needs two endpoints, this topology has {n}", "use a larger topology")
    if c.pattern == "incast" and c.fan_in > n - 1:
        bad(
            "fan_in",
            f"{c.fan_in} senders and a receiver need {c.fan_in + 1} endpoints, this topology has {n}",
            f"use fan_in <= {n - 1}",
        )
    if c.pattern == "stride" and c.stride % n == 0:
        bad(
            "stride",
            f"{c.stride} is a multiple of the {n} endpoints: every endpoint would send to itself",
            f"choose a stride between 1 and {n - 1}",
        )
    sizes = np.bincount(ctx.racks)
    if (c.inter_rack or c.rack_local is not None) and len(sizes) < 2:
        bad(
            "inter_rack" if c.inter_rack else "rack_local",
            "this topology has one rack",
            "use pattern = 'uniform' without it",
        )
    if c.rack_local and sizes.min() < 2:
        bad(
            "rack_local",
            "a rack holds a single endpoint here (circuit fabrics: racks are the endpoints)",
            "remove workload.rack_local",
        )


# Patterns drawn per burst or per period cost bursts (periods) x endpoints steps; above this the workload is
# refused rather than left to run for minutes (our choice; on the shared development machine 10^8 steps took
# about 11 s as bijection periods of 2,000 endpoints and about 4 s as incast bursts).
MAX_PATTERN_STEPS = 10**8


def _check_work(steps: int, where: str, key: str, what: str) -> None:
    if steps > MAX_PATTERN_STEPS:
        raise InputError(
            f"{where}.{key}: drawing the {what} would take about {steps:.3g} steps (limit {MAX_PATTERN_STEPS:.0e})",
            hint="use fewer bursts or a longer period",
            loc=key_loc(where, key),
        )


def generate_component(
    c: Any, ctx: GenContext, seed: int, index: int = 0, where: str = "workload"
) -> FlowTable:
    """The flows of one component (rows in arrival order within it); deterministic in (seed, index)."""
    _check_topology(c, ctx, where)
    base = STREAM_BASE + STREAMS_PER_COMPONENT * index
    r_arr, r_size, r_pair, r_struct = (rng_for(seed, base + k) for k in range(4))
    dist = distribution_of(c, ctx.base_dir, where)
    stratified = c.draws == "stratified"
    g = group_size(c, ctx)
    n = ctx.n_hosts
    src: np.ndarray | None = None
    if c.kind == "all_at_once":
        # one event per round for the shuffle and incast (their rows come from the pattern), else one per flow
        per_round = 1 if c.pattern in ("all_to_all", "incast") else _round_flows(c, ctx)
        times = c.start + np.arange(_rounds(c), dtype=np.int64) * (c.period or 0)
        ev_times = np.repeat(times, per_round)
        if c.pattern in ONE_ROUND and c.count is None:
            src = np.tile(np.arange(n, dtype=np.int64), len(times))
    else:
        rate = events_per_s(c, ctx, dist.mean(c.sampling), where)
        if c.kind == "poisson":
            window = c.duration
            expect = rate * window / PS_PER_S
            n_events = round(expect) if stratified else int(r_arr.poisson(expect))
            ev_times = c.start + np.sort(r_arr.integers(0, window, size=n_events))
        else:
            n_events = c.count // g
            if stratified:
                window = max(1, round(n_events / rate * PS_PER_S))
                ev_times = c.start + np.sort(r_arr.integers(0, window, size=n_events))
            else:
                gaps = r_arr.exponential(1.0 / rate, size=n_events)
                ev_times = c.start + np.rint(np.cumsum(gaps) * PS_PER_S).astype(np.int64)
    ev_times = np.asarray(ev_times, dtype=np.int64)
    # pairs
    p = c.pattern
    if p == "all_to_all":
        s1, d1 = pat.all_to_all(ctx.racks, c.inter_rack)
        src = np.tile(s1, len(ev_times))
        dst = np.tile(d1, len(ev_times))
        starts = np.repeat(ev_times, len(s1))
    elif p == "incast":
        _check_work(len(ev_times) * n, where, "duration" if c.kind == "poisson" else "count", "incast bursts")
        src, dst = pat.incast(len(ev_times), c.fan_in, n, r_pair)
        starts = np.repeat(ev_times, c.fan_in)
    else:
        if src is None:
            src = r_pair.integers(0, n, size=len(ev_times))
        starts = ev_times
        period_idx = None if c.period is None else (ev_times - c.start) // c.period
        if p == "uniform":
            dst = pat.uniform(src, ctx.racks, r_pair, c.rack_local, c.inter_rack)
        elif p == "hotspot":
            dst, _ = pat.hotspot(src, ctx.racks, r_pair, c.hot_racks, c.hot_share, where)
        elif p == "permutation":
            dst = pat.permutation(src, n, r_struct)
        elif p == "stride":
            dst = pat.stride(src, n, c.stride, period_idx)
        else:
            _check_work(len(np.unique(period_idx)) * n, where, "period", "bijection periods")
            dst = pat.bijection(src, n, period_idx, r_struct)
    sizes = dist.sample(len(src), r_size, c.sampling, stratified)
    return FlowTable.of(src, dst, sizes, starts, c.flow_class)


def generate_table(workload: Any, ctx: GenContext, seed: int, where: str = "workload") -> FlowTable:
    """All components' flows in start order (ties: component order, then row), with the workload's start
    jitter (flow.add_start_jitter's draws, row by row); the flows a run of the scenario uses."""
    parts = []
    for i, c in enumerate(components_of(workload)):
        w = where if workload.kind != "mix" else f"{where}.components[{i}]"
        parts.append(generate_component(c, ctx, seed, i, w))
    table = FlowTable.concat(parts).sorted_by_start()
    jitter = getattr(workload, "start_jitter", 0)
    if jitter > 0 and len(table):
        draws = rng_for(seed, STREAM_JITTER).integers(0, jitter, size=len(table), endpoint=True)
        table.start_ps = table.start_ps + draws
    return table
