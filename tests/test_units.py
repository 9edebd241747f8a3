"""Units at the edge: quantities parse to integers in base units, and bad ones name the field."""

import pytest

from greendcn.core.errors import InputError
from greendcn.core.units import (
    parse_packet_rate_pps,
    parse_queue,
    parse_rate_bps,
    parse_size_bytes,
    parse_time_ps,
)


def test_times_parse_to_picoseconds():
    assert parse_time_ps("25us") == 25_000_000
    assert parse_time_ps("1ms") == 10**9
    assert parse_time_ps("1.5 s") == 1_500_000_000_000
    assert parse_time_ps("400ns") == 400_000


def test_rates_sizes_and_queues():
    assert parse_rate_bps("1Gbps") == 10**9
    assert parse_rate_bps("12.5 Gbps") == 12_500_000_000
    assert parse_rate_bps("1GBps") == 8 * 10**9
    assert parse_size_bytes("128KB") == 128_000
    assert parse_size_bytes("64KiB") == 65_536
    assert parse_queue("1000pkt") == {"packets": 1000}
    assert parse_queue("128KB") == {"bytes": 128_000}
    assert parse_queue("unlimited") is None
    assert parse_packet_rate_pps("1.5Mpps") == 1.5e6


@pytest.mark.parametrize(
    "func,text",
    [
        (parse_time_ps, "25"),
        (parse_time_ps, "25 furlongs"),
        (parse_rate_bps, "-1Gbps"),
        (parse_rate_bps, "10"),
        (parse_queue, "0pkt"),
        (parse_queue, "1.5pkt"),
        (parse_size_bytes, True),
    ],
)
def test_bad_quantities_are_refused_with_the_field_name(func, text):
    with pytest.raises(InputError, match="topology.link_rate"):
        func(text, "topology.link_rate")


def test_energy_per_bit_axes_switch_to_nj_and_uj_for_readable_labels():
    from greendcn.core.units import per_bit_unit

    assert per_bit_unit(9_000) == ("pJ", 1.0)
    assert per_bit_unit(279_216) == ("nJ", 1e-3)  # the degenerate SelectorNet's 279,216 pJ/bit: 279 nJ/bit
    assert per_bit_unit(2.5e6) == ("nJ", 1e-3) and per_bit_unit(2.5e7) == ("uJ", 1e-6)
