"""One probe run at a time on a host: runs from different processes queue on an exclusive file lock.

Two probes at once would measure each other: their real-time senders share the CPUs, and one sender holding a
CPU through its window leaves the other's slots empty (seen on the shared development VM: 35% empty slots
where a lone run has none). So every run that sends (`run_probe`, `run_relay`) holds an flock on
/run/lock/greendcn-tdma-probe.lock (the temporary folder when /run/lock is absent); a run that must wait says
so on stderr. The lock is re-entrant within one process and released when the process dies."""

from __future__ import annotations

import fcntl
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ...core.errors import GreendcnError

__all__ = ["LOCK_NAME", "exclusive_host", "lock_path"]

LOCK_NAME = "greendcn-tdma-probe.lock"
_POLL_S = 0.05
_held = 0  # depth of exclusive_host in this process


def lock_path() -> Path:
    for folder in ("/run/lock", tempfile.gettempdir()):
        if os.path.isdir(folder) and os.access(folder, os.W_OK):
            return Path(folder) / LOCK_NAME
    raise GreendcnError(
        "no writable folder for the probe's lock file (/run/lock or the temporary folder)",
        hint="set TMPDIR to a writable folder",
    )


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 32, 0).decode(errors="replace").strip()
    except OSError:
        return ""
    return f" (pid {text})" if text.isdigit() else ""


@contextmanager
def exclusive_host(timeout_s: float = 900.0) -> Iterator[None]:
    """Hold the host's probe lock for the duration of the block, waiting up to `timeout_s` for it."""
    global _held
    if _held:
        _held += 1
        try:
            yield
        finally:
            _held -= 1
        return
    path = lock_path()
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as e:
        raise GreendcnError(
            f"cannot open the probe's lock file {path}: {e.strerror}",
            hint="run as the user who created it (normally root)",
        ) from None
    try:
        t0, told = time.monotonic(), False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not told:
                    print(
                        f"waiting for another TDMA probe run on this host{_holder(fd)} to finish ({path})",
                        file=sys.stderr,
                    )
                    told = True
                if time.monotonic() - t0 > timeout_s:
                    raise GreendcnError(
                        f"another TDMA probe run{_holder(fd)} held {path} for {timeout_s:.0f} s",
                        hint="wait for it to finish (two runs at once would measure each other), or end it",
                    ) from None
                time.sleep(_POLL_S)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        _held = 1
        try:
            yield
        finally:
            _held = 0
    finally:
        os.close(fd)  # closing the descriptor releases the flock
