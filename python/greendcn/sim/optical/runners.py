"""Packet-level runners for the optical reproductions: they simulate demand matrices on the circuit engine
(`packet.run_fabric`) and return throughput in the same terms as the fluid and analytic models beside them.

SelectorNet: each matrix runs on our schedule for it (`selectornet.build_selectornet`) with our routes
(`selectornet.routes_for`) given to the engine as hop offsets; every flow sends at the scheduler's predicted
rate for it (its share of the matrix times the predicted per-host maximum, in payload bits), so the run shows
whether the fabric sustains what the scheduler promises. Throughput is counted as data bits on the wire
(payload, headers and framing of the delivered packets), the basis of the prediction (the link goodput).

RotorNet: every heavy connection is a backlogged flow; RotorLB and one-hop run the same matrix; throughput is
the payload delivered per second over whole cycles after a warm-up (our defaults: 2 warm-up cycles, 4 measured;
the fluid model's 6 + 6 would triple the time for ratios that agree within 1 % on the matrices we tried)."""

from __future__ import annotations

import numpy as np

from ...core.errors import InputError
from ...host.tdma.model import LagLaw
from .packet import run_fabric
from .schedule import CircuitFabric
from .selectornet import SelectorTiming, build_selectornet, predicted_per_host_bps, routes_for

__all__ = ["rotornet_packet_runner", "selectornet_packet_runner", "simulate_selector_matrix"]

BACKLOGGED_BYTES = 1 << 50  # a heavy connection: more than any run can send
PAYLOAD, HEADERS, FRAMING = 1472, 28, 24  # the circuit engine's default packet (docs/circuit-engine.md)
WIRE_PER_PAYLOAD = (PAYLOAD + HEADERS + FRAMING) / PAYLOAD


def simulate_selector_matrix(
    demand: np.ndarray,
    timing: SelectorTiming,
    *,
    warmup_cycles: int = 2,
    measure_cycles: int = 4,
    lag: LagLaw | None = None,
    seed: int = 0,
) -> dict[str, float]:
    """One demand matrix on SelectorNet: simulated and predicted per-host throughput (wire bits/s)."""
    demand = np.asarray(demand)
    n = demand.shape[0]
    predicted = predicted_per_host_bps(demand, timing)
    fabric = build_selectornet(demand, timing)
    total = float(demand.sum())
    flows = []
    for (s, d), hops in sorted(routes_for(demand).items()):
        share = float(demand[s, d]) / total * n  # of one host's throughput
        flows.append(
            {
                "src": s,
                "dst": d,
                "size_bytes": BACKLOGGED_BYTES,
                "rate_bps": predicted * share / WIRE_PER_PAYLOAD,
                "route_offsets": [off for _, off in hops],
            }
        )
    if lag is None:
        # The hosts' fixed lag, covered by the preallocation (the reproduction's default).
        lag_ps = timing.prealloc_ps if timing.lag_ps is None else timing.lag_ps
        lag = LagLaw(d0_s=lag_ps * 1e-12)
    cycle = fabric.switches[0].cycle_ps()
    run = run_fabric(
        fabric,
        flows,
        "selector",
        duration_ps=(warmup_cycles + measure_cycles) * cycle,
        warmup_ps=warmup_cycles * cycle,
        lag=lag,
        seed=seed,
    )
    simulated = run.throughput["per_endpoint_bps"] * WIRE_PER_PAYLOAD
    return {
        "simulated_per_host_bps": simulated,
        "predicted_per_host_bps": predicted,
        "no_circuit_drops": run.summary["no_circuit_drops"],
    }


def selectornet_packet_runner(max_matrices: int = 3, **kwargs):
    """A `reproduce selectornet` packet runner: simulates the first `max_matrices` matrices of a workload (our
    choice, for time: the bijection workload has 1,000) and aggregates them as the prediction does (one
    matrix; the mean over strides; the harmonic mean over bijections, whose volumes are served back to back).
    Returns (simulated, predicted on the same matrices), per host in wire bits/s."""
    if max_matrices < 1:
        raise InputError(f"max_matrices: need at least 1, got {max_matrices}", hint="e.g. 3")

    def run(workload: str, demands: list[np.ndarray], timing: SelectorTiming) -> tuple[float, float]:
        picked = demands[:max_matrices]
        if workload == "rolling-stride" and len(demands) > max_matrices:
            # spread over the strides rather than the first few (small strides have few hops)
            idx = np.linspace(0, len(demands) - 1, max_matrices).round().astype(int)
            picked = [demands[i] for i in idx]
        res = [simulate_selector_matrix(d, timing, **kwargs) for d in picked]
        sim = np.array([r["simulated_per_host_bps"] for r in res])
        pred = np.array([r["predicted_per_host_bps"] for r in res])
        if workload == "random-bijection":
            return float(len(sim) / np.sum(1 / sim)), float(len(pred) / np.sum(1 / pred))
        return float(sim.mean()), float(pred.mean())

    return run


def rotornet_packet_runner(
    warmup_cycles: int = 2, measure_cycles: int = 4, delay_ps: int = 500_000, seed: int = 0
):
    """A `reproduce rotornet` packet runner: (fabric, demand with np.inf for heavy connections, rotorlb) ->
    payload bits/s delivered in steady state."""

    def run(fabric: CircuitFabric, demand: np.ndarray, rotorlb: bool) -> float:
        src, dst = np.nonzero(np.asarray(demand) > 0)
        flows = [
            {"src": int(s), "dst": int(d), "size_bytes": BACKLOGGED_BYTES}
            for s, d in zip(src, dst, strict=True)
            if s != d
        ]
        cycle = fabric.switches[0].cycle_ps()
        r = run_fabric(
            fabric,
            flows,
            "rotorlb" if rotorlb else "direct",
            duration_ps=(warmup_cycles + measure_cycles) * cycle,
            warmup_ps=warmup_cycles * cycle,
            delay_ps=delay_ps,
            seed=seed,
        )
        return float(r.throughput["payload_bps"])

    return run
