"""The command line starts, reports versions, and turns bad usage into a clear error."""

import subprocess
import sys


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "greendcn.cli", *args], capture_output=True, text=True, timeout=120)


def test_version_names_package_and_engine():
    out = run_cli("version")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("greendcn ") and "engine" in out.stdout


def test_unknown_command_is_a_usage_error_without_traceback():
    out = run_cli("no-such-command")
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
