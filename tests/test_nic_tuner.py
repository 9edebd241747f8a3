"""The GA tuner: near-exact fronts on an enumerable space, no dominated output, caching, determinism."""

import numpy as np
import pytest
from pymoo.indicators.hv import HV

from greendcn.nic import DEFAULT_HOST, Transmission, catalogue, choose, exhaustive, pareto_mask, tune
from greendcn.nic.tuner import Evaluator

# Two NICs on one core: 450 kpps of 64 B packets and 350 kpps of 1500 B packets in bursts of 4. Together they
# need most of the core, so settings trade throughput against interrupts and the NICs interact.
TXS = [Transmission(4.5e5, 64), Transmission(3.5e5, 1500, burst=4)]
CAT = catalogue()


@pytest.fixture(scope="module")
def exact():
    ev = Evaluator(TXS, CAT, DEFAULT_HOST, None)
    every = ev.raw(CAT.enumerate(len(TXS)))
    return exhaustive(TXS, cat=CAT), every


def _normalised(thr, irq, every):
    # Objectives scaled to [0, 1]: lost fraction of the offered bits, and interrupts over the largest
    # interrupt rate any setting in the space produces. Reference point (1.1, 1.1): just beyond the worst.
    offered = sum(t.rate_pps * t.packet_bytes * 8 for t in TXS)
    return np.column_stack([1 - np.asarray(thr) / offered, np.asarray(irq) / every[:, 1].max()])


def test_space_is_enumerable_and_large_enough():
    assert len(CAT) ** len(TXS) >= 10_000


def test_ga_front_reaches_99_percent_of_exact_hypervolume_with_a_tenth_of_the_evaluations(exact):
    ex, every = exact
    hv = HV(ref_point=np.array([1.1, 1.1]))
    h_exact = hv(_normalised(ex.front_throughput_bps, ex.front_interrupts_per_s, every))
    budget = len(every) // 10
    for seed in range(5):
        r = tune(TXS, cat=CAT, seed=seed, pop_size=40, n_gen=400, max_evaluations=budget)
        assert r.n_evaluations <= budget
        h = hv(_normalised(r.front_throughput_bps, r.front_interrupts_per_s, every))
        assert h >= 0.99 * h_exact, f"seed {seed}: {h / h_exact:.4f} of the exact hypervolume"
        # The chosen setting is within 1 % of the exhaustive choice on each objective (1 interrupt/s of
        # absolute slack where the exact choice has almost none).
        assert r.chosen_throughput_bps == pytest.approx(ex.chosen_throughput_bps, rel=0.01)
        assert r.chosen_interrupts_per_s == pytest.approx(ex.chosen_interrupts_per_s, rel=0.01, abs=1.0)


def test_tuner_never_returns_a_dominated_setting(exact):
    _, every = exact
    r = tune(TXS, cat=CAT, seed=7, pop_size=30, n_gen=20)
    thr, irq = r.front_throughput_bps, r.front_interrupts_per_s
    assert pareto_mask(thr, irq).all()  # the front is mutually non-dominated
    # ... and nothing in the whole space dominates the chosen setting.
    t, i = r.chosen_throughput_bps, r.chosen_interrupts_per_s
    better = (every[:, 0] >= t) & (every[:, 1] <= i) & ((every[:, 0] > t) | (every[:, 1] < i))
    assert not better.any()


def test_pareto_mask_and_choice_rule_on_a_hand_example():
    thr = np.array([10.0, 10.0, 9.995, 8.0, 7.0, 9.0])
    irq = np.array([50.0, 60.0, 20.0, 5.0, 6.0, 30.0])
    assert pareto_mask(thr, irq).tolist() == [True, False, True, True, False, False]
    assert choose(thr, irq, tol=1e-3) == 2  # within 0.1 % of the best throughput, fewest interrupts
    assert choose(thr, irq, tol=0.0) == 0


def test_no_setting_is_evaluated_twice():
    ev = Evaluator(TXS, CAT, DEFAULT_HOST, None)
    seen = []
    raw = ev.raw
    ev.raw = lambda X: (seen.extend(map(tuple, X)), raw(X))[1]
    X = np.array([[0, 5], [0, 5], [3, 7], [0, 5]])
    first = ev(X)
    again = ev(X[::-1])
    assert len(seen) == len(set(seen)) == 2 and ev.n_evaluations == 2
    np.testing.assert_array_equal(first[::-1], again)


def test_same_seed_gives_identical_results():
    a = tune(TXS, cat=CAT, seed=3, pop_size=20, n_gen=10)
    b = tune(TXS, cat=CAT, seed=3, pop_size=20, n_gen=10)
    np.testing.assert_array_equal(a.front_genes, b.front_genes)
    np.testing.assert_array_equal(a.front_interrupts_per_s, b.front_interrupts_per_s)


def test_latency_limit_is_respected():
    r = tune(TXS, cat=CAT, seed=1, pop_size=20, n_gen=10, max_latency_s=1e-3)
    assert np.all(r.front_latency_s <= 1e-3)
