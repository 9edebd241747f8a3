"""Seed 003's two workloads (Kaymak & Rojas-Cessa, section 2.2, line 60).

Stated by the paper: static scenario = 0..5 long flows of 10 MB, one each from S0..S4, all to S15, plus one
200 KB short flow S0 -> S15; randomized scenario = 20 short flows and a varying number of long flows between
randomly selected source-destination pairs, other settings as in the static one. Ours: the pairs are drawn
uniformly with src != dst (the paper gives no distribution), long flows get ids first, then short flows."""

from __future__ import annotations

from ...core.errors import InputError
from .flow import STREAM_PAIRS, Flow, rng_for

__all__ = ["randomized", "static"]


def static(
    net,
    long_flows: int = 5,
    long_size: int = 10_000_000,
    short_size: int = 200_000,  # type: ignore[no-untyped-def]
    destination: str | int | None = None,
) -> list[Flow]:
    """Long flows from hosts 0..N-1 and one short flow from host 0, all to `destination` (the last host)."""
    hosts = net.hosts
    dst = net.host_index(destination, "workload.destination") if destination is not None else len(hosts) - 1
    sources = [i for i in range(len(hosts)) if i != dst][:long_flows]
    if len(sources) < long_flows:
        raise InputError(
            f"workload.long_flows: {long_flows} long flows need {long_flows} sources besides the "
            f"destination, this topology has {len(hosts) - 1}",
            hint="lower workload.long_flows",
        )
    flows = [Flow(i, s, dst, long_size, 0, "long") for i, s in enumerate(sources)]
    short_src = 0 if dst != 0 else 1
    flows.append(Flow(len(flows), short_src, dst, short_size, 0, "short"))
    return flows


def random_pairs(n_hosts: int, count: int, rng) -> list[tuple[int, int]]:  # type: ignore[no-untyped-def]
    """`count` (src, dst) pairs, each uniform over hosts with dst uniform over the other hosts."""
    if n_hosts < 2:
        raise InputError("workload: random pairs need at least 2 hosts", hint="use a larger topology")
    src = rng.integers(0, n_hosts, size=count)
    off = rng.integers(1, n_hosts, size=count)  # dst = src + off (mod n): never src, uniform over the rest
    return [(int(s), int((s + o) % n_hosts)) for s, o in zip(src, off)]


def randomized(
    net,
    long_flows: int = 5,
    short_flows: int = 20,
    long_size: int = 10_000_000,  # type: ignore[no-untyped-def]
    short_size: int = 200_000,
    seed: int = 1,
) -> list[Flow]:
    pairs = random_pairs(len(net.hosts), long_flows + short_flows, rng_for(seed, STREAM_PAIRS))
    return [
        Flow(i, s, d, long_size if i < long_flows else short_size, 0, "long" if i < long_flows else "short")
        for i, (s, d) in enumerate(pairs)
    ]
