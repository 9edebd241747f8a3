"""Opera's schedule (greendcn.sim.topology.opera): the structure seed 001 section 2.6 describes, checked on the
thesis's example network (108 racks, 6 switches), and the search that makes every slice a good expander.

Tolerances: mean hops 3.0-3.2 and at most 5 are the issue's acceptance band for 108 racks with 5 usable
circuits per rack (a 5-regular graph on 108 nodes cannot average below about 2.7 hops by the Moore bound)."""

import itertools

import numpy as np
import pytest

from greendcn.core.errors import InputError
from greendcn.sim.topology.opera import (
    OperaParams,
    OperaSchedule,
    _hop_score,
    _hops,
    _hops_reference,
    _slice_score,
    build_opera,
    cyclic_matchings,
    epsilon_s,
    kempe_swap,
    slice_stats,
    traffic_class,
)


def pairs_met(partners: np.ndarray) -> dict[tuple[int, int], int]:
    met: dict[tuple[int, int], int] = {}
    for row in partners:
        for i, j in enumerate(row):
            if i <= j:
                met[(i, int(j))] = met.get((i, int(j)), 0) + 1
    return met


def assert_every_pair_once(partners: np.ndarray) -> None:
    n = partners.shape[1]
    for row in partners:  # each matching is symmetric: an involution
        assert np.array_equal(row[row], np.arange(n))
    met = pairs_met(partners)
    assert len(met) == n * (n + 1) // 2 and set(met.values()) == {1}


@pytest.fixture(scope="module")
def thesis_schedule() -> OperaSchedule:
    return build_opera(OperaParams(epsilon=90e-6, reconfig_s=10e-6))


def test_the_cyclic_construction_meets_every_pair_including_self_once():
    assert_every_pair_once(cyclic_matchings(108))
    assert_every_pair_once(cyclic_matchings(7))


def test_kempe_swaps_keep_every_pair_met_once():
    rng = np.random.default_rng(3)
    partners = cyclic_matchings(20)
    for _ in range(500):
        a, b = rng.choice(20, size=2, replace=False)
        kempe_swap(partners, int(a), int(b), int(rng.integers(20)))
    assert_every_pair_once(partners)
    assert not np.array_equal(partners, cyclic_matchings(20))  # and they do move away from the cyclic form


@pytest.mark.slow
def test_eighteen_matchings_per_switch_and_one_reconfiguration_per_slice(thesis_schedule):
    s = thesis_schedule
    assert s.layout.shape == (6, 18) and sorted(s.layout.ravel()) == list(range(108))
    assert_every_pair_once(s.partners)
    for t in range(s.slices):  # between consecutive slices exactly the reconfiguring switch changes matching
        changed = [sw for sw in range(6) if s.held(sw, t) != s.held(sw, (t + 1) % s.slices)]
        assert changed == [s.reconfiguring(t)]
    # over one cycle every switch holds each of its 18 matchings, so every pair is met exactly once
    held = {(sw, s.held(sw, t)) for sw in range(6) for t in range(s.slices)}
    assert len(held) == 108


@pytest.mark.slow
def test_cycle_of_108_slices_lasts_10_8_ms_at_90_us_and_10_us(thesis_schedule):
    assert thesis_schedule.slices == 108
    assert thesis_schedule.cycle_s == pytest.approx(10.8e-3)


@pytest.mark.slow
def test_every_slice_is_a_connected_expander_with_5_of_108_pairs_one_hop_apart(thesis_schedule):
    st = thesis_schedule.stats
    assert np.all(np.isfinite(st["max_hops"]))
    assert st["max_hops"].max() <= 5
    assert 3.0 <= st["mean_hops"].mean() <= 3.2
    assert np.allclose(st["one_hop_share"], 5 / 108)


@pytest.mark.slow
def test_next_hops_follow_shortest_paths(thesis_schedule):
    s, t = thesis_schedule, 17
    d = s.hops(t)
    for src, dst in itertools.islice(itertools.permutations(range(108), 2), 0, 11_556, 997):
        cur, steps = src, 0
        while cur != dst:
            cur = s.next_hops(t, cur, dst)[0]
            steps += 1
        assert steps == d[src, dst]


@pytest.mark.parametrize("n, used", [(12, 1), (12, 3), (24, 2), (36, 5), (17, 4)])
def test_hop_counts_match_scipy_shortest_paths_including_disconnected_slices(n, used):
    # the search's fast breadth-first hop counts against scipy's Dijkstra, bit for bit, on mixed matchings;
    # one or two matchings leave racks unreachable (inf), odd N gives self-pairs
    rng = np.random.default_rng(n + used)
    partners = cyclic_matchings(n)
    for _ in range(10 * n):
        a, b = rng.choice(n, size=2, replace=False)
        kempe_swap(partners, int(a), int(b), int(rng.integers(n)))
    for _ in range(5):
        ms = [int(m) for m in rng.choice(n, size=used, replace=False)]
        fast, ref = _hops(partners, ms), _hops_reference(partners, ms)
        assert fast.dtype == ref.dtype and np.array_equal(fast, ref)
        # the search's score of a slice without the matrix: the matrix's worst and mean, the same floats
        assert _hop_score(partners, ms) == _slice_score(ref)
    if used <= 2:
        assert np.isinf(_hops(partners, [0])).any()


def test_the_cyclic_matchings_alone_make_poor_slices_and_the_search_repairs_them():
    p = OperaParams(racks=36, switches=6, search_moves=150)
    cyclic = OperaSchedule(p, cyclic_matchings(36), np.arange(36).reshape(6, 6))
    worst_cyclic = slice_stats(cyclic)["max_hops"].max()
    built = build_opera(p)
    assert built.stats["max_hops"].max() < worst_cyclic  # inf (a disconnected slice) or simply longer


def test_same_seed_same_schedule_other_seed_other_schedule():
    p = OperaParams(racks=24, switches=4, search_moves=50, seed=5)
    a, b = build_opera(p), build_opera(p)
    assert np.array_equal(a.partners, b.partners) and np.array_equal(a.layout, b.layout)
    c = build_opera(OperaParams(racks=24, switches=4, search_moves=50, seed=6))
    assert not (np.array_equal(a.partners, c.partners) and np.array_equal(a.layout, c.layout))


def test_epsilon_formula_by_hand():
    # 5 hops x ((24,000 + 1,500) B x 8 / 10 Gb/s + 0.5 us) = 5 x 20.9 us = 104.5 us
    assert epsilon_s(5, OperaParams()) == pytest.approx(104.5e-6)


def test_default_cutoff_separates_low_latency_from_bulk_at_15_MB():
    assert traffic_class(14_999_999) == "low-latency"
    assert traffic_class(15_000_000) == "bulk"


@pytest.mark.parametrize(
    "change,field",
    [
        ({"switches": 7}, "opera.switches"),
        ({"cutoff_bytes": -1}, "opera.cutoff_bytes"),
        ({"epsilon": 1e-6}, "opera.epsilon"),  # a 1500-byte packet takes 1.2 us at 10 Gb/s
    ],
)
def test_bad_parameters_name_their_field(change, field):
    with pytest.raises(InputError, match=field.replace(".", r"\.")) as e:
        build_opera(OperaParams(**change))
    assert e.value.loc == tuple(field.split("."))


def test_reproduce_opera_cli_writes_the_slice_table_and_refuses_a_bad_switch_count(tmp_path):
    from conftest import assert_clean_error, run_greendcn

    out = run_greendcn(
        "reproduce",
        "opera",
        "--racks",
        "24",
        "--switches",
        "4",
        "--moves",
        "30",
        "--out",
        tmp_path,
        "--json",
        tmp_path / "o.json",
    )
    assert out.returncode == 0, out.stderr
    import json

    import pandas as pd

    table = pd.read_csv(tmp_path / "slices.csv")
    assert list(table["slice"]) == list(range(24)) and (table["one_hop_share"] == 3 / 24).all()
    assert {"mean_hops", "max_hops", "pairs_at_1_hops"} <= set(table.columns)
    assert json.loads((tmp_path / "o.json").read_text())["slices"] == 24
    assert "McGuinness 2021, section 2.6.1" in out.stdout
    # the workload line says what the run carried, as `simulate` does: TCP on the low-latency class
    assert "routing.scheme = opera; tcp for Opera's low-latency class, datagrams for bulk" in out.stdout
    # the mixed workload on the circuit engine: FCT percentiles per class, everything delivered, and the
    # low-latency class far sooner than the 20 MB bulk flows
    classes = pd.read_csv(tmp_path / "fct_by_class.csv").set_index("class")
    assert (classes["completed"] == classes["flows"]).all()
    assert classes.loc["short (low-latency)", "fct_p99_ms"] < classes.loc["long (bulk)", "fct_p50_ms"] / 10
    assert "workload_by_class" in json.loads((tmp_path / "o.json").read_text())
    bad = run_greendcn("reproduce", "opera", "--racks", "24", "--switches", "5", "--out", tmp_path)
    assert_clean_error(bad, "opera.switches")
