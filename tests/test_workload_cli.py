"""`greendcn workload describe` and `greendcn workload generate` as a user runs them, `simulate` on a generated
workload, and the refusals (one `error:` line naming the field, exit 1)."""

from __future__ import annotations

import csv
import json

import pytest

from conftest import assert_clean_error, run_greendcn


def _scenario(tmp_path, workload: str, topology: str = 'kind = "fattree"\nk = 8\nlink_rate = "10Gbps"'):
    p = tmp_path / "s.toml"
    p.write_text(f"[topology]\n{topology}\n\n[workload]\n{workload}\n")
    return p


WEBSEARCH = 'kind = "poisson"\nsizes = "websearch"\nload = 0.3\nduration = "50ms"\npattern = "uniform"'


def test_describe_prints_mean_median_and_percentiles_with_json(tmp_path):
    out = run_greendcn("workload", "describe", "websearch", "--json", tmp_path / "d.json")
    assert out.returncode == 0, out.stderr
    assert "Alizadeh" in out.stdout and "p50" in out.stdout and "mean" in out.stdout
    doc = json.loads((tmp_path / "d.json").read_text())
    assert doc["sampling"]["points"]["p50_bytes"] == 77113  # the first point whose probability reaches 0.5
    assert doc["sampling"]["interpolate"]["p50_bytes"] < 77113
    assert len(doc["table"]) == 16


def test_describe_reads_a_user_cdf_file(tmp_path):
    (tmp_path / "mine.csv").write_text("size_bytes,cumulative_probability\n1000,0.5\n9000,1\n")
    out = run_greendcn("workload", "describe", tmp_path / "mine.csv", "--json", tmp_path / "d.json")
    assert out.returncode == 0, out.stderr
    assert json.loads((tmp_path / "d.json").read_text())["sampling"]["points"]["mean_bytes"] == 5000


def test_generate_writes_the_flows_and_reports_load_and_percentiles(tmp_path):
    sc = _scenario(tmp_path, WEBSEARCH)
    out = run_greendcn("workload", "generate", sc, "-o", tmp_path / "f.csv", "--json", tmp_path / "g.json")
    assert out.returncode == 0, out.stderr
    rows = list(csv.DictReader((tmp_path / "f.csv").read_text().splitlines()))
    assert list(rows[0]) == ["src", "dst", "size_bytes", "start_s", "class"] and rows[0]["src"].startswith(
        "S"
    )
    doc = json.loads((tmp_path / "g.json").read_text())
    comp = doc["components"][0]
    assert doc["flows"] == len(rows) == comp["flows"]
    assert doc["bytes"] == sum(int(r["size_bytes"]) for r in rows)
    assert comp["achieved_load"] == pytest.approx(0.3, rel=0.03) and comp["target_load"] == 0.3
    assert comp["ks_distance"] <= 0.02
    assert "achieved_load" in out.stdout and "p99" in out.stdout


def _documented_scenario(fabric: str) -> str:
    """docs/workloads.md's first TOML block as written, or with its topology comment's Opera of 648 hosts."""
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "workloads.md").read_text()
    block = text.split("```toml\n", 1)[1].split("```", 1)[0]
    if fabric == "opera":
        line = next(x for x in block.splitlines() if x.startswith('kind = "fattree"'))
        assert 'or "opera" with hosts_per_rack = 6, racks = 108, circuit_switches = 6' in line
        block = block.replace(line, 'kind = "opera"\nhosts_per_rack = 6\nracks = 108\ncircuit_switches = 6')
    return block


@pytest.mark.parametrize(("fabric", "hosts"), [("fattree", 128), ("opera", 648)])
def test_the_documented_scenario_runs_as_written_on_a_fat_tree_and_on_opera(tmp_path, fabric, hosts):
    # docs/workloads.md's first example (the names), on its fat-tree and on the Opera its comment names;
    # Opera needs no [routing] table (its own routing is the default there)
    sc = tmp_path / "s.toml"
    sc.write_text(_documented_scenario(fabric))
    out = run_greendcn("workload", "generate", sc, "-o", tmp_path / "f.csv", "--json", tmp_path / "g.json")
    assert out.returncode == 0, out.stderr
    doc = json.loads((tmp_path / "g.json").read_text())
    assert doc["endpoints"] == hosts
    comp = doc["components"][0]
    assert (comp["kind"], comp["pattern"], comp["sizes"], comp["target_load"]) == (
        "poisson",
        "uniform",
        "websearch",
        0.3,
    )
    assert comp["achieved_load"] == pytest.approx(0.3, rel=0.03) and comp["ks_distance"] <= 0.02
    names = {r["src"] for r in csv.DictReader((tmp_path / "f.csv").read_text().splitlines())}
    assert names <= {f"S{i}" for i in range(hosts)} and len(names) > hosts // 2


def test_simulate_runs_the_generated_flows(tmp_path):
    sc = _scenario(
        tmp_path,
        'kind = "all_at_once"\nsize = "20KB"\npattern = "permutation"\nclass = "perm"',
        'kind = "fattree"\nk = 4',
    )
    out = run_greendcn("workload", "generate", sc, "-o", tmp_path / "f.csv", "--seed", "3")
    assert out.returncode == 0, out.stderr
    sim = run_greendcn("simulate", sc, "--seed", "3", "--json", tmp_path / "r.json")
    assert sim.returncode == 0, sim.stderr
    flows = json.loads((tmp_path / "r.json").read_text())["flows"]
    written = list(csv.DictReader((tmp_path / "f.csv").read_text().splitlines()))
    assert [(f["src"], f["dst"], f["size_bytes"], f["class"]) for f in flows] == [
        (r["src"], r["dst"], int(r["size_bytes"]), r["class"]) for r in written
    ]


@pytest.mark.parametrize(
    ("workload", "words"),
    [
        (
            'kind = "poisson"\nsizes = "webserch"\nload = 0.3\nduration = "1ms"',
            ["workload.sizes", "webserch"],
        ),
        ('kind = "poisson"\nload = 0\nduration = "1ms"', ["workload.load"]),
        ('kind = "poisson"\nload = 1.2\nduration = "1ms"', ["workload.load", "1.2"]),
        ('kind = "all_at_once"\nsize = "1KB"\npattern = "incast"\nfan_in = 500', ["workload.fan_in", "500"]),
        ('kind = "all_at_once"\nsize = "1KB"\npattern = "stride"\nstride = 0', ["workload.stride"]),
    ],
)
@pytest.mark.parametrize("command", ["generate", "simulate"])
def test_bad_workloads_get_one_error_line_naming_the_field(tmp_path, workload, words, command):
    sc = _scenario(tmp_path, workload)
    args = ("workload", "generate", sc) if command == "generate" else ("simulate", sc)
    assert_clean_error(run_greendcn(*args), *words)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("1000,0\n2000,0.6\n3000,0.5\n4000,1\n", ["workload.sizes", "line 3", "never decreases"]),
        ("1000,0\n2000,0.6\n3000,0.9\n", ["workload.sizes", "ends at 1"]),
    ],
)
def test_bad_cdf_files_are_refused_with_the_line(tmp_path, text, words):
    (tmp_path / "cdf.csv").write_text(text)
    sc = _scenario(tmp_path, 'kind = "poisson"\nsizes = "cdf.csv"\nload = 0.1\nduration = "1ms"')
    assert_clean_error(run_greendcn("workload", "generate", sc), *words)
    assert_clean_error(run_greendcn("workload", "describe", tmp_path / "cdf.csv"), words[1])


def test_a_duration_beyond_the_size_guard_is_refused_with_the_flow_count(tmp_path):
    sc = _scenario(tmp_path, 'kind = "poisson"\nsizes = "datamining"\nload = 1\nduration = "2000s"')
    out = run_greendcn("simulate", sc, "--max-memory", "4GB")
    assert_clean_error(out, "workload.duration", "flows")
    # about 2000 s x 128 hosts x 1.25e9 B/s / 7.86e6 B = 40.7 million flows, said with thousands separators
    assert "40,7" in out.stderr
    out = run_greendcn("workload", "generate", sc, "--set", "workload.duration=2000000s")
    assert_clean_error(out, "workload.duration", "flows")


INLINE = """[topology]
kind = "fattree"
k = 4

[workload]
kind = "flows"

[[workload.flows]]
src = "S0"
dst = "S5"
size = "100KB"
transport = "TRANSPORT"
class = "d"

[[workload.flows]]
src = "S1"
dst = "S6"
size = "50KB"
start = "10us"
transport = "udp"
rate = "1Gbps"
"""


def test_generate_writes_an_explicit_lists_udp_flows_with_their_rates(tmp_path):
    from greendcn.sim import simulate

    sc = tmp_path / "s.toml"
    sc.write_text(INLINE.replace("TRANSPORT", "tcp"))
    out = run_greendcn("workload", "generate", sc, "-o", tmp_path / "f.csv")
    assert out.returncode == 0, out.stderr
    lines = (tmp_path / "f.csv").read_text().splitlines()
    assert lines == [
        "src,dst,size_bytes,start_s,class,transport,rate_bps",
        "S0,S5,100000,0.000000000000,d,tcp,",
        "S1,S6,50000,0.000010000000,flow,udp,1000000000",
    ]
    # the file runs as the scenario's own list does
    cols = ["src", "dst", "size_bytes", "start_s", "class", "transport", "fct_s"]
    own = simulate(sc, progress=False).flows[cols]
    assert simulate(sc, flows=tmp_path / "f.csv", progress=False).flows[cols].equals(own)


def test_generate_writes_a_listed_flows_own_dctcp_and_the_file_runs_as_the_list(tmp_path):
    from greendcn.sim import simulate

    sc = tmp_path / "s.toml"
    sc.write_text(INLINE.replace("TRANSPORT", "dctcp"))
    out = run_greendcn("workload", "generate", sc, "-o", tmp_path / "f.csv")
    assert out.returncode == 0, out.stderr
    lines = (tmp_path / "f.csv").read_text().splitlines()
    assert lines[1:] == [
        "S0,S5,100000,0.000000000000,d,dctcp,",
        "S1,S6,50000,0.000010000000,flow,udp,1000000000",
    ]
    cols = ["src", "dst", "size_bytes", "start_s", "class", "transport", "fct_s", "ecn_marks"]
    own = simulate(sc, progress=False).flows[cols]
    assert list(own["transport"]) == ["dctcp", "udp"]
    assert simulate(sc, flows=tmp_path / "f.csv", progress=False).flows[cols].equals(own)


def test_a_load_sweep_of_a_generated_workload_stores_slowdown_by_size_and_class(tmp_path):
    # The sweep store's summaries carry the FCT and slowdown percentiles per size bucket and per class
    # (docs/metrics.md), one row per load; each row's count matches the run's own flow table.
    import greendcn.sweep
    from greendcn.sweep.driver import run_sweep

    (tmp_path / "ws.toml").write_text(
        '[topology]\nkind = "fattree"\nk = 4\n\n[workload]\nkind = "poisson"\nsizes = "websearch"\n'
        'load = 0.1\nduration = "2ms"\nclass = "ws"\n'
    )
    spec = tmp_path / "sweep.toml"
    spec.write_text('[sweep]\nname = "ld"\nscenario = "ws.toml"\n\n[axes]\n"workload.load" = [0.1, 0.3]\n')
    out = run_sweep(spec, store=tmp_path / "s.duckdb", workers=1, progress=False)
    assert (out.done, out.failed) == (2, 0)
    res = greendcn.sweep.open(tmp_path / "s.duckdb")
    s = res.query(
        'SELECT r."workload.load" AS load, s.* FROM summaries s JOIN runs r USING (key) ORDER BY load'
    )
    assert s["load"].tolist() == [0.1, 0.3]
    for q in ("p50", "p99", "p999"):
        assert (
            s[f"size_lt_100KB_slowdown_{q}"].notna().all() and (s[f"size_lt_100KB_slowdown_{q}"] >= 1).all()
        )
        assert s[f"class_ws_slowdown_{q}"].notna().all() and f"class_ws_fct_{q}_s" in s
    buckets = ("lt_100KB", "100KB_1MB", "1MB_10MB", "ge_10MB")
    assert (sum(s[f"size_{b}_flows"] for b in buckets) == s["class_ws_flows"]).all()
    assert (s["class_ws_flows"] == s["flows"]).all() and s["flows"].tolist()[0] < s["flows"].tolist()[1]
