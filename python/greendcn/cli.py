"""The `greendcn` command line: one typer sub-app per capability, errors as `error:` + `hint:` lines."""

from __future__ import annotations

import sys
from typing import Any

# `python -m greendcn.cli`: a plain `simulate` runs without typer (greendcn/launch.py)
if __name__ == "__main__":
    from .launch import run_plain

    run_plain(sys.argv[1:])  # returns when the command line is for typer

from .core.startup import prepare_command  # noqa: E402

# plain help text, pydantic's plugins off and its plugin loader deferred (core/startup.py)
prepare_command()

import typer  # noqa: E402
from typer.core import TyperCommand, TyperGroup  # noqa: E402

from .core.cliparams import plain_coercion  # noqa: E402
from .core.errors import GreendcnError  # noqa: E402
from .launch import EXIT_INPUT, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, _end, _say  # noqa: E402

# typer converts each option's value through a pydantic adapter it builds per option, even an option not given;
# plain values (numbers, text, paths) are converted without one, with typer's results and messages (core/cliparams.py)
plain_coercion()


def _mount(name: str | None, module: str, attr: str) -> dict[str, Any]:
    """The click commands one SUBAPPS entry adds to the root, as `app.add_typer` would mount them."""
    import importlib

    sub = getattr(importlib.import_module(module, __package__), attr)
    for group, alias, alias_module, alias_attr in ALIASES:
        if group == name and not any(c.name == alias for c in sub.registered_commands):
            func = getattr(importlib.import_module(alias_module, __package__), alias_attr)
            what = (func.__doc__ or "").split(":")[0]
            sub.command(alias, help=f"Same as `greendcn {alias}`: {what[:1].lower()}{what[1:]}.")(func)
    holder = typer.Typer()
    if name is None:
        holder.add_typer(sub)
    else:
        holder.add_typer(sub, name=name)
    return dict(typer.main.get_group(holder).commands)


def _mount_single(name: str, module: str, attr: str) -> Any:
    """The click command of one function (a SINGLE entry), its module imported alone."""
    import importlib

    holder = typer.Typer(add_completion=False)
    holder.command(name)(getattr(importlib.import_module(module, __package__), attr))
    return typer.main.get_command(holder)


class _Listed(TyperCommand):
    """A command as `greendcn --help` lists it: its name and help, nothing imported."""


class _LazyRoot(TyperGroup):
    """The root command group: SUBAPPS' commands are listed from COMMAND_HELP and mounted on first use."""

    listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        # a sub-app of SUBAPPS missing from COMMAND_HELP is listed too (mounted to read its help)
        names = [*COMMAND_HELP, *(n for n, _m, _a in SUBAPPS if n and n not in COMMAND_HELP)]
        return [*super().list_commands(ctx), *(n for n in names if n not in self.commands)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        if self.listing and cmd_name in COMMAND_HELP:
            return _Listed(name=cmd_name, help=COMMAND_HELP[cmd_name], callback=None)
        if cmd_name in SINGLE:
            self.commands[cmd_name] = _mount_single(cmd_name, *SINGLE[cmd_name])
            return self.commands[cmd_name]
        for name, module, attr in SUBAPPS:
            if name == cmd_name or name is None:
                self.commands.update(
                    {k: v for k, v in _mount(name, module, attr).items() if k not in self.commands}
                )
                if cmd_name in self.commands:
                    return self.commands[cmd_name]
        return None

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self.listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self.listing = False


app = typer.Typer(
    cls=_LazyRoot,
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

# Top-level commands mounted alone when run, without the other commands of their SUBAPPS entry: (module,
# function). `simulate` is the command small runs start with, so it does not import demo's or reproduce's modules.
SINGLE: dict[str, tuple[str, str]] = {
    "simulate": (".sim.cli.simulate_app", "simulate_cmd"),
}

# Commands also reachable under a second group, for users who look for them there: (group, command name,
# module, attribute). `greendcn fabrics` runs the simulator, so its code lives in sim/; it stays reachable
# as `greendcn energy fabrics`, the name it had before (docs/fabrics.md).
ALIASES: list[tuple[str, str, str, str]] = [
    ("energy", "fabrics", ".sim.cli", "fabrics_cmd"),
]


# What `greendcn --help` lists, without importing any command module: each top-level command's one-line help
# (tests/test_cli_lazy.py checks it against the modules' own). A command's module is imported only when that
# command runs or shows its own help, so a command pays only for the libraries it uses.
COMMAND_HELP: dict[str, str] = {
    "demo": "Which fabric moves a workload for the fewest joules: Opera, RotorNet, SelectorNet and "
    "fat-trees on one\nsmall workload (greendcn fabrics), then Kaymak 2016 on a k=4 fat-tree, "
    "single path vs packet spraying.",
    "fabrics": "One workload on Opera, RotorNet, SelectorNet and fat-trees with the same hosts and link "
    "rate: throughput,\nFCT, J, W and pJ per delivered bit side by side (docs/fabrics.md); "
    "--workload runs yours, --load sweeps\ngenerated loads.",
    "simulate": "Simulate one scenario and print a summary per flow class; --json writes flows, links, "
    "nodes, summary.",
    "energy": "Power and energy: network power vs node count, software-router power plans.",
    "host": "AFFCON on this machine: core layout, affinity and DVFS plans, rate control, RAPL energy.",
    "lifetime": "Device lifetimes from access logs (McGuinness 2021 ch. 4): oldness, upgrades, embodied "
    "carbon.",
    "nic": "NIC receive modes (interrupt, timer, watermark, NAPI): model, tuner, cross-check.",
    "reproduce": "Reproduce the headline experiments of the papers greendcn implements (docs/references.md).",
    "sweep": "Sweeps from a spec file into a DuckDB results store (docs/sweeps.md).",
    "workload": "Flow-size distributions and generated workloads (docs/workloads.md).",
    "report": "One self-contained HTML page of a store: parameters, summary tables, interactive figures "
    "(no network needed).",
}


def _register_subapps() -> None:
    """Kept for callers of the eager mounting: the root group now mounts each capability on first use."""


def _is_usage_error(e: BaseException) -> bool:
    """A command-line usage error (unknown option, bad value, missing argument, unknown command).

    typer vendors click privately, so its exception classes cannot be imported; a usage error is recognised
    by click's documented interface instead: an exit code of 2 and a `format_message()`."""
    return getattr(e, "exit_code", None) == EXIT_USAGE and callable(getattr(e, "format_message", None))


def _usage_hint(e: BaseException) -> str:
    ctx = getattr(e, "ctx", None)
    path = getattr(ctx, "command_path", None) or "greendcn"
    return f"see `{path} --help` for the options and commands"


# Commands after which the program ends without Python's teardown of every module and object (about 75 M
# instructions, 6 % of a one-flow `simulate`; BENCHMARKS.md): they leave no thread, open file or database behind.
QUICK_EXIT = frozenset({"simulate"})


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app; every error ends as an `error:` and a `hint:` line on stderr and an exit status
    (docs/errors.md): 1 for bad input, 2 for a usage error, 130 when interrupted. Anything else that escapes
    is a bug and keeps its traceback. Called as the program (no `argv`), a QUICK_EXIT command ends the process
    once it is done (`_end`)."""
    if argv is not None or not QUICK_EXIT.intersection(a for a in sys.argv[1:2]):
        _main(argv)
        return
    try:
        _main(None)
        code: Any = 0
    except SystemExit as e:
        code = e.code
    _end(code)


def _main(argv: list[str] | None) -> None:
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
