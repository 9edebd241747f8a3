"""Discovery of a machine's CPUs, NUMA nodes, network interfaces and cpufreq policies from sysfs.

Physical cores are keyed by (package, core id): core ids have gaps (seed 000 Table I jumps from 5 to 8) and
repeat on every socket, so a core id alone names nothing."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..core.errors import InputError
from .cpuset import parse_cpulist
from .sysfs import SysRoot, validate_ifname

__all__ = ["Core", "Cpu", "Nic", "Policy", "Topology", "discover", "topology_json"]

CPU_DIR = "sys/devices/system/cpu"
NODE_DIR = "sys/devices/system/node"
NET_DIR = "sys/class/net"


@dataclass(frozen=True)
class Cpu:
    cpu: int
    package: int
    core_id: int
    node: int
    siblings: tuple[int, ...]  # every logical CPU of the same physical core, this one included


@dataclass(frozen=True)
class Core:
    package: int
    core_id: int
    node: int
    cpus: tuple[int, ...]  # logical CPUs (hyperthreads), lowest first


@dataclass(frozen=True)
class Nic:
    name: str
    node: int  # -1: unknown (virtual device, firmware gives no node, or a single-node kernel says -1)
    driver: str | None
    speed_mbps: int  # -1: unknown
    pci: str | None  # PCI address of the device or of its nearest PCI parent, for DPDK `-a`
    virtual: bool


@dataclass(frozen=True)
class Policy:
    """One cpufreq policy: the CPUs in `cpus` share one frequency and one governor."""

    name: str
    cpus: tuple[int, ...]  # related_cpus: every CPU the policy governs, online or not
    driver: str | None
    governor: str | None
    governors: tuple[str, ...]
    min_khz: int | None
    max_khz: int | None
    hw_min_khz: int | None
    hw_max_khz: int | None
    frequencies_khz: tuple[int, ...]  # scaling_available_frequencies; empty for intel_pstate
    rel: str  # directory relative to the root, for apply.py


@dataclass
class Topology:
    root: str
    cpus: dict[int, Cpu]
    cores: list[Core]
    nodes: dict[int, tuple[int, ...]]
    nics: dict[str, Nic]
    cpufreq_driver: str | None
    cpufreq_present: bool  # the cpufreq directory exists (it may still hold no policy)
    policies: list[Policy]
    isolated: tuple[int, ...]
    nohz_full: tuple[int, ...]
    warnings: list[str] = field(default_factory=list)

    def core_of(self, cpu: int) -> Core:
        c = self.cpus[cpu]
        return next(k for k in self.cores if k.package == c.package and k.core_id == c.core_id)

    def policy_of(self, cpu: int) -> Policy | None:
        return next((p for p in self.policies if cpu in p.cpus), None)

    @property
    def sockets(self) -> list[int]:
        return sorted({c.package for c in self.cpus.values()})


def _cpu_ids(sys: SysRoot) -> list[int]:
    online = sys.read(f"{CPU_DIR}/online")
    if online:
        return parse_cpulist(online, "sys/devices/system/cpu/online")
    return sorted(int(d[3:]) for d in sys.listdir(CPU_DIR) if d.startswith("cpu") and d[3:].isdigit())


def _nodes(sys: SysRoot, cpu_ids: list[int], warnings: list[str]) -> dict[int, tuple[int, ...]]:
    nodes: dict[int, tuple[int, ...]] = {}
    for d in sys.listdir(NODE_DIR):
        if d.startswith("node") and d[4:].isdigit():
            text = sys.read(f"{NODE_DIR}/{d}/cpulist")
            if text is not None:
                nodes[int(d[4:])] = tuple(parse_cpulist(text, f"{NODE_DIR}/{d}/cpulist"))
    if not nodes:
        # A kernel built without NUMA has no node directory; it behaves as one node 0 holding every CPU.
        warnings.append("no NUMA information under sys/devices/system/node: treating all CPUs as node 0")
        nodes[0] = tuple(cpu_ids)
    return nodes


def _cpus(sys: SysRoot, cpu_ids: list[int], nodes: dict[int, tuple[int, ...]]) -> dict[int, Cpu]:
    node_of = {cpu: n for n, cpus in nodes.items() for cpu in cpus}
    out: dict[int, Cpu] = {}
    for cpu in cpu_ids:
        t = f"{CPU_DIR}/cpu{cpu}/topology"
        package = sys.read_int(f"{t}/physical_package_id")
        core_id = sys.read_int(f"{t}/core_id")
        sib = sys.read(f"{t}/thread_siblings_list") or sys.read(f"{t}/core_cpus_list")
        out[cpu] = Cpu(
            cpu=cpu,
            package=package if package is not None and package >= 0 else 0,
            core_id=core_id if core_id is not None else cpu,
            node=node_of.get(cpu, -1),
            siblings=tuple(parse_cpulist(sib, f"{t}/thread_siblings_list")) if sib else (cpu,),
        )
    return out


def _cores(cpus: dict[int, Cpu]) -> list[Core]:
    by_key: dict[tuple[int, int], list[int]] = {}
    for c in cpus.values():
        by_key.setdefault((c.package, c.core_id), []).append(c.cpu)
    cores = [Core(pkg, cid, cpus[min(v)].node, tuple(sorted(v))) for (pkg, cid), v in by_key.items()]
    return sorted(cores, key=lambda k: (k.package, k.core_id))


def _nic(sys: SysRoot, name: str) -> Nic:
    base = f"{NET_DIR}/{name}"
    dev = sys.realpath(f"{base}/device")
    node, pci, driver = -1, None, None
    if dev is not None:
        drv = sys.realpath(f"{base}/device/driver")
        driver = drv.name if drv is not None else None
        # Walk up from the device (a virtio device has no numa_node, its PCI parent has) to the first with it.
        p = dev
        while sys.rel(p) not in (None, ".", "sys/devices"):
            rel = sys.rel(p)
            assert rel is not None
            if pci is None and _looks_pci(p.name):
                pci = p.name
            value = sys.read_int(f"{rel}/numa_node")
            if value is not None:
                node = value
                break
            p = p.parent
        if pci is None:
            q = dev
            while sys.rel(q) not in (None, ".", "sys/devices") and pci is None:
                pci = q.name if _looks_pci(q.name) else None
                q = q.parent
    speed = sys.read_int(f"{base}/speed")
    return Nic(
        name,
        node if node >= 0 else -1,
        driver,
        speed if speed is not None and speed > 0 else -1,
        pci,
        virtual=dev is None,
    )


def _looks_pci(name: str) -> bool:
    # 0000:03:00.0 = domain:bus:device.function
    parts = name.split(":")
    return (
        len(parts) == 3 and "." in parts[2] and all(all(ch in "0123456789abcdef." for ch in x) for x in parts)
    )


def _policies(sys: SysRoot, cpu_ids: list[int]) -> list[Policy]:
    base = f"{CPU_DIR}/cpufreq"
    dirs = [f"{base}/{d}" for d in sys.listdir(base) if d.startswith("policy") and d[6:].isdigit()]
    if not dirs:
        # Kernels before 4.3 have no policyN directories, only cpuN/cpufreq (a directory or a link).
        seen: set[str] = set()
        for cpu in cpu_ids:
            real = sys.realpath(f"{CPU_DIR}/cpu{cpu}/cpufreq")
            rel = sys.rel(real) if real is not None else None
            if rel and rel not in seen and sys.exists(f"{rel}/scaling_governor"):
                seen.add(rel)
                dirs.append(rel)
    out = []
    for d in sorted(dirs, key=lambda s: (len(s), s)):
        related = sys.read(f"{d}/related_cpus") or sys.read(f"{d}/affected_cpus") or ""
        cpus = tuple(int(x) for x in related.split())
        freqs = tuple(sorted(int(x) for x in (sys.read(f"{d}/scaling_available_frequencies") or "").split()))
        out.append(
            Policy(
                name=os.path.basename(d),
                cpus=cpus,
                driver=sys.read(f"{d}/scaling_driver"),
                governor=sys.read(f"{d}/scaling_governor"),
                governors=tuple((sys.read(f"{d}/scaling_available_governors") or "").split()),
                min_khz=sys.read_int(f"{d}/scaling_min_freq"),
                max_khz=sys.read_int(f"{d}/scaling_max_freq"),
                hw_min_khz=sys.read_int(f"{d}/cpuinfo_min_freq"),
                hw_max_khz=sys.read_int(f"{d}/cpuinfo_max_freq"),
                frequencies_khz=freqs,
                rel=d,
            )
        )
    return out


def discover(root: str | os.PathLike[str] | SysRoot = "/") -> Topology:
    """Read the machine under `root` (default: this machine). Reads only."""
    sys = root if isinstance(root, SysRoot) else SysRoot(root)
    warnings: list[str] = []
    cpu_ids = _cpu_ids(sys)
    if not cpu_ids:
        raise InputError(
            f"no CPUs found under {sys.path(CPU_DIR)}",
            hint="--root must hold sys/devices/system/cpu (pass / for this machine)",
        )
    nodes = _nodes(sys, cpu_ids, warnings)
    cpus = _cpus(sys, cpu_ids, nodes)
    nics = {}
    for name in sys.listdir(NET_DIR):
        try:
            validate_ifname(name)
        except InputError:
            warnings.append(f"skipped '{name}' under {NET_DIR}: not a valid interface name")
            continue
        nics[name] = _nic(sys, name)
    policies = _policies(sys, cpu_ids)
    drivers = sorted({p.driver for p in policies if p.driver})
    if len(drivers) > 1:
        warnings.append(f"several cpufreq drivers: {', '.join(drivers)}")
    isolated = tuple(parse_cpulist(sys.read(f"{CPU_DIR}/isolated") or "", "isolated"))
    nohz_text = sys.read(f"{CPU_DIR}/nohz_full") or ""
    nohz = tuple(parse_cpulist("" if "null" in nohz_text else nohz_text, "nohz_full"))  # unset reads "(null)"
    return Topology(
        root=str(sys.root),
        cpus=cpus,
        cores=_cores(cpus),
        nodes=nodes,
        nics=nics,
        cpufreq_driver=drivers[0] if drivers else None,
        cpufreq_present=sys.path(f"{CPU_DIR}/cpufreq").is_dir(),
        policies=policies,
        isolated=isolated,
        nohz_full=nohz,
        warnings=warnings,
    )


def topology_json(topo: Topology) -> dict[str, object]:
    """What `greendcn host layout --json` writes: the machine as discovered (docs/host.md)."""
    return {
        "root": topo.root,
        "sockets": topo.sockets,
        "nodes": {str(k): list(v) for k, v in topo.nodes.items()},
        "cores": [
            {"package": k.package, "core_id": k.core_id, "node": k.node, "cpus": list(k.cpus)}
            for k in topo.cores
        ],
        "nics": [
            {
                "name": n.name,
                "numa_node": n.node,
                "driver": n.driver,
                "speed_mbps": n.speed_mbps,
                "pci": n.pci,
                "virtual": n.virtual,
            }
            for n in topo.nics.values()
        ],
        "cpufreq": {
            "driver": topo.cpufreq_driver,
            "present": topo.cpufreq_present,
            "policies": [
                {
                    "policy": p.name,
                    "cpus": list(p.cpus),
                    "governor": p.governor,
                    "governors": list(p.governors),
                    "min_khz": p.min_khz,
                    "max_khz": p.max_khz,
                    "hw_min_khz": p.hw_min_khz,
                    "hw_max_khz": p.hw_max_khz,
                    "frequencies_khz": list(p.frequencies_khz),
                }
                for p in topo.policies
            ],
        },
        "isolated": list(topo.isolated),
        "nohz_full": list(topo.nohz_full),
        "warnings": topo.warnings,
    }
