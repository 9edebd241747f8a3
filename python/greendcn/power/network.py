"""Network power against node count (seed 001, Section 2.1.3, Fig. 2.3): count the switches a design needs
for N servers at 100 Gbps and multiply by each switch's measured power; servers are excluded, as there.

The thesis gives no counting rules, so every rule here is ours and a parameter (docs/models.md):
- fat-tree with k-port switches and oversubscription s:1: an edge (ToR) switch has k*s/(s+1) ports down and
  k/(s+1) up; every layer above terminates the uplinks of the layer below, middle layers with k/2 ports up and
  k/2 down, the top layer with all k ports down. The tree gets the fewest tiers n that hold N, each layer
  rounded up on its own. n tiers hold at most s * 2 (k/2)^n servers (k^3/4 for 1:1 and n = 3, with 5k^2/4
  switches); past `max_tiers` the point is omitted and the record says why.
- optical designs: ToRs = ceil(N / hosts_per_tor); optical switches = ceil(ToRs x uplinks / optical ports).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..core.errors import InputError
from .switches import SwitchModel, get_switch

__all__ = [
    "FatTree",
    "OpticalDesign",
    "compare",
    "default_architectures",
    "fat_tree_counts",
    "fat_tree_max_hosts",
    "network_power",
    "node_counts",
]


@dataclass(frozen=True)
class FatTree:
    name: str
    switch: str
    oversubscription: int = 1
    max_tiers: int = 3


@dataclass(frozen=True)
class OpticalDesign:
    name: str
    tor_switch: str
    optical_switch: str
    hosts_per_tor: int = 32
    uplinks_per_tor: int = 32
    optical_ports: int | None = None  # None: the optical switch's own port count from the table


def _ports_split(k: int, s: int) -> tuple[int, int]:
    if s < 1 or k % (s + 1):
        raise InputError(
            f"a {k}-port switch cannot be split {s}:1 between hosts and uplinks",
            hint="use an oversubscription s with k divisible by s + 1 (1:1 or 3:1 for 32/64 ports)",
        )
    return k * s // (s + 1), k // (s + 1)


def fat_tree_max_hosts(k: int, oversubscription: int, tiers: int) -> int:
    """Servers an n-tier fat-tree of k-port switches holds at most: k for one switch, s * 2 (k/2)^n beyond."""
    _ports_split(k, oversubscription)
    return k if tiers == 1 else oversubscription * 2 * (k // 2) ** tiers


def fat_tree_counts(n_hosts: int, k: int, oversubscription: int = 1, max_tiers: int = 3) -> dict | None:
    """Switches by layer ({tor, aggregation, core, tiers}) or None when N needs more than `max_tiers` tiers."""
    down, up = _ports_split(k, oversubscription)
    tiers = 1
    while n_hosts > fat_tree_max_hosts(k, oversubscription, tiers):
        tiers += 1
        if tiers > max_tiers:
            return None
    if tiers == 1:
        return {"tor": 1, "aggregation": 0, "core": 0, "tiers": 1}
    edges = math.ceil(n_hosts / down)
    uplinks = edges * up
    return {
        "tor": edges,
        "aggregation": (tiers - 2) * math.ceil(uplinks / (k // 2)),
        "core": math.ceil(uplinks / k),
        "tiers": tiers,
    }


def _check_nodes(n_hosts: int) -> None:
    if not isinstance(n_hosts, int) or n_hosts < 1:
        raise InputError(
            f"node count {n_hosts!r} must be a positive integer", hint="e.g. --nodes 1024:131072"
        )


def network_power(
    arch: FatTree | OpticalDesign, n_hosts: int, table: dict[str, SwitchModel] | None = None
) -> dict:
    """One record: architecture, nodes, switch counts by kind, power_w (None when omitted) and a note."""
    _check_nodes(n_hosts)
    rec: dict = {"architecture": arch.name, "nodes": n_hosts}
    if isinstance(arch, FatTree):
        sw = get_switch(arch.switch, table)
        counts = fat_tree_counts(n_hosts, sw.ports, arch.oversubscription, arch.max_tiers)
        if counts is None:
            limit = fat_tree_max_hosts(sw.ports, arch.oversubscription, arch.max_tiers)
            return {
                **rec,
                "switches": None,
                "power_w": None,
                "tiers": None,
                "note": f"omitted: more than {limit} nodes needs over {arch.max_tiers} tiers",
            }
        tiers = counts.pop("tiers")
        power = sum(counts.values()) * sw.power_w
        by_kind = {f"{kind}:{sw.id}": n for kind, n in counts.items()}
        return {**rec, "switches": by_kind, "power_w": power, "tiers": tiers, "note": ""}
    tor = get_switch(arch.tor_switch, table)
    ocs = get_switch(arch.optical_switch, table)
    ports = arch.optical_ports or ocs.ports
    if arch.hosts_per_tor + arch.uplinks_per_tor > tor.ports:
        raise InputError(
            f"{arch.name}: {arch.hosts_per_tor} hosts + {arch.uplinks_per_tor} uplinks exceed the "
            f"{tor.ports} ports of {tor.id}",
            hint="lower hosts_per_tor or uplinks_per_tor (--hosts-per-tor, --uplinks-per-tor)",
        )
    tors = math.ceil(n_hosts / arch.hosts_per_tor)
    optical = math.ceil(tors * arch.uplinks_per_tor / ports)
    power = tors * tor.power_w + optical * ocs.power_w
    return {
        **rec,
        "switches": {f"tor:{tor.id}": tors, f"optical:{ocs.id}": optical},
        "power_w": power,
        "tiers": None,
        "note": "",
    }


def default_architectures() -> list[FatTree | OpticalDesign]:
    """The designs of seed 001 Fig. 2.3 with our default counting parameters (docs/models.md)."""
    return [
        FatTree("fat-tree 1:1 (Wedge 100BF-65X)", "wedge100bf65x", 1),
        FatTree("fat-tree 3:1 (Wedge 100BF-65X)", "wedge100bf65x", 3),
        FatTree("fat-tree 1:1 (SN2700)", "sn2700", 1),
        FatTree("fat-tree 3:1 (SN2700)", "sn2700", 3),
        OpticalDesign("SelectorNet (selector v1)", "wedge100bf65x", "selector_v1", optical_ports=256),
        OpticalDesign("RotorNet (selector v1)", "wedge100bf65x", "selector_v1"),
        OpticalDesign("Opera (selector v2)", "wedge100bf65x", "selector_v2"),
        OpticalDesign("Opera (v2, optimized projection)", "wedge100bf65x", "selector_v2_optimized"),
    ]


def node_counts(spec: str) -> list[int]:
    """'1024:131072' -> powers of two from 1024 to 131072; '1000,5000' -> that list."""
    text = str(spec).strip()
    try:
        values = [int(x) for x in text.replace(":", ",").split(",")]
    except ValueError:
        raise InputError(
            f"--nodes {spec!r} is not a range LO:HI or a list", hint="e.g. --nodes 1024:131072"
        ) from None
    for v in values:
        _check_nodes(v)
    if ":" not in text:
        return values
    if len(values) != 2 or values[1] < values[0]:
        raise InputError(f"--nodes {spec!r}: a range is LO:HI with LO <= HI", hint="e.g. --nodes 1024:131072")
    out, n = [], values[0]
    while n <= values[1]:
        out.append(n)
        n *= 2
    return out


def compare(
    nodes: list[int],
    archs: list[FatTree | OpticalDesign] | None = None,
    table: dict[str, SwitchModel] | None = None,
) -> list[dict]:
    """One record per (architecture, node count)."""
    archs = archs if archs is not None else default_architectures()
    return [network_power(a, n, table) for a in archs for n in nodes]
