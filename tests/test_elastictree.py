"""ElasticTree: the heuristic against the exact subset, connectivity, savings against load, the engine's link
schedule through `simulate`, and the [elastictree] keys' errors."""

from __future__ import annotations

import numpy as np
import pytest

from greendcn.core.errors import InputError
from greendcn.sim import simulate
from greendcn.sim.elastictree import ElasticTree, FatTreeView, exact_subset, heuristic_subset
from greendcn.sim.elastictree.exact import carries, connected
from greendcn.sim.scenario import scenario_from_dict
from greendcn.sim.topology.fattree import fattree
from conftest import assert_clean_error, run_greendcn

GBPS = 1e9


def _demand(rng: np.random.Generator, n_edge: int, load: float) -> np.ndarray:
    """Random skewed edge-to-edge demand whose busiest edge sends or receives `load` x its hosts' 2 x 1 Gbps."""
    d = rng.random((n_edge, n_edge)) ** 3
    np.fill_diagonal(d, 0.0)
    return d / max(d.sum(axis=1).max(), d.sum(axis=0).max()) * load * 2 * GBPS


def test_heuristic_is_within_three_switches_of_the_exact_subset_on_k4():
    # Stated margin: on k = 4 the heuristic keeps at most 3 switches more than the minimum (15 % of the
    # network's 20; it balances cores over groups for ECMP and sizes every pod by its busiest edge; 180 random
    # demands gave 0 extra in 111, 1 in 41, 2 in 20, 3 in 8), and what it keeps carries the demand (so never
    # fewer than the minimum).
    view = FatTreeView.of(fattree(4))
    rng = np.random.default_rng(7)
    gaps = []
    for load in (0.05, 0.2, 0.4, 0.6, 0.8):
        for _ in range(3):
            d = _demand(rng, 8, load)
            exact = exact_subset(view, d, 0.8)
            heur = heuristic_subset(view, d, 0.8)
            assert exact is not None
            assert connected(view, heur)
            assert carries(view, heur, d, 0.8)
            assert heur.switches_on >= exact.switches_on
            gaps.append(heur.switches_on - exact.switches_on)
    assert max(gaps) <= 3, gaps
    assert min(gaps) == 0, "the heuristic finds the minimum on some demands"


def test_heuristic_never_cuts_a_host_pair_off():
    for k in (4, 6, 8):
        view = FatTreeView.of(fattree(k))
        n = len(view.edges)
        rng = np.random.default_rng(k)
        for load in (0.0, 0.01, 0.3, 1.0):
            s = heuristic_subset(view, _demand(rng, n, load) if load else np.zeros((n, n)), 0.5)
            assert connected(view, s), (k, load)
            assert s.aggs_on.reshape(k, k // 2).any(axis=1).all() and s.cores_on.any()


def test_switches_kept_on_grow_with_load():
    view = FatTreeView.of(fattree(8))
    base = _demand(np.random.default_rng(3), 32, 1.0)
    on = [heuristic_subset(view, base * load, 0.8).switches_on for load in (0.05, 0.2, 0.4, 0.6, 1.0)]
    assert on == sorted(on) and on[0] < on[-1], on
    assert on[-1] <= 32 + 16


def _scenario(load: float, enabled: bool) -> dict:
    return {
        "topology": {"kind": "fattree", "k": 4, "link_rate": "10Gbps", "link_delay": "1us"},
        "routing": {"scheme": "ecmp"},
        "workload": {
            "kind": "poisson",
            "size": "200KB",
            "load": load,
            "duration": "4ms",
            "pattern": "uniform",
        },
        "run": {"window": ["0ms", "4ms"], "stop_time": "200ms"},
        "elastictree": {"enabled": enabled, "interval": "500us", "wake_time": "50us", "margin": 0.8},
    }


def _network_j(res) -> float:
    s = res.window_energy.split
    return s["switches_energy_j"] + s["links_energy_j"]


def test_simulated_savings_fall_as_load_rises_and_nothing_is_lost():
    saved = []
    for load in (0.05, 0.5):
        off = simulate(_scenario(load, False), progress=False)
        on = simulate(_scenario(load, True), progress=False)
        assert on.engine_results["summary"]["drops"] <= off.engine_results["summary"]["drops"]
        assert on.flows["fct_s"].notna().all(), "every flow finishes over the subset"
        assert "schedule" in on.engine_results and "schedule" not in off.engine_results
        saved.append(1 - _network_j(on) / _network_j(off))
        rows = {d["name"]: d for d in on.window_energy.devices}
        assert rows["E0"]["off_s"] == 0.0, "edge switches stay on"
        if load == 0.05:
            assert rows["C3"]["off_s"] > 0.9 * 4e-3, "a light load leaves cores asleep nearly all the window"
    assert saved[0] > saved[1] > -1e-9, saved
    assert saved[0] > 0.2


def test_an_off_switch_draws_nothing_while_off():
    always = simulate(_scenario(0.05, False), progress=False)
    slept = simulate(_scenario(0.05, True), progress=False)
    window_s = 4e-3
    power = {d["name"]: d["avg_power_w"] for d in always.window_energy.devices}
    switches = [d for d in slept.window_energy.devices if d["kind"] == "node:switch"]
    assert any(d["off_s"] > 0 for d in switches)
    for d in switches:
        # The shipped switch model is constant: energy is its power times the time it is on.
        assert d["energy_j"] == pytest.approx(power[d["name"]] * (window_s - d["off_s"]), rel=1e-9)
        assert 0.0 <= d["off_s"] <= window_s


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ({"margin": 0}, "margin"),
        ({"margin": 1.5}, "margin"),
        ({"wake_time": "-1us"}, "wake_time"),
        ({"wake_time": "2ms", "interval": "1ms"}, "wake_time"),
    ],
)
def test_bad_elastictree_keys_name_the_key(table, key):
    with pytest.raises(InputError) as e:
        scenario_from_dict({"elastictree": {"enabled": True} | table})
    assert e.value.loc == ("elastictree", key)
    assert e.value.hint


def test_a_bad_key_on_the_command_line_is_one_error_line(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('[elastictree]\nenabled = true\ninterval = "1ms"\nwake_time = "2ms"\n')
    assert_clean_error(run_greendcn("simulate", path), "elastictree.wake_time")


def test_elastictree_on_a_circuit_fabric_is_refused():
    with pytest.raises(InputError) as e:
        scenario_from_dict(
            {
                "topology": {"kind": "rotornet"},
                "routing": {"scheme": "rotorlb"},
                "elastictree": {"enabled": True},
            }
        )
    assert e.value.loc[-1] == "enabled"


def test_config_defaults_are_valid_and_off():
    c = ElasticTree()
    assert not c.enabled and 0 < c.margin <= 1 and c.wake_time <= c.interval


def test_a_sleeping_switch_wakes_its_wake_time_before_its_interval():
    from greendcn.sim.elastictree import plan
    from greendcn.sim.elastictree.pricing import off_periods
    from greendcn.sim.topology import build_topology

    # Quiet until 2 ms, then every host sends 1 MB across pods: the cores sleep, then wake for 2 ms.
    flows = [{"src": f"S{i}", "dst": f"S{(i + 8) % 16}", "size": "1MB", "start": "2ms"} for i in range(16)]
    flows.append({"src": "S0", "dst": "S1", "size": "10KB"})
    sc = {
        "topology": {"kind": "fattree", "k": 4, "link_rate": "10Gbps", "link_delay": "1us"},
        "routing": {"scheme": "ecmp"},
        "workload": {"kind": "flows", "flows": flows},
        "elastictree": {"enabled": True, "interval": "500us", "wake_time": "100us", "margin": 0.8},
    }
    res = simulate(sc, progress=False)
    assert res.flows["fct_s"].notna().all()
    scenario = scenario_from_dict(sc)
    net = build_topology(scenario.topology)
    from greendcn.sim.workload import build_workload

    p = plan(net, build_workload(scenario, net, 1), scenario.elastictree)
    assert p.subsets[0].cores_on.sum() == 1 and p.subsets[4].cores_on.sum() > 1
    spans = off_periods(p, res.engine_results, res.engine_results["summary"]["sim_time_ps"])
    woken = [c for c in ("C1", "C2", "C3") if p.subsets[4].cores_on[int(c[1])]]
    assert woken
    for c in woken:
        # off from time 0 (nothing to drain) until 2 ms less the 100 us wake-up
        assert spans[c][0] == (0, 2_000_000_000 - 100_000_000), spans[c]


def test_the_power_series_carries_the_same_energy_as_the_devices():
    res = simulate(_scenario(0.05, True), progress=False)
    s = res.energy.series
    assert s is not None
    dur = np.asarray(s["duration_s"])
    assert float(np.dot(s["power_w"], dur)) == pytest.approx(res.energy.total_energy_j, rel=1e-6)
    switches = sum(d["energy_j"] for d in res.energy.devices if d["kind"] == "node:switch")
    assert float(np.dot(s["switches_power_w"], dur)) == pytest.approx(switches, rel=1e-6)
    asleep = [d for d in res.energy.devices if d.get("off_s", 0) > 0]
    assert asleep and all(
        sum(hi - lo for lo, hi in d["off_periods_s"]) == pytest.approx(d["off_s"]) for d in asleep
    )


def test_the_fabric_comparison_adds_each_fat_tree_under_elastictree_on_request():
    from greendcn.sim.fabrics import FabricsConfig, fabric_plan

    plain = fabric_plan(FabricsConfig(racks=8, circuit_switches=4))
    both = fabric_plan(FabricsConfig(racks=8, circuit_switches=4, elastictree=True))
    trees = [p["fabric"] for p in plain if p["topology"]["kind"] == "fattree"]
    added = both[len(plain) :]
    assert both[: len(plain)] == plain
    assert [p["fabric"] for p in added] == [f"{t} + ElasticTree" for t in trees]
    assert all(p["scenario"]["elastictree"]["enabled"] for p in added)
