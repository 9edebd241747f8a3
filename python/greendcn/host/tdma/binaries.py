"""Where the native probe binaries live: target/release of the repository, or $GREENDCN_TDMA_BIN_DIR."""

from __future__ import annotations

import os
from pathlib import Path

import greendcn

from ...core.errors import GreendcnError

__all__ = ["ENV_BIN_DIR", "RECEIVER", "SENDER", "binary"]

SENDER = "greendcn-tdma-send"
RECEIVER = "greendcn-tdma-recv"
ENV_BIN_DIR = "GREENDCN_TDMA_BIN_DIR"


def binary(name: str) -> Path:
    """Absolute path of a probe binary; a clear error when it has not been built."""
    override = os.environ.get(ENV_BIN_DIR)
    folder = (
        Path(override) if override else Path(greendcn.__file__).resolve().parents[2] / "target" / "release"
    )
    path = folder / name
    if not (path.is_file() and os.access(path, os.X_OK)):
        where = f"${ENV_BIN_DIR}={override}" if override else str(folder)
        raise GreendcnError(
            f"the TDMA probe binary {name} is missing from {where}",
            hint="run `make build` in the repository (or point "
            f"{ENV_BIN_DIR} at a folder holding {SENDER} and {RECEIVER})",
        )
    return path
