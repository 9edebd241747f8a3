"""ElasticTree's pricing reads the engine's link directions and nodes as columns (sim/ledger_columns.py): the
same link names as a row-by-row reading, and the same priced report from the engine's `Records` as from plain
records, value for value (the power series too), with and without port-by-port pricing (EEE)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from greendcn.power.models import ConstantPower, Counters, LinearPower
from greendcn.sim import simulate
from greendcn.sim.elastictree import pricing


def scenario(eee: bool) -> dict:
    return {
        "topology": {"kind": "fattree", "k": 4, "link_rate": "10Gbps", "link_delay": "1us"},
        "workload": {"kind": "poisson", "size": "200KB", "load": 0.05, "duration": "2ms"},
        "run": {"window": ["0ms", "2ms"], "stop_time": "50ms"},
        "eee": {"enabled": eee},
        "elastictree": {"enabled": True, "interval": "500us", "wake_time": "50us", "margin": 0.8},
    }


def row_by_row_link_names(results: dict) -> dict[int, str]:
    """The reference: the first direction of each link, read as dicts."""
    nodes = list(results["nodes"])
    names: dict[int, str] = {}
    for d in results["links"]:
        names.setdefault(d["link"], f"link{d['link']}:{nodes[d['from']]['name']}-{nodes[d['to']]['name']}")
    return names


@pytest.mark.parametrize("eee", [False, True])
def test_pricing_from_columns_equals_pricing_from_records(monkeypatch, eee):
    calls = []
    real = pricing.apply_sleep

    def both(report, results, models, plan, interval_ps):
        plain = dict(
            results, links=[dict(d) for d in results["links"]], nodes=[dict(n) for n in results["nodes"]]
        )
        assert not isinstance(plain["links"], type(results["links"]))  # the engine's Records, against a list
        by_rows = real(copy.deepcopy(report), plain, models, plan, interval_ps)
        out = real(report, results, models, plan, interval_ps)
        calls.append((out, by_rows))
        assert pricing._link_names(results) == row_by_row_link_names(results)
        return out

    monkeypatch.setattr(pricing, "apply_sleep", both)
    res = simulate(scenario(eee), progress=False)
    assert len(calls) == 2  # the run and its window
    for out, by_rows in calls:
        assert out.devices == by_rows.devices
        assert (out.total_energy_j, out.split) == (by_rows.total_energy_j, by_rows.split)
        assert out.series == by_rows.series
        assert any(d.get("off_s", 0) > 0 for d in out.devices)  # something slept
    assert calls[0][0].series is not None  # the run's power series, with the off time taken out
    if eee:
        assert any("ports_off_s" in d for d in res.energy.devices)  # priced port by port


@pytest.mark.parametrize(
    "model", [LinearPower(static_w=123.4, per_port_w=1.7, joules_per_bit=1e-12), ConstantPower(watts=97.3)]
)
def test_the_series_takes_out_the_same_idle_energy_as_a_model_call_per_window(model):
    w = 0.37e-3
    series = {
        "window_s": w,
        "duration_s": [w] * 7 + [0.11e-3],
        "power_w": [900.0] * 8,
        "switches_power_w": [800.0] * 8,
    }
    spans = [(int(0.2e9), int(1.3e9)), (int(2.0e9), int(2.6e9))]  # ps
    got = copy.deepcopy(series)
    pricing._sleep_in_series(got, "switches", model, 4, spans, 0.5)
    # the reference: the model called on each window's time off
    dur = np.asarray(series["duration_s"])
    starts = np.arange(len(dur)) * w
    off = sum(
        np.clip(np.minimum(hi * 1e-12, starts + dur) - np.maximum(lo * 1e-12, starts), 0, None)
        for lo, hi in spans
    )
    idle = np.array([model.energy_j(Counters(duration_s=float(x), ports=4)) if x > 0 else 0.0 for x in off])
    drop = (idle - 0.5 * off) / dur
    assert got["power_w"] == (np.asarray(series["power_w"]) - drop).tolist()
    assert got["switches_power_w"] == (np.asarray(series["switches_power_w"]) - drop).tolist()


def off_periods_interval_by_interval(plan, results, end_ps):
    """The reference: off periods device by device, interval by interval, each appended to the device's list
    (joined with its last period when they meet), as pricing computed them before its arrays."""
    sched = plan.link_schedule()
    times = sched["times_ps"]
    drained = (results.get("schedule") or {}).get("drained_ps")
    if drained is None:
        drained = [[t] * len(o) for t, o in zip(times, sched["off_links"])]
    names = [n["name"] for n in results["nodes"]]
    link_name = row_by_row_link_names(results)
    view, wake = plan.view, plan.config.wake_time
    half = view.half
    out: dict[str, list[tuple[int, int]]] = {}

    def add(name, start, stop):
        stop = min(stop, end_ps)
        if stop > start:
            spans = out.setdefault(name, [])
            if spans and spans[-1][1] == start:
                spans[-1] = (spans[-1][0], stop)
            else:
                spans.append((start, stop))

    def links_of(layer, i):
        if layer == "agg":
            pod = i // half
            edge = [int(x) for x in view.edge_agg[pod * half : pod * half + half, i % half]]
            return edge + [int(x) for x in view.agg_core[i]]
        j, c = divmod(i, half)
        return [int(view.agg_core[a, c]) for a in range(j, len(view.aggs), half)]

    n = len(times)
    for e in range(n):
        end = times[e + 1] if e + 1 < n else end_ps
        drained_at = dict(zip(sched["off_links"][e], drained[e]))
        off_next = set(sched["off_links"][e + 1]) if e + 1 < n else None
        for link, at in drained_at.items():
            add(link_name[link], at, end - wake if off_next is not None and link not in off_next else end)
        s, nxt = plan.subsets[e], plan.subsets[e + 1] if e + 1 < n else None
        for layer, on, ids in (("agg", s.aggs_on, view.aggs), ("core", s.cores_on, view.cores)):
            for i in np.flatnonzero(~on):
                at = max([times[e]] + [drained_at.get(li, times[e]) for li in links_of(layer, int(i))])
                waking = nxt is not None and bool((nxt.aggs_on if layer == "agg" else nxt.cores_on)[i])
                add(names[int(ids[i])], at, end - wake if waking else end)
    return out


def test_off_periods_on_arrays_equal_the_interval_by_interval_periods(monkeypatch):
    from dataclasses import replace

    seen = []
    real = pricing.apply_sleep

    def grab(report, results, models, plan, interval_ps):
        seen.append((results, plan, interval_ps))
        return real(report, results, models, plan, interval_ps)

    monkeypatch.setattr(pricing, "apply_sleep", grab)
    simulate(scenario(False), progress=False)
    results, plan, (_, end) = seen[0]
    # the run as planned; with random subsets and drain times; without the engine's drain report; cut short
    rng = np.random.default_rng(7)
    subsets = [
        replace(s, aggs_on=rng.random(len(s.aggs_on)) < 0.5, cores_on=rng.random(len(s.cores_on)) < 0.5)
        for s in plan.subsets
    ]
    shuffled = replace(plan, subsets=subsets)
    off = shuffled.link_schedule()
    drains = {
        "drained_ps": [
            [t + int(rng.integers(0, plan.interval_ps)) for _ in o]
            for t, o in zip(off["times_ps"], off["off_links"])
        ]
    }
    all_on = replace(
        plan, subsets=[replace(s, aggs_on=s.aggs_on | True, cores_on=s.cores_on | True) for s in subsets]
    )
    cases = [
        (plan, results, end),
        (shuffled, dict(results, schedule=drains), end),
        (shuffled, dict(results, schedule=None), end),
        (plan, results, plan.interval_ps * 2 + 12_345),
        (all_on, dict(results, schedule=None), end),  # every switch on: nothing off
    ]
    for p, r, stop in cases:
        want = off_periods_interval_by_interval(p, r, stop)
        got = pricing.off_periods(p, r, stop)
        assert got == want and list(got) == list(want)  # the same periods, names in the same order
        assert all(type(x) is int for spans in got.values() for span in spans for x in span)
    assert any(len(v) > 1 for v in pricing.off_periods(*cases[1][:2], end).values())  # some devices wake
    assert pricing.off_periods(*cases[-1]) == {}
