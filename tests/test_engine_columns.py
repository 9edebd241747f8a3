"""The engine's result tables as column buffers (`run_spec_columns`) hold what its JSON results hold (`run_spec`):
every flow, link direction, node and per-window count, with EEE's counters only on the directions that have it."""

import json
import math

import numpy as np

from greendcn.sim.engine import run_spec, run_spec_columns
from greendcn.sim.tables import Records, from_records

GBPS = 10**9
US = 10**6


def star(**extra):
    """Four hosts on one switch, the last at 10 Gb/s (EEE on the 1 Gb/s links only), mixed transports, sprayed
    over two parallel links to host 3 so that packets reorder."""
    nodes = [{"name": f"h{i}", "kind": "host"} for i in range(4)] + [{"name": "sw", "kind": "switch"}]
    links = [
        {"a": i, "b": 4, "rate_bps": GBPS, "delay_ps": 10 * US, "queue_b": {"packets": 12}} for i in range(3)
    ]
    links.append({"a": 3, "b": 4, "rate_bps": 10 * GBPS, "delay_ps": 5 * US})
    flows = [
        {"id": 0, "src": 0, "dst": 3, "size_bytes": 400_000},
        {"id": 1, "src": 1, "dst": 3, "size_bytes": 300_000, "transport": "dctcp"},
        {"id": 2, "src": 3, "dst": 2, "size_bytes": 200_000, "transport": "udp", "rate_bps": 2 * GBPS},
        {"id": 3, "src": 2, "dst": 0, "size_bytes": 50_000, "start_ps": 300 * US},
        {"id": 4, "src": 3, "dst": 1, "size_bytes": 600_000},
    ]
    spec = {
        "routing": "rps",
        "seed": 3,
        "nodes": nodes,
        "links": links,
        "flows": flows,
        "dctcp": {"k_packets": 6},
    }
    spec["eee"] = {
        "hold_off_ps": 0,
        "coalesce_ps": 0,
        "phys": [{"rate_bps": GBPS, "sleep_ps": 182 * US // 1000, "wake_ps": 16 * US}],
    }
    spec["stats_window_ps"] = 100 * US
    spec.update(extra)
    return spec


def same_value(a, b):
    """A column value against the JSON's: times as float (NaN for null, the rest whole), else the same type."""
    if isinstance(a, float):
        return b is None if math.isnan(a) else a == b and isinstance(b, int)
    return a == b and type(a) is type(b)


def test_column_tables_hold_the_json_results_value_for_value():
    spec = star()
    want, got = run_spec(spec), run_spec_columns(spec)
    for r in (want, got):
        r["summary"].pop("wall_s")
    assert got["summary"] == want["summary"]
    assert want["summary"]["drops"] > 0, "the small queue drops, so the flows retransmit"
    flows = got["flows"].to_dict()
    assert len(flows) == len(want["flows"])
    for row, json_row in zip(flows, want["flows"]):
        for key, value in json_row.items():
            if key == "transport":
                assert row[key] == value
            else:
                assert same_value(row[key], value), (key, row[key], value)
    assert sum(f["spurious_retransmits"] + f["ooo_packets"] for f in want["flows"]) > 0
    # links and nodes: read as the JSON's records (EEE's keys only where it is on), their columns as from_records
    assert isinstance(got["links"], Records) and isinstance(got["nodes"], Records)
    assert got["links"] == want["links"] and got["nodes"] == want["nodes"]
    assert {"sleep_ps" in d for d in want["links"]} == {True, False}
    for table in ("links", "nodes"):
        a, b = from_records(got[table]), from_records(want[table])
        assert a.columns == b.columns
        for name in a.columns:
            assert a[name].dtype == b[name].dtype, (table, name)
            assert np.array_equal(a[name], b[name], equal_nan=a[name].dtype.kind == "f"), (table, name)
    # the series: rows x windows arrays with the JSON's numbers
    series = got["series"]
    assert series["window_ps"] == want["series"]["window_ps"]
    assert set(series) == set(want["series"])
    for name, rows in want["series"].items():
        if name != "window_ps":
            assert series[name].dtype == np.int64 and series[name].tolist() == rows, name


def test_runs_without_windows_or_eee_give_no_series_and_no_eee_columns():
    spec = star(stats_window_ps=None, eee=None)
    got = run_spec_columns(spec)
    assert got["series"] is None
    assert "sleep_ps" not in got["links"].table.columns and "eee" not in got["links"].table.columns
    assert got["links"] == run_spec(spec)["links"]


def test_flows_given_as_columns_come_back_as_the_same_buffers_and_the_same_results():
    """Flows handed over as column buffers: their own six columns come back as those very bytes objects, and
    every column holds what the same flows given in the spec's JSON give."""
    from greendcn import _native
    from greendcn.sim.engine import TRANSPORTS

    spec = star(stats_window_ps=None)
    flows = spec.pop("flows")

    def u64(key):
        return np.array([f.get(key, 0) for f in flows], "<u8").tobytes()

    given = [(k, u64(k)) for k in ("id", "src", "dst", "size_bytes", "start_ps", "rate_bps", "handshake_ps")]
    codes = [TRANSPORTS.index(f.get("transport", "tcp")) for f in flows]
    given.append(("transport", np.array(codes, "u1").tobytes()))
    _, by_columns = _native.run_columns(json.dumps({**spec, "flows": []}), None, given)
    _, by_json = _native.run_columns(json.dumps({**spec, "flows": flows}))
    want = {name: b for name, _, b in by_json["flows"]}
    own = dict(given)
    for name, _, b in by_columns["flows"]:
        assert b == want[name], name
        if name in ("id", "src", "dst", "size_bytes", "start_ps", "transport"):
            assert b is own[name], name
        else:
            assert all(b is not g for g in own.values()), name
    assert [n for n, _, _ in by_columns["flows"]] == list(want)
