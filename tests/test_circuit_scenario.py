"""Scenarios on circuit fabrics: topology.kind = rotornet | selectornet runs the scenario's workload on the
circuit engine through `simulate` and `greendcn simulate`, priced with the fabric's devices, and bad fabric
settings are refused naming the scenario key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from greendcn.core.errors import InputError
from greendcn.sim.run import simulate

from conftest import assert_clean_error, run_greendcn

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "rotornet-permutation.toml"


def test_a_permutation_completes_on_rotornet_and_rotorlb_beats_one_hop():
    lb = simulate(SCENARIO, progress=False)
    one = simulate(SCENARIO, overrides=["routing.scheme=direct"], progress=False)
    assert lb.flows["fct_s"].notna().all() and one.flows["fct_s"].notna().all()
    assert lb.summary["fabric"] == "rotornet" and lb.summary["no_circuit_drops"] == 0
    # A permutation uses 1 of 7 circuits per rack directly; RotorLB lends the others: it must finish sooner.
    assert lb.flows["fct_s"].max() < one.flows["fct_s"].max() / 2
    e = lb.energy
    assert e.total_energy_j == pytest.approx(sum(d["energy_j"] for d in e.devices), rel=1e-12)
    assert e.avg_power_w == pytest.approx(2.7 + 8 * 90.5)  # selector v1 + 8 SN2700, seed 001 Table 2.1
    assert e.total_energy_j == pytest.approx(e.avg_power_w * lb.summary["sim_time_s"], rel=1e-12)


def test_the_same_file_runs_on_selectornet_with_set():
    res = simulate(
        SCENARIO, overrides=["topology.kind=selectornet", "routing.scheme=selector"], progress=False
    )
    assert res.flows["fct_s"].notna().all()
    assert res.summary["fabric"] == "selectornet"
    assert res.summary["relayed_packets"] > 0  # offsets with several bits go through relays


def test_simulate_command_prints_and_writes_json(tmp_path):
    out = run_greendcn("simulate", SCENARIO, "--json", tmp_path / "r.json")
    assert out.returncode == 0, out.stderr
    assert "routing rotorlb" in out.stdout and "pJ per delivered bit" in out.stdout
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["summary"]["fabric"] == "rotornet"
    assert doc["energy"]["total_energy_j"] > 0


@pytest.mark.parametrize(
    "sets, words",
    [
        (["routing.scheme=single"], ["routing.scheme", "rotornet"]),
        (["topology.guard=300us"], ["topology.guard", "not shorter"]),
        (["topology.kind=selectornet", "routing.scheme=selector", "topology.racks=12"], ["topology.racks"]),
        (["topology.racks=7"], ["topology.racks"]),
        (["topology.circuit_switch=nosuch"], ["topology.circuit_switch"]),
        (["topology.circuit_switches=3"], ["topology.circuit_switches"]),
    ],
)
def test_bad_fabric_settings_name_the_key(sets, words):
    out = run_greendcn("simulate", SCENARIO, *[a for s in sets for a in ("--set", s)])
    assert_clean_error(out, *words)


def test_a_packet_switched_scheme_is_refused_on_a_circuit_fabric_in_the_api():
    with pytest.raises(InputError) as e:
        simulate(SCENARIO, overrides=["routing.scheme=ecmp"], progress=False)
    assert e.value.loc == ("routing", "scheme")


@pytest.mark.parametrize(
    ("kind", "scheme"), [("rotornet", "rotorlb"), ("selectornet", "selector"), ("opera", "opera")]
)
def test_routing_unset_on_a_circuit_fabric_is_the_fabrics_own(kind, scheme):
    from greendcn.sim.scenario import scenario_from_dict

    topo = {"kind": kind, "racks": 8, "circuit_switches": 2 if kind == "selectornet" else 4}
    assert scenario_from_dict({"topology": topo}).routing.scheme == scheme
    # a [routing] table without a scheme too; a scheme that is set is kept, or refused if it does not fit
    assert (
        scenario_from_dict({"topology": topo, "routing": {"single_path": "first"}}).routing.scheme == scheme
    )
    assert scenario_from_dict({"topology": {"kind": "fattree"}}).routing.scheme == "single"
    with pytest.raises(InputError) as e:
        scenario_from_dict({"topology": topo, "routing": {"scheme": "single"}})
    assert e.value.loc == ("routing", "scheme")


OPERA_MIXED = Path(__file__).resolve().parent.parent / "scenarios" / "opera-mixed.toml"


def test_ndp_runs_on_operas_low_latency_class_and_bulk_stays_datagrams():
    # The short flows' class runs NDP: each finishes, counted in the columns the packet engine reports; the
    # long (bulk) flows stay RotorLB datagrams (1 MB above a 500 KB cutoff here, to keep the run short).
    res = simulate(
        OPERA_MIXED,
        overrides=[
            "transport.classes.short=ndp",
            "workload.long_size=1MB",
            "topology.cutoff=500KB",
            "ndp.queue=2pkt",
        ],
        progress=False,
    )
    fl = res.flows
    short, long_ = fl[fl["class"] == "short"], fl[fl["class"] == "long"]
    assert set(short["transport"]) == {"ndp"} and set(long_["transport"]) == {"datagram"}
    assert short["fct_s"].notna().all() and (short["timeouts"] == 0).all()
    # a 2-packet data queue trims the initial windows; each trimmed packet is resent once
    assert short["trims"].sum() > 0
    assert (short["retransmits"] == short["trims"]).all()
    assert (long_["trims"] == 0).all()
    assert res.summary["transport"] == "ndp for Opera's low-latency class, datagrams for bulk"


def test_dctcp_runs_on_operas_low_latency_class():
    res = simulate(
        OPERA_MIXED,
        overrides=[
            "transport.classes.short=dctcp",
            "workload.long_size=1MB",
            "topology.cutoff=500KB",
            "dctcp.k=2",
        ],
        progress=False,
    )
    short = res.flows[res.flows["class"] == "short"]
    assert set(short["transport"]) == {"dctcp"} and short["fct_s"].notna().all()
    assert short["ecn_marks"].sum() > 0  # K = 2 packets on the uplinks' low-latency queues


def test_bulk_tcp_on_rotornet_is_asked_for_and_stays_datagrams_by_default():
    # transport.circuit_bulk = "transport": every bulk flow runs TCP from its source ToR's queue, ACKed back
    # over the circuits, one ACK per segment received (the engine's tests force losses in the gaps); the
    # default keeps RotorLB's datagrams.
    sets = ["workload.size=300KB"]
    tcp = simulate(SCENARIO, overrides=[*sets, "transport.circuit_bulk=transport"], progress=False)
    fl = tcp.flows
    assert set(fl["transport"]) == {"tcp"} and fl["fct_s"].notna().all()
    assert (fl["acks_sent"] == fl["packets_received"]).all()
    assert tcp.summary["transport"] == "tcp for bulk (from each source ToR's queue, sent again when lost)"
    dg = simulate(SCENARIO, overrides=sets, progress=False)
    assert set(dg.flows["transport"]) == {"datagram"}
    assert dg.summary["transport"].startswith("datagram")


@pytest.mark.parametrize(
    "sets, words",
    [
        (["transport.circuit_bulk=reliable"], ["transport.circuit_bulk"]),
        (["transport.default=ndp"], ["transport.default", "ndp", "transport.circuit_bulk"]),
        (["transport.default=dctcp"], ["transport.default", "dctcp"]),
        (
            [
                "transport.circuit_bulk=transport",
                "transport.default=dctcp",
                "dctcp.k=600",
                "topology.queue=500pkt",
            ],
            ["dctcp.k"],
        ),
    ],
)
def test_bad_bulk_transport_settings_name_the_key(sets, words):
    out = run_greendcn("simulate", SCENARIO, *[a for s in sets for a in ("--set", s)])
    assert_clean_error(out, *words)


def test_operas_bulk_class_runs_tcp_when_asked():
    # the long (bulk) flows go by RotorLB from their source ToR's queue as TCP, ACKed on the low-latency class
    res = simulate(
        OPERA_MIXED,
        overrides=["transport.circuit_bulk=transport", "workload.long_size=1MB", "topology.cutoff=500KB"],
        progress=False,
    )
    fl = res.flows
    long_ = fl[fl["class"] == "long"]
    assert len(long_) > 0 and set(fl["transport"]) == {"tcp"} and fl["fct_s"].notna().all()
    assert (long_["acks_sent"] == long_["packets_received"]).all()
    assert res.summary["transport"] == "tcp for Opera's low-latency class, tcp for bulk"


def test_bulk_ndp_runs_on_rotornet_and_operas_bulk_class_when_asked():
    # NDP on bulk traffic: the initial window into the source ToR's queue, then one packet per pull; the
    # receivers' ACKs and pulls come back over the circuits (RotorNet) or Opera's low-latency class
    ndp = simulate(
        SCENARIO,
        overrides=["workload.size=300KB", "transport.circuit_bulk=transport", "transport.default=ndp"],
        progress=False,
    )
    fl = ndp.flows
    assert set(fl["transport"]) == {"ndp"} and fl["fct_s"].notna().all()
    assert (fl["trims"] == 0).all() and (fl["acks_sent"] == fl["packets_received"]).all()
    assert ndp.summary["transport"] == "ndp for bulk (from each source ToR's queue, sent again when lost)"
    res = simulate(
        OPERA_MIXED,
        overrides=[
            "transport.circuit_bulk=transport",
            "transport.default=ndp",
            "workload.long_size=1MB",
            "topology.cutoff=500KB",
        ],
        progress=False,
    )
    fl = res.flows
    assert (fl["class"] == "long").any() and set(fl["transport"]) == {"ndp"} and fl["fct_s"].notna().all()
    assert res.summary["transport"] == "ndp for Opera's low-latency class, ndp for bulk"
