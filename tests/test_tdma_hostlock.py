"""The host-wide probe lock: a second run waits for the first (by order of events, not by timing)."""

import os
import subprocess
import sys

import pytest

from greendcn.core.errors import GreendcnError
from greendcn.host.tdma import hostlock

HOLDER = r"""
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o666)
fcntl.flock(fd, fcntl.LOCK_EX)
os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
print("held", flush=True)
sys.stdin.readline()  # hold until told to let go
open(sys.argv[2], "w").write("released")
os.close(fd)
"""


@pytest.fixture
def lock_file(tmp_path, monkeypatch):
    path = tmp_path / hostlock.LOCK_NAME
    monkeypatch.setattr(hostlock, "lock_path", lambda: path)
    return path


def _holder(lock_file, tmp_path):
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock_file), str(tmp_path / "released")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout.readline().strip() == "held"
    return child


def _finish(child):
    child.stdin.close()
    child.stdout.close()
    child.wait(timeout=60)


def test_a_second_run_waits_for_the_first(lock_file, tmp_path, capsys):
    child = _holder(lock_file, tmp_path)
    try:
        child.stdin.write("go\n")
        child.stdin.flush()
        with hostlock.exclusive_host(timeout_s=120):
            # We only get here once the holder has let go, and it writes its marker before it does.
            assert (tmp_path / "released").read_text() == "released"
            assert lock_file.read_text().strip() == str(os.getpid())
    finally:
        _finish(child)


def test_waiting_is_announced_and_times_out(lock_file, tmp_path, capsys):
    child = _holder(lock_file, tmp_path)
    try:
        with (
            pytest.raises(GreendcnError, match="another TDMA probe run") as e,
            hostlock.exclusive_host(timeout_s=0.2),
        ):
            pass
        assert "wait" in e.value.hint
        err = capsys.readouterr().err
        assert "waiting for another TDMA probe run" in err and f"pid {child.pid}" in err
    finally:
        child.stdin.write("go\n")
        _finish(child)


TRY_LOCK = r"""
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o666)
try:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    print("free")
except BlockingIOError:
    print("held")
"""


def _seen_from_another_process(lock_file) -> str:
    out = subprocess.run(
        [sys.executable, "-c", TRY_LOCK, str(lock_file)], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def test_the_lock_is_reentrant_within_a_process(lock_file):
    # A nested take must neither wait for itself (it would time out and raise) nor let go of the lock when the
    # inner block ends: the host stays locked for other processes until the outer block ends.
    with hostlock.exclusive_host(timeout_s=1):
        with hostlock.exclusive_host(timeout_s=1):
            assert _seen_from_another_process(lock_file) == "held"
        assert _seen_from_another_process(lock_file) == "held"
    assert _seen_from_another_process(lock_file) == "free"
    with hostlock.exclusive_host(timeout_s=1):  # released: it can be taken again
        assert _seen_from_another_process(lock_file) == "held"
