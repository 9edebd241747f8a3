"""Docs that cannot drift: every fenced `greendcn ...` command in README.md and docs/*.md names commands and
options that exist (and the cheap ones run and exit 0), and every table of measured output (`make docs`)
matches what its command prints today, timings within a factor of 10 (scripts/docs_tables.py)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from conftest import run_greendcn

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import docs_tables  # noqa: E402

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def fenced_commands() -> list[tuple[str, list[str]]]:
    """(where, argv after `greendcn`) of every command line in a fenced block; a command whose quote spans
    lines is joined; `# comments` are dropped."""
    out = []
    for doc in DOCS:
        lines = doc.read_text().splitlines()
        inside = False
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.startswith("```"):
                inside = not inside
            elif inside and line.strip().removeprefix("$ ").startswith("greendcn "):
                text, start = line.strip().removeprefix("$ "), i
                while True:
                    try:
                        argv = shlex.split(text, comments=True)
                        break
                    except ValueError:  # an open quote: the command goes on
                        i += 1
                        text += "\n" + lines[i]
                out.append((f"{doc.name}:{start + 1}", argv[1:]))
            i += 1
    return out


COMMANDS = fenced_commands()


def _synopsis(argv: list[str]) -> list[str]:
    """A synopsis line (`[--store PATH]`, `...`, `local|ray`) keeps the words before its first such token."""
    out = []
    for a in argv:
        if a.startswith("[") or a in ("...", "--") or "|" in a:
            break
        out.append(a)
    return out


def test_the_docs_quote_commands():
    assert len(COMMANDS) >= 25 and any(p.values[0] == "README.md" for p in DOCS_WITH_TABLES)


@pytest.mark.parametrize("where, argv", COMMANDS, ids=[w for w, _ in COMMANDS])
def test_every_quoted_command_and_option_exists(where, argv, capsys):
    # --help is eager: it exits 0 once the command path and every option name parse, and fails (exit 2) on an
    # unknown command or option, before anything runs
    from greendcn.cli import main

    try:
        main([*_synopsis(argv), "--help"])
    except SystemExit as e:
        assert e.code in (0, None), (where, capsys.readouterr().err)
    assert "Usage:" in capsys.readouterr().out, where


# Quoted commands cheap enough to run as written (seconds each); the others are full reproductions or need a
# real machine (host plan --apply, measure) and are checked above for their names and options.
RUNNABLE = {
    ("fabrics", "--quick"),
    ("simulate", "scenarios/seed003-static.toml", "--set", "power.hosts.policy=affcon"),
    ("host", "predict"),
    ("simulate", "scenarios/elastictree-k4.toml"),
}


@pytest.mark.parametrize("argv", sorted(RUNNABLE))
def test_cheap_quoted_commands_run_and_exit_0(argv, tmp_path):
    assert any(tuple(a) == argv for _, a in COMMANDS), f"{argv} is no longer quoted in the docs"
    args = [str(ROOT / a) if a.startswith("scenarios/") else a for a in argv]
    out = run_greendcn(*args, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr and out.stdout.strip()


DOCS_WITH_TABLES = [
    pytest.param(d.name, b, marks=[pytest.mark.slow] if "--racks 108" in b.command else [])
    for d in DOCS
    for b in docs_tables.blocks(d.read_text().splitlines())
]


@pytest.mark.parametrize(
    "where, block", DOCS_WITH_TABLES, ids=[f"{p.values[0]}:{p.values[1].command}" for p in DOCS_WITH_TABLES]
)
def test_measured_tables_match_their_commands(where, block):
    fresh = docs_tables.run_command(block.command, ROOT)
    problems = docs_tables.check_block(block, fresh)
    assert not problems, f"{where}: run `make docs` after checking the change is intended: {problems}"


def test_the_table_check_catches_a_changed_number_and_allows_timing_noise():
    body = [
        "      scenario  routing  drops  wall_s",
        "seed003-static   single      0  0.1213",
    ]
    b = docs_tables.Block("greendcn demo", None, None, 0, body, 3)
    assert docs_tables.check_block(b, body) == []
    assert docs_tables.check_block(b, [body[0], body[1].replace("      0", "      1")])  # a result changed
    assert docs_tables.check_block(b, [body[0], body[1].replace("0.1213", "0.9")]) == []  # 7x: timing noise
    assert docs_tables.check_block(b, [body[0], body[1].replace("0.1213", "2.5")])  # 20x: beyond the factor
    assert docs_tables.check_block(b, body[:1])  # a row lost
