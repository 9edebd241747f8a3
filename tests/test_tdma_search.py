"""The guard binary search: it finds the smallest guard meeting a leak target and reports the packets behind it."""

import pytest

from greendcn.host.tdma.model import LagLaw
from greendcn.core.errors import InputError
from greendcn.host.tdma import Schedule, guard_search, measure, simulate_sender, upper_bound_share

S = Schedule(period_ns=200_000, uptime_ns=100_000, slots=5, start_ns=1_000_000)


def synthetic_measure(law: LagLaw, seed: int = 0):
    def run(guard_ns: int) -> tuple[int, int]:
        m = measure(simulate_sender(S.with_(guard_ns=guard_ns), 1_000, 10, law, seed=seed), S)
        return m.data_down, m.data_received

    return run


def test_finds_the_exact_guard_of_a_fixed_lag_stream():
    # Fixed lag 5 us, bursts of 10 x 1 us: any guard below 10 us lets the tenth burst out (see
    # test_tdma_metrics), 10 us keeps it home. With a 1 ns resolution the search must land on 10 us exactly.
    res = guard_search(synthetic_measure(LagLaw(d0_s=5e-6)), 0.0, 0, 50_000, resolution_ns=1)
    assert res.met and res.guard_ns == 10_000
    assert res.leaked == 0 and res.packets == 450  # 9 bursts x 10 packets x 5 slots
    assert res.share_upper_bound == pytest.approx(3 / 450)
    assert len(res.steps) <= 2 + 16  # two ends plus about log2(50_000) halvings


def test_a_looser_target_allows_a_smaller_guard():
    law = LagLaw(d0_s=5e-6, jitter_mean_s=2e-6)
    strict = guard_search(synthetic_measure(law), 0.0, 0, 80_000, resolution_ns=500)
    loose = guard_search(synthetic_measure(law), 0.02, 0, 80_000, resolution_ns=500)
    assert strict.met and loose.met
    assert loose.guard_ns < strict.guard_ns
    assert loose.leaked <= 0.02 * loose.packets


def test_reports_failure_when_even_the_top_of_the_range_leaks():
    res = guard_search(synthetic_measure(LagLaw(d0_s=5e-6)), 0.0, 0, 5_000)
    assert not res.met and res.guard_ns is None and res.leaked > 0


def test_bad_ranges_are_refused_with_a_hint():
    with pytest.raises(InputError, match="guard range") as e:
        guard_search(lambda g: (0, 1), 0.01, 10, 5)
    assert e.value.hint
    with pytest.raises(InputError, match="target"):
        guard_search(lambda g: (0, 1), 1.5, 0, 5)


def test_rule_of_three_bound():
    assert upper_bound_share(0, 3000) == pytest.approx(1e-3)
    assert upper_bound_share(10, 1000) > 0.01
