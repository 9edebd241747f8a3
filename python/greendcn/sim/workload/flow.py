"""A flow as the engine sees it (hosts by node index, times in picoseconds), and the seeded generators."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

__all__ = ["STREAM_JITTER", "STREAM_PAIRS", "Flow", "add_start_jitter", "rng_for"]

# Each random choice of a workload draws from its own stream of the run's seed, so changing one (say, the
# jitter) never shifts another (the pairs).
STREAM_PAIRS = 1
STREAM_JITTER = 2


def rng_for(seed: int, stream: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([int(seed), stream]))


@dataclass(frozen=True)
class Flow:
    id: int
    src: int
    dst: int
    size_bytes: int
    start_ps: int = 0
    cls: str = "flow"
    transport: str = "tcp"
    rate_bps: int | None = None

    def to_spec(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "src": self.src,
            "dst": self.dst,
            "size_bytes": self.size_bytes,
            "start_ps": self.start_ps,
            "transport": self.transport,
            "rate_bps": self.rate_bps,
        }


def add_start_jitter(flows: list[Flow], jitter_ps: int, seed: int) -> list[Flow]:
    """Delay each flow's start by a uniform draw in [0, jitter_ps]; jitter 0 leaves the flows untouched."""
    if jitter_ps <= 0:
        return flows
    draws = rng_for(seed, STREAM_JITTER).integers(0, jitter_ps, size=len(flows), endpoint=True)
    return [replace(f, start_ps=f.start_ps + int(d)) for f, d in zip(flows, draws)]
