"""The optical fabrics' shared data model (greendcn.sim.optical.schedule) and RotorNet's matchings: every bad
field is refused with its name, and the time helpers find the circuit (or the gap) a port has at any time."""

import numpy as np
import pytest

from greendcn.core.errors import FieldError, InputError
from greendcn.sim.optical import CircuitFabric, Slot, SwitchSchedule
from greendcn.sim.optical.rotornet import build_rotornet, parse_layout, rotor_matchings, round_robin

US = 1_000_000  # ps


def fabric(kind="rotornet", slots=None, guard=1 * US, switches=None, endpoints=4):
    slots = slots or (Slot((1, 0, 3, 2), 10 * US, 2 * US), Slot((2, 3, 0, 1), 20 * US, 3 * US))
    sw = switches or (SwitchSchedule(tuple(slots)),)
    return CircuitFabric(kind, endpoints, sw, 10**10, guard, 0)


def test_a_valid_fabric_has_the_cycle_of_its_slots_and_the_lcm_of_its_switches():
    f = fabric()
    assert f.cycle_ps() == (10 + 2 + 20 + 3) * US
    two = fabric(
        switches=(
            SwitchSchedule((Slot((1, 0, 3, 2), 4 * US, 2 * US),)),
            SwitchSchedule((Slot((3, 2, 1, 0), 6 * US, 3 * US),)),
        )
    )
    assert two.cycle_ps() == 18 * US  # lcm(6, 9) us


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: Slot((0, 0, 1), 10, 0), "matching"),  # port 0 used twice: not a permutation
        (lambda: Slot((0, 3, 1), 10, 0), "matching"),  # out of range
        (lambda: Slot((), 10, 0), "matching"),
        (lambda: Slot((1, 0), 0, 0), "uptime_ps"),
        (lambda: Slot((1, 0), 10, -1), "reconfig_ps"),
        (lambda: Slot((1, 0), 1.5, 0), "uptime_ps"),
        (lambda: SwitchSchedule(()), "slots"),
        (lambda: SwitchSchedule((Slot((1, 0), 10, 0),), phase_ps=-5), "phase_ps"),
        (lambda: fabric(guard=10 * US), "guard_ps"),  # guard == the first slot's uptime
        (lambda: fabric(guard=-1), "guard_ps"),
        (lambda: fabric(kind="packet"), "kind"),
        (lambda: fabric(endpoints=5), "matching"),  # 4-port matchings on a 5-endpoint fabric
        (lambda: fabric(slots=(Slot((1, 2, 3, 0), 10 * US, 0),)), "matching"),  # rotor: not symmetric
        (lambda: fabric(kind="selectornet", slots=(Slot((3, 0, 1, 2), 10 * US, 0),)), "matching"),  # +3
        (lambda: CircuitFabric("rotornet", 2, (), 1, 0, 0), "switches"),
        (
            lambda: CircuitFabric("rotornet", 2, (SwitchSchedule((Slot((1, 0), 9, 0),)),), 0, 0, 0),
            "link_rate_bps",
        ),
    ],
)
def test_bad_fields_are_refused_naming_the_field(make, field):
    with pytest.raises(InputError) as err:
        make()
    message = str(err.value)
    assert field in message
    assert any(field in str(part) for part in err.value.loc), err.value.loc
    assert err.value.hint


def test_field_errors_carry_the_field():
    with pytest.raises(FieldError) as err:
        fabric(guard=20 * US)
    assert err.value.field == "guard_ps"
    assert "switches[0].slots[0].uptime_ps" in str(err.value)


def test_a_selector_fabric_may_give_each_port_its_own_matching():
    # seed 001 lines 571-579: each input port selects one of the +2^i matchings; ports 0-1 take +1, 2-6 take
    # +2 and 7 takes +4, which together still form a permutation of 8 ports
    offsets = (1, 1, 2, 2, 2, 2, 2, 4)
    mixed = tuple((p + o) % 8 for p, o in enumerate(offsets))
    slots = (Slot(mixed, 10 * US, 0),)
    f = CircuitFabric("selectornet", 8, (SwitchSchedule(slots),), 10**10, 0, 0)
    assert [f.circuit_at(0, p, 0)[0] for p in range(8)] == list(mixed)
    with pytest.raises(InputError, match="lacks"):  # +3 for port 0 is no selector matching
        CircuitFabric("selectornet", 8, (SwitchSchedule((Slot((3, 2, 1, 0, 7, 6, 5, 4), 10, 0),)),), 1, 0, 0)


def test_circuit_at_finds_the_circuit_its_end_and_the_gaps():
    f = fabric()
    assert f.circuit_at(0, 0, 0) == (1, 10 * US)
    assert f.circuit_at(0, 2, 10 * US - 1) == (3, 10 * US)
    assert f.circuit_at(0, 0, 10 * US) is None  # reconfiguration after slot 0
    assert f.circuit_at(0, 0, 12 * US) == (2, 32 * US)
    assert f.circuit_at(0, 0, 33 * US) is None
    cycle = f.cycle_ps()
    for t in (0, 5 * US, 11 * US, 20 * US, 34 * US):  # periodic
        got, later = f.circuit_at(0, 1, t), f.circuit_at(0, 1, t + 3 * cycle)
        if got is None:
            assert later is None
        else:
            assert later == (got[0], got[1] + 3 * cycle)


def test_a_phase_shifts_the_schedule_and_an_idle_port_has_no_circuit():
    slots = (Slot((0, 1, 3, 2), 10 * US, 2 * US),)  # ports 0 and 1 face themselves: idle
    f = CircuitFabric("rotornet", 4, (SwitchSchedule(slots, phase_ps=5 * US),), 10**10, 0, 0)
    assert f.circuit_at(0, 2, 5 * US) == (3, 15 * US)
    assert f.circuit_at(0, 2, 16 * US) is None  # reconfiguration from 15 to 17 us
    assert f.circuit_at(0, 2, 4 * US) is None  # the previous cycle's reconfiguration (3 to 5 us)
    assert f.circuit_at(0, 2, 2 * US) == (3, 3 * US)
    assert f.circuit_at(0, 0, 6 * US) is None
    with pytest.raises(InputError, match="port"):
        f.circuit_at(0, 4, 0)


def pairs_met(rows) -> dict[tuple[int, int], int]:
    met: dict[tuple[int, int], int] = {}
    for row in rows:
        for i, j in enumerate(row):
            if i < j:
                met[(i, int(j))] = met.get((i, int(j)), 0) + 1
    return met


@pytest.mark.parametrize("n", [2, 4, 8, 16])
def test_round_robin_is_a_one_factorization(n):
    rr = round_robin(n)
    assert rr.shape == (n - 1, n)
    for row in rr:
        assert (row[row] == np.arange(n)).all() and (row != np.arange(n)).all()  # perfect matchings
    assert pairs_met(rr) == {(i, j): 1 for i in range(n) for j in range(i + 1, n)}


@pytest.mark.parametrize(("switches", "per"), [(1, 7), (7, 1), (2, 4), (4, 2)])
def test_rotor_layouts_meet_every_pair_once_per_cycle(switches, per):
    mats = rotor_matchings(8, switches)
    assert [len(m) for m in mats] == [per] * switches
    allrows = np.vstack(mats)
    assert pairs_met(allrows) == {(i, j): 1 for i in range(8) for j in range(i + 1, 8)}
    identities = [r for r in allrows if (r == np.arange(8)).all()]
    assert len(identities) == (1 if switches * per == 8 else 0)
    f = build_rotornet(8, switches)
    assert len(f.switches) == switches and f.kind == "rotornet"
    # at any time within an uptime, every pair that faces each other is met on exactly one switch
    seen = {}
    for k in range(per):
        t = k * (f.switches[0].slots[0].period_ps) + 1
        for s in range(switches):
            for p in range(8):
                c = f.circuit_at(s, p, t)
                if c is not None and p < c[0]:
                    seen[(p, c[0])] = seen.get((p, c[0]), 0) + 1
    assert seen == {(i, j): 1 for i in range(8) for j in range(i + 1, 8)}


def test_layouts_are_parsed_and_bad_ones_refused():
    assert parse_layout("1x7") == 1 and parse_layout("2x4") == 2
    for bad in ("3x3", "1x8", "2x3", "x", "0x7"):
        with pytest.raises(InputError, match="layout"):
            parse_layout(bad)
    with pytest.raises(InputError, match="switches"):
        rotor_matchings(8, 3)
