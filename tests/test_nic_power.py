"""CPU power as the tuner's third objective: seed 004's Eq. 2 on the busy cores of the receive path."""

import pytest

from greendcn.nic import DEFAULT_HOST, Transmission, catalogue, evaluate, exhaustive, pareto_mask, tune
from greendcn.nic.cpupower import CpuPower, cpu_power_w
from greendcn.power.router import example_platform

PM = CpuPower.from_platform()


def test_power_is_idle_plus_active_share_by_hand():
    # Eq. 2: p_idle * Phi_idle + (1 - p_idle) * Phi_active with 1 - p_idle = half a core busy.
    assert PM.f_hz == max(example_platform().frequencies_hz)
    expected = PM.phi_idle_w + 0.5 * (PM.phi_active_w - PM.phi_idle_w)
    assert cpu_power_w(0.5, 1.0, PM) == pytest.approx(expected)
    assert cpu_power_w(3.0, 2.0, PM) == pytest.approx(2 * PM.phi_active_w)  # never beyond all cores busy


def test_a_slower_frequency_scales_the_receive_costs_with_r_max():
    # The host's single-core NAPI maximum (1,040 kpps at the top frequency) moves to the platform's r_max at
    # 2 GHz, since costs scale with r_max(f_max) / r_max(f).
    plat = example_platform()
    slow = CpuPower.from_platform(plat, 2e9)
    host = slow.host_at_frequency(DEFAULT_HOST)
    top = evaluate(3, 64, 5e6).delivered_pps
    low = evaluate(3, 64, 5e6, host=host).delivered_pps
    assert low / top == pytest.approx(plat.r_max_pps[0] / plat.r_max_pps[-1], rel=1e-9)


def test_interrupt_heavy_settings_cost_more_power_at_equal_throughput():
    r = evaluate([0, 1], [0, 10e-3], 1e5)
    assert r.delivered_pps[0] == pytest.approx(r.delivered_pps[1])
    p = cpu_power_w(r.busy_cores, 1.0, PM)
    assert p[0] > p[1]


def test_three_objective_front_is_near_exact_and_non_dominated():
    from test_nic_tuner import front_points, hypervolume_ratio

    txs = [Transmission(4.5e5, 64), Transmission(3.5e5, 1500, burst=4)]
    cat = catalogue()
    ex = exhaustive(txs, cat=cat, power=PM)
    budget = len(cat) ** 2 // 10
    offered = sum(t.rate_pps * t.packet_bytes * 8 for t in txs)
    # Same measure as the two-objective test (objectives scaled to the exact front, reference 1.1 on each
    # axis); a random sample of the same budget reaches only 73-88 % here (seeds 0-4).
    for seed in range(3):
        r = tune(txs, cat=cat, seed=seed, pop_size=40, n_gen=400, max_evaluations=budget, power=PM)
        assert r.n_evaluations <= budget
        assert hypervolume_ratio(front_points(r, offered), front_points(ex, offered)) >= 0.99
        assert pareto_mask(r.front_throughput_bps, r.front_interrupts_per_s, r.front_power_w).all()
        assert r.front_power_w[r.chosen] == pytest.approx(ex.front_power_w[ex.chosen], rel=0.01)
