"""The only door to the compiled engine: a spec dict in (docs/engine-spec.md), a results dict out.

An error the engine finds in its spec comes with the spec field's location; `scenario_loc` maps it back to the
scenario key a user wrote (tcp.min_rto_ps -> tcp.min_rto, flows[3].size_bytes -> workload flow 3's size), so the
error names what to change in the scenario file, and keeps the engine's own location beside it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .. import _native
from ..core.errors import EngineCrash, EngineInputError, Loc, format_loc

__all__ = [
    "CIRCUIT_TRANSPORTS",
    "FlowBuffers",
    "JsonText",
    "engine_version",
    "run_circuit_spec",
    "run_spec",
    "run_spec_columns",
    "scenario_loc",
]


class JsonText(str):
    """A spec value that is already JSON text (a million flows built column-wise): written into the spec as
    it is, not encoded again."""


# The transports by their one-byte code in the engine's flow columns (crates/py's TRANSPORTS, same order).
TRANSPORTS = ("tcp", "udp", "dctcp", "ndp")
# The circuit engine's transports by the same codes (crates/py's circuit.rs): the datagram in UDP's place.
CIRCUIT_TRANSPORTS = ("tcp", "datagram", "dctcp", "ndp")


class FlowBuffers:
    """The spec's `flows` as column buffers (`FlowColumns.engine_buffers`), handed to `run_spec_columns` as
    they are; anything that needs the spec as JSON gets them as JSON text (`json`). `transports` names the
    transports the flows use (the engine's `dctcp` and `ndp` settings are sent only when used)."""

    def __init__(
        self, buffers: list[tuple[str, bytes]], json_text: Callable[[], str], transports: frozenset[str]
    ) -> None:
        self.buffers, self.json, self.transports = buffers, json_text, transports


def spec_json(spec: dict[str, Any]) -> str:
    """The spec as JSON text, with `JsonText` values spliced in as they are."""
    spec = {k: (JsonText(v.json()) if isinstance(v, FlowBuffers) else v) for k, v in spec.items()}
    text = json.dumps({k: v for k, v in spec.items() if not isinstance(v, JsonText)})
    raw = [f"{json.dumps(k)}: {v}" for k, v in spec.items() if isinstance(v, JsonText)]
    if not raw:
        return text
    return text[:-1] + (", " if text != "{}" else "") + ", ".join(raw) + "}"


# Engine spec keys -> scenario keys, where the names differ (units live in the engine's names).
_TCP_KEYS = {
    "min_rto_ps": "min_rto",
    "initial_rto_ps": "initial_rto",
    "max_rto_ps": "max_rto",
    "max_window_bytes": "max_window",
    "delayed_ack_timeout_ps": "delayed_ack_timeout",
}
_FLOW_KEYS = {"size_bytes": "size", "rate_bps": "rate", "start_ps": "start"}
_TOP_KEYS: dict[str, Loc] = {
    "routing": ("routing", "scheme"),
    "vlb": ("routing", "vlb"),
    "seed": ("run", "seed"),
    "stop_ps": ("run", "stop_time"),
    "stats_window_ps": ("power", "window"),
    "frame_overhead_bytes": ("topology", "frame_overhead"),
    "nodes": ("topology",),
    "links": ("topology",),
    "udp": ("udp",),
    "eee": ("eee",),
}


def scenario_loc(engine_loc: Loc) -> Loc:
    """The scenario key behind a field of the engine's spec (empty when the spec as a whole is to blame)."""
    if not engine_loc:
        return ()
    head, rest = engine_loc[0], engine_loc[1:]
    if head == "tcp":
        return ("tcp", *(_TCP_KEYS.get(k, k) if isinstance(k, str) else k for k in rest))
    if head == "flows":
        return ("workload", "flows", *(_FLOW_KEYS.get(k, k) if isinstance(k, str) else k for k in rest))
    if isinstance(head, str) and head in _TOP_KEYS:
        return _TOP_KEYS[head]
    return tuple(engine_loc)


def run_spec(spec: dict[str, Any], progress: Callable[..., object] | None = None) -> dict[str, Any]:
    """Run one simulation. Raises EngineInputError for a spec the engine refuses, EngineCrash for an engine bug.

    `progress(now_ps, stop_ps, events, flows_done, flows)` is called about once a second. Ctrl-C stops the run
    and returns what was measured, with `summary.stopped_by == "interrupted"`."""
    return _call(_native.run, spec, progress, scenario_loc, "docs/engine-spec.md")


def run_spec_columns(spec: dict[str, Any], progress: Callable[..., object] | None = None) -> dict[str, Any]:
    """`run_spec`, with the result tables built from the engine's column buffers (docs/engine-spec.md, "Results
    as columns"), no JSON text parsed for them and no pandas: `flows` a `sim.tables.Columns` of the per-flow
    columns in the spec's order (whole numbers as int64, `fct_ps` and `finish_ps` float64 with NaN for a flow
    that never finished, `acked_ps` and `fct_ack_ps` likewise for a sender that never learnt it did, `transport` codes into TRANSPORTS); `links` and `nodes` `sim.tables.Records` (read as
    the JSON's list of records, built on first use; `.table` their columns); `series` None or its
    `window_ps` and, per series, a rows x windows int64 array."""
    flows = spec.get("flows")
    if isinstance(flows, FlowBuffers):
        buffers = flows.buffers

        def native(text: str, progress: Any) -> Any:
            return _native.run_columns(text, progress, buffers)

        spec = {**spec, "flows": []}
    else:
        native = _native.run_columns
    text, tables = _call(native, spec, progress, scenario_loc, "docs/engine-spec.md", raw=True)
    out = json.loads(text)
    out["flows"] = _flow_columns(tables["flows"])
    out["links"] = _link_records(tables["links"])
    out["nodes"] = _node_records(tables["nodes"])
    out["series"] = _series(tables["series"])
    return out


def _flow_columns(columns: list[tuple[str, str, bytes]]) -> Any:
    import numpy as np

    from .tables import Columns, Text

    data: dict[str, Any] = {}
    for name, dtype, buf in columns:
        values = np.frombuffer(buf, dtype=dtype)
        if name == "transport":
            data[name] = Text(values, TRANSPORTS)
        elif name in ("fct_ps", "finish_ps", "acked_ps", "fct_ack_ps"):
            # u64::MAX (not finished) as NaN: converted once, the NaN written in place (np.where's two extra
            # passes over a million rows cost more than the conversion; BENCHMARKS.md)
            floats = values.astype(np.float64)
            floats[values == np.iinfo(np.uint64).max] = np.nan
            data[name] = floats
        elif dtype == "?":
            data[name] = values.copy()
        else:
            data[name] = values.astype(np.int64)
    return Columns(data)


# EEE's per-direction counters: in the JSON only on directions with EEE on (the engine's `eee` column).
_EEE_KEYS = ("sleep_ps", "lpi_ps", "wake_ps", "sleeps")


def _link_records(columns: list[tuple[str, str, bytes]]) -> Any:
    """The link directions as `Records`: counters as int64; EEE's counters, present only where `eee` is set,
    int64 when every direction has EEE on and float64 with NaN on the others otherwise (as the JSON's records
    make them)."""
    import numpy as np

    from .tables import Columns, Records

    data = {name: np.frombuffer(buf, dtype=dtype) for name, dtype, buf in columns}
    present = data.pop("eee", None)
    table = Columns()
    for name, values in data.items():
        if name in _EEE_KEYS and present is not None and not present.all():
            table[name] = np.where(present, values.astype(np.float64), np.nan)
        else:
            table[name] = values.astype(np.int64)
    optional = {} if present is None or present.all() else {k: present.copy() for k in _EEE_KEYS}
    return Records(table, optional)


def _node_records(columns: list[tuple[str, str, Any]]) -> Any:
    """The nodes as `Records`: name and kind as str (object arrays), counters as int64."""
    import numpy as np

    from .tables import Columns, Records

    table = Columns()
    for name, dtype, values in columns:
        if name == "name":
            table[name] = np.array(values, dtype=object)
        elif name == "kind":
            table[name] = np.array(("host", "switch"), dtype=object)[np.frombuffer(values, dtype=dtype)]
        else:
            table[name] = np.frombuffer(values, dtype=dtype).astype(np.int64)
    return Records(table)


def _series(series: dict[str, Any] | None) -> dict[str, Any] | None:
    """The per-window series: `window_ps` and each series as a rows x windows int64 array."""
    if series is None:
        return None
    import numpy as np

    out: dict[str, Any] = {"window_ps": series.pop("window_ps")}
    for name, (rows, buf) in series.items():
        values = np.frombuffer(buf, dtype="<u8").astype(np.int64)
        out[name] = values.reshape(rows, len(values) // rows if rows else 0)
    return out


def run_circuit_spec(
    spec: dict[str, Any], progress: Callable[..., object] | None = None, loc_map: Callable[[Loc], Loc] = tuple
) -> dict[str, Any]:
    """Run one circuit-fabric simulation (docs/circuit-engine.md), with `run_spec`'s contract. `loc_map` turns
    a field of the circuit spec into the key of whatever the user wrote (the optical fabric's options).

    With the spec's `flows` given as `FlowBuffers` (`FlowColumns.circuit_buffers`), they cross as column
    buffers and the results' tables come back as columns, no JSON text parsed for them: `flows` a dict of numpy
    arrays in the JSON's field order (whole numbers as int64, `completed` bool, `transport` names (an object
    array), and `finish_ps`, `fct_ps`, `acked_ps` and `fct_ack_ps` float64 with NaN where the JSON has null);
    `ports` and (with hosts) `hosts` `sim.tables.Records` of int64 columns (read as the JSON's list of records,
    built on first use; `.table` their columns); `series` None or its `window_ps` and, per series, a rows x
    windows int64 array."""
    flows = spec.get("flows")
    if not isinstance(flows, FlowBuffers):
        return _call(_native.run_circuit, spec, progress, loc_map, "docs/circuit-engine.md")
    buffers = flows.buffers

    def native(text: str, progress: Any) -> Any:
        return _native.run_circuit_columns(text, buffers, progress)

    text, columns, tables = _call(
        native, {**spec, "flows": []}, progress, loc_map, "docs/circuit-engine.md", raw=True
    )
    doc = json.loads(text)
    # the JSON's keys in its order: summary, flows, ports, hosts (runs with hosts), series
    out = {"summary": doc["summary"], "flows": _circuit_flow_columns(columns)}
    out["ports"] = _int_records(tables["ports"])
    if tables["hosts"] is not None:
        out["hosts"] = _int_records(tables["hosts"])
    out["series"] = _series(tables["series"])
    return out


def _int_records(columns: list[tuple[str, str, bytes]]) -> Any:
    """A table of whole numbers as `Records` of int64 columns."""
    import numpy as np

    from .tables import Columns, Records

    return Records(
        Columns({name: np.frombuffer(buf, dtype=dtype).astype(np.int64) for name, dtype, buf in columns})
    )


def _circuit_flow_columns(columns: list[tuple[str, str, bytes]]) -> dict[str, Any]:
    import numpy as np

    data: dict[str, Any] = {}
    for name, dtype, buf in columns:
        values = np.frombuffer(buf, dtype=dtype)
        if name == "transport":
            data[name] = np.asarray(CIRCUIT_TRANSPORTS, dtype=object)[values]
        elif name in ("finish_ps", "fct_ps", "acked_ps", "fct_ack_ps"):
            floats = values.astype(np.float64)
            floats[values == np.iinfo(np.uint64).max] = np.nan  # None in the JSON
            data[name] = floats
        elif dtype == "?":
            data[name] = values.copy()
        else:
            data[name] = values.astype(np.int64)
    return data


def _call(
    native: Callable[..., Any],
    spec: dict[str, Any],
    progress: Callable[..., object] | None,
    loc_map: Callable[[Loc], Loc],
    doc: str,
    raw: bool = False,
) -> Any:
    try:
        text = native(spec_json(spec), progress)
    except _native.SpecError as e:
        message, engine_loc, msg = e.args
        loc = loc_map(engine_loc)
        where = f" (scenario key {format_loc(loc)})" if loc and loc != tuple(engine_loc) else ""
        raise EngineInputError(
            f"{message}{where}",
            hint=f"see {doc} for the fields the engine accepts",
            loc=loc,
            engine_loc=engine_loc,
            msg=msg,
        ) from None
    except _native.NativePanic as e:
        raise EngineCrash(
            str(e), hint="this is a bug in greendcn; please report it with the scenario"
        ) from None
    return text if raw else json.loads(text)


def engine_version() -> str:
    return _native.version()
