"""The `greendcn` command line: one typer sub-app per capability, errors as `error:` + `hint:` lines."""

from __future__ import annotations

import sys

import typer

from .core.errors import GreendcnError

app = typer.Typer(
    name="greendcn",
    help="Measure, simulate and cut the energy of datacenter networks.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def _root() -> None:
    """Measure, simulate and cut the energy of datacenter networks."""


@app.command()
def version() -> None:
    """Print the versions of the package and of the Rust engine."""
    from . import __version__, _native

    print(f"greendcn {__version__} (engine {_native.version()})")


# Each capability's command module (a `cli.py` in its package) holds typer apps; this table mounts them.
# (command name or None, module, attribute): None merges the app's commands into the root (simulate, demo).
# Command names match package names except `energy` (power/) and `reproduce` (sim/reproduce/): users ask
# for the energy of a network or to reproduce a paper, so the commands keep those verbs (docs/architecture.md).
SUBAPPS: list[tuple[str | None, str, str]] = [
    (None, ".sim.cli", "app"),
    ("energy", ".power.cli", "app"),
    ("host", ".host.cli", "app"),
    ("lifetime", ".lifetime.cli", "app"),
    ("nic", ".nic.cli", "app"),
    ("reproduce", ".sim.cli", "reproduce_app"),
]


def _register_subapps() -> None:
    import importlib

    for name, module, attr in SUBAPPS:
        sub = getattr(importlib.import_module(module, __package__), attr)
        if name is None:
            app.add_typer(sub)
        else:
            app.add_typer(sub, name=name)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app and turn greendcn errors into a message and exit status 1.

    Usage errors are click's own (exit status 2); anything else that escapes is a bug and keeps its traceback."""
    try:
        _register_subapps()
        app(args=argv, prog_name="greendcn")
    except GreendcnError as e:
        print(f"error: {e}", file=sys.stderr)
        if e.hint:
            print(f"hint: {e.hint}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        # Ctrl-C is the user's choice, not a bug: no traceback, the shell's conventional status.
        print("interrupted", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
