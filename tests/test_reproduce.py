"""`greendcn reproduce rps --quick`: the figures and CSVs are written, and seed 003's qualitative findings
hold in our simulator at the quick size (2 seeds, 1 MB long flows). Tolerances are stated per test."""

import subprocess
import sys

import pandas as pd
import pytest


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("rps")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "greendcn.cli",
            "reproduce",
            "rps",
            "--quick",
            "--out",
            str(out),
            "--json",
            str(out / "rps.json"),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    # the progress bar goes to stderr, the tables to stdout
    assert "Kaymak 2016 runs" in proc.stderr and "Kaymak 2016 runs" not in proc.stdout
    return out, pd.read_csv(out / "summary.csv"), pd.read_csv(out / "runs.csv"), proc.stdout


def test_writes_figures_2_to_9_the_dupack_figure_and_csvs(quick):
    out, _, runs, stdout = quick
    names = sorted(p.name for p in out.glob("*.png"))
    assert [n.split("_")[0] for n in names] == [
        "fig2",
        "fig3",
        "fig4",
        "fig5",
        "fig6",
        "fig7",
        "fig8",
        "fig9",
        "fig",
    ]
    assert all((out / n).stat().st_size > 5000 for n in names)
    assert (out / "rps.json").stat().st_size > 0
    assert runs["all_completed"].all()
    assert set(runs["experiment"]) == {"static", "random", "shorts", "dupack"}
    assert "long_Mbps" in stdout
    # each statement of the paper is printed beside ours, kept apart
    assert all(f"Fig {n}" in stdout for n in range(2, 8)) and "Figs 8-9" in stdout
    assert "paper: random pairs: about 20 % of packets out of order" in stdout


def test_single_path_has_no_out_of_order_packets(quick):
    _, _, runs, _ = quick
    assert (runs[runs["scheme"] == "single"]["ooo_pct"] == 0).all()


def test_static_single_path_runs_are_identical_across_seeds(quick):
    # all flows start at 0 and single-path routing draws nothing at random
    _, _, runs, _ = quick
    single = runs[(runs["experiment"] == "static") & (runs["scheme"] == "single")]
    cols = ["long_throughput_bps", "short_fct_s", "retransmits"]
    assert (single.groupby("n_long")[cols].nunique(dropna=False) == 1).all().all()


# Seed 003's findings at its own sizes (10 MB long, 200 KB short flows), 5 seeds instead of 10 and fewer N,
# so that this takes seconds. Means are over N and seeds (the paper's figures are means over 10 runs).
FINDINGS = {"seeds": 5, "static_n": (2, 3, 4, 5), "random_n": (1, 3, 5), "short_counts": (20,)}


@pytest.fixture(scope="module")
def findings():
    from greendcn.sim.reproduce.rps import RpsConfig, reproduce_rps

    return reproduce_rps(RpsConfig(**FINDINGS), workers=1, progress=False)


def _mean(runs, metric, **where):
    sel = runs
    for k, v in where.items():
        sel = sel[sel[k] == v]
    assert len(sel) > 0
    return sel[metric].mean()


def test_random_pairs_spraying_shows_about_the_papers_out_of_order_share(findings):
    # seed 003 line 96 (Fig 7): "about 20%" out-of-order packets in the short flows. Its figure is lost, and
    # its TCP is unspecified, so we ask for the same magnitude: between 10 % and 30 %.
    share = _mean(findings, "ooo_pct", experiment="random", scheme="rps")
    assert 10 < share < 30, share
    assert _mean(findings, "ooo_pct", experiment="random", scheme="single") == 0


def test_random_pairs_spraying_lowers_short_flow_fct_once_tcp_tolerates_reordering(findings):
    # seed 003 Fig 6 (line 94): spraying gives a smaller mean short-flow FCT. In our model this holds with
    # a reorder-tolerant threshold (100 duplicate ACKs); with the standard 3, spurious fast retransmits
    # eat the gain (see the report of `greendcn reproduce rps`), so we test the mechanism behind that too.
    single = _mean(findings, "short_fct_s", experiment="random", scheme="single")
    tolerant = _mean(findings, "short_fct_s", experiment="dupack", scenario="random")
    assert tolerant < single
    assert _mean(findings, "long_throughput_bps", experiment="dupack", scenario="random") > _mean(
        findings, "long_throughput_bps", experiment="random", scheme="single"
    )
    assert _mean(findings, "spurious_retransmits", experiment="random", scheme="rps") > 0
    assert _mean(findings, "spurious_retransmits", experiment="dupack", scenario="random") == 0


def test_static_out_of_order_share_is_nonzero_and_roughly_flat_for_two_or_more_long_flows(findings):
    # seed 003 line 90 (Fig 4): about the same share for N >= 2, not growing with N. We require every
    # N in 2..5 to be above 5 % and the largest mean within a factor 2 of the smallest (a real trend, like
    # the short-flow FCT that grows about 2x from N=2 to N=5, would break it; seed noise at 5 runs would not).
    static = findings[(findings["experiment"] == "static") & (findings["scheme"] == "rps")]
    by_n = static.groupby("n_long")["ooo_pct"].mean()
    assert list(by_n.index) == [2, 3, 4, 5]
    assert (by_n > 5).all(), by_n.tolist()
    assert by_n.max() < 2 * by_n.min(), by_n.tolist()


def test_static_spraying_gives_at_least_single_path_long_flow_throughput(findings):
    # seed 003 Fig 2 (line 60): spraying is "slightly larger"; the bottleneck E7 -> S15 bounds both.
    rps = _mean(findings, "long_throughput_bps", experiment="static", scheme="rps")
    single = _mean(findings, "long_throughput_bps", experiment="static", scheme="single")
    assert rps >= single
    assert rps < 1.1 * single  # "slightly": both are held to the fair share of the same 1 Gbps link
