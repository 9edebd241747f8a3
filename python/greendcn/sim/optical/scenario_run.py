"""Scenarios on circuit fabrics: `topology.kind = "rotornet" | "selectornet" | "opera"` in a scenario file (or
`--set topology.kind=rotornet routing.scheme=rotorlb`) runs the scenario's workload on the circuit engine and
returns the same `SimResult` tables as a packet-switched run, with the fabric's energy.

Each endpoint (rack) R0..R(N-1) is a host of the workload. What differs from a packet-switched run (our
choices, docs/circuit-engine.md): flows are datagrams (the circuit engine has no TCP: a flow's packets are sent
once, and a packet that meets no circuit is lost), so `fct_s` is the time its last byte arrived, or empty
when a packet was lost; the energy is the network's (circuit switches and the racks' ToR switches, constant
power from the switch table); hosts are not priced on circuit fabrics yet."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ...core.units import PS_PER_S
from ..ledger import EnergyReport
from ..topology.graph import Network, Node
from ..engine import run_circuit_spec
from .packet import circuit_spec, network_energy
from .rotornet import build_rotornet
from .schedule import CircuitFabric, Slot, SwitchSchedule

__all__ = ["CIRCUIT_KINDS", "CIRCUIT_SCHEMES", "build_fabric", "endpoint_network", "simulate_circuit"]

CIRCUIT_KINDS = ("rotornet", "selectornet", "opera")
CIRCUIT_SCHEMES = {
    "rotornet": ("rotorlb", "direct"),
    "selectornet": ("selector",),
    "opera": ("opera", "rotorlb"),
}
# How a run on Opera routes, by routing.scheme (docs/circuit-engine.md).
OPERA_NOTES = {
    "rotorlb": "all traffic runs as bulk via RotorLB (routing.scheme = opera routes the low-latency class)",
    "opera": "flows below topology.cutoff go hop by hop over the current slice's expander at high priority "
    "(TCP with the scenario's [tcp], ACKs back the same way; re-routed and counted when the slice changes); "
    "the rest as bulk datagrams via RotorLB",
}


def build_fabric(topo: Any) -> CircuitFabric:
    """The fabric of a scenario's `[topology]` (validated by the scenario model)."""
    if topo.kind == "opera":
        from .opera_fabric import opera_from_topology

        return opera_from_topology(topo)[0]
    if topo.kind == "rotornet":
        return build_rotornet(
            racks=topo.racks,
            switches=topo.circuit_switches,
            uptime_ps=topo.uptime,
            reconfig_ps=topo.reconfig,
            link_rate_bps=topo.link_rate,
            guard_ps=topo.guard,
            prealloc_ps=topo.prealloc,
        )
    # SelectorNet: each selector switch cycles every matching +2^i in turn (all ports together: our choice;
    # the scheduler of `reproduce selectornet` sizes the slots to a known demand instead). With several
    # switches, switch i starts i matchings further on (our choice), so the switches offer different offsets.
    n = topo.racks
    offsets = [1 << i for i in range(n.bit_length() - 1)][::-1]
    switches = []
    for i in range(topo.circuit_switches):
        order = offsets[i % len(offsets) :] + offsets[: i % len(offsets)]
        slots = tuple(Slot(tuple((p + o) % n for p in range(n)), topo.uptime, topo.reconfig) for o in order)
        switches.append(SwitchSchedule(slots))
    return CircuitFabric(
        kind="selectornet",
        endpoints=n,
        switches=tuple(switches),
        link_rate_bps=topo.link_rate,
        guard_ps=topo.guard,
        prealloc_ps=topo.prealloc,
    )


def endpoint_network(topo: Any) -> Network:
    """The racks as hosts (R0..R(N-1)), so the scenario's workloads can name and draw them."""
    return Network(nodes=[Node(f"R{i}", "host") for i in range(topo.racks)], links=[])


def simulate_circuit(sc: Any, net: Network, flows: list, seed: int, progress: Any = None) -> Any:
    from ..run import SimResult, tcp_spec

    topo = sc.topology
    opera = None
    if topo.kind == "opera":
        from .opera_fabric import opera_from_topology, slice_ps
        from .opera_routes import opera_spec_table

        fabric, sched = opera_from_topology(topo)
        if sc.routing.scheme == "opera":
            opera = opera_spec_table(sched, slice_ps(sched), topo.cutoff)
    else:
        fabric = build_fabric(topo)
    tcp_ll = opera is not None
    spec = circuit_spec(
        fabric,
        [
            {
                "id": f.id,
                "src": f.src,
                "dst": f.dst,
                "size_bytes": f.size_bytes,
                "start_ps": f.start_ps,
                # Opera's low-latency class runs TCP when the workload asks for it (bulk stays datagrams)
                **({"transport": "tcp"} if tcp_ll and f.transport == "tcp" else {}),
            }
            for f in flows
        ],
        sc.routing.scheme,
        seed=seed,
        stop_ps=sc.run.stop_time,
        delay_ps=topo.link_delay,
        opera=opera,
        # every segment acknowledged at once on circuits (our choice: no delayed ACKs there)
        tcp={**tcp_spec(sc.tcp), "delayed_ack": False} if tcp_ll else None,
    )
    out = run_circuit_spec(spec, progress, loc_map=_scenario_key)
    names = net.hosts
    cls = {f.id: f.cls for f in flows}
    fl = pd.DataFrame(out["flows"])
    fl["src"] = fl["src"].map(lambda i: names[i])
    fl["dst"] = fl["dst"].map(lambda i: names[i])
    fl["start_s"] = fl["start_ps"] / PS_PER_S
    fl["fct_s"] = fl["fct_ps"].astype("float64") / PS_PER_S
    fl["throughput_bps"] = 8 * fl["size_bytes"] / fl["fct_s"]
    fl["class"] = fl["id"].map(cls)
    fl = fl.drop(columns=[c for c in fl.columns if c.endswith("_ps")])
    ports = pd.DataFrame(out["ports"])
    ports.insert(0, "from", ports["endpoint"].map(lambda i: names[i]))
    ports.insert(1, "to", ports["switch"].map(lambda i: f"circuit{i}"))
    s = dict(out["summary"])
    sim_time_s = s.pop("sim_time_ps") / PS_PER_S
    ports["busy_s"] = ports.pop("busy_ps") / PS_PER_S
    ports["utilization"] = ports["busy_s"] / sim_time_s if sim_time_s > 0 else 0.0
    nodes = pd.DataFrame(
        [{"name": n, "kind": "rack"} for n in names]
        + [{"name": f"circuit{i}", "kind": "circuit switch"} for i in range(len(fabric.switches))]
    )
    s["drops"] = s["no_circuit_drops"]
    summary = {
        "scenario": sc.name,
        "seed": seed,
        "routing": sc.routing.scheme,
        "fabric": topo.kind,
        "transport": (
            "tcp for Opera's low-latency class, datagrams for bulk"
            if tcp_ll
            else "datagram (TCP runs only on Opera's low-latency class)"
        ),
        **({"opera_routing": OPERA_NOTES[sc.routing.scheme]} if topo.kind == "opera" else {}),
        "sim_time_s": sim_time_s,
        **s,
        "flows": len(flows),
    }
    res = SimResult(fl, ports, nodes, summary, sc)
    res.energy = fabric_energy(fabric, out["summary"], topo.circuit_switch_model, topo.tor_switch)
    res.engine_results = out
    return res


def fabric_energy(
    fabric: CircuitFabric, summary: dict, circuit_switch: str, tor_switch: str | None
) -> EnergyReport:
    """The network's energy as the ledger reports it: every device a switch at constant power."""
    e = network_energy(fabric, summary, circuit_switch, tor_switch)
    devices = [
        {
            "name": d["name"],
            "kind": "node:switch",
            "model": d["model"],
            "avg_power_w": d["power_w"],
            "energy_j": d["energy_j"],
        }
        for d in e["devices"]
    ]
    total = e["total_energy_j"]
    return EnergyReport(
        devices=devices,
        sim_time_s=e["sim_time_s"],
        total_energy_j=total,
        avg_power_w=e["avg_power_w"],
        delivered_bits=e["delivered_bits"],
        energy_per_bit_pj=e["energy_per_bit_pj"],
        hosts={"note": "hosts are not priced on circuit fabrics yet (the network's devices only)"},
        split={
            "hosts_energy_j": 0.0,
            "host_share": 0.0,
            "switches_energy_j": total,
            "links_energy_j": 0.0,
            "circuit_switches_energy_j": sum(
                d["energy_j"] for d in devices if d["name"].startswith("circuit switch")
            ),
            "tors_energy_j": sum(d["energy_j"] for d in devices if d["name"].startswith("tor")),
        },
        energy_per_bit_pj_without_hosts=e["energy_per_bit_pj"],
    )


# Fields of the engine's circuit spec that come from one scenario key (an error names what the user wrote).
_SCENARIO_KEYS = {
    "link_rate_bps": ("topology", "link_rate"),
    "delay_ps": ("topology", "link_delay"),
    "tdma": ("topology",),
    "switches": ("topology",),
    "opera": ("topology",),
    "stop_ps": ("run", "stop_time"),
    "flows": ("workload",),
}
_TDMA_KEYS = {"guard_ps": "guard", "prealloc_ps": "prealloc"}


def _scenario_key(loc: tuple) -> tuple:
    """The scenario key behind a field of the circuit spec, as precisely as it is known: `tdma.guard_ps` is
    `topology.guard`, a switch's slots come from the topology's uptime and reconfig keys, a flow from the
    workload."""
    if not loc or loc[0] not in _SCENARIO_KEYS:
        return tuple(loc)
    if loc[0] == "tdma" and len(loc) > 1 and loc[1] in _TDMA_KEYS:
        return ("topology", _TDMA_KEYS[loc[1]])
    return _SCENARIO_KEYS[loc[0]]
