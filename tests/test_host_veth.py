"""End to end on real traffic: a veth pair between the root namespace and a namespace this test creates, a UDP
sender inside the namespace whose rate steps high -> low -> high, the controller reading the REAL counters of
the root-namespace end (/sys/class/net/<end>/statistics/rx_bytes, visible there because that end never leaves
the root namespace), and the cpufreq actuator writing into a fake Table I tree (this machine has no cpufreq).

Namespaces and interfaces carry the prefix gdn-aff- and are removed even when the test fails. If they cannot
be created the test fails with the reason: the controller is not tested otherwise."""

import os
import shlex
import subprocess
import sys
import time

import pytest

from greendcn.host.actuators import CpufreqActuator
from greendcn.host.apply import Changer
from greendcn.host.control import ControlConfig, NetnsCounters, RateController, SysfsCounters
from greendcn.host.fake import build_tree, snapshot, table1_machine
from greendcn.host.sysfs import SysRoot
from greendcn.host.topology import discover

SENDER = r"""
import socket, sys, time
dst, phases = sys.argv[1], [tuple(map(float, p.split(":"))) for p in sys.argv[2].split(",")]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
payload = b"\0" * 972  # 972 B of UDP payload: 1000 B IP packets, 1014 B frames
t0 = time.monotonic()
for rate_bps, seconds in phases:
    start, sent = time.monotonic(), 0
    while (now := time.monotonic()) - start < seconds:
        owed = rate_bps / 8 * (now - start) - sent  # token bucket: catch up after a late wake-up
        while owed >= 1014:
            s.sendto(payload, (dst, 9)); sent += 1014; owed -= 1014
        time.sleep(0.005)
"""

HIGH, LOW = 40e6, 0.4e6  # sender rates, b/s


def _ip(*args: str) -> None:
    r = subprocess.run(["ip", *args], check=False, capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        raise RuntimeError(f"`ip {' '.join(args)}` failed: {r.stderr.strip()}")


@pytest.fixture
def veth():
    tag = f"{os.getpid() % 0xFFFF:04x}"
    ns, here, there = f"gdn-aff-{tag}", f"gdn-aff-{tag}r", f"gdn-aff-{tag}n"
    octet = os.getpid() % 250 + 1
    mine, theirs = f"169.254.{octet}.1", f"169.254.{octet}.2"
    try:
        try:
            _ip("netns", "add", ns)
            _ip("link", "add", here, "type", "veth", "peer", "name", there)
            _ip("link", "set", there, "netns", ns)
            _ip("addr", "add", f"{mine}/30", "dev", here)
            _ip("link", "set", here, "up")
            _ip("-n", ns, "addr", "add", f"{theirs}/30", "dev", there)
            _ip("-n", ns, "link", "set", there, "up")
            _ip("-n", ns, "link", "set", "lo", "up")
        except (RuntimeError, OSError) as e:
            pytest.fail(
                f"cannot create the test's network namespace and veth pair (root and iproute2 needed): {e}"
            )
        yield ns, here, there, mine
    finally:
        subprocess.run(
            ["ip", "netns", "del", ns], check=False, capture_output=True
        )  # takes the veth pair with it
        subprocess.run(["ip", "link", "del", here], check=False, capture_output=True)


def _wait_for_traffic(reader, port, timeout_s=10.0):
    first = reader.read(port)[0]
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout_s:
        if reader.read(port)[0] > first + 10_000:
            return
        time.sleep(0.05)
    pytest.fail("the sender in the namespace produced no traffic on the veth pair")


@pytest.mark.timeout(120)
def test_controller_follows_real_traffic(veth, tmp_path):
    ns, here, there, mine = veth
    tree = build_tree(tmp_path / "sys", table1_machine())
    before = snapshot(tree)
    topo = discover(tree)
    changer = Changer(SysRoot(tree), tmp_path / "state.json")
    changer.begin()
    port_cpus = (4, 6)
    actuator = CpufreqActuator(topo, changer, set(port_cpus))
    reader = SysfsCounters(SysRoot("/"))
    # Thresholds sit a factor 4 and 10 away from the two sender rates, so a noisy machine cannot blur them.
    cfg = ControlConfig(high_bps=10e6, low_bps=4e6, dwell_s=1.0, interval_s=0.25, direction="rx")
    ctl = RateController({here: port_cpus}, reader, actuator, cfg)
    seen = []

    def observe(d):
        # Read the fake tree right after each decision: the actuator's writes must be there.
        t = discover(tree)
        seen.append((d.state, t.policy_of(4).governor, t.policy_of(28).governor, t.policy_of(8).governor))

    phases = f"{HIGH}:4,{LOW}:3.5,{HIGH}:3.5"
    sender = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, "-c", SENDER, mine, phases])
    try:
        _wait_for_traffic(reader, here)
        ctl.run(10.5, on_decision=observe)
    finally:
        sender.kill()
        sender.wait()

    trace = [(round(s.t_s, 2), round(s.rate_bps / 1e6, 2), s.state) for s in ctl.samples]  # for failures
    states = [d.state for d in ctl.decisions]
    assert states[:2] == ["idle", "working"], trace
    idle, wake = ctl.decisions[:2]
    assert idle.rate_bps < cfg.low_bps and wake.rate_bps >= cfg.high_bps, trace
    # The idle decision came no sooner than the dwell after the run of low samples that led to it began.
    run_start, prev_t = None, 0.0
    for s in ctl.samples:
        if s.t_s > idle.t_s:
            break
        # a rate covers (previous sample, this sample]; a low run starts where its first interval starts
        run_start = (prev_t if run_start is None else run_start) if s.rate_bps < cfg.low_bps else None
        prev_t = s.t_s
    assert run_start is not None and idle.t_s - run_start >= cfg.dwell_s - 1e-9, trace
    # Measured rates: the high phase must read near 40 Mb/s of IP + Ethernet bytes (rx_bytes counts frames
    # without FCS); we allow -50 % for a starved sender on a loaded 2-core machine, +25 % for catch-up bursts.
    high = [s.rate_bps for s in ctl.samples if 0 < s.t_s <= 3.5]  # inside the first 4 s phase
    assert high and 0.5 * HIGH < sorted(high)[len(high) // 2] < 1.25 * HIGH, trace
    # The fake cpufreq tree received the writes: whole core (4 and its sibling 28), nothing else touched.
    assert seen[0] == ("idle", "powersave", "powersave", "schedutil"), (seen, trace)
    assert seen[1] == ("working", "performance", "performance", "schedutil"), (seen, trace)
    # Reading inside the namespace sees the other end's transmit counter, at least what arrived here.
    ns_tx = NetnsCounters(ns).read(there)[1]
    assert ns_tx >= reader.read(here)[0] * 0.9
    assert changer.restore() == []
    assert snapshot(tree) == before


@pytest.mark.timeout(180)
def test_without_namespaces_the_end_to_end_test_fails_with_the_reason(tmp_path):
    """Run the end-to-end test above without CAP_NET_ADMIN and CAP_SYS_ADMIN: it must fail (never skip) and
    say why. capsh drops the capabilities for the child pytest only."""
    here = os.path.abspath(__file__)
    argv = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-rA",
        "-p",
        "no:cacheprovider",
        f"{here}::test_controller_follows_real_traffic",
    ]
    r = subprocess.run(
        ["capsh", "--drop=cap_net_admin,cap_sys_admin", "--", "-c", shlex.join(argv)],
        check=False,
        capture_output=True,
        text=True,
        timeout=170,
        cwd=os.path.dirname(here),
    )
    out = r.stdout + r.stderr
    assert r.returncode == 1, out  # pytest's code for "tests failed" (5 would be "none ran", 0 "passed")
    assert "cannot create the test's network namespace" in out and "skipped" not in out.lower(), out
