"""The fabric comparison hands its flows to every fabric's engine as one set of columns and reads the per-flow
results as columns: its document equals the one the per-flow path gives (one `Flow` per flow, the flow list
built row by row from the result's DataFrame, as the comparison did before), and its --json writer gives the
values `json.dumps` gives."""

from __future__ import annotations

import json
import math

import numpy as np

from greendcn.core.clitools import to_jsonable
from greendcn.sim import run as run_module
from greendcn.sim.fabrics import FabricsConfig, FlowRows, flow_columns
from greendcn.sim.fabrics_json import write_fabrics_json
from greendcn.sim.fabrics_load import compare_on_flows, generated_flows
from greendcn.sim.tables import Columns, Text
from greendcn.sim.workload import Flow
from greendcn.sim.workload.columns import FlowColumns

CFG = FabricsConfig(racks=8, circuit_switches=4)  # 32 hosts: Opera, RotorNet, SelectorNet, two fat-trees


def _without_wall(v):
    if isinstance(v, dict):
        return {k: _without_wall(x) for k, x in v.items() if k != "wall_s"}
    if isinstance(v, list):
        return [_without_wall(x) for x in v]
    return v


def _per_flow_rule(res):
    """The flow list as the comparison built it before, a dict per row of the result's DataFrame."""
    fl = res.flows

    def finite(v):
        return float(v) if v is not None and np.isfinite(v) else None

    return [
        {"src": str(a), "dst": str(b), "size_bytes": int(c), "start_s": float(d), "fct_s": finite(e)}
        for a, b, c, d, e in zip(fl["src"], fl["dst"], fl["size_bytes"], fl["start_s"], fl["fct_s"])
    ]


def test_the_column_path_gives_the_per_flow_paths_document(tmp_path, monkeypatch):
    # a few hundred flows of 1-100 KB in 1 ms on 32 hosts, energy over that window
    sizes = tmp_path / "small.csv"
    sizes.write_text("size_bytes,cumulative_probability\n1000,0\n100000,1\n")
    cols = generated_flows(CFG, 0.3, str(sizes), 1_000_000_000)
    assert isinstance(cols, FlowColumns) and 100 <= len(cols) <= 1000
    names = cols.class_names()
    rows = [
        (int(s), int(d), int(z), int(t), str(c))
        for s, d, z, t, c in zip(cols.src, cols.dst, cols.size_bytes, cols.start_ps, names)
    ]
    per_flow = [Flow(i, *r) for i, r in enumerate(rows)]  # what run_one built before, one object per flow
    run = {"window": ["0ps", "1000000000ps"]}

    seen = []
    real = run_module.simulate

    def capture(*a, **k):
        res = real(*a, **k)
        seen.append((type(k["flows"]), res))
        return res

    monkeypatch.setattr(run_module, "simulate", capture)
    by_columns = compare_on_flows(CFG, cols, "cols", run=run)
    by_objects = compare_on_flows(CFG, per_flow, "cols", run=run)
    fabrics = [r["fabric"] for r in by_columns["fabrics"]]
    assert len(fabrics) == 5 and len(seen) == 10
    # the columns reached every engine as they are, the per-flow path as a list of `Flow`
    assert all(t is FlowColumns for t, _ in seen[:5]) and all(t is list for t, _ in seen[5:])
    for (_, res), r in zip(seen[:5], by_columns["fabrics"]):
        assert isinstance(r["flow_list"], FlowRows)
        assert list(r["flow_list"]) == _per_flow_rule(res), r["fabric"]
    # the whole document, value for value (wall time aside)
    a, b = (json.loads(json.dumps(to_jsonable(d), allow_nan=False)) for d in (by_columns, by_objects))
    assert _without_wall(a) == _without_wall(b)
    # some flows finished and the window's energy is there, so the comparison compared something
    assert all(r["flows_completed"] > 0 and r["window_energy_j"] > 0 for r in a["fabrics"])


def test_the_json_writer_gives_the_values_of_json_dumps(tmp_path):
    table = Columns(
        {
            "src": Text(np.array([0, 1, 1]), ["S0", "S1"]),
            "dst": np.array(["S1", "S0", "S2"], dtype=object),
            "size_bytes": np.array([1000, 20, 3], dtype=np.int64),
            "start_s": np.array([0.0, 1e-9, 0.1 + 0.2]),
            "fct_s": np.array([1.5e-6, math.nan, 2e-3]),
        }
    )
    empty = FlowRows(table.take(np.zeros(3, dtype=bool)))
    doc = {
        "config": {"workload": 'a "quoted" name', "run": {}},
        "fabrics": [
            {"fabric": "x", "flow_list": FlowRows(table), "n": 1},
            {"fabric": "y", "flow_list": empty},
        ],
        "notes": ["one"],
    }
    path = tmp_path / "out.json"
    write_fabrics_json(path, doc)
    got = json.loads(path.read_text())
    assert got == json.loads(json.dumps(to_jsonable(doc), allow_nan=False))
    assert got["fabrics"][0]["flow_list"][1]["fct_s"] is None and got["fabrics"][1]["flow_list"] == []
    assert got["fabrics"][0]["flow_list"][2]["start_s"] == 0.1 + 0.2  # floats written in full


def test_flow_columns_are_the_per_flow_objects_flows():
    # tuples and columns with their own transports, rates and class order: ids 0.., the fabric's transport,
    # classes by first appearance, as `Flow(i, src, dst, bytes, start, class)` per row gave
    tuples = [(3, 1, 100, 5, "b"), (0, 2, 200, 0, "a"), (1, 3, 300, 7, "b")]
    want = FlowColumns.from_flows([Flow(i, *t) for i, t in enumerate(tuples)])
    own = FlowColumns(
        id=np.array([7, 8, 9]),
        src=np.array([3, 0, 1]),
        dst=np.array([1, 2, 3]),
        size_bytes=np.array([100, 200, 300]),
        start_ps=np.array([5, 0, 7]),
        cls=np.array([1, 0, 1]),
        classes=("a", "b"),
        udp=np.array([False, True, False]),
        rate_bps=np.array([0, 10**9, 0]),
        transport=np.array([2, 1, 0], dtype=np.uint8),
    )
    for got in (flow_columns(tuples), flow_columns(own)):
        assert got.classes == want.classes == ("b", "a")
        for k in ("id", "src", "dst", "size_bytes", "start_ps", "cls", "udp", "rate_bps"):
            assert np.array_equal(getattr(got, k), getattr(want, k)), k
        assert not got.own_transport_codes().any()  # every flow tcp, the fabric's transport
    plain = flow_columns(tuples)
    assert flow_columns(plain) is plain  # built once, shared by every fabric


def test_opera_is_searched_once_per_parameters(monkeypatch):
    # a load sweep runs the same Opera at every load: the schedule search runs once for the same parameters
    from greendcn.sim.optical import opera_fabric
    from greendcn.sim.scenario import scenario_from_dict

    calls = []
    real = opera_fabric.build_opera

    def counted(params, *a, **k):
        calls.append(params)
        return real(params, *a, **k)

    def topo(seed):
        return scenario_from_dict(
            {"topology": {"kind": "opera", "racks": 12, "circuit_switches": 4, "schedule_seed": seed}}
        ).topology

    monkeypatch.setattr(opera_fabric, "build_opera", counted)
    opera_fabric._schedule.cache_clear()
    fab_a, a = opera_fabric.opera_from_topology(topo(3))
    fab_b, b = opera_fabric.opera_from_topology(topo(3))
    _, c = opera_fabric.opera_from_topology(topo(4))
    opera_fabric._schedule.cache_clear()
    assert len(calls) == 2 and a is b and fab_a == fab_b
    assert not (np.array_equal(a.partners, c.partners) and np.array_equal(a.layout, c.layout))
    fresh = real(calls[0])  # the cached schedule is the one a new search finds
    assert np.array_equal(fresh.partners, a.partners) and np.array_equal(fresh.layout, a.layout)
    assert fresh.epsilon_s == a.epsilon_s
    assert not a.partners.flags.writeable and not a.layout.flags.writeable  # shared, so read-only
