"""The shared data model of optical circuit fabrics: cyclic schedules of matchings, one per circuit switch.

A `CircuitFabric` is what the SelectorNet and RotorNet generators build and what the engine's spec builder
reads. Endpoint r (a host or a ToR) sits on port r of every switch. Each switch repeats its `slots` forever:
a slot holds `matching` for `uptime_ps` (the circuit from input port p to output port matching[p] is up), then
the switch reconfigures for `reconfig_ps` (no circuit at all). Slot 0's uptime begins at `phase_ps`.

What seed 001 states: switches have an uptime and a downtime and nothing crosses them during the downtime
(lines 503-505); hosts stop a guard time early and start a preallocation delay early (lines 507-514); a selector
switch's ports may each select one of its matchings (lines 571-579). What is ours: times are integer
picoseconds (the engine's unit, docs/architecture.md); a port matched to itself carries nothing (RotorNet's
identity matching, docs/rotornet.md); the guard must be shorter than every uptime (otherwise a host never
sends). Every check raises an `InputError` (or `FieldError`) whose location names the field."""

from __future__ import annotations

import bisect
import functools
import math
from dataclasses import dataclass

from ...core.errors import FieldError, InputError, Loc, format_loc

__all__ = ["KINDS", "CircuitFabric", "Slot", "SwitchSchedule"]

KINDS = ("selectornet", "rotornet", "opera")


def _bad(loc: Loc, msg: str, hint: str) -> InputError:
    return InputError(f"{format_loc(loc)}: {msg}", hint=hint, loc=loc)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_time(loc: Loc, value: object, positive: bool) -> None:
    if not _is_int(value):
        raise _bad(loc, f"must be an integer number of picoseconds, got {value!r}", "times are integer ps")
    if value < 0 or (positive and value == 0):  # type: ignore[operator]
        need = "> 0" if positive else ">= 0"
        raise _bad(loc, f"must be {need} ps, got {value}", f"give a time {need} ps")


@dataclass(frozen=True)
class Slot:
    """One matching held for `uptime_ps`, followed by `reconfig_ps` of reconfiguration (no circuits)."""

    matching: tuple[int, ...]  # matching[p] = output port for input port p
    uptime_ps: int
    reconfig_ps: int

    def __post_init__(self) -> None:
        m = self.matching
        if not isinstance(m, tuple) or not m:
            raise FieldError(
                "matching", f"matching: must be a non-empty tuple of ports, got {m!r}", hint="e.g. (1, 0)"
            )
        if not all(_is_int(x) for x in m):
            raise FieldError("matching", f"matching: ports must be integers, got {m!r}", hint="e.g. (1, 0)")
        n = len(m)
        seen = [0] * n
        for x in m:
            if not 0 <= x < n:
                raise FieldError(
                    "matching",
                    f"matching: {m!r} is not a permutation of ports 0..{n - 1} (port {x} out of range)",
                    hint="each input port maps to a distinct output port 0..n-1",
                )
            seen[x] += 1
        twice = [p for p, c in enumerate(seen) if c > 1]
        if twice:
            raise FieldError(
                "matching",
                f"matching: {m!r} is not a permutation: output port {twice[0]} is used {seen[twice[0]]} times",
                hint="a circuit switch connects each output port to exactly one input port",
            )
        _check_time(("uptime_ps",), self.uptime_ps, positive=True)
        _check_time(("reconfig_ps",), self.reconfig_ps, positive=False)

    @property
    def period_ps(self) -> int:
        return self.uptime_ps + self.reconfig_ps


@dataclass(frozen=True)
class SwitchSchedule:
    """A switch's cycle of slots; slot 0's uptime starts at `phase_ps` (mod the cycle)."""

    slots: tuple[Slot, ...]
    phase_ps: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.slots, tuple) or not self.slots:
            raise FieldError(
                "slots", "slots: a switch schedule needs at least one slot", hint="give one Slot per matching"
            )
        for k, s in enumerate(self.slots):
            if not isinstance(s, Slot):
                raise _bad(
                    ("slots", k), f"must be a Slot, got {type(s).__name__}", "build slots with Slot(...)"
                )
        _check_time(("phase_ps",), self.phase_ps, positive=False)

    @functools.cached_property
    def _starts(self) -> tuple[int, ...]:
        """Where each slot's period begins within the cycle (kept out of the dataclass fields)."""
        starts, t = [], 0
        for s in self.slots:
            starts.append(t)
            t += s.period_ps
        return tuple(starts)

    def cycle_ps(self) -> int:
        return sum(s.period_ps for s in self.slots)

    def slot_at(self, t_ps: int) -> tuple[int, int]:
        """(index of the slot whose period contains t, absolute time that slot's period began)."""
        cycle = self.cycle_ps()
        tau = (t_ps - self.phase_ps) % cycle
        k = bisect.bisect_right(self._starts, tau) - 1
        return k, t_ps - tau + self._starts[k]


@dataclass(frozen=True)
class CircuitFabric:
    """Endpoints on `switches` circuit switches, each with its own cyclic schedule; the hosts' TDMA timing
    (`guard_ps`: stop this early before an uptime ends; `prealloc_ps`: hand packets over this early)."""

    kind: str  # "selectornet" | "rotornet" | "opera"
    endpoints: int
    switches: tuple[SwitchSchedule, ...]
    link_rate_bps: int
    guard_ps: int
    prealloc_ps: int

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise FieldError(
                "kind", f"kind: {self.kind!r} is not one of {', '.join(KINDS)}", hint="kind=rotornet"
            )
        if not _is_int(self.endpoints) or self.endpoints < 2:
            raise FieldError(
                "endpoints", f"endpoints: need an integer >= 2, got {self.endpoints!r}", hint="e.g. 8"
            )
        if not isinstance(self.switches, tuple) or not self.switches:
            raise FieldError(
                "switches", "switches: a fabric needs at least one circuit switch", hint="give one"
            )
        if not _is_int(self.link_rate_bps) or self.link_rate_bps <= 0:
            raise FieldError(
                "link_rate_bps",
                f"link_rate_bps: must be a positive integer, got {self.link_rate_bps!r}",
                hint="e.g. 10_000_000_000 for 10 Gb/s",
            )
        _check_time(("guard_ps",), self.guard_ps, positive=False)
        _check_time(("prealloc_ps",), self.prealloc_ps, positive=False)
        n = self.endpoints
        for s, sw in enumerate(self.switches):
            if not isinstance(sw, SwitchSchedule):
                raise _bad(("switches", s), f"must be a SwitchSchedule, got {type(sw).__name__}", "build one")
            for k, slot in enumerate(sw.slots):
                loc: Loc = ("switches", s, "slots", k)
                if len(slot.matching) != n:
                    raise _bad(
                        (*loc, "matching"),
                        f"has {len(slot.matching)} ports, the fabric has {n} endpoints",
                        "one port per endpoint on every switch",
                    )
                if self.guard_ps >= slot.uptime_ps:
                    raise FieldError(
                        "guard_ps",
                        f"guard_ps: a guard of {self.guard_ps} ps is not shorter than the uptime of "
                        f"{format_loc((*loc, 'uptime_ps'))} ({slot.uptime_ps} ps): hosts would never send",
                        hint="lower the guard or lengthen the uptime",
                    )
                self._check_kind(slot.matching, (*loc, "matching"))

    def _check_kind(self, m: tuple[int, ...], loc: Loc) -> None:
        n = len(m)
        if self.kind in ("rotornet", "opera"):
            # Opera's rotors hold symmetric matchings too (its cycle meets every pair once, self included).
            # RotorLB needs both directions of every circuit (seed 001 line 829): each matching an involution.
            for p, q in enumerate(m):
                if m[q] != p:
                    raise _bad(
                        loc,
                        f"is not symmetric: port {p} goes to {q} but {q} goes to {m[q]}",
                        "rotor matchings pair endpoints both ways (matching[matching[p]] == p)",
                    )
        else:
            # A selector switch offers only the +2^i matchings (seed 001 lines 565-571); each port may select
            # its own, so each port's offset must be a power of two.
            if n & (n - 1):
                raise FieldError(
                    "endpoints",
                    f"endpoints: a selector switch has 2^k ports, got {n}",
                    hint="use 8, 16, 32, ...",
                )
            for p, q in enumerate(m):
                off = (q - p) % n
                if off == 0 or off & (off - 1):
                    raise _bad(
                        loc,
                        f"port {p} -> {q} is offset +{off}, which the selector switch lacks "
                        f"(its matchings are +{', +'.join(str(1 << i) for i in range(int(math.log2(n))))})",
                        "each port selects one of the +2^i matchings",
                    )

    def cycle_ps(self) -> int:
        """The fabric's period: the least common multiple of its switches' cycles."""
        out = 1
        for sw in self.switches:
            out = math.lcm(out, sw.cycle_ps())
        return out

    def circuit_at(self, switch: int, port: int, t_ps: int) -> tuple[int, int] | None:
        """(peer port, absolute end of the uptime in ps) of `port`'s circuit on `switch` at time t, or None in a
        reconfiguration gap or when the port is matched to itself (an idle port carries nothing)."""
        if not 0 <= switch < len(self.switches):
            raise _bad(("switch",), f"{switch} is not a switch index 0..{len(self.switches) - 1}", "check it")
        if not 0 <= port < self.endpoints:
            raise _bad(("port",), f"{port} is not a port 0..{self.endpoints - 1}", "check it")
        sw = self.switches[switch]
        k, begin = sw.slot_at(t_ps)
        slot = sw.slots[k]
        end = begin + slot.uptime_ps
        if t_ps >= end:
            return None
        peer = slot.matching[port]
        return None if peer == port else (peer, end)
