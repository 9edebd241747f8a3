"""Energy-Efficient Ethernet and ElasticTree together: an off switch priced at its off power in the port model
(ports of links turned off at the port's off power), the four fat-tree schemes' network energy on a small case,
and `greendcn reproduce energy-saving`'s rows."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from greendcn.power.models import Counters
from greendcn.sim import simulate
from greendcn.sim.port_energy import port_states, to_off
from greendcn.sim.scenario import scenario_from_dict

OFF_W = 5.0  # a distinctive off power, so that pricing the off time at it is visible


def _quiet_then_busy(eee: bool, elastictree: bool) -> dict:
    # Quiet until 2 ms (one flow inside a rack), then every host sends 1 MB across pods: ElasticTree turns
    # cores off over [0, 2 ms - wake time), where EEE alone would keep their ports in low-power idle.
    flows = [{"src": f"S{i}", "dst": f"S{(i + 8) % 16}", "size": "1MB", "start": "2ms"} for i in range(16)]
    flows.append({"src": "S0", "dst": "S1", "size": "10KB"})
    return {
        "topology": {"kind": "fattree", "k": 4, "link_rate": "10Gbps", "link_delay": "1us"},
        "routing": {"scheme": "ecmp"},
        "workload": {"kind": "flows", "flows": flows},
        "eee": {"enabled": eee},
        "elastictree": {
            "enabled": elastictree,
            "interval": "500us",
            "wake_time": "100us",
            "margin": 0.8,
            "off_power": OFF_W,
        },
    }


def test_to_off_takes_off_time_from_lpi_first_and_never_more_than_there_is():
    s = to_off({"active": 3.0, "lpi": 2.0, "sleep": 0.5}, 4.0)
    assert s == pytest.approx({"active": 1.5, "lpi": 0.0, "sleep": 0.0, "off": 4.0})
    assert sum(s.values()) == pytest.approx(5.5)
    assert to_off({"active": 1.0}, 3.0)["off"] == pytest.approx(1.0)


def test_a_switch_off_under_eee_is_priced_at_off_power_not_at_lpi_or_active():
    sc = _quiet_then_busy(eee=True, elastictree=True)
    res = simulate(sc, progress=False)
    assert res.flows["fct_s"].notna().all()
    out = res.engine_results
    sim_s = out["summary"]["sim_time_ps"] * 1e-12
    model = scenario_from_dict(sc).power.models(eee=True).for_node("C1", "switch")
    rows = {d["name"]: d for d in res.energy.devices}
    names = [n["name"] for n in out["nodes"]]
    slept = kept_on = 0
    for c in [n for n in names if n[0] in "EAC"]:
        row = rows[c]
        if row["off_s"] <= 0 and row["ports_off_s"] <= 0:
            continue
        node = names.index(c)
        ks = [k for k, d in enumerate(out["links"]) if d["from"] == node]
        p = len(ks)
        engine = port_states(out["links"], ks, sim_s, sim_s)
        off_ports = p * row["off_s"] + row["ports_off_s"]
        # EEE saw the off time as idle: the engine counted at least that much low-power idle on its ports
        assert engine["lpi"] >= off_ports
        fixed_w = model.energy_j(Counters(duration_s=1.0, ports=p, state_s={"active": 0.0}))
        as_counted = model.energy_j(Counters(duration_s=sim_s, ports=p, state_s=engine))
        # Expected: the switch's energy as the engine's states price it, less its chassis over the off time and
        # its ports' LPI power over their off time, plus the off power over the off time (ports off while the
        # switch is on draw the port model's off power, 0 W by default).
        expected = (
            as_counted
            - fixed_w * row["off_s"]
            - model.port_lpi_w * off_ports
            + model.port_off_w * row["ports_off_s"]
            + OFF_W * row["off_s"]
        )
        assert row["energy_j"] == pytest.approx(expected, rel=1e-9)
        # Not the old pricing (the off time taken out with the ports active), which under-counts the energy
        if row["off_s"] > 0:
            wrong = as_counted - (fixed_w + p * model.port_active_w) * row["off_s"] + OFF_W * row["off_s"]
            assert row["energy_j"] > wrong + 0.5 * p * (model.port_active_w - model.port_lpi_w) * row["off_s"]
        assert row["states_s"]["off"] == pytest.approx(off_ports)
        assert row["states_s"]["lpi"] == pytest.approx(engine["lpi"] - off_ports)
        assert row["fixed_energy_j"] + sum(row["energy_by_state_j"].values()) == pytest.approx(
            row["energy_j"]
        )
        slept += row["off_s"] > 0
        kept_on += row["off_s"] == 0  # on, with ports towards sleeping switches off
    assert slept and kept_on, (slept, kept_on)
    # the power series drops the same energy as the rows
    series = res.energy.series
    dur = np.asarray(series["duration_s"])
    switches = sum(d["energy_j"] for d in res.energy.devices if d["kind"] == "node:switch")
    assert float(np.dot(series["switches_power_w"], dur)) == pytest.approx(switches, rel=1e-6)


def _window_network_j(eee: bool, elastictree: bool) -> float:
    sc = {
        "topology": {"kind": "fattree", "k": 4, "link_rate": "10Gbps", "link_delay": "1us"},
        "routing": {"scheme": "ecmp"},
        "workload": {
            "kind": "poisson",
            "size": "200KB",
            "load": 0.05,
            "duration": "4ms",
            "pattern": "uniform",
        },
        "run": {"window": ["0ms", "4ms"], "stop_time": "200ms"},
        "eee": {"enabled": eee},
        "elastictree": {"enabled": elastictree, "interval": "500us", "wake_time": "50us", "margin": 0.8},
    }
    res = simulate(sc, progress=False)
    assert res.flows["fct_s"].notna().all()
    s = res.window_energy.split
    return s["switches_energy_j"] + s["links_energy_j"]


def test_eee_elastictree_and_both_each_save_and_both_saves_most():
    plain = _window_network_j(False, False)
    eee = _window_network_j(True, False)
    slept = _window_network_j(False, True)
    both = _window_network_j(True, True)
    assert eee < plain and slept < plain
    assert both < min(eee, slept), (plain, eee, slept, both)


def test_the_study_carries_eee_and_both_in_rows_csv_and_findings(tmp_path):
    from dataclasses import replace

    from greendcn.sim.reproduce.energy_saving import (
        SCHEMES,
        EnergySavingConfig,
        findings,
        reproduce_energy_saving,
        summarize,
        write_csv,
        write_figure,
    )

    assert "fat-tree + EEE" in SCHEMES and "fat-tree + EEE + ElasticTree" in SCHEMES
    cfg = replace(EnergySavingConfig.quick(), loads=(0.05,))
    rows = summarize(reproduce_energy_saving(cfg, workers=1, progress=False))
    by = {r["scheme"]: r for r in rows}
    assert list(by) == list(SCHEMES)
    for s in ("fat-tree + EEE", "fat-tree + ElasticTree", "fat-tree + EEE + ElasticTree"):
        assert by[s]["flows_completed"] == by[s]["flows"]
        assert 0 < by[s]["network_saving"] < 1, s
    write_csv(rows, tmp_path / "e.csv")
    with (tmp_path / "e.csv").open() as fh:
        assert [r["scheme"] for r in csv.DictReader(fh)] == list(SCHEMES)
    assert write_figure(rows, tmp_path / "e.png").stat().st_size > 0
    (f,) = findings(rows)
    (v,) = f["savings_by_load"]
    assert v["fat-tree + EEE + ElasticTree"] == pytest.approx(
        by["fat-tree + EEE + ElasticTree"]["network_saving"]
    )
    assert f["both_lowest_at_every_load"] is (
        v["fat-tree + EEE + ElasticTree"] >= max(v["fat-tree + EEE"], v["fat-tree + ElasticTree"])
    )


def test_the_648_host_study_runs_the_fabric_comparisons_networks():
    from greendcn.sim.fabrics import fabric_plan
    from greendcn.sim.reproduce.energy_saving import (
        SCHEMES,
        EnergySavingConfig,
        _entries,
        _fabrics_config,
    )

    for tree, k, ratio in (("1:1", 14, 1.0), ("3:1", 10, 3.0), ("cost-equivalent", 12, 1.5)):
        cfg = EnergySavingConfig.network_648(tree, (0.05, 0.3))
        assert cfg.loads == (0.05, 0.3) and _fabrics_config(cfg).hosts == 648
        entries = _entries(cfg)
        assert list(entries) == list(SCHEMES)
        plan = {e["fabric"]: e for e in fabric_plan(_fabrics_config(cfg))}
        # Opera and RotorNet are the fabric comparison's own 648-host entries (108 racks of 6)
        for circuit in ("opera", "rotornet"):
            assert entries[circuit] == plan[circuit]
            assert entries[circuit]["topology"]["racks"] == 108
        for scheme in SCHEMES[:4]:
            topo = entries[scheme]["topology"]
            assert (topo["k"], topo["oversubscription"]) == (k, ratio), scheme
        assert "elastictree" in entries["fat-tree + EEE + ElasticTree"]["scenario"]
        assert entries["fat-tree + EEE"]["eee"]["enabled"]
    assert EnergySavingConfig.network_648().loads == EnergySavingConfig().loads


@pytest.mark.parametrize(
    ("args", "word"),
    [
        (["--network", "100"], "--network"),
        (["--tree", "3:1"], "--tree"),
        (["--network", "648", "--tree", "2:1"], "--tree"),
        (["--network", "648", "--quick"], "--quick"),
        (["--loads", "0.05,1.5"], "--loads"),
        (["--loads", "0.05,x"], "--loads"),
    ],
)
def test_bad_study_options_are_one_error_line(args, word):
    from conftest import assert_clean_error, run_greendcn

    assert_clean_error(run_greendcn("reproduce", "energy-saving", *args), word)
