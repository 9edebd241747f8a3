"""Readers for the public Opera simulator's files (TritonNetworking/opera-sim, published with Mellette et al.,
NSDI 2020): its flow files (`src dst bytes start_ns`, one flow a line) and its per-flow outputs
(`FCT src dst bytes fct_ms start_ms`), and the match of an output file's lines to the flow file's flows.

What the simulator does, which these readers follow (docs/opera-paper.md, "Developers"):
- Flow files are read whitespace-separated, four integers a line: source host, destination host, bytes, start
  in nanoseconds (src/opera/datacenter/main_ndp_dynexpTopology.cpp lines 169-202; the Clos the same in
  src/clos/datacenter/main_ndp_fatTree_3to1_k12.cpp lines 180-213, the expander in
  src/expander/datacenter/main_ndp_expander.cpp lines 186-234). A blank line ends the file's flows.
- An output line `FCT src dst bytes fct_ms start_ms` is printed when a flow's last byte is acknowledged
  (src/opera/ndp.cpp lines 357-358, src/clos/ndp.cpp lines 444-445, src/expander/ndp.cpp lines 462-463); other
  lines (`Loading topology...`, `Util ...`) are the simulator's progress and utilisation and are skipped.
  Opera prints the start time with `fixed` (six decimals of a millisecond, exact to the nanosecond) and, as the
  manipulator sticks, every later FCT too; the Clos and the expander print both with six significant digits.
  So a line matches a flow when source, destination and bytes agree and its start lies within the printed
  precision of the flow's start (our tolerance: 5 parts in 10^6 of the start, at least 1 ns, plus 1 ns).

Errors name the file and line (docs/errors.md): a malformed line, a host beyond the network, a size that is not
positive, a start before the line above (the simulator's files are sorted by start), and an output line that
matches no flow of the flow file (or matches one already matched).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...core.errors import InputError

__all__ = ["FlowFile", "Reference", "match_reference", "read_fct_file", "read_flow_file"]


@dataclass(frozen=True)
class FlowFile:
    """A flow file's flows as columns: host indices, bytes, start in ns; `line` is each flow's line number."""

    path: Path
    src: np.ndarray
    dst: np.ndarray
    size: np.ndarray
    start_ns: np.ndarray
    line: np.ndarray

    def __len__(self) -> int:
        return len(self.src)


@dataclass(frozen=True)
class Reference:
    """An output file's FCT lines as columns (fct and start in ms as printed); `line` is each one's line number."""

    path: Path
    src: np.ndarray
    dst: np.ndarray
    size: np.ndarray
    fct_ms: np.ndarray
    start_ms: np.ndarray
    line: np.ndarray

    def __len__(self) -> int:
        return len(self.src)


def _text(path: Path, what: str) -> str:
    from ...core.userfile import read_text

    return read_text(path, what, kind="a file of the public Opera simulator")


def read_flow_file(path: str | Path, hosts: int, what: str = "--flows") -> FlowFile:
    """The flows of `path` on a network of `hosts` hosts (0..hosts-1)."""
    path = Path(path)
    hint_fmt = (
        "each line is `src dst bytes start_ns`: four whole numbers, as the public Opera simulator's files"
    )
    src, dst, size, start, lines = [], [], [], [], []
    last = -1
    for no, raw in enumerate(_text(path, what).split("\n"), start=1):
        if not raw.strip():
            continue
        parts = raw.split()
        try:
            s, d, b, t = (int(p) for p in parts) if len(parts) == 4 else (None,) * 4  # type: ignore[misc]
        except ValueError:
            s = None
        where = f"{what} {path} line {no}"
        if s is None:
            raise InputError(f"{where}: {raw.strip()[:80]!r} is not `src dst bytes start_ns`", hint=hint_fmt)
        for name, h in (("source", s), ("destination", d)):
            if not 0 <= h < hosts:
                raise InputError(
                    f"{where}: {name} host {h} is beyond the network's {hosts} hosts (0..{hosts - 1})",
                    hint="give the flow file of this network (docs/opera-paper.md says which file is whose)",
                )
        if s == d:
            raise InputError(f"{where}: source and destination are both host {s}", hint=hint_fmt)
        if b <= 0:
            raise InputError(f"{where}: size {b} bytes is not positive", hint=hint_fmt)
        if t < 0:
            raise InputError(f"{where}: start {t} ns is negative", hint=hint_fmt)
        if t < last:
            raise InputError(
                f"{where}: start {t} ns is before the line above's ({last} ns); the file is not sorted by start",
                hint="sort the flows by start time (the public Opera simulator's files are)",
            )
        last = t
        src.append(s)
        dst.append(d)
        size.append(b)
        start.append(t)
        lines.append(no)
    if not src:
        raise InputError(f"{what} {path}: no flows in the file", hint=hint_fmt)
    i64 = np.int64
    return FlowFile(
        path,
        np.array(src, i64),
        np.array(dst, i64),
        np.array(size, i64),
        np.array(start, i64),
        np.array(lines, i64),
    )


def read_fct_file(path: str | Path, what: str = "--reference") -> Reference:
    """The `FCT src dst bytes fct_ms start_ms` lines of an output file; other lines are skipped."""
    path = Path(path)
    hint = "give the simulator's output (sim/FCT_*.txt): lines `FCT src dst bytes fct_ms start_ms`"
    cols: tuple[list, ...] = ([], [], [], [], [], [])
    for no, raw in enumerate(_text(path, what).split("\n"), start=1):
        parts = raw.split()
        if not parts or parts[0] != "FCT":
            continue
        try:
            if len(parts) != 6:
                raise ValueError
            s, d, b = (int(p) for p in parts[1:4])
            fct, start = float(parts[4]), float(parts[5])
            if (
                not (np.isfinite(fct) and np.isfinite(start))
                or fct < 0
                or start < 0
                or b <= 0
                or min(s, d) < 0
            ):
                raise ValueError
        except ValueError:
            raise InputError(
                f"{what} {path} line {no}: {raw.strip()[:80]!r} is not a valid FCT line", hint=hint
            ) from None
        for c, v in zip(cols, (s, d, b, fct, start, no)):
            c.append(v)
    if not cols[0]:
        raise InputError(f"{what} {path}: no `FCT ...` line in the file", hint=hint)
    return Reference(
        path,
        np.array(cols[0], np.int64),
        np.array(cols[1], np.int64),
        np.array(cols[2], np.int64),
        np.array(cols[3], float),
        np.array(cols[4], float),
        np.array(cols[5], np.int64),
    )


def _start_tolerance_ns(start_ns: float) -> float:
    """How far a printed start may lie from the flow's (module doc): six significant digits, at least 1 ns."""
    return max(1.0, 5e-6 * start_ns) + 1.0


def match_reference(flows: FlowFile, ref: Reference) -> np.ndarray:
    """Per flow of `flows`, the reference's FCT in seconds (NaN where the reference has no line for it)."""
    by_key: dict[tuple[int, int, int], list[int]] = {}
    for i, key in enumerate(zip(flows.src.tolist(), flows.dst.tolist(), flows.size.tolist())):
        by_key.setdefault(key, []).append(i)
    out = np.full(len(flows), np.nan)
    starts = flows.start_ns
    rows = zip(
        ref.src.tolist(), ref.dst.tolist(), ref.size.tolist(), ref.start_ms.tolist(), ref.line.tolist()
    )
    for k, (s, d, b, start_ms, no) in enumerate(rows):
        cands = by_key.get((s, d, b), [])
        t = start_ms * 1e6
        best = None
        for i in cands:
            if np.isnan(out[i]) and abs(starts[i] - t) <= _start_tolerance_ns(t):
                if best is None or abs(starts[i] - t) < abs(starts[best] - t):
                    best = i
        if best is None:
            taken = any(abs(starts[i] - t) <= _start_tolerance_ns(t) for i in cands)
            why = "a second line for a flow already matched" if taken else "no flow of the flow file"
            raise InputError(
                f"--reference {ref.path} line {no}: flow {s} -> {d}, {b} bytes, starting at {start_ms:g} ms "
                f"matches {why} ({flows.path})",
                hint="give the output the simulator wrote for this flow file (docs/opera-paper.md pairs them)",
            )
        out[best] = ref.fct_ms[k] * 1e-3
    return out
