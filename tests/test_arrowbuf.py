"""numpy <-> Arrow through buffers (core/arrowbuf.py): the same values as pyarrow's own conversions, sliced
arrays and nulls included, without importing pandas."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from greendcn.core.arrowbuf import from_numpy, from_values, strings, to_numpy


def test_numbers_and_booleans_round_trip_sliced_and_chunked():
    for values in (np.arange(-5, 20, dtype=np.int64), np.linspace(0, 1, 13), np.arange(11) % 3 == 0):
        arr = from_numpy(values)
        assert arr.to_pylist() == values.tolist()
        back = to_numpy(arr.slice(3, 7))
        assert back.dtype == values.dtype and back.tolist() == values[3:10].tolist()
        chunked = pa.chunked_array([arr.slice(0, 4), arr.slice(4)])
        assert to_numpy(chunked).tolist() == values.tolist()
    assert to_numpy(pc.cast(pa.chunked_array([strings(["7", "8"])]), pa.int32())).tolist() == [7, 8]


def test_nan_as_null_and_values_with_nulls():
    arr = from_numpy(np.array([1.5, math.nan, 3.0]), nan_as_null=True)
    assert arr.to_pylist() == [1.5, None, 3.0]
    assert math.isnan(to_numpy(arr)[1])
    assert from_numpy(np.array([1.5, math.nan])).null_count == 0  # NaN kept unless asked
    assert from_values([1, None, 3]).to_pylist() == [1, None, 3]
    assert from_values([None]).type == pa.null()
    assert from_values(["a", None], large=True).type == pa.large_string()
    assert from_numpy(np.array(["S0", "é"], dtype=object)).to_pylist() == ["S0", "é"]


def test_no_pandas_is_imported():
    code = (
        "import sys, numpy as np, pyarrow.compute as pc\n"
        "from greendcn.core.arrowbuf import from_numpy, strings, to_numpy\n"
        "to_numpy(pc.add(from_numpy(np.arange(4)), from_numpy(np.arange(4)))); strings(['a'])\n"
        "print('pandas' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr


def test_compute_functions_as_pyarrow_compute_gives_them():
    from greendcn.core.arrowbuf import cast, compute, dictionary_encode

    text = pa.chunked_array([strings([" S1", "7 ", "S1"]), strings(["x"])])
    assert compute("utf8_trim_whitespace", text).equals(pc.utf8_trim_whitespace(text))
    flat = text.combine_chunks()
    assert dictionary_encode(flat).equals(flat.dictionary_encode())
    numbers = pa.chunked_array([strings(["7", "-2", "1e3"])])
    assert cast(numbers, pa.float64()).equals(pc.cast(numbers, pa.float64()))
    for bad, kind in ((numbers, pa.int64()), (pa.array([300]), pa.int8())):  # refused alike: a safe cast
        errors = []
        for f in (cast, pc.cast):
            try:
                f(bad, kind)
            except pa.ArrowInvalid as e:
                errors.append(str(e))
        assert len(errors) == 2 and errors[0] == errors[1], errors
    with_null = pa.array([1.5, None, 2.0])
    assert to_numpy(with_null)[0] == 1.5 and math.isnan(to_numpy(with_null)[1])


def test_a_flow_file_run_imports_no_pyarrow_compute(tmp_path):
    # pyarrow.compute builds a documented wrapper per Arrow function when imported (BENCHMARKS.md)
    from pathlib import Path

    one = Path(__file__).resolve().parent.parent / "scenarios" / "bench-one-flow.toml"
    flows = tmp_path / "flows.csv"
    flows.write_text("src,dst,size_bytes,start_s,class\nS0, S3,1000,0,a\n2,S1 ,2000,1e-6,b\n")
    code = (
        "import sys\n"
        "from greendcn.cli import main\n"
        f"main(['simulate', {str(one)!r}, '--set', 'topology.k=4', '--flows', {str(flows)!r}, "
        f"'--json', {str(tmp_path / 'o.json')!r}, '--parquet', {str(tmp_path / 'pq')!r}])\n"
        "print('LOADED', [m for m in ('pyarrow.compute', 'pandas') if m in sys.modules], file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "LOADED []" in done.stderr, done.stderr
    assert "flows 2" in done.stdout
