"""The NIC commands' logic, called directly (the command module only parses options and prints)."""

import pytest

from greendcn.core.errors import InputError
from greendcn.nic.cpupower import power_objective
from greendcn.nic.params import host_from_options, transmission_from_options
from greendcn.nic.transmissions import improvement_pct, load_transmissions, summary_by_class
from greendcn.nic.tuner import tune_jointly


def test_host_and_transmission_from_option_strings():
    host = host_from_options(512, "5us", "1us", "0.5us", 1.0, "1ms")
    assert host.irq_cost_s == pytest.approx(5e-6) and host.ring_slots == 512
    with pytest.raises(InputError, match="--irq-cost: must be positive"):
        host_from_options(512, "-5us", "1us", "0.5us", 1.0, "1ms")
    tx = transmission_from_options(None, "1Gbps", "1500B", 1, None)
    assert tx.rate_pps == pytest.approx(1e9 / (8 * 1500))
    with pytest.raises(InputError, match="exactly one of --rate"):
        transmission_from_options("1kpps", "1Gbps", "1500B", 1, None)


def test_power_objective_needs_power_for_a_frequency():
    assert power_objective(False, None) is None
    assert power_objective(True, None) is not None
    with pytest.raises(InputError, match="--frequency only applies with --power"):
        power_objective(False, "3GHz")


def test_summary_by_class_means_ratios_and_sums_totals():
    rows = [
        {
            "size_class": "small",
            "seed_default_mbps": 100.0,
            "seed_optimal_mbps": 110.0,
            "model_default_mbps": 50.0,
            "model_tuned_mbps": 50.0,
            "model_default_interrupts_per_s": 1000.0,
            "model_tuned_interrupts_per_s": 10.0,
        },
        {
            "size_class": "big",
            "seed_default_mbps": 0.0,
            "seed_optimal_mbps": 10.0,
            "model_default_mbps": 0.0,
            "model_tuned_mbps": 20.0,
            "model_default_interrupts_per_s": 0.0,
            "model_tuned_interrupts_per_s": 0.0,
        },
    ]
    by = {r["size_class"]: r for r in summary_by_class(rows)}
    assert set(by) == {"small", "big", "all"}
    assert by["small"]["seed_mean_improvement_pct"] == pytest.approx(10.0)
    assert by["all"]["seed_mean_improvement_pct"] == pytest.approx(10.0)  # a zero default has no ratio
    assert by["all"]["model_tuned_total_mbps"] == pytest.approx(70.0)
    assert by["small"]["model_interrupt_reduction_pct"] == pytest.approx(99.0)
    assert improvement_pct(0.0, 5.0) is None


def test_joint_tuning_returns_a_front_and_one_setting_per_nic():
    rows = load_transmissions(None)[:5]
    res = tune_jointly(
        rows, host_from_options(512, "5us", "1us", "0.5us", 1.0, "1ms"), seed=0, max_latency_s=None
    )
    assert res["nics"] == 5 and len(res["chosen"]) == 5 and res["front"]
    # the choice rule (tuner.CHOICE_RULE): the largest throughput, within 1e-3 relative
    best = max(p["throughput_bps"] for p in res["front"])
    assert res["chosen_throughput_bps"] >= best * (1 - 1e-3)
