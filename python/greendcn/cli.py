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


def _print_version() -> None:
    from . import __version__, _native

    print(f"greendcn {__version__} (engine {_native.version()})")


def _version_option(value: bool) -> None:
    if value:
        _print_version()
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        is_eager=True,
        callback=_version_option,
        help="Print the versions of the package and of the Rust engine, and exit.",
    ),
) -> None:
    """Measure, simulate and cut the energy of datacenter networks."""


@app.command()
def version() -> None:
    """Print the versions of the package and of the Rust engine (same as --version)."""
    _print_version()


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
    ("sweep", ".sweep.cli", "app"),
    ("workload", ".sim.workload.cli", "app"),
    (None, ".sweep.cli", "report_app"),
]

# Commands also reachable under a second group, for users who look for them there: (group, command name,
# module, attribute). `greendcn fabrics` runs the simulator, so its code lives in sim/; it stays reachable
# as `greendcn energy fabrics`, the name it had before (docs/fabrics.md).
ALIASES: list[tuple[str, str, str, str]] = [
    ("energy", "fabrics", ".sim.cli", "fabrics_cmd"),
]


_registered = False


def _register_subapps() -> None:
    import importlib

    global _registered
    if _registered:  # main() may run several times in one process (tests)
        return
    _registered = True
    groups = {}
    for name, module, attr in SUBAPPS:
        sub = getattr(importlib.import_module(module, __package__), attr)
        if name is None:
            app.add_typer(sub)
        else:
            app.add_typer(sub, name=name)
            groups[name] = sub
    for group, name, module, attr in ALIASES:
        func = getattr(importlib.import_module(module, __package__), attr)
        what = (func.__doc__ or "").split(":")[0]
        groups[group].command(name, help=f"Same as `greendcn {name}`: {what[:1].lower()}{what[1:]}.")(func)


EXIT_OK, EXIT_INPUT, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130  # docs/errors.md


def _is_usage_error(e: BaseException) -> bool:
    """A command-line usage error (unknown option, bad value, missing argument, unknown command).

    typer vendors click privately, so its exception classes cannot be imported; a usage error is recognised
    by click's documented interface instead: an exit code of 2 and a `format_message()`."""
    return getattr(e, "exit_code", None) == EXIT_USAGE and callable(getattr(e, "format_message", None))


def _usage_hint(e: BaseException) -> str:
    ctx = getattr(e, "ctx", None)
    path = getattr(ctx, "command_path", None) or "greendcn"
    return f"see `{path} --help` for the options and commands"


def _say(message: str, hint: str | None) -> None:
    print(f"error: {message}", file=sys.stderr)
    if hint:
        print(f"hint: {hint}", file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app; every error ends as an `error:` and a `hint:` line on stderr and an exit status
    (docs/errors.md): 1 for bad input, 2 for a usage error, 130 when interrupted. Anything else that escapes
    is a bug and keeps its traceback."""
    from .core import clitools

    saved_stdout = sys.stdout  # `--json -` sends people's output to stderr for the command's duration
    try:
        _register_subapps()
        # standalone_mode=False (click's documented switch, which typer passes on) hands usage errors back to
        # us instead of printing them in a box, so they get the project's error format too.
        result = app(args=argv, prog_name="greendcn", standalone_mode=False)
    except GreendcnError as e:
        _say(str(e), e.hint)
        sys.exit(EXIT_INPUT)
    except KeyboardInterrupt:
        # Ctrl-C (or SIGTERM in host commands) is the user's choice, not a bug: no traceback.
        print("interrupted", file=sys.stderr)
        sys.exit(EXIT_INTERRUPTED)
    except Exception as e:
        if _is_usage_error(e):
            message = e.format_message()  # type: ignore[attr-defined]
            if not message.strip():  # a group called without a command: its help was shown already
                sys.exit(EXIT_USAGE)
            _say(message, _usage_hint(e))
            sys.exit(EXIT_USAGE)
        if isinstance(e.__cause__ or e.__context__, (KeyboardInterrupt, EOFError)):
            print("interrupted", file=sys.stderr)  # click's Abort, raised for Ctrl-C at a prompt
            sys.exit(EXIT_INTERRUPTED)
        raise
    finally:
        sys.stdout = saved_stdout
        clitools._json_stream = None
    if isinstance(result, int) and result != EXIT_OK:
        sys.exit(result)


if __name__ == "__main__":
    main()
