"""The simulator's commands, one module each: `greendcn simulate`, `demo` and `fabrics` (in `app`, merged into
the root app) and `greendcn reproduce ...` (in `reproduce_app`), which reruns the papers' headline experiments.
`greendcn energy fabrics` is an alias of `fabrics`, mounted by the root command (greendcn/cli.py).

The command modules are imported when `app`, `reproduce_app` or `fabrics_cmd` is first asked for, so the root
command can mount `simulate` alone (greendcn/cli.py's SINGLE) without the other commands' imports."""

from __future__ import annotations

from typing import Any

__all__ = ["app", "fabrics_cmd", "reproduce_app"]

_MODULES = (
    "demo",
    "fabrics",
    "reproduce_circuits",
    "reproduce_energy_saving",
    "reproduce_host_energy",
    "reproduce_opera",
    "reproduce_opera_paper",
    "reproduce_rps",
)


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    for module in (*_MODULES, "simulate_app"):  # each registers its command on the apps
        importlib.import_module(f".{module}", __name__)
    from ._apps import app, reproduce_app
    from .fabrics import fabrics as fabrics_cmd

    globals().update(app=app, reproduce_app=reproduce_app, fabrics_cmd=fabrics_cmd)
    return globals()[name]
