"""The server CPU model for AFFCON: fitted to seed 000's 112 W / 99 W (line 249) and the 105 W TDP (Table II),
evaluated through seed 004's Phi(f, r). Matching the two targets is by construction, so the tests check the
mechanism (the linear fit and the Phi evaluation agree) and each affinity's direction, not the figures."""

import dataclasses

import pytest

from greendcn.core.errors import InputError
from greendcn.power.cpu import SERVER_A, CoreState, CpuChoices, affcon_configs, predict_affcon
from greendcn.power.router import phi


def test_fit_meets_targets_through_phi():
    model, rows = predict_affcon()
    # Evaluated core by core through router.phi, the fitted model must give back what the linear solve aimed
    # at; 1e-9 W allows float rounding only.
    assert rows["baseline_cpu_affinity"]["total_w"] == pytest.approx(112.0, abs=1e-9)
    assert rows["affcon"]["total_w"] == pytest.approx(99.0, abs=1e-9)
    busy = CoreState(0, "poll", SERVER_A.f_base_hz, SERVER_A.f_base_hz / model.choices.cycles_per_packet)
    assert model.uncore_w_ + 12 * model.core_power_w(busy) == pytest.approx(105.0, abs=1e-9)


def test_idle_core_is_seed004_phi_idle():
    model, _ = predict_affcon()
    p = model.platform
    for f in (SERVER_A.f_min_hz, SERVER_A.f_base_hz):
        assert model.core_power_w(CoreState(1, "idle", f)) == float(phi(p, f, 0.0))
    assert p.phi_idle_w[0] < p.phi_idle_w[-1] and p.phi_active_w[-1] > p.phi_idle_w[-1]


def test_literal_baseline_spans_both_sockets():
    cfg = affcon_configs()
    base = cfg["baseline_cpu_affinity"]
    polls = [k for k in base if k.state == "poll"]
    assert len(polls) == 8 and sum(k.socket == 1 for k in polls) == 4  # CPUs 1,3,5,7 are on socket 1
    assert all(k.cost_factor > 1 for k in polls if k.socket == 1)
    assert len(base) == 24 and all(k.socket == 0 for k in cfg["affcon"] if k.state == "poll")


def test_each_affinity_moves_power_the_right_way():
    _, r = predict_affcon()
    t = {k: v["total_w"] for k, v in r.items()}
    assert t["os_scheduled"] > t["baseline_cpu_affinity"] > t["cpu_numa"]
    assert t["baseline_cpu_affinity"] > t["cpu_dvfs"] > t["affcon"]
    assert t["affcon"] > t["affcon_rate_cpufreq"] > t["affcon_rate_sleep"]
    # The NUMA and DVFS steps add up to the whole saving only if they do not interact: in this model they
    # touch different cores, so the sum must equal 13 W.
    numa, dvfs = t["baseline_cpu_affinity"] - t["cpu_numa"], t["baseline_cpu_affinity"] - t["cpu_dvfs"]
    assert numa + dvfs == pytest.approx(13.0, abs=1e-9)


def test_choices_change_the_split_not_the_targets():
    a = predict_affcon(choices=CpuChoices(spin=0.5, remote_factor=3.0, frame_bytes=64))[1]
    b = predict_affcon(choices=CpuChoices(spin=0.95))[1]
    for r in (a, b):
        assert r["baseline_cpu_affinity"]["total_w"] == pytest.approx(112.0, abs=1e-9)
        assert r["affcon"]["total_w"] == pytest.approx(99.0, abs=1e-9)
    numa = {id(r): r["baseline_cpu_affinity"]["total_w"] - r["cpu_numa"]["total_w"] for r in (a, b)}
    assert numa[id(a)] > 10 * numa[id(b)]  # small frames and a costly remote node make NUMA matter


def test_unphysical_fit_is_refused():
    with pytest.raises(InputError, match="not physical"):
        predict_affcon(choices=CpuChoices(static_core_w=8.0))


def test_deterministic():
    assert predict_affcon() == predict_affcon()
    assert dataclasses.asdict(CpuChoices()) == dataclasses.asdict(CpuChoices())


def test_saturation_is_reported():
    # 64-byte frames: 7.44 Mpps per core; a remote factor of 3 asks for 22 Mpps of work from a core that does
    # r_max = 2.2 GHz / 150 cycles = 14.7 Mpps, so the four remote poll cores of the baseline saturate.
    _, r = predict_affcon(choices=CpuChoices(frame_bytes=64, remote_factor=3.0))
    assert r["baseline_cpu_affinity"]["saturated_cores"] == 4 and r["affcon"]["saturated_cores"] == 0
    assert predict_affcon()[1]["baseline_cpu_affinity"]["saturated_cores"] == 0
