"""Citations a reader can follow: no user-facing text names a paper by its seed number ("seed 003", "seed 001
line 931"); help, reproductions and the demo cite papers by short key (docs/references.md)."""

from __future__ import annotations

import re

import pytest
from conftest import run_greendcn

# "seed 003", "Seed 001's", "seed 004 Eq. 2": a seed file's number, which users cannot look up. A run's random
# seed ("seed 0", "--seed 1") is not a citation, so a digit must follow the 0.
SEED_CITATION = re.compile(r"\bseed 0\d", re.IGNORECASE)


def _all_commands():
    """(path, click command) for the root and every group and command under it."""
    import typer

    from greendcn import cli

    root = typer.main.get_command(cli.app)
    out, todo = [], [(("greendcn",), root)]
    while todo:
        path, cmd = todo.pop()
        out.append((path, cmd))
        if hasattr(cmd, "list_commands"):  # a group (typer's click is its own copy: duck-typed)
            # through the group's own interface, so the lazy root mounts each capability as a user's call would
            with cmd.make_context(path[-1], [], resilient_parsing=True) as ctx:
                for name in cmd.list_commands(ctx):
                    sub = cmd.get_command(ctx, name)
                    if sub is not None:
                        todo.append(((*path, name), sub))
    return out


def _help_text(path, cmd) -> str:
    import click

    with click.Context(cmd, info_name=" ".join(path)) as ctx:
        return cmd.get_help(ctx)


def test_the_help_of_every_command_cites_papers_by_key():
    commands = _all_commands()
    assert len(commands) > 40  # every group and command, not only the root
    bad = {" ".join(p): SEED_CITATION.findall(_help_text(p, c)) for p, c in commands}
    assert not {k: v for k, v in bad.items() if v}


def test_the_pattern_catches_a_seed_citation_and_spares_a_random_seed():
    assert SEED_CITATION.search("racks (seed 001 line 931: 108)")
    assert SEED_CITATION.search("Seed 003's statements")
    assert not SEED_CITATION.search("rotornet, seed 0, 32 matrices; --seed 1")


# The reproductions in their smallest modes and the demo: what they print (stdout and stderr) and write as JSON.
RUNS = {
    "demo": ["demo"],
    "rps": ["reproduce", "rps", "--quick", "--seeds", "1"],
    "opera": ["reproduce", "opera", "--racks", "12", "--switches", "4", "--moves", "20"],
    "rotornet": ["reproduce", "rotornet", "--matrices", "2", "--packet-densities", "1"],
    "selectornet": ["reproduce", "selectornet", "--bijections", "10", "--uptimes-ms", "1,10"],
    "host-energy": ["reproduce", "host-energy", "--quick"],
    "energy-saving": ["reproduce", "energy-saving", "--quick"],
    "fabrics": ["fabrics", "--quick"],
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_reproductions_and_demo_cite_papers_by_key(name, tmp_path):
    args = list(RUNS[name])
    if name not in ("demo", "fabrics"):
        args += ["--out", tmp_path / "out"]
    out = run_greendcn(*args, "--json", tmp_path / "o.json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    text = out.stdout + out.stderr + (tmp_path / "o.json").read_text()
    assert not SEED_CITATION.findall(text), [line for line in text.splitlines() if SEED_CITATION.search(line)]
