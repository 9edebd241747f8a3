"""`greendcn host` commands: output, JSON with units in key names, and errors as `error:` + `hint:`."""

import json
import os
import subprocess
import sys

import pytest

from greendcn.host.fake import build_tree, snapshot, table1_machine


def run(*args):
    return subprocess.run(
        [sys.executable, "-m", "greendcn.cli", "host", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return build_tree(tmp_path_factory.mktemp("cli") / "t", table1_machine())


def test_layout_prints_table1(tree, tmp_path):
    r = run("layout", "--root", str(tree), "--json", str(tmp_path / "l.json"))
    assert r.returncode == 0, r.stderr
    assert "Core 8  [12, 36]  [13, 37]" in r.stdout
    data = json.loads((tmp_path / "l.json").read_text())
    assert len(data["cores"]) == 24 and {n["name"]: n["numa_node"] for n in data["nics"]}["enp130s0f0"] == 1
    assert data["nics"][0]["speed_mbps"] == 10000


def test_plan_apply_revert_via_cli(tmp_path):
    root = build_tree(tmp_path / "t", table1_machine())
    before = snapshot(root)
    state = tmp_path / "state.json"
    r = run(
        "plan",
        "--root",
        str(root),
        "--port",
        "enp3s0f0",
        "--port",
        "enp3s0f1",
        "--apply",
        "--state",
        str(state),
        "--json",
        str(tmp_path / "p.json"),
    )
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "p.json").read_text())
    assert data["ports"][0]["cpus"] == [4, 6] and data["pktgen_m"] == "[4:6].0,[8:10].1"
    assert data["applied"] and snapshot(root) != before
    r = run("revert", "--root", str(root), "--state", str(state))
    assert r.returncode == 0, r.stderr
    assert snapshot(root) == before


@pytest.mark.parametrize(
    "args, msg",
    [
        (["plan", "--port", "averyveryverylongname"], "the kernel allows 15"),
        (["plan", "--port", "eth9"], "no interface 'eth9'"),
        (["plan", "--port", "enp3s0f0", "--idle-max-freq", "fast"], "--idle-max-freq"),
        (["control", "--port", "enp3s0f0"], "lacks its CPUs"),
        (["control", "--port", "enp3s0f0:4", "--low-rate", "2Gbps"], "--low-rate"),
        (["revert", "--state", "/nonexistent/state.json"], "nothing to revert"),
    ],
)
def test_errors_have_hints(tree, args, msg):
    r = run(*args, "--root", str(tree))
    assert r.returncode == 1 and msg in r.stderr and "hint:" in r.stderr and "Traceback" not in r.stderr


def test_bad_root(tmp_path):
    r = run("layout", "--root", str(tmp_path / "absent"))
    assert r.returncode == 1 and "not a directory" in r.stderr
    (tmp_path / "a_file").write_text("x")
    r = run("layout", "--root", str(tmp_path / "a_file"))
    assert r.returncode == 1 and "not a directory" in r.stderr


def test_control_dry_run_from_plan_file(tree, tmp_path):
    """Counters of the fake tree stay at 0, so the port idles once the dwell has passed (actuator none)."""
    r = run("plan", "--root", str(tree), "--port", "enp3s0f0", "--json", str(tmp_path / "p.json"))
    assert r.returncode == 0, r.stderr
    r = run(
        "control",
        "--root",
        str(tree),
        "--plan",
        str(tmp_path / "p.json"),
        "--actuator",
        "none",
        "--interval",
        "50ms",
        "--dwell",
        "100ms",
        "--duration",
        "400ms",
        "--json",
        str(tmp_path / "c.json"),
    )
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "c.json").read_text())
    assert [d["to"] for d in data["decisions"]] == ["idle"] and data["decisions"][0]["rate_bps"] == 0
    assert data["decisions"][0]["t_s"] >= 0.1 and "rate_bps" in data["samples"][0]


def test_control_cpufreq_actuator_restores_on_exit(tmp_path):
    """Zero traffic on the fake counters: the port's core goes to powersave; on exit the tree is as before."""
    root = build_tree(tmp_path / "t", table1_machine())
    before = snapshot(root)
    r = run(
        "control",
        "--root",
        str(root),
        "--port",
        "enp3s0f0:4",
        "--interval",
        "50ms",
        "--dwell",
        "100ms",
        "--duration",
        "300ms",
        "--state",
        str(tmp_path / "s.json"),
        "--json",
        str(tmp_path / "c.json"),
    )
    assert r.returncode == 0, r.stderr
    d = json.loads((tmp_path / "c.json").read_text())["decisions"]
    assert d[0]["to"] == "idle" and "policy4 -> powersave" in d[0]["actions"]
    assert "policy28 -> powersave" in d[0]["actions"]  # the sibling shares the core's clock
    assert "restored" in r.stderr and snapshot(root) == before and not (tmp_path / "s.json").exists()


def test_layout_of_this_machine(tmp_path):
    """The real /sys, read only: the CLI must run and report what cpufreq offers here, whatever that is."""
    r = run("layout", "--json", str(tmp_path / "l.json"))
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "l.json").read_text())
    in_cores = sorted(c for k in data["cores"] for c in k["cpus"])
    in_nodes = sorted(c for cpus in data["nodes"].values() for c in cpus)
    assert in_cores == in_nodes and len(in_cores) == os.cpu_count()
    if not data["cpufreq"]["policies"]:
        assert "no frequency control here" in r.stdout


def test_apply_then_control_then_revert(tmp_path):
    """The operator's sequence with default state files in the tree's run/: plan --apply, a controller on top
    (its own state, restored on exit to the applied values), then revert: the tree is back byte for byte,
    including the run/greendcn folder the first command created for its state file."""
    root = build_tree(tmp_path / "t", table1_machine())
    before = snapshot(root)
    r = run("plan", "--root", str(root), "--port", "enp3s0f0", "--apply", "--json", str(tmp_path / "p.json"))
    assert r.returncode == 0, r.stderr
    applied = snapshot(root)
    r = run(
        "control",
        "--root",
        str(root),
        "--plan",
        str(tmp_path / "p.json"),
        "--interval",
        "50ms",
        "--dwell",
        "100ms",
        "--duration",
        "300ms",
    )
    assert r.returncode == 0, r.stderr
    assert "working -> idle" in r.stderr and snapshot(root) == applied
    r = run("revert", "--root", str(root))
    assert r.returncode == 0, r.stderr
    assert snapshot(root) == before
    assert not (root / "run").exists()


def test_a_refused_control_leaves_no_state_file(tmp_path):
    """Bad options are refused before the cpufreq actuator records anything, so a corrected command runs."""
    root = build_tree(tmp_path / "t", table1_machine())
    before = snapshot(root)
    common = (
        "control",
        "--root",
        str(root),
        "--port",
        "enp3s0f0:4",
        "--interval",
        "50ms",
        "--dwell",
        "100ms",
    )
    for bad in (("--low-rate", "2Gbps"), ("--duration", "soon"), ("--netns", "a b"), ("--direction", "up")):
        r = run(*common, *bad)
        assert r.returncode == 1 and "hint:" in r.stderr, (bad, r.stderr)
        assert snapshot(root) == before, bad
    r = run(*common, "--duration", "200ms")
    assert r.returncode == 0, r.stderr
    assert snapshot(root) == before


def test_fake_command_builds_a_tree_the_other_commands_read(tmp_path):
    r = run("fake", str(tmp_path / "f"), "--cpufreq", "intel_pstate", "--policy-scope", "core")
    assert r.returncode == 0, r.stderr
    r = run("layout", "--root", str(tmp_path / "f"), "--json", str(tmp_path / "l.json"))
    data = json.loads((tmp_path / "l.json").read_text())
    assert data["cpufreq"]["driver"] == "intel_pstate" and len(data["cpufreq"]["policies"]) == 24
    r = run("fake", str(tmp_path / "f"))
    assert r.returncode == 1 and "not an empty directory" in r.stderr


def test_predict_says_what_is_fitted_and_what_is_predicted(tmp_path):
    r = run("predict", "--json", str(tmp_path / "p.json"))
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "p.json").read_text())
    rows = {c["config"]: c for c in data["configs"]}
    # The two fitted rows meet the paper's figures by construction; the output must say so, and say that the
    # rest is the model's prediction.
    assert rows["baseline_cpu_affinity"]["cpu_power_w"] == pytest.approx(112.0, abs=1e-9)
    assert rows["affcon"]["cpu_power_w"] == pytest.approx(99.0, abs=1e-9)
    assert "by construction" in r.stdout and "prediction" in data["note"]
    assert set(data["parameter_sources"]) == {"public_spec", "fitted", "ours"}
    assert (
        "socket 1" in r.stdout and "Li 2017, section IV" in r.stdout
    )  # the literal 0-8 baseline spans both sockets
    assert {"os_scheduled", "cpu_numa", "cpu_dvfs", "affcon_rate_cpufreq", "affcon_rate_sleep"} <= set(rows)
    r = run("predict", "--spin", "2")
    assert r.returncode == 1 and "--spin" in r.stderr and "hint:" in r.stderr
