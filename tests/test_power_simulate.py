"""Energy of a real simulated run: `simulate` prices the engine's counters with the scenario's [power] table."""

import pytest

from greendcn.sim import simulate
from greendcn.core.errors import InputError
from greendcn.sim.reproduce.rps import seed003_scenario


def scenario(power: dict | None = None) -> dict:
    raw = seed003_scenario("static", long_flows=2, long_size="1MB")
    if power is not None:
        raw["power"] = power
    return raw


def test_default_prices_every_switch_at_the_sn2700_and_the_hosts_with_the_host_defaults():
    res = simulate(scenario(), seed=1)
    e = res.energy
    t = res.summary["sim_time_s"]
    switches = [d for d in e.devices if d["kind"] == "node:switch"]
    hosts = [d for d in e.devices if d["kind"] == "node:host"]
    assert len(switches) == 20 and len(hosts) == 16 and len(e.devices) == 36  # k = 4: 8 + 8 + 4 switches
    assert e.split["switches_energy_j"] == pytest.approx(20 * 90.5 * t, rel=1e-9)
    assert e.hosts["defaults"] is True and "documented defaults" in e.hosts["note"]
    # a host that neither sends nor receives draws the defaults' idle power: 4 cores x Phi_idle(3 GHz) = 9.5 W
    idle = [d for d in hosts if d["name"] not in set(res.flows["src"]) | set(res.flows["dst"])]
    assert idle and all(d["avg_power_w"] == pytest.approx(4 * 9.5) for d in idle)
    assert e.series is not None  # hosts are priced per window: the run asked the engine for its windows


def test_hosts_left_out_on_request_gives_the_switches_alone_and_no_windows():
    res = simulate(scenario({"hosts": {"enabled": False}}), seed=1)
    e = res.energy
    assert len(e.devices) == 20 and e.hosts is None and e.series is None
    assert e.total_energy_j == pytest.approx(20 * 90.5 * res.summary["sim_time_s"], rel=1e-9)


def test_energy_adds_up_over_devices_and_per_bit_uses_delivered_payload_only():
    power = {"switch": "wedge100bf65x", "host_w": 5.0, "link_port_w": 0.5, "link_pj_per_bit": 20.0}
    res = simulate(scenario(power), seed=1)
    e = res.energy
    t = res.summary["sim_time_s"]
    assert e.total_energy_j == pytest.approx(sum(d["energy_j"] for d in e.devices), rel=1e-12)
    by_kind: dict[str, list[float]] = {}
    for d in e.devices:
        by_kind.setdefault(d["kind"], []).append(d["energy_j"])
    assert by_kind["node:switch"] == pytest.approx([276.9 * t] * 20)
    assert by_kind["node:host"] == pytest.approx([5.0 * t] * 16)
    # links: 2 ends x 0.5 W, plus 20 pJ per bit of both directions' wire bytes
    wire_bits = 8 * float(res.links["bytes_sent"].sum())
    assert sum(by_kind["link"]) == pytest.approx(len(by_kind["link"]) * 1.0 * t + 20e-12 * wire_bits)
    delivered = 8 * int(res.flows["bytes_received"].sum())
    assert e.delivered_bits == delivered == 8 * int(res.flows["size_bytes"].sum())  # every flow completed
    assert e.energy_per_bit_pj == pytest.approx(e.total_energy_j / delivered * 1e12)
    # the links carried headers, ACKs and retransmissions too: their bits are not the delivered bits
    assert wire_bits > delivered
    doc = res.to_json()["energy"]
    assert doc["total_energy_j"] == pytest.approx(e.total_energy_j) and len(doc["devices"]) == len(e.devices)


def test_power_series_in_windows_integrates_to_the_total_and_follows_the_traffic():
    power = {"link_pj_per_bit": 1e5, "window": "1ms"}  # a large per-bit cost, so traffic shows in watts
    res = simulate(scenario(power), seed=1)
    e = res.energy
    t = res.summary["sim_time_s"]
    s = e.series
    w = s["window_s"]
    assert w == pytest.approx(1e-3)
    durations = [min(w, t - i * w) for i in range(len(s["power_w"]))]
    assert durations[-1] > 0 and sum(durations) == pytest.approx(t)
    assert sum(p * d for p, d in zip(s["power_w"], durations)) == pytest.approx(e.total_energy_j, rel=1e-9)
    floor = 20 * 90.5 + 16 * 4 * 9.5  # switches and idle hosts (host defaults), drawn in every window
    assert min(s["power_w"]) >= floor * (1 - 1e-9)
    assert max(s["power_w"]) > floor + 1.0  # windows with traffic cost more than the idle ones


def test_bad_power_table_is_named_before_the_run():
    with pytest.raises(InputError, match="power.switch: unknown switch 'nope'"):
        simulate(scenario({"switch": "nope"}), seed=1)
    with pytest.raises(InputError, match="power.window"):
        simulate(scenario({"window": "0s"}), seed=1)
    with pytest.raises(InputError, match="unknown key 'power.watts'"):
        simulate(scenario({"watts": 3}), seed=1)
