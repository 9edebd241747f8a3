"""CPU masks and lists: the three masks seed 000 gives (line 128) round-trip; bad input names the field."""

import pytest

from greendcn.core.errors import InputError
from greendcn.host.cpuset import cpus_to_mask, format_cpulist, mask_to_cpus, parse_cpulist


@pytest.mark.parametrize(
    "mask, cpus", [("0x1f", [0, 1, 2, 3, 4]), ("0x155", [0, 2, 4, 6, 8]), ("0x2aa", [1, 3, 5, 7, 9])]
)
def test_paper_masks_round_trip(mask, cpus):
    # Seed 000 line 128 maps these masks to these logical cores exactly: no tolerance.
    assert mask_to_cpus(mask) == cpus
    assert cpus_to_mask(cpus) == mask


def test_sysfs_cpumap_with_commas_and_high_cpus():
    assert mask_to_cpus("00000001,00000000") == [32]
    assert cpus_to_mask([32, 47]) == hex((1 << 32) | (1 << 47))


def test_cpulist_round_trip():
    assert parse_cpulist("0-2,8,10-11") == [0, 1, 2, 8, 10, 11]
    assert format_cpulist([11, 0, 1, 2, 8, 10]) == "0-2,8,10-11"
    assert parse_cpulist("") == [] and format_cpulist([]) == ""


@pytest.mark.parametrize("bad", ["a-b", "3-1", "1,,x"])
def test_bad_cpulist_is_refused_with_a_hint(bad):
    with pytest.raises(InputError) as e:
        parse_cpulist(bad, "--cpus")
    assert "--cpus" in str(e.value) and e.value.hint


@pytest.mark.parametrize("bad", ["0xzz", "-0x1f", "0x1_f", "", "0x"])
def test_bad_mask_is_refused(bad):
    with pytest.raises(InputError, match="not a hexadecimal mask"):
        mask_to_cpus(bad)
