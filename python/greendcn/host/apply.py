"""Writing a plan's cpufreq settings through a root, and undoing it from a state file.

Safety rules: nothing is written without `apply`; every target is checked before the first write (root on the
real machine, files present, writable, file system not read-only); previous values go to the state file before
any write; a write that fails midway rolls back the ones already made, so nothing is left half-applied."""

from __future__ import annotations

import datetime as _dt
import json
import os
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import GreendcnError, InputError
from .plan import Plan
from .sysfs import SysRoot

__all__ = [
    "STATE_FORMAT",
    "Changer",
    "Write",
    "apply_plan",
    "check_targets",
    "default_state_path",
    "plan_writes",
    "revert",
]

STATE_FORMAT = "greendcn-host-state/1"


@dataclass(frozen=True)
class Write:
    rel: str  # file relative to the root
    value: str


def default_state_path(sys: SysRoot, kind: str = "apply") -> Path:
    """/run is a tmpfs, so a reboot (which resets cpufreq anyway) also forgets the state file. `apply` and
    `control` keep separate files, so a controller can run on top of an applied plan and undo only its own."""
    return sys.path(f"run/greendcn/{kind}-state.json")


def _read_current(sys: SysRoot, rel: str) -> str:
    return sys.path(rel).read_text()


def plan_writes(sys: SysRoot, plan: Plan) -> list[Write]:
    """The writes a plan needs, in an order the kernel accepts: governor first, then the frequency limits
    ordered so that scaling_min_freq never exceeds scaling_max_freq at any moment."""
    writes: list[Write] = []
    for s in plan.settings:
        writes.append(Write(f"{s.rel}/scaling_governor", s.governor))
        cur_min, cur_max = (
            sys.read_int(f"{s.rel}/scaling_min_freq"),
            sys.read_int(f"{s.rel}/scaling_max_freq"),
        )
        new_min, new_max = s.min_khz, s.max_khz
        # A floor above the present ceiling needs a higher ceiling (the hardware's), and a ceiling below the
        # present floor a lower floor, or the kernel refuses the write (our choice of the companion value).
        if new_min is not None and new_max is None and cur_max is not None and new_min > cur_max:
            new_max = sys.read_int(f"{s.rel}/cpuinfo_max_freq")
        if new_max is not None and new_min is None and cur_min is not None and new_max < cur_min:
            new_min = sys.read_int(f"{s.rel}/cpuinfo_min_freq")
        limits = []
        if new_min is not None:
            limits.append(Write(f"{s.rel}/scaling_min_freq", str(new_min)))
        if new_max is not None:
            limits.append(Write(f"{s.rel}/scaling_max_freq", str(new_max)))
        if new_min is not None and cur_max is not None and new_min > cur_max:
            limits.reverse()  # raise the ceiling before lifting the floor above the old ceiling
        writes.extend(limits)
    return writes


def check_targets(sys: SysRoot, rels: list[str], action: str) -> None:
    if sys.is_real and os.geteuid() != 0:
        raise GreendcnError(
            f"cannot {action}: writing cpufreq settings needs root (running as uid {os.geteuid()})",
            hint="run with sudo, or pass --root to a copy of the tree; nothing was written",
        )
    for rel in rels:
        p = sys.path(rel)
        if not p.is_file():
            raise GreendcnError(
                f"cannot {action}: {p} is missing or not a file",
                hint="the cpufreq driver may lack this setting; nothing was written",
            )
        if os.statvfs(p).f_flag & os.ST_RDONLY:
            raise GreendcnError(
                f"cannot {action}: {p} is on a read-only file system",
                hint="remount read-write or use a writable --root; nothing was written",
            )
        if not os.access(p, os.W_OK):
            raise GreendcnError(
                f"cannot {action}: {p} is not writable by this user", hint="run as root; nothing was written"
            )


class Changer:
    """Writes files under a root; the first previous value of each goes to the state file beforehand."""

    def __init__(self, sys: SysRoot, state_path: str | os.PathLike[str]):
        self.sys = sys
        self.state_path = Path(state_path).absolute()
        self.entries: list[dict[str, str]] = []
        # Folders this change created for its state file (outermost first); revert removes them again when
        # empty, so that apply + revert with the default state file leaves a tree exactly as it was.
        self.created_dirs: list[str] = []

    def begin(self) -> None:
        if self.state_path.exists():
            raise GreendcnError(
                f"a state file from an earlier change exists: {self.state_path}",
                hint="run `greendcn host revert` first (or pass --state to another file)",
            )
        self._save()

    def _save(self) -> None:
        payload = {
            "format": STATE_FORMAT,
            "root": str(self.sys.root),
            "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "entries": self.entries,
            "created_dirs": self.created_dirs,
        }
        try:
            folder = self.state_path.parent
            if not folder.exists():
                missing = [p for p in [folder, *folder.parents] if not p.exists()]
                self.created_dirs = [str(p) for p in reversed(missing)]
                payload["created_dirs"] = self.created_dirs
            self.state_path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.state_path.with_name(self.state_path.name + ".tmp")
            tmp.write_text(json.dumps(payload, indent=1) + "\n")
            os.replace(tmp, self.state_path)  # atomic: a crash leaves the old or the new state, never half
        except OSError as e:
            raise GreendcnError(
                f"cannot write the state file {self.state_path}: {e.strerror}",
                hint="pass --state to a writable path; nothing was written",
            ) from None

    def write(self, rel: str, value: str) -> bool:
        """Write `value`; returns False when the file already held it (nothing written)."""
        current = _read_current(self.sys, rel)
        if current.strip() == value:
            return False
        if not any(e["path"] == rel for e in self.entries):
            self.entries.append({"path": rel, "previous": current})
            self._save()  # the previous value is on disk before the kernel sees the new one
        with open(self.sys.path(rel), "w") as f:
            f.write(value + "\n")
        return True

    def restore(self) -> list[str]:
        """Put back every previous value, newest change first; returns problems (empty when all went back)."""
        problems = []
        for e in reversed(self.entries):
            try:
                with open(self.sys.path(e["path"]), "w") as f:
                    f.write(e["previous"])
            except OSError as err:
                try:  # a write the kernel refused left the old value in place: nothing to restore there
                    if _read_current(self.sys, e["path"]) == e["previous"]:
                        continue
                except OSError:
                    pass
                problems.append(f"{e['path']}: {err.strerror}")
        if not problems:
            self.state_path.unlink(missing_ok=True)
            ours = set(self.state_path.parents)  # never a folder that does not hold the state file
            for d in reversed(self.created_dirs):
                if Path(d) not in ours:
                    break
                try:
                    os.rmdir(d)  # only when empty: another change may still keep its state file there
                except OSError:
                    break
        return problems


def apply_plan(sys: SysRoot, plan: Plan, state_path: str | os.PathLike[str] | None = None) -> list[Write]:
    """Apply the plan's cpufreq settings; returns the writes made. Refuses before any write if it cannot."""
    if not plan.settings:
        raise GreendcnError(
            f"nothing to apply: no cpufreq policy under {sys.root}",
            hint="this machine (or VM) exposes no frequency control; the core plan still holds",
        )
    writes = plan_writes(sys, plan)
    check_targets(sys, [w.rel for w in writes], "apply")
    changer = Changer(sys, state_path or default_state_path(sys))
    changer.begin()
    done = []
    for w in writes:
        try:
            if changer.write(w.rel, w.value):
                done.append(w)
        except OSError as e:
            problems = changer.restore()
            if problems:
                raise GreendcnError(
                    f"writing {w.rel} failed ({e.strerror}) and the rollback failed too: "
                    + "; ".join(problems),
                    hint=f"the previous values are in {changer.state_path}; run `greendcn host revert`",
                ) from None
            raise GreendcnError(
                f"writing {w.value!r} to {w.rel} failed: {e.strerror}; every earlier write was rolled back",
                hint="check the value against scaling_available_governors",
            ) from None
    return done


def revert(sys: SysRoot, state_path: str | os.PathLike[str] | None = None) -> list[str]:
    """Restore the values recorded by apply/control; returns the paths restored."""
    path = Path(state_path) if state_path else default_state_path(sys)
    try:
        state = json.loads(path.read_text())
    except FileNotFoundError:
        raise InputError(
            f"no state file at {path}: nothing to revert", hint="pass --state FILE if apply used another path"
        ) from None
    except (OSError, ValueError) as e:
        raise InputError(
            f"cannot read the state file {path}: {e}", hint="is it a greendcn host state file?"
        ) from None
    if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
        raise InputError(
            f"{path} is not a greendcn host state file", hint=f"its 'format' must be {STATE_FORMAT}"
        )
    if Path(state["root"]) != sys.root:
        raise InputError(
            f"{path} records changes under {state['root']}, not {sys.root}",
            hint=f"pass --root {state['root']}",
        )
    entries = state.get("entries", [])
    check_targets(sys, [e["path"] for e in entries], "revert")
    changer = Changer(sys, path)
    changer.entries = entries
    changer.created_dirs = [str(d) for d in state.get("created_dirs", [])]
    problems = changer.restore()
    if problems:
        raise GreendcnError(
            "some values could not be restored: " + "; ".join(problems),
            hint=f"the state file {path} is kept; fix the cause and run revert again",
        )
    return [e["path"] for e in entries]
