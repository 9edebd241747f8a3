"""Termination handled like Ctrl-C in every host command: SIGTERM (systemd stop, kill) and SIGHUP (a closed
terminal or SSH session) raise KeyboardInterrupt in the main thread, so the same `finally` blocks run that
Ctrl-C runs: `host control` puts the cores back and removes its state file, `plan --apply` rolls back a
half-made change, the TDMA probe removes its namespaces. SIGKILL cannot be caught; after it, `host revert`
restores from the state file, which is always on disk before a value is written."""

from __future__ import annotations

import signal
from types import FrameType

__all__ = ["TERMINATION_SIGNALS", "terminate_as_interrupt"]

TERMINATION_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"{signal.Signals(signum).name} received")


def terminate_as_interrupt() -> None:
    """Install the handlers for the rest of the process (a command is one process)."""
    for sig in TERMINATION_SIGNALS:
        signal.signal(sig, _interrupt)
