"""The `greendcn` program's entry point: a plain `greendcn simulate` command line runs without typer.

typer (with its vendored click) costs about 120 M instructions to import and more to build a command, a fifth of
a one-flow `simulate` (BENCHMARKS.md). A `simulate` command line made only of the scenario path and the
command's own options, each given once with a plain value (`plain_simulate`), is parsed here and run at once;
any other command line (another command, `--help`, an unknown or repeated option, a value typer would convert or
refuse differently) goes to greendcn.cli, so its parsing, results and messages stay typer's.
tests/test_launch.py checks that both ways give the command the same values."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

__all__ = ["SIMULATE_OPTIONS", "main", "plain_simulate", "run_plain"]

# `greendcn simulate`'s options (sim/cli/simulate_app.py) by kind of value: "int" (whole numbers as typer's
# plain conversion takes them, core/cliparams.py), "path", "text", "list" (text, given once or more).
SIMULATE_OPTIONS: dict[str, str] = {
    "--seed": "int",
    "--json": "path",
    "--flows": "path",
    "--set": "list",
    "--max-memory": "text",
    "--parquet": "path",
}
# the command's parameter name of each option
_DEST = {
    "--seed": "seed",
    "--json": "json_out",
    "--flows": "flows",
    "--set": "set_",
    "--max-memory": "max_memory",
    "--parquet": "parquet",
}
_INT = re.compile(r"[+-]?[0-9]{1,18}").fullmatch

EXIT_OK, EXIT_INPUT, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130  # docs/errors.md


def plain_simulate(argv: list[str]) -> dict[str, Any] | None:
    """The values of `greendcn simulate` that `argv` (without the program name) gives, as the command receives
    them, or None when `argv` is not a plain `simulate` command line (typer then parses it)."""
    if not argv or argv[0] != "simulate":
        return None
    values: dict[str, Any] = {dest: None for dest in _DEST.values()}
    scenario = None
    rest = argv[1:]
    i = 0
    while i < len(rest):
        arg = rest[i]
        if arg.startswith("-"):
            name, eq, value = arg.partition("=")
            kind = SIMULATE_OPTIONS.get(name)
            if kind is None:
                return None  # --help, --, an unknown or misspelt option: typer's answer
            if not eq:
                i += 1
                if i == len(rest):
                    return None
                value = rest[i]
            # a value that looks like an option, or an empty one, is left to typer's rules
            if not value or (value.startswith("-") and value != "-"):
                return None
            dest = _DEST[name]
            if kind == "list":
                values[dest] = [*(values[dest] or []), value]
            elif values[dest] is not None:
                return None  # given twice
            elif kind == "int":
                if not _INT(value):
                    return None
                values[dest] = int(value)
            else:
                values[dest] = Path(value) if kind == "path" else value
        else:
            if scenario is not None:
                return None  # a second argument: typer says so
            scenario = Path(arg)
        i += 1
    if scenario is None or not str(scenario):
        return None
    values["scenario"] = scenario
    return values


def _say(message: str, hint: str | None) -> None:
    print(f"error: {message}", file=sys.stderr)
    if hint:
        print(f"hint: {hint}", file=sys.stderr)


def _end(code: Any) -> None:
    """End the process as Python would, less the teardown: the exit handlers run and the standard streams are
    flushed, then the process exits with `code`. Anything unusual (another thread still running, a code that is
    not a number, a stream that cannot be flushed) takes Python's own way out instead, as before."""
    import atexit
    import threading

    if code is None:
        code = EXIT_OK
    if not isinstance(code, int) or threading.active_count() > 1:
        sys.exit(code)
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(code)  # Python reports a broken pipe (or a closed stream) as it always has
    os._exit(code)


def run_plain(argv: list[str]) -> None:
    """Run `argv` and end the process when it is a plain `simulate` command line; return otherwise."""
    values = plain_simulate(argv)
    if values is None:
        return
    from .core.startup import prepare_command

    prepare_command()
    from .core import clitools
    from .core.errors import GreendcnError

    saved_stdout = sys.stdout  # `--json -` sends people's output to stderr for the command's duration
    code = EXIT_OK
    try:
        from .sim.cli.simulate import run_simulate

        clitools.json_option_callback(values["json_out"])  # as typer calls it, before the command
        code = run_simulate(**values)
    except GreendcnError as e:
        _say(str(e), e.hint)
        code = EXIT_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)  # the user's choice, not a bug: no traceback
        code = EXIT_INTERRUPTED
    except SystemExit as e:
        code = e.code
    finally:
        sys.stdout = saved_stdout
        clitools._json_stream = None
    _end(code)


def main() -> None:
    """The `greendcn` program: a plain `simulate` here, anything else through typer (greendcn.cli)."""
    run_plain(sys.argv[1:])
    from .cli import main as typer_main

    typer_main()


if __name__ == "__main__":
    main()
