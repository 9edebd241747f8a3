"""The command line starts, reports versions, and turns bad usage into a clear error."""

from conftest import run_greendcn


run_cli = run_greendcn


def test_version_names_package_and_engine():
    out = run_cli("version")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("greendcn ") and "engine" in out.stdout


def test_unknown_command_is_a_usage_error_without_traceback():
    out = run_cli("no-such-command")
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
