"""Optical circuit-switched fabrics of seed 001 chapter 2: the schedule data model shared with the engine's spec
builder (`schedule`), SelectorNet (`selectornet`), RotorNet's circuits (`rotornet`) and RotorLB as a rack-level
fluid model (`rotorlb`). docs/selectornet.md and docs/rotornet.md say what comes from the thesis and what is
ours."""

from __future__ import annotations

from .schedule import CircuitFabric, Slot, SwitchSchedule

__all__ = ["CircuitFabric", "Slot", "SwitchSchedule"]
