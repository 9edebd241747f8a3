"""SelectorNet (greendcn.sim.optical.selectornet): the closed forms checked against brute force on the matching
graph, routes, our schedule, and our scheduler's predicted maximum (docs/selectornet.md).

What seed 001 states and we check: hops per offset (lines 577-583), the bandwidth tax (1/2) log2 N over an even
workload (line 583: true with self-pairs counted; 32/15 over the 15 other ports of 16, which we state as well),
uptime efficiency (U - g) / U = 90 % at g = 100 us, U = 1 ms (line 538), stride above all-to-all (line 707),
bijection below stride (line 711), throughput rising with uptime (line 705). Exact comparisons use 1e-12
relative tolerance (floating-point rounding only)."""

from collections import deque

import numpy as np
import pytest

from greendcn.core.errors import InputError
from greendcn.sim.optical.selectornet import (
    SelectorTiming,
    all_to_all,
    bandwidth_tax_uniform,
    build_selectornet,
    duty_cycle,
    hops,
    is_self_inverse,
    matching_offsets,
    port_loads,
    predicted_per_host_bps,
    random_bijections,
    route,
    routes_for,
    schedule_slots,
    stride,
    uptime_efficiency,
    workload_prediction,
)


def bfs_hops(n: int) -> np.ndarray:
    """Shortest directed hop counts over the one-way +2^i circuits, by breadth-first search."""
    offs = matching_offsets(n)
    dist = np.full((n, n), -1)
    for s in range(n):
        dist[s, s] = 0
        q = deque([s])
        while q:
            u = q.popleft()
            for o in offs:
                v = (u + o) % n
                if dist[s, v] < 0:
                    dist[s, v] = dist[s, u] + 1
                    q.append(v)
    return dist


@pytest.mark.parametrize("n", [2, 4, 8, 16, 32])
def test_hops_is_the_popcount_and_the_shortest_path(n):
    d = bfs_hops(n)
    for s in range(n):
        for t in range(n):
            assert hops(t - s, n) == d[s, t] == bin((t - s) % n).count("1")
            r = route(s, t, n)
            assert len(r) == d[s, t]
            at = s
            for port, step in r:
                assert port == at and step in matching_offsets(n)
                at = (at + step) % n
            assert at == t


def test_the_thesis_example_routes_and_one_way_matchings():
    assert route(0, 4, 16) == [(0, 4)]  # line 577
    assert route(0, 6, 16) == [(0, 4), (4, 2)]  # line 579: 0 -> 4 -> 6
    assert [o for o in matching_offsets(16) if is_self_inverse(o, 16)] == [8]
    # the reverse of a +2^i circuit is not a circuit: going back one +1 step costs log2 N hops
    assert hops(-1, 16) == 4 and len(route(5, 4, 16)) == 4
    assert hops(-8, 16) == 1  # +8 is its own inverse
    for i, o in enumerate(matching_offsets(16)):
        assert hops(-o, 16) == 4 - i


@pytest.mark.parametrize("n", [4, 8, 16, 32])
def test_uniform_bandwidth_tax_with_and_without_self_pairs(n):
    d = bfs_hops(n)
    assert bandwidth_tax_uniform(n, self_pairs=True) == pytest.approx(d.mean(), rel=1e-12)
    off = d[~np.eye(n, dtype=bool)]
    assert bandwidth_tax_uniform(n, self_pairs=False) == pytest.approx(off.mean(), rel=1e-12)
    assert bandwidth_tax_uniform(n, True) == pytest.approx(0.5 * np.log2(n), rel=1e-12)  # line 583
    if n == 16:
        assert bandwidth_tax_uniform(16, False) == pytest.approx(32 / 15, rel=1e-12)


def test_uptime_efficiency_is_uptime_minus_guard_over_uptime():
    assert uptime_efficiency(1e-3, 100e-6) == pytest.approx(0.9, rel=1e-12)  # line 538's example
    assert uptime_efficiency(10e-3, 1e-3) == pytest.approx(0.9, rel=1e-12)
    assert uptime_efficiency(2e-3, 0.0) == 1.0
    with pytest.raises(InputError, match="guard"):
        uptime_efficiency(1e-3, 1e-3)
    assert duty_cycle(150e-6, 150e-6) == pytest.approx(0.5)  # line 675: 150 us uptime gives 50 %


def test_ports_must_be_a_power_of_two():
    for bad in (0, 1, 6, 12):
        with pytest.raises(InputError, match="ports"):
            matching_offsets(bad)


def test_loads_count_every_hop_once_and_balancing_never_hurts():
    for d in [all_to_all(16), stride(16, 7), *random_bijections(16, 20, seed=3)]:
        total_hops = sum(hops(int(t) - int(s), 16) for s, t in zip(*np.nonzero(d), strict=True))
        for balanced in (False, True):
            loads = port_loads(d, balanced)
            assert loads.sum() == total_hops
            for (s, t), r in routes_for(d, balanced).items():
                assert len(r) == hops(t - s, 16)
        assert port_loads(d, True).max(axis=0).sum() <= port_loads(d, False).max(axis=0).sum()


def test_predicted_maximum_matches_the_closed_form_for_regular_workloads():
    t = SelectorTiming()
    g = t.link_goodput_bps()
    assert g == pytest.approx(10e9 * (1e-3 - 400e-9) / (1e-3 + 150e-6), rel=1e-12)
    # all-to-all: every port sends N - 1 units and carries the mean hop count of them on each port
    assert predicted_per_host_bps(all_to_all(16), t) == pytest.approx(g / (32 / 15), rel=1e-12)
    for x in range(1, 16):
        assert predicted_per_host_bps(stride(16, x), t) == pytest.approx(g / hops(x, 16), rel=1e-12)


def test_no_workload_beats_its_bandwidth_tax():
    """A port spends its goodput on every hop it carries, so per-host throughput <= goodput / mean hops."""
    t = SelectorTiming(uptime_ps=3_000_000_000)
    g = t.link_goodput_bps()
    for d in [all_to_all(16), *[stride(16, x) for x in range(1, 16)], *random_bijections(16, 50, seed=1)]:
        pairs = list(zip(*np.nonzero(d), strict=True))
        mean_hops = np.mean([hops(int(b) - int(a), 16) for a, b in pairs])
        assert predicted_per_host_bps(d, t) <= g / mean_hops * (1 + 1e-12)


def test_the_schedule_carries_exactly_the_predicted_maximum():
    """Independent of the formula: give each route an equal share of every (port, matching) it crosses on the
    built fabric's slots, and the slowest route's rate is the predicted per-pair throughput."""
    t = SelectorTiming(uptime_ps=2_000_000_000)
    for d in [all_to_all(16), stride(16, 11), *random_bijections(16, 5, seed=9)]:
        f = build_selectornet(d, t)
        slots = f.switches[0].slots
        cycle_s = f.cycle_ps() * 1e-12
        per_slot_bits = t.rate_bps * (t.uptime_ps - t.guard_ps) * 1e-12
        count = {}
        for s in slots:
            off = (s.matching[0] - 0) % 16
            assert all((s.matching[p] - p) % 16 == off for p in range(16))  # all ports switch together
            count[off] = count.get(off, 0) + 1
        routes = routes_for(d)
        loads = port_loads(d)
        rate = min(
            count[step] * per_slot_bits / cycle_s / loads[at, step.bit_length() - 1]
            for r in routes.values()
            for at, step in r
        )
        per_host = rate * d.sum() / 16
        assert per_host == pytest.approx(predicted_per_host_bps(d, t), rel=1e-9)
        assert [o for o, _ in schedule_slots(d)] == sorted(count, reverse=True)


def test_workloads_rise_with_uptime_and_stride_beats_all_to_all_beats_bijection():
    ups = [150_000_000, 1_000_000_000, 10_000_000_000, 100_000_000_000]
    series = {}
    for w in ("all-to-all", "rolling-stride", "random-bijection"):
        series[w] = [
            workload_prediction(w, 16, SelectorTiming(uptime_ps=u), 100, 0)["per_host_bps"] for u in ups
        ]
        assert all(np.diff(series[w]) > 0), w
    for i in range(len(ups)):
        assert series["rolling-stride"][i] > series["all-to-all"][i] > series["random-bijection"][i]


def test_a_lag_beyond_the_preallocation_costs_its_share_of_the_period():
    base = SelectorTiming()
    late = SelectorTiming(lag_ps=base.prealloc_ps + 50_000_000)  # 50 us uncovered
    period = (base.uptime_ps + base.reconfig_ps) * 1e-12
    assert base.link_goodput_bps() - late.link_goodput_bps() == pytest.approx(10e9 * 50e-6 / period, rel=1e-9)


def test_bijections_are_seeded_derangements():
    a, b = random_bijections(16, 30, seed=4), random_bijections(16, 30, seed=4)
    assert all((x == y).all() for x, y in zip(a, b, strict=True))
    assert any((x != y).any() for x, y in zip(a, random_bijections(16, 30, seed=5), strict=True))
    for d in a:
        assert (d.sum(axis=0) == 1).all() and (d.sum(axis=1) == 1).all() and np.trace(d) == 0


def test_bad_timing_is_refused_naming_the_field():
    with pytest.raises(InputError, match="guard_ps"):
        SelectorTiming(uptime_ps=400_000).check()
    with pytest.raises(InputError, match="uptime_ps"):
        SelectorTiming(uptime_ps=0).check()
    with pytest.raises(InputError, match="workload"):
        workload_prediction("shuffle", 16, SelectorTiming())
    with pytest.raises(InputError, match="demand"):
        schedule_slots(np.eye(16, dtype=int))
