"""Hosts on circuit fabrics (topology.hosts_per_rack): one flow file naming hosts runs unchanged on Opera,
RotorNet, SelectorNet, a fat-tree and a leaf-spine of the same host count; flows within a rack never touch a circuit; a
host's link bounds its flow; the books balance with host links; a rack too full for its ToR is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from greendcn.core.errors import InputError
from greendcn.sim.optical.scenario_run import endpoint_network, endpoint_racks
from greendcn.sim.run import simulate
from greendcn.sim.scenario import scenario_from_dict

from conftest import assert_clean_error, run_greendcn

COMMON = {"link_rate": "10Gbps", "link_delay": "500ns"}
# 16 hosts on every fabric: a k = 4 fat-tree, 4 leaves x 4 hosts, and 8 racks x 2 hosts on the circuit fabrics
FABRICS = {
    "fattree": ({**COMMON, "kind": "fattree", "k": 4}, "ecmp"),
    "leafspine": ({**COMMON, "kind": "leafspine", "leaves": 4, "hosts_per_leaf": 4}, "ecmp"),
    "rotornet": (
        {**COMMON, "kind": "rotornet", "racks": 8, "hosts_per_rack": 2, "uptime": "100us"},
        "rotorlb",
    ),
    "selectornet": (
        {
            **COMMON,
            "kind": "selectornet",
            "racks": 8,
            "circuit_switches": 2,
            "hosts_per_rack": 2,
            "uptime": "100us",
        },
        "selector",
    ),
    "opera": (
        {
            **COMMON,
            "kind": "opera",
            "racks": 8,
            "circuit_switches": 4,
            "hosts_per_rack": 2,
            "reconfig": "10us",
        },
        "opera",
    ),
}


def conserved(s: dict) -> None:
    assert s["packets_created"] == (
        s["packets_delivered"]
        + s["control_packets_received"]
        + s["no_circuit_drops"]
        + s["no_path_drops"]
        + s["host_link_drops"]
        + s["packets_in_flight"]
    ), s


def _scenario(kind: str, **extra) -> dict:
    topo, scheme = FABRICS[kind]
    return {"topology": {**topo, **extra}, "routing": {"scheme": scheme}}


def test_one_flow_file_naming_hosts_runs_on_every_fabric(tmp_path: Path):
    flows = tmp_path / "flows.csv"
    flows.write_text(
        "src,dst,size_bytes,start_s,class\n"
        "S0,S15,300000,0,a\nS3,S2,200000,0.00001,b\nS7,S8,500000,0,a\nS14,S1,100000,0.00002,b\n"
    )
    for kind in FABRICS:
        res = simulate(_scenario(kind), flows=flows, progress=False)
        fl = res.flows
        assert fl[["src", "dst"]].values.tolist() == [
            ["S0", "S15"],
            ["S3", "S2"],
            ["S7", "S8"],
            ["S14", "S1"],
        ]
        assert fl["class"].tolist() == ["a", "b", "a", "b"], kind
        assert fl["fct_s"].notna().all(), kind
        if kind not in ("fattree", "leafspine"):
            conserved(res.summary)
            assert res.hosts["host"].tolist() == [f"S{i}" for i in range(16)]
            # S3 -> S2 stays in rack 1: its bytes crossed S3's NIC and S2's ToR port, nothing else
            h = res.hosts.set_index("host")
            assert h.loc["S2", "payload_bytes_received"] == 200_000
            assert h.loc["S3", "rack"] == h.loc["S2", "rack"] == "R1"


def test_a_flow_within_a_rack_never_touches_a_circuit_switch():
    res = simulate(
        {
            **_scenario("rotornet"),
            "workload": {"kind": "flows", "flows": [{"src": "S4", "dst": "S5", "size": "1MB"}]},
        },
        progress=False,
    )
    assert res.summary["packet_hops"] == 0
    assert (res.links["bytes_sent"] == 0).all() and (res.links["packets_sent"] == 0).all()
    assert res.flows["fct_s"].notna().all()
    h = res.hosts.set_index("host")
    assert h.loc["S4", "bytes_sent"] == h.loc["S5", "bytes_received"] > 1_000_000
    assert h.drop(index=["S4", "S5"])[["bytes_sent", "bytes_received"]].to_numpy().sum() == 0


def test_a_hosts_link_rate_limits_its_flow():
    # one flow alone on a RotorNet of 4 switches: with racks as endpoints RotorLB lends it every uplink of its
    # rack (4 x 10 Gb/s); from a host, it cannot beat its own 10 Gb/s link
    def flow(dst: int) -> dict:
        return {"workload": {"kind": "flows", "flows": [{"src": 0, "dst": dst, "size": "4MB"}]}}

    topo = {**FABRICS["rotornet"][0], "circuit_switches": 4}
    hosts = simulate({**_scenario("rotornet"), "topology": topo, **flow(9)}, progress=False)
    # the same flow between the racks of S0 and S9 (rack 4), with the racks as endpoints
    racks = simulate(
        {**_scenario("rotornet"), "topology": {**topo, "hosts_per_rack": None}, **flow(4)}, progress=False
    )
    wire_bits = (4_000_000 + -(-4_000_000 // 1472) * 52) * 8
    fct = hosts.flows["fct_s"].iloc[0]
    assert fct >= wire_bits / 10e9
    assert racks.flows["fct_s"].iloc[0] < fct / 2
    assert hosts.flows["src"].iloc[0] == "S0" and racks.flows["src"].iloc[0] == "R0"
    conserved(hosts.summary)


def test_an_incast_overflows_the_tors_port_and_the_books_balance():
    flows = [{"src": f"S{2 * r}", "dst": "S1", "size": "400KB"} for r in range(1, 8)]
    sc = {**_scenario("opera", queue="4pkt"), "workload": {"kind": "flows", "flows": flows}}
    res = simulate(sc, progress=False)
    s = res.summary
    conserved(s)
    assert s["host_link_drops"] > 0 and s["drops"] == s["no_circuit_drops"] + s["host_link_drops"]
    assert res.hosts.set_index("host").loc["S1", "tor_drops"] == s["host_link_drops"]


def test_hosts_per_rack_unset_keeps_the_racks_as_endpoints():
    topo, _ = FABRICS["rotornet"]
    sc = scenario_from_dict({**_scenario("rotornet"), "topology": {**topo, "hosts_per_rack": None}})
    assert endpoint_network(sc.topology).hosts == [f"R{i}" for i in range(8)]
    assert endpoint_racks(sc.topology) == list(range(8))
    sc = scenario_from_dict({**_scenario("rotornet"), "topology": {**topo, "hosts_per_rack": 3}})
    assert endpoint_network(sc.topology).hosts == [f"S{i}" for i in range(24)]
    assert endpoint_racks(sc.topology) == [h // 3 for h in range(24)]


def test_more_hosts_than_the_tor_has_ports_is_refused():
    # the SN2700 ToR has 32 ports: 6 uplinks + 27 hosts do not fit
    topo = {"kind": "opera", "racks": 12, "circuit_switches": 6, "hosts_per_rack": 27}
    routing = {"scheme": "opera"}
    with pytest.raises(InputError) as e:
        scenario_from_dict({"topology": topo, "routing": routing})
    assert e.value.loc == ("topology", "hosts_per_rack") and "32" in str(e.value)
    scenario_from_dict({"topology": {**topo, "hosts_per_rack": 26}, "routing": routing})  # 32 ports exactly


def test_the_command_names_the_key_when_a_rack_does_not_fit(tmp_path: Path):
    out = run_greendcn(
        "simulate",
        "scenarios/rotornet-permutation.toml",
        "--set",
        "topology.hosts_per_rack=40",
    )
    assert_clean_error(out, "topology.hosts_per_rack")


def test_hosts_are_priced_on_circuit_fabrics_as_on_packet_fabrics():
    from greendcn.sim.host_power import HostPowerConfig

    flows = {"workload": {"kind": "flows", "flows": [{"src": "S0", "dst": "S1", "size": "1MB"}]}}
    circuit = simulate({**_scenario("rotornet"), **flows}, progress=False)
    packet = simulate({**_scenario("fattree"), **flows}, progress=False)
    hosts = {}
    for name, res in (("circuit", circuit), ("packet", packet)):
        e = res.energy
        rows = {d["name"]: d for d in e.devices if d["kind"] == "node:host"}
        assert sorted(rows) == sorted(f"S{i}" for i in range(16)), name
        assert e.split["hosts_energy_j"] == pytest.approx(
            sum(d["energy_j"] for d in rows.values()), rel=1e-12
        )
        assert e.total_energy_j == pytest.approx(sum(d["energy_j"] for d in e.devices), rel=1e-12)
        hosts[name] = rows
    # the same host models: an idle host draws the same power on both engines
    assert hosts["circuit"]["S9"]["avg_power_w"] == pytest.approx(
        hosts["packet"]["S9"]["avg_power_w"], rel=1e-12
    )
    assert hosts["circuit"]["S0"]["packets_sent"] == circuit.hosts.set_index("host").loc["S0", "packets_sent"]
    # and they are the [power.hosts] ledger's prices of the engine's per-host windows
    out = circuit.engine_results
    nodes = [{"name": f"S{i}", "kind": "host"} for i in range(16)]
    again = (
        HostPowerConfig().pricer().price({"series": out["series"], "summary": out["summary"], "nodes": nodes})
    )
    assert circuit.energy.split["hosts_energy_j"] == pytest.approx(again.total_j, rel=1e-12)
    # a constant host power instead
    const = simulate({**_scenario("rotornet"), **flows, "power": {"host_w": 30.0}}, progress=False)
    assert const.energy.split["hosts_energy_j"] == pytest.approx(16 * 30.0 * const.summary["sim_time_s"])


def test_hosts_are_priced_over_an_observation_window():
    # the flow ends within about 1 ms; the window runs to 5 ms: idle hosts draw their idle power over all of it
    flows = {"workload": {"kind": "flows", "flows": [{"src": "S0", "dst": "S1", "size": "1MB"}]}}
    res = simulate({**_scenario("rotornet"), **flows, "run": {"window": ["0s", "5ms"]}}, progress=False)
    w = res.window_energy
    rows = {d["name"]: d for d in w.devices if d["kind"] == "node:host"}
    assert len(rows) == 16
    run_rows = {d["name"]: d for d in res.energy.devices if d["kind"] == "node:host"}
    # an idle host: the same power over the window as over the run, for the window's 5 ms
    assert rows["S9"]["avg_power_w"] == pytest.approx(run_rows["S9"]["avg_power_w"], rel=1e-9)
    assert rows["S9"]["energy_j"] == pytest.approx(rows["S9"]["avg_power_w"] * 5e-3, rel=1e-9)
    assert w.split["hosts_energy_j"] == pytest.approx(sum(d["energy_j"] for d in rows.values()), rel=1e-12)
    # the busy sender draws more than an idle host over the window
    assert rows["S0"]["energy_j"] > rows["S9"]["energy_j"]


def test_648_hosts_have_the_same_names_on_opera_rotornet_fat_trees_and_leaf_spines():
    from greendcn.sim.topology import build_topology

    def topo(t: dict, scheme: str):
        return scenario_from_dict({"topology": t, "routing": {"scheme": scheme}}).topology

    circuit = {"racks": 108, "circuit_switches": 6, "hosts_per_rack": 6}
    opera = endpoint_network(topo({"kind": "opera", **circuit}, "opera")).hosts
    rotornet = endpoint_network(
        topo({"kind": "rotornet", "racks": 108, "hosts_per_rack": 6}, "rotorlb")
    ).hosts
    tree = build_topology(topo({"kind": "fattree", "k": 12, "oversubscription": 1.5}, "ecmp")).hosts
    leafspine = build_topology(topo({"kind": "leafspine", "leaves": 108, "hosts_per_leaf": 6}, "ecmp")).hosts
    assert opera == rotornet == tree == leafspine == [f"S{i}" for i in range(648)]
    # 6 hosts under each circuit ToR (the k = 12 tree puts 9 under each edge switch, the leaf-spine 6 per leaf)
    assert endpoint_racks(topo({"kind": "opera", **circuit}, "opera")) == [h // 6 for h in range(648)]


@pytest.mark.parametrize("kind", ["rotornet", "selectornet", "opera"])
def test_the_ideal_fct_with_hosts_is_a_lower_bound_met_by_one_packet_on_an_idle_fabric(kind: str):
    # Ideal FCT with hosts (docs/metrics.md): the host links' serialization and delay are counted, so no idle
    # flow beats it; a one-packet datagram within a rack (host -> ToR -> host) meets it exactly, and on
    # SelectorNet, whose circuit to rack 4 is up at time 0 here, so does one between racks.
    cases = [("S4", "S5", "1000B"), ("S4", "S5", "1MB"), ("S0", "S9", "1000B"), ("S0", "S9", "100KB")]
    for src, dst, size in cases:
        wl = {"kind": "flows", "flows": [{"src": src, "dst": dst, "size": size}]}
        f = simulate({**_scenario(kind), "workload": wl}, progress=False).flows.iloc[0]
        assert f["slowdown"] >= 1 - 1e-12, (kind, src, dst, size)
        exact = size == "1000B" and (src == "S4" or kind == "selectornet") and kind != "opera"
        if exact:  # Opera's low-latency flows run TCP, not the datagrams the ideal counts: slightly above it
            assert f["fct_s"] == pytest.approx(f["ideal_fct_s"], rel=1e-9), (kind, src, dst)


def test_a_lone_ndp_flow_between_hosts_on_opera_reaches_its_host_links_rate():
    # One 2 MB NDP flow alone on an idle Opera with hosts. Its bound is the sender's 10 Gb/s host link: each
    # 1436-byte payload travels in 1436 + 64 (header) + 24 (framing) = 1524 wire bytes, so at most
    # 10 x 1436 / 1524 = 9.42 Gb/s of payload. Opera's reconfiguration does not lower it: a ToR has 4 uplinks
    # of 10 Gb/s and at most one reconfigures at a time, so its low-latency paths carry more than one host
    # link. NDP's ACKs and pulls go back to the sender's host; sent to the receiver's instead, they shared the
    # receiver's down link with the data (1524 + 2 x 88 bytes per packet: 8.4 Gb/s). The tolerance, 3 %, is
    # for the start (a first RTT of a few microseconds) and slice boundaries in a 1.7 ms transfer.
    size = 2_000_000
    sc = {
        **_scenario("opera"),
        "transport": {"default": "ndp"},
        "tcp": {"mss": 1436, "header_bytes": 64},
        "ndp": {"queue": "8pkt", "header_bytes": 64, "initial_window": 20},
        "workload": {"kind": "flows", "flows": [{"src": "S0", "dst": "S9", "size": f"{size}B"}]},
    }
    res = simulate(sc, progress=False)
    fl = res.flows.iloc[0]
    bound_bps = 10e9 * 1436 / (1436 + 64 + 24)
    rate = size * 8 / fl["fct_s"]
    assert fl["completed"] and fl["trims"] == 0
    assert 0.97 * bound_bps <= rate <= bound_bps, rate / bound_bps
    # each data packet the receiver got sent an ACK and a pull back to the sender's host (no pull after the
    # last: the receiver has every byte)
    hosts = res.hosts.set_index("host")
    assert hosts.loc["S0", "packets_received"] == 2 * fl["packets_received"] - 1
    assert hosts.loc["S9", "packets_received"] == fl["packets_received"]
    conserved(res.summary)
