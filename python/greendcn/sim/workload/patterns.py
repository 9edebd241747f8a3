"""Traffic patterns as columns: who sends each flow to whom, given the flows' sources or bursts.

Every function takes endpoint indices and a numpy Generator and returns int64 arrays; endpoints are numbered
rack by rack (`racks` non-decreasing, racks.py). The patterns (docs/workloads.md): uniform random pairs
(optionally inter-rack only, as the public Opera simulator's generator draws, or with a rack-local share),
permutation (one derangement for the whole run), stride x (i sends to i + x mod N; rolled by one every period),
random bijection re-drawn every period (seed 001 Figure 2.8, lines 705-711), incast (fan_in senders to one
receiver per burst), hot spot (a share of racks receives a share of the flows) and the all-to-all shuffle."""

from __future__ import annotations

import numpy as np

from ...core.errors import InputError
from .distributions import key_loc

__all__ = [
    "all_to_all",
    "bijection",
    "derangement",
    "hotspot",
    "incast",
    "permutation",
    "rack_bounds",
    "stride",
    "uniform",
]


def rack_bounds(racks: np.ndarray, hosts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First endpoint and size of each given endpoint's rack."""
    first = np.searchsorted(racks, racks[hosts], side="left")
    end = np.searchsorted(racks, racks[hosts], side="right")
    return first, end - first


def derangement(n: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random permutation of 0..n-1 without fixed points, by rejection (about e tries)."""
    idx = np.arange(n)
    while True:
        p = rng.permutation(n)
        if not (p == idx).any():
            return p


def uniform(
    src: np.ndarray, racks: np.ndarray, rng: np.random.Generator, rack_local: float | None, inter_rack: bool
) -> np.ndarray:
    """A destination for each source: uniform over the other endpoints; with `inter_rack`, over the endpoints
    of other racks; with a `rack_local` share p, over the source's rack-mates with probability p, else over
    the other racks."""
    n_hosts = len(racks)
    if rack_local is None and not inter_rack:
        return (src + rng.integers(1, n_hosts, size=len(src))) % n_hosts
    first, size = rack_bounds(racks, src)
    local = np.zeros(len(src), dtype=bool) if rack_local is None else rng.random(len(src)) < rack_local
    # another rack: a uniform index among the n_hosts - size endpoints outside the rack, skipping the block
    j = (rng.random(len(src)) * (n_hosts - size)).astype(np.int64)
    remote = np.where(j < first, j, j + size)
    # the same rack: a uniform rack-mate
    k = (rng.random(len(src)) * np.maximum(size - 1, 1)).astype(np.int64)
    offset = src - first
    mate = first + np.where(k < offset, k, k + 1)
    return np.where(local, mate, remote)


def hotspot(
    src: np.ndarray,
    racks: np.ndarray,
    rng: np.random.Generator,
    hot_racks: float,
    hot_share: float,
    where: str = "workload",
) -> tuple[np.ndarray, np.ndarray]:
    """Destinations and the hot racks: ceil(hot_racks x racks) racks, drawn at random, receive each flow with
    probability hot_share (uniform over their endpoints), the other racks the rest (uniform over theirs);
    never the source itself."""
    n_racks = int(racks[-1]) + 1
    n_hot = max(1, int(np.ceil(hot_racks * n_racks - 1e-9)))
    if n_hot >= n_racks:
        raise InputError(
            f"{where}.hot_racks: {hot_racks:g} of {n_racks} racks leaves no other rack",
            hint="choose a share below 1 - 1/racks",
            loc=key_loc(where, "hot_racks"),
        )
    hot = np.sort(rng.choice(n_racks, size=n_hot, replace=False))
    is_hot = np.isin(racks, hot)
    pools = (np.flatnonzero(is_hot), np.flatnonzero(~is_hot))
    for pool, name in zip(pools, ("hot", "other")):
        if len(pool) < 2:
            raise InputError(
                f"{where}.hot_racks: the {name} racks hold {len(pool)} endpoint; a flow needs another one",
                hint="choose more hot racks or a larger topology",
                loc=key_loc(where, "hot_racks"),
            )
    to_hot = rng.random(len(src)) < hot_share
    dst = np.empty(len(src), dtype=np.int64)
    for pool, mask in ((pools[0], to_hot), (pools[1], ~to_hot)):
        s = src[mask]
        pos = np.searchsorted(pool, s)
        inside = (pos < len(pool)) & (pool[np.minimum(pos, len(pool) - 1)] == s)
        # a source inside the pool draws among the others; one outside among all
        j = (rng.random(len(s)) * (len(pool) - inside)).astype(np.int64)
        j = np.where(inside & (j >= pos), j + 1, j)
        dst[mask] = pool[j]
    return dst, hot


def permutation(src: np.ndarray, n_hosts: int, rng: np.random.Generator) -> np.ndarray:
    """One random derangement for the whole run: host i always sends to pi(i) != i."""
    return derangement(n_hosts, rng)[src]


def stride(src: np.ndarray, n_hosts: int, x: int, roll: np.ndarray | None) -> np.ndarray:
    """i sends to i + x (mod N); with `roll` (each flow's period index), the stride of period p is the
    (x + p)-th of 1..N-1 in turn (a rolling stride, never 0)."""
    if roll is None:
        return (src + x) % n_hosts
    eff = 1 + (x - 1 + roll) % (n_hosts - 1)
    return (src + eff) % n_hosts


def bijection(src: np.ndarray, n_hosts: int, period: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A fresh random derangement in every period (each flow's period index): within a period every source
    sends to one destination and every destination hears from one source."""
    dst = np.empty(len(src), dtype=np.int64)
    order = np.argsort(period, kind="stable")
    ps = period[order]
    cuts = np.flatnonzero(np.diff(ps)) + 1
    for group in np.split(order, cuts):
        if len(group):
            dst[group] = derangement(n_hosts, rng)[src[group]]
    return dst


def incast(
    n_bursts: int, fan_in: int, n_hosts: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Bursts of fan_in flows, each burst from fan_in distinct senders to one receiver, all drawn at random;
    a burst's flows are consecutive rows. Senders: the fan_in smallest of N - 1 random keys per burst (a
    uniform subset), in chunks of about four million keys."""
    receivers = rng.integers(0, n_hosts, size=n_bursts)
    senders = np.empty((n_bursts, fan_in), dtype=np.int64)
    others = n_hosts - 1
    step = max(1, 2**22 // others)
    for lo in range(0, n_bursts, step):
        hi = min(n_bursts, lo + step)
        keys = rng.random((hi - lo, others))
        if fan_in < others:
            senders[lo:hi] = np.argpartition(keys, fan_in - 1, axis=1)[:, :fan_in]
        else:
            senders[lo:hi] = np.argsort(keys, axis=1)
    senders = np.where(senders >= receivers[:, None], senders + 1, senders)
    return senders.reshape(-1), np.repeat(receivers, fan_in)


def all_to_all(racks: np.ndarray, inter_rack: bool) -> tuple[np.ndarray, np.ndarray]:
    """Every ordered pair of distinct endpoints once (of distinct racks with `inter_rack`), source-major."""
    n = len(racks)
    src = np.repeat(np.arange(n, dtype=np.int64), n)
    dst = np.tile(np.arange(n, dtype=np.int64), n)
    keep = racks[src] != racks[dst] if inter_rack else src != dst
    return src[keep], dst[keep]
