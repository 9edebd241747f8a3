"""`greendcn reproduce rotornet` and `reproduce selectornet` end to end (small sizes), their determinism, their
errors, and the fabric energy beside the models' throughput (seed 001 Table 2.1 powers; the run's energy is the
sum over its devices)."""

import json

import numpy as np
import pandas as pd
import pytest

from conftest import assert_clean_error, run_greendcn
from greendcn.core.errors import InputError
from greendcn.power.switches import get_switch
from greendcn.sim.optical.energy import fabric_power
from greendcn.sim.optical.rotornet import build_rotornet
from greendcn.sim.reproduce.rotornet import RotorNetConfig, reproduce_rotornet
from greendcn.sim.reproduce.selectornet import SelectorNetConfig, reproduce_selectornet

REQUIRED = ["density", "matrices", "ratio_mean", "ratio_min", "ratio_max"]


def test_fabric_energy_is_the_sum_over_devices():
    p = fabric_power(2, 8, "sn2700")
    e = p.energy(3.0, 2e10)
    assert len(e["devices"]) == 10
    assert e["energy_j"] == pytest.approx(sum(d["energy_j"] for d in e["devices"]))
    expected_w = 2 * get_switch("selector_v1").power_w + 8 * get_switch("sn2700").power_w
    assert e["power_w"] == pytest.approx(expected_w)
    assert e["pj_per_bit"] == pytest.approx(expected_w * 3.0 / (2e10 * 3.0) * 1e12)
    assert fabric_power(1, 8, None).power_w == pytest.approx(get_switch("selector_v1").power_w)
    assert fabric_power(1, 8, "none").energy(1.0, 0.0)["pj_per_bit"] is None
    with pytest.raises(InputError, match="tor"):
        fabric_power(1, 8, "selector_v2")  # optical, not a ToR
    with pytest.raises(InputError, match="tor"):
        fabric_power(1, 8, "no-such-switch")


def test_rotornet_reproduction_tables_energy_and_a_packet_column():
    calls = []

    def runner(fabric, demand, rotorlb):
        calls.append((fabric.kind, int(np.isinf(demand).sum()), rotorlb))
        return 2.0 if rotorlb else 1.0

    cfg = RotorNetConfig(matrices=3, densities=(1, 5, 56), layout="2x4", seed=2)
    res = reproduce_rotornet(cfg, packet_runner=runner, packet_densities=(5,), packet_matrices=2)
    t = res["densities"]
    assert list(t["connections"]) == [1, 5, 56]
    assert t.loc[0, "ratio_mean"] == pytest.approx(7.0) and t.loc[2, "ratio_mean"] == pytest.approx(1.0)
    # energy per bit is power over throughput, for both schemes, from the same constant-power fabric
    assert np.allclose(t["power_w"], 2 * 2.7 + 8 * 90.5)
    assert np.allclose(t["rotorlb_pj_per_bit"], t["power_w"] / t["rotorlb_bps"] * 1e12)
    assert np.allclose(t["onehop_pj_per_bit"] / t["rotorlb_pj_per_bit"], t["rotorlb_bps"] / t["onehop_bps"])
    assert calls == [("rotornet", 5, True), ("rotornet", 5, False)] * 2
    assert t.loc[1, "packet_ratio_mean"] == 2.0 and t.loc[1, "packet_matrices"] == 2
    assert t["packet_ratio_mean"].isna().sum() == 2
    # throughput in b/s: density 56 fills every circuit of 8 racks x 2 switches, minus the identity's slot
    f = build_rotornet(8, 2)
    per_circuit = 10e9 * (10e-3 - 1e-3) / (10e-3 + 150e-6)
    assert t.loc[2, "rotorlb_bps"] == pytest.approx(per_circuit * 8 * (2 * 4 - 1) / 4, rel=1e-9)
    assert res["cycle_s"] == pytest.approx(f.cycle_ps() * 1e-12)


def test_rotornet_cli_writes_csv_png_json_and_is_deterministic(tmp_path):
    outs = []
    for name, seed in (("a", 3), ("b", 3), ("c", 4)):
        out = run_greendcn(
            "reproduce",
            "rotornet",
            "--matrices",
            "2",
            "--seed",
            seed,
            "--out",
            tmp_path / name,
            "--json",
            tmp_path / f"{name}.json",
        )
        assert out.returncode == 0, out.stderr
        outs.append(out)
    csv = tmp_path / "a" / "rotornet_densities.csv"
    t = pd.read_csv(csv)
    assert set(REQUIRED) <= set(t.columns) and len(t) == 56
    assert (t["matrices"] == 2).all()
    assert (tmp_path / "a" / "rotornet_fig2_10.png").stat().st_size > 10_000
    assert csv.read_bytes() == (tmp_path / "b" / "rotornet_densities.csv").read_bytes()
    assert csv.read_bytes() != (tmp_path / "c" / "rotornet_densities.csv").read_bytes()
    doc = json.loads((tmp_path / "a.json").read_text())
    assert len(doc["densities"]) == 56 and doc["permutations"]["matrices"] == 2
    assert "McGuinness 2021, section 2.5.4" in outs[0].stdout and "fluid model" in outs[0].stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--layout", "3x3"], ["layout"]),
        (["--matrices", "0"], ["matrices"]),
        (["--tor", "selector_v2"], ["tor"]),
        (["--guard-ms", "10"], ["guard_ps"]),
        (["--seed", "-1"], ["seed"]),
        (["--duration-s", "0"], ["duration_s"]),
    ],
)
def test_rotornet_cli_errors_name_the_field(tmp_path, args, words):
    assert_clean_error(run_greendcn("reproduce", "rotornet", *args, "--out", tmp_path), *words)


def test_selectornet_reproduction_rises_with_uptime_and_prices_the_fabric():
    res = reproduce_selectornet(SelectorNetConfig(uptimes_ms=(1.0, 10.0, 100.0), bijections=30, seed=1))
    t = res["table"]
    for _, g in t.groupby("workload"):
        assert (np.diff(g["predicted_per_host_bps"]) > 0).all()
    at = t.set_index(["workload", "uptime_ms"])["predicted_per_host_bps"]
    assert at["rolling-stride", 10.0] > at["all-to-all", 10.0]
    assert np.allclose(t["pj_per_bit"], t["power_w"] / (16 * t["predicted_per_host_bps"]) * 1e12)
    assert np.allclose(t["power_w"], 2.7 + 16 * 90.5)
    assert t["simulated_per_host_bps"].isna().all()
    bij = t[t["workload"] == "random-bijection"]
    assert list(bij["thesis_uptime_range"]) == ["yes", "yes", "yes"]
    assert res["closed_forms"]["bandwidth_tax_with_self_pairs"] == pytest.approx(2.0)


def test_selectornet_packet_column_is_filled_by_a_runner():
    def runner(workload, demands, timing):
        return 1e9 * len(demands), 2e9 * len(demands)  # (simulated, predicted on the same matrices)

    res = reproduce_selectornet(
        SelectorNetConfig(uptimes_ms=(2.0,), bijections=4),
        packet_runner=runner,
        packet_workloads=("rolling-stride",),
    )
    t = res["table"].set_index("workload")
    assert t.loc["rolling-stride", "simulated_per_host_bps"] == 15e9
    assert t.loc["rolling-stride", "simulated_over_predicted"] == 0.5
    assert np.isnan(t.loc["all-to-all", "simulated_per_host_bps"])


def test_selectornet_cli_writes_csv_png_json_and_is_deterministic(tmp_path):
    for name in ("a", "b"):
        out = run_greendcn(
            "reproduce",
            "selectornet",
            "--bijections",
            "20",
            "--uptimes-ms",
            "1,10,100",
            "--seed",
            "2",
            "--out",
            tmp_path / name,
            "--json",
            tmp_path / f"{name}.json",
        )
        assert out.returncode == 0, out.stderr
    csv = tmp_path / "a" / "selectornet_uptimes.csv"
    t = pd.read_csv(csv)
    assert len(t) == 9 and {"workload", "uptime_ms", "predicted_per_host_bps", "pj_per_bit"} <= set(t.columns)
    assert csv.read_bytes() == (tmp_path / "b" / "selectornet_uptimes.csv").read_bytes()
    assert (tmp_path / "a" / "selectornet_fig2_8.png").stat().st_size > 10_000
    doc = json.loads((tmp_path / "a.json").read_text())
    assert len(doc["table"]) == 9 and doc["findings"]
    assert "McGuinness 2021, section 2.3.2" in out.stdout and "predicted maximum" in out.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--uptimes-ms", "a,b"], ["--uptimes-ms"]),
        (["--uptimes-ms", "-1"], ["uptimes_ms"]),
        (["--uptimes-ms", "1", "--guard-ns", "2000000"], ["guard_ps"]),
        (["--bijections", "0"], ["bijections"]),
        (["--tor", "nope"], ["tor"]),
    ],
)
def test_selectornet_cli_errors_name_the_field(tmp_path, args, words):
    assert_clean_error(run_greendcn("reproduce", "selectornet", *args, "--out", tmp_path), *words)
