"""The probe on real veth pairs in network namespaces, with assertions a busy 2-core VM cannot break.

No microsecond thresholds: a scheduler or hypervisor stall of a millisecond is normal here. What must hold
whatever the noise: the sender never sends before its window opens, nearly all packets are stamped inside
their window, nearly every 1 ms slot carries data, the duty lies in a wide band, counts add up, and the
namespaces are gone afterwards. Without CAP_NET_ADMIN these tests fail with the reason: that is a failure
of the environment, not something to skip."""

import os
import subprocess
import sys

import numpy as np
import pytest

from greendcn.core.errors import GreendcnError
from greendcn.host.tdma import Namespaces, ProbeConfig, Schedule, run_probe
from greendcn.host.tdma.netns import PREFIX
from greendcn.host.tdma.relay import run_relay


def our_namespaces() -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], check=False, capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith(PREFIX)]


@pytest.fixture(scope="module")
def run():
    # 1 ms period, 50% duty, no guard, one packet per clock check so that every stamp follows a check.
    sched = Schedule.from_duty(1_000_000, 0.5, slots=200)
    return run_probe(ProbeConfig(sched, burst=1))


def windows(run):
    k = run.records["slot"].astype(np.int64)
    s = run.schedule
    open_ = s.start_ns + k * s.period_ns - s.prealloc_ns
    return open_, open_ + s.uptime_ns - s.guard_ns


def test_packets_leave_only_inside_their_windows(run):
    send = run.records["send_ns"].astype(np.int64)
    open_, close = windows(run)
    assert run.records.size > 1000
    assert np.all(send >= open_), "a packet was sent before its window opened"
    # A packet is stamped just after the clock check that admitted it; a stall between the two can push
    # a stamp past the close, at most one packet per slot. 98% leaves room for two such stalls per 100.
    assert np.mean(send < close) > 0.98
    assert np.all(run.records["slot"] < run.schedule.slots)


def empty_slot_runs(run) -> list[int]:
    """Lengths of the runs of consecutive slots that received no data packet."""
    slots = run.schedule.slots
    got = np.zeros(slots, dtype=bool)
    k = run.records["slot"].astype(np.int64)
    got[k[(k >= 0) & (k < slots)]] = True
    runs, length = [], 0
    for has_data in got:
        if has_data:
            if length:
                runs.append(length)
            length = 0
        else:
            length += 1
    return runs + ([length] if length else [])


def test_almost_every_slot_carries_traffic(run):
    # A neighbour's real-time job or a hypervisor pause can hold the sender's CPU for many 1 ms slots in one
    # 0.2 s run (seen once on the shared development VM: 48% empty). Such a stall empties consecutive slots;
    # a probe that fails to follow its schedule leaves slots empty all over the run. So the test allows up to
    # two stalls of any length, and beyond them at most 10% of the slots empty, from one run.
    runs = sorted(empty_slot_runs(run), reverse=True)
    scattered = sum(runs[2:]) / run.schedule.slots
    assert scattered <= 0.1, f"empty slots in {len(runs)} separate runs: {runs[:10]}"
    assert run.metrics.empty_slot_share == pytest.approx(sum(runs) / run.schedule.slots)


def test_duty_lies_in_a_loose_band(run):
    assert 0.35 <= run.metrics.duty_achieved <= 0.75


def test_counts_add_up(run):
    m = run.metrics
    assert run.receiver["received"] == m.packets_received
    assert m.data_up + m.data_down + m.data_wrong == m.data_received
    assert m.data_received <= run.senders[0]["data_sent"]
    assert run.receiver["stray"] == 0
    assert m.fixed_lag_ns > 0  # receive after send, on one clock


def test_namespaces_are_removed_after_runs(run):
    assert not [n for n in our_namespaces() if n.startswith(f"{PREFIX}{os.getpid()}-")]


def root_links() -> set[str]:
    out = subprocess.run(["ip", "-br", "link"], check=False, capture_output=True, text=True).stdout
    return {line.split()[0].split("@")[0] for line in out.splitlines() if line.strip()}


def test_namespaces_and_links_are_removed_when_setup_fails(monkeypatch):
    # Only this run's own names are checked: other test runs on a shared machine add and remove theirs.
    from greendcn.host.tdma import netns

    real_ip = netns._ip
    made: list[str] = []

    def failing_ip(*args):  # let the pair be created, then fail moving its second end
        if args[:2] == ("link", "set") and args[-1].endswith("-y"):
            raise GreendcnError("simulated failure")
        if args[:2] == ("link", "add"):
            made.extend((args[3], args[8]))  # link add name A type veth peer name B
        real_ip(*args)

    monkeypatch.setattr(netns, "_ip", failing_ip)
    spaces = Namespaces(["x", "y"], [("x", "y")])
    with pytest.raises(GreendcnError, match="simulated"), spaces:
        pass
    assert len(made) == 2, "the failure should come after the veth pair existed"
    assert not set(made) & root_links()
    assert not set(spaces.names.values()) & set(our_namespaces())


def test_links_to_unknown_roles_are_refused():
    with pytest.raises(GreendcnError, match="unknown roles: missing"):
        Namespaces(["x"], [("x", "missing")])


def test_relay_delivers_through_the_middle_host():
    p = run_relay(50_000_000, size_bytes=500, duration_ns=100_000_000)
    assert p.sent > 100
    assert p.relayed >= p.delivered > 0.9 * p.sent  # 50 Mb/s is far below what the relay can carry
    assert p.latency_ns["p50"] > 0


def test_without_net_admin_it_fails_with_the_reason(tmp_path):
    # The typer app is called directly (where the root CLI mounts it may change); the error is printed the
    # way greendcn's entry point prints it.
    code = (
        "import sys; from greendcn.core.errors import GreendcnError; from greendcn.host.tdma.cli import app\n"
        "try: app(['probe', '--duration', '20ms'], standalone_mode=False)\n"
        "except GreendcnError as e: print('error:', e, '\\nhint:', e.hint, file=sys.stderr); sys.exit(1)"
    )
    script = tmp_path / "probe_without_caps.py"
    script.write_text(code)
    r = subprocess.run(
        ["capsh", "--drop=cap_net_admin,cap_sys_admin", "--", "-c", f"{sys.executable} {script}"],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 1, r.stderr
    assert "CAP_NET_ADMIN" in r.stderr and "hint:" in r.stderr and "Traceback" not in r.stderr


def test_missing_binary_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("GREENDCN_TDMA_BIN_DIR", str(tmp_path))
    with pytest.raises(GreendcnError, match="greendcn-tdma-.* is missing") as e:
        run_probe(ProbeConfig(Schedule.from_duty(1_000_000, 0.5, slots=5)))
    assert "make build" in e.value.hint


def test_finite_demand_is_padded_to_whole_bursts():
    # 10 data packets per slot in bursts of 8: 8 data, then 2 data + 6 padding. Counts per slot are set by
    # the sender's rule, not by timing, so only a slot a stall skips entirely can change them.
    sched = Schedule.from_duty(1_000_000, 0.5, slots=100)
    r = run_probe(ProbeConfig(sched, burst=8, demand_pkts=10, pad_bytes=128))
    # A stall on a busy machine can close a slot's window before its first or second burst (the sender checks
    # the window once per burst), so a slot holds (10 data, 6 pad), (8, 0) or (0, 0): bursts go out whole and
    # padding never comes without its burst's 2 data packets. That rule holds whatever the timing; how many
    # slots get both bursts does not (0.83 on one loaded 2-core CI run), so of that we ask only a majority.
    is_pad = (r.records["flags"] & 1) == 1
    slot = r.records["slot"].astype(np.int64)
    data = np.bincount(slot[~is_pad], minlength=100)
    pads = np.bincount(slot[is_pad], minlength=100)
    whole_bursts = {(0, 0), (8, 0), (10, 6)}
    seen = set(zip(data.tolist(), pads.tolist()))
    assert seen <= whole_bursts, f"slots with a partial burst: {sorted(seen - whole_bursts)}"
    assert np.mean((data == 10) & (pads == 6)) >= 0.5
    assert np.all(r.records["len"][is_pad] == 128)


def test_slots_rotate_over_destinations():
    sched = Schedule.from_duty(1_000_000, 0.5, slots=60, destinations=3)
    r = run_probe(ProbeConfig(sched, burst=4))
    rec = r.records
    assert np.all(rec["port"] % 3 == rec["slot"] % 3)  # slot k goes to destination k % 3, always
    assert set(np.unique(rec["port"])) == {0, 1, 2}


def test_in_slot_pacing_sets_the_typical_gap():
    # 100 Mb/s with 1472-byte payloads: one packet every 117.76 us. The median gap ignores rare stalls;
    # 25% leaves room for a loaded host while still failing if pacing were absent (gaps of ~5 us).
    sched = Schedule(period_ns=1_000_000, uptime_ns=1_000_000, slots=150)
    r = run_probe(ProbeConfig(sched, burst=1, rate_bps=100_000_000))
    assert r.metrics.ideal_gap_ns == pytest.approx(117_760)
    assert r.metrics.gap_ns["q50"] == pytest.approx(117_760, rel=0.25)
