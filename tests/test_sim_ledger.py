"""The simulator's energy ledger (greendcn.sim.ledger): energy of a simulated run, on hand-made results dicts in the engine's format (docs/engine-spec.md)."""

import pytest

from greendcn.core.errors import InputError
from greendcn.power import ConstantPower, Counters, LinearPower, StatePower
from greendcn.sim.ledger import EnergyModels, default_models, run_energy

NODES = [("H0", "host"), ("H1", "host"), ("E0", "switch"), ("core0", "switch")]
LINKS = [(0, 2), (1, 2), (2, 3)]  # H0-E0, H1-E0, E0-core0


def results(bytes_received=(150_000, 50_000), with_series=False) -> dict:
    dirs = []
    for i, (a, b) in enumerate(LINKS):
        for d, (x, y) in enumerate([(a, b), (b, a)]):
            nbytes = 100_000 * (i + 1) + 1000 * d
            dirs.append(
                {
                    "link": i,
                    "dir": 2 * i + d,
                    "from": x,
                    "to": y,
                    "bytes_sent": nbytes,
                    "packets_sent": nbytes // 1000,
                    "busy_ps": nbytes * 8000,
                    "drops": 0,
                    "drop_bytes": 0,
                    "peak_queue_packets": 0,
                    "peak_queue_bytes": 0,
                }
            )
    out = {
        "flows": [
            {"id": k, "bytes_received": b, "size_bytes": 200_000} for k, b in enumerate(bytes_received)
        ],
        "links": dirs,
        "nodes": [
            {"name": n, "kind": k, "packets_sent": 0, "packets_received": 0, "packets_forwarded": 0}
            for n, k in NODES
        ],
        "summary": {"sim_time_ps": 2_000_000_000},  # 2 ms
        "series": None,
    }
    if with_series:
        # two 1 ms windows covering the 2 ms run; each direction's bytes split 70/30 between them
        out["series"] = {
            "window_ps": 1_000_000_000,
            "link_bytes": [
                [d["bytes_sent"] * 7 // 10, d["bytes_sent"] - d["bytes_sent"] * 7 // 10] for d in dirs
            ],
        }
    return out


def models() -> EnergyModels:
    return EnergyModels(
        nodes={
            "switch": ConstantPower(100.0),
            "core*": LinearPower(static_w=200.0, joules_per_bit=1e-9),
            "H1": ConstantPower(0.0),
        },
        links={"host-switch": LinearPower(per_port_w=1.0, joules_per_packet=1e-6)},
    )


def test_total_is_the_sum_over_devices_and_models_attach_by_name_prefix_kind():
    rep = run_energy(results(), models())
    by = {d["name"]: d for d in rep.devices}
    assert set(by) == {
        "H1",
        "E0",
        "core0",
        "link0:H0-E0",
        "link1:H1-E0",
    }  # H0 and the E0-core0 link: no model
    assert rep.total_energy_j == pytest.approx(sum(d["energy_j"] for d in rep.devices))
    t = 2e-3
    assert by["E0"]["energy_j"] == pytest.approx(100.0 * t)  # by kind
    # core0 by prefix: 200 W static + 1 nJ/bit over the bytes it sent (direction 5: core0 -> E0)
    assert by["core0"]["energy_j"] == pytest.approx(200.0 * t + 1e-9 * 8 * 301_000)
    # link1 by end kinds: 2 ports x 1 W + 1 uJ per packet over both directions
    assert by["link1:H1-E0"]["energy_j"] == pytest.approx(2 * 1.0 * t + 1e-6 * (200 + 201))
    assert rep.avg_power_w == pytest.approx(rep.total_energy_j / t)


def test_energy_per_bit_counts_delivered_payload_only():
    a = run_energy(results(bytes_received=(150_000, 50_000)), models())
    assert a.delivered_bits == 8 * 200_000
    assert a.energy_per_bit_pj == pytest.approx(a.total_energy_j / (8 * 200_000) * 1e12)
    # halving what was delivered (same traffic on the links) doubles the energy per delivered bit
    b = run_energy(results(bytes_received=(50_000, 50_000)), models())
    assert b.total_energy_j == pytest.approx(a.total_energy_j)
    assert b.energy_per_bit_pj == pytest.approx(2 * a.energy_per_bit_pj)
    none = run_energy(results(bytes_received=(0, 0)), models())
    assert none.energy_per_bit_pj is None


def test_power_series_integrates_to_the_total():
    rep = run_energy(results(with_series=True), models())
    s = rep.series
    assert s["window_s"] == pytest.approx(1e-3) and len(s["power_w"]) == 2
    assert sum(p * s["window_s"] for p in s["power_w"]) == pytest.approx(rep.total_energy_j)
    assert s["power_w"][0] > s["power_w"][1]  # 70 % of the traffic in the first window
    wide = run_energy(results(with_series=True), models(), window_s=2e-3).series
    assert wide["power_w"] == [pytest.approx(rep.avg_power_w)]
    with pytest.raises(InputError, match="whole multiple"):
        run_energy(results(with_series=True), models(), window_s=1.5e-3)
    with pytest.raises(InputError, match="per-window"):
        run_energy(results(), models(), window_s=1e-3)


def test_default_models_price_switches_from_the_table():
    rep = run_energy(results())
    assert {d["name"] for d in rep.devices} == {"E0", "core0"}
    assert rep.total_energy_j == pytest.approx(2 * 90.5 * 2e-3)  # two SN2700 for 2 ms
    with pytest.raises(InputError, match="unknown switch"):
        default_models("nope")


def test_device_models_and_their_errors():
    c = Counters(duration_s=2.0, bytes=1000, packets=10, busy_s=0.5, ports=4)
    lin = LinearPower(static_w=10, per_port_w=1, joules_per_bit=1e-9, joules_per_packet=1e-6, busy_port_w=2)
    assert lin.energy_j(c) == pytest.approx(2 * 14 + 8e-6 + 1e-5 + 1.0)
    assert lin.power_w(c) == pytest.approx(lin.energy_j(c) / 2)
    st = StatePower({"C0": 20.0, "C6": 1.0})
    assert st.energy_j(Counters(3.0, state_s={"C0": 1.0, "C6": 2.0})) == pytest.approx(22.0)
    with pytest.raises(InputError, match="C3"):
        st.energy_j(Counters(1.0, state_s={"C3": 1.0}))
    with pytest.raises(InputError, match="state"):
        st.energy_j(c)
    with pytest.raises(InputError, match="watts"):
        ConstantPower(-1.0)
    from greendcn.power import RouterPower, example_platform, phi

    rp = RouterPower(example_platform(), 3e9)
    assert rp.energy_j(Counters(2.0, packets=1.0e6)) == pytest.approx(2.0 * float(phi(rp.platform, 3e9, 5e5)))
    with pytest.raises(InputError, match="lack 'summary'"):
        run_energy({"nodes": [], "links": []})


def test_scenario_power_table_builds_the_models():
    from pydantic import ValidationError

    from greendcn.sim.power_table import PowerConfig

    rep = run_energy(results(), PowerConfig().models())  # defaults: SN2700 switches only
    assert rep.total_energy_j == pytest.approx(2 * 90.5 * 2e-3)
    cfg = PowerConfig(switch="wedge100bf65x", nodes={"core*": 50.0}, host_w=10.0, link_pj_per_bit=5.0)
    rep = run_energy(results(), cfg.models())
    by = {d["name"]: d["energy_j"] for d in rep.devices}
    t = 2e-3
    assert by["E0"] == pytest.approx(276.9 * t) and by["core0"] == pytest.approx(50.0 * t)
    assert by["H0"] == pytest.approx(10.0 * t)
    assert by["link2:E0-core0"] == pytest.approx(5e-12 * 8 * (300_000 + 301_000))
    with pytest.raises(InputError, match="unknown switch"):
        PowerConfig(switch="nope").models()
    with pytest.raises(ValidationError):
        PowerConfig(host_w=-1)


def test_the_documented_power_table_parses():
    import tomllib

    import greendcn.sim.power_table as config

    snippet = config.__doc__.split("```toml")[1].split("```")[0]
    cfg = config.PowerConfig(**tomllib.loads(snippet)["power"])
    assert cfg.switch == "sn2700" and cfg.nodes == {"core*": 276.9} and cfg.switch_table == "my.toml"
