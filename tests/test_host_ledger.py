"""Hosts in the energy ledger (greendcn.sim.host_power): idle and loaded hosts against hand calculations from
seed 004's published coefficients, the host/switch/link split, the series, the defaults, and bad host tables."""

import json
import math
import tomllib
from pathlib import Path

import numpy as np
import pytest

from conftest import assert_clean_error, run_greendcn
from greendcn.core.errors import InputError
from greendcn.power.optimizer import optimize, power_curve
from greendcn.power.router import example_platform
from greendcn.sim import simulate
from greendcn.sim.host_power import HostPowerConfig
from greendcn.sim.ledger import run_energy
from greendcn.sim.power_table import PowerConfig
from greendcn.sim.reproduce.rps import seed003_scenario
from greendcn.sim.run import reprice

ROOT = Path(__file__).resolve().parent.parent
# Seed 004 line 197: a0..a7 of chi, typed here from the paper (not read from the package) for the hand checks.
A = (0.0, 0.470487, 15.0124, -89.8629, 223.074, -256.469, 130.477, -21.6999)
# The shipped example platform (power/data/xeon_example.toml): 4 cores; at 3 GHz r_max 1,040 kpps,
# Phi_idle 9.5 W, Phi_active 28.96 W; at 2 GHz Phi_idle 8 W; an inactive core 1 W; gamma(2) = 1.95.
R3, IDLE3, ACTIVE3, IDLE2, INACTIVE = 1_040_000, 9.5, 28.96, 8.0, 1.0
W_PS = 1_000_000_000  # 1 ms windows


def chi_by_hand(t: float) -> float:
    return sum(a * t**i for i, a in enumerate(A))


def results(sent0: int = 0, recv0: int = 0, windows: int = 4, last_fraction: float = 1.0) -> dict:
    """Two hosts H0, H1 on a switch E0 (hand-made, in the engine's format). H0 sends `sent0` and receives
    `recv0` packets in every window; H1 does nothing. The run lasts windows - 1 + last_fraction ms."""
    nodes = [("H0", "host"), ("H1", "host"), ("E0", "switch")]
    links = [(0, 2), (1, 2)]
    dirs = []
    for i, (a, b) in enumerate(links):
        for d, (x, y) in enumerate([(a, b), (b, a)]):
            dirs.append(
                {
                    "link": i,
                    "dir": 2 * i + d,
                    "from": x,
                    "to": y,
                    "bytes_sent": 1500 * windows,
                    "packets_sent": windows,
                    "busy_ps": 12_000_000 * windows,
                }
            )
    sim_ps = round((windows - 1 + last_fraction) * W_PS)
    return {
        "flows": [{"id": 0, "bytes_received": 1_000_000}],
        "links": dirs,
        "nodes": [{"name": n, "kind": k} for n, k in nodes],
        "summary": {"sim_time_ps": sim_ps},
        "series": {
            "window_ps": W_PS,
            "link_bytes": [[1500] * windows for _ in dirs],
            "host_packets_sent": [[sent0] * windows, []],
            "host_bytes_sent": [[1500 * sent0] * windows, []],
            "host_packets_received": [[recv0] * windows, []],
            "host_bytes_received": [[1500 * recv0] * windows, []],
        },
    }


def price(res: dict, **hosts) -> object:
    cfg = PowerConfig(hosts=HostPowerConfig(**hosts) if hosts else None, link_port_w=0.5)
    return run_energy(res, cfg.models(), hosts=cfg.host_pricer())


def host(rep, name: str) -> dict:
    return next(d for d in rep.devices if d["name"] == name)


def test_chi_by_hand_matches_the_published_value_at_one_half():
    # 0.5 a1 + 0.25 a2 + 0.125 a3 + ... term by term: 0.2352435 + 3.7531 - 11.2328625 + 13.942125
    # - 8.01465625 + 2.038703125 - 0.16953046875 = 0.55212240625
    assert chi_by_hand(0.5) == pytest.approx(0.55212240625, abs=1e-12)


@pytest.mark.parametrize(
    "policy, watts",
    [
        ("fixed", 4 * IDLE3),  # every core idle at 3 GHz (the defaults)
        ("affcon", IDLE3 + 3 * IDLE2),  # the working core at performance, the rest at powersave
        ("optimizer", IDLE2 + 3 * INACTIVE),  # one core awake at the cheapest frequency, three parked
    ],
)
def test_an_idle_host_draws_its_idle_power_times_the_run_time(policy, watts):
    rep = price(results(windows=4, last_fraction=0.25), policy=policy)
    t = 3.25e-3
    assert host(rep, "H1")["energy_j"] == pytest.approx(watts * t, rel=1e-12)
    assert host(rep, "H1")["avg_power_w"] == pytest.approx(watts, rel=1e-12)


def test_a_host_at_a_known_packet_rate_draws_phi_at_that_rate():
    # 1,040 packets sent per 1 ms window and none received: load (sent + received) / 2 = 520 kpps, so
    # t = r / r_max(3 GHz) = 0.5 on the one working core; the other three idle at 3 GHz (policy fixed).
    rep = price(results(sent0=1040), policy="fixed", frequency="3GHz")
    want_w = IDLE3 + (ACTIVE3 - IDLE3) * chi_by_hand(0.5) + 3 * IDLE3
    assert want_w == pytest.approx(48.744302, abs=1e-6)  # 38 + 19.46 x 0.55212240625
    assert host(rep, "H0")["avg_power_w"] == pytest.approx(want_w, rel=1e-9)
    assert host(rep, "H0")["nic_energy_j"] == 0.0  # nothing received: no receive overhead


def test_two_working_cores_split_the_load_with_gamma():
    # Eq. 9-10: each of 2 cores gets 260 kpps against a capacity of gamma(2)/2 r_max = 0.975 x 1,040 kpps.
    rep = price(results(sent0=1040), policy="fixed", cores=2)
    t = 260_000 / (1.95 / 2 * R3)
    want_w = 2 * IDLE3 + 2 * (ACTIVE3 - IDLE3) * chi_by_hand(t) + 2 * IDLE3
    assert host(rep, "H0")["avg_power_w"] == pytest.approx(want_w, rel=1e-9)


def test_receive_overhead_of_per_packet_interrupts_is_one_interrupt_cost_per_packet():
    # 10 packets per ms = 10 kpps received under interrupt mode: 10,000 interrupts/s of 5 us (nic.params
    # defaults, our choice) = 0.05 of a core, priced at Phi_active - Phi_idle at 3 GHz.
    rep = price(results(recv0=10), nic="interrupt")
    h = host(rep, "H0")
    t = 4e-3
    assert h["nic_energy_j"] == pytest.approx((ACTIVE3 - IDLE3) * 10_000 * 5e-6 * t, rel=1e-9)
    assert h["interrupts"] == pytest.approx(10 * 4)
    napi = host(price(results(recv0=10), nic="napi:64"), "H0")
    assert napi["interrupts"] <= h["interrupts"]  # NAPI never takes more interrupts than packets


def test_total_is_hosts_plus_switches_plus_links_and_the_series_integrates_to_it():
    rep = price(results(sent0=300, recv0=200, windows=5, last_fraction=0.4), policy="affcon")
    sp = rep.split
    assert sp["links_energy_j"] > 0 and sp["switches_energy_j"] > 0 and sp["hosts_energy_j"] > 0
    assert rep.total_energy_j == pytest.approx(
        sp["hosts_energy_j"] + sp["switches_energy_j"] + sp["links_energy_j"], rel=1e-12
    )
    assert rep.total_energy_j == pytest.approx(sum(d["energy_j"] for d in rep.devices), rel=1e-12)
    s = rep.series
    dur = np.array(s["duration_s"])
    assert dur[-1] == pytest.approx(0.4e-3) and dur.sum() == pytest.approx(rep.sim_time_s)
    assert float(np.dot(s["power_w"], dur)) == pytest.approx(rep.total_energy_j, rel=1e-9)
    for part in ("hosts", "switches", "links"):
        assert float(np.dot(s[f"{part}_power_w"], dur)) == pytest.approx(sp[f"{part}_energy_j"], rel=1e-9)
    per_host = s["per_host_power_w"]
    assert float(np.dot(per_host["H0"], dur)) == pytest.approx(host(rep, "H0")["energy_j"], rel=1e-9)
    bits = rep.delivered_bits
    assert rep.energy_per_bit_pj == pytest.approx(rep.total_energy_j / bits * 1e12)
    assert rep.energy_per_bit_pj_without_hosts == pytest.approx(
        (rep.total_energy_j - sp["hosts_energy_j"]) / bits * 1e12
    )


def test_optimizer_policy_prices_each_window_with_the_optimizers_plan():
    # The curve is the optimizer's own dynamic program: equal to optimize() at loads on its grid.
    plat = example_platform()
    delta, curve = power_curve(plat, 256)
    for u in (1, 40, 128, 256):
        assert curve[u] == pytest.approx(optimize(plat, u * delta, units=u).power_w, rel=1e-12)
    # A host's load is rounded up to the grid (the plan must carry it): 520 kpps at 1,024 quanta.
    rep = price(results(sent0=1040), policy="optimizer")
    d, c = power_curve(plat, 1024)
    want = c[math.ceil(520_000 / d)]
    assert host(rep, "H0")["avg_power_w"] == pytest.approx(want, rel=1e-12)
    fixed = host(price(results(sent0=1040), policy="fixed"), "H0")["avg_power_w"]
    assert want < fixed  # the plan is never dearer than one core at 3 GHz with three idle ones


def test_per_host_overrides_apply_by_prefix_and_by_name():
    rep = price(
        results(recv0=50),
        nic="napi:64",
        per_host={"H*": {"policy": "affcon"}, "H0": {"nic": "interrupt", "platform_w": 20.0}},
    )
    h0, h1 = host(rep, "H0"), host(rep, "H1")
    assert "affcon" in h0["model"] and "interrupt" in h0["model"] and "affcon" in h1["model"]
    assert h0["platform_energy_j"] == pytest.approx(20.0 * rep.sim_time_s)
    assert h1["avg_power_w"] == pytest.approx(IDLE3 + 3 * IDLE2)


def test_a_simulated_scenario_without_a_host_table_says_it_used_the_defaults(tmp_path):
    path = ROOT / "scenarios" / "seed003-static.toml"  # has no [power] table
    small = ["--set", "workload.long_flows=1", "--set", "workload.long_size=200KB"]
    out = run_greendcn("simulate", path, *small, "--json", tmp_path / "r.json")
    assert out.returncode == 0, out.stderr
    assert "hosts priced with the documented defaults" in out.stdout
    doc = json.loads((tmp_path / "r.json").read_text())["energy"]
    assert doc["hosts"]["defaults"] is True and doc["hosts"]["policy"] == "fixed"
    assert doc["split"]["hosts_energy_j"] > 0 and doc["energy_per_bit_pj_without_hosts"] > 0
    hosts = [d for d in doc["devices"] if d["kind"] == "node:host"]
    assert len(hosts) == 16 and all("energy_j" in d and "avg_power_w" in d for d in hosts)
    # --set selects a policy, and the output says the table was the scenario's
    out = run_greendcn(
        "simulate", path, *small, "--set", "power.hosts.policy=affcon", "--json", tmp_path / "a.json"
    )
    assert out.returncode == 0 and "by the scenario's [power.hosts] table" in out.stdout
    affcon = json.loads((tmp_path / "a.json").read_text())["energy"]
    assert affcon["hosts"]["policy"] == "affcon"
    assert affcon["split"]["hosts_energy_j"] < doc["split"]["hosts_energy_j"]  # idle cores at powersave


@pytest.mark.parametrize(
    "setting, words",
    [
        ("power.hosts.frequency=1GHz", ["power.hosts.frequency", "1 GHz"]),
        ("power.hosts.platform_w=-5", ["power.hosts.platform_w"]),
        ("power.hosts.cores=0", ["power.hosts.cores"]),
        ("power.hosts.cores=5", ["power.hosts.cores", "4-core"]),
        ("power.hosts.nic=busywait", ["power.hosts.nic", "busywait"]),
        ("power.hosts.policy=turbo", ["power.hosts.policy"]),
        ('power.hosts.per_host={S0={frequency="5GHz"}}', ["power.hosts.per_host.S0.frequency"]),
        ("power.host_w=30", ["power.host_w"]),
    ],
)
def test_bad_host_tables_name_the_field(setting, words):
    scen = ROOT / "scenarios" / "seed003-static.toml"
    extra = ["--set", "power.hosts.policy=fixed"] if setting.startswith("power.host_w") else []
    out = run_greendcn("simulate", scen, "--set", setting, *extra)
    assert_clean_error(out, *words)


def test_a_platform_file_lacking_the_frequency_is_named(tmp_path):
    plat = tmp_path / "p.toml"
    plat.write_text(
        'name = "one"\n[[frequency]]\nf_hz = 1e9\nr_max_pps = 5e5\nphi_idle_w = 5.0\nphi_active_w = 10.0\n'
    )
    raw = seed003_scenario("static", long_flows=0)
    raw["power"] = {"hosts": {"platform": str(plat), "frequency": "3GHz"}}
    with pytest.raises(
        InputError, match=r"power\.hosts\.frequency: 3 GHz is not a frequency of platform 'one'"
    ):
        simulate(raw)
    raw["power"] = {"hosts": {"platform": str(plat), "frequency": "1GHz", "cores": 1}}
    res = simulate(raw, progress=False)
    assert res.energy.hosts["platform"] == "one"


def test_reprice_equals_simulating_with_the_settings():
    raw = seed003_scenario("random", long_flows=2, short_flows=3, long_size="300KB")
    res = simulate(raw, seed=3, progress=False)
    again = reprice(res, ["power.hosts.policy=optimizer"])
    direct = simulate(raw, seed=3, overrides=["power.hosts.policy=optimizer"], progress=False).energy
    assert again.total_energy_j == pytest.approx(direct.total_energy_j, rel=1e-12)
    assert again.split == pytest.approx(direct.split, rel=1e-12)


def test_the_studys_k8_scenario_is_the_benchmark_file():
    from greendcn.sim.reproduce.host_energy import k8_permutation_scenario

    with open(ROOT / "scenarios" / "bench-k8-permutation.toml", "rb") as f:
        assert tomllib.load(f) == k8_permutation_scenario()


def test_host_energy_study_quick_writes_csv_figure_and_json(tmp_path):
    out = run_greendcn(
        "reproduce",
        "host-energy",
        "--quick",
        "--workers",
        "1",
        "--out",
        tmp_path,
        "--json",
        tmp_path / "r.json",
    )
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "runs.csv").exists() and (tmp_path / "host_energy.png").stat().st_size > 10_000
    doc = json.loads((tmp_path / "r.json").read_text())
    rows = doc["summary"]
    assert {r["policy"] for r in rows} == {"fixed 3 GHz", "fixed 2 GHz", "affcon", "optimizer"}
    assert {r["scenario"] for r in rows} == {"seed003-static", "seed003-random", "k8-permutation"}
    for r in rows:
        total = r["hosts_energy_j"] + r["switches_energy_j"] + r["links_energy_j"]
        assert r["total_energy_j"] == pytest.approx(total, rel=1e-9)
        assert 0 < r["host_share"] < 1
    winners = [f for f in doc["findings"] if "winner" in f]
    assert len(winners) == 6 and all(f["winner"] in {r["policy"] for r in rows} for f in winners)
    assert "wins" in out.stdout


def test_default_window_respects_the_engines_window_cap():
    cfg = PowerConfig()
    assert cfg.engine_window_ps(None) == 1_000_000_000  # 1 ms, our default
    # a 1,000 s stop time needs windows of at least 1,000 s / 99,999
    assert cfg.engine_window_ps(1000 * 10**12) * 99_999 >= 1000 * 10**12
    # large fabrics: at most 100,000 counters per window (a k=48 fat-tree has 276,480)
    assert cfg.engine_window_ps(None, counters=276_480) == 3_000_000_000
    assert PowerConfig(window="5ms").engine_window_ps(None, counters=10**7) == 5_000_000_000
    assert PowerConfig(hosts={"enabled": False}).engine_window_ps(None) is None


def test_a_run_outlasting_the_default_windows_is_run_again_with_wider_ones(capfd):
    # One flow starting at 150 s simulated: 150,000 windows of 1 ms, more than the engine keeps.
    raw = seed003_scenario("static", long_flows=0)
    raw["workload"] = {
        "kind": "flows",
        "flows": [{"src": "S0", "dst": "S15", "size": "30KB", "start": "150s"}],
    }
    res = simulate(raw, progress=False)
    assert "running it again" in capfd.readouterr().err
    s = res.energy.series
    assert s["window_s"] > 1e-3 and len(s["power_w"]) < 100_000
    assert float(np.dot(s["power_w"], s["duration_s"])) == pytest.approx(res.energy.total_energy_j, rel=1e-9)
    assert res.energy.split["hosts_energy_j"] > 16 * 4 * IDLE3 * 150 * 0.999  # idle hosts over 150 s


def test_a_platform_file_with_a_negative_power_or_missing_is_named(tmp_path):
    bad = tmp_path / "neg.toml"
    bad.write_text("[[frequency]]\nf_hz = 1e9\nr_max_pps = 5e5\nphi_idle_w = -1.0\nphi_active_w = 10.0\n")
    scen = ROOT / "scenarios" / "seed003-static.toml"
    out = run_greendcn("simulate", scen, "--set", f"power.hosts.platform={bad}")
    assert_clean_error(out, "power.hosts.platform", "phi_idle_w")
    out = run_greendcn("simulate", scen, "--set", f"power.hosts.platform={tmp_path / 'none.toml'}")
    assert_clean_error(out, "power.hosts.platform", "none.toml")


def test_host_packet_and_byte_counts_match_the_engines_node_counters():
    res = simulate(seed003_scenario("static", long_flows=2, long_size="300KB"), progress=False)
    by = {d["name"]: d for d in res.energy.devices if d["kind"] == "node:host"}
    for row in res.nodes.itertuples():
        if row.kind == "host":
            assert by[row.name]["packets_sent"] == row.packets_sent
            assert by[row.name]["packets_received"] == row.packets_received
    # wire bytes the hosts sent = bytes on the host -> switch link directions
    hosts = set(by)
    up = res.links[res.links["from"].isin(hosts)]
    assert res.summary["drops"] == 0  # so every packet a host created left it on its link
    assert sum(d["bytes_sent"] for d in by.values()) == up["bytes_sent"].sum()
