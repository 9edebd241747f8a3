"""Random permutation traffic: every host sends one flow and receives one, never to itself."""

from __future__ import annotations

from ...core.errors import InputError
from .flow import STREAM_PAIRS, Flow, rng_for

__all__ = ["derangement", "permutation"]


def derangement(n: int, seed: int) -> list[int]:
    """A uniformly random permutation without fixed points, by rejection (about e tries on average)."""
    if n < 2:
        raise InputError("workload: a permutation needs at least 2 hosts", hint="use a larger topology")
    rng = rng_for(seed, STREAM_PAIRS)
    for _ in range(10_000):
        p = rng.permutation(n)
        if not (p == range(n)).any():
            return [int(x) for x in p]
    raise RuntimeError("no derangement found")  # probability about (1 - 1/e)^10000: never


def permutation(net, size_bytes: int, seed: int, flow_class: str = "long") -> list[Flow]:  # type: ignore[no-untyped-def]
    perm = derangement(len(net.hosts), seed)
    return [Flow(i, i, d, size_bytes, 0, flow_class) for i, d in enumerate(perm)]
