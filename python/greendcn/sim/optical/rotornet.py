"""RotorNet's circuits (seed 001 section 2.5.2): symmetric matchings spread over rotor switches that together
meet every rack pair once per cycle, and the schedule builder.

What seed 001 states: RotorLB needs bidirectional circuits (line 829); RotorNet uses N_R - 1 matchings for N_R
racks, spread over the rotor switches (line 829); the testbed has 8 endpoints and one switch with the seven
matchings (line 831); Figure 2.10's runs used an uptime of about 10 ms and a 1 ms guard (line 890) on the
same 10 Gb/s hosts and switch as SelectorNet (line 873; 150 us reconfiguration, line 675).
What is ours: the round-robin (circle) 1-factorization; for 2 switches x 4 matchings on 8 racks, the seven
perfect matchings plus the identity (a matching in which every rack faces itself and which therefore carries
nothing), which is how the public RotorNet testbed model reaches 8 matchings (docs/rotornet.md); all switches
rotate in lock-step (phase 0)."""

from __future__ import annotations

import numpy as np

from ...core.errors import InputError
from .schedule import CircuitFabric, Slot, SwitchSchedule

__all__ = [
    "LAYOUTS",
    "THESIS_GUARD_PS",
    "THESIS_RACKS",
    "THESIS_RATE_BPS",
    "THESIS_RECONFIG_PS",
    "THESIS_UPTIME_PS",
    "build_rotornet",
    "parse_layout",
    "rotor_matchings",
    "round_robin",
]

THESIS_RACKS = 8  # seed 001 line 831
THESIS_RATE_BPS = 10 * 10**9  # seed 001 line 873 (the SelectorNet hosts, line 673)
THESIS_UPTIME_PS = 10_000_000_000  # 10 ms, seed 001 line 890
THESIS_GUARD_PS = 1_000_000_000  # 1 ms, seed 001 line 890
THESIS_RECONFIG_PS = 150_000_000  # 150 us: the same switch as SelectorNet (line 873, line 675)
LAYOUTS = {"1x7": 1, "2x4": 2}


def parse_layout(text: str, racks: int = THESIS_RACKS) -> int:
    """'SxM' -> S switches, checking that S x M matchings fit `racks` (M = (N-1)/S, or N/S with the identity)."""
    try:
        s, m = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise InputError(
            f"layout: {text!r} is not SxM, e.g. 1x7", hint="--layout 1x7 or --layout 2x4", loc=("layout",)
        ) from None
    ok = s >= 1 and (
        ((racks - 1) % s == 0 and s * m == racks - 1)
        or ((racks - 1) % s and racks % s == 0 and s * m == racks)
    )
    if not ok:
        raise InputError(
            f"layout: {text!r} does not give {racks} racks {racks - 1} matchings (or {racks} with the identity)",
            hint=f"for {racks} racks: 1x{racks - 1} or 2x{racks // 2}",
            loc=("layout",),
        )
    return s


def round_robin(n: int) -> np.ndarray:
    """The circle-method 1-factorization of n racks (n even): n - 1 perfect matchings as an (n-1, n) array of
    partners; every pair of distinct racks meets in exactly one of them and every row is an involution."""
    if n < 2 or n % 2:
        raise InputError(f"racks: need an even number >= 2, got {n}", hint="e.g. 8", loc=("racks",))
    m = n - 1
    out = np.empty((m, n), dtype=np.int64)
    for r in range(m):
        out[r, n - 1], out[r, r] = r, n - 1  # the fixed rack meets the one at the rotation's centre
        for i in range(1, n // 2):
            a, b = (r + i) % m, (r - i) % m
            out[r, a], out[r, b] = b, a
    return out


def rotor_matchings(racks: int, switches: int) -> list[np.ndarray]:
    """Per switch, its matchings (rows of partners). (N - 1) / S each when S divides N - 1; otherwise, when S
    divides N, the identity joins the N - 1 perfect matchings and each switch holds N / S (the last switch
    carries the identity)."""
    rr = round_robin(racks)
    if switches >= 1 and (racks - 1) % switches == 0:
        per = (racks - 1) // switches
        return [rr[s * per : (s + 1) * per] for s in range(switches)]
    if switches >= 1 and racks % switches == 0:
        allm = np.vstack([rr, np.arange(racks)[None, :]])
        per = racks // switches
        return [allm[s * per : (s + 1) * per] for s in range(switches)]
    raise InputError(
        f"switches: {switches} rotor switches cannot share {racks - 1} matchings evenly (nor {racks} with the "
        "identity)",
        hint=f"use a divisor of {racks - 1} or of {racks}",
        loc=("switches",),
    )


def build_rotornet(
    racks: int = THESIS_RACKS,
    switches: int = 1,
    uptime_ps: int = THESIS_UPTIME_PS,
    reconfig_ps: int = THESIS_RECONFIG_PS,
    link_rate_bps: int = THESIS_RATE_BPS,
    guard_ps: int = THESIS_GUARD_PS,
    prealloc_ps: int = 0,
) -> CircuitFabric:
    """The RotorNet fabric: each rotor switch cycles its matchings, one slot each, all in lock-step."""
    sched = []
    for rows in rotor_matchings(racks, switches):
        sched.append(
            SwitchSchedule(tuple(Slot(tuple(int(x) for x in row), uptime_ps, reconfig_ps) for row in rows))
        )
    return CircuitFabric(
        kind="rotornet",
        endpoints=racks,
        switches=tuple(sched),
        link_rate_bps=link_rate_bps,
        guard_ps=guard_ps,
        prealloc_ps=prealloc_ps,
    )
