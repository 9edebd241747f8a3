"""The scanner's contract in plain Python, written apart from the compiled scanner so that tests can compare
the two line by line (docs/lifetime.md, "Input formats and malformed lines"). Slow; for tests only.

Known divergence: a JSON line nested deeper than Python's recursion limit (about 1000 levels) is `fields`
here even when it is valid JSON; the compiled scanner reads any depth."""

from __future__ import annotations

import gzip
import json
import math
import re
import zlib
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from typing import Any

from .scan import FIELDS, REQUIRED_FIELDS, ScanStats, header_error

MAX_UNIX_S = 253_402_300_799  # 9999-12-31T23:59:59Z
_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
_COMBINED_TIME = re.compile(
    r"([0-9]{2})/([A-Za-z]{3})/([0-9]{4}):([0-9]{2}):([0-9]{2}):([0-9]{2}) "
    r"([+-])([0-9]{2})([0-9]{2})"
)
_ISO_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2}):([0-9]{2})"
    r"(?:[.,][0-9]+)?(Z|z|[+-][0-9]{2}(?::?[0-9]{2})?)?"
)
_EPOCH_LIKE = re.compile(r"[0-9][0-9.]*")
_EPOCH = re.compile(r"([0-9]+)(?:\.[0-9]+)?")
_STATUS = re.compile(r"[1-9][0-9]{2}")
_ESCAPE = re.compile(rb'\\(["\\bnrtv]|x[0-9a-fA-F]{2})')
_ESCAPES = {b'"': b'"', b"\\": b"\\", b"b": b"\x08", b"n": b"\n", b"r": b"\r", b"t": b"\t", b"v": b"\x0b"}
_CSV_BARE = re.compile(r'[^,"]*')
_JSON_QUOTING = ("Unterminated string", "Invalid control character", "Invalid \\escape", "Invalid \\uXXXX")


class Malformed(Exception):
    """A line is malformed; args[0] is the reason."""


# ---- time ---------------------------------------------------------------------------------------------------


def _instant(y: int, mo: int, d: int, h: int, mi: int, s: int, offset_s: int) -> int | None:
    try:
        local = datetime(y, mo, d, h, mi, s, tzinfo=timezone.utc)
    except ValueError:
        return None
    t = int(local.timestamp()) - offset_s
    return t if 0 <= t <= MAX_UNIX_S else None


def combined_time(text: str) -> int | None:
    m = _COMBINED_TIME.fullmatch(text)
    if not m or m[2] not in _MONTHS:
        return None
    oh, om = int(m[8]), int(m[9])
    if oh > 23 or om > 59:
        return None
    off = (1 if m[7] == "+" else -1) * (oh * 3600 + om * 60)
    return _instant(int(m[3]), _MONTHS.index(m[2]) + 1, int(m[1]), int(m[4]), int(m[5]), int(m[6]), off)


def text_time(text: str) -> int | None:
    """CSV text or a JSON string: epoch seconds (digits, optional fraction) or ISO 8601."""
    if _EPOCH_LIKE.fullmatch(text):
        m = _EPOCH.fullmatch(text)
        return int(m[1]) if m and int(m[1]) <= MAX_UNIX_S else None
    m = _ISO_TIME.fullmatch(text)
    if not m:
        return None
    off = 0
    zone = m[7]
    if zone and zone not in "Zz":
        digits = zone[1:].replace(":", "")
        oh, om = int(digits[:2]), int(digits[2:] or 0)
        if oh > 23 or om > 59:
            return None
        off = (1 if zone[0] == "+" else -1) * (oh * 3600 + om * 60)
    return _instant(*(int(m[i]) for i in range(1, 7)), off)


def number_time(token: str) -> int | None:
    """A JSON number as written."""
    if any(c in token for c in ".eE"):
        v = float(token)
        if not math.isfinite(v):
            return None
        f = math.floor(v)
        return f if 0 <= f <= MAX_UNIX_S else None
    v = int(token)
    return v if 0 <= v <= MAX_UNIX_S else None


def month_of(t: int) -> str:
    d = datetime.fromtimestamp(t, timezone.utc)
    return f"{d.year:04d}-{d.month:02d}"


# ---- field rules --------------------------------------------------------------------------------------------


def _dash(v: str) -> str:
    return "" if v == "-" else v


def _hint(v: str) -> str:
    if len(v) >= 2 and v[0] == '"' and v[-1] == '"':
        v = v[1:-1]
    return _dash(v)


class _Num(str):
    """A JSON number kept as its text."""


def _fields_from_values(values: dict[str, Any]) -> dict[str, Any]:
    """CSV/JSONL values (str, _Num or None per field) to the fields a line gives."""

    def text(k: str) -> str:
        v = values.get(k)
        return "" if v is None else _dash(str(v))

    t = values.get("time")
    if isinstance(t, _Num):
        time: tuple[str, str] | None = ("number", str(t))
    else:
        time = ("text", text("time")) if text("time") else None
    st = values.get("status")
    return {
        "user": text("user"),
        "ua": text("ua"),
        "time": time,
        "event": text("event"),
        "app_device_id": text("app_device_id"),
        "ch_model": _hint(text("ch_model")),
        "ch_platform_version": _hint(text("ch_platform_version")),
        "status": int(st) if st is not None and _STATUS.fullmatch(str(st)) else None,
    }


# ---- combined -----------------------------------------------------------------------------------------------


def _unescape(raw: bytes) -> bytes:
    def one(m: re.Match[bytes]) -> bytes:
        e = m[1]
        return bytes([int(e[1:], 16)]) if e[:1] == b"x" else _ESCAPES[e]

    return _ESCAPE.sub(one, raw)


def _closing_quote(s: str, start: int) -> int:
    """Index of the quote closing a value that starts at `start` (after the opening quote); -1 if none."""
    i = start
    while i < len(s):
        c = s[i]
        if c == '"':
            return i
        i += 2 if c == "\\" else 1
    return -1


def _has_stray_quote(tok: str) -> bool:
    return _closing_quote(tok, 0) >= 0


def _bare(s: str, p: int) -> tuple[str, int]:
    end = s.find(" ", p)
    if end <= p:
        raise Malformed("fields")
    tok = s[p:end]
    if _has_stray_quote(tok):
        raise Malformed("quoting")
    return tok, end + 1


def _quoted(s: str, p: int) -> tuple[str, int]:
    if p >= len(s) or s[p] != '"':
        raise Malformed("fields")
    end = _closing_quote(s, p + 1)
    if end < 0:
        raise Malformed("quoting")
    return s[p + 1 : end], end + 1


def _space(s: str, p: int) -> int:
    if p >= len(s):
        raise Malformed("fields")
    if s[p] != " ":
        raise Malformed("quoting")
    return p + 1


def _utf8(raw: str) -> str:
    try:
        return _unescape(raw.encode()).decode()
    except UnicodeDecodeError:
        raise Malformed("bad_utf8") from None


def parse_combined(s: str) -> dict[str, Any]:
    _, p = _bare(s, 0)
    _, p = _bare(s, p)
    user, p = _bare(s, p)
    if s[p : p + 1] != "[":
        raise Malformed("fields")
    close = s.find("]", p)
    if close < 0 or s[close + 1 : close + 2] != " ":
        raise Malformed("fields")
    time = s[p + 1 : close]
    request, p = _quoted(s, close + 2)
    p = _space(s, p)
    status, p = _bare(s, p)
    if not _STATUS.fullmatch(status):
        raise Malformed("fields")
    size, p = _bare(s, p)
    if size != "-" and not re.fullmatch(r"[0-9]*", size):
        raise Malformed("fields")
    _, p = _quoted(s, p)
    p = _space(s, p)
    ua, p = _quoted(s, p)
    while p < len(s):  # extra fields after the user agent
        p = _space(s, p)
        if s[p : p + 1] == '"':
            _, p = _quoted(s, p)
        else:
            end = s.find(" ", p)
            end = len(s) if end < 0 else end
            if _has_stray_quote(s[p:end]):
                raise Malformed("quoting")
            p = end
    user_text, ua_text = _dash(_utf8(user)), _dash(_utf8(ua))
    try:
        words = [w for w in _unescape(request.encode()).decode().split(" ") if w]
    except UnicodeDecodeError:
        words = []
    event = words[1].split("?")[0] if len(words) >= 2 else ""
    return {
        "user": user_text,
        "ua": ua_text,
        "time": ("combined", time),
        "event": event,
        "app_device_id": "",
        "ch_model": "",
        "ch_platform_version": "",
        "status": int(status),
    }


# ---- CSV ----------------------------------------------------------------------------------------------------


def csv_cells(s: str) -> list[str]:
    cells, p = [], 0
    while True:
        if s[p : p + 1] == '"':
            i = p + 1
            while True:
                j = s.find('"', i)
                if j < 0:
                    raise Malformed("quoting")
                if s[j + 1 : j + 2] == '"':
                    i = j + 2
                    continue
                break
            cells.append(s[p + 1 : j].replace('""', '"'))
            p = j + 1
            if p == len(s):
                return cells
            if s[p] != ",":
                raise Malformed("quoting")
            p += 1
        else:
            m = _CSV_BARE.match(s, p)
            assert m is not None
            end = m.end()
            if s[end : end + 1] == '"':
                raise Malformed("quoting")
            cells.append(s[p:end])
            if end == len(s):
                return cells
            p = end + 1


def csv_header(line: bytes) -> list[str] | None:
    try:
        return csv_cells(line.decode())
    except (UnicodeDecodeError, Malformed):
        return None


def csv_layout(names: list[str], columns: dict[str, str], path: str) -> dict[str, int]:
    at = {}
    for f in FIELDS:
        name = columns.get(f, f)
        if name in names:
            at[f] = names.index(name)
        elif f in REQUIRED_FIELDS or f in columns:
            raise header_error(
                f"{path}: CSV header has no column {name!r} for field {f!r} (header: {','.join(names)})"
            )
    return at


def _detect(line: bytes, columns: dict[str, str]) -> str:
    """`auto`: JSON lines if the line opens an object, CSV if it is a header naming the required columns."""
    if line.lstrip(b" \t\n\r").startswith(b"{"):
        return "jsonl"
    names = csv_header(line)
    wanted = [columns.get(f, f) for f in REQUIRED_FIELDS]
    return "csv" if names is not None and all(w in names for w in wanted) else "combined"


def parse_csv(s: str, at: dict[str, int], width: int) -> dict[str, Any]:
    cells = csv_cells(s)
    if len(cells) != width:
        raise Malformed("fields")
    return _fields_from_values({f: cells[i] for f, i in at.items()})


# ---- JSON lines ---------------------------------------------------------------------------------------------


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _strings(v: Any) -> Iterator[str]:
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            yield x
        elif isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)


def parse_jsonl(s: str, columns: dict[str, str]) -> dict[str, Any]:
    try:
        obj = json.loads(s, parse_int=_Num, parse_float=_Num, parse_constant=_no_constants)
    except json.JSONDecodeError as e:
        raise Malformed("quoting" if e.msg.startswith(_JSON_QUOTING) else "fields") from None
    except (ValueError, RecursionError):
        raise Malformed("fields") from None
    if not isinstance(obj, dict):
        raise Malformed("fields")
    values = {}
    for f in FIELDS:
        v = obj.get(columns.get(f, f))
        if isinstance(v, (bool, list, dict)):
            raise Malformed("fields")
        values[f] = v
    for text in _strings(obj):
        try:
            text.encode()
        except UnicodeEncodeError:  # a lone surrogate escape
            raise Malformed("bad_utf8") from None
    return _fields_from_values(values)


# ---- files and lines ----------------------------------------------------------------------------------------


def _chunks(path: str, broken: list[dict[str, Any]], sizes: list[int]) -> Iterator[bytes]:
    with open(path, "rb") as raw:
        is_gzip = raw.read(2) == b"\x1f\x8b"
        raw.seek(0)
        # read1, not read: GzipFile.read(n) drops the bytes it decoded when the stream turns out truncated.
        read = gzip.GzipFile(fileobj=raw).read1 if is_gzip else raw.read
        while True:
            try:
                chunk = read(1 << 20)
            except EOFError as e:
                broken.append({"file": path, "error": "truncated", "detail": str(e)})
                break
            except (gzip.BadGzipFile, zlib.error, OSError) as e:
                broken.append({"file": path, "error": "corrupt", "detail": str(e)})
                break
            if not chunk:
                break
            yield chunk
        raw.seek(0, 2)
        sizes.append(raw.tell())


def _lines(path: str, stats: ScanStats, progress: Callable[[int], None]) -> Iterator[bytes]:
    broken: list[dict[str, Any]] = []
    sizes: list[int] = []
    pending = b""
    for chunk in _chunks(path, broken, sizes):
        *lines, pending = (pending + chunk).split(b"\n")
        yield from lines
    if broken:
        stats.gzip_errors.append({**broken[0], "dropped_bytes": len(pending)})
    elif pending:
        yield pending
    stats.bytes_read += sizes[0]
    progress(stats.bytes_read)


def scan_reference(
    paths: list[str],
    fmt: str,
    columns: dict[str, str],
    events: frozenset[str] | None,
    statuses: tuple[str, ...] | None,
    max_line_bytes: int,
    progress: Callable[[int], None],
) -> tuple[list[tuple[Any, ...]], ScanStats]:
    """Rows (user, ua, app_device_id, ch_model, ch_platform_version, month, first_s, last_s, hits), unsorted,
    and the stats of scanning `paths` in order."""
    stats = ScanStats()
    spans: dict[tuple[str, ...], list[int]] = {}
    keep_status = set()
    for st in statuses or ():
        if st[1:].lower() == "xx":
            keep_status.update(range(int(st[0]) * 100, int(st[0]) * 100 + 100))
        else:
            keep_status.add(int(st))
    for path in paths:
        decided = None  # on the first non-blank line that fits the limit
        csv_at: dict[str, int] = {}
        csv_width = 0
        first = True
        for line in _lines(path, stats, progress):
            if line.endswith(b"\r"):
                line = line[:-1]
            if len(line) > max_line_bytes:
                first = False
                stats.lines_read += 1
                stats.malformed["over_long"] += 1
                continue
            if first:
                first = False
                line = line.removeprefix(b"\xef\xbb\xbf")
            if not line.strip(b" \t\r"):
                stats.blank_lines += 1
                continue
            if decided is None:
                decided = fmt if fmt != "auto" else _detect(line, columns)
                stats.formats.append((path, decided))
                if decided == "csv":
                    names = csv_header(line)
                    if names is None:
                        raise header_error(f"{path}: CSV header has broken quoting or is not UTF-8")
                    csv_at = csv_layout(names, columns, path)
                    csv_width = len(names)
                    continue
            stats.lines_read += 1
            try:
                s = line.decode()
            except UnicodeDecodeError:
                stats.malformed["bad_utf8"] += 1
                continue
            try:
                if decided == "combined":
                    f = parse_combined(s)
                elif decided == "csv":
                    f = parse_csv(s, csv_at, csv_width)
                else:
                    f = parse_jsonl(s, columns)
                if not f["ua"]:
                    raise Malformed("no_ua")
                kind, raw = f["time"] or ("", "")
                t = {"combined": combined_time, "text": text_time, "number": number_time}.get(
                    kind, lambda _: None
                )(raw)
                if t is None:
                    raise Malformed("time")
            except Malformed as e:
                stats.malformed[e.args[0]] += 1
                continue
            stats.parsed += 1
            if events is not None and f["event"] not in events:
                stats.filtered_event += 1
            elif statuses is not None and f["status"] not in keep_status:
                stats.filtered_status += 1
            elif not f["user"]:
                stats.filtered_user += 1
            else:
                stats.kept += 1
                key = (
                    f["user"],
                    f["ua"],
                    f["app_device_id"],
                    f["ch_model"],
                    f["ch_platform_version"],
                    month_of(t),
                )
                span = spans.setdefault(key, [t, t, 0])
                span[0], span[1], span[2] = min(span[0], t), max(span[1], t), span[2] + 1
        if decided is None:  # no line to decide on
            stats.formats.append((path, fmt if fmt != "auto" else "empty"))
        stats.files += 1
    return [(*k, *v) for k, v in spans.items()], stats
