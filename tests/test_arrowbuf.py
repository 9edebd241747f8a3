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
