"""From log files to classified sightings: the default filters where a file has the fields, the scan, the UA
classification, progress on stderr. Shared by every command that reads logs."""

from __future__ import annotations

import csv
import dataclasses
import gzip
import json
import zlib
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from ..core.userfile import check_readable
from ..core.clitools import fail, info
from .sightings import SIGHTING_COLUMNS, classified_sightings

__all__ = [
    "FIELDS",
    "AUTO",
    "SEED_EVENTS",
    "SUCCESS_STATUSES",
    "fields_present",
    "merge_scans",
    "parse_columns",
    "parse_filter",
    "read_logs",
]

FIELDS = ("user", "time", "ua", "event", "app_device_id", "ch_model", "ch_platform_version", "status")
AUTO = "auto"
# Seed 001 kept only successful logins and logouts (line 1591). By default ("auto") the event filter keeps
# these where a file has an event column (CSV/JSONL), and the status filter keeps successful answers where a
# file has a status (every combined log; CSV/JSONL with a status column; a failed login answers 401).
SEED_EVENTS = ["login", "logout"]
SUCCESS_STATUSES = ["2xx", "3xx"]
_KEY = SIGHTING_COLUMNS[:6]


def parse_filter(text: str | None, name: str) -> list[str] | None | str:
    """A comma-separated filter option: a list, None for "all" (no filter), or AUTO."""
    if text is None or text.strip().lower() == AUTO:
        return AUTO
    if text.strip().lower() in ("", "all", "none"):
        return None
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        fail(f"--{name}: empty list", hint="give values separated by commas, 'all' for no filter, or 'auto'")
    return items


def parse_columns(pairs: Sequence[str] | None) -> dict[str, str] | None:
    """`FIELD=NAME` pairs mapping our fields to a CSV header's (or JSON object's) names."""
    if not pairs:
        return None
    out: dict[str, str] = {}
    for pair in pairs:
        field, sep, name = pair.partition("=")
        field, name = field.strip(), name.strip()
        if not sep or not name:
            fail(f"--column {pair!r}: expected FIELD=NAME", hint="e.g. --column user=student_id")
        if field not in FIELDS:
            fail(f"--column {pair!r}: unknown field {field!r}", hint=f"fields: {', '.join(FIELDS)}")
        out[field] = name
    return out


def _first_line(path: Path, limit: int = 1 << 20) -> str:
    """The first non-empty line (of the decompressed text for gzip), or "" if none can be read."""
    try:
        with open(path, "rb") as raw:
            gz = raw.read(2) == b"\x1f\x8b"
        with gzip.open(path, "rb") if gz else open(path, "rb") as f:
            seen = 0
            for line in f:
                seen += len(line)
                if line.strip():
                    return line.strip().decode("utf-8", "replace")
                if seen > limit:
                    break
    except (OSError, EOFError, zlib.error):
        pass
    return ""


def fields_present(path: Path, fmt: str, columns: dict[str, str] | None) -> set[str]:
    """Which of `event` and `status` a log carries, judged from its first line: a JSON object's keys, a CSV
    header naming the mapped columns, else a combined log (a status, no event)."""
    names = {f: (columns or {}).get(f, f) for f in FIELDS}
    line = _first_line(path)
    if fmt in (AUTO, "jsonl") and line.startswith("{"):
        try:
            keys = set(json.loads(line))
        except (ValueError, TypeError):
            keys = set()
        return {f for f in ("event", "status") if names[f] in keys}
    try:
        header = set(next(csv.reader([line]), [])) if line else set()
    except csv.Error:  # a NUL byte or a stray quote: not a CSV header; the scanner reports the lines
        header = set()
    if fmt == "csv" or (fmt == AUTO and {names["user"], names["time"], names["ua"]} <= header):
        return {f for f in ("event", "status") if names[f] in header}
    return {"status"}


def _stats(stats) -> dict:
    if dataclasses.is_dataclass(stats) and not isinstance(stats, type):
        return dataclasses.asdict(stats)
    return dict(stats)


def merge_scans(parts: list[tuple[pd.DataFrame, dict]]) -> tuple[pd.DataFrame, dict]:
    """Sightings and statistics of several scans as if of one: rows with one key are merged."""
    if len(parts) == 1:
        return parts[0]
    frames = [p[0] for p in parts]
    sightings = (
        pd.concat(frames, ignore_index=True)
        .groupby(list(_KEY), sort=True, as_index=False)
        .agg(first_s=("first_s", "min"), last_s=("last_s", "max"), hits=("hits", "sum"))
    )
    stats: dict = {}
    for _, s in parts:
        for k, v in s.items():
            if isinstance(v, dict):
                acc = stats.setdefault(k, {})
                for kk, vv in v.items():
                    acc[kk] = acc.get(kk, 0) + vv
            elif isinstance(v, list):
                stats.setdefault(k, []).extend(v)
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                stats[k] = stats.get(k, 0) + v
            else:
                stats.setdefault(k, v)
    return sightings[list(SIGHTING_COLUMNS)], stats


# Our bounds of a plausible access: not before 1995 (no browser of our tables is older), not after tomorrow
# (clock skew between the log's host and this one is allowed a day). Outside them a line's age is meaningless.
EARLIEST_ACCESS_S = 788_918_400  # 1995-01-01 UTC


def _names(paths: Sequence[Path]) -> str:
    names = [str(p) for p in paths]
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _drop_out_of_range(sightings: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    import time

    latest = time.time() + 86_400
    bad = (sightings["last_s"] > latest) | (sightings["first_s"] < EARLIEST_ACCESS_S)
    n = int(bad.sum())
    if n:
        months = sorted(sightings.loc[bad, "month"].unique())
        info(
            f"warning: {n} sightings dated outside 1995-01 .. tomorrow (months {', '.join(months[:3])}"
            f"{' ...' if len(months) > 3 else ''}) are left out: ages from them would be meaningless; "
            "check the log's clock"
        )
    return sightings[~bad].reset_index(drop=True), n


def read_logs(
    paths: Sequence[Path],
    fmt: str = AUTO,
    columns: dict[str, str] | None = None,
    events: list[str] | None | str = AUTO,
    statuses: list[str] | None | str = AUTO,
    max_line_bytes: int = 65536,
) -> tuple[pd.DataFrame, dict]:
    """Scan the logs and classify their sightings; return (classified sightings, scan statistics).

    With `events`/`statuses` AUTO, each file gets the seed's filter only if it has the field (see above);
    files needing different filters are scanned apart and their sightings merged."""
    from .scan import scan_logs

    if not paths:
        fail("no log files given", hint="give one or more access logs, e.g. access.log.gz")
    for p in paths:
        check_readable(p, "log")
    groups: dict[tuple, list[str]] = {}
    for p in paths:
        present = fields_present(Path(p), fmt, columns) if AUTO in (events, statuses) else set()
        ev = (SEED_EVENTS if "event" in present else None) if events == AUTO else events
        st = (SUCCESS_STATUSES if "status" in present else None) if statuses == AUTO else statuses
        groups.setdefault((tuple(ev) if ev else None, tuple(st) if st else None), []).append(str(p))
    info(f"scanning {len(paths)} file(s)")
    parts, applied = [], []
    for (ev, st), files in groups.items():
        try:
            res = scan_logs(
                files,
                fmt=fmt,
                columns=columns,
                events=list(ev) if ev else None,
                statuses=list(st) if st else None,
                max_line_bytes=max_line_bytes,
                progress=True,
            )
        except OSError as e:
            fail(
                f"{getattr(e, 'filename', None) or 'input'}: cannot be read ({e.strerror or e})",
                hint="check that the files are complete and readable",
            )
        parts.append((res.sightings, _stats(res.stats)))
        applied.append(
            {"files": files, "events": list(ev) if ev else None, "statuses": list(st) if st else None}
        )
    sightings, stats = merge_scans(parts)
    stats["filters"] = applied
    bad = sum(stats.get("malformed", {}).values())
    filtered = sum(v for k, v in stats.items() if k.startswith("filtered_") and isinstance(v, int))
    info(
        f"read {stats.get('lines_read', 0)} lines: {stats.get('kept', 0)} kept, {filtered} filtered, "
        f"{bad} malformed"
    )
    if stats.get("lines_read", 0) and not stats.get("parsed", 0):
        fail(
            f"{_names(paths)}: no line of the logs could be read: {bad} malformed of {stats.get('lines_read', 0)} "
            f"({', '.join(f'{k} {v}' for k, v in stats.get('malformed', {}).items() if v)})",
            hint="check the format (--format combined, csv or jsonl) and the column names (--column)",
        )
    if not stats.get("lines_read", 0):
        fail(
            f"{_names(paths)}: the logs hold no line to read",
            hint="give access logs with at least one request line",
        )
    sightings, stats["out_of_range_sightings"] = _drop_out_of_range(sightings)
    info(f"classifying {sightings['ua'].nunique()} distinct user agents in {len(sightings)} sightings")
    return classified_sightings(sightings), stats
