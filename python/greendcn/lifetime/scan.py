"""Access logs in, sightings out: the compiled scanner (crates/logscan) behind the contract of docs/lifetime.md,
section "Scanner -> analyses". Input rules: docs/lifetime.md, "Input formats and malformed lines"."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError

__all__ = [
    "FORMATS",
    "FIELDS",
    "REASONS",
    "SIGHTING_COLUMNS",
    "ScanResult",
    "ScanStats",
    "scan_logs",
    "scan_logs_reference",
]

FORMATS = ("auto", "combined", "csv", "jsonl")
FIELDS = ("user", "time", "ua", "event", "app_device_id", "ch_model", "ch_platform_version", "status")
REQUIRED_FIELDS = ("user", "time", "ua")
REASONS = ("quoting", "time", "no_ua", "bad_utf8", "over_long", "fields")
SIGHTING_COLUMNS = (
    "user",
    "ua",
    "app_device_id",
    "ch_model",
    "ch_platform_version",
    "month",
    "first_s",
    "last_s",
    "hits",
)
_KEY_COLUMNS = SIGHTING_COLUMNS[:6]
# Below this many bytes a scan is short and prints no progress.
_PROGRESS_MIN_BYTES = 64 << 20
_INPUT_HINT = "give one or more access logs: combined, CSV or JSON lines, plain or .gz"


@dataclass
class ScanStats:
    """Counts of one scan. `parsed + sum(malformed.values()) == lines_read` and
    `kept + filtered_event + filtered_status + filtered_user == parsed`. Blank lines and CSV header rows are
    not lines read; they are counted in `blank_lines` and not at all."""

    lines_read: int = 0
    parsed: int = 0
    kept: int = 0
    filtered_event: int = 0
    filtered_status: int = 0
    filtered_user: int = 0
    malformed: dict[str, int] = field(default_factory=lambda: dict.fromkeys(REASONS, 0))
    blank_lines: int = 0
    bytes_read: int = 0
    files: int = 0
    formats: list[tuple[str, str]] = field(default_factory=list)
    gzip_errors: list[dict[str, Any]] = field(default_factory=list)

    def __getitem__(self, key: str) -> Any:
        """Mapping-style access (`stats["kept"]`), the same values as the attributes."""
        if key not in {f.name for f in dataclasses.fields(self)}:
            raise KeyError(key)
        return getattr(self, key)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @property
    def malformed_total(self) -> int:
        return sum(self.malformed.values())


@dataclass
class ScanResult:
    """`sightings`: one row per distinct (user, ua, app_device_id, ch_model, ch_platform_version, month), sorted
    by those columns, with `first_s`, `last_s` (Unix seconds, UTC) and `hits`. `stats`: a ScanStats."""

    sightings: pd.DataFrame
    stats: ScanStats


@dataclass(frozen=True)
class _Options:
    paths: list[str]
    fmt: str
    columns: dict[str, str]  # only the explicitly mapped fields
    events: frozenset[str] | None
    statuses: tuple[str, ...] | None
    max_line_bytes: int


def _check_path(p: str) -> None:
    if not os.path.exists(p):
        raise InputError(f"{p}: no such file", hint=f"check the path; {_INPUT_HINT}")
    if os.path.isdir(p):
        raise InputError(f"{p}: is a directory", hint=f"give the log files inside it (e.g. {p}/*.log.gz)")
    try:
        with open(p, "rb"):
            pass
    except OSError as e:
        raise InputError(f"{p}: cannot read: {e.strerror}", hint="check the file's permissions") from None


def _options(
    paths: Any,
    fmt: str,
    columns: Mapping[str, str] | None,
    events: Iterable[str] | None,
    statuses: Iterable[str | int] | None,
    max_line_bytes: int,
) -> _Options:
    """Validate the arguments shared by both scanners; every error names its argument."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [os.fspath(p) for p in paths]
    if not paths:
        raise InputError("paths: no log file given", hint=_INPUT_HINT)
    if fmt not in FORMATS:
        raise InputError(f"fmt: unknown format {fmt!r}", hint=f"use one of {', '.join(FORMATS)}")
    cols = dict(columns or {})
    for k, v in cols.items():
        if k not in FIELDS:
            raise InputError(f"columns.{k}: unknown field", hint=f"map these fields: {', '.join(FIELDS)}")
        if not isinstance(v, str) or not v:
            raise InputError(
                f"columns.{k}: column name must be a non-empty string, got {v!r}",
                hint="map each field to the file's column (CSV) or key (JSONL) name",
            )
    ev = None if events is None else frozenset(events)
    if ev is not None and not all(isinstance(e, str) for e in ev):
        raise InputError("events: every event must be a string", hint="e.g. events={'login', 'logout'}")
    st = None
    if statuses is not None:
        st = tuple(str(s).strip() for s in statuses)
        for s in st:
            ok = (
                len(s) == 3
                and s[0] in "123456789"
                and (s[1:] in ("xx", "XX") or s[1:].isascii() and s[1:].isdigit())
            )
            if not ok:
                raise InputError(
                    f"statuses: {s!r} is neither a status code (100-999) nor a class",
                    hint="give codes like 200 or 302, or classes like '2xx'",
                )
    if not isinstance(max_line_bytes, int) or not 64 <= max_line_bytes <= 1 << 30:
        raise InputError(
            f"max_line_bytes: {max_line_bytes!r} is outside 64..{1 << 30}",
            hint="the default, 65536, fits any real access-log line",
        )
    for p in paths:
        _check_path(p)
    return _Options(paths, fmt, cols, ev, st, max_line_bytes)


class _Progress:
    """Bytes read so far, on stderr, for scans of at least 64 MiB."""

    def __init__(self, paths: list[str], enabled: bool):
        from tqdm import tqdm

        total = sum(os.path.getsize(p) for p in paths)
        self.bar = tqdm(
            total=total,
            unit="B",
            unit_scale=True,
            desc="scan",
            file=sys.stderr,
            leave=False,
            disable=not enabled or total < _PROGRESS_MIN_BYTES,
        )
        self.done = 0

    def __call__(self, bytes_read: int) -> None:
        self.bar.update(bytes_read - self.done)
        self.done = bytes_read

    def close(self) -> None:
        self.bar.close()


def _frame(
    dicts: Mapping[str, list[str]], codes: Mapping[str, np.ndarray], numbers: Mapping[str, np.ndarray]
) -> pd.DataFrame:
    """The sightings DataFrame from dictionary-coded string columns and int64 columns (no loop over rows)."""
    data: dict[str, Any] = {}
    for col in _KEY_COLUMNS:
        table = np.asarray(dicts[col], dtype=object)
        data[col] = pd.Series(table[codes[col]] if len(table) else np.array([], dtype=object), dtype=str)
    for col in ("first_s", "last_s", "hits"):
        data[col] = np.asarray(numbers[col], dtype=np.int64)
    return pd.DataFrame(data, columns=list(SIGHTING_COLUMNS), copy=False)


_DICT_KEYS = {
    "user": "users",
    "ua": "uas",
    "app_device_id": "app_device_ids",
    "ch_model": "ch_models",
    "ch_platform_version": "ch_platform_versions",
    "month": "months",
}


def header_error(message: str) -> InputError:
    """A CSV header that cannot be used: the whole scan stops (the file is not what the caller said)."""
    return InputError(
        message,
        hint="map the fields to the file's columns with "
        "columns={'user': ..., 'time': ..., 'ua': ...}, or choose another fmt",
    )


def _compiled_error(e: Exception) -> InputError:
    kind, where, message = e.args if len(e.args) == 3 else ("", "", str(e))
    if kind == "header":
        return header_error(f"{where}: {message}")
    if kind == "io":
        return InputError(f"{where}: cannot read: {message}", hint=f"check the path; {_INPUT_HINT}")
    return InputError(f"{where}: {message}", hint="see docs/lifetime.md, 'Input formats and malformed lines'")


def scan_logs(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    *,
    fmt: str = "auto",
    columns: Mapping[str, str] | None = None,
    events: Iterable[str] | None = None,
    statuses: Iterable[str | int] | None = None,
    max_line_bytes: int = 65536,
    progress: bool = True,
) -> ScanResult:
    r"""Scan access logs in one pass of compiled code and aggregate them into sightings.

    >>> import pathlib, tempfile
    >>> log = pathlib.Path(tempfile.mkdtemp()) / "access.log"
    >>> _ = log.write_text('10.0.0.1 - alice [31/Oct/2023:23:30:00 -0400] "GET / HTTP/1.1" 200 5 "-" "Mozilla/5.0"\n')
    >>> r = scan_logs(log, progress=False)
    >>> r.sightings[["user", "ua", "month", "first_s", "hits"]].values.tolist()
    [['alice', 'Mozilla/5.0', '2023-11', 1698809400, 1]]
    >>> r.stats.lines_read, r.stats.kept, r.stats.formats
    (1, 1, [('...access.log', 'combined')])
    """
    from .. import _native

    o = _options(paths, fmt, columns, events, statuses, max_line_bytes)
    bar = _Progress(o.paths, progress)
    try:
        out = _native.scan_logs(
            o.paths,
            o.fmt,
            sorted(o.columns.items()),
            None if o.events is None else sorted(o.events),
            None if o.statuses is None else list(o.statuses),
            o.max_line_bytes,
            bar,
        )
    except _native.LogScanError as e:
        raise _compiled_error(e) from None
    finally:
        bar.close()
    dicts = {col: out[_DICT_KEYS[col]] for col in _KEY_COLUMNS}
    codes = {col: np.frombuffer(out[col], dtype="<u4") for col in _KEY_COLUMNS}
    numbers = {col: np.frombuffer(out[col], dtype="<i8") for col in ("first_s", "last_s", "hits")}
    s = out["stats"]
    stats = ScanStats(
        **{
            k: s[k]
            for k in (
                "lines_read",
                "parsed",
                "kept",
                "filtered_event",
                "filtered_status",
                "filtered_user",
                "blank_lines",
                "bytes_read",
                "files",
            )
        },
        malformed=dict(s["malformed"]),
        formats=[tuple(f) for f in s["formats"]],
        gzip_errors=list(s["gzip_errors"]),
    )
    return ScanResult(_frame(dicts, codes, numbers), stats)


def scan_logs_reference(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    *,
    fmt: str = "auto",
    columns: Mapping[str, str] | None = None,
    events: Iterable[str] | None = None,
    statuses: Iterable[str | int] | None = None,
    max_line_bytes: int = 65536,
    progress: bool = False,
) -> ScanResult:
    """The same contract in plain Python (slow): the oracle the compiled scanner is tested against."""
    from .scan_reference import scan_reference

    o = _options(paths, fmt, columns, events, statuses, max_line_bytes)
    bar = _Progress(o.paths, progress)
    try:
        rows, stats = scan_reference(o.paths, o.fmt, o.columns, o.events, o.statuses, o.max_line_bytes, bar)
    finally:
        bar.close()
    rows.sort(key=lambda r: r[:6])
    dicts: dict[str, list[str]] = {}
    codes: dict[str, np.ndarray] = {}
    for i, col in enumerate(_KEY_COLUMNS):
        values = sorted({r[i] for r in rows})
        index = {v: k for k, v in enumerate(values)}
        dicts[col] = values
        codes[col] = np.array([index[r[i]] for r in rows], dtype=np.int64)
    numbers = {
        col: np.array([r[6 + i] for r in rows], dtype=np.int64)
        for i, col in enumerate(("first_s", "last_s", "hits"))
    }
    return ScanResult(_frame(dicts, codes, numbers), stats)
