"""Experiments that reproduce the seed papers' headline results: one module per paper."""

from __future__ import annotations

from .metrics import run_metrics
from .rps import RpsConfig, reproduce_rps, seed003_scenario

__all__ = ["RpsConfig", "reproduce_rps", "run_metrics", "seed003_scenario"]
