"""Virtual hosts as network namespaces joined by veth pairs, created for one run and always removed after it.

Every name starts with `gdn-tdma-<pid>-<n>` so that concurrent runs never collide and leftovers of a killed
run can be recognised (`remove_stale`). Without CAP_NET_ADMIN and CAP_SYS_ADMIN (needed by `ip netns add`)
the harness stops with the reason: it never falls back to something that is not a namespace."""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
from collections.abc import Sequence
from typing import Self

from ...core.errors import GreendcnError

__all__ = ["PREFIX", "Namespaces", "check_capabilities", "remove_stale"]

PREFIX = "gdn-tdma-"
_CAP_NET_ADMIN, _CAP_SYS_ADMIN = 12, 21
_counter = itertools.count()


def check_capabilities() -> None:
    """Raise, naming what is missing, unless this process can create namespaces and veth pairs."""
    if shutil.which("ip") is None:
        raise GreendcnError(
            "the `ip` command (iproute2) is not installed",
            hint="install iproute2 (Debian: apt-get install iproute2)",
        )
    if not os.path.exists("/proc/self/ns/net"):
        raise GreendcnError(
            "this kernel has no network namespaces (/proc/self/ns/net is absent)",
            hint="run the probe on a Linux host built with CONFIG_NET_NS",
        )
    cap_eff = 0
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("CapEff:"):
                cap_eff = int(line.split()[1], 16)
    missing = [
        name
        for bit, name in ((_CAP_NET_ADMIN, "CAP_NET_ADMIN"), (_CAP_SYS_ADMIN, "CAP_SYS_ADMIN"))
        if not cap_eff >> bit & 1
    ]
    if missing:
        raise GreendcnError(
            f"cannot create network namespaces and veth pairs: {' and '.join(missing)} missing",
            hint="run as root (sudo) or in a container started with --cap-add NET_ADMIN --cap-add SYS_ADMIN",
        )


def _ip(*args: str) -> None:
    r = subprocess.run(["ip", *args], check=False, capture_output=True, text=True)
    if r.returncode:
        raise GreendcnError(
            f"`ip {' '.join(args)}` failed: {r.stderr.strip() or r.returncode}",
            hint="check that iproute2 works here and that you have CAP_NET_ADMIN",
        )


def _namespaces() -> list[str]:
    r = subprocess.run(["ip", "netns", "list"], check=False, capture_output=True, text=True)
    return [line.split()[0] for line in r.stdout.splitlines() if line.strip()]


def remove_stale() -> list[str]:
    """Delete namespaces left by probe runs whose process is gone; returns their names."""
    gone = []
    for ns in _namespaces():
        if not ns.startswith(PREFIX):
            continue
        pid = ns[len(PREFIX) :].split("-")[0]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)
            gone.append(ns)
    return gone


class Namespaces:
    """Context manager: one namespace per role, a veth pair per link, addresses 10.203.<link>.1 and .2/24.

    `addr[(a, b)]` is the address of a's end of the a-b link; `run(role, argv)` starts a process inside."""

    def __init__(self, roles: Sequence[str], links: Sequence[tuple[str, str]]):
        self.serial = next(_counter)
        self.tag = f"{os.getpid()}-{self.serial}"
        self.names = {r: f"{PREFIX}{self.tag}-{r}" for r in roles}
        self.links = list(links)
        self.addr: dict[tuple[str, str], str] = {}
        self.dev: dict[tuple[str, str], str] = {}
        self._created: list[str] = []
        self._root_links: list[str] = []
        unknown = {r for link in self.links for r in link} - set(self.names)
        if unknown:
            raise GreendcnError(
                f"links name unknown roles: {', '.join(sorted(unknown))}",
                hint="every end of a link must be one of the roles",
            )

    def __enter__(self) -> Self:
        check_capabilities()
        remove_stale()  # leftovers of runs that were killed before they could clean up
        try:
            for ns in self.names.values():
                _ip("netns", "add", ns)
                self._created.append(ns)
                _ip("-n", ns, "link", "set", "lo", "up")
            for i, (a, b) in enumerate(self.links):
                # Interface names are limited to 15 characters and must be unique in the root namespace
                # for the instant before they move, hence pid-based short names.
                stem = f"gt{os.getpid() % 10**7}{self.serial % 100}{i}"
                da, db = f"{stem}a", f"{stem}b"
                _ip("link", "add", "name", da, "type", "veth", "peer", "name", db)
                self._root_links += [da, db]  # each end lives in our namespace until it has moved
                _ip("link", "set", da, "netns", self.names[a])
                self._root_links.remove(da)
                _ip("link", "set", db, "netns", self.names[b])
                self._root_links.remove(db)
                for dev, role, host in ((da, a, 1), (db, b, 2)):
                    addr = f"10.203.{i}.{host}"
                    _ip("-n", self.names[role], "addr", "add", f"{addr}/24", "dev", dev)
                    _ip("-n", self.names[role], "link", "set", dev, "up")
                    self.addr[(role, b if role == a else a)] = addr
                    self.dev[(role, b if role == a else a)] = dev
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Delete every namespace created (their veth ends go with them) and any pair stranded in the
        calling namespace by a failure half-way; safe to call twice."""
        while self._root_links:
            subprocess.run(["ip", "link", "del", self._root_links.pop()], check=False, capture_output=True)
        while self._created:
            subprocess.run(["ip", "netns", "del", self._created.pop()], check=False, capture_output=True)

    def cmd(self, role: str, argv: Sequence[str]) -> list[str]:
        return ["ip", "netns", "exec", self.names[role], *argv]

    def run(self, role: str, argv: Sequence[str], **kw: object) -> subprocess.Popen:
        return subprocess.Popen(self.cmd(role, argv), text=True, **kw)  # type: ignore[call-overload]

    def check(self, role: str, argv: Sequence[str]) -> subprocess.CompletedProcess:
        return subprocess.run(self.cmd(role, argv), check=False, capture_output=True, text=True)
