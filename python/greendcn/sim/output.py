"""Writing a simulation's results: `--json` (the document of `SimResult.to_json`, written table by table, a
row per line, so a million flows need no copy of the document in memory) and `--parquet DIR` (one Parquet file
per table: flows, links, nodes, summary, with the JSON's columns)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np

__all__ = ["PARQUET_TABLES", "check_parquet_dir", "json_lines", "write_parquet", "write_result_json"]

PARQUET_TABLES = ("flows", "links", "nodes", "summary")
_TABLES = ("flows", "links", "nodes")


def json_lines(df: Any, chunk: int = 1 << 16) -> Iterator[str]:
    """Each row of a DataFrame as JSON text, the text `json.dumps` gives its `to_jsonable` record; encoded a
    column at a time, `chunk` rows at once (so memory stays a chunk's, whatever the table's length)."""
    template = "{" + ", ".join(f"{json.dumps(str(c))}: %s" for c in df.columns) + "}"
    for first in range(0, len(df), chunk):
        part = df.iloc[first : first + chunk]
        encoded = [_encoded(part.iloc[:, i]) for i in range(part.shape[1])]
        for row in zip(*encoded):
            yield template % row


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


def _write_doc(out: IO[str], res: Any) -> None:
    """`res.to_json()`'s document, its keys in its order: the tables (flows, links, nodes) streamed a row per
    line, everything else as `to_json` makes it (asked of a copy of the result with empty tables)."""
    import dataclasses

    empty = {name: getattr(res, name).iloc[:0] for name in _TABLES}
    doc = dataclasses.replace(res, **empty).to_json()
    out.write("{\n")
    for i, (key, value) in enumerate(doc.items()):
        comma = "," if i < len(doc) - 1 else ""
        if key in _TABLES:
            out.write(f"  {json.dumps(key)}: [")
            sep = "\n    "
            for line in json_lines(getattr(res, key)):
                out.write(sep + line)
                sep = ",\n    "
            out.write(("]" if sep == "\n    " else "\n  ]") + comma + "\n")
        else:
            text = json.dumps(value, indent=2, allow_nan=False).replace("\n", "\n  ")
            out.write(f"  {json.dumps(key)}: {text}{comma}\n")
    out.write("}\n")


def write_result_json(path: str | os.PathLike[str] | None, res: Any) -> None:
    """Write `res.to_json()`'s document to `path` (`-`: standard output; None: nothing)."""
    from ..core import clitools

    if path is None:
        return
    if str(path) == clitools.STDOUT:
        out = clitools._json_stream or sys.stdout
        _write_doc(out, res)
        out.flush()
        return
    p = Path(path)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        with open(p, "w", buffering=1 << 20) as f:
            _write_doc(f, res)
    except OSError as e:
        clitools.fail(f"cannot write JSON to {p}: {e.strerror}", hint="choose a writable path for --json")


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


def summary_frame(res: Any) -> Any:
    """The summary as a one-row table, its values as in the JSON (nested values as JSON text)."""
    import pandas as pd

    from ..core.clitools import to_jsonable

    row = {}
    for k, v in to_jsonable(res.summary).items():
        row[k] = json.dumps(v) if isinstance(v, (dict, list)) else v
    return pd.DataFrame([row])


def write_parquet(path: str | os.PathLike[str] | None, res: Any) -> list[Path]:
    """Write flows.parquet, links.parquet, nodes.parquet and summary.parquet into folder `path`; the columns are
    the JSON's (NaN stays NaN in Parquet: a float column's missing value). Returns the files written."""
    if path is None:
        return []
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ..core.clitools import fail

    p = Path(path)
    written = []
    try:
        p.mkdir(parents=True, exist_ok=True)
        for name in PARQUET_TABLES:
            df = summary_frame(res) if name == "summary" else getattr(res, name)
            table = pa.Table.from_pandas(df, preserve_index=False)
            target = p / f"{name}.parquet"
            pq.write_table(table, target)
            written.append(target)
    except OSError as e:
        fail(f"cannot write Parquet to {p}: {e.strerror}", hint="choose a writable folder for --parquet")
    return written
