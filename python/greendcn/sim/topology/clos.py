"""A folded Clos of any number of tiers, each with its own switch radix and oversubscription (down:up ports).

The construction is the k-ary fat-tree's, generalised per tier (our formulation). Tier 1 switches (ToRs) each
take d_1 hosts and u_1 uplinks; a switch of tier t < T splits its radix r_t into d_t down and u_t up ports with
d_t / u_t its oversubscription; the top tier T has all r_T ports down. A level-t pod is d_t level-(t-1) pods
and s_t = s_{t-1} x u_{t-1} tier-t switches (s_1 = 1), and tier-t switch (p, l) of a pod (p < s_{t-1}, l <
u_{t-1}, numbered p x u_{t-1} + l) links to the tier-(t-1) switch at position p of each of its d_t sub-pods.
Three tiers with r = k and 1:1 everywhere is the k-ary fat-tree of `fattree.py`, node for node and link for
link (a test checks it).

The public Opera simulator's 3:1 tree for 648 hosts is the case r = 12, T = 3, 3:1 at the ToR and 1:1 above:
TritonNetworking/opera-sim src/clos/datacenter/fat_tree_topology_3to1_k12.cpp lines 83-87 (72 ToRs, 36 upper
pod and 18 core switches, 9 hosts per rack), 176-178 (host j x 9 + l under ToR j), 228-232 (pods of 6 ToRs and
3 upper switches, each ToR linked to the 3 of its pod) and 282-289 (upper switch j at position j mod 3 of its
pod linked to cores (j mod 3) x 6 .. + 5). The numbering here is that one: host i under ToR i // d_1, ToRs and
aggregation switches pod by pod, core switch (p, l) numbered p x u_2 + l, so flow files that name hosts by
number mean the same hosts. Names: hosts S*, ToRs E*, the top tier C*, the tiers between A* (3 tiers) or
A*, B* (4 tiers), as `fattree.py` names them."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
import math
from math import prod

from ...core.errors import FieldError
from .graph import Link, Network, Node

__all__ = ["MAX_TIERS", "ClosShape", "clos", "clos_shape", "shape_of"]

MAX_TIERS = 4  # our bound: names run out (E, A, B, C) and a 4-tier radix-12 tree already holds 3,888 hosts
_NAMES = {2: ("E", "C"), 3: ("E", "A", "C"), 4: ("E", "A", "B", "C")}
_LAYERS = {2: ("edge", "core"), 3: ("edge", "agg", "core"), 4: ("edge", "agg", "agg2", "core")}


@dataclass(frozen=True)
class ClosShape:
    """Ports per tier (ToR first): `down[t]` and `up[t]` (0 at the top); everything else follows."""

    down: tuple[int, ...]
    up: tuple[int, ...]

    @property
    def tiers(self) -> int:
        return len(self.down)

    @property
    def per_pod(self) -> tuple[int, ...]:
        """s_t: tier-t switches in one level-t pod (s_1 = 1: a ToR is its own pod)."""
        s = [1]
        for t in range(1, self.tiers):
            s.append(s[-1] * self.up[t - 1])
        return tuple(s)

    @property
    def switches(self) -> tuple[int, ...]:
        """Switches of each tier in the whole network: s_t x the sub-pods above it (d_{t+1} ... d_T)."""
        s = self.per_pod
        return tuple(s[t] * prod(self.down[t + 1 :]) for t in range(self.tiers))

    @property
    def hosts(self) -> int:
        return self.switches[0] * self.down[0]

    @property
    def links(self) -> int:
        """Host links plus every switch's uplinks (each inter-switch link counted once, from below)."""
        return self.hosts + sum(n * u for n, u in zip(self.switches, self.up))

    @property
    def pods(self) -> int:
        """Level-(T-1) pods under the top tier (the top switches' down ports)."""
        return self.down[-1]

    def bisection_links(self) -> int:
        """Links across the cut that puts half the top-level pods on each side (our reading, as for the
        fat-tree): per pod the least of its hosts' links and each tier's uplinks out of the pod's switches."""
        per_top_pod = [n // self.pods for n in self.switches[:-1]]
        hosts = per_top_pod[0] * self.down[0]
        narrowest = min([hosts] + [n * u for n, u in zip(per_top_pod, self.up)])
        return (self.pods // 2) * narrowest


def _ratio(value: float) -> Fraction:
    return Fraction(value).limit_denominator(1000)


def clos_shape(radix: list[int], ratios: list[float]) -> ClosShape:
    """Ports per tier from each tier's radix (ToR first) and the oversubscription of each tier below the top;
    a radix or ratio that builds no tree is a FieldError naming topology.radix or
    topology.tier_oversubscription."""
    tiers = len(radix)
    if not 2 <= tiers <= MAX_TIERS:
        raise FieldError(
            "tiers",
            f"a folded Clos has 2 to {MAX_TIERS} tiers, got {tiers}",
            hint="e.g. 3 (ToR, aggregation, core)",
        )
    if len(ratios) != tiers - 1:
        raise FieldError(
            "tier_oversubscription",
            f"needs one ratio per tier below the top ({tiers - 1} for {tiers} tiers), got {len(ratios)}",
            hint="e.g. [3, 1] for a 3-tier tree oversubscribed 3:1 at the ToRs",
        )
    down, up = [], []
    for t, (r, o) in enumerate(zip(radix, ratios), start=1):
        if not math.isfinite(o) or o <= 0:
            raise FieldError(
                "tier_oversubscription",
                f"tier {t}: must be a finite positive ratio, got {o:g}",
                hint="e.g. 1 or 3",
            )
        q = _ratio(o)
        # d / u = q and d + u = r: u = r x den / (num + den), whole only if (num + den) divides r x den
        if (r * q.denominator) % (q.numerator + q.denominator):
            raise FieldError(
                "tier_oversubscription",
                f"tier {t}: {o:g}:1 does not split radix {r} into whole down and up ports",
                hint=f"choose a ratio d:u with d + u = {r}, e.g. {r - r // 4}:{r // 4}"
                if r >= 4
                else "raise topology.radix",
            )
        u = r * q.denominator // (q.numerator + q.denominator)
        if u < 1 or u >= r:
            raise FieldError(
                "radix",
                f"tier {t}: radix {r} leaves no down or no up port at {o:g}:1",
                hint="raise topology.radix",
            )
        down.append(r - u)
        up.append(u)
    if radix[-1] < 2:
        raise FieldError(
            "radix",
            f"the top tier needs at least 2 ports to join pods, got {radix[-1]}",
            hint="raise topology.radix",
        )
    return ClosShape(tuple(down) + (radix[-1],), tuple(up) + (0,))


def shape_of(topo) -> ClosShape:  # type: ignore[no-untyped-def]
    """The shape a `Topology` of kind "clos" describes: `radix` (one number for every tier, or one per tier;
    unset: `k`, so a fat-tree file turned into a Clos keeps its switches) and `tier_oversubscription` (unset:
    `oversubscription` at the ToRs and 1:1 above)."""
    tiers = topo.tiers
    radix = topo.radix if topo.radix is not None else topo.k
    if isinstance(radix, int):
        radix = [radix] * tiers
    elif len(radix) != tiers:
        raise FieldError(
            "radix",
            f"gives {len(radix)} radixes for {tiers} tiers",
            hint="one number for every tier, or one per tier, ToR first",
        )
    if min(radix) < 2:
        raise FieldError(
            "radix", f"a switch needs at least 2 ports, got {min(radix)}", hint="e.g. radix = 12"
        )
    if topo.tier_oversubscription is not None:
        return clos_shape(list(radix), list(topo.tier_oversubscription))
    try:
        return clos_shape(list(radix), [topo.oversubscription] + [1.0] * (tiers - 2))
    except FieldError as e:  # the ratio came from `oversubscription`: name the key the user wrote
        if e.field != "tier_oversubscription":
            raise
        raise FieldError("oversubscription", str(e), hint=e.hint) from None


def clos(
    shape: ClosShape,
    *,
    rate_bps: int = 10**9,
    delay_ps: int = 25_000_000,
    switch_queue: dict[str, int] | None = None,
    host_queue: dict[str, int] | None = None,
    host_delay_ps: int | None = None,
) -> Network:
    """Hosts S*, then each tier's switches, ToRs first; every link has the same rate, and the same delay but
    for host links' `host_delay_ps` (None: `delay_ps`)."""
    T, s = shape.tiers, shape.per_pod
    counts = shape.switches
    names, layers = _NAMES[T], _LAYERS[T]
    nodes = [Node(f"S{i}", "host", "host") for i in range(shape.hosts)]
    first = []
    for t in range(T):
        first.append(len(nodes))
        nodes += [Node(f"{names[t]}{i}", "switch", layers[t]) for i in range(counts[t])]

    def link(a: int, b: int, qa: dict[str, int] | None) -> Link:
        return Link(a, b, rate_bps, delay_ps, qa, switch_queue)

    d1 = shape.down[0]
    hd = delay_ps if host_delay_ps is None else host_delay_ps
    links = [Link(h, first[0] + h // d1, rate_bps, hd, host_queue, switch_queue) for h in range(shape.hosts)]
    # Each switch's uplinks in turn, tier by tier (the order `fattree.py` lists them, so the two give the same
    # port numbers). Tier-t switches come pod by pod: switch j of tier t (0-based, ToRs t = 0) sits at position
    # j mod s_t of level-t pod j // s_t, a sub-pod of level-(t+1) pod (j // s_t) // d_{t+1}, and links to that
    # pod's tier-(t+1) switches (j mod s_t) x u_t .. + u_t - 1.
    for t in range(T - 1):
        u, d_up = shape.up[t], shape.down[t + 1]
        for j in range(counts[t]):
            pod, pos = divmod(j, s[t])
            top = (pod // d_up) * s[t + 1] + pos * u
            links += [link(first[t] + j, first[t + 1] + top + l, switch_queue) for l in range(u)]
    return Network(nodes, links)
