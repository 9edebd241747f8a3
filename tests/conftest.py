"""Shared test helpers: running the `greendcn` command as a user would, checking its error format, and the
markers that say what a test needs from the machine.

Markers (registered in pyproject.toml; `pytest -m "not needs_netns"` leaves those out):
- `needs_netns`: creates network namespaces and veth pairs (root, or CAP_NET_ADMIN and CAP_SYS_ADMIN). Without
  them these tests fail with the reason rather than skip: a skipped test would hide a missing capability.
- `slow`: takes more than about ten seconds on the 2-core development machine.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

# Tests that run real namespaces and veth pairs: whole modules, and single tests elsewhere.
_NETNS_MODULES = {"test_tdma_veth.py", "test_host_veth.py"}
_NETNS_TESTS = {"test_tdma_cli.py::test_probe_runs_over_veth_and_writes_json"}
# Tests measured above about ten seconds on the 2-core development machine (pytest --durations).
_SLOW_TESTS = {"test_host_veth.py::test_controller_follows_real_traffic"}


def run_greendcn(
    *args: object, cwd: str | Path | None = None, timeout: float = 600, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `greendcn ARGS...` in a fresh interpreter (as the installed command would) and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", "greendcn.cli", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
        cwd=cwd,
        input=input,
    )


def assert_clean_error(out: subprocess.CompletedProcess[str], *words: str, status: int = 1) -> None:
    """The project's error format: exit `status`, no traceback, one `error:` line containing every word, and a
    `hint:` line last."""
    assert out.returncode == status, (out.returncode, out.stderr)
    assert "Traceback" not in out.stderr, out.stderr
    lines = out.stderr.strip().splitlines()
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1, out.stderr
    for word in words:
        assert word in errors[0], out.stderr
    assert lines[-1].startswith("hint:"), out.stderr


@pytest.fixture
def greendcn_cli():
    """The `run_greendcn` function, for tests that prefer a fixture to an import."""
    return run_greendcn


def pytest_collection_modifyitems(config: pytest.Config, items: Sequence[pytest.Item]) -> None:
    for item in items:
        if item.path.name in _NETNS_MODULES or f"{item.path.name}::{item.name}" in _NETNS_TESTS:
            item.add_marker(pytest.mark.needs_netns)
        if f"{item.path.name}::{item.name}" in _SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
