"""Run one scenario through the engine and return its results as DataFrames (seconds here, picoseconds only
inside the engine spec)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..core.errors import InputError
from .ledger import EnergyReport, run_energy
from .scenario import Scenario, load_scenario, scenario_from_dict
from .topology import Network, build_topology
from ..core.units import PS_PER_S
from .workload import Flow, build_workload, read_flows_csv

__all__ = ["SimResult", "as_scenario", "build_spec", "simulate"]


@dataclass
class SimResult:
    """Per-flow, per-link-direction and per-node tables, a one-run summary (dict), and the run's energy
    priced by the scenario's [power] table (greendcn.power.run_energy)."""
    flows: pd.DataFrame
    links: pd.DataFrame
    nodes: pd.DataFrame
    summary: dict[str, Any]
    scenario: Scenario = field(repr=False)
    energy: EnergyReport | None = field(default=None, repr=False)

    def to_json(self) -> dict[str, Any]:
        """The JSON document of `greendcn simulate --json`: flows, links, nodes, summary, energy."""
        from ..core.clitools import to_jsonable

        return to_jsonable({"flows": self.flows, "links": self.links, "nodes": self.nodes,
                            "summary": self.summary, "scenario": self.scenario.raw,
                            "energy": None if self.energy is None else self.energy.to_dict()})


def as_scenario(scenario: Scenario | dict[str, Any] | str | Path) -> Scenario:
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, dict):
        return scenario_from_dict(scenario)
    return load_scenario(scenario)


def build_spec(sc: Scenario, net: Network, flows: list[Flow], seed: int) -> dict[str, Any]:
    """The engine's input document (docs/engine-spec.md)."""
    t = sc.tcp
    return {
        "seed": seed,
        "routing": sc.routing.scheme,
        **net.to_spec(),
        "flows": [f.to_spec() for f in flows],
        "tcp": {"mss": t.mss, "header_bytes": t.header_bytes, "initial_window": t.initial_window,
                "min_rto_ps": t.min_rto, "initial_rto_ps": t.initial_rto, "max_rto_ps": t.max_rto,
                "dupack_threshold": t.dupack_threshold, "max_window_bytes": t.max_window,
                "delayed_ack": t.delayed_ack, "delayed_ack_timeout_ps": t.delayed_ack_timeout},
        "frame_overhead_bytes": sc.topology.frame_overhead,
        "stop_ps": sc.run.stop_time,
        **({"stats_window_ps": sc.power.window} if sc.power.window else {}),
    }


def simulate(scenario: Scenario | dict[str, Any] | str | Path, seed: int | None = None,
             flows: str | Path | list[Flow] | None = None,
             overrides: list[str] | dict[str, Any] | None = None) -> SimResult:
    """Simulate a scenario (object, raw dict or TOML path) once.

    `seed` replaces `run.seed`; `flows` (a CSV path or a list of Flow) replaces the workload; `overrides`
    are `--set` style dotted keys, validated like the file.

    >>> res = simulate({"routing": {"scheme": "rps"},
    ...                 "workload": {"kind": "static", "long_flows": 1, "long_size": "1MB"}}, seed=2)
    >>> res.flows[["src", "dst", "size_bytes", "class"]].values.tolist()
    [['S0', 'S15', 1000000, 'long'], ['S0', 'S15', 200000, 'short']]
    >>> bool(res.flows["fct_s"].notna().all()), res.summary["routing"]
    (True, 'rps')
    """
    from .engine import run_spec

    sc = as_scenario(scenario)
    if overrides:
        sc = sc.with_overrides(overrides)
    seed = sc.run.seed if seed is None else seed
    if seed < 0:
        raise InputError(f"seed must be >= 0, got {seed}", hint="give a non-negative integer seed")
    net = build_topology(sc.topology)
    if flows is None:
        flow_list = build_workload(sc, net, seed)
    elif isinstance(flows, (str, Path)):
        flow_list = read_flows_csv(flows, net)
    else:
        flow_list = list(flows)
    if not flow_list:
        raise InputError("workload: no flows to simulate", hint="give at least one flow")
    models = sc.power.models(sc.base_dir)  # before the run, so a bad [power] table fails at once
    out = run_spec(build_spec(sc, net, flow_list, seed))
    res = _results(sc, net, flow_list, seed, out)
    res.energy = run_energy(out, models)
    return res


def _results(sc: Scenario, net: Network, flows: list[Flow], seed: int, out: dict[str, Any]) -> SimResult:
    names = [n.name for n in net.nodes]
    cls = {f.id: f.cls for f in flows}
    fl = pd.DataFrame(out["flows"])
    fl["src"] = fl["src"].map(lambda i: names[i])
    fl["dst"] = fl["dst"].map(lambda i: names[i])
    fl["start_s"] = fl["start_ps"] / PS_PER_S
    fl["fct_s"] = fl["fct_ps"].astype("float64") / PS_PER_S  # null (never finished) becomes NaN
    fl["throughput_bps"] = 8 * fl["size_bytes"] / fl["fct_s"]
    fl["class"] = fl["id"].map(cls)
    first = ["id", "src", "dst", "size_bytes", "start_s", "fct_s", "throughput_bps", "retransmits",
             "spurious_retransmits", "ooo_packets", "packets_received", "class"]
    fl = fl[first + [c for c in fl.columns if c not in first and not c.endswith("_ps")]]

    li = pd.DataFrame(out["links"])
    li["from"] = li["from"].map(lambda i: names[i])
    li["to"] = li["to"].map(lambda i: names[i])
    li["busy_s"] = li.pop("busy_ps") / PS_PER_S
    rates = [net.links[i].rate_bps for i in li["link"]]
    li["rate_bps"] = rates

    no = pd.DataFrame(out["nodes"])
    s = dict(out["summary"])
    sim_time_s = s.pop("sim_time_ps") / PS_PER_S
    li["utilization"] = li["busy_s"] / sim_time_s if sim_time_s > 0 else 0.0
    summary = {"scenario": sc.name, "seed": seed, "routing": sc.routing.scheme, "sim_time_s": sim_time_s, **s,
               "flows": len(flows)}
    return SimResult(fl, li, no, summary, sc)
