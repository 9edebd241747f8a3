"""`greendcn simulate --json` written table by table holds the same document as `SimResult.to_json()` (keys,
types, values), and `--parquet DIR` writes flows, links, nodes and summary tables that DuckDB and pandas load
with the JSON's columns."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pandas as pd
import pytest
from conftest import assert_clean_error, run_greendcn

from greendcn.sim import simulate
from greendcn.sim.output import PARQUET_TABLES, _write_doc

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "scenarios" / "seed003-static.toml"


def shape(value):  # type: ignore[no-untyped-def]
    """Keys and JSON types of a document, values left out."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shape(v) for v in value]
    return type(value).__name__


@pytest.fixture(scope="module")
def result():  # type: ignore[no-untyped-def]
    # a run with a flow that cannot finish (stop time), so NaN throughputs and FCTs are in the tables
    return simulate(STATIC, overrides=["run.stop_time=2ms", "workload.long_flows=2"], progress=False)


def test_the_streamed_json_is_the_documents_keys_types_and_values(result):
    buf = io.StringIO()
    _write_doc(buf, result)
    streamed = json.loads(buf.getvalue())
    reference = json.loads(json.dumps(result.to_json(), allow_nan=False))
    assert result.flows["fct_s"].isna().any()  # the null path is exercised
    assert shape(streamed) == shape(reference)
    assert streamed == reference


def test_parquet_tables_load_in_duckdb_and_pandas_with_the_json_columns(tmp_path):
    import duckdb

    out = run_greendcn(
        "simulate",
        STATIC,
        "--set",
        "run.stop_time=2ms",
        "--json",
        tmp_path / "r.json",
        "--parquet",
        tmp_path / "pq",
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads((tmp_path / "r.json").read_text())
    for name in PARQUET_TABLES:
        path = tmp_path / "pq" / f"{name}.parquet"
        rows = doc[name] if name != "summary" else [doc[name]]
        df = pd.read_parquet(path)
        assert list(df.columns) == list(rows[0]), name
        assert len(df) == len(rows)
        con = duckdb.connect()
        cols = [d[0] for d in con.execute(f"SELECT * FROM read_parquet('{path}')").description]
        assert cols == list(rows[0]), name
        # values: the JSON's nulls are Parquet's NaN in float columns
        for col in df.columns:
            for got, want in zip(df[col].tolist(), (r[col] for r in rows)):
                if want is None:
                    assert got is None or (isinstance(got, float) and math.isnan(got)), (name, col)
                elif isinstance(want, (dict, list)):
                    assert json.loads(got) == want
                else:
                    assert got == want, (name, col)
    flows = (
        duckdb.connect()
        .execute(f"SELECT count(*), sum(size_bytes) FROM read_parquet('{tmp_path / 'pq' / 'flows.parquet'}')")
        .fetchone()
    )
    assert flows == (len(doc["flows"]), sum(f["size_bytes"] for f in doc["flows"]))


def test_parquet_into_a_file_is_refused_before_the_run(tmp_path):
    f = tmp_path / "taken"
    f.write_text("x")
    assert_clean_error(run_greendcn("simulate", STATIC, "--parquet", f), "--parquet")


def test_flows_from_parquet_run_as_from_csv_and_a_corrupted_one_is_one_error_line(tmp_path):
    csv = tmp_path / "f.csv"
    csv.write_text("src,dst,size_bytes,start_s,class\nS0,S15,100000,0,mouse\n5,S9,300000,0.001,elephant\n")
    pq = tmp_path / "f.parquet"
    pd.DataFrame(
        {
            "src": ["S0", "5"],
            "dst": ["S15", "S9"],
            "size_bytes": [100000, 300000],
            "start_s": [0, 0.001],
            "class": ["mouse", "elephant"],
        }
    ).to_parquet(pq)
    a = simulate(STATIC, flows=csv, progress=False).flows
    b = simulate(STATIC, flows=pq, progress=False).flows
    pd.testing.assert_frame_equal(
        a.drop(columns="wall_s", errors="ignore"), b.drop(columns="wall_s", errors="ignore")
    )
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(pq.read_bytes()[: pq.stat().st_size // 2])
    assert_clean_error(run_greendcn("simulate", STATIC, "--flows", broken), "broken.parquet")


def test_table_rows_as_json_match_the_records_for_repeated_constant_and_missing_values():
    import numpy as np

    from greendcn.sim.output import json_lines
    from greendcn.sim.tables import Columns, Text

    n = 3000  # more rows than the distinct-value encoding's threshold, in two chunks of the writer
    rng = np.random.default_rng(1)
    t = Columns(
        {
            "id": np.arange(n),
            "zero": np.zeros(n, dtype=np.int64),
            "few": rng.integers(0, 5, n) * 1_000_003,
            "x": np.where(rng.random(n) < 0.1, np.nan, rng.random(n) * 1e-4),
            "nan": np.full(n, np.nan),
            "ok": rng.random(n) < 0.5,
            "host": Text(rng.integers(0, 3, n), ["S0", "S1", 'q"uote']),
            "100%": np.full(n, 0.1),
        }
    )
    want = [
        json.dumps({k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()})
        for r in t.to_dict()
    ]
    assert list(json_lines(t, chunk=2048)) == want
