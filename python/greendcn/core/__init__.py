"""What every capability of greendcn shares: the exception tree, units and their parsing, and the helpers
command modules use to print tables, write `--json` files and report progress."""

from __future__ import annotations

from .errors import EngineCrash, EngineInputError, GreendcnError, InputError

__all__ = ["EngineCrash", "EngineInputError", "GreendcnError", "InputError"]
