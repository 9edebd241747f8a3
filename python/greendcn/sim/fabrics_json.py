"""`--json` of the fabric comparison on a workload (`greendcn fabrics --workload`): the document `write_json`
writes, with each fabric's `flow_list` (a `fabrics.FlowRows`) streamed from its columns a row per line
(sim/output.py's encoder), so a 100,000-flow comparison needs no dict per flow and no indented encoding of
them. The values are the same as `json.dumps(to_jsonable(doc))`."""

from __future__ import annotations

import json
import os
import re
from typing import IO, Any

__all__ = ["write_fabrics_json"]

_MARK = "\0greendcn-rows-{}\0"  # a string no result holds: where a table's rows go
_MARKED = re.compile(r'"\\u0000greendcn-rows-(\d+)\\u0000"')


def _write_doc(out: IO[str], doc: Any) -> None:
    from ..core.clitools import to_jsonable
    from .fabrics import FlowRows
    from .output import write_rows

    tables: list[Any] = []

    def mark(v: Any) -> Any:
        if isinstance(v, FlowRows):
            tables.append(v.table)
            return _MARK.format(len(tables) - 1)
        if isinstance(v, dict):
            return {k: mark(x) for k, x in v.items()}
        if isinstance(v, list):
            return [mark(x) for x in v]
        return v

    text = json.dumps(to_jsonable(mark(doc)), indent=2, allow_nan=False)
    parts = _MARKED.split(text)
    out.write(parts[0])
    for i in range(1, len(parts), 2):
        line = parts[i - 1].rsplit("\n", 1)[-1]  # the line that names the table, e.g. `"flow_list": `
        indent = line[: len(line) - len(line.lstrip(" "))]
        write_rows(out, tables[int(parts[i])], indent)
        out.write(parts[i + 1])
    out.write("\n")


def write_fabrics_json(path: str | os.PathLike[str] | None, doc: Any) -> None:
    """Write `doc` to `path` (`-`: standard output; None: nothing), as `core.clitools.write_json` does."""
    from .output import write_json_with

    write_json_with(path, lambda out: _write_doc(out, doc))
