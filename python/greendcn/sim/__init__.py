"""The datacenter network simulator: scenarios (TOML or dicts) -> topology and workload -> the Rust engine ->
per-flow, per-link and per-node tables -> the run's energy ledger; plus reproductions of seed papers' experiments.

Rooms: `scenario` (validation), `topology/` and `workload/` (what to build), `engine` (the only door to the
compiled engine), `run` (`simulate`, the whole pipeline; `reprice` prices a run again under other power
settings), `ledger` (joules from the engine's counters), `host_power` (the hosts' models, `[power.hosts]`),
`reproduce/` (seed experiments), `optical/` (circuit fabrics: schedules, SelectorNet, RotorNet, RotorLB's fluid
model, the circuit engine's specs and runs), `cli` (the `simulate`, `demo` and `reproduce` commands)."""

from __future__ import annotations

from .run import SimResult, reprice, simulate
from .scenario import Scenario, load_scenario, scenario_from_dict

__all__ = ["Scenario", "SimResult", "load_scenario", "reprice", "scenario_from_dict", "simulate"]
