"""The rate controller's rules (thresholds, hysteresis, dwell: ours) on scripted counters; its actuators."""

import json
import sys

import pytest

from greendcn.core.errors import InputError
from greendcn.host.actuators import CommandActuator, CpufreqActuator, FileActuator, LogActuator
from greendcn.host.apply import Changer
from greendcn.host.control import ControlConfig, RateController
from greendcn.host.fake import build_tree, snapshot, table1_machine
from greendcn.host.sysfs import SysRoot
from greendcn.host.topology import discover


class Scripted:
    """Counters that grow at a scripted rate (b/s) per one-second step."""

    def __init__(self, rates_bps):
        self.rates = rates_bps
        self.t = 0
        self.bytes = 0

    def read(self, port):
        return self.bytes, 0

    def advance(self):
        self.bytes += int(self.rates[self.t] / 8)
        self.t += 1


def _drive(rates, cfg, actuator=None):
    reader = Scripted(rates)
    ctl = RateController({"eth1": (4, 6)}, reader, actuator or LogActuator(), cfg)
    ctl.step(0.0)
    trace = []
    for i in range(len(rates)):
        reader.advance()
        ctl.step(float(i + 1))
        trace.append(ctl.state("eth1"))
    return ctl, trace


def test_idle_only_after_dwell_and_wake_at_once():
    cfg = ControlConfig(high_bps=100e6, low_bps=50e6, dwell_s=3.0, interval_s=1.0)
    rates = [200e6, 200e6, 10e6, 10e6, 10e6, 10e6, 10e6, 150e6, 150e6]
    ctl, trace = _drive(rates, cfg)
    # Low from t=2 (interval 2-3 is the first low one): dwell of 3 s reached at t=5.
    assert trace == ["working", "working", "working", "working", "idle", "idle", "idle", "working", "working"]
    idle, wake = ctl.decisions
    assert idle.t_s == 5.0 and idle.rate_bps == pytest.approx(10e6, rel=1e-6) and "below" in idle.reason
    assert wake.t_s == 8.0 and wake.rate_bps == pytest.approx(150e6, rel=1e-6) and "high" in wake.reason


def test_hysteresis_band_holds_the_state():
    cfg = ControlConfig(high_bps=100e6, low_bps=50e6, dwell_s=0.0, interval_s=1.0)
    # 70 Mb/s sits between the thresholds: an idle port stays idle, a working one stays working.
    _, trace = _drive([10e6, 70e6, 70e6, 120e6, 70e6, 70e6], cfg)
    assert trace == ["idle", "idle", "idle", "working", "working", "working"]


def test_a_short_dip_does_not_idle():
    cfg = ControlConfig(high_bps=100e6, low_bps=50e6, dwell_s=2.5, interval_s=1.0)
    ctl, trace = _drive([200e6, 10e6, 10e6, 200e6, 10e6, 10e6, 200e6], cfg)
    assert set(trace) == {"working"} and ctl.decisions == []


def test_counter_reset_gives_no_rate():
    class Reset(Scripted):
        def read(self, port):
            return (10**9, 0) if self.t < 2 else (5, 0)

    ctl = RateController({"eth1": (4,)}, Reset([0] * 4), LogActuator(), ControlConfig(dwell_s=0))
    for t in range(4):
        ctl.step(float(t))
        ctl.reader.t += 1
    assert [s.t_s for s in ctl.samples] == [1.0, 3.0]  # the reset interval (t=2) is skipped, not a huge rate


@pytest.mark.parametrize(
    "kw, field",
    [
        ({"low_bps": 2e9, "high_bps": 1e9}, "--low-rate"),
        ({"interval_s": 0}, "--interval"),
        ({"direction": "up"}, "--direction"),
    ],
)
def test_bad_config_names_the_option(kw, field):
    with pytest.raises(InputError, match=field):
        RateController({"eth1": (1,)}, Scripted([]), LogActuator(), ControlConfig(**kw))


def test_cpufreq_actuator_respects_shared_cores_and_policies(tmp_path):
    root = build_tree(tmp_path / "t", table1_machine(policy_scope="package"))
    topo = discover(root)
    sysr = SysRoot(root)
    before = snapshot(root)
    ch = Changer(sysr, tmp_path / "s.json")
    ch.begin()
    act = CpufreqActuator(topo, ch, {2, 4, 6, 3, 5})
    # Port A on socket 0 idles, but socket 0's single policy still holds CPU 2 (main lcore): nothing written.
    out = act.set_state("a", (4, 6), "idle")
    assert "kept" in out[0] and discover(root).policy_of(4).governor == "schedutil"
    # Port B holds all of socket 1's working CPUs: its policy goes to powersave, then back.
    act.set_state("b", (3, 5), "idle")
    assert discover(root).policy_of(3).governor == "powersave"
    act.set_state("b", (3, 5), "working")
    assert discover(root).policy_of(3).governor == "performance"
    assert ch.restore() == []
    assert snapshot(root) == before


def test_cpufreq_actuator_cap_and_per_core_policies(tmp_path):
    root = build_tree(tmp_path / "t", table1_machine(policy_scope="core"))
    topo = discover(root)
    ch = Changer(SysRoot(root), tmp_path / "s.json")
    ch.begin()
    act = CpufreqActuator(topo, ch, {4, 6}, idle_max_khz=1200000)
    act.set_state("a", (4,), "idle")
    p = discover(root).policy_of(28)  # 28 is 4's sibling: one policy for the whole core
    assert p.governor == "powersave" and p.max_khz == 1200000
    act.set_state("a", (4,), "working")
    p = discover(root).policy_of(4)
    assert p.governor == "performance" and p.max_khz == 2201000


def test_file_and_command_actuators(tmp_path):
    f = FileActuator(tmp_path / "rates.json")
    f.set_state("eth1", (4, 6), "idle")
    f.set_state("eth2", (8,), "working")
    assert json.loads((tmp_path / "rates.json").read_text()) == {
        "eth1": {"cpus": [4, 6], "state": "idle"},
        "eth2": {"cpus": [8], "state": "working"},
    }
    out = tmp_path / "cmd.txt"
    script = "import sys; open(sys.argv[1], 'a').write(' '.join(sys.argv[2:]) + '\\n')"
    c = CommandActuator([sys.executable, "-c", script, str(out), "{port}", "{state}", "{cpus}"])
    c.set_state("eth1; rm -rf /", (4, 6), "idle")  # passed as one argument, never to a shell
    assert out.read_text() == "eth1; rm -rf / idle 4,6\n"
    with pytest.raises(InputError, match="does not exist"):
        FileActuator(tmp_path / "missing" / "x.json")


def test_command_actuator_refuses_a_missing_program_and_survives_a_hanging_one(tmp_path):
    with pytest.raises(InputError, match="not an executable program"):
        CommandActuator([str(tmp_path / "nothing-here"), "{port}"])
    slow = CommandActuator([sys.executable, "-c", "import time; time.sleep(30)"], timeout_s=0.2)
    assert "killed after" in slow.set_state("eth1", (4,), "idle")[0]  # logged, not raised


def test_run_keeps_ticks_and_skips_after_a_stall():
    """A scripted clock: samples land on the interval grid, and a 1 s stall skips the missed ticks."""
    now = [100.0]
    stalls = {3: 1.0}

    def clock():
        return now[0]

    def sleep(s):
        now[0] += s
        k = round((now[0] - 100.0) / 0.25)
        now[0] += stalls.pop(k, 0.0)

    reader = Scripted([0] * 100)
    ctl = RateController({"eth1": (4,)}, reader, LogActuator(), ControlConfig(interval_s=0.25, dwell_s=10))
    ctl.run(3.0, clock=clock, sleep=sleep)
    times = [s.t_s for s in ctl.samples]
    assert times[:2] == [0.25, 0.5]
    assert 1.75 in times and 1.0 not in times  # the ticks inside the stall are skipped, the grid is kept
    assert all(round(t / 0.25, 9) == round(t / 0.25) for t in times) and times[-1] <= 3.0


def test_netns_reader_without_stats64_is_a_clear_error(monkeypatch):
    import subprocess

    from greendcn.core.errors import GreendcnError
    from greendcn.host.control import NetnsCounters

    def old_ip(argv, **kw):  # an iproute2 whose JSON lacks the 64-bit counters
        return subprocess.CompletedProcess(argv, 0, stdout='[{"ifname": "eth1"}]', stderr="")

    monkeypatch.setattr(subprocess, "run", old_ip)
    with pytest.raises(GreendcnError, match="stats64") as e:
        NetnsCounters("ns1").read("eth1")
    assert e.value.hint
