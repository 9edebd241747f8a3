"""Packet-level runs of a circuit fabric: a `CircuitFabric` (schedule.py) and flows in, the engine's circuit
simulator (crates/engine/src/circuit, docs/circuit-engine.md) in the middle, throughput and energy out.

Energy here is the network's: every circuit switch and every endpoint's ToR packet switch draws its constant
power from the switch table (seed 001 Table 2.1 found no difference between idle and loaded, line 470) for the
whole run. Defaults: selector switch v1 for the circuit switches (the thesis uses it for SelectorNet and
RotorNet, line 472) and the SN2700 for the ToRs (our choice: the smaller of Table 2.1's two packet switches).
Hosts are priced by the simulated-host ledger of the packet engine, not here."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ...core.errors import InputError
from ...host.tdma.model import LagLaw
from ..engine import run_circuit_spec
from .energy import fabric_power
from .schedule import CircuitFabric

__all__ = ["ROUTINGS", "FabricRun", "circuit_spec", "network_energy", "run_fabric"]

ROUTINGS = ("direct", "rotorlb", "selector", "opera")
PS_PER_S = 1_000_000_000_000


@dataclass
class FabricRun:
    summary: dict[str, Any]
    flows: pd.DataFrame
    ports: pd.DataFrame
    throughput: dict[str, float]
    energy: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": self.summary,
            "throughput": self.throughput,
            "energy": self.energy,
            "flows": self.flows.to_dict(orient="records"),
        }


def _ps(seconds: float) -> int:
    return int(round(seconds * PS_PER_S))


def circuit_spec(
    fabric: CircuitFabric,
    flows: Iterable[Mapping[str, Any]],
    routing: str,
    *,
    seed: int = 0,
    stop_ps: int | None = None,
    delay_ps: int = 0,
    lag: LagLaw | None = None,
    window_ps: int | None = None,
    opera: dict[str, Any] | None = None,
    tcp: dict[str, Any] | None = None,
    hosts: dict[str, Any] | None = None,
    ndp: dict[str, Any] | None = None,
    dctcp: dict[str, Any] | None = None,
    packet: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The engine's circuit spec. `hosts` puts hosts behind the endpoints (the spec's `hosts`: per_endpoint,
    rate_bps, delay_ps, nic_queue, tor_queue; docs/circuit-engine.md), and flows then name hosts. `opera` is the routing table entry of routing "opera"
    (`opera_routes.opera_spec_table`). Flows are mappings with src, dst, size_bytes and optionally rate_bps (a cap;
    absent = backlogged), start_ps and (selector routing) route_offsets. `lag` is the hosts' send-to-wire lag law (issue 12's TDMA model); with
    none, packets reach the wire exactly when handed over, and the preallocation is the fabric's."""
    if routing not in ROUTINGS:
        raise InputError(f"routing: {routing!r} is not one of {', '.join(ROUTINGS)}", hint="routing=rotorlb")
    kind = "selector" if fabric.kind == "selectornet" else "rotor"
    switches = []
    for sw in fabric.switches:
        matchings: list[tuple[int, ...]] = []
        slots = []
        for slot in sw.slots:
            if slot.matching not in matchings:
                matchings.append(slot.matching)
            slots.append(
                {
                    "matching": matchings.index(slot.matching),
                    "uptime_ps": slot.uptime_ps,
                    "reconfig_ps": slot.reconfig_ps,
                }
            )
        switches.append(
            {"kind": kind, "matchings": [list(m) for m in matchings], "slots": slots, "phase_ps": sw.phase_ps}
        )
    tdma: dict[str, Any] = {"guard_ps": fabric.guard_ps, "prealloc_ps": fabric.prealloc_ps}
    if lag is not None:
        tdma.update(
            lag_ps=_ps(lag.d0_s),
            jitter_mean_ps=_ps(lag.jitter_mean_s),
            stall_prob=lag.stall_prob,
            stall_ps=_ps(lag.stall_mean_s),
            stall_law=lag.stall_law,
        )
    spec_flows = []
    for i, f in enumerate(flows):
        row = {"id": int(f.get("id", i)), "src": int(f["src"]), "dst": int(f["dst"])}
        row["size_bytes"] = int(f["size_bytes"])
        row["start_ps"] = int(f.get("start_ps", 0))
        if f.get("rate_bps") is not None:
            row["rate_bps"] = max(1, int(f["rate_bps"]))
        if f.get("route_offsets") is not None:
            row["route_offsets"] = [int(o) for o in f["route_offsets"]]
        if f.get("transport") is not None:
            row["transport"] = str(f["transport"])
        spec_flows.append(row)
    spec: dict[str, Any] = {
        "seed": seed,
        "endpoints": fabric.endpoints,
        "link_rate_bps": fabric.link_rate_bps,
        "delay_ps": delay_ps,
        "switches": switches,
        "routing": routing,
        "tdma": tdma,
        "flows": spec_flows,
    }
    if opera is not None:
        spec["opera"] = opera
    if tcp is not None:
        spec["tcp"] = tcp
    if ndp is not None:
        spec["ndp"] = ndp  # NDP flows: queue, header_bytes, initial_window, pull_pacer
    if dctcp is not None:
        spec["dctcp"] = dctcp  # DCTCP flows of Opera's low-latency class: k_packets, g, initial_alpha
    if packet is not None:
        spec["packet"] = packet  # packet sizes and framing (the engine's defaults for keys left out)
    if hosts is not None:
        spec["hosts"] = hosts
    if stop_ps is not None:
        spec["stop_ps"] = stop_ps
    if window_ps is not None:
        spec["stats_window_ps"] = window_ps
    return spec


def run_fabric(
    fabric: CircuitFabric,
    flows: Iterable[Mapping[str, Any]],
    routing: str,
    *,
    duration_ps: int,
    warmup_ps: int = 0,
    window_ps: int | None = None,
    seed: int = 0,
    delay_ps: int = 0,
    lag: LagLaw | None = None,
    circuit_switch: str = "selector_v1",
    tor_switch: str | None = "sn2700",
    progress: Callable[..., object] | None = None,
) -> FabricRun:
    """Run `flows` on `fabric` for `duration_ps` and measure the steady state after `warmup_ps`.

    Throughput is the payload delivered per second over [warmup, duration), in bits per second and as a
    share of the endpoints' total uplink rate (one uplink per switch). `window_ps` defaults to one cycle of
    the first switch, so the measurement averages over whole cycles when warmup and duration are multiples."""
    if duration_ps <= 0 or not 0 <= warmup_ps < duration_ps:
        raise InputError(
            f"duration_ps / warmup_ps: need 0 <= warmup < duration, got {warmup_ps} and {duration_ps}",
            hint="measure over at least one cycle after the warm-up",
        )
    cycle = fabric.switches[0].cycle_ps()
    window = window_ps or cycle
    spec = circuit_spec(
        fabric, flows, routing, seed=seed, stop_ps=duration_ps, delay_ps=delay_ps, lag=lag, window_ps=window
    )
    res = run_circuit_spec(spec, progress, loc_map=lambda loc: ("fabric", *loc))
    summary = res["summary"]
    rx = np.asarray(res["series"]["endpoint_payload_bytes_received"], dtype=np.float64)
    first = math.ceil(warmup_ps / window)
    last = duration_ps // window  # whole windows only
    span_s = (last - first) * window / PS_PER_S
    delivered = float(rx[:, first:last].sum()) if last > first and rx.size else 0.0
    bps = delivered * 8 / span_s if span_s > 0 else 0.0
    capacity = fabric.endpoints * len(fabric.switches) * fabric.link_rate_bps
    throughput = {
        "payload_bps": bps,
        "per_endpoint_bps": bps / fabric.endpoints,
        "share_of_uplink_capacity": bps / capacity,
        "measured_from_ps": first * window,
        "measured_to_ps": last * window,
    }
    energy = network_energy(fabric, summary, circuit_switch, tor_switch)
    flows_df = pd.DataFrame(res["flows"])
    ports_df = pd.DataFrame(res["ports"])
    return FabricRun(summary=summary, flows=flows_df, ports=ports_df, throughput=throughput, energy=energy)


def network_energy(
    fabric: CircuitFabric,
    summary: dict,
    circuit_switch: str,
    tor_switch: str | None,
    interval_ps: tuple[int, int] | None = None,
    series: dict | None = None,
) -> dict:
    """The run's network energy: the fabric's devices (`energy.fabric_power`) at constant power for the run's
    simulated time, per device and in total, with pJ per delivered payload bit. With `interval_ps` = (start,
    end) (run.window), over that window instead, busy or idle, with the payload delivered in it (from the
    engine's per-window `series`; None without it)."""
    sim_s = summary["sim_time_ps"] / PS_PER_S
    length_s = sim_s if interval_ps is None else (interval_ps[1] - interval_ps[0]) / PS_PER_S
    power = fabric_power(len(fabric.switches), fabric.endpoints, tor_switch, circuit_switch=circuit_switch)
    devices = [{**d, "energy_j": d["power_w"] * length_s} for d in power.devices]
    total_j = sum(d["energy_j"] for d in devices)
    bits = summary["payload_bytes_delivered"] * 8
    if interval_ps is not None:
        from ..ledger import in_interval, interval_weights

        rows = (series or {}).get("endpoint_payload_bytes_received")
        bits = None
        if rows is not None:
            idx, frac = interval_weights(series["window_ps"], interval_ps)  # type: ignore[index]
            bits = int(round(8 * in_interval(rows, idx, frac).sum()))
    return {
        "sim_time_s": sim_s,
        "devices": devices,
        "avg_power_w": power.power_w,
        "total_energy_j": total_j,
        "delivered_bits": bits,
        "energy_per_bit_pj": total_j / bits * 1e12 if bits else None,
        "hosts": "excluded (this ledger prices the network's devices)",
    }
