"""Writing a synthetic log as an Apache/nginx `combined` log, a CSV export or JSON lines, plain or gzip,
with malformed lines mixed in. The same records give the same lines in every format (client hints, which a
combined log cannot carry, are left out of it)."""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["FORMATS", "CSV_COLUMNS", "MALFORMED_KINDS", "format_lines", "malformed_lines", "write_log"]

FORMATS = ("combined", "csv", "jsonl")
CSV_COLUMNS = ["user", "time", "event", "status", "ua", "app_device_id", "ch_model", "ch_platform_version"]
# Kinds of broken line per format, named by the scanner's malformed reasons (docs/lifetime.md). A CSV or JSON
# line cannot break its quoting without swallowing the next lines, so those formats skip `quoting`.
MALFORMED_KINDS = {
    "combined": ("fields", "time", "quoting", "no_ua", "bad_utf8", "over_long"),
    "csv": ("fields", "time", "no_ua", "bad_utf8", "over_long"),
    "jsonl": ("fields", "time", "no_ua", "bad_utf8", "over_long"),
}
_REQUEST = {
    "login": "POST /webapps/login/ HTTP/1.1",
    "logout": "GET /webapps/login/?action=logout HTTP/1.1",
    "login_failed": "POST /webapps/login/ HTTP/1.1",
}
_LONG = 70_000  # longer than the scanner's default 64 KiB line limit


def _clf_time(t: pd.Series) -> pd.Series:
    return pd.to_datetime(t, unit="s").dt.strftime("%d/%b/%Y:%H:%M:%S +0000")


def _iso_time(t: pd.Series) -> pd.Series:
    return pd.to_datetime(t, unit="s").dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def _ip(users: pd.Series) -> pd.Series:
    n = users.str.slice(1).astype(int)
    return (
        "10."
        + (n // 65536 % 256).astype(str)
        + "."
        + (n // 256 % 256).astype(str)
        + "."
        + (n % 256).astype(str)
    )


def format_lines(lines: pd.DataFrame, fmt: str) -> list[bytes]:
    """One encoded line (without its newline) per record, in the given order."""
    if fmt == "combined":
        req = lines["event"].map(_REQUEST)
        size = 200 + lines["time_s"] % 4000
        text = (
            _ip(lines["user"])
            + " - "
            + lines["user"]
            + " ["
            + _clf_time(lines["time_s"])
            + '] "'
            + req
            + '" '
            + lines["status"].astype(str)
            + " "
            + size.astype(str)
            + ' "-" "'
            + lines["ua"]
            + '"'
        )
        return [s.encode() for s in text]
    rec = lines.assign(time=_iso_time(lines["time_s"]))[CSV_COLUMNS]
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        for row in rec.itertuples(index=False):
            w.writerow(row)
        return [s.encode() for s in buf.getvalue().split("\n")[:-1]]
    if fmt == "jsonl":
        return [json.dumps(r, separators=(",", ":")).encode() for r in rec.to_dict(orient="records")]
    raise ValueError(f"unknown format {fmt!r}")


def malformed_lines(fmt: str, kinds: list[str], good: bytes) -> list[bytes]:
    """Broken lines of the given kinds; `good` is a well-formed line of the format to break."""
    out = []
    text = good.decode()
    for kind in kinds:
        if kind == "fields":
            out.append(b"<html>this is not a log line</html>" if fmt != "csv" else b"not,a,log,line")
        elif kind == "time":
            out.append(_break_time(fmt, text).encode())
        elif kind == "quoting":
            out.append(text[: text.rfind('"')].encode())  # the UA's closing quote is missing
        elif kind == "no_ua":
            out.append(_with_ua(fmt, text, "-" if fmt == "combined" else "").encode())
        elif kind == "bad_utf8":
            out.append(_with_ua(fmt, text, "Mozilla/5.0 \udcff\udcfe").encode("utf-8", "surrogateescape"))
        elif kind == "over_long":
            out.append(_with_ua(fmt, text, "Mozilla/5.0 " + "A" * _LONG).encode())
        else:
            raise ValueError(kind)
    return out


def _break_time(fmt: str, text: str) -> str:
    if fmt == "combined":
        a, b = text.index("["), text.index("]")
        return text[: a + 1] + "31/Foo/2020:25:61:00 +0000" + text[b:]
    if fmt == "csv":
        row = next(csv.reader([text]))
        row[1] = "yesterday at noon"
        return _csv_row(row)
    rec = json.loads(text)
    rec["time"] = "yesterday at noon"
    return json.dumps(rec, separators=(",", ":"))


def _with_ua(fmt: str, text: str, ua: str) -> str:
    if fmt == "combined":
        head = text[: text.rstrip('"').rfind('"') + 1]
        return head + ua + '"'
    if fmt == "csv":
        row = next(csv.reader([text]))
        row[4] = ua
        return _csv_row(row)
    rec = json.loads(text)
    rec["ua"] = ua
    return json.dumps(rec, separators=(",", ":"), ensure_ascii=False)


def _csv_row(row: list[str]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow(row)
    return buf.getvalue()


def write_log(path: Path, lines: pd.DataFrame, fmt: str, malformed_share: float, seed: int) -> dict[str, int]:
    """Write the records (already in log order) with malformed lines at random places; return the counts of
    lines by kind. A `.gz` path is gzip-compressed with a zero timestamp, so the bytes depend on the seed
    only."""
    good = format_lines(lines, fmt)
    rng = np.random.default_rng([seed, 2**31 - 1])
    n_bad = int(rng.binomial(len(good), malformed_share)) if len(good) else 0
    kinds = MALFORMED_KINDS[fmt]
    chosen = [kinds[i % len(kinds)] for i in range(n_bad)]
    bad = [malformed_lines(fmt, [k], good[int(rng.integers(len(good)))])[0] for k in chosen]
    where = np.sort(rng.integers(0, len(good) + 1, size=n_bad))
    header = [",".join(CSV_COLUMNS).encode()] if fmt == "csv" else []
    body: list[bytes] = []
    j = 0
    for i, line in enumerate(good):
        while j < n_bad and where[j] == i:
            body.append(bad[j])
            j += 1
        body.append(line)
    body.extend(bad[j:])
    data = b"\n".join(header + body) + b"\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".gz":
        with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
            gz.write(data)
    else:
        path.write_bytes(data)
    counts = {f"malformed_{k}": chosen.count(k) for k in kinds}
    counts.update(
        {"lines": len(good) + n_bad, "records": len(good), "malformed": n_bad, "header_lines": len(header)}
    )
    return counts
