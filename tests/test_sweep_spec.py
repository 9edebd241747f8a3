"""Sweep specs: expansion (lists, ranges, zip groups, grids), stable keys, and bad specs refused with one
`error:` line naming the field before any store is created."""

from __future__ import annotations

import os

import pytest

from greendcn.core.errors import InputError
from greendcn.sweep.spec import load_spec
from sweep_fixtures import STATIC, small_spec, write_spec
from conftest import assert_clean_error, run_greendcn


def test_axes_expand_to_the_product_with_stable_distinct_keys(tmp_path):
    spec = load_spec(small_spec(tmp_path, seeds=3, long_flows=4))
    assert len(spec.runs) == 2 * 4 * 3
    assert len({r.key for r in spec.runs}) == len(spec.runs)
    assert spec.axes["workload.long_flows"] == [1, 2, 3, 4]
    again = load_spec(small_spec(tmp_path, seeds=3, long_flows=4))
    assert [r.key for r in again.runs] == [r.key for r in spec.runs]


def test_key_hashes_the_resolved_scenario_not_its_spelling(tmp_path):
    a = write_spec(
        tmp_path, f'[sweep]\nscenario = "{STATIC}"\n[axes]\n"topology.link_rate" = ["1Gbps"]\n', "a.toml"
    )
    b = write_spec(
        tmp_path, f'[sweep]\nscenario = "{STATIC}"\n[axes]\n"topology.link_rate" = ["1000Mbps"]\n', "b.toml"
    )
    c = write_spec(
        tmp_path, f'[sweep]\nscenario = "{STATIC}"\n[axes]\n"topology.link_rate" = ["2Gbps"]\n', "c.toml"
    )
    ka, kb, kc = (load_spec(p).runs[0].key for p in (a, b, c))
    assert ka == kb != kc


def test_axes_reach_into_lists_of_tables_by_index(tmp_path):
    mix = os.path.join(os.path.dirname(__file__), "..", "scenarios", "shuffle-plus-websearch.toml")
    p = write_spec(
        tmp_path, f'[sweep]\nscenario = "{mix}"\n[axes]\nworkload.components.1.load = [0.05, 0.1]\n'
    )
    spec = load_spec(p)
    assert [r.params["workload.components.1.load"] for r in spec.runs] == [0.05, 0.1]
    assert len({r.key for r in spec.runs}) == 2  # the index reaches the component: two different scenarios
    bad = write_spec(
        tmp_path, f'[sweep]\nscenario = "{mix}"\n[axes]\n"workload.components.9.load" = [0.1]\n', "bad.toml"
    )
    with pytest.raises(InputError, match=r"workload\.components\.9"):
        load_spec(bad)


def test_zip_groups_vary_together_and_grids_union(tmp_path):
    p = write_spec(
        tmp_path,
        f"""
[sweep]
scenario = "{STATIC}"
[axes]
"run.seed" = [1, 2]
[[grid]]
name = "a"
[[grid.zip]]
"routing.scheme" = ["single", "rps", "ecmp"]
"tcp.dupack_threshold" = [3, 100, 5]
[[grid]]
name = "b"
set = {{"workload.long_flows" = 2}}
axes = {{"topology.link_rate" = {{start = "1Gbps", stop = "3Gbps", step = "1Gbps"}}}}
""",
    )
    spec = load_spec(p)
    a = [r for r in spec.runs if r.grid == "a"]
    b = [r for r in spec.runs if r.grid == "b"]
    assert len(a) == 2 * 3 and len(b) == 2 * 3
    pairs = {(r.params["routing.scheme"], r.params["tcp.dupack_threshold"]) for r in a}
    assert pairs == {("single", 3), ("rps", 100), ("ecmp", 5)}
    assert {r.params["topology.link_rate"] for r in b} == {"1Gbps", "2Gbps", "3Gbps"}
    assert all(r.params["workload.long_flows"] == 2 for r in b)


def test_identical_points_run_once(tmp_path):
    p = write_spec(
        tmp_path, f'[sweep]\nscenario = "{STATIC}"\n[axes]\n"topology.link_rate" = ["1Gbps", "1000Mbps"]\n'
    )
    spec = load_spec(p)
    assert len(spec.runs) == 1 and spec.duplicates == 1


def test_router_power_kind_resolves_its_parameters(tmp_path):
    p = write_spec(tmp_path, '[sweep]\nkind = "router_power"\n[axes]\nload = ["500kpps", "1Mpps"]\n')
    spec = load_spec(p)
    assert [r.job["load_pps"] for r in spec.runs] == [5e5, 1e6]


BAD = [
    ("unknown top-level key", '[sweepp]\nname = "x"\n', "sweepp"),
    ("unknown sweep key", "[sweep]\nkidn = 'simulate'\n", "sweep.kidn"),
    (
        "unknown scenario key",
        f'[sweep]\nscenario = "{STATIC}"\n[axes]\n"topology.kk" = [1, 2]\n',
        "topology.kk",
    ),
    ("empty axis", f'[sweep]\nscenario = "{STATIC}"\n[axes]\n"routing.scheme" = []\n', "routing.scheme"),
    ("empty range", '[axes]\n"run.seed" = {start = 5, stop = 1}\n', "run.seed"),
    (
        "wrong unit",
        f'[sweep]\nscenario = "{STATIC}"\n[axes]\n"topology.link_rate" = ["1Gbps", "10 furlongs"]\n',
        "topology.link_rate",
    ),
    ("zip lengths", '[[zip]]\n"run.seed" = [1, 2]\n"routing.scheme" = ["rps"]\n', "zip[0]"),
    ("unknown kind", '[sweep]\nkind = "teleport"\n', "sweep.kind"),
    ("router load unit", '[sweep]\nkind = "router_power"\n[axes]\nload = ["3 furlongs"]\n', "load"),
]


@pytest.mark.parametrize("body, field", [(b, f) for _, b, f in BAD], ids=[i for i, _, _ in BAD])
def test_bad_spec_is_refused_in_process(tmp_path, body, field):
    with pytest.raises(InputError) as info:
        load_spec(write_spec(tmp_path, body))
    assert field in str(info.value)


@pytest.mark.parametrize("case", ["unknown key", "empty axis", "wrong unit"])
def test_bad_spec_cli_error_and_no_store(tmp_path, case):
    body = {
        "unknown key": f'[sweep]\nscenario = "{STATIC}"\n[axes]\n"topology.kk" = [1, 2]\n',
        "empty axis": f'[sweep]\nscenario = "{STATIC}"\n[axes]\n"routing.scheme" = []\n',
        "wrong unit": f'[sweep]\nscenario = "{STATIC}"\n[axes]\n"topology.link_rate" = ["10 furlongs"]\n',
    }[case]
    spec = write_spec(tmp_path, body)
    out = run_greendcn("sweep", "run", spec, "--store", tmp_path / "s.duckdb")
    field = {
        "unknown key": "topology.kk",
        "empty axis": "routing.scheme",
        "wrong unit": "topology.link_rate",
    }[case]
    assert_clean_error(out, field)
    assert not (tmp_path / "s.duckdb").exists()
    assert not (tmp_path / "results.duckdb").exists()


def test_store_that_is_a_folder_or_read_only_is_refused(tmp_path):
    spec = small_spec(tmp_path, seeds=1, long_flows=1)
    folder = tmp_path / "dir.duckdb"
    folder.mkdir()
    out = run_greendcn("sweep", "run", spec, "--store", folder)
    assert_clean_error(out, "store", "folder")
    assert list(folder.iterdir()) == []
    ro = tmp_path / "ro.duckdb"
    ro.write_bytes(b"")
    os.chmod(ro, 0o444)  # no write bit: refused even for root (our choice, docs/sweeps.md)
    out = run_greendcn("sweep", "run", spec, "--store", ro)
    assert_clean_error(out, "store", "read-only")
    assert ro.read_bytes() == b""
