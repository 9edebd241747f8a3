"""Shared manners of every greendcn command: JSON output, `error:`/`hint:` messages, progress on stderr.

Data goes to stdout, logs and progress to stderr; NO_COLOR is respected (we print no colour at all)."""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from .errors import GreendcnError

__all__ = [
    "JsonOption",  # noqa: F822  # made on first use (__getattr__)
    "check_output_path",
    "echo_table",
    "fail",
    "finite_float",
    "info",
    "to_jsonable",
    "write_json",
]

STDOUT = "-"
_json_stream: Any = None  # where `--json -` writes: the standard output as it was before the command began


def check_output_path(path: str | os.PathLike[str] | None, option: str = "--json") -> None:
    """Refuse, before any work, an output path that cannot be written: a folder, a file or folder without
    write permission, a parent that is a file. `-` means standard output."""
    if path is None or str(path) == STDOUT:
        return
    p = Path(path)
    if p.is_dir():
        raise GreendcnError(
            f"{option}: {p} is a folder", hint=f"give a file name for {option}, e.g. {p}/out.json"
        )
    if p.exists() and not os.access(p, os.W_OK):
        raise GreendcnError(f"{option}: {p} is not writable", hint="choose another path")
    ancestor = p.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise GreendcnError(
            f"{option}: {ancestor} is a file, so {p} cannot be created", hint="choose another path"
        )
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise GreendcnError(
            f"{option}: cannot create {p}: {ancestor} is not writable", hint="choose another path"
        )


def json_option_callback(value: Path | None) -> Path | None:
    """What `--json` does as soon as it is parsed: check the path, and for `-` send people's output to stderr."""
    check_output_path(value, "--json")
    if value is not None and str(value) == STDOUT:
        # The JSON document alone goes to standard output; everything printed for people goes to stderr.
        global _json_stream
        _json_stream = sys.stdout
        sys.stdout = sys.stderr
    return value


def __getattr__(name: str) -> Any:
    # JsonOption, the commands' `--json` option, is made when a command module first asks for it, so that this
    # module imports no typer (greendcn/launch.py runs a plain `simulate` without it).
    if name != "JsonOption":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import typer

    option = typer.Option(
        None,
        "--json",
        callback=json_option_callback,
        help="Also write the results as JSON to this path ('-': standard output).",
    )
    globals()["JsonOption"] = option
    return option


def finite_float(text: str) -> float:
    """A typer `parser` for float options: a number, finite (NaN and infinities are refused)."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text!r} is not a finite number")
    return value


def fail(message: str, hint: str | None = None) -> NoReturn:
    """Stop a command with a clear message and exit status 1."""
    raise GreendcnError(message, hint)


def info(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def to_jsonable(obj: Any) -> Any:
    """Turn numpy/pandas values, dataclasses and paths into plain JSON values; NaN and inf become null."""
    kind = type(obj)
    if kind is str or kind is int or kind is bool or obj is None:  # the most common values, answered first
        return obj
    if kind is float:
        return obj if math.isfinite(obj) else None
    import dataclasses

    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return to_jsonable(dataclasses.asdict(obj))
    if hasattr(obj, "to_dict") and hasattr(obj, "columns"):  # a DataFrame
        return to_jsonable(obj.to_dict(orient="records"))
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "item") and callable(obj.item):  # numpy scalar
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def write_json(path: str | os.PathLike[str] | None, payload: Any) -> None:
    """Write `payload` as JSON to `path` (no-op when path is None; `-` is standard output), creating parent
    folders."""
    if path is None:
        return
    if str(path) == STDOUT:
        out = _json_stream or sys.stdout
        out.write(json.dumps(to_jsonable(payload), indent=2, allow_nan=False) + "\n")
        out.flush()
        return
    p = Path(path)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(to_jsonable(payload), indent=2, allow_nan=False) + "\n")
    except OSError as e:
        fail(f"cannot write JSON to {p}: {e.strerror}", hint="choose a writable path for --json")


def write_csv(rows: list[dict[str, Any]], path: str | os.PathLike[str], columns: Sequence[str]) -> None:
    """Write result rows as CSV with exactly `columns`, in order; a missing or None value is an empty field,
    keys beyond `columns` are left out."""
    import csv

    with Path(path).open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(columns), extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in columns})


def echo_table(rows: list[dict[str, Any]], columns: list[str] | None = None, floatfmt: str = ".4g") -> None:
    """Print rows as an aligned plain-text table on stdout."""
    if not rows:
        print("(no rows)")
        return
    cols = columns or list(rows[0].keys())

    def fmt(v: Any) -> str:
        if v is None:
            return "-"
        if isinstance(v, float):
            return "nan" if math.isnan(v) else format(v, floatfmt)
        return str(v)

    cells = [[fmt(r.get(c)) for c in cols] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
    print("  ".join(c.rjust(w) for c, w in zip(cols, widths)))
    for row in cells:
        print("  ".join(v.rjust(w) for v, w in zip(row, widths)))
