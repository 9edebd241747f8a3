"""The command line starts, reports versions, and turns bad usage into a clear error."""

from conftest import run_greendcn


run_cli = run_greendcn


def test_version_names_package_and_engine():
    out = run_cli("version")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("greendcn ") and "engine" in out.stdout


def test_the_version_option_prints_what_the_version_command_prints():
    out = run_cli("--version")
    assert out.returncode == 0, out.stderr
    assert out.stdout == run_cli("version").stdout


def test_energy_fabrics_is_an_alias_of_fabrics():
    top, alias = run_cli("fabrics", "--help"), run_cli("energy", "fabrics", "--help")
    assert top.returncode == 0 and alias.returncode == 0
    assert "--cost-equivalent" in alias.stdout and "--figure" in alias.stdout
    assert "Same as `greendcn fabrics`" in run_cli("energy", "--help").stdout


def test_unknown_command_is_a_usage_error_without_traceback():
    out = run_cli("no-such-command")
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
