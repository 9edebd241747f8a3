"""From log files to classified sightings: input checks, the scan, the UA classification, progress on
stderr. Shared by every command that reads logs."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from ..clitools import fail, info
from .sightings import classified_sightings

__all__ = ["FIELDS", "DEFAULT_EVENTS", "DEFAULT_STATUSES", "check_inputs", "parse_columns", "parse_list",
           "read_logs"]

FIELDS = ("user", "time", "ua", "event", "app_device_id", "ch_model", "ch_platform_version", "status")
# Seed 001 kept only successful logins and logouts (line 1591). The event filter applies where the input
# has an event field; the status filter keeps successful requests (a failed login answers 401).
DEFAULT_EVENTS = "login,logout"
DEFAULT_STATUSES = "2xx,3xx"


def check_inputs(paths: Sequence[Path]) -> list[Path]:
    """Every path exists, is a file and opens for reading; otherwise an `error:` and a `hint:`."""
    if not paths:
        fail("no log files given", hint="give one or more access logs, e.g. access.log.gz")
    out = []
    for p in paths:
        p = Path(p)
        if not p.exists():
            fail(f"{p}: no such file", hint="check the path; logs may be plain or .gz")
        if p.is_dir():
            fail(f"{p}: is a directory, not a log file", hint=f"give the files inside it, e.g. {p}/*.log")
        try:
            with open(p, "rb"):
                pass
        except OSError as e:
            fail(f"{p}: cannot be read ({e.strerror})", hint="check the file's permissions")
        out.append(p)
    return out


def parse_list(text: str | None, name: str) -> list[str] | None:
    """A comma-separated option; "all" (or empty) means no filter."""
    if text is None or text.strip().lower() in ("", "all", "none"):
        return None
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        fail(f"{name}: empty list", hint=f"give values separated by commas, or 'all' for no {name} filter")
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


def _stats(stats) -> dict:
    if dataclasses.is_dataclass(stats) and not isinstance(stats, type):
        return dataclasses.asdict(stats)
    return dict(stats)


def read_logs(paths: Sequence[Path], fmt: str = "auto", columns: dict[str, str] | None = None,
              events: list[str] | None = None, statuses: list[str] | None = None,
              max_line_bytes: int = 65536) -> tuple[pd.DataFrame, dict]:
    """Scan the logs and classify their sightings; return (classified sightings, scan statistics)."""
    paths = check_inputs(paths)
    from .scan import scan_logs

    info(f"scanning {len(paths)} file(s)")
    try:
        res = scan_logs([str(p) for p in paths], fmt=fmt, columns=columns, events=events, statuses=statuses,
                        max_line_bytes=max_line_bytes, progress=True)
    except OSError as e:
        fail(f"{getattr(e, 'filename', None) or 'input'}: cannot be read ({e.strerror or e})",
             hint="check that the files are complete and readable")
    stats = _stats(res.stats)
    bad = sum(stats.get("malformed", {}).values())
    info(f"read {stats.get('lines_read', 0)} lines: {stats.get('kept', 0)} kept, "
         f"{stats.get('filtered_event', 0) + stats.get('filtered_status', 0)} filtered, {bad} malformed")
    sightings = res.sightings
    info(f"classifying {sightings['ua'].nunique()} distinct user agents in {len(sightings)} sightings")
    cs = classified_sightings(sightings)
    return cs, stats
