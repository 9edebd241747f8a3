"""Result tables as numpy columns (`Columns`), so a run's per-flow, per-link and per-node results, its printed
summary and its `--json` and `--parquet` files need no pandas; `SimResult` turns a table into the DataFrame its
users read on first access (`TableField`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

__all__ = ["Columns", "Records", "TableField", "Text", "column", "from_records", "raw_table"]


class Text:
    """A text column held as codes into a tuple of names (node names, classes, transports): no Python string
    per row until one is asked for."""

    __slots__ = ("codes", "names")

    def __init__(self, codes: Any, names: Iterable[Any]) -> None:
        self.codes = np.asarray(codes)
        self.names = tuple(str(n) for n in names)

    def __len__(self) -> int:
        return len(self.codes)

    def values(self) -> np.ndarray:
        """The column as an object array of str."""
        return np.asarray(self.names or ("",), dtype=object)[self.codes]

    def take(self, rows: Any) -> Text:
        return Text(self.codes[rows], self.names)


class Columns:
    """Named columns of one length, in order: numpy arrays (int64, float64 with NaN for a missing value, bool,
    object arrays of str) or `Text`. `t[name]` is a numpy array; `raw(name)` keeps a `Text` as it is."""

    def __init__(self, data: dict[str, Any] | None = None) -> None:
        self._data: dict[str, Any] = {}
        for k, v in (data or {}).items():
            self[k] = v

    @property
    def columns(self) -> list[str]:
        return list(self._data)

    @property
    def empty(self) -> bool:
        return not self._data or len(self) == 0

    def __len__(self) -> int:
        return len(next(iter(self._data.values()))) if self._data else 0

    def __contains__(self, name: object) -> bool:
        return name in self._data

    def __getitem__(self, name: str) -> np.ndarray:
        v = self._data[name]
        return v.values() if isinstance(v, Text) else v

    def __setitem__(self, name: str, value: Any) -> None:
        self._data[name] = value if isinstance(value, (Text, np.ndarray)) else np.asarray(value)

    def raw(self, name: str) -> Any:
        return self._data[name]

    def pop(self, name: str) -> Any:
        return self._data.pop(name)

    def select(self, names: Iterable[str]) -> Columns:
        """The named columns, in that order (the arrays shared, not copied)."""
        out = Columns()
        out._data = {n: self._data[n] for n in names}
        return out

    def take(self, rows: Any) -> Columns:
        """The rows `rows` selects (a boolean mask or indices), every column."""
        out = Columns()
        out._data = {k: (v.take(rows) if isinstance(v, Text) else v[rows]) for k, v in self._data.items()}
        return out

    def to_dict(self, orient: str = "records") -> list[dict[str, Any]]:
        """One dict per row with Python values (what `DataFrame.to_dict(orient="records")` gives)."""
        if orient != "records":
            raise ValueError("Columns.to_dict supports orient='records' only")
        names = self.columns
        lists = [self[n].tolist() for n in names]
        return [dict(zip(names, row)) for row in zip(*lists)]

    def records(self) -> Iterator[dict[str, Any]]:
        return iter(self.to_dict())

    def to_pandas(self) -> Any:
        """A DataFrame with the columns the simulator always gave: text as pandas' string type."""
        import pandas as pd

        from .workload.columns import text_from_codes

        data = {}
        for k, v in self._data.items():
            data[k] = text_from_codes(v.codes, v.names) if isinstance(v, Text) else v
        if not data:
            return pd.DataFrame()
        return pd.DataFrame(data, index=pd.RangeIndex(len(self)))

    def to_arrow(self) -> Any:
        """A pyarrow Table of the columns as pyarrow makes one of `to_pandas()`'s DataFrame (text as
        large_string, NaN as null), built from the arrays' buffers (core/arrowbuf.py: no pandas)."""
        import pyarrow as pa

        from ..core.arrowbuf import compute, from_numpy, strings

        arrays = []
        for v in self._data.values():
            if isinstance(v, Text):
                codes = from_numpy(np.asarray(v.codes, np.int32))
                arrays.append(compute("take", strings(v.names, large=True), codes))
            else:
                arrays.append(from_numpy(v, nan_as_null=True, large=True))
        return pa.Table.from_arrays(arrays, names=self.columns)


def column(table: Any, name: str) -> np.ndarray:
    """A column of a `Columns` or a DataFrame as a numpy array."""
    if isinstance(table, Columns):
        return table[name]
    return table[name].to_numpy()


def raw_table(obj: Any, name: str) -> Any:
    """`obj.name` as stored when it is a `TableField` (a `Columns` unless a DataFrame was asked for), else the
    attribute itself (None when missing)."""
    for klass in type(obj).__mro__:
        field = vars(klass).get(name)
        if isinstance(field, TableField):
            return field.raw(obj)
    return getattr(obj, name, None)


class Records(Sequence):
    """A table as the JSON's list of records (one dict per row, Python values), built from its columns the first
    time a row is read, so that code which only wants the columns (`table`) never builds them. `optional` maps a
    column to the rows that have it: a row's dict leaves the column out where that is false (the engine writes
    EEE's counters only for directions with EEE on)."""

    def __init__(self, table: Columns, optional: dict[str, np.ndarray] | None = None) -> None:
        self.table = table
        self.optional = optional or {}
        self._rows: list[dict[str, Any]] | None = None

    def rows(self) -> list[dict[str, Any]]:
        if self._rows is None:
            always = [n for n in self.table.columns if n not in self.optional]
            lists = [self.table[n].tolist() for n in always]
            self._rows = [dict(zip(always, row)) for row in zip(*lists)] if always else []
            for name, has in self.optional.items():
                values = self.table[name]
                for i in np.flatnonzero(has).tolist():
                    self._rows[i][name] = int(values[i])
        return self._rows

    def __len__(self) -> int:
        return len(self.table)

    def __getitem__(self, i: Any) -> Any:
        return self.rows()[i]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.rows())

    def __eq__(self, other: object) -> bool:
        return self.rows() == (other.rows() if isinstance(other, Records) else other)

    __hash__ = None  # type: ignore[assignment]  # mutable, like the list it stands for


def from_records(rows: list[dict[str, Any]] | Records) -> Columns:
    """Columns from JSON-like records (the engine's links and nodes): whole numbers as int64, numbers with a
    fraction or a null as float64 (NaN), booleans as bool, anything else (text; nulls only) as an object
    array, as pandas would build them. `Records` give their columns as they are (the arrays shared)."""
    if isinstance(rows, Records):
        return rows.table.select(rows.table.columns)
    names: dict[str, None] = {}
    for r in rows:
        names.update(dict.fromkeys(r))
    out = Columns()
    for n in names:
        values = [r.get(n) for r in rows]
        kinds = {type(v) for v in values}
        if kinds <= {int}:
            out[n] = np.array(values, dtype=np.int64)
        elif kinds <= {bool}:
            out[n] = np.array(values, dtype=bool)
        elif kinds <= {int, float, type(None)} and kinds != {type(None)}:
            out[n] = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
        else:
            out[n] = np.array(values, dtype=object)
    return out


class TableField:
    """A `SimResult` table: stored as it was built (a `Columns` or a DataFrame), read as a DataFrame, built from
    the columns on first access and kept (so changes a user makes to it stay). `optional` tables default to
    None; the others have no default (the dataclass asks the descriptor, which says so by AttributeError)."""

    def __init__(self, optional: bool = False) -> None:
        self.optional = optional

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = "_table_" + name

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        if obj is None:
            if self.optional:
                return None
            raise AttributeError(self.slot)  # no default for the dataclass field
        value = obj.__dict__.get(self.slot)
        if isinstance(value, Columns):
            value = value.to_pandas()
            obj.__dict__[self.slot] = value
        return value

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__[self.slot] = value

    def raw(self, obj: Any) -> Any:
        """The table as stored: `Columns` until someone asked for the DataFrame."""
        return obj.__dict__.get(self.slot)
