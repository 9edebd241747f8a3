"""Writing a plan's cpufreq settings through a root, and undoing it from a state file.

Safety rules (docs/host.md, "Safety model"): nothing is written without `apply`; every target is checked before
the first write of the whole plan (inside the root once every link is followed, a cpufreq setting, present,
writable, not on a read-only file system, root on the real machine); a value is validated before its file is
opened, and a regular file is replaced by rename so that a failure leaves its old content (sysfs attributes,
which cannot be renamed, take the value in one write or refuse it); previous values go to the state file, by
write-then-rename, before any write; a write that fails midway rolls back the ones already made. The state file
is untrusted on the way back: `revert` validates all of it (schema, paths inside the root, only cpufreq
settings, values of the right type, the same root, a checksum of what `apply` wrote) before touching anything.
Leftover temporary files of a killed run are removed, and reported, by the next apply or revert."""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import stat
import sys as _sys
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
    "clean_leftovers",
    "default_state_path",
    "load_state",
    "plan_writes",
    "revert",
]

STATE_FORMAT = "greendcn-host-state/2"
_OLD_FORMAT = "greendcn-host-state/1"  # greendcn 0.1: no checksum; still read, after the same validation
TMP_SUFFIX = ".greendcn-tmp"
# The only files the host tools write: the cpufreq settings of a policy (apply, control's cpufreq actuator).
WRITABLE_SETTINGS = frozenset({"scaling_governor", "scaling_min_freq", "scaling_max_freq"})
_CPU_TREE = "sys/devices/system/cpu/"
_MAX_VALUE_BYTES = 4096  # a sysfs attribute holds at most one page
_PSEUDO_FILESYSTEMS = frozenset({"sysfs", "proc", "cgroup", "cgroup2", "debugfs", "securityfs"})


@dataclass(frozen=True)
class Write:
    rel: str  # file relative to the root
    value: str


def default_state_path(sys: SysRoot, kind: str = "apply") -> Path:
    """/run is a tmpfs, so a reboot (which resets cpufreq anyway) also forgets the state file. `apply` and
    `control` keep separate files, so a controller can run on top of an applied plan and undo only its own."""
    return sys.path(f"run/greendcn/{kind}-state.json")


def _read_current(sys: SysRoot, rel: str) -> str:
    return sys.inside(rel, "read").read_text()


def _check_value(rel: str, value: object) -> str:
    """A value fit to write into a settings file: text of at most one page, no NUL byte."""
    if not isinstance(value, str):
        raise InputError(
            f"{rel}: the value to write must be text, got {type(value).__name__}",
            hint="nothing was written",
            loc=(rel,),
        )
    if "\x00" in value or len(value.encode()) > _MAX_VALUE_BYTES:
        raise InputError(
            f"{rel}: the value to write holds a NUL byte or exceeds {_MAX_VALUE_BYTES} bytes",
            hint="nothing was written",
            loc=(rel,),
        )
    return value


def _check_setting(rel: str) -> None:
    """Only cpufreq settings may be written, whatever a plan or a state file says."""
    parts = Path(rel).parts
    if not (rel.startswith(_CPU_TREE) and parts and parts[-1] in WRITABLE_SETTINGS):
        raise InputError(
            f"{rel}: not a cpufreq setting the host tools write ({', '.join(sorted(WRITABLE_SETTINGS))} "
            f"under {_CPU_TREE})",
            hint="nothing was written",
            loc=(rel,),
        )


def _filesystem_type(path: Path) -> str:
    """The type of the file system holding `path`, from /proc/self/mounts ("" when unknown)."""
    best, kind = "", ""
    try:
        with open("/proc/self/mounts") as f:
            for line in f:
                fields = line.split()
                if len(fields) < 3:
                    continue
                mount = fields[1].replace("\\040", " ")
                inside = str(path) == mount or str(path).startswith(mount.rstrip("/") + "/")
                if inside and len(mount) >= len(best):
                    best, kind = mount, fields[2]
    except OSError:
        return ""
    return kind


def _tmp_of(target: Path) -> Path:
    return target.with_name(f".{target.name}{TMP_SUFFIX}")


def write_value(target: Path, text: str) -> None:
    """Write `text` to `target` (a resolved path inside the root), leaving the old content on failure.

    A regular file is replaced by rename (same folder, same mode); a pseudo-file system's attribute, which
    cannot be renamed, takes the value in one write or refuses it, and keeps its old value when it refuses."""
    data = text.encode()
    st = os.lstat(target)
    if not stat.S_ISREG(st.st_mode):
        raise OSError(22, f"{target} is not a regular file")
    if _filesystem_type(target) in _PSEUDO_FILESYSTEMS:
        fd = os.open(target, os.O_WRONLY | os.O_NOFOLLOW)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        return
    tmp = _tmp_of(target)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, stat.S_IMODE(st.st_mode))
    try:
        os.write(fd, data)
        os.fchmod(fd, stat.S_IMODE(st.st_mode))
    finally:
        os.close(fd)
    os.replace(tmp, target)


def clean_leftovers(sys: SysRoot, rels: list[str], state_path: Path | None = None) -> list[str]:
    """Remove the temporary files a killed run left beside `rels` and the state file; returns what went.

    Safe: a temporary settings file holds a value whose rename never happened, and a temporary state file one
    whose write never started (the state is saved before the value it protects is written)."""
    removed = []
    candidates = {_tmp_of(sys.inside(rel, "clean")) for rel in rels if sys.path(rel).exists()}
    for tmp in sorted(candidates):
        if tmp.is_file() and not tmp.is_symlink():
            tmp.unlink()
            removed.append(str(tmp))
    if state_path is not None:
        folder = state_path.absolute().parent
        for anchor in [folder, *folder.parents]:
            tmp = anchor / (state_path.name + ".tmp")
            if not tmp.is_file() or tmp.is_symlink():
                continue
            try:  # the folders its run created before the kill, which nothing else records
                dirs = json.loads(tmp.read_text()).get("created_dirs", [])
            except (OSError, ValueError, AttributeError):
                dirs = []
            tmp.unlink()
            removed.append(str(tmp))
            holders = {str(p) for p in state_path.absolute().parents}
            for d in reversed([d for d in dirs if isinstance(d, str) and d in holders]):
                if state_path.exists():
                    break  # a state file of a finished save lives there: the folders are recorded in it
                try:
                    os.rmdir(d)  # only when empty
                    removed.append(d)
                except OSError:
                    break
    for path in removed:
        print(f"note: removed {path}, left by an interrupted run", file=_sys.stderr)
    return removed


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
    """Refuse, before the first write, any target that is not a cpufreq setting inside the root, or that
    cannot be written; every later write goes to the resolved path checked here."""
    for rel in rels:
        _check_setting(rel)
        sys.inside(rel, action)
    if sys.is_real and os.geteuid() != 0:
        raise GreendcnError(
            f"cannot {action}: writing cpufreq settings needs root (running as uid {os.geteuid()})",
            hint="run with sudo, or pass --root to a copy of the tree; nothing was written",
        )
    for rel in rels:
        p = sys.inside(rel, action)
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
        payload: dict[str, object] = {
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
            payload["checksum"] = state_checksum(payload)
            # The temporary file goes into the deepest folder that exists already, so that it is on disk, with
            # the folders about to be created, before they are: a kill at any point leaves either nothing of
            # ours or a temporary file that says what to remove (clean_leftovers).
            anchor = next(p for p in [folder, *folder.parents] if p.exists())
            tmp = anchor / (self.state_path.name + ".tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
            try:
                os.write(fd, (json.dumps(payload, indent=1) + "\n").encode())
            finally:
                os.close(fd)
            folder.mkdir(parents=True, exist_ok=True)
            os.replace(tmp, self.state_path)  # atomic: a crash leaves the old or the new state, never half
        except OSError as e:
            raise GreendcnError(
                f"cannot write the state file {self.state_path}: {e.strerror}",
                hint="pass --state to a writable path; nothing was written",
            ) from None

    def write(self, rel: str, value: str) -> bool:
        """Write `value`; returns False when the file already held it (nothing written)."""
        _check_setting(rel)
        value = _check_value(rel, value)
        target = self.sys.inside(rel)
        current = target.read_text()
        if current.strip() == value:
            return False
        if not any(e["path"] == rel for e in self.entries):
            self.entries.append({"path": rel, "previous": current})
            self._save()  # the previous value is on disk before the kernel sees the new one
        write_value(target, value + "\n")
        return True

    def restore(self) -> list[str]:
        """Put back every previous value, newest change first; returns problems (empty when all went back)."""
        problems = []
        for e in reversed(self.entries):
            try:
                write_value(self.sys.inside(e["path"], "restore"), e["previous"])  # the bytes as read
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
    for w in writes:
        _check_value(w.rel, w.value)
    changer = Changer(sys, state_path or default_state_path(sys))
    clean_leftovers(sys, [w.rel for w in writes], changer.state_path)
    changer.begin()
    done = []
    for w in writes:
        try:
            if changer.write(w.rel, w.value):
                done.append(w)
        except KeyboardInterrupt:
            # Ctrl-C, SIGTERM or SIGHUP (host/signals.py) midway: leave nothing half-applied.
            problems = changer.restore()
            if problems:
                raise GreendcnError(
                    "interrupted while applying, and the rollback failed: " + "; ".join(problems),
                    hint=f"the previous values are in {changer.state_path}; run `greendcn host revert`",
                ) from None
            raise
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


def state_checksum(payload: dict[str, object]) -> str:
    """sha256 of the state's content (without its checksum), as apply wrote it."""
    body = {k: v for k, v in payload.items() if k != "checksum"}
    return (
        "sha256:"
        + hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    )


def load_state(sys: SysRoot, path: Path) -> dict[str, object]:
    """Read and validate a state file as untrusted data; refuse it as a whole, naming the first problem.

    Checked before anything is written: the format, the checksum of what apply wrote (an edited file is
    refused), the root it names (the same directory as the given one), and every entry: a path that is a
    cpufreq setting, relative, inside the root once links are followed, listed once, and a previous value that
    is text of at most one page; created_dirs must be folders that hold the state file."""
    try:
        state = json.loads(path.read_text())
    except FileNotFoundError:
        raise InputError(
            f"no state file at {path}: nothing to revert", hint="pass --state FILE if apply used another path"
        ) from None
    except (OSError, ValueError, UnicodeDecodeError) as e:
        raise InputError(
            f"cannot read the state file {path}: {e}",
            hint="is it a greendcn host state file? nothing was written",
        ) from None

    def bad(what: str) -> InputError:
        return InputError(
            f"state file {path}: {what}; refused as a whole, nothing was written",
            hint="a state file is written by `greendcn host plan --apply` or `host control`; "
            "restore the values by hand if it was edited",
        )

    if not isinstance(state, dict) or state.get("format") not in (STATE_FORMAT, _OLD_FORMAT):
        raise bad(f"not a greendcn host state file ('format' must be {STATE_FORMAT})")
    if state["format"] == STATE_FORMAT:
        if state.get("checksum") != state_checksum(state):
            raise bad("its checksum does not match its content: it was changed after greendcn wrote it")
    else:
        print(
            f"note: {path} has no checksum (written by greendcn 0.1); validated entry by entry",
            file=_sys.stderr,
        )
    root = state.get("root")
    if not isinstance(root, str) or not root:
        raise bad("'root' is missing or not text")
    try:
        same_root = Path(root).resolve() == sys.root
    except (OSError, ValueError):
        same_root = False
    if not same_root:
        raise InputError(f"{path} records changes under {root}, not {sys.root}", hint=f"pass --root {root}")
    entries = state.get("entries")
    if not isinstance(entries, list):
        raise bad("'entries' is missing or not a list")
    seen: set[str] = set()
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or set(e) != {"path", "previous"}:
            raise bad(f"entries[{i}] must hold exactly 'path' and 'previous'")
        rel, previous = e["path"], e["previous"]
        if not isinstance(rel, str) or not rel:
            raise bad(f"entries[{i}].path is missing or not text")
        if rel in seen:
            raise bad(f"entries[{i}].path {rel} is listed twice")
        seen.add(rel)
        try:
            _check_setting(rel)
            sys.inside(rel, "restore")
            _check_value(rel, previous)
        except InputError as err:
            raise bad(f"entries[{i}]: {err}") from None
    dirs = state.get("created_dirs", [])
    if not isinstance(dirs, list) or not all(isinstance(d, str) for d in dirs):
        raise bad("'created_dirs' must be a list of paths")
    holders = {str(p) for p in path.absolute().parents}
    if any(d not in holders for d in dirs):
        raise bad("'created_dirs' names a folder that does not hold the state file")
    return state


def revert(sys: SysRoot, state_path: str | os.PathLike[str] | None = None) -> list[str]:
    """Restore the values recorded by apply/control; returns the paths restored."""
    path = Path(state_path) if state_path else default_state_path(sys)
    state = load_state(sys, path)
    entries = state["entries"]
    assert isinstance(entries, list)
    clean_leftovers(sys, [e["path"] for e in entries], path)
    check_targets(sys, [e["path"] for e in entries], "revert")
    changer = Changer(sys, path)
    changer.entries = entries
    changer.created_dirs = [str(d) for d in state.get("created_dirs", [])]  # type: ignore[union-attr]
    problems = changer.restore()
    if problems:
        raise GreendcnError(
            "some values could not be restored: " + "; ".join(problems),
            hint=f"the state file {path} is kept; fix the cause and run revert again",
        )
    return [e["path"] for e in entries]
