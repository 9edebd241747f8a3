"""numpy arrays to and from Arrow arrays through their buffers. pyarrow's own conversions (`to_numpy`,
`pa.array`, `Table.from_pylist`) import pandas whenever it is installed, about half a second of CPU (our
measurement, BENCHMARKS.md), which a run that never asks for a DataFrame should not pay. Arrow's compute
functions are called here without importing `pyarrow.compute`, which builds a documented Python wrapper for each
of Arrow's ~290 functions when imported (tens of ms of CPU, BENCHMARKS.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["cast", "compute", "dictionary_encode", "from_numpy", "from_values", "strings", "to_numpy"]

# Arrow's names of its fixed-width types -> numpy's (the others have the same name)
_NUMPY_NAMES = {"double": "float64", "float": "float32", "halffloat": "float16"}


def compute(name: str, *args: Any, options: Any = None) -> Any:
    """Arrow's compute function `name` on `args`, as `pyarrow.compute.<name>(*args, options=options)` gives it."""
    try:
        from pyarrow._compute import call_function
    except ImportError:  # another pyarrow layout: its public module
        from pyarrow.compute import call_function
    return call_function(name, list(args), options)


def cast(arr: Any, target_type: Any) -> Any:
    """`pyarrow.compute.cast(arr, target_type)`: a safe cast (refuses overflow and lost digits)."""
    try:
        from pyarrow._compute import CastOptions
    except ImportError:
        from pyarrow.compute import CastOptions
    return compute("cast", arr, options=CastOptions.safe(target_type))


def dictionary_encode(arr: Any) -> Any:
    """`arr.dictionary_encode()` (nulls stay null) of an Arrow array."""
    return compute("dictionary_encode", arr)


def to_numpy(arr: Any) -> np.ndarray:
    """An Arrow array or chunked array of numbers or booleans as numpy (a copy). Float nulls become NaN; an
    integer or boolean column with nulls goes through pyarrow's own conversion."""
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    if arr.null_count and pa.types.is_floating(arr.type):
        arr = compute("coalesce", arr, pa.scalar(float("nan"), type=arr.type))  # pyarrow.compute.fill_null
    if arr.null_count:
        return arr.to_numpy(zero_copy_only=False)
    n, offset = len(arr), arr.offset
    data = arr.buffers()[1]
    if pa.types.is_boolean(arr.type):
        if n == 0:
            return np.zeros(0, dtype=bool)
        bits = np.unpackbits(np.frombuffer(data, dtype=np.uint8), bitorder="little")
        return bits[offset : offset + n].astype(bool)
    name = str(arr.type)
    dtype = np.dtype(_NUMPY_NAMES.get(name, name))
    return np.frombuffer(data, dtype=dtype, count=n, offset=offset * dtype.itemsize).copy()


def strings(values: Sequence[str], large: bool = False) -> Any:
    """Python strings as an Arrow string array (`large`: large_string, 64-bit offsets, as pandas' strings
    become)."""
    import pyarrow as pa

    encoded = [str(v).encode() for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64 if large else np.int32)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    kind = pa.large_string() if large else pa.string()
    return pa.Array.from_buffers(
        kind, len(encoded), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    )


def from_numpy(values: np.ndarray, nan_as_null: bool = False, large: bool = False) -> Any:
    """A numpy array of numbers, booleans or str (an object array; `large` as in `strings`) as an Arrow array;
    NaN stays NaN unless `nan_as_null` (as pyarrow converts a DataFrame's float columns)."""
    import pyarrow as pa

    values = np.ascontiguousarray(values)
    n = len(values)
    if values.dtype == object:
        return strings(values.tolist(), large)
    if values.dtype == bool:
        return pa.Array.from_buffers(
            pa.bool_(), n, [None, pa.py_buffer(np.packbits(values, bitorder="little"))]
        )
    mask = None
    if nan_as_null and values.dtype.kind == "f" and np.isnan(values).any():
        mask = pa.py_buffer(np.packbits(~np.isnan(values), bitorder="little"))
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), n, [mask, pa.py_buffer(values)])


def from_values(values: Sequence[Any], large: bool = False) -> Any:
    """A list of Python values of one kind (bool, int, float with int, str; None alone) as an Arrow array; a
    None among numbers or text is a null."""
    import pyarrow as pa

    kinds = {type(v) for v in values if v is not None}
    if not kinds:
        return pa.nulls(len(values))
    valid = np.array([v is not None for v in values], dtype=bool)
    if kinds <= {bool}:
        arr = from_numpy(np.array([bool(v) for v in values], dtype=bool))
    elif kinds <= {int}:
        arr = from_numpy(np.array([0 if v is None else v for v in values], dtype=np.int64))
    elif kinds <= {int, float}:
        arr = from_numpy(np.array([0.0 if v is None else v for v in values], dtype=np.float64))
    elif kinds <= {str}:
        arr = strings(["" if v is None else v for v in values], large)
    else:
        raise TypeError(f"cannot make one Arrow column of {sorted(k.__name__ for k in kinds)}")
    if valid.all():
        return arr
    mask = pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(arr.type, len(values), [mask, *arr.buffers()[1:]])
