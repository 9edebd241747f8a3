"""Apply and revert: previous values recorded first, byte-identical tree after revert, clean refusals."""

import json
import os
import subprocess
import sys as pysys

import pytest

from greendcn.core.errors import GreendcnError, InputError
from greendcn.host.apply import apply_plan, plan_writes, revert
from greendcn.host.fake import build_tree, snapshot, table1_machine
from greendcn.host.plan import make_plan
from greendcn.host.sysfs import SysRoot
from greendcn.host.topology import discover


def _tree(tmp_path, **kw):
    root = build_tree(tmp_path / "t", table1_machine(**kw))
    return SysRoot(root), discover(root)


@pytest.mark.parametrize(
    "kw, freq",
    [
        ({"cpufreq": "acpi-cpufreq"}, {}),
        ({"cpufreq": "intel_pstate"}, {"idle_max_khz": 1500000}),
        ({"policy_scope": "core"}, {"work_min_khz": 2200000, "idle_max_khz": 1200000}),
        ({"policy_scope": "package"}, {}),
    ],
)
def test_apply_then_revert_is_byte_identical(tmp_path, kw, freq):
    sys, topo = _tree(tmp_path, **kw)
    before = snapshot(sys.root)
    plan = make_plan(topo, ["enp3s0f0", "enp3s0f1"], 2, **freq)
    state = tmp_path / "state.json"
    writes = apply_plan(sys, plan, state)
    assert writes and snapshot(sys.root) != before
    after = discover(sys.root)
    for s in plan.settings:
        p = next(x for x in after.policies if x.name == s.policy)
        assert p.governor == s.governor
        if s.max_khz:
            assert p.max_khz == s.max_khz
        if s.min_khz:
            assert p.min_khz == s.min_khz
    recorded = json.loads(state.read_text())["entries"]
    assert len(recorded) == len({w.rel for w in writes})
    revert(sys, state)
    assert snapshot(sys.root) == before
    assert not state.exists()


def _limits(writes, rel):
    return [(w.rel.rsplit("/", 1)[1], w.value) for w in writes if w.rel.startswith(rel + "/")]


def test_raising_the_floor_above_the_ceiling_raises_the_ceiling_first(tmp_path):
    sys, topo = _tree(tmp_path)
    for p in topo.policies:
        sys.path(f"{p.rel}/scaling_max_freq").write_text("1500000\n")
    plan = make_plan(discover(sys.root), ["enp3s0f0"], 2, work_min_khz=2000000)
    pol = next(s for s in plan.settings if s.role == "working").rel
    assert _limits(plan_writes(sys, plan), pol) == [
        ("scaling_governor", "performance"),
        ("scaling_max_freq", "2201000"),
        ("scaling_min_freq", "2000000"),
    ]


def test_lowering_the_ceiling_below_the_floor_lowers_the_floor_first(tmp_path):
    sys, topo = _tree(tmp_path)
    for p in topo.policies:
        sys.path(f"{p.rel}/scaling_min_freq").write_text("1800000\n")
    plan = make_plan(discover(sys.root), ["enp3s0f0"], 2, idle_max_khz=1300000)
    pol = next(s for s in plan.settings if s.role == "idle").rel
    assert _limits(plan_writes(sys, plan), pol) == [
        ("scaling_governor", "powersave"),
        ("scaling_min_freq", "1200000"),
        ("scaling_max_freq", "1300000"),
    ]
    state = tmp_path / "s.json"
    before = snapshot(sys.root)
    apply_plan(sys, plan, state)
    revert(sys, state)
    assert snapshot(sys.root) == before


def test_without_apply_nothing_is_written(tmp_path):
    sys, _ = _tree(tmp_path)
    before = snapshot(sys.root)
    out = subprocess.run(
        [
            pysys.executable,
            "-m",
            "greendcn.cli",
            "host",
            "plan",
            "--root",
            str(sys.root),
            "--port",
            "enp3s0f0",
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "nothing written" in out.stderr
    assert snapshot(sys.root) == before


def test_no_cpufreq_refuses(tmp_path):
    sys, topo = _tree(tmp_path, cpufreq="empty")
    with pytest.raises(GreendcnError, match="no cpufreq") as e:
        apply_plan(sys, make_plan(topo, ["enp3s0f0"], 2), tmp_path / "s.json")
    assert e.value.hint
    assert not (tmp_path / "s.json").exists()


def test_not_root_refuses_on_the_real_machine(tmp_path, monkeypatch):
    sys, topo = _tree(tmp_path)
    before = snapshot(sys.root)
    monkeypatch.setattr(SysRoot, "is_real", property(lambda self: True))
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(GreendcnError, match="needs root") as e:
        apply_plan(sys, make_plan(topo, ["enp3s0f0"], 2), tmp_path / "s.json")
    assert "nothing was written" in e.value.hint
    assert snapshot(sys.root) == before and not (tmp_path / "s.json").exists()


def test_read_only_tree_refuses(tmp_path):
    """A real read-only bind mount of the fake tree (we are root here); failing to mount fails the test."""
    sys, _topo = _tree(tmp_path)
    before = snapshot(sys.root)
    mnt = tmp_path / "ro"
    mnt.mkdir()
    r = subprocess.run(
        ["mount", "--bind", "-o", "ro", str(sys.root), str(mnt)], check=False, capture_output=True, text=True
    )
    if r.returncode != 0:
        pytest.fail(f"cannot make a read-only bind mount (needs root): {r.stderr.strip()}")
    try:
        ro = SysRoot(mnt)
        with pytest.raises(GreendcnError, match="read-only") as e:
            apply_plan(ro, make_plan(discover(mnt), ["enp3s0f0"], 2), tmp_path / "s.json")
        assert "nothing was written" in e.value.hint
    finally:
        subprocess.run(["umount", str(mnt)], check=True)
    assert snapshot(sys.root) == before and not (tmp_path / "s.json").exists()


def test_failure_midway_rolls_back(tmp_path, monkeypatch):
    sys, topo = _tree(tmp_path)
    before = snapshot(sys.root)
    plan = make_plan(topo, ["enp3s0f0"], 2)
    victim = plan.settings[-1].rel + "/scaling_governor"
    from greendcn.host import apply as apply_module

    real_write = apply_module.write_value

    def flaky(target, text):
        if str(target).endswith(victim):
            raise OSError(22, "Invalid argument")
        return real_write(target, text)

    monkeypatch.setattr(apply_module, "write_value", flaky)
    with pytest.raises(GreendcnError, match="rolled back"):
        apply_plan(sys, plan, tmp_path / "s.json")
    monkeypatch.undo()
    assert snapshot(sys.root) == before and not (tmp_path / "s.json").exists()


def test_second_apply_needs_a_revert_first(tmp_path):
    sys, topo = _tree(tmp_path)
    plan = make_plan(topo, ["enp3s0f0"], 2)
    apply_plan(sys, plan, tmp_path / "s.json")
    with pytest.raises(GreendcnError, match="earlier change") as e:
        apply_plan(sys, plan, tmp_path / "s.json")
    assert "revert" in e.value.hint


def test_revert_errors(tmp_path):
    sys, _topo = _tree(tmp_path)
    with pytest.raises(InputError, match="nothing to revert"):
        revert(sys, tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "greendcn-host-state/1", "root": "/elsewhere", "entries": []}))
    with pytest.raises(InputError, match="records changes under /elsewhere"):
        revert(sys, bad)
    evil = tmp_path / "evil.json"
    evil.write_text(
        json.dumps(
            {
                "format": "greendcn-host-state/1",
                "root": str(sys.root),
                "entries": [{"path": "../outside", "previous": "x"}],
            }
        )
    )
    with pytest.raises(InputError, match="refused as a whole"):
        revert(sys, evil)
