"""The fabric comparison on a user's workload and under a load sweep (`greendcn fabrics --workload`, `--load`):
identical flows on every fabric, one row per (fabric, load), the window's energy, and clean refusals."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from greendcn.core.errors import InputError
from greendcn.sim.fabrics import FabricsConfig
from greendcn.sim.fabrics_load import generated_flows, layout_for

from conftest import assert_clean_error, run_greendcn

FABRICS = {"opera", "rotornet", "selectornet", "fat-tree 1:1", "fat-tree 3:1"}


def _flow_file(path, rows):
    path.write_text("src,dst,size_bytes,start_s,class\n" + "".join(f"{r}\n" for r in rows))
    return path


def test_a_flow_file_runs_on_every_fabric_with_the_same_flows(tmp_path):
    # 32 hosts (8 racks x 4): flows within a circuit rack, across racks, small and large, staggered starts
    rows = ["S0,S5,30000,0,a", "S1,S2,200000,0.0001,a", "S31,S0,1000000,0,b", "S12,S20,50000,0.0005,b"]
    flows = _flow_file(tmp_path / "mine.csv", rows)
    doc_path = tmp_path / "out.json"
    out = run_greendcn("fabrics", "--workload", flows, "--racks", "8", "--switches", "4", "--json", doc_path)
    assert out.returncode == 0, out.stderr
    assert "mine.csv" in out.stdout and "short_p99_slowdown" in out.stdout
    doc = json.loads(doc_path.read_text())
    assert doc["config"]["hosts"] == 32 and doc["config"]["flows"] == 4
    by_fabric = {r["fabric"]: r for r in doc["fabrics"]}
    assert set(by_fabric) == FABRICS
    want = sorted(
        (r.split(",")[0], r.split(",")[1], int(r.split(",")[2]), float(r.split(",")[3])) for r in rows
    )
    for name, r in by_fabric.items():
        got = sorted((f["src"], f["dst"], f["size_bytes"], f["start_s"]) for f in r["flow_list"])
        assert [g[:3] for g in got] == [w[:3] for w in want], name
        assert [g[3] for g in got] == pytest.approx([w[3] for w in want], abs=1e-12), name
        assert r["transport"] in ("tcp", "datagram")
        assert r["hosts_priced"] == 32 and 0 < r["host_share"] < 1
        # two flows below 100 KB; their slowdown is finite when they finished
        assert r["short_flows"] == 2


def test_a_load_sweep_has_one_row_per_fabric_and_load_with_slowdown_and_energy(tmp_path):
    doc_path, csv_path, fig = tmp_path / "s.json", tmp_path / "s.csv", tmp_path / "figs" / "sweep.png"
    out = run_greendcn(
        "fabrics", "--load", "0.1,0.3", "--sizes", "websearch", "--racks", "8", "--switches", "4",
        "--duration", "2ms", "--json", doc_path, "--csv", csv_path, "--figure", fig,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    doc = json.loads(doc_path.read_text())
    rows = doc["rows"]
    assert sorted((r["fabric"], r["load"]) for r in rows) == sorted(
        (f, x) for f in FABRICS for x in (0.1, 0.3)
    )
    table = list(csv.DictReader(csv_path.read_text().splitlines()))
    assert sorted((r["fabric"], float(r["load"])) for r in table) == sorted(
        (r["fabric"], r["load"]) for r in rows
    )
    for r in rows:
        assert r["window_start_s"] == 0 and r["window_end_s"] == pytest.approx(2e-3)
        # the window's energy is its power over exactly 2 ms; pJ/bit over the window's delivered bits
        assert r["window_energy_j"] == pytest.approx(r["window_power_w"] * 2e-3, rel=1e-9)
        if r["window_delivered_bits"]:
            assert r["window_energy_per_bit_pj"] == pytest.approx(
                r["window_energy_j"] / r["window_delivered_bits"] * 1e12, rel=1e-9
            )
        else:
            assert r["window_energy_per_bit_pj"] is None
        assert r["energy_per_bit_pj"] > 0 and r["short_flows"] >= 1
    # the same offered flows on every fabric at a load, and more of them at the higher load
    offered = {(r["load"], r["flows"]) for r in rows}
    assert len(offered) == 2 and dict(offered)[0.3] > dict(offered)[0.1]
    # at least one fabric has short flows done at every load, so the slowdown column is filled there
    assert all(any(r["short_slowdown_p99"] for r in rows if r["load"] == x) for x in (0.1, 0.3))
    for part in ("slowdown", "energy"):
        assert (tmp_path / "figs" / f"sweep-{part}.png").stat().st_size > 0
    assert "window_pJ/bit" in out.stdout and "host_%" in out.stdout


def test_the_sweep_uses_one_seed_and_inter_rack_pairs():
    cfg = FabricsConfig(racks=8, circuit_switches=4)
    a = generated_flows(cfg, 0.3, "websearch", 1_000_000_000)
    b = generated_flows(cfg, 0.3, "websearch", 1_000_000_000)
    assert len(a) > 0 and all(
        np.array_equal(getattr(a, k), getattr(b, k)) for k in ("src", "dst", "size_bytes", "start_ps", "cls")
    )
    assert not (a.src // 4 == a.dst // 4).any()  # every flow crosses a circuit (racks of 4 hosts)


def test_a_scenario_sizes_the_fabrics_to_its_hosts():
    # 16 hosts (a k = 4 fat-tree) -> 4 racks x 4 switches; 128 -> 32 x 4; 648 -> Opera's 108 x 6
    assert layout_for(16) == (4, 4) and layout_for(128) == (32, 4) and layout_for(648) == (108, 6)
    with pytest.raises(InputError):
        layout_for(7)


def test_a_scenario_workload_runs_with_its_window(tmp_path):
    sc = tmp_path / "w.toml"
    sc.write_text(
        '[topology]\nkind = "fattree"\nk = 4\nlink_rate = "10Gbps"\n[workload]\nkind = "poisson"\n'
        'sizes = "websearch"\nload = 0.5\nduration = "2ms"\npattern = "uniform"\n'
    )
    doc_path = tmp_path / "w.json"
    out = run_greendcn("fabrics", "--workload", sc, "--json", doc_path)
    assert out.returncode == 0, out.stderr
    doc = json.loads(doc_path.read_text())
    assert doc["config"]["hosts"] == 16 and doc["config"]["run"]["window"] == ["0ps", "2000000000ps"]
    sizes = {r["fabric"]: sorted(f["size_bytes"] for f in r["flow_list"]) for r in doc["fabrics"]}
    assert len({tuple(v) for v in sizes.values()}) == 1 and set(sizes) >= {
        "opera",
        "rotornet",
        "fat-tree 1:1",
    }
    assert all(r["window_energy_j"] > 0 for r in doc["fabrics"])
    assert "window: 0 to 2 ms" in out.stdout


@pytest.mark.parametrize(
    "args, words",
    [
        (["--load", "0.1", "--sizes", "nosuchtable"], ["--sizes", "nosuchtable"]),
        (["--load", "0.1,1.5"], ["--load", "1.5", "(0, 1]"]),
        (["--load", "0"], ["--load", "(0, 1]"]),
        (["--load", "0.1", "--duration", "0ms"], ["--duration", "positive"]),
        (["--load", "0.1", "--workload", "flows.csv"], ["--load", "--workload"]),
    ],
)
def test_bad_sweep_options_are_one_error_line(args, words):
    assert_clean_error(run_greendcn("fabrics", "--racks", "8", "--switches", "4", *args), *words)


def test_a_flow_file_naming_a_host_beyond_the_fabrics_is_refused(tmp_path):
    flows = _flow_file(tmp_path / "big.csv", ["S0,S3,1000,0,a", "S2,S40,1000,0,a"])
    out = run_greendcn("fabrics", "--workload", flows, "--racks", "8", "--switches", "4")
    assert_clean_error(out, "--workload", "big.csv line 3", "S40")
    assert "S0..S31" in out.stderr


def test_the_energy_fabrics_alias_takes_the_sweep_options():
    assert_clean_error(run_greendcn("energy", "fabrics", "--load", "2"), "--load", "(0, 1]")
