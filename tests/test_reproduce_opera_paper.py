"""`greendcn reproduce opera-paper` and `opera-paper-energy` on small networks: the networks come from scenario
files found by name in a folder the test writes (a k = 4 fat-tree stands in for the Clos, an Opera of 8 racks
for the 108-rack one), the flow and reference files are synthetic. Runs take well under a second each."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import assert_clean_error

from greendcn.core.errors import InputError
from greendcn.sim.reproduce.opera_paper import network_scenario, reproduce_opera_paper

CLOS = """name = "stand-in"
[topology]
kind = "fattree"
k = 4
[routing]
scheme = "rps"
"""
OPERA = """name = "small-opera"
[topology]
kind = "opera"
racks = 8
circuit_switches = 4
hosts_per_rack = 2
reconfig = "10us"
guard = "1us"
search_moves = 20
[routing]
scheme = "opera"
"""
# 16 hosts on both: flows in all three size buckets, some starting together
FLOWS = [
    (0, 5, 20_000, 0),
    (3, 12, 60_000, 1_000),
    (7, 2, 300_000, 2_000),
    (9, 14, 2_000, 2_000),
    (15, 0, 1_500_000, 5_000),
    (4, 11, 90_000, 40_000),
    (1, 6, 700_000, 60_000),
    (13, 8, 8_000, 80_000),
]


@pytest.fixture
def nets(tmp_path):
    d = tmp_path / "scenarios"
    d.mkdir()
    (d / "clos-3to1-648.toml").write_text(CLOS)
    (d / "opera-paper-648.toml").write_text(OPERA)
    flows = tmp_path / "flows_1percLLload.htsim"
    flows.write_text("".join(f"{s} {d} {b} {t}\n" for s, d, b, t in FLOWS))
    return d, flows


def run_greendcn(*argv):
    """The command in this process (no interpreter start-up): what `greendcn ARGV` returns and prints."""
    import contextlib
    import io
    import types

    from greendcn.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main([str(a) for a in argv])
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
    return types.SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


def _reference(path, per_flow, scale, fixed=True):
    """A reference file in the simulator's format from per-flow FCTs at the sender's last ACK (ms, where the
    simulator ends them and where the comparison ends ours) times `scale`, in reverse order."""
    lines = ["Loading topology...\n"]
    for r in per_flow[::-1].itertuples():
        start = f"{r.start_ns / 1e6:.6f}" if fixed else f"{r.start_ns / 1e6:.6g}"
        lines.append(f"FCT {r.src} {r.dst} {r.size_bytes} {r.fct_ack_ms * scale:.6f} {start}\n")
    path.write_text("".join(lines))
    return path


def test_run_script_parameters_reach_the_scenario(nets):
    d, _ = nets
    clos = network_scenario("clos", "ndp", d)
    assert clos["topology"]["queue"] == "46pkt" and clos["ndp"]["queue"] == "46pkt"
    opera = network_scenario("opera", "ndp", d)
    assert clos["topology"]["host_link_delay"] == opera["topology"]["host_link_delay"] == "0ns"
    # Opera's packets carry no framing, as the simulator's; the Clos keeps the default framing
    assert opera["topology"]["frame_overhead"] == 0 and "frame_overhead" not in clos["topology"]
    assert clos["ndp"]["initial_window"] == 30 and clos["tcp"]["mss"] == 1436
    assert clos["topology"]["k"] == 4  # the file's topology, with the run script's settings over it
    opera = network_scenario("opera", "ndp", d)
    assert opera["topology"]["cutoff"] == "30000000B" and opera["ndp"]["queue"] == "8pkt"
    assert opera["ndp"]["initial_window"] == 20 and opera["tcp"]["min_rto"] == "1ms"
    # a pull pacer per flow on every network, as each of the simulator's mains builds them
    assert clos["ndp"]["pull_pacer"] == opera["ndp"]["pull_pacer"] == "flow"
    # DCTCP's K fits under the 46-packet queue (our choice: half of it)
    assert network_scenario("clos", "dctcp", d)["dctcp"]["k"] == 23


@pytest.mark.parametrize("network", ["clos", "opera"])
def test_ours_against_a_reference_of_our_own_fcts(nets, tmp_path, network):
    d, flows = nets
    doc = reproduce_opera_paper(flows, network, None, "ndp", d)
    per_flow = doc["_flows"]
    assert doc["completed_ours"] == len(FLOWS)
    assert "ndp" in doc["config"]["transport_ran"]
    assert np.isfinite(per_flow["slowdown"]).all() and (per_flow["slowdown"] > 0.5).all()
    # the same FCTs as the reference: every difference near 0, every target met
    same = reproduce_opera_paper(flows, network, _reference(tmp_path / "same.txt", per_flow, 1.0), "ndp", d)
    for b in same["buckets"]:
        for stat in ("p50", "mean", "p99"):
            assert abs(b[f"fct_{stat}_diff"]) < 1e-3
        assert b["within_target"] is True
    # a reference twice as slow (Clos-style starts): ours is 50 % below it everywhere, the target missed
    slow = reproduce_opera_paper(
        flows, network, _reference(tmp_path / "slow.txt", per_flow, 2.0, fixed=False), "ndp", d
    )
    for b in slow["buckets"]:
        assert b["fct_p50_diff"] == pytest.approx(-0.5, abs=1e-3)
        assert b["slowdown_p99_theirs"] == pytest.approx(2 * b["slowdown_p99_ours"], rel=1e-3)
        assert b["within_target"] is False
    # deterministic: the same run twice gives the same FCTs
    assert np.array_equal(per_flow["fct_ack_ms"].to_numpy(), same["_flows"]["fct_ack_ms"].to_numpy())
    # without a reference FCT ends at the receiver, with one at the sender's last ACK, as the simulator's
    assert "receiver" in doc["config"]["fct_ends"] and "sender" in same["config"]["fct_ends"]
    assert np.array_equal(same["_flows"]["fct_ms"].to_numpy(), per_flow["fct_ack_ms"].to_numpy())
    assert (per_flow["fct_ack_ms"] > per_flow["fct_ms"]).all()
    # every device priced, the 16 hosts too
    e = doc["energy"]
    assert e["hosts_priced"] == 16 and 0 < e["hosts_energy_j"] < e["energy_j"]
    assert e["energy_per_bit_pj"] == pytest.approx(e["energy_j"] / e["delivered_bits"] * 1e12)


def test_a_reference_missing_flows_counts_them_as_unfinished(nets, tmp_path):
    d, flows = nets
    doc = reproduce_opera_paper(flows, "clos", None, "ndp", d)
    ref = _reference(tmp_path / "ref.txt", doc["_flows"].iloc[1:], 1.0)
    out = reproduce_opera_paper(flows, "clos", ref, "ndp", d)
    assert out["completed_theirs"] == len(FLOWS) - 1
    assert np.isnan(out["_flows"]["reference_fct_ms"].iloc[0])


def test_cli_writes_table_csv_figure_and_json(nets, tmp_path):
    d, flows = nets
    doc = reproduce_opera_paper(flows, "clos", None, "tcp", d)
    ref = _reference(tmp_path / "FCT.txt", doc["_flows"], 1.1)
    out = run_greendcn(
        "reproduce", "opera-paper", "--flows", flows, "--network", "clos", "--reference", ref,
        "--transport", "tcp", "--scenarios-dir", d, "-o", tmp_path / "out", "--json", tmp_path / "o.json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "lt_100KB" in out.stdout and "ge_1MB" in out.stdout and "Mellette" in out.stdout
    assert "to the sender's last ACK" in out.stdout
    got = json.loads((tmp_path / "o.json").read_text())
    assert [b["bucket"] for b in got["buckets"]] == ["all", "lt_100KB", "100KB_1MB", "ge_1MB"]
    assert got["buckets"][0]["fct_p50_diff"] == pytest.approx(1 / 1.1 - 1, abs=1e-3)
    csv = pd.read_csv(tmp_path / "out" / f"clos_{flows.stem}_tcp_flows.csv")
    assert len(csv) == len(FLOWS) and "reference_fct_ms" in csv.columns
    assert (tmp_path / "out" / f"clos_{flows.stem}_tcp_fct_cdf.png").stat().st_size > 1000


def test_cli_errors(nets, tmp_path):
    d, flows = nets
    bad = tmp_path / "bad.htsim"
    bad.write_text("0 5 100 0\n0 16 100 10\n")
    out = run_greendcn(
        "reproduce",
        "opera-paper",
        "--flows",
        bad,
        "--network",
        "clos",
        "--scenarios-dir",
        d,
        "-o",
        tmp_path / "o",
    )
    assert_clean_error(out, str(bad), "line 2", "beyond the network's 16 hosts")


def test_a_missing_network_file_or_a_reference_of_other_flows_is_refused(nets, tmp_path):
    d, flows = nets
    with pytest.raises(InputError, match="expander-u7-650.toml does not exist") as e:
        reproduce_opera_paper(flows, "expander", None, "ndp", d)
    assert "does not ship it" in e.value.hint
    ref = tmp_path / "FCT.txt"
    ref.write_text("FCT 0 5 20000 0.1 0.000000\nFCT 0 6 20000 0.1 0.000000\n")
    with pytest.raises(InputError, match=f"{ref} line 2: .* matches no flow"):
        reproduce_opera_paper(flows, "clos", ref, "ndp", d)


def test_unknown_network_or_transport_is_refused(nets):
    d, flows = nets
    with pytest.raises(InputError, match="--network"):
        reproduce_opera_paper(flows, "torus", None, "ndp", d)
    with pytest.raises(InputError, match="--transport"):
        reproduce_opera_paper(flows, "clos", None, "quic", d)


def test_energy_command_draws_fct_against_joules_per_bit(nets, tmp_path):
    d, flows = nets
    out = run_greendcn(
        "reproduce", "opera-paper-energy", "--run", f"clos={flows}", "--run", f"opera={flows}",
        "--scenarios-dir", d, "-o", tmp_path / "out", "--json", tmp_path / "e.json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    rows = json.loads((tmp_path / "e.json").read_text())["runs"]
    assert [r["network"] for r in rows] == ["clos", "opera"]
    for r in rows:
        assert r["label"] == "1 %" and r["completed"] == len(FLOWS)
        assert r["energy_per_bit_pj"] > 0 and 0 < r["host_share"] < 1 and r["short_fct_p99_ms"] > 0
    assert (tmp_path / "out" / "energy_fct.png").stat().st_size > 1000
    assert len(pd.read_csv(tmp_path / "out" / "energy_fct.csv")) == 2
    bad = run_greendcn("reproduce", "opera-paper-energy", "--run", "clos", "--scenarios-dir", d)
    assert_clean_error(bad, "--run", "NETWORK=FLOWFILE")
