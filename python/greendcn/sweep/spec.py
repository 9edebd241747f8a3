"""A sweep spec (TOML): what to run, checked in full and expanded into runs before anything is written.

    [sweep]                       kind (default simulate), name, scenario (simulate: base file), store, retries
    [base]                        parameters of every run (dotted keys, as `--set` takes them)
    [axes]                        key = [values] or {start, stop, step} (stop included): a cartesian product
    [[zip]]                       keys whose lists vary together (one dimension of the product)
    [[grid]]                      name, set = {...}, axes, zip: the sweep is the union of its grids

Each run's key is the sha256 of the canonical JSON of its resolved parameters (for `simulate`, the validated
scenario with every quantity in base units, so "1Gbps" and "1000Mbps" are one run), its kind, and the package
and engine versions. docs/sweeps.md has the format with examples."""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import InputError, reject_unknown_keys
from ..core.userfile import read_toml
from .jobs import KINDS, versions

__all__ = ["Run", "SweepSpec", "load_spec", "parse_spec"]

# Our limit: a spec that expands beyond this is almost surely a mistake (a range with a tiny step).
MAX_RUNS = 1_000_000

_TOP = {"sweep", "base", "axes", "zip", "grid"}
_SWEEP = {"kind", "name", "scenario", "store", "retries", "description", "report"}
_GRID = {"name", "set", "axes", "zip"}
_RANGE = {"start", "stop", "step"}
# The runs table's own columns (store.py); a parameter may not take one of these names.
RESERVED = {
    "key", "grid", "kind", "status", "attempts", "error", "wall_s", "worker", "finished_at",
    "package_version", "engine_version", "params_json",
}  # fmt: skip


@dataclass(frozen=True)
class Run:
    key: str
    index: int
    grid: str
    params: dict[str, Any]  # every key the spec sets for this run, as written (the store's parameter columns)
    job: dict[str, Any]  # what a worker needs
    canonical: dict[str, Any]  # the resolved parameters the key hashes


@dataclass
class SweepSpec:
    path: Path
    name: str
    kind: str
    store: Path
    retries: int
    description: str
    report: str | None
    axes: dict[str, list[Any]]  # every axis and zip key with its values, for the report
    runs: list[Run] = field(default_factory=list)
    duplicates: int = 0  # expanded points whose key another point already had
    raw: dict[str, Any] = field(default_factory=dict)


def _err(where: str, msg: str, hint: str | None = None) -> InputError:
    return InputError(f"{where}: {msg}", hint=hint or "see docs/sweeps.md for the spec format")


def _flatten(
    table: dict[str, Any], where: str, leaf_ranges: bool = False, prefix: str = ""
) -> dict[str, Any]:
    """Nested tables and dotted keys -> {"a.b.c": value}. With leaf_ranges, {start, stop[, step]} is a leaf."""
    out: dict[str, Any] = {}
    for k, v in table.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and v and not (leaf_ranges and set(v) <= _RANGE and "start" in v):
            if leaf_ranges and set(v) & _RANGE:
                raise _err(f"{where}.{key}", f"a range needs start and stop, got keys {sorted(v)}")
            out.update(_flatten(v, where, leaf_ranges, key + "."))
        else:
            if key in out:
                raise _err(f"{where}.{key}", "set twice")
            out[key] = v
    return out


_QTY = re.compile(r"^\s*([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z%/]*)\s*$")


def _num(v: Any, where: str, part: str) -> tuple[float, str, bool]:
    if isinstance(v, bool):
        raise _err(where, f"{part} must be a number, got {v!r}")
    if isinstance(v, (int, float)):
        return float(v), "", isinstance(v, int)
    if isinstance(v, str):
        m = _QTY.match(v)
        if m:
            return float(m.group(1)), m.group(2), False
    raise _err(where, f"{part} must be a number or a quantity like '100Mbps', got {v!r}")


def _expand_range(r: dict[str, Any], where: str) -> list[Any]:
    if "stop" not in r:
        raise _err(where, "a range needs stop (included)", hint="write {start = 1, stop = 10}")
    start, u0, i0 = _num(r["start"], where, "start")
    stop, u1, i1 = _num(r["stop"], where, "stop")
    step, u2, i2 = _num(r.get("step", 1), where, "step")
    units = {u for u in (u0, u1, u2 if "step" in r else u0)}
    if len(units) > 1:
        raise _err(where, f"start, stop and step must share one unit, got {sorted(units)}")
    unit = units.pop()
    if not (math.isfinite(start) and math.isfinite(stop) and math.isfinite(step)) or step <= 0:
        raise _err(where, f"step must be a positive finite number, got {r.get('step', 1)!r}")
    n = math.floor((stop - start) / step + 1e-9) + 1
    if n > MAX_RUNS:
        raise _err(where, f"range has {n} values, more than {MAX_RUNS}", hint="use a larger step")
    ints = i0 and i1 and i2 and not unit
    vals: list[Any] = []
    for i in range(max(n, 0)):
        x = start + i * step
        if ints:
            vals.append(int(round(x)))
        else:
            x = float(f"{x:.12g}")  # no float noise like 0.30000000000000004 in keys and columns
            vals.append(f"{x:g}{unit}" if unit else x)
    return vals


def _axis(value: Any, where: str) -> list[Any]:
    if isinstance(value, dict):
        vals = _expand_range(value, where)
    elif isinstance(value, list):
        vals = list(value)
    else:
        raise _err(where, f"an axis is a list of values or a range {{start, stop, step}}, got {value!r}")
    if not vals:
        raise _err(where, "empty axis: no values to sweep", hint="give at least one value")
    return vals


def _dims(axes: dict[str, Any], zips: list[Any], where: str) -> list[tuple[list[str], list[tuple[Any, ...]]]]:
    """The dimensions of a product: one per axis, one per zip group (its keys vary together)."""
    dims: list[tuple[list[str], list[tuple[Any, ...]]]] = []
    for k, v in _flatten(axes, f"{where}axes", leaf_ranges=True).items():
        dims.append(([k], [(x,) for x in _axis(v, f"{where}axes.{k}")]))
    if not isinstance(zips, list):
        raise _err(f"{where}zip", "must be an array of tables: [[zip]]")
    for i, z in enumerate(zips):
        w = f"{where}zip[{i}]"
        if not isinstance(z, dict) or not z:
            raise _err(w, "a zip group is a table of keys with equal-length lists")
        flat = _flatten(z, w, leaf_ranges=True)
        cols = {k: _axis(v, f"{w}.{k}") for k, v in flat.items()}
        lengths = {k: len(v) for k, v in cols.items()}
        if len(set(lengths.values())) > 1:
            k = max(lengths, key=lambda key: lengths[key])
            raise _err(
                f"{w}.{k}", f"zipped lists differ in length: {lengths}", hint="give every key as many values"
            )
        dims.append((list(cols), list(zip(*cols.values()))))
    return dims


def _table(doc: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    v = doc.get(key, {})
    if not isinstance(v, dict):
        raise _err(f"{where}{key}", "must be a table")
    return v


def _canonical_key(kind: str, canonical: dict[str, Any], ver: dict[str, str]) -> str:
    doc = {"kind": kind, "params": canonical, "versions": ver}
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


def parse_spec(doc: dict[str, Any], path: Path, store: Path | None = None) -> SweepSpec:
    """Check a parsed spec and expand it; every problem is one InputError naming the file and the field."""
    try:
        return _parse(doc, path, store)
    except InputError as e:
        msg = str(e) if str(e).startswith(path.name) else f"{path.name}: {e}"
        raise InputError(msg, hint=e.hint or "see docs/sweeps.md for the spec format", loc=e.loc) from None


def _parse(doc: dict[str, Any], path: Path, store: Path | None) -> SweepSpec:
    origin = path.name
    reject_unknown_keys(doc, _TOP, takes="a spec has the tables {keys} (docs/sweeps.md)", origin=origin)
    sw = _table(doc, "sweep", "")
    reject_unknown_keys(sw, _SWEEP, takes="[sweep] takes", origin=origin, path="sweep.", loc=("sweep",))
    kind = sw.get("kind", "simulate")
    if kind not in KINDS:
        raise InputError(
            f"{origin}: sweep.kind: unknown job kind {kind!r}",
            hint=f"choose one of {', '.join(KINDS)}",
            loc=("sweep", "kind"),
        )
    retries = sw.get("retries", 2)
    if not isinstance(retries, int) or isinstance(retries, bool) or not 0 <= retries <= 10:
        raise InputError(
            f"{origin}: sweep.retries: must be a whole number 0..10, got {retries!r}",
            loc=("sweep", "retries"),
        )
    name = sw.get("name", path.stem)
    for f in ("name", "description", "store", "scenario", "report"):
        if f in sw and not isinstance(sw[f], str):
            raise InputError(f"{origin}: sweep.{f}: must be a string, got {sw[f]!r}", loc=("sweep", f))
    if "scenario" in sw and kind != "simulate":
        raise InputError(
            f"{origin}: sweep.scenario: only the simulate kind takes a base scenario",
            loc=("sweep", "scenario"),
        )
    if sw.get("report") not in (None, "seed003"):
        raise InputError(
            f"{origin}: sweep.report: unknown reproduction {sw['report']!r}",
            hint="known: seed003",
            loc=("sweep", "report"),
        )
    base = _flatten(_table(doc, "base", ""), "base")
    if "scenario" in sw:
        base = {"scenario": sw["scenario"], **base}
    top_dims = _dims(_table(doc, "axes", ""), doc.get("zip", []), "")
    grids = doc.get("grid", [{}])
    if not isinstance(grids, list) or not grids:
        raise _err(f"{origin}: grid", "must be a non-empty array of tables: [[grid]]")
    base_dir = path.parent.resolve()
    ver = versions()
    spec = SweepSpec(
        path=path,
        name=name,
        kind=kind,
        store=store if store is not None else base_dir / sw.get("store", "results.duckdb"),
        retries=retries,
        description=sw.get("description", ""),
        report=sw.get("report"),
        axes={},
        raw=doc,
    )
    if store is None and "store" in sw and Path(sw["store"]).is_absolute():
        spec.store = Path(sw["store"])
    seen: set[str] = set()
    count = 0
    for gi, g in enumerate(grids):
        gw = f"grid[{gi}]."
        if not isinstance(g, dict):
            raise _err(f"{origin}: grid[{gi}]", "must be a table")
        reject_unknown_keys(g, _GRID, takes="a [[grid]] takes", origin=origin, path=gw, loc=("grid", gi))
        gname = g.get("name", f"grid{gi}" if len(grids) > 1 else "main")
        fixed = {**base, **_flatten(_table(g, "set", gw), f"{gw}set")}
        dims = top_dims + _dims(_table(g, "axes", gw), g.get("zip", []), gw)
        keys = [k for ks, _ in dims for k in ks]
        dup = sorted({k for k in keys if keys.count(k) > 1})
        if dup:
            raise _err(f"{origin}: axes.{dup[0]}", "swept twice (in two axes or zip groups)")
        total = math.prod(len(vals) for _, vals in dims)
        count += total
        if count > MAX_RUNS:
            raise _err(
                f"{origin}: axes", f"the spec expands to more than {MAX_RUNS} runs", hint="sweep fewer values"
            )
        for ks, vals in dims:
            for j, k in enumerate(ks):
                have = spec.axes.setdefault(k, [])
                for v in vals:
                    if v[j] not in have:
                        have.append(v[j])
        clash = sorted((set(fixed) | set(keys)) & RESERVED)
        if clash:
            raise _err(
                f"axes.{clash[0]}",
                "this name is a column of the store's runs table",
                hint="rename the parameter",
            )
        for combo in itertools.product(*(vals for _, vals in dims)):
            point = {k: v for (ks, _), vs in zip(dims, combo) for k, v in zip(ks, vs)}
            params = {**fixed, **point}
            try:
                job, canonical = KINDS[kind].resolve(params, base_dir)
            except InputError as e:
                shown = ", ".join(f"{k}={v!r}" for k, v in point.items())
                raise InputError(
                    f"{origin}: {gname} run ({shown or 'base'}): {e}", hint=e.hint, loc=e.loc
                ) from None
            key = _canonical_key(kind, canonical, ver)
            if key in seen:
                spec.duplicates += 1
                continue
            seen.add(key)
            spec.runs.append(Run(key, len(spec.runs), gname, params, job, canonical))
    return spec


def load_spec(path: str | Path, store: str | Path | None = None) -> SweepSpec:
    """Read, check and expand a spec file. Nothing is opened or written."""
    p = Path(path)
    doc = read_toml(p, "spec", max_bytes=4 * 2**20, kind="a TOML sweep spec")
    return parse_spec(doc, p, Path(store) if store is not None else None)
