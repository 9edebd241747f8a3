"""Writing a simulation's results: `--json` (the document of `SimResult.to_json`, written table by table, a
row per line, so a million flows need no copy of the document in memory) and `--parquet DIR` (one Parquet file
per table: flows, links, nodes, summary, with the JSON's columns)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np

__all__ = [
    "PARQUET_TABLES",
    "check_parquet_dir",
    "json_lines",
    "write_json_with",
    "write_parquet",
    "write_result_json",
    "write_rows",
]

PARQUET_TABLES = ("flows", "links", "nodes", "summary")
_TABLES = ("flows", "links", "nodes")


def json_lines(df: Any, chunk: int = 1 << 16) -> Iterator[str]:
    """Each row of a table (a DataFrame or `sim.tables.Columns`) as JSON text, the text `json.dumps` gives its
    `to_jsonable` record; encoded a column at a time, `chunk` rows at once (so memory stays a chunk's, whatever
    the table's length)."""
    for rows in _row_blocks(df, chunk):
        yield from rows


def _row_blocks(df: Any, chunk: int = 1 << 16) -> Iterator[list[str]]:
    """`json_lines`, a list of up to `chunk` rows at a time. A column whose value is the same in every row of a
    chunk (zero retransmits, one class) is written into the row template once instead of row by row."""
    from .tables import Columns

    names = [json.dumps(str(c)).replace("%", "%%") for c in df.columns]
    columns = isinstance(df, Columns)
    for first in range(0, len(df), chunk):
        count = min(chunk, len(df) - first)
        if columns:
            rows = slice(first, first + chunk)
            encoded = [_encoded_column(df.raw(c), rows) for c in df.columns]
        else:
            part = df.iloc[first : first + chunk]
            encoded = [_encoded(part.iloc[:, i]) for i in range(part.shape[1])]
        fields = [
            f"{n}: %s" if isinstance(e, list) else f"{n}: {e.replace('%', '%%')}"
            for n, e in zip(names, encoded)
        ]
        template = "{" + ", ".join(fields) + "}"
        varying = [e for e in encoded if isinstance(e, list)]
        yield [template % row for row in zip(*varying)] if varying else [template % ()] * count


def _encoded_column(col: Any, rows: slice) -> list[str] | str:
    """`_encoded` for a numpy column or a `Text` of `sim.tables.Columns`, rows `rows`; one str when every row
    has the same text. A numeric column of few distinct values is encoded once per value."""
    from .tables import Text

    if isinstance(col, Text):
        codes = col.codes[rows]
        table = np.asarray([json.dumps(n) for n in col.names] or ['""'], dtype=object)
        if len(codes) and (codes == codes[0]).all():
            return str(table[codes[0]])
        return table[codes].tolist()
    values = col[rows]
    if values.dtype.kind not in "biuf":
        return _encoded_objects(values)
    if len(values) and ((values == values[0]).all() or (values.dtype.kind == "f" and np.isnan(values).all())):
        return _encoded_numbers(values[:1])[0]
    if len(values) > 1024:
        distinct, back = np.unique(values, return_inverse=True)
        if 4 * len(distinct) <= len(values):
            return np.asarray(_encoded_numbers(distinct), dtype=object)[back].tolist()
    return _encoded_numbers(values)


def _encoded_numbers(values: np.ndarray) -> list[str]:
    """Booleans, ints and floats as the json module writes them (floats by their repr), NaN and inf as null."""
    kind = values.dtype.kind
    if kind == "b":
        return np.where(values, "true", "false").tolist()
    if kind in "iu":
        return list(map(int.__repr__, values.tolist()))
    text = list(map(float.__repr__, values.astype(np.float64).tolist()))
    for i in np.flatnonzero(~np.isfinite(values)):
        text[i] = "null"
    return text


def _encoded_objects(values: np.ndarray) -> list[str]:
    """Any other values (text, mostly) through `to_jsonable`, each distinct value encoded once."""
    from ..core.clitools import to_jsonable

    cache: dict[Any, str] = {}
    out = []
    for v in values.tolist():
        key = (type(v), v) if isinstance(v, (str, int, float, bool)) or v is None else None
        if key is None:
            out.append(json.dumps(to_jsonable(v), allow_nan=False))
        else:
            if key not in cache:
                cache[key] = json.dumps(to_jsonable(v), allow_nan=False)
            out.append(cache[key])
    return out


def _encoded(col: Any) -> list[str]:
    """A column's values as JSON text: ints and floats by their repr (as the json module writes them),
    NaN and infinities as null, every other value (text, mostly) encoded once per distinct value."""
    import pandas as pd

    from ..core.clitools import to_jsonable

    kind = col.dtype.kind
    if kind in "iub" and not col.hasnans:
        if kind == "b":
            return np.where(col.to_numpy(), "true", "false").tolist()
        return list(map(int.__repr__, col.tolist()))
    if kind == "f" and col.dtype == np.float64:
        values = col.to_numpy()
        text = list(map(float.__repr__, values.tolist()))
        for i in np.flatnonzero(~np.isfinite(values)):
            text[i] = "null"
        return text
    codes, uniques = pd.factorize(col, use_na_sentinel=True)
    table = [json.dumps(to_jsonable(u), allow_nan=False) for u in uniques] + ["null"]
    return np.asarray(table, dtype=object)[codes].tolist()


def write_rows(out: IO[str], table: Any, indent: str) -> None:
    """A table as a JSON list, one row per line at `indent` plus two spaces, the closing bracket at `indent`
    (`[]` when empty): the layout `json.dumps(..., indent=2)` gives a list of flat objects, written block by block
    from the table's columns."""
    out.write("[")
    first = sep = f"\n{indent}  "
    for rows in _row_blocks(table):
        out.write(sep + f",\n{indent}  ".join(rows))
        sep = f",\n{indent}  "
    out.write("]" if sep == first else f"\n{indent}]")


def _write_doc(out: IO[str], res: Any) -> None:
    """`res.to_json()`'s document, its keys in its order: the tables (flows, links, nodes) streamed a row per
    line, everything else as `to_json` makes it (asked without the tables)."""
    from .tables import raw_table

    doc = res.to_json(tables=False)
    out.write("{\n")
    for i, (key, value) in enumerate(doc.items()):
        comma = "," if i < len(doc) - 1 else ""
        if key in _TABLES:
            out.write(f"  {json.dumps(key)}: ")
            write_rows(out, raw_table(res, key), "  ")
            out.write(comma + "\n")
        else:
            text = json.dumps(value, indent=2, allow_nan=False).replace("\n", "\n  ")
            out.write(f"  {json.dumps(key)}: {text}{comma}\n")
    out.write("}\n")


def write_json_with(path: str | os.PathLike[str] | None, write: Callable[[IO[str]], None]) -> None:
    """Call `write` on `path` opened for writing (`-`: standard output; None: nothing), as
    `core.clitools.write_json` does; a path that cannot be written is one `error:` line."""
    from ..core import clitools

    if path is None:
        return
    if str(path) == clitools.STDOUT:
        out = clitools._json_stream or sys.stdout
        write(out)
        out.flush()
        return
    p = Path(path)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        with open(p, "w", buffering=1 << 20) as f:
            write(f)
    except OSError as e:
        clitools.fail(f"cannot write JSON to {p}: {e.strerror}", hint="choose a writable path for --json")


def write_result_json(path: str | os.PathLike[str] | None, res: Any) -> None:
    """Write `res.to_json()`'s document to `path` (`-`: standard output; None: nothing)."""
    write_json_with(path, lambda out: _write_doc(out, res))


def check_parquet_dir(path: str | os.PathLike[str] | None) -> None:
    """Refuse, before any work, a --parquet folder that cannot be made or written."""
    from ..core.errors import GreendcnError

    if path is None:
        return
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise GreendcnError(f"--parquet: {p} is a file, not a folder", hint="give a folder for the tables")
    ancestor = p
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir() or not os.access(ancestor, os.W_OK | os.X_OK):
        raise GreendcnError(f"--parquet: cannot write into {ancestor}", hint="choose another folder")


def summary_row(res: Any) -> dict[str, Any]:
    """The summary as one row, its values as in the JSON (nested values as JSON text)."""
    from ..core.clitools import to_jsonable

    row = {}
    for k, v in to_jsonable(res.summary).items():
        row[k] = json.dumps(v) if isinstance(v, (dict, list)) else v
    return row


def summary_frame(res: Any) -> Any:
    """The summary as a one-row DataFrame (`summary_row`)."""
    import pandas as pd

    return pd.DataFrame([summary_row(res)])


def _arrow_table(table: Any) -> Any:
    """A result table (a DataFrame or `sim.tables.Columns`) as a pyarrow Table."""
    import pyarrow as pa

    from .tables import Columns

    if isinstance(table, Columns):
        return table.to_arrow()
    return pa.Table.from_pandas(table, preserve_index=False)


def write_parquet(path: str | os.PathLike[str] | None, res: Any) -> list[Path]:
    """Write flows.parquet, links.parquet, nodes.parquet and summary.parquet into folder `path`; the columns are
    the JSON's (a NaN, the JSON's null, is a null in Parquet). Returns the files written."""
    if path is None:
        return []
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ..core.arrowbuf import from_values
    from ..core.clitools import fail
    from .tables import raw_table

    p = Path(path)
    written = []
    try:
        p.mkdir(parents=True, exist_ok=True)
        for name in PARQUET_TABLES:
            if name == "summary":
                row = summary_row(res)
                table = pa.Table.from_arrays(
                    [from_values([v], large=True) for v in row.values()], names=list(row)
                )
            else:
                table = _arrow_table(raw_table(res, name))
            target = p / f"{name}.parquet"
            pq.write_table(table, target)
            written.append(target)
    except OSError as e:
        fail(f"cannot write Parquet to {p}: {e.strerror}", hint="choose a writable folder for --parquet")
    return written
