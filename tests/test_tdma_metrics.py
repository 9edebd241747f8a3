"""Circuit-emulator classification and probe measurements on synthetic timestamp streams with known answers."""

import numpy as np
import pytest

from greendcn.host.tdma.model import LagLaw
from greendcn.core.errors import InputError
from greendcn.host.tdma import (
    DOWN,
    UP,
    WRONG,
    Schedule,
    classify,
    load_records,
    make_records,
    measure,
    simulate_sender,
)
from greendcn.host.tdma.records import FLAG_PAD

# Period 1000 ns, uptime [0, 600) of each period, starting at t = 10_000 ns.
S = Schedule(period_ns=1000, uptime_ns=600, slots=4, start_ns=10_000)


def test_classification_by_receive_time():
    rx = [10_000, 10_599, 10_600, 10_999, 11_000, 9_999]
    assert list(classify(make_records(rx), S)) == [UP, UP, DOWN, DOWN, UP, DOWN]


def test_wrong_destination_when_the_circuit_leads_elsewhere():
    s2 = S.with_(destinations=2)  # slot k connects to destination k % 2
    rx = [10_100, 11_100, 11_100, 12_100]
    port = [0, 0, 1, 0]  # reached destination 0 in slot 1 -> wrong; 1 in slot 1 -> up
    assert list(classify(make_records(rx, port=port), s2)) == [UP, WRONG, UP, UP]
    # Port index = vhost * destinations + destination: virtual host 1's destination 1 is port 3.
    assert list(classify(make_records([11_100], vhost=1, port=3), s2)) == [UP]


def test_duty_lateness_overrun_and_shares():
    # Slot 0: packets at +50..+650 (100 ns apart), slot 1: +100..+500, slots 2 and 3 empty.
    rx0 = 10_000 + np.arange(50, 651, 100)
    rx1 = 11_000 + np.arange(100, 501, 100)
    rx = np.r_[rx0, rx1]
    slot = np.r_[np.zeros(rx0.size, int), np.ones(rx1.size, int)]
    m = measure(make_records(rx, send_ns=rx - 2_000, slot=slot, length=100), S, data_sent=14)
    assert m.data_received == 12 and m.data_down == 1  # only +650 lies past the uptime
    assert m.downtime_share == pytest.approx(1 / 12)
    assert m.loss_share == pytest.approx(1 - 12 / 14)
    assert m.empty_slot_share == pytest.approx(0.5)
    assert m.duty_achieved == pytest.approx((0.6 + 0.4) / 2)
    assert m.lateness_ns["max"] == 100 and m.lateness_ns["p50"] == pytest.approx(75)
    assert m.overrun_ns["max"] == 50 and m.overrun_ns["p50"] == pytest.approx((50 - 100) / 2)
    assert m.goodput_bps == pytest.approx(11 * 100 * 8 / (4 * 1000e-9))
    assert m.fixed_lag_ns == 2_000 and m.suggested_prealloc_ns == 2_000
    assert m.gap_ns["q50"] == pytest.approx(100)


def test_padding_counts_on_air_but_not_as_goodput():
    rx = [10_000, 10_100, 10_200]
    rec = make_records(rx, flags=[0, 0, FLAG_PAD], length=[100, 100, 40])
    m = measure(rec, S)
    assert m.pad_received == 1 and m.data_received == 2
    assert m.goodput_bps == pytest.approx(2 * 100 * 8 / (4 * 1000e-9))
    assert m.duty_achieved == pytest.approx(0.2)  # the span includes the padding packet


def test_synthetic_sender_leak_has_the_computed_value():
    # Uptime 100 us, 1 us per packet, bursts of 10, fixed lag 5 us, guard 9.999 us: the window is 90.001 us,
    # so 10 bursts go out; the last packets are stamped at 95..99 us and arrive at 100..104 us: 5 of 100
    # per slot land in downtime.
    s = Schedule(period_ns=200_000, uptime_ns=100_000, guard_ns=9_999, slots=5, start_ns=1_000_000)
    rec = simulate_sender(s, packet_time_ns=1_000, burst=10, lag=LagLaw(d0_s=5e-6))
    m = measure(rec, s)
    assert m.data_received == 500
    assert m.downtime_share == pytest.approx(0.05)
    assert m.overrun_ns["max"] == 4_000
    assert m.fixed_lag_ns == 5_000
    # One more ns of guard and a whole burst stays home: nothing leaks.
    assert measure(simulate_sender(s.with_(guard_ns=10_000), 1_000, 10, LagLaw(d0_s=5e-6)), s).data_down == 0


def test_preallocation_moves_the_window_early():
    s = Schedule(
        period_ns=200_000, uptime_ns=100_000, guard_ns=10_000, prealloc_ns=5_000, slots=3, start_ns=1_000_000
    )
    m = measure(simulate_sender(s, 1_000, 10, LagLaw(d0_s=5e-6)), s)
    assert m.lateness_ns["max"] == 0  # the first packet arrives exactly as the uptime starts
    assert m.data_down == 0


def test_records_round_trip_through_a_file(tmp_path):
    rec = make_records([1, 2, 3], send_ns=[0, 1, 2], slot=[0, 0, 1], vhost=2, port=5)
    p = tmp_path / "rx.log"
    p.write_bytes(rec.tobytes())
    back = load_records(p)
    assert np.array_equal(back, rec)
    p.write_bytes(rec.tobytes()[:-1])
    with pytest.raises(InputError, match="truncated"):
        load_records(p)


def test_schedule_errors_name_the_field():
    with pytest.raises(InputError, match="guard") as e:
        Schedule(period_ns=1000, uptime_ns=500, guard_ns=500)
    assert e.value.hint
    with pytest.raises(InputError, match="duty"):
        Schedule.from_duty(1000, 1.5)
