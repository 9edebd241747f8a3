"""The AFFCON planner: seed 000 Algorithm 1 (node choice, performance/powersave) plus our stated additions."""

import pytest

from greendcn.core.errors import InputError
from greendcn.host.cpuset import mask_to_cpus
from greendcn.host.fake import FakeMachine, FakeNic, build_tree, table1_machine
from greendcn.host.plan import make_plan
from greendcn.host.topology import discover

PORTS = ["enp3s0f0", "enp3s0f1", "enp3s0f2", "enp3s0f3"]


@pytest.fixture(scope="module")
def table1(tmp_path_factory):
    return discover(build_tree(tmp_path_factory.mktemp("t1") / "t", table1_machine()))


def test_working_cores_on_the_nic_node(table1):
    # Algorithm 1 lines 1-5: the card is on node 0 (seed 000 line 233), so every port CPU is on node 0.
    p = make_plan(table1, PORTS, 2)
    assert all(table1.cpus[c].node == 0 for c in p.lcores)
    p1 = make_plan(table1, ["enp130s0f0"], 2)
    assert all(table1.cpus[c].node == 1 for c in p1.lcores)


def test_physical_cores_before_siblings_and_cpu0_kept(table1):
    p = make_plan(table1, PORTS, 2)
    assert 0 not in p.lcores and 24 not in p.lcores  # CPU 0's whole core stays with the system (our choice)
    cores = [table1.core_of(c) for c in p.lcores]
    assert len({(k.package, k.core_id) for k in cores}) == len(p.lcores)  # no two lcores share a core
    assert p.main_cpu == 2 and p.ports[0].cpus == (4, 6)


def test_siblings_used_only_when_node_is_out_of_cores(table1):
    # Node 0 has 11 cores once CPU 0's is reserved; main + 12 port CPUs needs 13, so two siblings are used.
    p = make_plan(table1, PORTS, 3)
    sib = [c for c in p.lcores if c >= 24]
    assert len(sib) == 2 and all(table1.cpus[c].node == 0 for c in sib)
    assert any("siblings" in w for w in p.warnings)


def test_allow_cpu0_gives_the_papers_lcores(table1):
    """With a port on each node, four CPUs per port and CPU 0 as main lcore the plan is -l 0-8: the paper's
    working set (seed 000 line 235) read literally, spanning both sockets."""
    p = make_plan(table1, ["enp3s0f0", "enp130s0f0"], 4, allow_cpu0=True)
    assert p.lcores == list(range(9)) and p.main_cpu == 0
    assert p.eal_args_coremask()[:2] == ["-c", "0x1ff"]
    assert mask_to_cpus(p.eal_args_coremask()[1]) == p.lcores


def test_too_few_cores_is_explained(table1):
    with pytest.raises(InputError) as e:
        make_plan(table1, PORTS, 6)
    assert "NUMA node 0" in str(e.value) and "--cores-per-port" in e.value.hint


def test_unknown_and_bad_ports(table1):
    with pytest.raises(InputError, match="no interface 'eth9'") as e:
        make_plan(table1, ["eth9"], 2)
    assert "enp3s0f0" in e.value.hint
    with pytest.raises(InputError, match="15"):
        make_plan(table1, ["x" * 16], 2)


def test_dvfs_plan_sets_whole_cores(table1):
    p = make_plan(table1, ["enp3s0f0"], 2)
    by_cpu = {c: s for s in p.settings for c in s.cpus}
    for c in p.lcores:
        sib = table1.cpus[c].siblings
        assert all(by_cpu[x].governor == "performance" for x in sib)  # siblings share one clock
    idle = [c for c in table1.cpus if c not in p.working_cpus]
    assert idle and all(by_cpu[c].governor == "powersave" and by_cpu[c].role == "idle" for c in idle)


def test_shared_package_policy_warns(tmp_path):
    topo = discover(build_tree(tmp_path / "t", table1_machine(policy_scope="package")))
    p = make_plan(topo, ["enp3s0f0"], 2)
    roles = {s.policy: (s.role, s.governor) for s in p.settings}
    assert roles["policy0"] == ("mixed", "performance") and roles["policy1"] == ("idle", "powersave")
    assert any("shared" in w for w in p.warnings)


def test_intel_pstate_refuses_unknown_governor(tmp_path):
    topo = discover(build_tree(tmp_path / "t", table1_machine("intel_pstate")))
    with pytest.raises(InputError, match="userspace") as e:
        make_plan(topo, ["enp3s0f0"], 2, idle_governor="userspace")
    assert "performance powersave" in e.value.hint
    p = make_plan(topo, ["enp3s0f0"], 2)
    assert any("dynamic governor" in w for w in p.warnings)


def test_no_cpufreq_still_plans_cores(tmp_path):
    topo = discover(build_tree(tmp_path / "t", table1_machine("empty")))
    p = make_plan(topo, ["enp3s0f0"], 2)
    assert p.settings == [] and p.ports[0].cpus and any("cannot be applied" in w for w in p.warnings)


def test_frequency_out_of_range(table1):
    with pytest.raises(InputError, match="outside the hardware range"):
        make_plan(table1, ["enp3s0f0"], 2, idle_max_khz=800000)


def test_pktgen_map_and_eal_args(table1):
    p = make_plan(table1, ["enp3s0f1", "enp3s0f0"], 2)
    # DPDK numbers ports in PCI order, so enp3s0f0 is port 0 even though it was named second.
    assert [x.dpdk_port for x in p.ports] == [1, 0]
    assert p.pktgen_m() == "[8:10].0,[4:6].1"
    assert p.eal_args() == [
        "-l",
        "2,4,6,8,10",
        "--main-lcore",
        "2",
        "-a",
        "0000:03:00.0",
        "-a",
        "0000:03:00.1",
    ]
    assert make_plan(table1, ["enp3s0f0"], 1).pktgen_m() == "4.0"
    assert make_plan(table1, ["enp3s0f0"], 3).pktgen_m() == "[4/6/8].0"


def test_kernel_params_cover_port_cores_and_siblings(table1):
    p = make_plan(table1, ["enp3s0f0"], 2)
    assert p.kernel_params(table1) == "isolcpus=4,6,28,30 nohz_full=4,6,28,30 rcu_nocbs=4,6,28,30"


def test_unknown_node_falls_back_with_warning(tmp_path):
    m = table1_machine(nics=[FakeNic("eth1", "0000:05:00.0", -1)])
    topo = discover(build_tree(tmp_path / "t", m))
    p = make_plan(topo, ["eth1"], 2)
    assert p.ports[0].node == 0 and not p.ports[0].node_known and any("unknown" in w for w in p.warnings)


def test_deterministic(table1):
    a = make_plan(table1, PORTS, 2)
    b = make_plan(table1, PORTS, 2)
    assert a == b


def test_single_socket_without_smt(tmp_path):
    m = FakeMachine(sockets=1, core_ids=(0, 1, 2, 3), threads=1, nics=[FakeNic("eth1", "0000:01:00.0", 0)])
    topo = discover(build_tree(tmp_path / "t", m))
    p = make_plan(topo, ["eth1"], 2)
    assert p.main_cpu == 1 and p.ports[0].cpus == (2, 3)
