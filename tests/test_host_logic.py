"""The host commands' logic, called directly (the command module only parses options and prints)."""

import json

import pytest

from conftest import run_greendcn
from greendcn.core.errors import InputError
from greendcn.core.units import parse_freq_khz
from greendcn.host.actuators import CpufreqActuator, FileActuator, LogActuator, build_actuator
from greendcn.host.control import ports_from
from greendcn.host.fake import build_tree, table1_machine
from greendcn.host.plan import make_plan, plan_json
from greendcn.host.sysfs import SysRoot
from greendcn.host.topology import discover, topology_json


@pytest.fixture
def sys_root(tmp_path):
    return SysRoot(build_tree(tmp_path / "t", table1_machine()))


def test_actuators_are_built_from_their_option_strings(sys_root, tmp_path):
    ports = {"enp3s0f0": (4,)}
    act, changer = build_actuator("cpufreq", sys_root, ports, None, state_path=tmp_path / "s.json")
    assert isinstance(act, CpufreqActuator) and changer is not None
    assert not (tmp_path / "s.json").exists()  # nothing written until the caller begins
    assert isinstance(
        build_actuator("none", sys_root, ports, None, state_path=tmp_path / "x")[0], LogActuator
    )
    assert isinstance(
        build_actuator(f"file:{tmp_path}/r.json", sys_root, ports, None, state_path=tmp_path / "x")[0],
        FileActuator,
    )
    with pytest.raises(InputError, match="--actuator: 'magic'"):
        build_actuator("magic", sys_root, ports, None, state_path=tmp_path / "x")
    with pytest.raises(InputError, match="CPU 999 does not exist"):
        build_actuator("cpufreq", sys_root, {"enp3s0f0": (999,)}, None, state_path=tmp_path / "x")


def test_ports_come_from_specs_and_plan_files(tmp_path):
    assert ports_from(["eth1:2,4", "eth2:6-7"], None) == ({"eth1": (2, 4), "eth2": (6, 7)}, None)
    plan = tmp_path / "p.json"
    plan.write_text(json.dumps({"ports": [{"port": "eth0", "cpus": [1, 3]}], "main_lcore": 0}))
    assert ports_from([], plan) == ({"eth0": (1, 3)}, 0)
    with pytest.raises(InputError, match="lacks its CPUs"):
        ports_from(["eth1"], None)


def test_frequencies_parse_to_khz():
    assert parse_freq_khz("1.2GHz", "x") == 1_200_000 and parse_freq_khz("800 MHz", "x") == 800_000
    assert parse_freq_khz(None, "x") is None
    with pytest.raises(InputError, match="--cap"):
        parse_freq_khz("fast", "--cap")


def test_the_commands_json_is_the_package_functions_json(sys_root, tmp_path):
    topo = discover(sys_root)
    out = run_greendcn("host", "layout", "--root", sys_root.root, "--json", tmp_path / "l.json")
    assert out.returncode == 0, out.stderr
    assert json.loads((tmp_path / "l.json").read_text()) == json.loads(json.dumps(topology_json(topo)))
    out = run_greendcn(
        "host", "plan", "--root", sys_root.root, "--port", "enp3s0f0", "--json", tmp_path / "p.json"
    )
    assert out.returncode == 0, out.stderr
    expected = plan_json(make_plan(topo, ["enp3s0f0"], 2), topo, sys_root.root)
    assert json.loads((tmp_path / "p.json").read_text()) == json.loads(json.dumps(expected))


def test_policies_that_do_not_say_their_cpus_are_left_out_with_a_word_or_refused(sys_root):
    cpufreq = sys_root.path("sys/devices/system/cpu/cpufreq")
    policies = sorted(cpufreq.glob("policy*"))
    for name in ("related_cpus", "affected_cpus"):
        (policies[0] / name).unlink()
    plan = make_plan(discover(sys_root), ["enp3s0f0"], 2)
    assert policies[0].name not in {s.policy for s in plan.settings}
    assert any(policies[0].name in w and "left out" in w for w in plan.warnings)
    for p in policies[1:]:
        for name in ("related_cpus", "affected_cpus"):
            (p / name).unlink()
    with pytest.raises(InputError, match="says which CPUs it covers"):
        make_plan(discover(sys_root), ["enp3s0f0"], 2)
