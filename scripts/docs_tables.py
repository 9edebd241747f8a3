"""Tables of measured output in the docs, written from the commands they quote (`make docs`, this script) and
against them (tests/test_docs.py).

A doc marks such a table with an HTML comment naming the command and the lines of its standard output to keep,
right before the fenced block, and a stamp line right after it:

    <!-- make docs: greendcn fabrics; lines 2-7 -->
    ```
    (the lines, as the command printed them)
    ```
    _Written by `make docs` from `greendcn fabrics` on 2026-11-25 (x86_64, 2 cores)._

`update(path)` reruns every marked command and rewrites its block and stamp; `check_block` compares a block with
fresh output: every token must be equal except numbers in timing columns (a header containing `wall`), which
vary with the machine and must only stay within a factor of 10 (our tolerance)."""

from __future__ import annotations

import datetime
import os
import platform
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Block", "blocks", "check_block", "run_command", "update"]

MARK = re.compile(r"^<!-- make docs: (greendcn [^;]*?)(?:; lines (\d+)-(\d+))? -->$")
STAMP = re.compile(r"^_Written by `make docs` from .* on \d{4}-\d{2}-\d{2} \(.*\)\._$")
TIMING_FACTOR = 10.0  # timings may differ by this factor between machines and runs (our tolerance)


@dataclass
class Block:
    command: str
    first: int | None
    last: int | None
    start: int  # index of the marker line
    body: list[str]  # the lines inside the fence
    end: int  # index of the closing fence


def blocks(lines: list[str]) -> list[Block]:
    out = []
    for i, line in enumerate(lines):
        m = MARK.match(line.strip())
        if not m:
            continue
        if i + 1 >= len(lines) or not lines[i + 1].startswith("```"):
            raise ValueError(f"line {i + 1}: a `make docs` marker must be followed by a fenced block")
        j = i + 2
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        first = int(m.group(2)) if m.group(2) else None
        last = int(m.group(3)) if m.group(3) else None
        out.append(Block(m.group(1), first, last, i, lines[i + 2 : j], j))
    return out


def run_command(command: str, cwd: Path) -> list[str]:
    """The command's standard output lines (it must exit 0), with the lines the marker keeps."""
    args = shlex.split(command)[1:]
    env = {**os.environ, "COLUMNS": "200"}
    out = subprocess.run(
        [sys.executable, "-m", "greendcn.cli", *args], cwd=cwd, capture_output=True, text=True, env=env
    )
    if out.returncode != 0:
        raise RuntimeError(f"`{command}` exited {out.returncode}: {out.stderr.strip()[-500:]}")
    return out.stdout.splitlines()


def _select(b: Block, lines: list[str]) -> list[str]:
    if b.first is None:
        return lines
    return lines[b.first - 1 : b.last]


def _machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores"


def update(path: Path, cwd: Path) -> int:
    """Rewrite every marked block of one doc from its command; returns the number of blocks."""
    lines = path.read_text().splitlines()
    found = blocks(lines)
    today = datetime.date.today().isoformat()
    for b in reversed(found):
        fresh = _select(b, run_command(b.command, cwd))
        stamp = f"_Written by `make docs` from `{b.command}` on {today} ({_machine()})._"
        after = b.end + 1
        has_stamp = after < len(lines) and STAMP.match(lines[after].strip())
        lines[b.start + 2 : b.end] = fresh
        after = b.start + 2 + len(fresh) + 1
        if has_stamp:
            lines[after] = stamp
        else:
            lines.insert(after, stamp)
    path.write_text("\n".join(lines) + "\n")
    return len(found)


_NUM = re.compile(r"^-?[0-9][0-9,]*\.?[0-9]*(e[-+]?[0-9]+)?$")


def _columns(header: str) -> list[tuple[int, int, str]]:
    """(start, end, name) of each header word, for right-aligned tables: a cell belongs to the header word whose
    span its last character falls under (or the nearest to its left)."""
    return [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", header)]


def _is_timing(header: str | None, end: int) -> bool:
    if header is None:
        return False
    for start, stop, name in _columns(header):
        if start <= end <= stop + 1:
            return "wall" in name
    return False


def check_block(b: Block, fresh: list[str]) -> list[str]:
    """Differences between the doc's block and fresh output (empty when they agree)."""
    want = b.body
    got = _select(b, fresh)
    if len(want) != len(got):
        return [f"{len(want)} lines in the doc, {len(got)} from the command"]
    problems = []
    header = None
    for n, (w, g) in enumerate(zip(want, got)):
        wt = [(m.group(), m.end() - 1) for m in re.finditer(r"\S+", w)]
        gt = [(m.group(), m.end() - 1) for m in re.finditer(r"\S+", g)]
        if len(wt) != len(gt):
            problems.append(f"line {n + 1}: doc {w!r}, now {g!r}")
            header = g if not any(_NUM.match(t) for t, _ in gt) else header
            continue
        for (a, end), (c, _) in zip(wt, gt):
            if a == c:
                continue
            if _NUM.match(a) and _NUM.match(c) and _is_timing(header, end):
                x, y = float(a.replace(",", "")), float(c.replace(",", ""))
                if x > 0 and y > 0 and max(x, y) / min(x, y) <= TIMING_FACTOR:
                    continue
            problems.append(f"line {n + 1}: doc {w!r}, now {g!r}")
            break
        if not any(_NUM.match(t) for t, _ in gt):
            header = g  # a table's header: the words above its columns
    return problems


def main(argv: list[str]) -> int:
    root = Path(__file__).resolve().parents[1]
    docs = [Path(a).resolve() for a in argv] or [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    for d in docs:
        n = update(d, root) if blocks(d.read_text().splitlines()) else 0
        if n:
            print(f"{d.relative_to(root)}: {n} table(s) written")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
