"""Actuators of the rate controller: what "idle" means for the cores of a port.

A DPDK poll-mode core spins at 100 % whatever its governor (seed 000 line 245), so a governor alone cannot
let it sleep. Each actuator below saves something different; docs/host.md compares them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Protocol

from ..core.errors import InputError
from .apply import Changer
from .sysfs import SysRoot
from .topology import Topology

__all__ = ["Actuator", "CommandActuator", "CpufreqActuator", "FileActuator", "LogActuator", "build_actuator"]


class Actuator(Protocol):
    name: str

    def set_state(self, port: str, cpus: tuple[int, ...], state: str) -> list[str]:
        """Move `cpus` (the cores of `port`) to "working" or "idle"; returns what was done, for the log."""
        ...


class LogActuator:
    """Changes nothing: decisions are only logged (a dry run)."""

    name = "none"

    def set_state(self, port: str, cpus: tuple[int, ...], state: str) -> list[str]:
        return []


class CpufreqActuator:
    """Working: the working governor; idle: the idle governor (and optionally a frequency cap).

    Saves the dynamic power of a lower clock and voltage on a core that keeps spinning; it cannot reach the
    deeper savings of a sleeping core. A policy (and a physical core, whose siblings share one clock) goes
    idle only when none of its CPUs still works for another port or for the main lcore."""

    name = "cpufreq"

    def __init__(
        self,
        topo: Topology,
        changer: Changer,
        working_cpus: set[int],
        *,
        working_governor: str = "performance",
        idle_governor: str = "powersave",
        idle_max_khz: int | None = None,
    ):
        if not topo.policies:
            raise InputError(
                f"--actuator cpufreq: no cpufreq policy under {topo.root}",
                hint="use --actuator file:PATH or cmd:..., or none for a dry run",
            )
        for gov in (working_governor, idle_governor):
            if any(p.governors and gov not in p.governors for p in topo.policies):
                raise InputError(
                    f"--actuator cpufreq: governor '{gov}' is not offered here",
                    hint=f"offered: {' '.join(topo.policies[0].governors)}",
                )
        self.topo = topo
        self.changer = changer
        self.working = set()
        for c in working_cpus:
            self.working.update(topo.core_of(c).cpus)
        self.working_governor = working_governor
        self.idle_governor = idle_governor
        self.idle_max_khz = idle_max_khz

    def set_state(self, port: str, cpus: tuple[int, ...], state: str) -> list[str]:
        whole = set()
        for c in cpus:
            whole.update(self.topo.core_of(c).cpus)
        if state == "working":
            self.working |= whole
        else:
            self.working -= whole
        done = []
        for p in self.topo.policies:
            if not whole & set(p.cpus):
                continue
            if state == "idle" and self.working & set(p.cpus):
                done.append(f"{p.name} kept at {self.working_governor}: shared with working CPUs")
                continue
            gov = self.working_governor if state == "working" else self.idle_governor
            if self.changer.write(f"{p.rel}/scaling_governor", gov):
                done.append(f"{p.name} -> {gov}")
            if self.idle_max_khz is not None and p.max_khz is not None:
                cap = p.max_khz if state == "working" else self.idle_max_khz
                if self.changer.write(f"{p.rel}/scaling_max_freq", str(cap)):
                    done.append(f"{p.name} max {cap} kHz")
        return done


class FileActuator:
    """Writes the wanted state of every port to a JSON file that the packet application watches.

    The application can then stop polling (sleep, or switch its queues to interrupt mode) so the cores reach
    C-states: the larger saving, but it needs the application's cooperation."""

    name = "file"

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        if not self.path.parent.is_dir():
            raise InputError(
                f"--actuator file: folder {self.path.parent} does not exist", hint="create it first"
            )
        self.states: dict[str, dict[str, object]] = {}

    def set_state(self, port: str, cpus: tuple[int, ...], state: str) -> list[str]:
        self.states[port] = {"state": state, "cpus": list(cpus)}
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(self.states, sort_keys=True) + "\n")
        os.replace(tmp, self.path)  # the watcher never sees a half-written file
        return [f"{self.path} <- {port}={state}"]


class CommandActuator:
    """Runs a command (no shell) with `{port}`, `{state}` and `{cpus}` replaced inside its arguments.

    What it saves depends on the command (e.g. a script that tells pktgen to stop a port's lcores)."""

    name = "cmd"

    def __init__(self, argv: list[str], timeout_s: float = 10.0):
        if not argv or not argv[0]:
            raise InputError(
                "--actuator cmd: empty command", hint="e.g. --actuator 'cmd:/usr/local/bin/onrate'"
            )
        if shutil.which(argv[0]) is None:
            raise InputError(
                f"--actuator cmd: '{argv[0]}' is not an executable program",
                hint="give the full path of an executable file (it is run without a shell)",
            )
        self.argv = argv
        self.timeout_s = timeout_s

    def set_state(self, port: str, cpus: tuple[int, ...], state: str) -> list[str]:
        cl = ",".join(map(str, cpus))
        argv = [a.replace("{port}", port).replace("{state}", state).replace("{cpus}", cl) for a in self.argv]
        try:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=self.timeout_s, check=False)
        except subprocess.TimeoutExpired:
            return [f"{argv[0]} killed after {self.timeout_s:g} s"]  # logged; the controller keeps going
        except OSError as e:
            return [f"{argv[0]} could not run: {e.strerror}"]
        return [f"{argv[0]} exited {r.returncode}"]


def build_actuator(
    spec: str,
    sys: SysRoot,
    ports: dict[str, tuple[int, ...]],
    main: int | None,
    *,
    idle_governor: str = "powersave",
    idle_max_khz: int | None = None,
    state_path: str | os.PathLike[str],
) -> tuple[Actuator, Changer | None]:
    """The actuator `--actuator SPEC` names (cpufreq, none, file:PATH, cmd:PROGRAM), checked before anything is
    written; for cpufreq also the Changer that records previous values (call its begin() before running)."""
    from .apply import check_targets
    from .topology import discover

    if spec == "cpufreq":
        topo = discover(sys)
        for c in {c for v in ports.values() for c in v}:
            if c not in topo.cpus:
                raise InputError(
                    f"--port: CPU {c} does not exist under {sys.root}", hint="see `greendcn host layout`"
                )
        changer = Changer(sys, state_path)
        working = {c for v in ports.values() for c in v} | ({main} if main is not None else set())
        act = CpufreqActuator(topo, changer, working, idle_governor=idle_governor, idle_max_khz=idle_max_khz)
        check_targets(
            sys,
            [
                f"{p.rel}/{f}"
                for p in topo.policies
                for f in ("scaling_governor", "scaling_max_freq")
                if any(c in p.cpus for v in ports.values() for c in v)
            ],
            "control",
        )
        return act, changer
    if spec == "none":
        return LogActuator(), None
    if spec.startswith("file:"):
        return FileActuator(spec[5:]), None
    if spec.startswith("cmd:"):
        return CommandActuator([spec[4:], "{port}", "{state}", "{cpus}"]), None
    raise InputError(
        f"--actuator: '{spec}' is not one of cpufreq, none, file:PATH, cmd:PROGRAM",
        hint="e.g. --actuator file:/run/pktgen-rates.json",
    )
