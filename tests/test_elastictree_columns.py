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
