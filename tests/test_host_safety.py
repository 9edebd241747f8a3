"""The host tools' safety promise on fake trees, tried as a hostile or careless operator would: no write leaves
the root, a tampered state file is refused whole, no setting is lost to a malformed entry, and termination
restores. Each case below failed on greendcn 0.1 (docs/host.md, "Safety model")."""

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from greendcn.core.errors import InputError
from greendcn.host import apply as apply_module
from greendcn.host.apply import apply_plan, default_state_path, load_state, revert, state_checksum
from greendcn.host.fake import build_tree, snapshot, table1_machine
from greendcn.host.plan import make_plan
from greendcn.host.sysfs import SysRoot
from greendcn.host.topology import discover

POLICY0 = "sys/devices/system/cpu/cpufreq/policy0"


def tree(tmp_path):
    root = build_tree(tmp_path / "t", table1_machine())
    return SysRoot(root), discover(root)


def plan_for(topo):
    return make_plan(topo, ["enp3s0f0", "enp3s0f1"], 2)


def outside_file(tmp_path, text="outside\n") -> Path:
    p = tmp_path / "outside" / "victim"
    p.parent.mkdir(exist_ok=True)
    p.write_text(text)
    return p


def test_a_settings_file_linked_out_of_the_root_is_refused_before_any_write(tmp_path):
    sys_root, topo = tree(tmp_path)
    plan = plan_for(topo)
    target = f"{plan.settings[-1].rel}/scaling_governor"
    victim = outside_file(tmp_path)
    link = sys_root.path(target)
    link.unlink()
    link.symlink_to(victim)
    before = snapshot(sys_root.root)
    with pytest.raises(InputError, match="outside the root") as e:
        apply_plan(sys_root, plan, tmp_path / "s.json")
    assert str(victim) in str(e.value)  # names where the link points
    assert victim.read_text() == "outside\n"
    assert snapshot(sys_root.root) == before and not (tmp_path / "s.json").exists()


def test_a_whole_policy_folder_linked_out_of_the_root_is_refused(tmp_path):
    sys_root, topo = tree(tmp_path)
    plan = plan_for(topo)
    policy = sys_root.path(plan.settings[0].rel)
    copy = tmp_path / "outside_policy"
    os.rename(policy, copy)
    policy.symlink_to(copy)
    before_copy = {p.name: p.read_bytes() for p in copy.iterdir()}
    with pytest.raises(InputError, match="outside the root"):
        apply_plan(sys_root, plan, tmp_path / "s.json")
    assert {p.name: p.read_bytes() for p in copy.iterdir()} == before_copy


def test_a_link_that_stays_inside_the_root_works_and_reverts_byte_identical(tmp_path):
    # The real sysfs is full of links (cpuN/cpufreq -> ../cpufreq/policyN); inside the root they are fine.
    sys_root, topo = tree(tmp_path)
    plan = plan_for(topo)
    rel = f"{plan.settings[0].rel}/scaling_governor"
    real = sys_root.path("sys/devices/system/cpu/elsewhere_governor")
    os.rename(sys_root.path(rel), real)
    sys_root.path(rel).symlink_to(real)
    before = snapshot(sys_root.root)
    apply_plan(sys_root, plan, tmp_path / "s.json")
    assert sys_root.path(rel).is_symlink()  # the link is kept; the file it points to took the value
    assert real.read_text().strip() == plan.settings[0].governor
    revert(sys_root, tmp_path / "s.json")
    assert snapshot(sys_root.root) == before


def applied(tmp_path):
    sys_root, topo = tree(tmp_path)
    before = snapshot(sys_root.root)
    state = tmp_path / "s.json"
    apply_plan(sys_root, plan_for(topo), state)
    return sys_root, state, before


def rewrite(state: Path, change, keep_checksum_valid=True) -> None:
    data = json.loads(state.read_text())
    change(data)
    if keep_checksum_valid and "checksum" in data:
        data["checksum"] = state_checksum(data)
    state.write_text(json.dumps(data))


@pytest.mark.parametrize(
    "change, words",
    [
        (
            lambda d: d["entries"].append(
                {"path": "sys/devices/system/cpu/cpufreq/policy0/scaling_governor", "previous": "x"}
            ),
            "listed twice",
        ),
        (lambda d: d["entries"][0].pop("path"), "exactly 'path' and 'previous'"),
        (lambda d: d.pop("root"), "'root' is missing"),
        (lambda d: d.update(entries={"a": 1}), "'entries' is missing or not a list"),
        (lambda d: d["entries"][0].update(previous=7), "must be text"),
        (lambda d: d["entries"][0].update(path="etc/passwd"), "not a cpufreq setting"),
        (lambda d: d["entries"][0].update(path="../../etc/x/scaling_governor"), "not a cpufreq setting"),
        (lambda d: d.update(created_dirs=["/etc"]), "does not hold the state file"),
    ],
)
def test_a_tampered_state_file_is_refused_whole_and_nothing_is_written(tmp_path, change, words):
    sys_root, state, _before = applied(tmp_path)
    rewrite(state, change)
    during = snapshot(sys_root.root)
    with pytest.raises(InputError, match="refused as a whole|records changes") as e:
        revert(sys_root, state)
    assert words in str(e.value)
    assert snapshot(sys_root.root) == during  # not one value restored, no file emptied


def test_an_entry_linked_out_of_the_root_is_refused(tmp_path):
    sys_root, state, _before = applied(tmp_path)
    victim = outside_file(tmp_path)
    evil = sys_root.path("sys/devices/system/cpu/cpufreq/policy99")
    evil.symlink_to(victim.parent)
    victim.rename(victim.parent / "scaling_governor")
    rewrite(
        state,
        lambda d: d["entries"].append(
            {"path": "sys/devices/system/cpu/cpufreq/policy99/scaling_governor", "previous": "pwned\n"}
        ),
    )
    with pytest.raises(InputError, match="outside the root"):
        revert(sys_root, state)
    assert (victim.parent / "scaling_governor").read_text() == "outside\n"


def test_an_edited_state_file_fails_its_checksum(tmp_path):
    sys_root, state, _before = applied(tmp_path)
    rewrite(state, lambda d: d["entries"][0].update(previous="userspace\n"), keep_checksum_valid=False)
    with pytest.raises(InputError, match="checksum"):
        revert(sys_root, state)


def test_a_malformed_previous_value_never_empties_the_target(tmp_path):
    sys_root, state, _before = applied(tmp_path)
    rel = json.loads(state.read_text())["entries"][0]["path"]
    content = sys_root.path(rel).read_bytes()
    rewrite(state, lambda d: d["entries"][0].update(previous=None))
    for _ in range(2):  # and every later try fails the same clean way
        with pytest.raises(InputError, match="must be text"):
            revert(sys_root, state)
    assert sys_root.path(rel).read_bytes() == content and content


def test_the_state_file_s_root_must_be_the_given_one(tmp_path):
    sys_root, state, _before = applied(tmp_path)
    rewrite(state, lambda d: d.update(root=str(tmp_path)))
    with pytest.raises(InputError, match="records changes under"):
        revert(sys_root, state)


def test_leftover_temporary_state_file_is_cleaned_and_reported_by_the_next_apply(tmp_path, capsys):
    sys_root, topo = tree(tmp_path)
    before = snapshot(sys_root.root)
    state = default_state_path(sys_root)
    state.parent.mkdir(parents=True)
    (state.parent / (state.name + ".tmp")).write_text('{"format": "half')
    apply_plan(sys_root, plan_for(topo))
    assert "left by an interrupted run" in capsys.readouterr().err
    revert(sys_root)
    os.rmdir(state.parent)  # the folder existed before this apply: ours to remove in the test
    os.rmdir(state.parent.parent)
    assert snapshot(sys_root.root) == before


class Killed(BaseException):
    """A kill -9 at this point: no handler of ours runs (the code catches OSError and KeyboardInterrupt only)."""


def test_random_applies_kills_and_reverts_end_byte_identical(tmp_path, monkeypatch):
    # Property test: for seeded random sequences of apply (killed at a random file operation or not) and
    # revert, a final revert (and the cleaning it does) always leaves the tree exactly as it started.
    real_write, real_replace = os.write, os.replace
    for seed in range(25):
        rng = random.Random(seed)
        sys_root, topo = tree(tmp_path / f"run{seed}")
        before = snapshot(sys_root.root)
        plan = plan_for(topo)
        for _step in range(rng.randint(1, 4)):
            budget = [rng.randint(0, 30) if rng.random() < 0.7 else 10**9]

            def counted(real, budget=budget):
                def op(*args, **kwargs):
                    budget[0] -= 1
                    if budget[0] < 0:
                        raise Killed
                    return real(*args, **kwargs)

                return op

            monkeypatch.setattr(apply_module.os, "write", counted(real_write))
            monkeypatch.setattr(apply_module.os, "replace", counted(real_replace))
            try:
                if default_state_path(sys_root).exists():
                    revert(sys_root)
                else:
                    apply_plan(sys_root, plan)
            except Killed:
                pass
            finally:
                monkeypatch.setattr(apply_module.os, "write", real_write)
                monkeypatch.setattr(apply_module.os, "replace", real_replace)
        if default_state_path(sys_root).exists():
            revert(sys_root)
        else:  # nothing recorded: the next apply's cleaning is what a user would run; then undo it
            apply_plan(sys_root, plan)
            revert(sys_root)
        assert snapshot(sys_root.root) == before, f"seed {seed}"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_termination_of_control_restores_like_ctrl_c(tmp_path, sig):
    root = build_tree(tmp_path / "t", table1_machine())
    before = snapshot(root)
    state = tmp_path / "s.json"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "greendcn.cli",
            "host",
            "control",
            "--root",
            str(root),
            "--port",
            "enp3s0f0:4",
            "--interval",
            "50ms",
            "--dwell",
            "100ms",
            "--state",
            str(state),
            "-v",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not state.exists() or snapshot(root) == before:  # running, and the core moved to powersave
            assert proc.poll() is None, proc.stderr.read()
            assert time.monotonic() < deadline, "control never changed the tree"
            time.sleep(0.05)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "restored the previous cpufreq settings" in err, err
    assert "Traceback" not in err
    assert snapshot(root) == before and not state.exists()


def test_a_valid_state_file_loads(tmp_path):
    sys_root, state, _before = applied(tmp_path)
    loaded = load_state(sys_root, state)
    assert loaded["entries"] and loaded["checksum"].startswith("sha256:")
