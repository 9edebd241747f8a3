"""Workloads: seed 003's static and random scenarios, permutations, CSV flow lists, seeds and jitter."""

from collections import Counter

import pytest

from greendcn.core.errors import InputError
from greendcn.sim.scenario import scenario_from_dict
from greendcn.sim.topology import fattree
from greendcn.sim.workload import build_workload, permutation, randomized, read_flows_csv, static

NET = fattree(4)


@pytest.mark.parametrize("n", range(6))
def test_static_scenario_is_n_long_flows_and_one_short_to_s15(n):
    flows = static(NET, n)
    long = [f for f in flows if f.cls == "long"]
    short = [f for f in flows if f.cls == "short"]
    assert [NET.nodes[f.src].name for f in long] == [f"S{i}" for i in range(n)]
    assert all(NET.nodes[f.dst].name == "S15" for f in flows)
    assert all(f.size_bytes == 10_000_000 for f in long)
    assert len(short) == 1 and short[0].size_bytes == 200_000 and NET.nodes[short[0].src].name == "S0"
    assert all(f.start_ps == 0 for f in flows)


def test_random_scenario_pairs_are_distinct_seeded_and_cover_hosts():
    a = randomized(NET, long_flows=5, short_flows=20, seed=7)
    assert a == randomized(NET, long_flows=5, short_flows=20, seed=7)
    assert a != randomized(NET, long_flows=5, short_flows=20, seed=8)
    assert Counter(f.cls for f in a) == {"long": 5, "short": 20}
    assert all(f.src != f.dst for f in a)
    many = randomized(NET, long_flows=0, short_flows=4000, seed=1)
    srcs = Counter(f.src for f in many)
    # uniform over 16 hosts: 250 expected each; 5 standard deviations (about 5 x 15.5) of slack.
    assert set(srcs) == set(range(16)) and all(abs(c - 250) < 80 for c in srcs.values())


def test_permutation_sends_and_receives_once_per_host_never_to_itself():
    flows = permutation(fattree(8), 1_000_000, seed=3)
    assert sorted(f.src for f in flows) == list(range(128)) == sorted(f.dst for f in flows)
    assert all(f.src != f.dst for f in flows)


def test_flows_csv_by_name_and_index_with_class(tmp_path):
    p = tmp_path / "f.csv"
    p.write_text("src,dst,size_bytes,start_s,class\nS0,S15,200000,0,short\n3,12,1000000,0.001,long\n")
    flows = read_flows_csv(p, NET)
    assert [(f.src, f.dst, f.size_bytes, f.start_ps, f.cls) for f in flows] == [
        (0, 15, 200_000, 0, "short"),
        (3, 12, 1_000_000, 10**9, "long"),
    ]


@pytest.mark.parametrize(
    "body, needle",
    [
        ("src,dst,size_bytes,start_s\nS0,S16,1000,0\n", "S16"),
        ("src,dst,size_bytes,start_s\nS0,99,1000,0\n", "99"),
        ("src,dst,size_bytes\nS0,S1,1000\n", "start_s"),
        ("src,dst,size_bytes,start_s\nS0,S1,1MB,0\n", "size_bytes"),
        ("src,dst,size_bytes,start_s\nS0,S0,1000,0\n", "same host"),
        ("src,dst,size_bytes,start_s\n", "no flows"),
    ],
)
def test_bad_flows_csv_names_the_line_or_column(tmp_path, body, needle):
    p = tmp_path / "f.csv"
    p.write_text(body)
    with pytest.raises(InputError, match=needle):
        read_flows_csv(p, NET)


def test_inline_flow_to_missing_host_names_the_field():
    sc = scenario_from_dict(
        {"workload": {"kind": "flows", "flows": [{"src": "S0", "dst": "S20", "size": "1MB"}]}}
    )
    with pytest.raises(InputError, match=r"workload\.flows\[0\]\.dst"):
        build_workload(sc, NET, 1)


def test_empty_workload_is_refused():
    sc = scenario_from_dict({"workload": {"kind": "random", "long_flows": 0, "short_flows": 0}})
    with pytest.raises(InputError, match="no flows"):
        build_workload(sc, NET, 1)


def test_start_jitter_is_seeded_and_bounded():
    sc = scenario_from_dict({"workload": {"kind": "static", "start_jitter": "10us"}})
    a, b = build_workload(sc, NET, 5), build_workload(sc, NET, 5)
    assert a == b
    assert all(0 <= f.start_ps <= 10_000_000 for f in a) and len({f.start_ps for f in a}) > 1
