"""Green optimization of the router model: the dynamic program equals exhaustive search on small platforms,
meets the load, never draws more than the all-cores-at-max default, and beats even splits where chi bends."""

import numpy as np
import pytest

from greendcn.core.errors import InputError
from greendcn.power import (
    RouterPlatform,
    core_capacity_pps,
    default_plan,
    example_platform,
    max_capacity_pps,
    optimize,
    optimize_exact,
    optimize_per_core,
    phi_multicore,
)


def random_platform(rng: np.random.Generator, cores: int, freqs: int, idle_per_core: bool) -> RouterPlatform:
    f = np.sort(rng.choice(np.arange(10, 40), freqs, replace=False)) * 1e8
    r_max = np.sort(rng.uniform(2e5, 1.2e6, freqs))
    idle = rng.uniform(2, 10, freqs)  # not monotone in f on purpose: the exact claim must not rely on it
    active = idle + rng.uniform(2, 20, freqs)
    gamma = np.concatenate([[1.0], 1 + np.cumsum(rng.uniform(0.4, 1.0, cores - 1))])
    return RouterPlatform(
        "rand",
        tuple(f),
        tuple(r_max),
        tuple(idle),
        tuple(active),
        tuple(gamma),
        idle_per_core=idle_per_core,
        inactive_core_w=float(rng.uniform(0, 2)),
    )


def check_plan(platform: RouterPlatform, plan, load: float) -> None:
    n = plan.active_cores
    assert sum(c.load_pps for c in plan.cores) == pytest.approx(load, rel=1e-9)
    assert plan.throughput_pps == pytest.approx(load, rel=1e-9)  # every core within its capacity
    for c in plan.cores:
        assert c.load_pps <= core_capacity_pps(platform, c.f_hz, n) * (1 + 1e-9)
    freqs = [c.f_hz for c in plan.cores]
    assert plan.power_w == pytest.approx(phi_multicore(platform, freqs, [c.load_pps for c in plan.cores]))


@pytest.mark.parametrize("idle_per_core", [True, False])
def test_dynamic_program_equals_exhaustive_search(idle_per_core):
    # 40 random platforms each: with a shared idle that is not monotone in f, an earlier version (best swing
    # at or below each top frequency, idle added afterwards) missed the optimum on 37 of 300 such platforms.
    for seed in range(40):
        rng = np.random.default_rng(seed)
        p = random_platform(rng, cores=3, freqs=3, idle_per_core=idle_per_core)
        load = float(rng.uniform(0.1, 0.95)) * max_capacity_pps(p)
        units = 12
        dp = optimize(p, load, units=units)
        brute = optimize_exact(p, load, units=units)
        # Same grid, same model: the optima must agree to rounding (1e-9 W).
        assert dp.power_w == pytest.approx(brute.power_w, abs=1e-9), f"seed {seed}"
        check_plan(p, dp, load)


@pytest.mark.parametrize("load", [2e5, 1.1e6, 1.5e6, 2.6e6, 3.9e6])
def test_plan_meets_load_and_never_exceeds_default(load):
    p = example_platform()
    plan = optimize(p, load)
    check_plan(p, plan, load)
    assert plan.power_w <= default_plan(p, load).power_w + 1e-9


def test_even_split_misses_the_optimum_because_chi_bends():
    # At 1.1 Mpps on the example platform the best plan loads two cores unevenly; the best even split over
    # every core count and common frequency draws more (about 6 % here). Greedy/convex reasoning misses it.
    p = example_platform()
    load = 1.1e6
    plan = optimize(p, load)
    even = min(
        phi_multicore(p, [f] * n, [load / n] * n)
        for n in range(1, p.cores + 1)
        for f in p.frequencies_hz
        if load / n <= core_capacity_pps(p, f, n)
    )
    assert plan.power_w < even - 0.5
    loads = sorted(c.load_pps for c in plan.cores)
    assert loads[-1] - loads[0] > 1e5


def test_scales_to_many_cores_and_frequencies():
    f = np.linspace(1.2e9, 3.2e9, 16)
    p = RouterPlatform(
        "big",
        tuple(f),
        tuple(1.04e6 * f / 3e9),
        tuple(5 + f / 1e9),
        tuple(4 + 8.32e-9 * f * 3),
        gamma=tuple(1 + 0.9 * n for n in range(32)),
        inactive_core_w=0.5,
    )
    load = 8e6
    plan = optimize(p, load, units=256)
    check_plan(p, plan, load)
    assert plan.power_w <= default_plan(p, load).power_w


def test_per_core_loads_pick_the_cheapest_feasible_frequency():
    p = example_platform()
    plan = optimize_per_core(p, [3e5, 0.0, 6e5])
    assert plan.active_cores == 2
    check_plan(p, plan, 9e5)
    for c in plan.cores:  # no other feasible frequency is cheaper for that core
        for f in p.frequencies_hz:
            if c.load_pps <= core_capacity_pps(p, f, 2):
                others = [x for x in plan.cores if x is not c]
                alt = phi_multicore(
                    p, [f] + [o.f_hz for o in others], [c.load_pps] + [o.load_pps for o in others]
                )
                assert plan.power_w <= alt + 1e-9


def test_load_above_capacity_is_a_clear_error():
    p = example_platform()
    with pytest.raises(InputError, match="above the capacity") as e:
        optimize(p, 1.01 * max_capacity_pps(p))
    assert "Mpps" in e.value.hint
    with pytest.raises(InputError, match="positive"):
        optimize(p, 0.0)
    with pytest.raises(InputError, match="capacity"):
        optimize_per_core(p, [2e6])


@pytest.mark.parametrize("idle_per_core", [True, False])
def test_per_core_plan_equals_brute_force_over_frequencies(idle_per_core):
    # Loads bound to cores: only the frequencies are free, so every frequency vector can be tried.
    import itertools

    for seed in range(40):
        rng = np.random.default_rng(100 + seed)
        p = random_platform(rng, cores=3, freqs=3, idle_per_core=idle_per_core)
        loads = list(rng.uniform(0.05, 0.6, 3) * p.r_max_pps[-1] * p.gamma[2] / 3)
        plan = optimize_per_core(p, loads)
        brute = min(
            phi_multicore(p, list(f), loads)
            for f in itertools.product(p.frequencies_hz, repeat=3)
            if all(x <= core_capacity_pps(p, fc, 3) * (1 + 1e-9) for fc, x in zip(f, loads))
        )
        assert plan.power_w == pytest.approx(brute, abs=1e-9), f"seed {seed}"
