"""Seed 000's Algorithm 1 as a deterministic planner: working cores on each port's NUMA node, then DVFS.

What the paper fixes (seed 000 Algorithm 1, lines 169-196): working cores on the NIC's NUMA node, performance
on working cores and powersave on the rest. Our additions, each explained in docs/host.md: one logical CPU per
physical core before any hyperthread sibling; CPU 0's core left to the system unless allow_cpu0; every port
gets cores on its own NIC's node; whole physical cores (and whole cpufreq policies) take the highest setting
any of their CPUs needs, since siblings share one clock; a pktgen main lcore besides the port cores."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import InputError
from .cpuset import cpus_to_mask, format_cpulist
from .sysfs import validate_ifname
from .topology import Topology

__all__ = ["Plan", "PolicySetting", "PortPlan", "make_plan", "pktgen_map", "plan_json"]


@dataclass(frozen=True)
class PortPlan:
    port: str
    node: int
    node_known: bool
    pci: str | None
    dpdk_port: int  # DPDK numbers probed ports in PCI order (our reading of the EAL bus scan)
    cpus: tuple[int, ...]


@dataclass(frozen=True)
class PolicySetting:
    policy: str
    rel: str
    cpus: tuple[int, ...]
    role: str  # "working", "idle" or "mixed" (a shared policy holding both: it runs at the working setting)
    governor: str
    min_khz: int | None = None
    max_khz: int | None = None


@dataclass
class Plan:
    ports: list[PortPlan]
    main_cpu: int | None
    working_cpus: tuple[int, ...]  # main + port CPUs + the siblings sharing their physical cores
    settings: list[PolicySetting]
    warnings: list[str] = field(default_factory=list)

    @property
    def lcores(self) -> list[int]:
        return sorted(
            {c for p in self.ports for c in p.cpus}
            | ({self.main_cpu} if self.main_cpu is not None else set())
        )

    @property
    def port_cpus(self) -> list[int]:
        return sorted({c for p in self.ports for c in p.cpus})

    def eal_args(self) -> list[str]:
        """EAL arguments for current DPDK (20.11+): `-l`, `--main-lcore`, one `-a` per port's PCI device."""
        args = ["-l", format_cpulist(self.lcores)]
        if self.main_cpu is not None:
            args += ["--main-lcore", str(self.main_cpu)]
        for p in sorted(self.ports, key=lambda p: p.dpdk_port):
            if p.pci:
                args += ["-a", p.pci]
        return args

    def eal_args_coremask(self) -> list[str]:
        """The DPDK 16.04 form (the paper's, seed 000 Table II): `-c` coremask, `--master-lcore`, `-w`."""
        args = ["-c", cpus_to_mask(self.lcores)]
        if self.main_cpu is not None:
            args += ["--master-lcore", str(self.main_cpu)]
        for p in sorted(self.ports, key=lambda p: p.dpdk_port):
            if p.pci:
                args += ["-w", p.pci]
        return args

    def pktgen_m(self) -> str:
        return pktgen_map(self.ports)

    def kernel_params(self, topo: Topology) -> str:
        """isolcpus/nohz_full/rcu_nocbs for the port CPUs and their siblings (our choice: a sibling left to
        the scheduler would steal cycles from the poll loop on its core). The main lcore stays schedulable."""
        cpus = set()
        for c in self.port_cpus:
            cpus.update(topo.cpus[c].siblings)
        if self.main_cpu is not None:
            cpus.discard(self.main_cpu)
        cl = format_cpulist(cpus)
        return f"isolcpus={cl} nohz_full={cl} rcu_nocbs={cl}"


def _pktgen_list(cpus: tuple[int, ...]) -> str:
    parts = format_cpulist(cpus).split(",")
    return "/".join(parts)


def pktgen_map(ports: list[PortPlan]) -> str:
    """pktgen-DPDK `-m`: one core handles rx and tx ("2.0"); an even number splits rx and tx ("[2/4:6/8].0");
    an odd number above one lets every core do both ("[2/4/6].0")."""
    out = []
    for p in sorted(ports, key=lambda p: p.dpdk_port):
        c = p.cpus
        if len(c) == 1:
            out.append(f"{c[0]}.{p.dpdk_port}")
        elif len(c) % 2 == 0:
            half = len(c) // 2
            out.append(f"[{_pktgen_list(c[:half])}:{_pktgen_list(c[half:])}].{p.dpdk_port}")
        else:
            out.append(f"[{_pktgen_list(c)}].{p.dpdk_port}")
    return ",".join(out)


def _candidates(topo: Topology, node: int, allow_cpu0: bool) -> list[int]:
    """The node's CPUs in the order we hand them out: each core's first thread, then second threads."""
    cores = [k for k in topo.cores if k.node == node]
    if not allow_cpu0:
        cores = [k for k in cores if 0 not in k.cpus]
    depth = max((len(k.cpus) for k in cores), default=0)
    return [k.cpus[t] for t in range(depth) for k in cores if t < len(k.cpus)]


def _port_node(topo: Topology, port: str, warnings: list[str]) -> tuple[int, bool]:
    nic = topo.nics[port]
    if nic.node >= 0 and nic.node in topo.nodes:
        return nic.node, True
    node = min(topo.nodes)
    if len(topo.nodes) > 1:
        warnings.append(
            f"{port}: NUMA node unknown (numa_node is -1 or absent); using node {node} (our choice)"
        )
    return node, False


def _check_freq(value: int | None, what: str, topo: Topology) -> None:
    if value is None:
        return
    lo = min((p.hw_min_khz for p in topo.policies if p.hw_min_khz), default=None)
    hi = max((p.hw_max_khz for p in topo.policies if p.hw_max_khz), default=None)
    if lo is not None and hi is not None and not lo <= value <= hi:
        raise InputError(
            f"{what}: {value} kHz is outside the hardware range {lo}-{hi} kHz",
            hint="see cpuinfo_min_freq/cpuinfo_max_freq in `greendcn host layout`",
        )


def make_plan(
    topo: Topology,
    ports: list[str],
    cores_per_port: int = 2,
    *,
    allow_cpu0: bool = False,
    main_lcore: bool = True,
    work_governor: str = "performance",
    idle_governor: str = "powersave",
    work_min_khz: int | None = None,
    idle_max_khz: int | None = None,
) -> Plan:
    """Choose cores for `ports` and the governor of every cpufreq policy. Same inputs -> same plan."""
    warnings: list[str] = []
    if not ports:
        raise InputError("--port: no port given", hint="name at least one interface, e.g. --port eth1")
    if cores_per_port < 1:
        raise InputError(
            f"--cores-per-port: {cores_per_port} must be at least 1", hint="pktgen needs a core per port"
        )
    for p in ports:
        validate_ifname(p, "--port")
        if p not in topo.nics:
            known = ", ".join(n for n, x in topo.nics.items() if not x.virtual) or "none"
            raise InputError(
                f"--port: no interface '{p}' under {topo.root}/sys/class/net",
                hint=f"interfaces with a device here: {known}",
            )
    if len(set(ports)) != len(ports):
        raise InputError("--port: an interface is named twice", hint="name each port once")

    nodes = {p: _port_node(topo, p, warnings) for p in ports}
    free = {n: _candidates(topo, n, allow_cpu0) for n in topo.nodes}
    main = None
    if main_lcore:
        first_node = nodes[ports[0]][0]
        if allow_cpu0 and 0 in topo.cpus:
            main = 0  # the paper's runs used lcore 0 (cores 0-8, seed 000 line 235) with pktgen's main there
            free = {n: [c for c in cpus if c != 0] for n, cpus in free.items()}
        elif free[first_node]:
            main = free[first_node].pop(0)
    order = sorted(ports, key=lambda p: (topo.nics[p].pci is None, topo.nics[p].pci or "", ports.index(p)))
    plans = []
    for port in ports:
        node, known = nodes[port]
        if len(free[node]) < cores_per_port:
            total = sum(len(k.cpus) for k in topo.cores if k.node == node)
            raise InputError(
                f"--port {port}: needs {cores_per_port} CPUs on NUMA node {node}, only {len(free[node])} "
                f"left (node {node} has {total} logical CPUs; CPU 0's core reserved: {not allow_cpu0}; "
                f"main lcore: {main})",
                hint="lower --cores-per-port, plan fewer ports on this node, or pass --allow-cpu0",
            )
        cpus = tuple(free[node][:cores_per_port])
        free[node] = free[node][cores_per_port:]
        if any(len(topo.core_of(c).cpus) > 1 and c != topo.core_of(c).cpus[0] for c in cpus):
            warnings.append(
                f"{port}: uses hyperthread siblings ({format_cpulist(cpus)}): node {node} ran out of "
                "physical cores; two poll loops on one core share its execution units"
            )
        nic = topo.nics[port]
        plans.append(PortPlan(port, node, known, nic.pci, order.index(port), cpus))
        if nic.pci is None:
            warnings.append(f"{port}: no PCI device found, so no `-a` argument for it (a virtual interface?)")

    working = {c for p in plans for c in p.cpus} | ({main} if main is not None else set())
    whole = set()
    for c in working:
        whole.update(topo.core_of(c).cpus)  # siblings share the core's clock: hold the whole core
    settings = _settings(topo, whole, work_governor, idle_governor, work_min_khz, idle_max_khz, warnings)
    return Plan(plans, main, tuple(sorted(whole)), settings, warnings)


def _settings(
    topo: Topology,
    working: set[int],
    work_gov: str,
    idle_gov: str,
    work_min: int | None,
    idle_max: int | None,
    warnings: list[str],
) -> list[PolicySetting]:
    if not topo.policies:
        why = "the cpufreq directory is empty" if topo.cpufreq_present else "there is no cpufreq directory"
        warnings.append(
            f"no cpufreq policy under {topo.root} ({why}): the DVFS part of the plan cannot be applied; "
            "CPU and NUMA affinity still hold"
        )
        return []
    for gov, what in ((work_gov, "--work-governor"), (idle_gov, "--idle-governor")):
        lacking = [p.name for p in topo.policies if p.governors and gov not in p.governors]
        if lacking:
            have = " ".join(topo.policies[0].governors)
            raise InputError(
                f"{what}: governor '{gov}' is not offered by {lacking[0]} ({topo.cpufreq_driver})",
                hint=f"this driver offers: {have}",
            )
    _check_freq(work_min, "--work-min-freq", topo)
    _check_freq(idle_max, "--idle-max-freq", topo)
    if topo.cpufreq_driver == "intel_pstate" and idle_gov == "powersave" and idle_max is None:
        warnings.append(
            "intel_pstate's powersave is a dynamic governor, not a fixed minimum frequency as Li 2017 "
            "(section 3.3) describes powersave; pass --idle-max-freq to cap idle cores"
        )
    out = []
    unknown = [p.name for p in topo.policies if not p.cpus]
    if unknown and len(unknown) == len(topo.policies):
        raise InputError(
            f"no cpufreq policy under {topo.root} says which CPUs it covers (no related_cpus or affected_cpus "
            f"in {', '.join(unknown[:3])}{' ...' if len(unknown) > 3 else ''}), so no governor can be planned",
            hint="the tree is incomplete: check sys/devices/system/cpu/cpufreq/policy*/related_cpus",
        )
    if unknown:
        warnings.append(
            f"{', '.join(unknown)} do not say which CPUs they cover (no related_cpus or "
            "affected_cpus): left out of the plan"
        )
    for p in topo.policies:
        if not p.cpus:
            continue
        on = [c for c in p.cpus if c in working]
        role = "working" if len(on) == len(p.cpus) else "idle" if not on else "mixed"
        if role == "mixed":
            warnings.append(
                f"{p.name} is shared by CPUs {format_cpulist(p.cpus)}: it holds working CPUs "
                f"{format_cpulist(on)}, so its idle CPUs run at '{work_gov}' too"
            )
        if role == "idle":
            out.append(PolicySetting(p.name, p.rel, p.cpus, role, idle_gov, None, idle_max))
        else:
            out.append(PolicySetting(p.name, p.rel, p.cpus, role, work_gov, work_min, None))
    return out


def plan_json(p: Plan, topo: Topology, root: object, writes: Sequence[Any] = ()) -> dict[str, object]:
    """What `greendcn host plan --json` writes; `writes` are the ones `--apply` made."""
    return {
        "root": str(root),
        "ports": [
            {
                "port": x.port,
                "numa_node": x.node,
                "numa_node_known": x.node_known,
                "pci": x.pci,
                "dpdk_port": x.dpdk_port,
                "cpus": list(x.cpus),
            }
            for x in p.ports
        ],
        "main_lcore": p.main_cpu,
        "lcores": p.lcores,
        "working_cpus": list(p.working_cpus),
        "eal_args": p.eal_args(),
        "eal_args_coremask": p.eal_args_coremask(),
        "pktgen_m": p.pktgen_m(),
        "kernel_params": p.kernel_params(topo),
        "settings": [
            {
                "policy": s.policy,
                "cpus": list(s.cpus),
                "role": s.role,
                "governor": s.governor,
                "min_khz": s.min_khz,
                "max_khz": s.max_khz,
            }
            for s in p.settings
        ],
        "applied": [{"path": w.rel, "value": w.value} for w in writes],
        "warnings": p.warnings,
    }
