"""Experiments that reproduce the seed papers' headline results: one module per paper."""

from __future__ import annotations

from .metrics import run_metrics
from .rps import RpsConfig, reproduce_rps, seed003_scenario

__all__ = ["run_metrics", "RpsConfig", "reproduce_rps", "seed003_scenario"]
