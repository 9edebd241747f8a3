"""Fake sysfs trees shaped like real ones, for tests and for trying `greendcn host` on a machine you lack.

`table1_machine()` is seed 000's Server A as its Table I shows it (seed 000 lines 142-157, 204-207): two
E5-2650 v4 sockets of 12 cores, core ids 0-5 and 8-13 on both, logical CPU = 2 x core index + socket and the
hyperthread sibling = CPU + 24. Which files exist and how they read follows Linux 6.x sysfs; the frequency
ladders and initial governors are our choices (the paper gives none)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .cpuset import format_cpulist

__all__ = ["FakeMachine", "FakeNic", "FakeRapl", "build_tree", "snapshot", "table1_machine"]

# Policy attributes a user may write (mode 0644 in sysfs); every other attribute is read-only (0444).
_SETTINGS = {
    "scaling_governor",
    "scaling_min_freq",
    "scaling_max_freq",
    "scaling_setspeed",
    "energy_performance_preference",
}
ACPI_GOVERNORS = "conservative ondemand userspace powersave performance schedutil"
PSTATE_GOVERNORS = "performance powersave"


@dataclass(frozen=True)
class FakeNic:
    name: str
    pci: str | None = None  # None: a virtual interface (no device link)
    node: int = 0  # written to the PCI device's numa_node; -1 as on single-node kernels
    driver: str = "i40e"
    speed_mbps: int = 10000
    virtio: bool = False  # put a virtio device between the PCI function and the interface, as in a VM


@dataclass(frozen=True)
class FakeRapl:
    name: str  # "package-0", "dram", ...
    zone: str  # "intel-rapl:0", "intel-rapl:0:0", ...
    energy_uj: int = 0
    max_energy_range_uj: int = 262143328850


@dataclass
class FakeMachine:
    sockets: int = 2
    core_ids: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13)
    threads: int = 2
    interleaved: bool = True  # Table I numbering; False numbers socket 0 first
    cpufreq: str | None = "acpi-cpufreq"  # "acpi-cpufreq", "intel_pstate", "empty" or None (no directory)
    policy_scope: str = "cpu"  # "cpu", "core" or "package": which CPUs share one cpufreq policy
    hw_min_khz: int = 1200000
    hw_max_khz: int = 2200000
    turbo_khz: int = 2900000
    governor: str | None = None  # initial governor; None: the driver's usual default
    nics: list[FakeNic] = field(default_factory=list)
    isolated: tuple[int, ...] = ()
    numa: bool = True
    rapl: list[FakeRapl] = field(default_factory=list)

    @property
    def ncpus(self) -> int:
        return self.sockets * len(self.core_ids) * self.threads

    def cpu_number(self, socket: int, index: int, thread: int) -> int:
        per_thread = self.sockets * len(self.core_ids)
        if self.interleaved:
            return thread * per_thread + index * self.sockets + socket
        return thread * per_thread + socket * len(self.core_ids) + index


def table1_machine(cpufreq: str | None = "acpi-cpufreq", policy_scope: str = "cpu", **kw) -> FakeMachine:
    """Seed 000 Server A: 2 x E5-2650 v4 (2.2 GHz base), with its X710-DA4 4-port NIC on node 0 (seed 000 line
    233 says the card is on CPU 0's node). Port names, PCI addresses and the node-1 NIC are our choices."""
    nics = [FakeNic(f"enp3s0f{i}", f"0000:03:00.{i}", 0) for i in range(4)]
    nics.append(FakeNic("enp130s0f0", "0000:82:00.0", 1))
    nics.append(FakeNic("lo", None, -1, "", -1))
    kw.setdefault("nics", nics)
    return FakeMachine(cpufreq=cpufreq, policy_scope=policy_scope, **kw)


def _w(path: Path, text: str, mode: int = 0o444) -> None:
    """Write a sysfs attribute with the kernel's mode: read-only (0444) unless it is a setting (0644), or
    root-only (0400) like RAPL's energy_uj since Linux 5.10."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)


def _link(path: Path, target: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, path)


def _cpus(root: Path, m: FakeMachine) -> dict[int, tuple[int, int]]:
    """Write cpuN/topology; returns cpu -> (socket, core index)."""
    where: dict[int, tuple[int, int]] = {}
    cpu_dir = root / "sys/devices/system/cpu"
    all_cpus = f"0-{m.ncpus - 1}"
    for name in ("online", "possible", "present"):
        _w(cpu_dir / name, all_cpus + "\n")
    _w(cpu_dir / "isolated", format_cpulist(m.isolated) + "\n")
    _w(cpu_dir / "nohz_full", "(null)\n")
    _w(cpu_dir / "kernel_max", "8191\n")
    for s in range(m.sockets):
        pkg = [m.cpu_number(s, i, t) for i in range(len(m.core_ids)) for t in range(m.threads)]
        for i, cid in enumerate(m.core_ids):
            sib = [m.cpu_number(s, i, t) for t in range(m.threads)]
            for t in range(m.threads):
                cpu = sib[t]
                where[cpu] = (s, i)
                top = cpu_dir / f"cpu{cpu}/topology"
                _w(top / "physical_package_id", f"{s}\n")
                _w(top / "die_id", "0\n")
                _w(top / "core_id", f"{cid}\n")
                _w(top / "thread_siblings_list", format_cpulist(sib) + "\n")
                _w(top / "core_cpus_list", format_cpulist(sib) + "\n")
                _w(top / "core_siblings_list", format_cpulist(pkg) + "\n")
                _w(top / "package_cpus_list", format_cpulist(pkg) + "\n")
                if m.numa:
                    _link(cpu_dir / f"cpu{cpu}/node{s}", f"../../node/node{s}")
    if m.numa:
        node_dir = root / "sys/devices/system/node"
        for name in ("online", "possible", "has_cpu"):
            _w(node_dir / name, format_cpulist(range(m.sockets)) + "\n")
        for s in range(m.sockets):
            _w(
                node_dir / f"node{s}/cpulist",
                format_cpulist(c for c, (s2, _) in where.items() if s2 == s) + "\n",
            )
    return where


def _policy_groups(m: FakeMachine, where: dict[int, tuple[int, int]]) -> list[list[int]]:
    groups: dict[tuple[int, ...], list[int]] = {}
    for cpu, (s, i) in sorted(where.items()):
        key = {"cpu": (cpu,), "core": (s, i), "package": (s,)}[m.policy_scope]
        groups.setdefault(key, []).append(cpu)
    return sorted(groups.values(), key=min)


def _cpufreq(root: Path, m: FakeMachine, where: dict[int, tuple[int, int]]) -> None:
    cpu_dir = root / "sys/devices/system/cpu"
    if m.cpufreq is None:
        return
    (cpu_dir / "cpufreq").mkdir(parents=True, exist_ok=True)
    if m.cpufreq == "empty":
        return
    acpi = m.cpufreq == "acpi-cpufreq"
    if not acpi:
        for name, value in (
            ("status", "active"),
            ("no_turbo", "0"),
            ("max_perf_pct", "100"),
            ("min_perf_pct", "41"),
        ):
            _w(cpu_dir / f"intel_pstate/{name}", value + "\n", 0o644)
    governor = m.governor or ("schedutil" if acpi else "powersave")
    hw_max = m.hw_max_khz + 1000 if acpi else m.turbo_khz  # acpi-cpufreq lists turbo as base + 1 MHz
    for group in _policy_groups(m, where):
        p = cpu_dir / f"cpufreq/policy{min(group)}"
        cpus = " ".join(map(str, group)) + "\n"
        files = {
            "affected_cpus": cpus,
            "related_cpus": cpus,
            "scaling_driver": m.cpufreq + "\n",
            "scaling_governor": governor + "\n",
            "scaling_available_governors": (ACPI_GOVERNORS if acpi else PSTATE_GOVERNORS) + "\n",
            "cpuinfo_min_freq": f"{m.hw_min_khz}\n",
            "cpuinfo_max_freq": f"{hw_max}\n",
            "scaling_min_freq": f"{m.hw_min_khz}\n",
            "scaling_max_freq": f"{hw_max}\n",
            "scaling_cur_freq": f"{m.hw_max_khz if governor == 'performance' else m.hw_min_khz}\n",
            "cpuinfo_transition_latency": ("10000" if acpi else "0") + "\n",
            "scaling_setspeed": "<unsupported>\n",  # every driver has it; only userspace gives a number
        }
        if acpi:
            ladder = [hw_max] + list(range(m.hw_max_khz, m.hw_min_khz - 1, -100000))
            files["scaling_available_frequencies"] = " ".join(map(str, ladder)) + " \n"
        else:
            files["energy_performance_preference"] = "balance_performance\n"
            files["base_frequency"] = f"{m.hw_max_khz}\n"
        for name, text in files.items():
            _w(p / name, text, 0o644 if name in _SETTINGS else 0o444)
        for cpu in group:
            _link(cpu_dir / f"cpu{cpu}/cpufreq", f"../cpufreq/policy{min(group)}")


def _nics(root: Path, m: FakeMachine) -> None:
    for nic in m.nics:
        cls = root / "sys/class/net" / nic.name
        if nic.pci is None:
            dev = root / "sys/devices/virtual/net" / nic.name
            _link(cls, f"../../devices/virtual/net/{nic.name}")
        else:
            bus = "00" if nic.node <= 0 else "80"
            pci_rel = f"devices/pci0000:{bus}/0000:{bus}:02.0/{nic.pci}"
            pci = root / "sys" / pci_rel
            _w(pci / "numa_node", f"{nic.node}\n", 0o644)
            _w(pci / "vendor", "0x8086\n" if not nic.virtio else "0x1af4\n")
            parent_rel = pci_rel
            if nic.virtio:
                parent_rel = f"{pci_rel}/virtio0"
                (root / "sys" / parent_rel).mkdir(parents=True, exist_ok=True)
            drv_bus = "virtio" if nic.virtio else "pci"
            (root / f"sys/bus/{drv_bus}/drivers/{nic.driver}").mkdir(parents=True, exist_ok=True)
            depth = parent_rel.count("/") + 1
            _link(root / "sys" / parent_rel / "driver", "../" * depth + f"bus/{drv_bus}/drivers/{nic.driver}")
            dev = root / "sys" / parent_rel / "net" / nic.name
            _link(dev / "device", "../../../" + Path(parent_rel).name)
            _link(cls, f"../../{parent_rel}/net/{nic.name}")
        _w(dev / "speed", f"{nic.speed_mbps}\n")
        _w(dev / "mtu", "1500\n", 0o644)
        _w(dev / "operstate", "up\n")
        for c in ("rx_bytes", "tx_bytes", "rx_packets", "tx_packets"):
            _w(dev / f"statistics/{c}", "0\n")


def _rapl(root: Path, m: FakeMachine) -> None:
    for z in m.rapl:
        parts = z.zone.split(":")
        rel = "intel-rapl/" + ":".join(parts[:2]) + ("/" + z.zone if len(parts) > 2 else "")
        d = root / "sys/devices/virtual/powercap" / rel
        for name, value in (
            ("name", z.name),
            ("energy_uj", z.energy_uj),
            ("max_energy_range_uj", z.max_energy_range_uj),
            ("enabled", 1),
        ):
            _w(
                d / name,
                f"{value}\n",
                0o400 if name == "energy_uj" else 0o644 if name == "enabled" else 0o444,
            )
        _link(root / "sys/class/powercap" / z.zone, f"../../devices/virtual/powercap/{rel}")


def build_tree(root: str | os.PathLike[str], machine: FakeMachine) -> Path:
    """Write the sysfs files of `machine` under `root` (absent or empty); returns root."""
    r = Path(root)
    r.mkdir(parents=True, exist_ok=True)
    if any(r.iterdir()):
        raise FileExistsError(f"{r} is not empty")
    where = _cpus(r, machine)
    _cpufreq(r, machine, where)
    _nics(r, machine)
    _rapl(r, machine)
    return r


def snapshot(root: str | os.PathLike[str]) -> dict[str, tuple[str, bytes]]:
    """Every entry under root: relative path -> (kind, bytes or link target), to compare trees bytewise."""
    out: dict[str, tuple[str, bytes]] = {}
    base = Path(root)
    for dirpath, dirnames, filenames in os.walk(base):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            rel = str(p.relative_to(base))
            if p.is_symlink():
                out[rel] = ("link", os.readlink(p).encode())
            elif p.is_dir():
                out[rel] = ("dir", b"")
            else:
                out[rel] = (f"file {oct(p.stat().st_mode & 0o777)}", p.read_bytes())
    return out
