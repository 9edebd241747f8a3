"""Energy-Efficient Ethernet and the port power model through `simulate`: wake delays, LPI energy, the
switch table's totals kept, and bad input refused with the key named."""

import numpy as np
import pytest

from greendcn.core.errors import InputError
from greendcn.power.ports import port_model
from greendcn.power.switches import get_switch
from greendcn.sim import simulate
from greendcn.sim.eee import PHYS
from greendcn.sim.scenario import scenario_from_dict

from conftest import assert_clean_error, run_greendcn

TS, TW = PHYS["10GBASE-T"][1:]  # ps


def scenario(eee: dict | None = None, stop: str | None = None, start: str = "1ms", **power) -> dict:
    """k = 4 fat-tree at 10 Gbps, one single-datagram UDP flow S0 -> S1 (through their edge switch)."""
    raw = {
        "topology": {"kind": "fattree", "k": 4, "link_rate": "10Gbps", "link_delay": "1us"},
        "workload": {
            "kind": "flows",
            "flows": [
                {
                    "src": "S0",
                    "dst": "S1",
                    "size": "1000B",
                    "start": start,
                    "transport": "udp",
                    "rate": "1Gbps",
                }
            ],
        },
        "power": {"hosts": {"enabled": False}, **power},
    }
    if eee is not None:
        raw["eee"] = eee
    if stop is not None:
        raw["run"] = {"stop_time": stop}
    return raw


def test_one_packet_after_a_long_idle_is_late_by_exactly_one_wake_time_per_hop():
    off = simulate(scenario(), seed=1)
    on = simulate(scenario({"enabled": True}), seed=1)
    fct = lambda r: int(np.asarray(r.engine_results["flows"]["fct_ps"])[0])  # noqa: E731
    # Two hops (S0 -> edge, edge -> S1), each port asleep since time 0: each adds exactly Tw.
    assert fct(on) == fct(off) + 2 * TW


def _burst(eee: dict) -> dict:
    """Three full datagrams (1,472 B of payload each) back to back at the line rate 1 ms into the run (every port asleep since 0), S0 through
    its edge switch to S1: the engine's results."""
    raw = scenario(eee)
    raw["workload"]["flows"][0] |= {"size": "4416B", "rate": "10Gbps"}
    return simulate(raw, seed=1, progress=False).engine_results


def test_coalescing_wakes_at_the_byte_count_or_after_the_delay_whichever_first():
    fct = lambda r: int(np.asarray(r["flows"]["fct_ps"])[0])  # noqa: E731
    off = _burst({"enabled": False})
    sent = [d for d in off["links"] if d["packets_sent"]]
    assert [d["packets_sent"] for d in sent] == [3, 3] and sent[0]["bytes_sent"] % 3 == 0
    wire = sent[0]["bytes_sent"] // 3  # one datagram's bytes on the wire
    ser = wire * 800  # its serialization in ps at 10 Gb/s
    delay = {"enabled": True, "coalesce": "50us"}
    # Each of the two hops (S0 -> edge, edge -> S1) holds the first datagram; the delay alone: 50 us, then Tw.
    assert fct(_burst(delay)) - fct(off) == 2 * (50_000_000 + TW)
    # A count of two datagrams' bytes: the second, one serialization after the first, wakes the port at once.
    assert fct(_burst(delay | {"coalesce_bytes": 2 * wire})) - fct(off) == 2 * (ser + TW)
    # Three datagrams never reach four's bytes: they wait for the delay.
    assert fct(_burst(delay | {"coalesce_bytes": f"{4 * wire}B"})) - fct(off) == 2 * (50_000_000 + TW)


def test_an_idle_switch_draws_its_chassis_and_lpi_power():
    """No packet moves before the run stops: every switch port sleeps once (Ts at active power) and lies in
    LPI for the rest; its energy is exactly that (to float rounding, 1e-9)."""
    res = simulate(scenario({"enabled": True}, stop="5ms", start="10ms"), seed=1)
    t = res.summary["sim_time_s"]
    assert t == pytest.approx(5e-3)
    m = port_model(get_switch("sn2700"))
    ts = TS * 1e-12
    rows = [d for d in res.energy.devices if d["kind"] == "node:switch"]
    assert len(rows) == 20
    for d in rows:
        assert d["states_s"]["lpi"] == pytest.approx(4 * (t - ts), rel=1e-9)
        for p in d["ports"]:
            assert p["energy_j"] == pytest.approx(m.port_lpi_w * (t - ts) + m.port_active_w * ts, rel=1e-9)
        fixed = (m.chassis_w + 28 * m.port_active_w) * t  # 32-port table entry, 4 ports used
        assert d["energy_j"] == pytest.approx(fixed + sum(p["energy_j"] for p in d["ports"]), rel=1e-9)
        assert d["energy_j"] < 90.5 * t


def test_simulate_prints_the_switch_ports_time_in_lpi(capsys):
    from greendcn.sim.cli.simulate import _print_summary

    _print_summary(simulate(scenario({"enabled": True}, stop="5ms", start="10ms"), seed=1))
    out = capsys.readouterr().out
    # Every port slept at time 0 and stayed asleep: Ts of the 5 ms run going to sleep, the rest in LPI.
    lpi = 100 * (5e-3 - TS * 1e-12) / 5e-3
    assert f"switch ports: {lpi:.1f} % of port time in low-power idle" in out


def test_with_eee_the_power_series_integrates_to_the_run_and_a_window_is_priced():
    raw = scenario({"enabled": True})
    raw["power"] = {"window": "100us"}
    raw["run"] = {"window": ["0ms", "1ms"]}
    res = simulate(raw, seed=1)
    e = res.energy
    series_j = sum(p * d for p, d in zip(e.series["switches_power_w"], e.series["duration_s"]))
    assert series_j == pytest.approx(e.split["switches_energy_j"], rel=1e-9)
    # Over the idle first millisecond the switches draw less than their table power.
    w = res.window_energy
    assert 0 < w.split["switches_energy_j"] < 20 * 90.5 * 1e-3


def test_a_fully_active_switch_sums_to_the_switch_table():
    for sid in ("sn2700", "wedge100bf65x"):
        entry = get_switch(sid)
        m = port_model(entry)
        assert m.chassis_w + entry.ports * m.port_active_w == pytest.approx(entry.power_w, rel=1e-12)
    # Through a run without EEE: the port model prices every switch at the table's constant power.
    res = simulate(scenario(ports={"port_share": 0.4}), seed=1)
    t = res.summary["sim_time_s"]
    switches = [d["energy_j"] for d in res.energy.devices if d["kind"] == "node:switch"]
    assert switches == pytest.approx([90.5 * t] * 20, rel=1e-12)


def test_explicit_split_must_match_the_table_within_the_tolerance():
    ok = port_model(get_switch("sn2700"), chassis_w=58.5, port_active_w=1.0)
    assert ok.chassis_w + 32 * ok.port_active_w == 90.5
    with pytest.raises(InputError) as e:
        port_model(get_switch("sn2700"), chassis_w=60.0, port_active_w=1.0, where="power.ports")
    assert e.value.loc == ("power", "ports", "port_active_w") and "90.5" in str(e.value)


@pytest.mark.parametrize(
    ("eee", "ports", "key"),
    [
        ({"enabled": True, "sleep": "-2us", "wake": "4us"}, None, "sleep"),
        ({"enabled": True, "sleep": "2us", "wake": "20ms"}, None, "wake"),
        ({"enabled": True, "phy": "40GBASE-X"}, None, "phy"),
        ({"enabled": True, "sleep": "2us"}, None, "wake"),
        ({"enabled": True, "coalesce": "10us", "coalesce_bytes": -1}, None, "coalesce_bytes"),
        ({"enabled": True, "coalesce": "10us", "coalesce_bytes": "-3KB"}, None, "coalesce_bytes"),
        ({"enabled": True, "coalesce_bytes": "9KB"}, None, "coalesce_bytes"),
        (None, {"chassis_w": 10.0, "port_active_w": 1.0}, "port_active_w"),
    ],
)
def test_bad_input_names_the_key(eee, ports, key):
    raw = scenario(eee, **({"ports": ports} if ports else {}))
    with pytest.raises(InputError) as e:
        simulate(raw, seed=1)
    assert key in ".".join(map(str, e.value.loc)) or key in str(e.value), (e.value.loc, str(e.value))


def test_auto_phy_refuses_a_rate_with_no_802_3az_phy_and_a_named_phy_covers_it():
    raw = scenario({"enabled": True})
    raw["topology"]["link_rate"] = "100Gbps"
    with pytest.raises(InputError) as e:
        simulate(raw, seed=1)
    assert e.value.loc == ("eee", "phy") and "100 Gbps" in str(e.value)
    raw["eee"]["phy"] = "10GBASE-T"
    assert simulate(raw, seed=1).flows["completed"].all()


def test_eee_is_refused_on_circuit_fabrics():
    with pytest.raises(InputError) as e:
        scenario_from_dict(
            {"topology": {"kind": "rotornet"}, "routing": {"scheme": "rotorlb"}, "eee": {"enabled": True}}
        )
    assert e.value.loc[-1] == "enabled" or "eee.enabled" in str(e.value.loc)


def test_cli_error_is_one_line_naming_the_key(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('[eee]\nenabled = true\nsleep = "-1us"\nwake = "4us"\n')
    assert_clean_error(run_greendcn("simulate", f), "eee.sleep")


def test_cli_refuses_a_split_that_misses_the_table(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text("[eee]\nenabled = true\n[power.ports]\nchassis_w = 10.0\nport_active_w = 1.0\n")
    assert_clean_error(run_greendcn("simulate", f), "power.ports.port_active_w", "90.5")


def test_fabrics_eee_turns_eee_on_for_the_fat_trees_only_and_saves_network_energy():
    from greendcn.sim.fabrics import FabricsConfig, comparison_notes, fabric_plan, fabrics_workload, run_one

    cfg = FabricsConfig(racks=8, circuit_switches=4, size_bytes=200_000, eee=True)
    plan = fabric_plan(cfg)
    assert {p["fabric"] for p in plan if "eee" in p} == {
        p["fabric"] for p in plan if "fat-tree" in p["fabric"]
    }
    assert any("802.3az" in n for n in comparison_notes(cfg))
    tree = next(p for p in plan if p["fabric"] == "fat-tree 3:1")
    flows = fabrics_workload(cfg, plan)
    on = run_one(tree, flows, cfg.seed)
    off = run_one({k: v for k, v in tree.items() if k != "eee"}, flows, cfg.seed)
    assert on["flows_completed"] == off["flows_completed"] == len(flows)
    # Idle ports sleep: the switches draw less on average than their constant table power.
    assert on["network_power_w"] < off["network_power_w"]
