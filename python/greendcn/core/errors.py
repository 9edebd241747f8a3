"""The greendcn exception tree, the one every capability raises from. Every error a user can cause is a
GreendcnError with a hint saying what to do; the CLI prints `error: ...` and `hint: ...` and exits with status 1,
never a traceback.

Errors about a field carry its location as data, pydantic-core style: `loc` is a tuple of keys and indices
(("workload", "flows", 3, "size") for the fourth flow's size), so programs can act on it without parsing the
message. The compiled module raises its own `SpecError` and `NativePanic`; greendcn.sim.engine turns them into
`EngineInputError` and `EngineCrash` here, so users only ever meet this tree.

    GreendcnError
    ├── InputError (also a ValueError)      bad user input: a file, a scenario field, a command-line value
    │   ├── FieldError                      a check across fields that blames one of them
    │   └── EngineInputError                the engine refused its spec; `loc` is the scenario key
    └── EngineCrash (also a RuntimeError)   a bug inside the Rust engine, caught before it could abort Python
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

__all__ = [
    "EngineCrash",
    "EngineInputError",
    "FieldError",
    "GreendcnError",
    "InputError",
    "Loc",
    "format_loc",
    "reject_unknown_keys",
]

Loc = tuple[str | int, ...]


def format_loc(loc: Loc) -> str:
    """("workload", "flows", 3, "size") -> "workload.flows[3].size"."""
    out = ""
    for item in loc:
        out += f"[{item}]" if isinstance(item, int) else (f".{item}" if out else str(item))
    return out


class GreendcnError(Exception):
    """Base of every error greendcn raises on purpose. `hint` says what the user can do about it."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.hint = hint


class InputError(GreendcnError, ValueError):
    """Bad user input: a file, a scenario field, a command-line value. `loc` locates the field, when there is
    one (empty otherwise)."""

    def __init__(self, message: str, hint: str | None = None, loc: Loc = ()):
        super().__init__(message, hint)
        self.loc = tuple(loc)


def reject_unknown_keys(
    table: Iterable[str],
    allowed: Collection[str],
    *,
    takes: str,
    origin: str = "",
    path: str = "",
    loc: Loc = (),
) -> None:
    """Refuse a table with a key outside `allowed`, naming the first (sorted) one. The message reads
    "ORIGIN: unknown key 'PATHkey'", the hint "TAKES a, b, c" (`takes` may hold `{keys}` to place the list
    itself), and `loc` + (key,) locates it."""
    unknown = sorted(set(table) - set(allowed))
    if not unknown:
        return
    keys = ", ".join(sorted(allowed))
    hint = takes.format(keys=keys) if "{keys}" in takes else f"{takes} {keys}"
    raise InputError(
        f"{origin + ': ' if origin else ''}unknown key {path + unknown[0]!r}",
        hint=hint,
        loc=(*loc, unknown[0]),
    )


class FieldError(InputError):
    """A check across fields that blames one of them (`field`, relative to the model checked)."""

    def __init__(self, field: str, message: str, hint: str | None = None):
        super().__init__(message, hint, loc=(field,))
        self.field = field


class EngineInputError(InputError):
    """The engine refused its spec. `loc` is the scenario key to blame, `engine_loc` the field in the engine's
    spec (docs/engine-spec.md) and `msg` the engine's message without its location."""

    def __init__(
        self, message: str, hint: str | None = None, loc: Loc = (), engine_loc: Loc = (), msg: str = ""
    ):
        super().__init__(message, hint, loc)
        self.engine_loc = tuple(engine_loc)
        self.msg = msg or message


class EngineCrash(GreendcnError, RuntimeError):
    """A bug inside the Rust engine, caught before it could abort Python."""
