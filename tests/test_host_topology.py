"""Discovery from fake sysfs trees shaped like real ones, and from this machine's own /sys (read only)."""

import os
from pathlib import Path

import pytest

from greendcn.core.errors import InputError
from greendcn.host.fake import FakeMachine, FakeNic, FakeRapl, build_tree, snapshot, table1_machine
from greendcn.host.sysfs import SysRoot, validate_ifname
from greendcn.host.topology import discover


def test_table1_layout_is_exact(tmp_path):
    """Seed 000 Table I (lines 142-157): core ids 0-5 and 8-13 on both sockets, CPU = 2 x index + socket,
    sibling = CPU + 24. Every cell must match."""
    topo = discover(build_tree(tmp_path / "t", table1_machine()))
    core_ids = [0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13]
    assert len(topo.cpus) == 48 and len(topo.cores) == 24 and topo.sockets == [0, 1]
    for socket in (0, 1):
        got = [(k.core_id, k.cpus) for k in topo.cores if k.package == socket]
        want = [(cid, (2 * i + socket, 2 * i + socket + 24)) for i, cid in enumerate(core_ids)]
        assert got == want
    # (package, core id) is the key: core id 8 exists on both sockets and names two different cores.
    assert {k.cpus for k in topo.cores if k.core_id == 8} == {(12, 36), (13, 37)}
    assert topo.nodes[0] == tuple(sorted(c for c in range(48) if c % 2 == 0))
    assert topo.cpus[25].siblings == (1, 25) and topo.cpus[25].node == 1


def test_nics_nodes_driver_speed(tmp_path):
    topo = discover(build_tree(tmp_path / "t", table1_machine()))
    assert topo.nics["enp3s0f2"].node == 0 and topo.nics["enp3s0f2"].pci == "0000:03:00.2"
    assert topo.nics["enp130s0f0"].node == 1 and topo.nics["enp130s0f0"].driver == "i40e"
    assert topo.nics["enp3s0f0"].speed_mbps == 10000
    lo = topo.nics["lo"]
    assert lo.virtual and lo.node == -1 and lo.speed_mbps == -1 and lo.pci is None


def test_virtio_nic_walks_up_to_its_pci_parent(tmp_path):
    # As on this machine: eth0 -> virtio device (no numa_node) -> PCI function (numa_node -1).
    m = FakeMachine(
        sockets=1,
        core_ids=(0, 1),
        threads=1,
        cpufreq="empty",
        nics=[
            FakeNic("eth0", "0000:00:03.0", -1, "virtio_net", -1, virtio=True),
            FakeNic("eth1", "0000:00:04.0", 0, "virtio_net", -1, virtio=True),
        ],
    )
    topo = discover(build_tree(tmp_path / "t", m))
    assert topo.nics["eth0"].node == -1 and topo.nics["eth0"].pci == "0000:00:03.0"
    assert topo.nics["eth0"].driver == "virtio_net"
    assert topo.nics["eth1"].node == 0


def test_acpi_cpufreq_policies(tmp_path):
    topo = discover(build_tree(tmp_path / "t", table1_machine("acpi-cpufreq")))
    assert topo.cpufreq_driver == "acpi-cpufreq" and len(topo.policies) == 48
    p = topo.policy_of(5)
    assert p.cpus == (5,) and "userspace" in p.governors
    assert p.frequencies_khz[0] == 1200000 and p.frequencies_khz[-1] == 2201000


def test_intel_pstate_offers_two_governors(tmp_path):
    topo = discover(build_tree(tmp_path / "t", table1_machine("intel_pstate")))
    assert topo.cpufreq_driver == "intel_pstate"
    assert all(p.governors == ("performance", "powersave") for p in topo.policies)
    assert all(p.frequencies_khz == () for p in topo.policies)
    assert topo.policies[0].governor == "powersave"


@pytest.mark.parametrize("scope, n, shared", [("core", 24, (3, 27)), ("package", 2, tuple(range(1, 48, 2)))])
def test_shared_policies(tmp_path, scope, n, shared):
    topo = discover(build_tree(tmp_path / "t", table1_machine(policy_scope=scope)))
    assert len(topo.policies) == n
    assert topo.policy_of(27).cpus == shared


@pytest.mark.parametrize("cpufreq, present", [("empty", True), (None, False)])
def test_no_cpufreq(tmp_path, cpufreq, present):
    topo = discover(build_tree(tmp_path / "t", table1_machine(cpufreq)))
    assert topo.policies == [] and topo.cpufreq_driver is None and topo.cpufreq_present is present


def test_isolated_and_no_numa(tmp_path):
    m = FakeMachine(sockets=1, core_ids=(0, 1, 2, 3), threads=1, numa=False, isolated=(2, 3), cpufreq=None)
    topo = discover(build_tree(tmp_path / "t", m))
    assert topo.isolated == (2, 3)
    assert topo.nodes == {0: (0, 1, 2, 3)} and any("NUMA" in w for w in topo.warnings)


def test_this_machine_read_only():
    """This machine's real /sys: the CPU count must agree with the kernel's answer, every CPU must sit in a
    physical core, and discovery must change nothing under /sys/devices/system/cpu."""
    before = snapshot("/sys/devices/system/cpu/cpufreq")
    topo = discover("/")
    assert len(topo.cpus) == os.cpu_count()
    assert sorted(c for k in topo.cores for c in k.cpus) == sorted(topo.cpus)
    assert all(n.name == validate_ifname(n.name) for n in topo.nics.values())
    assert "lo" in topo.nics and topo.nics["lo"].virtual
    if not Path("/sys/devices/system/cpu/cpufreq").exists() or not os.listdir(
        "/sys/devices/system/cpu/cpufreq"
    ):
        assert topo.policies == []
    else:
        assert topo.policies
    assert snapshot("/sys/devices/system/cpu/cpufreq") == before


def test_this_machine_nics_match_their_device_paths():
    """Cross-check against the real links: a NIC's PCI address is the nearest PCI-looking folder above its
    device (a virtio NIC sits one level below its PCI function), and its node is that function's numa_node."""
    topo = discover("/")
    for nic in topo.nics.values():
        dev = Path(f"/sys/class/net/{nic.name}/device")
        if not dev.exists():
            assert nic.virtual and nic.pci is None
            continue
        parts = Path(os.path.realpath(dev)).parts
        pci = [x for x in parts if x.count(":") == 2 and "." in x]
        assert nic.pci == (pci[-1] if pci else None), nic
        if pci:
            at = Path(*parts[: len(parts) - parts[::-1].index(pci[-1])])
            node = int((at / "numa_node").read_text()) if (at / "numa_node").exists() else -1
            assert nic.node == max(node, -1), nic


@pytest.mark.parametrize("bad", ["", "a" * 16, "eth/0", "eth 0", "..", "eth:1"])
def test_interface_names_are_validated(bad):
    with pytest.raises(InputError) as e:
        validate_ifname(bad)
    assert e.value.hint and "15" in e.value.hint


def test_fifteen_characters_is_allowed():
    assert validate_ifname("a" * 15) == "a" * 15


def test_paths_may_not_leave_the_root(tmp_path):
    s = SysRoot(tmp_path)
    with pytest.raises(InputError):
        s.path("../etc/passwd")
    with pytest.raises(InputError):
        s.path("/etc/passwd")
    with pytest.raises(InputError, match="not a directory"):
        SysRoot(tmp_path / "missing")


def test_fake_files_have_the_modes_of_this_machines_sysfs(tmp_path):
    """Every fake file that also exists in this machine's /sys (CPU topology, NUMA node, lo's attributes)
    has the kernel's mode: 0444 for facts, 0644 for settings. Where the machine lacks a file (cpufreq, RAPL)
    the fake follows the kernel's source: settings 0644, energy_uj root-only 0400."""
    root = build_tree(tmp_path / "t", table1_machine(rapl=[FakeRapl("package-0", "intel-rapl:0")]))
    compared = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            fake = Path(dirpath) / name
            real = Path("/") / fake.relative_to(root)
            if real.is_file() and not fake.is_symlink():
                assert oct(fake.stat().st_mode & 0o777) == oct(real.stat().st_mode & 0o777), real
                compared += 1
    assert compared >= 20  # cpu/online, cpu0-1 topology, node0/cpulist, lo's statistics, mtu, ...
    pol = root / "sys/devices/system/cpu/cpufreq/policy0"
    assert (pol / "scaling_governor").stat().st_mode & 0o777 == 0o644
    assert (pol / "cpuinfo_max_freq").stat().st_mode & 0o777 == 0o444
    energy = root / "sys/devices/virtual/powercap/intel-rapl/intel-rapl:0/energy_uj"
    assert energy.stat().st_mode & 0o777 == 0o400


def test_intel_pstate_tree_has_scaling_setspeed(tmp_path):
    # The cpufreq core gives every policy scaling_setspeed; only the userspace governor puts a number in it.
    topo_root = build_tree(tmp_path / "t", table1_machine("intel_pstate"))
    assert (
        topo_root / "sys/devices/system/cpu/cpufreq/policy0/scaling_setspeed"
    ).read_text() == "<unsupported>\n"
