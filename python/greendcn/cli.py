"""The `greendcn` command line: one typer sub-app per capability, errors as `error:` + `hint:` lines."""

from __future__ import annotations

import sys

import typer

from .errors import GreendcnError
from .simcli import register as register_sim_commands

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
    from . import __version__, _engine

    print(f"greendcn {__version__} (engine {_engine.version()})")


# Each capability owns one typer sub-app in its own package: (command name, module with an `app`).
# Add yours here, one line each, in alphabetical order.
SUBAPPS: list[tuple[str, str]] = [
    ("energy", ".power.cli"),
    ("host", ".host.cli"),
    ("lifetime", ".lifetime.cli"),
    ("nic", ".nic.cli"),
    ("reproduce", ".experiments.cli"),
]


def _register_subapps() -> None:
    import importlib

    for name, module in SUBAPPS:
        app.add_typer(importlib.import_module(module, __package__).app, name=name)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app and turn greendcn errors into a message and exit status 1.

    Usage errors are click's own (exit status 2); anything else that escapes is a bug and keeps its traceback."""
    try:
        _register_subapps()
        register_sim_commands(app)  # top-level simulate and demo
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
