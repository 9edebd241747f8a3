"""The greendcn exception tree. Every error a user can cause is a GreendcnError with a hint saying what to do;
the CLI prints `error: ...` and `hint: ...` and exits with status 1, never a traceback."""

from __future__ import annotations

__all__ = ["GreendcnError", "InputError", "EngineInputError", "EngineCrash"]


class GreendcnError(Exception):
    """Base of every error greendcn raises on purpose. `hint` says what the user can do about it."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.hint = hint


class InputError(GreendcnError, ValueError):
    """Bad user input: a file, a scenario field, a command-line value."""


class EngineInputError(InputError):
    """The engine refused its spec; the message names the field."""


class EngineCrash(GreendcnError, RuntimeError):
    """A bug inside the Rust engine, caught before it could abort Python."""
