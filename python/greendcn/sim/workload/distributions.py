"""Flow-size distributions as CDF tables (size, cumulative probability): the three shipped ones and user files.

Shipped (python/greendcn/sim/workload/data/, sources in docs/data-licences.md): web search (Alizadeh et al.,
DCTCP, SIGCOMM 2010), data mining (Greenberg et al., VL2, SIGCOMM 2009) and Facebook's Hadoop inter-rack flows
(Roy et al., SIGCOMM 2015), the three workloads behind Opera's low-latency threshold (seed 001 line 947), as
the public Opera simulator tabulates them (TritonNetworking/opera-sim, Figure1_traffic, BSD-3-Clause).

Two readings of a table (docs/workloads.md):
- "points": a flow has the size of table point j with probability p_j - p_(j-1) (p_(-1) = 0). This is how the
  public simulator's generator draws (the first point whose cumulative probability reaches a uniform draw,
  generate_traffic.m) and how it computes the mean that sets its arrival rate. Our default, so that a load
  means the same flows per second as there.
- "interpolate": linear between points (a point's own probability p_0 stays an atom at the first size)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from ...core.errors import InputError
from ...core.userfile import read_text

__all__ = [
    "PERCENTILES",
    "SAMPLINGS",
    "SHIPPED",
    "SizeDistribution",
    "fixed_size",
    "load_distribution",
    "read_cdf_text",
]

SAMPLINGS = ("points", "interpolate")


def key_loc(where: str, *keys: str) -> tuple[str | int, ...]:
    """A dotted key with indices ("workload.components[1]", "load") as an error location tuple."""
    out: list[str | int] = []
    for part in [*where.split("."), *keys]:
        name, _, rest = part.partition("[")
        out.append(name)
        out += [int(i) for i in rest.replace("]", "[").split("[") if i]
    return tuple(out)


PERCENTILES = (1, 10, 25, 50, 75, 90, 99, 99.9)

# name -> (file, source as users cite it)
SHIPPED: dict[str, tuple[str, str]] = {
    "websearch": ("websearch.csv", "web search: Alizadeh et al., DCTCP, SIGCOMM 2010"),
    "datamining": ("datamining.csv", "data mining: Greenberg et al., VL2, SIGCOMM 2009"),
    "hadoop": ("hadoop.csv", "Facebook Hadoop inter-rack: Roy et al., SIGCOMM 2015"),
}
TABLE_NOTE = "CDF table of the public Opera simulator (TritonNetworking/opera-sim, BSD-3-Clause)"


@dataclass(frozen=True)
class SizeDistribution:
    """A CDF table: `sizes` strictly increasing (bytes), `cdf` non-decreasing and ending at 1."""

    name: str
    sizes: np.ndarray  # int64
    cdf: np.ndarray  # float64
    source: str = ""

    def mean(self, sampling: str = "points") -> float:
        p = np.diff(self.cdf, prepend=0.0)
        s = self.sizes.astype(np.float64)
        if sampling == "points":
            return float(np.dot(p, s))
        mids = np.concatenate(([s[0]], (s[1:] + s[:-1]) / 2))
        return float(np.dot(p, mids))

    def quantile(self, q: np.ndarray | float, sampling: str = "points") -> np.ndarray:
        """Sizes (int64) at cumulative probabilities `q` in (0, 1]."""
        q = np.asarray(q, dtype=np.float64)
        if sampling == "points":
            j = np.searchsorted(self.cdf, q, side="left")
            return self.sizes[np.minimum(j, len(self.sizes) - 1)]
        # the first index whose probability is >= q, then linear back to the previous point
        j = np.minimum(np.searchsorted(self.cdf, q, side="left"), len(self.sizes) - 1)
        lo = np.maximum(j - 1, 0)
        p0, p1 = self.cdf[lo], self.cdf[j]
        s0, s1 = self.sizes[lo].astype(np.float64), self.sizes[j].astype(np.float64)
        span = p1 - p0
        frac = np.divide(q - p0, span, out=np.ones_like(q), where=span > 0)
        out = np.where(j == 0, s0, s0 + np.clip(frac, 0.0, 1.0) * (s1 - s0))
        return np.maximum(np.rint(out), 1).astype(np.int64)

    def cdf_at(self, x: np.ndarray | float, sampling: str = "points") -> np.ndarray:
        """P(size <= x) under the reading `sampling`."""
        x = np.asarray(x, dtype=np.float64)
        if sampling == "points":
            j = np.searchsorted(self.sizes, x, side="right") - 1
            return np.where(j < 0, 0.0, self.cdf[np.maximum(j, 0)])
        return np.where(x < self.sizes[0], 0.0, np.interp(x, self.sizes.astype(np.float64), self.cdf))

    def sample(self, n: int, rng: np.random.Generator, sampling: str, stratified: bool) -> np.ndarray:
        """n sizes. Stratified (our default): the i-th smallest uniform draw lies in [i/n, (i+1)/n), shuffled,
        so the sizes' empirical CDF is within 1/n of the table; otherwise independent uniform draws."""
        if n <= 0:
            return np.zeros(0, dtype=np.int64)
        if stratified:
            u = (rng.permutation(n) + rng.random(n)) / n
        else:
            u = rng.random(n)
        return self.quantile(1.0 - u, sampling)  # 1 - u lies in (0, 1]: never the zero-probability point

    def ks_distance(self, sizes: np.ndarray, sampling: str = "points") -> float:
        """Kolmogorov-Smirnov distance between the sizes' empirical CDF and this table's."""
        x = np.sort(np.asarray(sizes, dtype=np.float64))
        n = len(x)
        if n == 0:
            return math.nan
        if sampling == "points":
            # both CDFs are step functions jumping only at the table's sizes (and the samples' values)
            grid = np.unique(np.concatenate((self.sizes.astype(np.float64), x)))
            emp = np.searchsorted(x, grid, side="right") / n
            return float(np.max(np.abs(emp - self.cdf_at(grid, sampling))))
        f = self.cdf_at(x, sampling)
        i = np.arange(1, n + 1)
        return float(max(np.max(i / n - f), np.max(f - (i - 1) / n)))

    def describe(self, sampling: str = "points") -> dict[str, float]:
        q = np.array([p / 100 for p in PERCENTILES])
        qs = self.quantile(q, sampling)
        out = {"mean_bytes": self.mean(sampling), "median_bytes": int(self.quantile(0.5, sampling))}
        for p, v in zip(PERCENTILES, qs):
            out[f"p{p:g}_bytes"] = int(v)
        first = 0 if sampling == "interpolate" else int(np.argmax(np.diff(self.cdf, prepend=0.0) > 0))
        out["min_bytes"] = int(self.sizes[first])
        out["max_bytes"] = int(self.sizes[-1])
        return out


def fixed_size(size: int) -> SizeDistribution:
    """Every flow the same size (`size` = "100KB")."""
    return SizeDistribution(f"{size} B", np.array([size], dtype=np.int64), np.array([1.0]), "fixed size")


def read_cdf_text(text: str, label: str) -> tuple[np.ndarray, np.ndarray]:
    """Rows `size,cumulative_probability` (comma or whitespace separated; '#' comments; an optional header
    line). Sizes are bytes, strictly increasing; probabilities never decrease and the last is 1."""
    sizes: list[int] = []
    probs: list[float] = []
    first_data = True
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = [p for p in line.replace(",", " ").split() if p]
        where = f"{label} line {n}"
        if len(parts) != 2:
            raise InputError(
                f"{where}: expected two values (size in bytes, cumulative probability), got {len(parts)}",
                hint="one row per point, e.g. 10000,0.5",
            )
        try:
            size_f, p = float(parts[0]), float(parts[1])
        except ValueError:
            if first_data and not sizes:
                first_data = False
                continue  # a header line
            raise InputError(
                f"{where}: {line!r} is not a size and a probability", hint="e.g. 10000,0.5"
            ) from None
        first_data = False
        if not (math.isfinite(size_f) and size_f >= 1 and size_f == int(size_f)):
            raise InputError(
                f"{where}: size {parts[0]} is not a whole number of bytes >= 1", hint="e.g. 1448"
            )
        if not (math.isfinite(p) and 0.0 <= p <= 1.0):
            raise InputError(f"{where}: cumulative probability {parts[1]} is outside [0, 1]", hint="e.g. 0.5")
        if sizes and size_f <= sizes[-1]:
            raise InputError(
                f"{where}: size {int(size_f)} does not exceed the previous row's {sizes[-1]} (sizes must "
                f"increase)",
                hint="sort the rows by size, one row per size",
            )
        if probs and p < probs[-1]:
            raise InputError(
                f"{where}: cumulative probability {p:g} is below the previous row's {probs[-1]:g} (a CDF "
                f"never decreases)",
                hint="the second column is P(size <= this size)",
            )
        sizes.append(int(size_f))
        probs.append(p)
    if not sizes:
        raise InputError(f"{label}: no rows", hint="rows of size_bytes,cumulative_probability")
    if abs(probs[-1] - 1.0) > 1e-9:
        raise InputError(
            f"{label}: the last cumulative probability is {probs[-1]:g}; a CDF ends at 1",
            hint="add a last row: the largest size with probability 1",
        )
    cdf = np.array(probs, dtype=np.float64)
    cdf[-1] = 1.0
    return np.array(sizes, dtype=np.int64), cdf


def _shipped(name: str) -> SizeDistribution:
    file, source = SHIPPED[name]
    text = (resources.files("greendcn.sim.workload") / "data" / file).read_text(encoding="utf-8")
    sizes, cdf = read_cdf_text(text, file)
    return SizeDistribution(name, sizes, cdf, f"{source}; {TABLE_NOTE}")


def load_distribution(
    spec: str, base_dir: str | None = None, where: str = "workload.sizes"
) -> SizeDistribution:
    """A shipped distribution by name, or a CDF file (relative paths from `base_dir`)."""
    key = spec.strip()
    if key.lower() in SHIPPED:
        return _shipped(key.lower())
    path = Path(key)
    if not path.is_absolute() and base_dir:
        path = Path(base_dir) / path
    if not path.exists():
        raise InputError(
            f"{where}: {spec!r} is neither a shipped distribution ({', '.join(SHIPPED)}) nor a file",
            hint="name one of "
            + ", ".join(SHIPPED)
            + " or give a CDF file of size_bytes,cumulative_probability",
            loc=key_loc(where),
        )
    text = read_text(path, where, max_bytes=16 * 2**20, kind="a CDF file (size_bytes,cumulative_probability)")
    try:
        sizes, cdf = read_cdf_text(text, path.name)
    except InputError as e:
        raise InputError(f"{where}: {e}", hint=e.hint, loc=key_loc(where)) from None
    return SizeDistribution(path.name, sizes, cdf, f"file {path}")
