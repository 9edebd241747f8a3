"""The simulator's typer apps: `app` (its commands merge into the root: simulate, demo, fabrics) and
`reproduce_app` (`greendcn reproduce ...`); the command modules of this package register on them."""

from __future__ import annotations

import typer

app = typer.Typer()
reproduce_app = typer.Typer(
    help="Reproduce the headline experiments of the papers greendcn implements (docs/references.md).",
    no_args_is_help=True,
)


@reproduce_app.callback()
def _reproduce() -> None:
    """Reproduce the headline experiments of the papers greendcn implements (docs/references.md)."""
