"""Flows on circuit fabrics cross to the engine as column buffers (`_native.run_circuit_columns`): the spec's
flows are those the per-flow JSON path writes, the engine's results (flows, uplinks, hosts and series, all
handed back as columns) are the same value for value, and a run from `FlowColumns` equals a run from the same
flows as a list of `Flow`."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from greendcn.core.errors import EngineInputError
from greendcn.sim import engine
from greendcn.sim.optical import scenario_run
from greendcn.sim.run import as_scenario, simulate
from greendcn.sim.tables import Records
from greendcn.sim.workload import build_workload
from greendcn.sim.workload.columns import FlowColumns
from greendcn.sim.workload.flow import Flow

OPERA = Path(__file__).resolve().parent.parent / "scenarios" / "websearch-opera.toml"
# A short web-search workload on Opera: low-latency flows by TCP (by DCTCP, below a 200 KB cutoff, in the second
# case), bulk flows as datagrams; and on RotorNet, every flow by TCP from its source ToR
CASES = [
    ["workload.duration=1ms"],
    [
        "workload.duration=1ms",
        "transport.default=dctcp",
        "topology.cutoff=200KB",
    ],
    [
        "workload.duration=1ms",
        "topology.kind=rotornet",
        "routing.scheme=rotorlb",
        "transport.circuit_bulk=transport",
    ],
]


def expected_transport(sc, f, cutoff):
    """The engine transport of one flow, written out per flow: Opera's low-latency class runs the flow's
    transport, bulk flows theirs only with circuit_bulk = transport; UDP flows are datagrams."""
    t = f.transport if f.transport != "tcp" else sc.transport.classes.get(f.cls, sc.transport.default)
    if t == "udp":
        return None
    if cutoff is not None and f.size_bytes < cutoff:
        return t
    return t if sc.transport.circuit_bulk == "transport" else None


def capture(monkeypatch):
    """Run every circuit spec both ways (column buffers and per-flow JSON); keep both results and the spec."""
    seen = {}

    def both(spec, progress=None, loc_map=tuple):
        cols = engine.run_circuit_spec(spec, progress, loc_map)
        as_json = json.loads(engine.spec_json(spec))
        seen.update(spec=spec, columns=cols, json=engine.run_circuit_spec(as_json, progress, loc_map))
        return cols

    monkeypatch.setattr(scenario_run, "run_circuit_spec", both)
    return seen


@pytest.mark.parametrize("sets", CASES)
def test_the_column_path_gives_the_json_paths_spec_and_results(monkeypatch, sets):
    seen = capture(monkeypatch)
    res = simulate(OPERA, overrides=sets, progress=False)
    sc = res.scenario
    spec = seen["spec"]
    assert isinstance(spec["flows"], engine.FlowBuffers)
    flows = build_workload(sc, scenario_run.endpoint_network(sc.topology), sc.run.seed)
    cutoff = spec.get("opera", {}).get("cutoff_bytes")
    want = []
    for f in flows:
        row = {"id": f.id, "src": f.src, "dst": f.dst, "size_bytes": f.size_bytes, "start_ps": f.start_ps}
        if (t := expected_transport(sc, f, cutoff)) is not None:
            row["transport"] = t
        want.append(row)
    assert json.loads(engine.spec_json(spec))["flows"] == want
    if sc.topology.kind == "opera":  # both classes, so both kinds of flow
        assert len({r.get("transport") for r in want}) == 2
    # the engine's results, value for value: every per-flow field, and everything else
    cols, ref = seen["columns"], seen["json"]
    assert list(cols["flows"]) == list(ref["flows"][0])
    times = ("finish_ps", "fct_ps", "acked_ps", "fct_ack_ps")  # float64, NaN for the JSON's null
    for i, row in enumerate(ref["flows"]):
        for key, value in row.items():
            got = cols["flows"][key][i]
            got = got.item() if hasattr(got, "item") else got
            if value is None:
                assert key in times and math.isnan(got), (i, key)
            else:
                assert got == value and (key in times or type(got) is type(value)), (i, key)
    # the other tables: uplinks and hosts as Records of int64 columns, read as the JSON's records (the same
    # keys, values and Python types); the series as int64 rows x windows arrays of the JSON's values
    assert list(cols) == list(ref) and "hosts" in ref and ref["series"] is not None
    for key in ("ports", "hosts"):
        assert isinstance(cols[key], Records)
        assert all(a.dtype == np.int64 for a in (cols[key].table[n] for n in cols[key].table.columns))
        assert cols[key] == ref[key]
        assert [{k: type(v) for k, v in r.items()} for r in cols[key]] == [
            {k: type(v) for k, v in r.items()} for r in ref[key]
        ]
    assert list(cols["series"]) == list(ref["series"])
    assert cols["series"]["window_ps"] == ref["series"]["window_ps"]
    for name, rows in ref["series"].items():
        if name != "window_ps":
            got = cols["series"][name]
            assert got.dtype == np.int64 and got.shape == (len(rows), len(rows[0])), name
            assert got.tolist() == rows, name
    drop_wall = {k: v for k, v in ref["summary"].items() if k != "wall_s"}
    assert {k: v for k, v in cols["summary"].items() if k != "wall_s"} == drop_wall


@pytest.mark.parametrize("sets", CASES[:2])
def test_a_list_of_flows_and_the_same_columns_give_the_same_run(sets):
    sc = as_scenario(OPERA).with_overrides(sets)
    cols = build_workload(sc, scenario_run.endpoint_network(sc.topology), sc.run.seed)
    assert isinstance(cols, FlowColumns)
    a = simulate(sc, flows=cols, progress=False)
    b = simulate(sc, flows=list(cols), progress=False)
    pd.testing.assert_frame_equal(a.flows, b.flows)
    assert {k: v for k, v in a.summary.items() if k != "wall_s"} == {
        k: v for k, v in b.summary.items() if k != "wall_s"
    }


def test_a_bad_transport_code_is_refused_naming_the_flow():
    flows = FlowColumns.from_flows([Flow(i, 0, 1, 1000) for i in range(3)])
    spec = {
        "endpoints": 2,
        "link_rate_bps": 10**10,
        "switches": [
            {
                "kind": "rotor",
                "matchings": [[1, 0]],
                "slots": [{"matching": 0, "uptime_ps": 10**6, "reconfig_ps": 0}],
            }
        ],
        "routing": "direct",
        "flows": engine.FlowBuffers(flows.circuit_buffers(np.array([1, 1, 7])), lambda: "[]", frozenset()),
    }
    with pytest.raises(EngineInputError, match=r"flows\[2\]\.transport"):
        engine.run_circuit_spec(spec)
