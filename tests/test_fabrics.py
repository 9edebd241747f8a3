"""Opera as a circuit fabric (greendcn.sim.optical.opera_fabric), Opera scenarios through `simulate`, and the
fabric energy comparison (`greendcn fabrics`): the engine's schedule must be the Opera schedule slice by
slice, and every reported energy must be the sum of the devices that make it up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from greendcn.core.errors import InputError
from greendcn.sim.fabrics import FabricsConfig, fabric_plan, fabrics_workload, fattree_size
from greendcn.sim.optical.opera_fabric import opera_fabric, slice_ps
from greendcn.sim.run import simulate
from greendcn.sim.topology.opera import OperaParams, build_opera

from conftest import assert_clean_error, run_greendcn

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "opera-permutation.toml"
SIZES = [(12, 4), (16, 4), (12, 6), (18, 6)]


def _fabric(racks: int, switches: int, seed: int = 3):
    sched = build_opera(OperaParams(racks=racks, switches=switches, seed=seed, search_moves=60))
    return sched, opera_fabric(sched, 10 * 10**9)


@pytest.mark.parametrize("racks, switches", SIZES)
def test_the_engine_schedule_holds_the_opera_matching_in_the_middle_of_every_slice(racks, switches):
    sched, fab = _fabric(racks, switches)
    sl, r = slice_ps(sched), round(sched.params.reconfig_s * 1e12)
    assert sl - r > r  # epsilon > r, so a slice's middle lies before any reconfiguration inside it
    for cycle in (0, 1):  # the schedule repeats after N slices
        for t in range(racks):
            mid = (cycle * racks + t) * sl + sl // 2
            for s in range(switches):
                want = sched.partners[sched.held(s, t)]
                k, _ = fab.switches[s].slot_at(mid)
                assert fab.switches[s].slots[k].matching == tuple(int(x) for x in want), (t, s)
                for p in range(racks):
                    got = fab.circuit_at(s, p, mid)
                    assert (p if got is None else got[0]) == want[p]


@pytest.mark.parametrize("racks, switches", SIZES)
def test_exactly_one_switch_reconfigures_per_slice_and_it_is_the_scheduled_one(racks, switches):
    sched, fab = _fabric(racks, switches)
    sl = slice_ps(sched)
    cycle = racks * sl
    assert all(sw.cycle_ps() == cycle for sw in fab.switches)
    in_slice: dict[int, list[int]] = {t: [] for t in range(racks)}
    for s, sw in enumerate(fab.switches):
        start = sw.phase_ps
        for slot in sw.slots:
            gap_start = (start + slot.uptime_ps) % cycle
            gap_end = gap_start + slot.reconfig_ps
            t = gap_start // sl
            assert gap_end <= (t + 1) * sl  # the reconfiguration ends inside its slice, at its end
            assert gap_end == (t + 1) * sl
            in_slice[t].append(s)
            start += slot.period_ps
    assert all(len(v) == 1 for v in in_slice.values()), in_slice
    assert all(v[0] == sched.reconfiguring(t) for t, v in in_slice.items())


@pytest.mark.parametrize("racks, switches", SIZES)
def test_every_pair_self_included_meets_exactly_once_per_cycle(racks, switches):
    _, fab = _fabric(racks, switches)
    met: dict[tuple[int, int], int] = {}
    for sw in fab.switches:
        assert len(sw.slots) == racks // switches
        for slot in sw.slots:
            for p, q in enumerate(slot.matching):
                if p <= q:
                    met[(p, q)] = met.get((p, q), 0) + 1
    assert len(met) == racks * (racks + 1) // 2
    assert set(met.values()) == {1}


def test_an_opera_scenario_runs_through_simulate_priced_with_selector_v2():
    res = simulate(SCENARIO, progress=False)
    assert res.summary["fabric"] == "opera" and res.summary["routing"] == "rotorlb"
    assert "bulk via RotorLB" in res.summary["opera_routing"]
    assert res.flows["fct_s"].notna().all() and res.summary["no_circuit_drops"] == 0
    assert res.summary["payload_bytes_delivered"] == 12 * 10_000_000
    e = res.energy
    assert e.total_energy_j == pytest.approx(sum(d["energy_j"] for d in e.devices), rel=1e-12)
    # u = 4 selector v2 switches (seed 001 Table 2.1: 27.6 W) + 12 SN2700 ToRs (90.5 W), constant power
    assert e.avg_power_w == pytest.approx(4 * 27.6 + 12 * 90.5)
    assert e.total_energy_j == pytest.approx(e.avg_power_w * res.summary["sim_time_s"], rel=1e-12)
    assert {d["model"] for d in e.devices if d["name"].startswith("circuit")} == {"selector_v2"}


def test_a_given_epsilon_sets_the_slice():
    res = simulate(SCENARIO, overrides=["topology.epsilon=40us", "workload.size=100KB"], progress=False)
    from greendcn.sim.optical.scenario_run import build_fabric

    fab = build_fabric(res.scenario.topology)
    # uptime = u x (epsilon + r) - r = 4 x 50 us - 10 us
    assert {slot.uptime_ps for sw in fab.switches for slot in sw.slots} == {190_000_000}


@pytest.mark.parametrize(
    "sets, words",
    [
        (["topology.circuit_switches=5"], ["topology.circuit_switches", "divide"]),
        (["topology.circuit_switches=1", "topology.racks=12"], ["topology.circuit_switches"]),
        (["topology.epsilon=100ns"], ["topology.epsilon", "shorter"]),
        (["routing.scheme=direct"], ["routing.scheme", "opera"]),
        (["topology.circuit_switches=2"], ["topology.circuit_switches", "connect"]),
    ],
)
def test_bad_opera_settings_name_the_key(sets, words):
    out = run_greendcn("simulate", SCENARIO, *[a for s in sets for a in ("--set", s)])
    assert_clean_error(out, *words)


def test_the_plan_keeps_hosts_and_rates_equal_and_sizes_fat_trees_to_hold_them():
    cfg = FabricsConfig(racks=12, circuit_switches=4)
    plan = fabric_plan(cfg)
    names = [p["fabric"] for p in plan]
    assert names == ["opera", "rotornet", "selectornet", "fat-tree 1:1", "fat-tree 3:1"]
    rates = {p["topology"]["link_rate"] for p in plan}
    assert len(rates) == 1
    for p in plan:
        t = p["topology"]
        if t["kind"] == "fattree":
            assert t["k"] ** 3 * t["oversubscription"] / 4 >= cfg.hosts
        else:
            assert t["racks"] * p["hosts_per_endpoint"] == cfg.hosts
            assert t["circuit_switches"] == p["hosts_per_endpoint"]  # rack uplink = its hosts' rate
    assert fattree_size(48, 3.0) == 4 and fattree_size(48, 1.0) == 6 and fattree_size(648, 1.5) == 12
    with_k12 = [p["fabric"] for p in fabric_plan(FabricsConfig(racks=108, circuit_switches=6))]
    assert "fat-tree k=12 (cost-equivalent)" in with_k12
    assert "selectornet" not in with_k12  # 648 = 8 racks x 81 hosts: more than a 32-port ToR can serve
    # every flow crosses a circuit: source and destination in different racks of every circuit fabric
    for s, d, _ in fabrics_workload(cfg, plan):
        assert s // 4 != d // 4 and s // 3 != d // 3


def test_energy_fabrics_end_to_end_with_json(tmp_path):
    doc_path, fig = tmp_path / "f.json", tmp_path / "f.png"
    out = run_greendcn("fabrics", "--quick", "--json", doc_path, "--figure", fig)
    assert out.returncode == 0, out.stderr
    assert "opera" in out.stdout and "fat-tree 3:1" in out.stdout and "not comparable" in out.stdout
    assert fig.stat().st_size > 0
    doc = json.loads(doc_path.read_text())
    assert doc["config"]["hosts"] == 32 and doc["config"]["link_rate_bps"] == 10**10
    rows = {r["fabric"]: r for r in doc["fabrics"]}
    assert set(rows) == {"opera", "rotornet", "selectornet", "fat-tree 1:1", "fat-tree 3:1"}
    for r in rows.values():
        for key in ("throughput_bps", "fct_p50_s", "fct_p99_s", "energy_j", "power_w", "energy_per_bit_pj"):
            assert r[key] is not None and r[key] > 0, (r["fabric"], key)
        assert r["energy_j"] == pytest.approx(sum(d["energy_j"] for d in r["devices"]), rel=1e-12)
        assert r["power_w"] == pytest.approx(sum(d["power_w"] for d in r["devices"]), rel=1e-9)
        assert r["energy_per_bit_pj"] == pytest.approx(r["energy_j"] / r["delivered_bits"] * 1e12)
        assert r["fct_p50_s"] <= r["fct_p99_s"]
        assert r["delivered_bits"] <= r["flows"] * 200_000 * 8
    assert rows["opera"]["network_power_w"] == pytest.approx(4 * 27.6 + 8 * 90.5)  # selector v2 + SN2700 ToRs
    # the workload's 32 hosts are priced on every fabric (the 1:1 tree's 22 idle extra hosts are not)
    for r in rows.values():
        hosts = [d for d in r["devices"] if d.get("host")]
        assert len(hosts) == r["hosts_priced"] == 32, r["fabric"]
        assert r["hosts_energy_j"] == pytest.approx(sum(d["energy_j"] for d in hosts), rel=1e-12)
        assert r["energy_j"] == pytest.approx(r["hosts_energy_j"] + r["network_energy_j"], rel=1e-12)
        assert 0 < r["host_share"] < 1
    assert "host_%" in out.stdout


def test_energy_fabrics_without_hosts_prices_the_network_alone(tmp_path):
    doc_path = tmp_path / "f.json"
    out = run_greendcn(
        "energy", "fabrics", "--quick", "--no-hosts", "--json", doc_path, "--figure", tmp_path / "f.png"
    )
    assert out.returncode == 0, out.stderr
    assert "host_%" not in out.stdout and "hosts not priced" in out.stdout
    doc = json.loads(doc_path.read_text())
    assert doc["config"]["hosts_priced"] is False
    rows = {r["fabric"]: r for r in doc["fabrics"]}
    for r in rows.values():
        assert r["hosts_energy_j"] == 0 and r["hosts_priced"] == 0
        assert not any(d.get("host") for d in r["devices"])
        assert r["energy_j"] == pytest.approx(r["network_energy_j"], rel=1e-12)
    assert rows["rotornet"]["power_w"] == pytest.approx(4 * 2.7 + 8 * 90.5)  # selector v1 + SN2700 ToRs


@pytest.mark.parametrize(
    "args, words",
    [
        (["--switches", "5"], ["switches", "divide"]),
        (["--racks", "7"], ["racks"]),
        (["--size", "0"], ["size"]),
        # one matching up per slice never connects 12 racks: the scenario's refusal names the command's option
        (["--racks", "12", "--switches", "2"], ["--switches", "opera", "connect"]),
    ],
)
def test_energy_fabrics_bad_options(args, words):
    assert_clean_error(run_greendcn("fabrics", *args), *words)


def test_the_config_refuses_u_not_dividing_n_in_the_api():
    with pytest.raises(InputError) as e:
        FabricsConfig(racks=12, circuit_switches=5).check()
    assert e.value.loc == ("switches",)


def test_thesis_sizes_give_a_cycle_of_108_slices_of_100_us():
    # seed 001 lines 927-931: 108 racks, 6 switches, epsilon = 90 us; r = 10 us is the public Opera simulator's.
    # The thesis's "switch uptime of 10.8 ms" is N slices of epsilon + r; each matching is held u slices - r.
    sched = build_opera(OperaParams(epsilon=90e-6, search_moves=0))
    fab = opera_fabric(sched, 10 * 10**9)
    assert slice_ps(sched) == 100_000_000
    assert fab.cycle_ps() == 108 * 100_000_000 == 10_800_000_000
    assert all(len(sw.slots) == 18 for sw in fab.switches)
    assert {slot.uptime_ps for sw in fab.switches for slot in sw.slots} == {6 * 100_000_000 - 10_000_000}


def test_demo_shows_the_fabric_comparison_before_seed_003(tmp_path):
    out = run_greendcn("demo", "--json", tmp_path / "d.json")
    assert out.returncode == 0, out.stderr
    assert out.stdout.index("fat-tree 3:1") < out.stdout.index("seed003-static")
    doc = json.loads((tmp_path / "d.json").read_text())
    names = [r["fabric"] for r in doc["fabrics"]["fabrics"]]
    assert names[0] == "opera" and "fat-tree 1:1" in names
    assert len(doc["rows"]) == 4  # seed 003's table follows


def test_simulate_prints_that_opera_runs_everything_as_bulk(tmp_path):
    out = run_greendcn("simulate", SCENARIO, "--set", "workload.size=100KB", "--json", tmp_path / "o.json")
    assert out.returncode == 0, out.stderr
    assert "opera: all traffic runs as bulk via RotorLB" in out.stdout
    assert json.loads((tmp_path / "o.json").read_text())["summary"]["fabric"] == "opera"
