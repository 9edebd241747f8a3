"""Reading sysfs/procfs through a root path, so the same code reads `/` or a fake tree built for a test.

Every path handed in by a user is checked here: interface names follow the kernel's rules and relative paths
may not climb out of the root. Nothing here runs a shell."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from ..core.errors import InputError

__all__ = ["IFNAMSIZ", "SysRoot", "validate_ifname"]

# The kernel's IFNAMSIZ is 16 bytes including the terminating NUL, so a name has at most 15 characters.
IFNAMSIZ = 16


def validate_ifname(name: str, what: str = "interface") -> str:
    """Return `name` if the kernel would accept it as a network interface name, else raise InputError."""
    hint = "interface names have 1-15 characters, none of them '/', ':' or whitespace (see `ip link`)"
    if not isinstance(name, str) or not name:
        raise InputError(f"{what}: empty interface name", hint=hint)
    if len(name.encode()) > IFNAMSIZ - 1:
        raise InputError(
            f"{what}: '{name}' is {len(name.encode())} bytes long, the kernel allows 15", hint=hint
        )
    if name in (".", "..") or any(c in name for c in "/:") or any(c.isspace() for c in name):
        raise InputError(f"{what}: '{name}' is not a valid interface name", hint=hint)
    if not name.isprintable():
        raise InputError(f"{what}: '{name!r}' holds unprintable characters", hint=hint)
    return name


class SysRoot:
    """A filesystem root under which `sys/...` and `proc/...` are read (and, by apply.py, written)."""

    def __init__(self, root: str | os.PathLike[str] = "/"):
        p = Path(root)
        if "\x00" in str(p):
            raise InputError("--root: the path holds a NUL byte", hint="pass a directory such as / or ./fake")
        if not p.is_dir():
            raise InputError(f"--root: '{p}' is not a directory", hint="pass / or a directory holding sys/")
        self.root = p.resolve()

    @property
    def is_real(self) -> bool:
        """True when this is the machine's own root, where writes change the running kernel."""
        return self.root == Path("/")

    def path(self, rel: str) -> Path:
        """The absolute path of `rel` under the root; a relative path may not climb out with '..'."""
        parts = Path(rel).parts
        if Path(rel).is_absolute() or ".." in parts:
            raise InputError(
                f"path '{rel}' must be relative to the root and stay inside it", hint="drop '..'"
            )
        return self.root.joinpath(*parts)

    def inside(self, rel: str, action: str = "write") -> Path:
        """The file `rel` names, with every link followed, refused unless it lies inside the root.

        Links inside the root are normal (the real sysfs has cpuN/cpufreq -> ../cpufreq/policyN); what may
        never happen is that a link, or a chain of them, takes a write outside the root."""
        p = self.path(rel)
        target = Path(os.path.realpath(p))
        if not (target == self.root or self.root in target.parents):
            raise InputError(
                f"cannot {action} {p}: it resolves to {target}, outside the root {self.root}",
                hint="a link in the tree points out of it; fix or remove the link; nothing was written",
                loc=(rel,),
            )
        return target

    def exists(self, rel: str) -> bool:
        return self.path(rel).exists()

    def read(self, rel: str) -> str | None:
        """The stripped text of a file, or None when it is absent or the kernel refuses to give a value.

        Several sysfs attributes exist but fail on read (`speed` of a virtual interface gives EINVAL); for
        discovery that means "unknown". Permission errors are raised: they mean "ask root", not absent."""
        try:
            return self.path(rel).read_text().strip()
        except FileNotFoundError:
            return None
        except PermissionError:
            raise
        except OSError as e:
            if e.errno in (
                errno.EINVAL,
                errno.ENODEV,
                errno.EIO,
                errno.EOPNOTSUPP,
                errno.EISDIR,
                errno.ENOTDIR,
            ):
                return None
            raise

    def read_int(self, rel: str) -> int | None:
        text = self.read(rel)
        if text is None:
            return None
        try:
            return int(text)
        except ValueError:
            return None

    def listdir(self, rel: str) -> list[str]:
        try:
            return sorted(os.listdir(self.path(rel)))
        except (FileNotFoundError, NotADirectoryError):
            return []

    def realpath(self, rel: str) -> Path | None:
        """Follow symlinks (a fake tree uses relative links, so they resolve inside it); None if absent."""
        p = self.path(rel)
        if not p.exists():
            return None
        return p.resolve()

    def rel(self, absolute: Path) -> str | None:
        """`absolute` as a path relative to the root, or None when it lies outside."""
        try:
            return str(absolute.relative_to(self.root))
        except ValueError:
            return None
