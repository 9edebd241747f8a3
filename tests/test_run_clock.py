"""When a run ends and what its energy is over: a finished run's energy does not depend on run.stop_time, and
run.window prices an observation window, every device drawing its power over all of it."""

import pytest

from greendcn.core.errors import InputError
from greendcn.sim import simulate
from greendcn.sim.reproduce.rps import seed003_scenario
from greendcn.sim.scenario import scenario_from_dict


def one_flow(**run):
    # Seed 003's static scenario with one 1 MB flow S0 -> S15 (and its 200 KB short flow): done in ~10 ms.
    raw = seed003_scenario("static", long_flows=1, long_size="1MB")
    raw["run"] = {**raw.get("run", {}), **run}
    return raw


def test_energy_no_longer_depends_on_the_stop_time_once_the_flows_are_done():
    # tcp.min_rto is 1 s by default: every ACK re-arms the sender's timer ~1 s ahead, and the last one leaves
    # a cancelled timer past each of these stop times. It used to end the run at the stop time, so the
    # switches and hosts were priced until then (the energy grew about tenfold from 100 ms to 1 s).
    free = simulate(one_flow(), progress=False)
    assert free.flows["fct_s"].notna().all()
    assert free.summary["stopped_by"] == "completion"
    last = (free.flows["start_s"] + free.flows["fct_s"]).max()
    assert last <= free.summary["sim_time_s"] < last + 1e-3  # the last ACKs' way back, a few hops
    for stop in ("100ms", "1s", "5s"):
        r = simulate(one_flow(stop_time=stop), progress=False)
        assert r.summary["stopped_by"] == "completion", stop
        assert r.summary["sim_time_s"] == free.summary["sim_time_s"], stop
        assert r.energy.total_energy_j == free.energy.total_energy_j, stop
        assert r.energy.split == free.energy.split, stop


def test_a_stop_time_before_the_last_completion_still_ends_the_run_there():
    r = simulate(one_flow(stop_time="3ms"), progress=False)
    assert r.summary["stopped_by"] == "time_limit" and r.summary["sim_time_s"] == pytest.approx(3e-3)
    assert r.energy.interval == {
        "name": "run",
        "start_s": 0.0,
        "end_s": r.summary["sim_time_s"],
        "length_s": r.summary["sim_time_s"],
    }


@pytest.mark.parametrize("window", [("2ms", "7ms", 5e-3), ("5ms", "100ms", 95e-3), ("40ms", "60ms", 20e-3)])
def test_constant_power_devices_draw_power_times_window(window):
    # Switches at the SN2700's constant power and hosts at a constant 30 W: each device's energy over the
    # window is its power times the window's length, whether the window is busy (2-7 ms), runs past the
    # run's end (5-100 ms; the run ends near 10 ms) or lies wholly after it (40-60 ms).
    start, end, length = window
    raw = one_flow(window=[start, end])
    raw["power"] = {"host_w": 30.0}
    r = simulate(raw, progress=False)
    run_s = r.summary["sim_time_s"]
    w = r.window_energy
    assert w.interval == {
        "name": "window",
        "start_s": pytest.approx(float(start[:-2]) * 1e-3),
        "end_s": pytest.approx(float(end[:-2]) * 1e-3),
        "length_s": pytest.approx(length),
    }
    power = {
        d["name"]: d["energy_j"] / run_s for d in r.energy.devices
    }  # constant: J over the run / its time
    assert len(w.devices) == len(power) == 16 + 20
    for d in w.devices:
        assert d["energy_j"] == pytest.approx(power[d["name"]] * length, rel=1e-9), d["name"]
    assert w.total_energy_j == pytest.approx(sum(power.values()) * length, rel=1e-9)
    assert r.summary["window_energy_j"] == w.total_energy_j and r.summary["window_length_s"] == pytest.approx(
        length
    )
    assert r.energy.interval["name"] == "run"  # the run's own report is unchanged
    if start == "40ms":
        assert w.delivered_bits == 0 and w.energy_per_bit_pj is None  # nothing moves after the run


def test_hosts_priced_by_their_models_draw_idle_power_over_a_window_after_the_run():
    # With the host models, a host's power depends on its load; after the run every host is idle, so over a
    # window there each draws what an idle host (S5 never sends or receives) drew on average over the run.
    r = simulate(one_flow(window=["40ms", "50ms"]), progress=False)
    run_s = r.summary["sim_time_s"]
    idle_w = next(d["energy_j"] for d in r.energy.devices if d["name"] == "S5") / run_s
    hosts = [d for d in r.window_energy.devices if d["kind"] == "node:host"]
    assert len(hosts) == 16
    for d in hosts:  # S0 and S15 carried the flows during the run, not in the window
        assert d["energy_j"] == pytest.approx(idle_w * 10e-3, rel=1e-9), d["name"]


def test_the_busy_part_of_a_run_costs_hosts_more_than_an_idle_window_of_the_same_length():
    r = simulate(one_flow(window=["0ms", "5ms"]), progress=False)
    busy = {d["name"]: d["energy_j"] for d in r.window_energy.devices}
    after = simulate(one_flow(window=["40ms", "45ms"]), progress=False)
    idle = {d["name"]: d["energy_j"] for d in after.window_energy.devices}
    assert busy["S0"] > idle["S0"] and busy["S15"] > idle["S15"]
    assert busy["S5"] == pytest.approx(idle["S5"], rel=1e-9)


@pytest.mark.parametrize(
    "run, words",
    [
        ({"window": ["10ms", "10ms"]}, ["run.window", "end after it starts"]),
        ({"window": ["10ms", "60ms"], "stop_time": "50ms"}, ["run.window", "stop_time"]),
        ({"window": ["10ms"]}, ["run.window"]),
        ({"size_buckets": ["1MB", "100KB"]}, ["run.size_buckets", "increasing"]),
    ],
)
def test_bad_windows_and_buckets_are_refused_with_the_key_named(run, words):
    with pytest.raises(InputError) as e:
        scenario_from_dict(one_flow(**run))
    for w in words:
        assert w in str(e.value), str(e.value)


def test_a_finished_circuit_run_ignores_a_later_stop_time_too():
    # RotorNet's schedule keeps queuing slot starts after the last packet; one just past a stop time 1 ns after
    # the run's end used to stop the run there (time_limit, 1 ns more of every device's power).
    from math import ceil
    from pathlib import Path

    scenario = Path(__file__).resolve().parent.parent / "scenarios" / "rotornet-permutation.toml"
    free = simulate(scenario, progress=False)
    end_ns = ceil(free.summary["sim_time_s"] * 1e9)
    for stop in (f"{end_ns + 1}ns", "100ms"):
        r = simulate(scenario, overrides=[f"run.stop_time={stop}"], progress=False)
        assert r.summary["stopped_by"] == "completion", stop
        assert r.summary["sim_time_s"] == free.summary["sim_time_s"], stop
        assert r.energy.total_energy_j == free.energy.total_energy_j, stop


def test_a_circuit_window_prices_the_constant_power_devices_over_the_window():
    from pathlib import Path

    scenario = Path(__file__).resolve().parent.parent / "scenarios" / "rotornet-permutation.toml"
    r = simulate(scenario, overrides=['run.window=["5ms", "30ms"]'], progress=False)
    w = r.window_energy
    assert w.interval["name"] == "window" and w.interval["length_s"] == pytest.approx(25e-3)
    assert w.total_energy_j == pytest.approx((2.7 + 8 * 90.5) * 25e-3, rel=1e-12)  # selector v1 + 8 SN2700
    # payload delivered in the window: all of it arrives between 5 ms and the run's end (17.4 ms) but what
    # came before 5 ms
    assert 0 < w.delivered_bits < 8 * r.flows["bytes_received"].sum()


def test_a_window_that_cuts_the_engine_windows_still_prices_every_device_over_its_length():
    # power.window = 3 ms keeps the engine's windows at 0-3, 3-6, 6-9 ms...; the window 2-7 ms cuts the first
    # and the last, whose counts then count in proportion to the overlap. An idle host (S5) draws the same
    # power in every window, so its energy is still that power x 5 ms; the busy sender draws more.
    raw = one_flow(window=["2ms", "7ms"])
    raw["power"] = {"window": "3ms"}
    r = simulate(raw, progress=False)
    assert r.engine_results["series"]["window_ps"] == 3_000_000_000
    run_s = r.summary["sim_time_s"]
    idle_w = next(d["energy_j"] for d in r.energy.devices if d["name"] == "S5") / run_s
    got = {d["name"]: d["energy_j"] for d in r.window_energy.devices}
    assert got["S5"] == pytest.approx(idle_w * 5e-3, rel=1e-9)
    assert got["S0"] > got["S5"]
    assert got["E0"] == pytest.approx(90.5 * 5e-3, rel=1e-12)  # the SN2700's constant 90.5 W
