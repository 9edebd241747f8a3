"""pydantic's plugin loader without importlib.metadata while plugins are disabled, for a faster command start.

pydantic imports its plugin loader when it builds its first model, and the loader imports importlib.metadata
(and with it the email package) at the top, even when PYDANTIC_DISABLE_PLUGINS turns plugins off: about 60 M
instructions, 5 % of a one-flow `greendcn simulate` (callgrind, BENCHMARKS.md). The `greendcn` command disables
plugins (cli.py), so until something turns them back on the loader it gets answers "no plugins" itself, as
pydantic's would, and imports pydantic's own loader the first time plugins are enabled."""

from __future__ import annotations

import os
import sys
import types
from typing import Any

__all__ = ["defer_plugin_loader", "prepare_command"]

_LOADER = "pydantic.plugin._loader"
_OFF = ("__all__", "1", "true")  # the values for which pydantic's get_plugins() returns no plugins


def prepare_command() -> None:
    """What the `greendcn` command sets before its first import of typer or pydantic (greendcn/cli.py,
    greendcn/launch.py): plain help text, pydantic's plugins off, and the loader above."""
    # Plain help text (click's) rather than typer's rich panels: loading rich's formatting cost about 0.25 s of
    # CPU on every `--help` (our measurement, BENCHMARKS.md); TYPER_USE_RICH=1 brings the panels back.
    os.environ.setdefault("TYPER_USE_RICH", "0")
    # pydantic looks for plugins among every installed package's entry points when it first builds a model
    # (tens of ms); the command uses none (our choice; PYDANTIC_DISABLE_PLUGINS set in the environment is kept).
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "1")
    defer_plugin_loader()


def defer_plugin_loader() -> None:
    """Stand in for pydantic's plugin loader while PYDANTIC_DISABLE_PLUGINS turns every plugin off."""
    if _LOADER in sys.modules or os.environ.get("PYDANTIC_DISABLE_PLUGINS") not in _OFF:
        return
    stand_in = types.ModuleType(
        _LOADER, "pydantic's plugin loader until plugins are enabled (greendcn.core.startup)"
    )

    def get_plugins() -> Any:
        if os.environ.get("PYDANTIC_DISABLE_PLUGINS") in _OFF:
            return ()
        import importlib

        if sys.modules.get(_LOADER) is stand_in:
            del sys.modules[_LOADER]
        return importlib.import_module(_LOADER).get_plugins()

    stand_in.get_plugins = get_plugins  # type: ignore[attr-defined]
    sys.modules[_LOADER] = stand_in
