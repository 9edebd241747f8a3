"""Opera's two classes on the circuit engine through scenarios (routing.scheme = "opera"): low-latency flows
go hop by hop over the current slice's expander and finish far sooner than as bulk; with epsilon from the
formula a light low-latency load needs no re-route, and too small an epsilon gives counted re-routes; bad
cutoffs are refused naming the key. The cutoff's two sides (14,999,999 B low-latency, 15,000,000 B bulk) are
tested in the engine (crates/engine/tests/circuit.rs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from greendcn.sim.run import simulate

from conftest import assert_clean_error, run_greendcn

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "opera-mixed.toml"
LIGHT = [
    "workload.long_flows=0",
    "workload.short_flows=6",
    "workload.short_size=30KB",
    "workload.start_jitter=2ms",
]


def test_low_latency_flows_beat_the_bulk_path_and_everything_completes():
    opera = simulate(SCENARIO, progress=False)
    bulk = simulate(SCENARIO, overrides=["routing.scheme=rotorlb"], progress=False)
    for res in (opera, bulk):
        assert res.flows["fct_s"].notna().all()
        assert res.summary["no_path_drops"] == 0 and res.summary["no_circuit_drops"] == 0
    short = lambda r: r.flows[r.flows["class"] == "short"]["fct_s"]  # noqa: E731
    # 100 kB takes 80 us on a 10 Gb/s circuit; as bulk a short flow waits for its direct circuit or a relay.
    assert short(opera).quantile(0.99) < short(bulk).quantile(0.99) / 5
    assert "hop by hop" in opera.summary["opera_routing"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_epsilon_from_the_formula_needs_no_reroute_and_a_small_one_does(seed):
    ok = simulate(SCENARIO, overrides=LIGHT, seed=seed, progress=False)
    assert ok.summary["low_latency_reroutes"] == 0
    tight = simulate(SCENARIO, overrides=[*LIGHT, "topology.epsilon=3us"], seed=seed, progress=False)
    assert tight.summary["low_latency_reroutes"] > 0
    assert tight.flows["fct_s"].notna().all()  # re-routed, not lost


def test_a_negative_cutoff_is_refused_naming_the_key():
    out = run_greendcn("simulate", SCENARIO, "--set", "topology.cutoff=-1MB")
    assert_clean_error(out, "topology.cutoff")
