"""The simulator's commands, one module each: `greendcn simulate`, `demo` and `fabrics` (in `app`, merged into
the root app) and `greendcn reproduce ...` (in `reproduce_app`), which reruns the papers' headline experiments.
`greendcn energy fabrics` is an alias of `fabrics`, mounted by the root command (greendcn/cli.py)."""

from __future__ import annotations

from . import (  # noqa: F401 - each module registers its command on the apps
    demo,
    fabrics,
    reproduce_circuits,
    reproduce_energy_saving,
    reproduce_host_energy,
    reproduce_opera,
    reproduce_rps,
    simulate,
)
from ._apps import app, reproduce_app
from .fabrics import fabrics as fabrics_cmd

__all__ = ["app", "fabrics_cmd", "reproduce_app"]
