"""Scenarios on circuit fabrics: `topology.kind = "rotornet" | "selectornet" | "opera"` in a scenario file (or
`--set topology.kind=rotornet routing.scheme=rotorlb`) runs the scenario's workload on the circuit engine and
returns the same `SimResult` tables as a packet-switched run, with the fabric's energy.

The workload's endpoints are hosts S0..S(H-1) when `topology.hosts_per_rack` is set (H = racks x
hosts_per_rack, host h in rack h // hosts_per_rack, each linked to its rack's ToR: the packet fabrics' names, so
one flow file runs on every fabric of H hosts), else the racks R0..R(N-1) themselves (our default, as before).
What differs from a packet-switched run (our
choices, docs/circuit-engine.md): bulk flows are datagrams unless `transport.circuit_bulk = "transport"` (then
TCP or DCTCP from their source ToR's queue), Opera's low-latency flows run their transport (a datagram is sent
once, and one that meets no circuit or a full queue is lost), so a datagram flow's `fct_s` is the time its last
byte arrived, or empty when a packet was lost; the network's energy is its devices' (circuit switches and the racks' ToR switches,
constant power from the switch table); hosts, when they are the endpoints, are priced as on packet fabrics
(`[power.hosts]` from the engine's per-host windows, or `power.host_w`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ...core.units import PS_PER_S
from ..host_power import HostEnergy
from ..ledger import EnergyReport, host_devices, hosts_summary
from ..metrics import attach, ideal_fct_circuit_s, window_summary
from ..topology.graph import Network, Node
from ..engine import CIRCUIT_TRANSPORTS, TRANSPORTS, FlowBuffers, run_circuit_spec
from ..tables import Records
from ..workload.columns import FlowColumns
from .packet import circuit_spec, network_energy
from .rotornet import build_rotornet
from .schedule import CircuitFabric, Slot, SwitchSchedule
from ..transports import flow_transport, transport_specs, used_transports

__all__ = [
    "CIRCUIT_KINDS",
    "CIRCUIT_SCHEMES",
    "build_fabric",
    "endpoint_network",
    "endpoint_racks",
    "simulate_circuit",
]

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
    "the rest as bulk via RotorLB (datagrams, or their transport with transport.circuit_bulk = 'transport')",
}


def _engine_transports(sc: Any, flows: FlowColumns, cutoff: int | None, bulk_reliable: bool) -> np.ndarray:
    """The engine's transport of each flow, as codes into `CIRCUIT_TRANSPORTS`: Opera's low-latency flows
    (below `cutoff`) run their transport (TCP, DCTCP or NDP: `flow_transport`), bulk flows theirs only with
    `bulk_reliable`; the others (and UDP flows) are datagrams (the engine's default)."""
    datagram = CIRCUIT_TRANSPORTS.index("datagram")  # UDP's code in TRANSPORTS
    by_class = np.array([TRANSPORTS.index(flow_transport(sc, "tcp", c)) for c in flows.classes] or [0])
    own = flows.own_transport_codes()
    t = np.where(own != TRANSPORTS.index("tcp"), own, by_class[flows.cls])
    keep = t != datagram  # TCP, DCTCP and NDP
    if cutoff is None:
        keep &= bulk_reliable
    elif not bulk_reliable:
        keep &= flows.size_bytes < cutoff
    return np.where(keep, t, datagram).astype(np.uint8)


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
    """The workload's endpoints as hosts, so the scenario's workloads can name and draw them: S0..S(H-1) with
    `topology.hosts_per_rack`, else the racks R0..R(N-1)."""
    if topo.hosts_per_rack:
        hosts = topo.racks * topo.hosts_per_rack
        return Network(nodes=[Node(f"S{i}", "host", "host") for i in range(hosts)], links=[])
    return Network(nodes=[Node(f"R{i}", "host") for i in range(topo.racks)], links=[])


def _low_latency_transports(flows: Any) -> str:
    """The transports Opera's low-latency flows ran (the engine's per-flow `transport`; bulk flows run
    datagrams), e.g. "tcp" or "dctcp/ndp"; "tcp" when the run has no low-latency flow."""
    ran = sorted(set(flows["transport"].unique().astype(str)) - {"datagram", "udp"})
    return "/".join(ran) or "tcp"


def _summary_transport(fl: Any, tcp_ll: bool, bulk_reliable: bool, cutoff: int | None) -> str:
    """The run summary's `transport`: what the low-latency class and the bulk traffic ran."""
    if not bulk_reliable:
        if tcp_ll:
            return f"{_low_latency_transports(fl)} for Opera's low-latency class, datagrams for bulk"
        return "datagram (set transport.circuit_bulk = 'transport' for TCP, DCTCP or NDP on bulk traffic)"
    bulk = fl if cutoff is None else fl[fl["size_bytes"] >= cutoff]
    ran = "/".join(sorted(set(bulk["transport"].unique().astype(str)))) or "none"
    if tcp_ll:
        return f"{_low_latency_transports(fl[fl['size_bytes'] < cutoff])} for Opera's low-latency class, {ran} for bulk"
    return f"{ran} for bulk (from each source ToR's queue, sent again when lost)"


def endpoint_racks(topo: Any) -> list[int]:
    """The rack of each of a circuit fabric's workload endpoints, in `endpoint_network`'s host order: host h
    sits in rack h // hosts_per_rack; without hosts_per_rack each endpoint is its own rack."""
    from ..workload.racks import host_racks

    return host_racks(topo, topo.racks * (topo.hosts_per_rack or 1)).tolist()


def _host_delay(topo: Any) -> int:
    """The delay of a host link: topology.host_link_delay, else link_delay."""
    return topo.link_delay if topo.host_link_delay is None else topo.host_link_delay


def _packet_spec(topo: Any) -> dict[str, Any] | None:
    """The engine's `packet` when the scenario sets topology.frame_overhead (None: the engine's default of 24
    bytes of framing per packet on circuit fabrics, docs/models.md)."""
    if "frame_overhead" not in topo.model_fields_set:
        return None
    return {"frame_overhead_bytes": int(topo.frame_overhead)}


def _hosts_spec(topo: Any) -> dict[str, Any] | None:
    """The engine's `hosts`: each host linked to its ToR at the link rate and the host link delay; the host's
    NIC queue is topology.host_queue, the ToR's port down to it topology.queue (as a packet fabric's edge
    switch)."""
    if not topo.hosts_per_rack:
        return None
    out: dict[str, Any] = {
        "per_endpoint": topo.hosts_per_rack,
        "rate_bps": topo.link_rate,
        "delay_ps": _host_delay(topo),
    }
    if topo.host_queue is not None:
        out["nic_queue"] = topo.host_queue
    if topo.queue is not None:
        out["tor_queue"] = topo.queue
    return out


def simulate_circuit(sc: Any, net: Network, flows: Any, seed: int, progress: Any = None) -> Any:
    """Run a scenario on its circuit fabric: `flows` a `FlowColumns` (or a list of `Flow`), handed to the
    engine as column buffers."""
    from ..run import SimResult, observation_window_ps, tcp_spec

    topo = sc.topology
    if not isinstance(flows, FlowColumns):
        flows = FlowColumns.from_flows(list(flows))
    opera = None
    bulk_reliable = sc.transport.circuit_bulk == "transport"
    if topo.kind == "opera":
        from .opera_fabric import opera_from_topology, slice_ps
        from .opera_routes import opera_spec_table

        fabric, sched = opera_from_topology(topo)
        if sc.routing.scheme == "opera":
            # NDP's packets spray over every shortest path of the slice (docs/circuit-engine.md, routing
            # "opera"): only when some low-latency flow runs NDP, so other runs carry no spray table
            ndp_ll = bool(
                (_engine_transports(sc, flows, topo.cutoff, False) == TRANSPORTS.index("ndp")).any()
            )
            # routing.opera_paths: NDP's packets take listed paths instead (computed by the engine from the
            # slices' circuits)
            paths = sc.routing.opera_paths if ndp_ll else 0
            opera = opera_spec_table(sched, slice_ps(sched), topo.cutoff, spray=ndp_ll, paths=paths)
    else:
        fabric = build_fabric(topo)
    tcp_ll = opera is not None
    cutoff = opera["cutoff_bytes"] if opera is not None else None
    codes = _engine_transports(sc, flows, cutoff, bulk_reliable)
    used = frozenset(CIRCUIT_TRANSPORTS[int(c)] for c in np.flatnonzero(np.bincount(codes, minlength=1)))
    # Hosts are priced as on packet fabrics (the [power.hosts] ledger) from the engine's per-host windows.
    pricer = sc.power.host_pricer(sc.base_dir) if topo.hosts_per_rack else None
    n_hosts = topo.racks * (topo.hosts_per_rack or 1)
    window = sc.power.engine_window_ps(sc.run.stop_time, 4 * n_hosts) if pricer is not None else None
    spec = circuit_spec(
        fabric,
        [],
        sc.routing.scheme,
        seed=seed,
        stop_ps=sc.run.stop_time,
        delay_ps=topo.link_delay,
        opera=opera,
        # every segment acknowledged at once on circuits (our choice: no delayed ACKs there)
        tcp={**tcp_spec(sc.tcp), "delayed_ack": False} if tcp_ll or bulk_reliable else None,
        **(transport_specs(sc, used_transports(sc) | used) if tcp_ll or bulk_reliable else {}),
        hosts=_hosts_spec(topo),
        window_ps=observation_window_ps(sc, window),
        packet=_packet_spec(topo),
    )
    # Opera's low-latency class runs TCP, DCTCP or NDP as the workload asks; bulk traffic stays datagrams
    # unless transport.circuit_bulk = "transport"; the flows cross as column buffers
    spec["flows"] = FlowBuffers(
        flows.circuit_buffers(codes), lambda: _flows_json(flows, codes), used - {"datagram"}
    )
    out = run_circuit_spec(spec, progress, loc_map=_scenario_key)
    names = net.hosts
    fl = pd.DataFrame(out["flows"])
    same_rack = None
    src, dst = fl["src"].to_numpy(dtype=np.int64), fl["dst"].to_numpy(dtype=np.int64)
    if topo.hosts_per_rack:
        rack_of = np.asarray(endpoint_racks(topo), dtype=np.int64)
        same_rack = rack_of[src] == rack_of[dst]
    host_names = np.asarray(names, dtype=object)
    fl["src"] = host_names[src]
    fl["dst"] = host_names[dst]
    fl["start_s"] = fl["start_ps"] / PS_PER_S
    fl["fct_s"] = fl["fct_ps"].astype("float64") / PS_PER_S
    fl["throughput_bps"] = 8 * fl["size_bytes"] / fl["fct_s"]
    ids = fl["id"].to_numpy()
    if np.array_equal(ids, flows.id):  # the engine keeps the spec's order
        fl["class"] = flows.class_names()
    else:
        fl["class"] = fl["id"].map(dict(zip(flows.id.tolist(), flows.class_names())))
    # when the sender learnt every byte arrived (its last ACK), less the start; NaN: never, or datagrams
    fl["fct_ack_s"] = pd.to_numeric(fl["fct_ack_ps"], errors="coerce").astype("float64") / PS_PER_S
    fl = fl.drop(columns=[c for c in fl.columns if c.endswith("_ps")])
    hosts = out.get("hosts")
    racks = [f"R{i}" for i in range(topo.racks)] if hosts is not None else names
    ports = _frame(out["ports"])
    ports.insert(0, "from", ports["endpoint"].map(lambda i: racks[i]))
    ports.insert(1, "to", ports["switch"].map(lambda i: f"circuit{i}"))
    s = dict(out["summary"])
    sim_time_s = s.pop("sim_time_ps") / PS_PER_S
    ports["busy_s"] = ports.pop("busy_ps") / PS_PER_S
    ports["utilization"] = ports["busy_s"] / sim_time_s if sim_time_s > 0 else 0.0
    nodes = pd.DataFrame(
        [{"name": n, "kind": "rack"} for n in racks]
        + [{"name": f"circuit{i}", "kind": "circuit switch"} for i in range(len(fabric.switches))]
        + [{"name": n, "kind": "host"} for n in (names if hosts is not None else [])]
    )
    s["drops"] = s["no_circuit_drops"] + s.get("host_link_drops", 0)
    if hosts is not None:
        res_hosts = _host_table(hosts, names, racks, sim_time_s)
    else:
        res_hosts = None
    summary = {
        "scenario": sc.name,
        "seed": seed,
        "routing": sc.routing.scheme,
        "fabric": topo.kind,
        "transport": _summary_transport(fl, tcp_ll, bulk_reliable, cutoff),
        **({"opera_routing": OPERA_NOTES[sc.routing.scheme]} if topo.kind == "opera" else {}),
        "sim_time_s": sim_time_s,
        **s,
        "flows": len(flows),
    }
    res = SimResult(fl, ports, nodes, summary, sc)
    if res_hosts is not None:
        res.hosts = res_hosts
    attach(
        res,
        ideal_fct_circuit_s(
            topo.link_rate,
            topo.link_delay,
            fl["size_bytes"].to_numpy(),
            same_rack,
            host_delay_ps=_host_delay(topo),
            frame_bytes=24 if (p := _packet_spec(topo)) is None else p["frame_overhead_bytes"],
        ),
        sc.run.size_buckets,
    )
    nodes_in = [{"name": n, "kind": "host"} for n in names]
    host_w = sc.power.host_w if topo.hosts_per_rack else None
    hosts_at = None if host_w is None else (names, host_w)

    def priced(interval_ps: tuple[int, int] | None) -> HostEnergy | None:
        if pricer is None:
            return None
        doc = {"series": out["series"], "summary": out["summary"], "nodes": nodes_in}
        return pricer.price(doc, interval_ps=interval_ps)

    res.energy = fabric_energy(
        fabric,
        out["summary"],
        topo.circuit_switch_model,
        topo.tor_switch,
        hosts=priced(None),
        host_w=hosts_at,
    )
    if sc.run.window is not None:
        res.window_energy = fabric_energy(
            fabric,
            out,
            topo.circuit_switch_model,
            topo.tor_switch,
            sc.run.window,
            hosts=priced(sc.run.window),
            host_w=hosts_at,
        )
        res.summary.update(window_summary(res.window_energy))
    res.engine_results = out
    return res


def _flows_json(flows: FlowColumns, codes: np.ndarray) -> str:
    """The spec's `flows` as JSON text (for a caller that needs the spec as JSON): as `circuit_spec` writes
    them, `transport` left out for datagrams (the engine's default)."""
    import json

    rows = []
    for f, code in zip(flows, codes.tolist()):
        row = {"id": f.id, "src": f.src, "dst": f.dst, "size_bytes": f.size_bytes, "start_ps": f.start_ps}
        if CIRCUIT_TRANSPORTS[code] != "datagram":
            row["transport"] = CIRCUIT_TRANSPORTS[code]
        rows.append(row)
    return json.dumps(rows)


def _frame(table: Any) -> pd.DataFrame:
    """A results table as a DataFrame: from its columns when the engine handed it over as `Records`."""
    return table.table.to_pandas() if isinstance(table, Records) else pd.DataFrame(table)


def _host_table(hosts: Any, names: list[str], racks: list[str], sim_time_s: float) -> pd.DataFrame:
    """One row per host: its rack, what its NIC sent (bytes, packets, busy time, utilisation, drops) and what
    reached it (bytes, packets, payload bytes; the ToR's port down to it: busy time and drops)."""
    t = _frame(hosts)
    t.insert(0, "host", t.pop("host").map(lambda i: names[i]))
    t.insert(1, "rack", t.pop("endpoint").map(lambda i: racks[i]))
    t["busy_s"] = t.pop("busy_ps") / PS_PER_S
    t["rx_busy_s"] = t.pop("rx_busy_ps") / PS_PER_S
    t["utilization"] = t["busy_s"] / sim_time_s if sim_time_s > 0 else 0.0
    return t


def fabric_energy(
    fabric: CircuitFabric,
    summary: dict,
    circuit_switch: str,
    tor_switch: str | None,
    interval_ps: tuple[int, int] | None = None,
    hosts: HostEnergy | None = None,
    host_w: tuple[list[str], float] | None = None,
) -> EnergyReport:
    """The run's energy as the ledger reports it: every network device a switch at constant power, and, with
    hosts (topology.hosts_per_rack), every host priced as on a packet fabric: by the [power.hosts] models from
    the engine's per-host windows (`hosts`), or at a constant power.host_w (`host_w`: names and W). With
    `interval_ps` (run.window), over that window: `summary` is then the engine's whole results document."""
    from ..ledger import run_interval, window_interval

    if interval_ps is not None:
        e = network_energy(
            fabric, summary["summary"], circuit_switch, tor_switch, interval_ps, summary.get("series")
        )
    else:
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
    network = e["total_energy_j"]
    sim_s = e["sim_time_s"]
    # the energy's length: the run, or the observation window
    length_s = sim_s if interval_ps is None else (interval_ps[1] - interval_ps[0]) / PS_PER_S
    bits = e["delivered_bits"]
    host_rows: list[dict] = []
    note: dict = {
        "note": "hosts are not priced when the racks are the endpoints (set topology.hosts_per_rack)"
    }
    if hosts is not None:
        host_rows = host_devices(hosts, length_s)
        note = hosts_summary(hosts, length_s)
    elif host_w is not None:
        names, watts = host_w
        host_rows = [
            {
                "name": n,
                "kind": "node:host",
                "model": f"constant {watts} W",
                "avg_power_w": watts,
                "energy_j": watts * length_s,
            }
            for n in names
        ]
        note = {"note": f"hosts at a constant power.host_w = {watts} W", "hosts": len(names)}
    hosts_j = sum(d["energy_j"] for d in host_rows)
    total = network + hosts_j
    return EnergyReport(
        devices=devices + host_rows,
        sim_time_s=sim_s,
        total_energy_j=total,
        avg_power_w=total / length_s if host_rows and length_s > 0 else e["avg_power_w"],
        delivered_bits=bits,
        energy_per_bit_pj=total / bits * 1e12 if bits else None,
        hosts=note,
        split={
            "hosts_energy_j": hosts_j,
            "host_share": hosts_j / total if total > 0 else 0.0,
            "switches_energy_j": network,
            "links_energy_j": 0.0,
            "circuit_switches_energy_j": sum(
                d["energy_j"] for d in devices if d["name"].startswith("circuit switch")
            ),
            "tors_energy_j": sum(d["energy_j"] for d in devices if d["name"].startswith("tor")),
        },
        energy_per_bit_pj_without_hosts=e["energy_per_bit_pj"],
        interval=run_interval(e["sim_time_s"]) if interval_ps is None else window_interval(interval_ps),
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
