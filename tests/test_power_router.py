"""The software-router model of seed 004 (Eq. 4-10): the published chi curve, one core, many cores, traces."""

import numpy as np
import pytest

from greendcn.core.errors import InputError
from greendcn.power import (
    PUBLISHED_CHI,
    RouterPlatform,
    chi,
    core_capacity_pps,
    example_platform,
    load_platform,
    p_idle,
    phi,
    phi_multicore,
    throughput_multicore,
    time_average_power,
)


def small_platform(**kw) -> RouterPlatform:
    args = {
        "name": "t",
        "frequencies_hz": (1e9, 2e9),
        "r_max_pps": (5e5, 1e6),
        "phi_idle_w": (5.0, 6.0),
        "phi_active_w": (15.0, 25.0),
        "gamma": (1.0, 1.5, 1.8),
        "inactive_core_w": 0.5,
    }
    args.update(kw)
    return RouterPlatform(**args)


def test_published_chi_ends():
    # seed 004 Sec. V.A: a0 = 0 so chi(0) = 0 exactly; the printed coefficients sum to 1.002087, so chi(1)
    # is within 1 % of 1 (the normalization the paper intends), not exactly 1.
    assert chi(0.0) == 0.0
    assert abs(chi(1.0) - 1.0) < 0.01
    assert chi(1.0) == pytest.approx(sum(PUBLISHED_CHI), abs=1e-12)


def test_chi_is_numpys_polyval_bit_for_bit():
    # chi evaluates Horner's rule itself (numpy.polynomial stays unimported): the same floats as polyval, for a
    # float, a list and arrays of any shape.
    coeffs = np.asarray(PUBLISHED_CHI)
    rng = np.random.default_rng(3)
    for t in (0.0, 0.37, 1.0, [0.1, 0.5], np.linspace(0, 1, 101), rng.random((4, 7))):
        ours, numpys = chi(t), np.polynomial.polynomial.polyval(t, coeffs)
        assert np.array_equal(ours, numpys) and np.shape(ours) == np.shape(numpys)


def test_published_chi_is_not_monotone_and_stays_so():
    # Pins the published shape so nobody "fixes" it: chi falls between its local maximum near t = 0.831
    # (0.963) and its local minimum near t = 0.926 (0.949), and exceeds 1 only just below t = 1.
    t = np.linspace(0, 1, 200001)
    c = chi(t)
    falling = t[1:][np.diff(c) < 0]
    assert falling.min() == pytest.approx(0.831, abs=0.001)
    assert falling.max() == pytest.approx(0.926, abs=0.001)
    assert chi(0.831) == pytest.approx(0.963, abs=0.0005)
    assert chi(0.926) == pytest.approx(0.949, abs=0.0005)
    assert t[np.argmax(c > 1.0)] > 0.99
    assert np.all(np.diff(c[t < 0.83]) > 0)  # rising everywhere before the dip


def test_phi_single_core_eq5_eq6():
    p = small_platform()
    assert phi(p, 2e9, 0.0) == pytest.approx(6.0)  # idle at zero load
    at_max = 6.0 + 19.0 * chi(1.0)
    assert phi(p, 2e9, 1e6) == pytest.approx(at_max)
    assert phi(p, 2e9, 3e6) == pytest.approx(at_max)  # Eq. 6: r = min(l, r_max)
    assert phi(p, 1e9, 2.5e5) == pytest.approx(5.0 + 10.0 * chi(0.5))
    assert np.allclose(phi(p, 1e9, [0, 2.5e5]), [5.0, 5.0 + 10.0 * chi(0.5)])
    with pytest.raises(InputError, match="not one of"):
        phi(p, 1.5e9, 1.0)


def test_time_average_matches_eq2_with_p_idle_from_eq8():
    # Eq. 7 (time average) and Eq. 2 with p_idle from Eq. 8 are the same number; a check of both codes.
    p = small_platform()
    rng = np.random.default_rng(3)
    loads = rng.uniform(0, 1.2e6, 50)
    durs = rng.uniform(0.1, 2.0, 50)
    mean = time_average_power(p, 2e9, loads, durs)
    pi = p_idle(p, 2e9, loads, durs)
    assert mean == pytest.approx(pi * 6.0 + (1 - pi) * 25.0, rel=1e-12)
    # a constant trace is just Eq. 5
    assert time_average_power(p, 2e9, [4e5, 4e5]) == pytest.approx(float(phi(p, 2e9, 4e5)))


def test_multicore_eq9_eq10_with_gamma_and_inactive_cores():
    p = small_platform()
    cap2 = 1.5 / 2 * 1e6
    assert core_capacity_pps(p, 2e9, 2) == pytest.approx(cap2)
    power = phi_multicore(p, [2e9, 1e9], [3e5, 1e5])
    cap2_low = 1.5 / 2 * 5e5
    expected = 6.0 + 5.0 + 19.0 * chi(3e5 / cap2) + 10.0 * chi(1e5 / cap2_low) + 1 * 0.5
    assert power == pytest.approx(expected)
    assert throughput_multicore(p, [2e9, 2e9], [1e6, 1e5]) == pytest.approx(cap2 + 1e5)
    # one core, every other core inactive: Eq. 5 plus their draw
    assert phi_multicore(p, [2e9], [5e5]) == pytest.approx(float(phi(p, 2e9, 5e5)) + 2 * 0.5)


def test_shared_idle_is_counted_once_at_the_highest_active_frequency():
    p = small_platform(idle_per_core=False, inactive_core_w=0.0)
    got = phi_multicore(p, [1e9, 2e9], [0.0, 0.0])
    assert got == pytest.approx(6.0)  # Phi_idle(2 GHz) once, no dynamic part at zero load


@pytest.mark.parametrize(
    "change, field",
    [
        ({"gamma": (1.2, 2.0)}, "gamma"),
        ({"r_max_pps": (5e5,)}, "r_max_pps"),
        ({"phi_active_w": (4.0, 25.0)}, "phi_idle_w <= phi_active_w"),
        ({"frequencies_hz": (2e9, 1e9)}, "ascending"),
    ],
)
def test_bad_platform_names_the_field(change, field):
    with pytest.raises(InputError, match=field):
        small_platform(**change)


def test_example_platform_is_sized_on_the_paper_and_loads(tmp_path):
    p = example_platform()
    # seed 004 Sec. IV.B: one 3 GHz Xeon core forwards about 1,040 kpps; two cores near 2x (Sec. V.B)
    assert p.r_max_pps[p.freq_index(3e9)] == pytest.approx(1.04e6)
    assert p.gamma[1] == pytest.approx(2.0, abs=0.1)
    # r_max and Phi_active grow linearly together (Sec. IV.A): constant slope between frequencies
    slopes = np.diff(p.phi_active_w) / np.diff(p.r_max_pps)
    assert np.allclose(slopes, slopes[0], rtol=1e-3)
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\nwatts = 3\n[[frequency]]\nf_hz = 1e9\nr_max_pps = 1\nphi_idle_w = 1\n')
    with pytest.raises(InputError, match="phi_active_w"):
        load_platform(bad)
