"""Explicit flow lists: inline `[[workload.flows]]` entries and CSV files
(`src,dst,size_bytes,start_s[,class][,transport][,rate_bps]`).

Hosts are given by name ("S3") or by index among hosts (3). Sizes in the CSV are plain bytes, starts plain
seconds and rates plain bits per second, as the column names say. A CSV file is read column by column (pyarrow),
its host names resolved through one dictionary and its values checked as whole columns, so a million rows take
about a second; the first bad row is named by its line, as a row-by-row reader would."""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ...core.arrowbuf import cast, compute, dictionary_encode, strings, to_numpy
from ...core.errors import InputError
from ...core.units import PS_PER_S
from ...core.userfile import read_utf8_bytes
from .columns import FlowColumns
from .flow import Flow

__all__ = ["COLUMNS", "flows_from_entries", "read_flows_csv"]

REQUIRED = ("src", "dst", "size_bytes", "start_s")
OPTIONAL = ("class", "transport", "rate_bps")
COLUMNS = (*REQUIRED, *OPTIONAL)
_HEADER_HINT = (
    "the header must be src,dst,size_bytes,start_s with optional class, transport (tcp, udp, dctcp or ndp) and "
    "rate_bps (bits per second, for udp) columns"
)
# Latest start the engine's picosecond clock (u64) can hold, with room to run: our bound, about 106 days.
MAX_START_S = 2**63 / PS_PER_S


def flows_from_entries(net, entries, first_id: int = 0) -> list[Flow]:  # type: ignore[no-untyped-def]
    flows = []
    for i, e in enumerate(entries):
        where = f"workload.flows[{i}]"
        src = net.host_index(e.src, f"{where}.src")
        dst = net.host_index(e.dst, f"{where}.dst")
        if src == dst:
            raise InputError(
                f"{where}: src and dst are the same host", hint="a flow needs two distinct hosts"
            )
        if e.size <= 0:
            raise InputError(f"{where}.size: must be positive", hint="write a size like '200KB'")
        flows.append(Flow(first_id + i, src, dst, e.size, e.start, e.flow_class, e.transport, e.rate))
    return flows


def read_flows_csv(path: str | Path, net, first_id: int = 0, what: str = "--flows") -> FlowColumns:  # type: ignore[no-untyped-def]
    """The flows of a CSV file (or of a Parquet file with the same columns) as columns: a `FlowColumns`, which
    reads like a list of `Flow`. `what` names where the path came from in messages: the option `--flows` or the
    key `workload.file`."""
    p = Path(path)
    data: bytes | None = None
    if _is_parquet(p):
        table, header = _parquet(p)
        bad = _FirstBad(p.name, word="row", first=1)
    else:
        data = read_utf8_bytes(p, what, kind="a CSV flow list (src,dst,size_bytes,start_s)")
        header = _header(p, data)
        table = _parse(p, data, header)
        bad = _FirstBad(p.name)
    n = table.num_rows
    if n == 0:
        raise InputError(f"{p.name}: no flows in the file", hint="add one row per flow under the header")
    # A file of printable ASCII without blanks (line ends aside) has nothing to trim: one pass over its bytes
    # rather than a trimmed copy of every column (BENCHMARKS.md).
    plain = data is not None and not data.translate(None, _NO_BLANKS)
    col = {name: table.column(name) if plain else _trimmed(table.column(name)) for name in header}

    src = _hosts(col["src"], net, "src", bad)
    dst = _hosts(col["dst"], net, "dst", bad)
    same = np.flatnonzero(src == dst)
    if len(same):
        bad.note(int(same[0]), 2, "src and dst are the same host", "a flow needs two distinct hosts")
    size, start, raw_start = _numbers(col["size_bytes"], col["start_s"], bad)
    if size is not None and start is not None:
        _check_values(size, start, raw_start, bad)
    transports, udp, rate = _transport(col.get("transport"), col.get("rate_bps"), n, bad)
    bad.raise_first()
    assert size is not None and start is not None

    if "class" in col:
        codes, classes = _classes(col["class"])
    else:
        codes, classes = np.zeros(n, dtype=np.int32), ("flow",)
    return FlowColumns(
        id=np.arange(first_id, first_id + n, dtype=np.int64),
        src=src,
        dst=dst,
        size_bytes=size,
        start_ps=np.round(start * PS_PER_S).astype(np.int64),
        cls=codes,
        classes=classes,
        udp=udp,
        rate_bps=rate,
        transport=transports,
        where=bad.where,
    )


class _FirstBad:
    """The first bad row of a file, as a row-by-row reader would meet it: the lowest line, and on that line the
    first check in reading order (src, dst, same host, numbers, sizes, starts, transport)."""

    def __init__(self, name: str, word: str = "line", first: int = 2) -> None:
        self.name, self.word, self.first = name, word, first
        self.best: tuple[int, int] | None = None
        self.error: InputError | None = None

    def note(self, row: int, order: int, message: str, hint: str) -> None:
        self.note_error(row, order, lambda where: InputError(f"{where}: {message}", hint=hint))

    def note_error(self, row: int, order: int, make: Callable[[str], InputError]) -> None:
        key = (row, order)
        if self.best is None or key < self.best:
            self.best = key
            self.error = make(self.where(row))

    def where(self, row: int) -> str:
        return f"{self.name} {self.word} {row + self.first}"

    def raise_first(self) -> None:
        if self.error is not None:
            raise self.error


def _header(p: Path, data: bytes) -> list[str]:
    end = data.find(b"\n")
    first = (data if end < 0 else data[:end]).decode("utf-8").rstrip("\r")
    return _check_header(p, [h.strip() for h in next(csv.reader([first]), [])])


def _check_header(p: Path, header: list[str]) -> list[str]:
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise InputError(f"{p.name}: missing column {missing[0]!r}", hint=_HEADER_HINT)
    unknown = [c for c in header if c not in COLUMNS]
    if unknown:
        raise InputError(f"{p.name}: unknown column {unknown[0]!r}", hint=_HEADER_HINT)
    twice = [c for c in header if header.count(c) > 1]
    if twice:
        raise InputError(f"{p.name}: column {twice[0]!r} appears twice", hint=_HEADER_HINT)
    return header


def _parse(p: Path, data: bytes, header: list[str]) -> Any:
    """Every column as strings; a row with the wrong number of fields, or a broken quote, is one error naming
    its line."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    wrong: list[Any] = []

    def on_invalid(row: Any) -> str:
        wrong.append(row)
        return "error"

    try:
        table = pacsv.read_csv(
            pa.py_buffer(data),
            read_options=pacsv.ReadOptions(skip_rows=1, column_names=header, use_threads=False),
            parse_options=pacsv.ParseOptions(invalid_row_handler=on_invalid),
            convert_options=pacsv.ConvertOptions(
                column_types={c: pa.string() for c in header}, strings_can_be_null=False
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowException) as e:
        if wrong:
            row = wrong[0]
            line = f" line {row.number}" if row.number is not None else ""
            raise InputError(
                f"{p.name}{line}: {row.actual_columns} fields, but the header has {row.expected_columns} "
                f"({row.text[:60]!r})",
                hint="give every row the header's columns, in order",
            ) from None
        raise InputError(
            f"{p.name}: not a readable CSV flow list ({str(e).splitlines()[0][:200]})",
            hint="check the file's quoting and line ends; " + _HEADER_HINT,
        ) from None
    return table


def _is_parquet(p: Path) -> bool:
    try:
        with open(p, "rb") as f:
            return f.read(4) == b"PAR1"
    except OSError:
        return False  # the text reader names what is wrong with the path


def _parquet(p: Path) -> tuple[Any, list[str]]:
    """A Parquet flow list: the CSV's columns, read as text so that both are checked alike."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(p)
    except (pa.ArrowException, OSError) as e:
        raise InputError(
            f"{p.name}: not a readable Parquet flow list ({str(e).splitlines()[0][:200]})",
            hint="the file may be truncated or damaged; write it again",
        ) from None
    header = _check_header(p, [str(c).strip() for c in table.column_names])
    table = table.rename_columns(header)
    for name in header:
        column = table.column(name)
        if not pa.types.is_string(column.type):
            try:
                column = pc.cast(column, pa.string())
            except pa.ArrowException:
                raise InputError(
                    f"{p.name}: column {name!r} holds {column.type}, not numbers or text",
                    hint="write hosts as names or indices, sizes in bytes and starts in seconds",
                ) from None
        table = table.set_column(header.index(name), name, pc.fill_null(column, ""))
    return table, header


# printable ASCII but the space, and the line feed: what a CSV file without blanks is made of
_NO_BLANKS = bytes(range(0x21, 0x7F)) + b"\n"


def _trimmed(column: Any) -> Any:
    return compute("utf8_trim_whitespace", column)


def _hosts(column: Any, net: Any, field: str, bad: _FirstBad) -> np.ndarray:
    """Node indices of a host column: each distinct reference resolved once; an unknown one is refused by
    `net.host_index`, with its message, at its first row."""
    encoded = dictionary_encode(column.combine_chunks())
    refs = encoded.dictionary.to_pylist()
    codes = to_numpy(encoded.indices)
    lookup = net.host_lookup()
    nodes = np.empty(len(refs), dtype=np.int64)
    order = 0 if field == "src" else 1
    for k, ref in enumerate(refs):
        node = lookup.get(ref)
        if node is None:
            first = int(np.argmax(codes == k))
            try:
                node = net.host_index(ref, f"{bad.where(first)}: {field}")
            except InputError as e:
                bad.note_error(first, order, lambda _where, e=e: e)
                node = -1
        nodes[k] = node
    return nodes[codes]


def _numbers(
    size_col: Any, start_col: Any, bad: _FirstBad
) -> tuple[np.ndarray | None, np.ndarray | None, Any]:
    """size_bytes as whole numbers and start_s as numbers, converted column-wise; where the fast conversion
    refuses a value, each row is converted as Python reads numbers, and the first row that fails is named."""
    import pyarrow as pa

    try:
        size = to_numpy(cast(size_col, pa.int64()))
        start = to_numpy(cast(start_col, pa.float64()))
        return size, start, start_col
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    sizes, starts = size_col.to_pylist(), start_col.to_pylist()
    size_out = np.empty(len(sizes), dtype=np.int64)
    start_out = np.empty(len(starts), dtype=np.float64)
    for n, (s, t) in enumerate(zip(sizes, starts)):
        try:
            size_out[n] = int(s)
            start_out[n] = float(t)
        except (ValueError, OverflowError, TypeError):
            bad.note(
                n,
                3,
                f"size_bytes must be a whole number of bytes and start_s a number of seconds, got {s!r}, {t!r}",
                "for example: S0,S15,200000,0",
            )
            return None, None, start_col
    return size_out, start_out, start_col


def _check_values(size: np.ndarray, start: np.ndarray, raw_start: Any, bad: _FirstBad) -> None:
    small = np.flatnonzero(size <= 0)
    if len(small):
        n = int(small[0])
        bad.note(n, 4, f"size_bytes must be positive, got {int(size[n])}", "sizes are in bytes")
    with np.errstate(invalid="ignore"):
        wrong = np.flatnonzero(~np.isfinite(start) | (start < 0))
    if len(wrong):
        n = int(wrong[0])
        bad.note(n, 5, f"start_s must be >= 0, got {raw_start[n].as_py()}", "starts are in seconds")
    late = np.flatnonzero(start >= MAX_START_S)
    if len(late):
        n = int(late[0])
        bad.note(
            n,
            5,
            f"start_s {raw_start[n].as_py()} is too late for the engine's clock",
            "starts are in seconds",
        )


def _transport(
    transport: Any, rate: Any, n: int, bad: _FirstBad
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """The optional transport (tcp, the default, udp, dctcp or ndp: codes into `sim.engine.TRANSPORTS`, None
    without the column) and rate_bps columns: a UDP flow needs a positive whole rate in bits per second; the
    others take none. (pyarrow.compute is imported only for these columns.)"""
    codes = None
    if transport is None:
        udp = np.zeros(n, dtype=bool)
    else:
        import pyarrow as pa
        import pyarrow.compute as pc

        from ..engine import TRANSPORTS

        # value sets, not Python scalars: pyarrow turns a scalar argument into Arrow by way of pandas
        found = pc.index_in(pc.utf8_lower(transport), value_set=strings([*TRANSPORTS, ""]))
        # the empty name (its index, the last) is tcp; a name not in the set is null, read as -1
        index = to_numpy(compute("coalesce", found, pa.scalar(-1, type=found.type))).astype(np.int64)
        codes = np.where(index == len(TRANSPORTS), 0, index)
        udp = codes == TRANSPORTS.index("udp")
        other = np.flatnonzero(codes < 0)
        if len(other):
            k = int(other[0])
            bad.note(
                k,
                6,
                f"transport must be tcp, udp, dctcp or ndp, got {transport[k].as_py()!r}",
                "leave it empty for tcp",
            )
        codes = np.maximum(codes, 0).astype(np.uint8)
    rates = np.zeros(n, dtype=np.int64)
    if rate is None:
        if udp.any():
            k = int(np.argmax(udp))
            bad.note(
                k,
                7,
                "a udp flow needs a sending rate: add a rate_bps column",
                "rate_bps is the sending rate in bits per second on the wire, e.g. 500000000",
            )
        return codes, udp, rates
    given = to_numpy(compute("utf8_length", rate)) > 0
    tcp_with_rate = np.flatnonzero(given & ~udp)
    if len(tcp_with_rate):
        k = int(tcp_with_rate[0])
        name = "tcp" if codes is None else _name(int(codes[k]))
        bad.note(
            k,
            7,
            f"rate_bps is for udp flows; this row's transport is {name}",
            f"leave rate_bps empty for {name}",
        )
    no_rate = np.flatnonzero(udp & ~given)
    if len(no_rate):
        k = int(no_rate[0])
        bad.note(
            k,
            7,
            "a udp flow needs rate_bps",
            "rate_bps is the sending rate in bits per second, e.g. 500000000",
        )
    values = rate.to_pylist() if given.any() else []
    for k in np.flatnonzero(given & udp):
        text = values[k]
        try:
            rates[k] = int(text)
        except (ValueError, OverflowError):
            rates[k] = 0
        if rates[k] <= 0:
            bad.note(
                int(k),
                7,
                f"rate_bps must be a positive whole number of bits per second, got {text!r}",
                "for example: 500000000 (500 Mbit/s)",
            )
            break
    return codes, udp, rates


def _name(code: int) -> str:
    from ..engine import TRANSPORTS

    return TRANSPORTS[code]


def _classes(column: Any) -> tuple[np.ndarray, tuple[str, ...]]:
    """Class codes and names; an empty class is 'flow'."""
    encoded = dictionary_encode(column.combine_chunks())
    names = ["flow" if c == "" else c for c in encoded.dictionary.to_pylist()]
    unique = tuple(dict.fromkeys(names))
    remap = np.array([unique.index(c) for c in names], dtype=np.int32)
    return remap[to_numpy(encoded.indices)], unique
