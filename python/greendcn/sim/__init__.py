"""The datacenter network simulator: scenarios (TOML or dicts) -> topology and workload -> the Rust engine ->
per-flow, per-link and per-node tables -> the run's energy ledger; plus reproductions of seed papers' experiments.

Rooms: `scenario` (validation), `topology/` and `workload/` (what to build), `engine` (the only door to the
compiled engine), `run` (`simulate`, the whole pipeline; `reprice` prices a run again under other power
settings), `ledger` (joules from the engine's counters), `host_power` (the hosts' models, `[power.hosts]`),
`reproduce/` (seed experiments), `optical/` (circuit fabrics: schedules, SelectorNet, RotorNet, RotorLB's fluid
model, the circuit engine's specs and runs), `cli` (the `simulate`, `demo` and `reproduce` commands)."""

from __future__ import annotations

from ..core.lazy import lazy_getattr

# Loaded when first used (pandas and the engine come with `run`): `greendcn.sim.cli` and the lighter modules
# of this package import without them.
_LAZY = {
    "SimResult": ".run",
    "reprice": ".run",
    "simulate": ".run",
    "Scenario": ".scenario",
    "load_scenario": ".scenario",
    "scenario_from_dict": ".scenario",
}


__getattr__ = lazy_getattr(__name__, _LAZY, globals())


__all__ = ["Scenario", "SimResult", "load_scenario", "reprice", "scenario_from_dict", "simulate"]
