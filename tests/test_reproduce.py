"""`greendcn reproduce rps --quick`: the figures and CSVs are written, and seed 003's qualitative findings
hold in our simulator at the quick size (2 seeds, 1 MB long flows). Tolerances are stated per test."""

import subprocess
import sys

import pandas as pd
import pytest


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("rps")
    proc = subprocess.run([sys.executable, "-m", "greendcn.cli", "reproduce", "rps", "--quick", "--out", str(out),
                           "--json", str(out / "rps.json")], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    return out, pd.read_csv(out / "summary.csv"), pd.read_csv(out / "runs.csv"), proc.stdout


def test_writes_figures_2_to_9_the_dupack_figure_and_csvs(quick):
    out, summary, runs, stdout = quick
    names = sorted(p.name for p in out.glob("*.png"))
    assert [n.split("_")[0] for n in names] == ["fig2", "fig3", "fig4", "fig5", "fig6", "fig7", "fig8", "fig9",
                                                 "fig"]
    assert all((out / n).stat().st_size > 5000 for n in names)
    assert (out / "rps.json").stat().st_size > 0
    assert runs["all_completed"].all()
    assert set(runs["experiment"]) == {"static", "random", "shorts", "dupack"}
    assert "long_Mbps" in stdout


def test_single_path_has_no_out_of_order_packets(quick):
    _, summary, runs, _ = quick
    assert (runs[runs["scheme"] == "single"]["ooo_pct"] == 0).all()


def test_static_single_path_runs_are_identical_across_seeds(quick):
    # all flows start at 0 and single-path routing draws nothing at random
    _, _, runs, _ = quick
    single = runs[(runs["experiment"] == "static") & (runs["scheme"] == "single")]
    cols = ["long_throughput_bps", "short_fct_s", "retransmits"]
    assert (single.groupby("n_long")[cols].nunique(dropna=False) == 1).all().all()
