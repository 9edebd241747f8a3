"""RAPL readings through powercap: wraparound, root-only counters, a plain refusal where RAPL is absent."""

import json
import subprocess
import sys

import pytest

from greendcn.core.errors import GreendcnError
from greendcn.host.fake import FakeMachine, FakeRapl, build_tree
from greendcn.host.rapl import RaplAbsent, energy_delta_uj, measure, read_energy, zones
from greendcn.host.sysfs import SysRoot

MAX = 262143328850


def test_delta_without_and_with_wrap():
    assert energy_delta_uj(1_000, 5_000, MAX) == 4_000
    # The counter passed max_energy_range_uj and restarted at 0: energy = (max - before) + after.
    assert energy_delta_uj(MAX - 1_000, 2_000, MAX) == 3_000
    with pytest.raises(GreendcnError, match="backwards"):
        energy_delta_uj(10, 5, 0)


def _rapl_tree(tmp_path, pkg_uj=MAX - 500_000):
    m = FakeMachine(
        sockets=1,
        core_ids=(0,),
        threads=1,
        cpufreq=None,
        rapl=[
            FakeRapl("package-0", "intel-rapl:0", pkg_uj, MAX),
            FakeRapl("dram", "intel-rapl:0:0", 1_000_000, MAX),
        ],
    )
    return build_tree(tmp_path / "t", m)


def test_zones_are_found(tmp_path):
    root = _rapl_tree(tmp_path)
    zs = zones(SysRoot(root))
    assert [(z.zone, z.name, z.max_range_uj) for z in zs] == [
        ("intel-rapl:0", "package-0", MAX),
        ("intel-rapl:0:0", "dram", MAX),
    ]


def test_measure_a_command_across_a_wrap(tmp_path):
    """The command itself advances the fake counters: package by 2.5 J across its wrap, DRAM by 0.75 J."""
    root = _rapl_tree(tmp_path)
    pkg = root / "sys/devices/virtual/powercap/intel-rapl/intel-rapl:0/energy_uj"
    dram = root / "sys/devices/virtual/powercap/intel-rapl/intel-rapl:0/intel-rapl:0:0/energy_uj"
    for counter in (pkg, dram):
        counter.chmod(0o600)  # the command plays the kernel here, which updates the root-only (0400) counters
    script = (
        f"import time; open({str(pkg)!r}, 'w').write('2000000\\n'); "
        f"open({str(dram)!r}, 'w').write('1750000\\n'); time.sleep(0.3)"
    )
    out = tmp_path / "m.json"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "greendcn.cli",
            "host",
            "measure",
            "--root",
            str(root),
            "--interval",
            "100ms",
            "--json",
            str(out),
            "--",
            sys.executable,
            "-c",
            script,
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    got = {z["zone"]: z for z in data["zones"]}
    assert got["package-0 (intel-rapl:0)"]["energy_j"] == pytest.approx(2.5, abs=1e-9)
    assert got["dram (intel-rapl:0:0)"]["energy_j"] == pytest.approx(0.75, abs=1e-9)
    # Average power = energy / wall time of the run (at least the 0.3 s sleep).
    assert data["duration_s"] >= 0.3
    assert got["dram (intel-rapl:0:0)"]["power_w"] == pytest.approx(0.75 / data["duration_s"], rel=1e-9)


def test_absent_rapl_is_said_plainly(tmp_path):
    root = build_tree(tmp_path / "t", FakeMachine(sockets=1, core_ids=(0,), threads=1, cpufreq=None))
    with pytest.raises(RaplAbsent, match="no RAPL energy counters") as e:
        measure(SysRoot(root), ["true"])
    assert "estimate" in str(e.value) and e.value.hint


def test_this_machine_via_cli():
    """This machine has no powercap directory: the command must refuse, with no number on stdout."""
    r = subprocess.run(
        [sys.executable, "-m", "greendcn.cli", "host", "measure", "--", "true"],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if zones(SysRoot("/")):
        assert r.returncode == 0 and "energy_j" in r.stdout
    else:
        assert r.returncode == 1 and "no RAPL energy counters" in r.stderr and "hint:" in r.stderr
        assert r.stdout == ""


def test_root_only_counter_message(tmp_path, monkeypatch):
    root = _rapl_tree(tmp_path)
    sysr = SysRoot(root)
    z = zones(sysr)[0]

    def denied(self, rel):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(SysRoot, "read_int", denied)
    with pytest.raises(GreendcnError, match="readable by root only") as e:
        read_energy(sysr, z)
    assert "root" in e.value.hint
