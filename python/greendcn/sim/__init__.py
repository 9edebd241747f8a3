"""The datacenter network simulator: scenarios (TOML or dicts) -> topology and workload -> the Rust engine ->
per-flow, per-link and per-node tables -> the run's energy ledger; plus reproductions of seed papers' experiments.

Rooms: `scenario` (validation), `topology/` and `workload/` (what to build), `engine` (the only door to the
compiled engine), `run` (`simulate`, the whole pipeline), `ledger` (joules from the engine's counters),
`reproduce/` (seed experiments), `optical/` (circuit-fabric schedules, SelectorNet, RotorNet, RotorLB's fluid
model), `cli` (the `simulate`, `demo` and `reproduce` commands)."""

from __future__ import annotations

from .run import SimResult, simulate
from .scenario import Scenario, load_scenario, scenario_from_dict

__all__ = ["Scenario", "SimResult", "load_scenario", "scenario_from_dict", "simulate"]
