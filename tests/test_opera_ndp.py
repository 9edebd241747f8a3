"""NDP on Opera with hosts as the public Opera simulator runs it (docs/circuit-engine.md, routing "opera"): the
ToR's port down to a host trims NDP data at ndp.queue instead of dropping it, a receiver's pulls are paced
per host (shared by its flows) or per flow (ndp.pull_pacer), NDP's packets spray over every shortest path of
the slice, and host links take topology.host_link_delay. Small networks, a few flows each."""

from __future__ import annotations

import json

import numpy as np
import pytest

from greendcn.core.errors import InputError
from greendcn.sim.engine import run_circuit_spec
from greendcn.sim.optical.opera_routes import next_switch_table, spray_table
from greendcn.sim.run import simulate
from greendcn.sim.scenario import scenario_from_dict
from greendcn.sim.topology.opera import OperaParams, build_opera
from opera_fixtures import TOPOLOGY, ndp_scenario


def two_to_one(size: str) -> list[dict]:
    # two flows from two racks to one host, starting together
    return [{"src": "S0", "dst": "S9", "size": size}, {"src": "S2", "dst": "S9", "size": size}]


def test_ndp_data_is_trimmed_at_the_tors_port_down_to_a_host_and_counted():
    # Two flows to S9, each with its own pull pacer at S9's link rate: together they pull twice what S9's
    # link carries, so the ToR's port down to S9 fills to ndp.queue (8 packets of data) and trims the rest
    # to headers, which the receiver NACKs and the senders resend. Nothing is dropped (the port's drop-tail
    # limit, topology.queue, is 500 packets and never reached), every trim is counted at the port and in
    # the flow's `trims` (the port's share is the flows' total here: the uplinks carry one flow each at
    # most at the link rate), and both flows complete.
    res = simulate(ndp_scenario(two_to_one("600KB"), pacing="flow"), progress=False)
    fl = res.flows
    hosts = res.hosts.set_index("host")
    assert fl["completed"].all()
    assert hosts.loc["S9", "tor_trims"] > 0
    assert hosts["tor_trims"].sum() == hosts.loc["S9", "tor_trims"]  # only S9's port is oversubscribed
    assert fl["trims"].sum() >= hosts.loc["S9", "tor_trims"]
    assert res.summary["host_link_drops"] == 0
    assert (fl["retransmits"] > 0).all()  # each flow resent what was trimmed


def test_a_receivers_pull_pacer_paces_its_flows_together_at_its_link_rate():
    # The same two flows with one pacer at S9 shared by both (the default, ndp.pull_pacer = "host"), each
    # with an initial window of 12 packets (more than the round trip holds, so the link can be kept busy):
    # after the first windows, the pulls leave S9 one full packet's time apart (1436 + 64 bytes at 10 Gb/s,
    # no framing here), so data reaches S9's port no faster than the port sends it. Only the first windows
    # meet a full port: the trims are at most 2 x 12 - 8 and the same for 600 KB and 1.2 MB flows. S9's link
    # is then busy with data: the last flow ends within 3 % above both flows' serialisation at 10 Gb/s (the
    # bound; the margin is the first round trip and the last packet's way back). With a pacer per flow the
    # two pull twice what the link carries and the port trims all along, more for longer flows.
    trims = {}
    for size in (600_000, 1_200_000):
        res = simulate(
            ndp_scenario(two_to_one(f"{size}B"), pacing="host", window=12, frame_overhead=0),
            progress=False,
        )
        assert res.flows["completed"].all()
        trims[size] = res.hosts.set_index("host").loc["S9", "tor_trims"]
        bound_s = 2 * -(-size // 1436) * 1500 * 8 / 10e9
        last = res.flows["fct_s"].max()
        assert bound_s <= last <= 1.03 * bound_s, (size, last / bound_s)
    assert trims[600_000] == trims[1_200_000] <= 2 * 12 - 8
    per_flow = simulate(
        ndp_scenario(two_to_one("600000B"), pacing="flow", window=12, frame_overhead=0), progress=False
    )
    assert per_flow.hosts.set_index("host").loc["S9", "tor_trims"] > 10 * max(1, trims[600_000])


def test_a_nack_after_everything_was_sent_is_answered_at_once():
    # Fourteen 10 KB flows from other hosts into S15, beside a 1 MB flow: the ToR's port down to S15 trims
    # their packets, and their NACKs and pulls spray over different paths, so a pull can overtake its NACK
    # and find nothing to send. A sender that has sent every packet resends a NACKed one at once (as the
    # public Opera simulator's, src/opera/ndp.cpp lines 252-258); waiting for a pull there left a flow to its
    # last-resort timer (200 ms here, tcp.min_rto's default). So: trims, yet no timeout, and every flow ends
    # within 1 ms.
    flows = [{"src": f"S{i}", "dst": "S15", "size": "10KB"} for i in range(14)]
    flows.append({"src": "S14", "dst": "S1", "size": "1MB"})
    res = simulate(ndp_scenario(flows, pacing="flow"), progress=False)
    fl = res.flows
    assert fl["completed"].all() and fl["trims"].sum() > 0
    assert fl["timeouts"].sum() == 0
    assert fl["fct_s"].max() < 1e-3


def test_ndp_packets_spray_over_every_shortest_path_of_the_slice():
    # The spray table marks every switch whose circuit starts a shortest path; next_switch's choice is one of
    # them, and a pair with one path has one bit.
    sched = build_opera(OperaParams(racks=8, switches=4, reconfig_s=10e-6))
    nxt, spray = next_switch_table(sched), spray_table(sched)
    has = nxt != 255
    assert np.array_equal(spray != 0, has)
    assert np.all((spray[has] >> nxt[has].astype(np.uint64)) & np.uint64(1) == 1)
    counts = np.vectorize(lambda m: bin(int(m)).count("1"))(spray[has])
    assert counts.max() > 1  # some pairs have several first hops to spray over
    # A lone flow between racks with several first hops: its packets leave by more than one uplink of the
    # source ToR (the single-path routing uses one per slice), and it completes with nothing dropped.
    src_rack, dst_rack = next((a, b) for a in range(8) for b in range(8) if counts_at(spray, a, b) > 1)
    flows = [{"src": f"S{2 * src_rack}", "dst": f"S{2 * dst_rack}", "size": "300KB"}]
    res = simulate(ndp_scenario(flows), progress=False)
    ports = res.links
    used = ports[(ports["from"] == f"R{src_rack}") & (ports["packets_sent"] > 0)]
    assert res.flows["completed"].all() and res.summary["host_link_drops"] == 0
    assert len(used) > 1


def counts_at(spray: np.ndarray, a: int, b: int) -> int:
    """Fewest first hops from rack a to rack b over the slices (the slice 0 .. end of a short run)."""
    return min(bin(int(m)).count("1") for m in spray[:2, a, b]) if a != b else 0


def test_spraying_is_deterministic_and_only_ndp_sprays():
    # Same scenario and seed, same results bit for bit (the draws come from the run's seeded generator). TCP's
    # flows on the same network keep one path (no spray table is built for them) and nothing is trimmed.
    sc = ndp_scenario(two_to_one("200KB"))
    a, b = (simulate(sc, progress=False) for _ in range(2))
    assert a.flows["fct_s"].tolist() == b.flows["fct_s"].tolist()
    assert a.summary["events"] == b.summary["events"]
    tcp = simulate({**sc, "transport": {"default": "tcp"}}, progress=False)
    assert tcp.flows["completed"].all() and tcp.flows["trims"].sum() == 0


def test_host_links_take_host_link_delay_on_a_circuit_fabric():
    # topology.host_link_delay sets the host links alone: 0 ns there makes a one-packet flow arrive
    # 2 x 500 ns sooner (its two host links), and the ideal FCT follows, so the slowdown is unchanged.
    flows = [{"src": "S0", "dst": "S1", "size": "1000B"}]  # within a rack: host -> ToR -> host
    a = simulate(ndp_scenario(flows), progress=False).flows.iloc[0]
    b = simulate(ndp_scenario(flows, host_link_delay="0ns"), progress=False).flows.iloc[0]
    assert a["fct_s"] - b["fct_s"] == pytest.approx(1e-6, abs=1e-12)
    assert a["ideal_fct_s"] - b["ideal_fct_s"] == pytest.approx(1e-6, abs=1e-12)
    with pytest.raises(InputError, match="topology.host_link_delay"):
        scenario_from_dict({"topology": {**TOPOLOGY, "hosts_per_rack": None, "host_link_delay": "0ns"}})


def test_the_engine_refuses_a_spray_table_that_does_not_match_next_switch():
    sched = build_opera(OperaParams(racks=8, switches=4, reconfig_s=10e-6))
    from greendcn.sim.optical.opera_fabric import opera_fabric, slice_ps
    from greendcn.sim.optical.opera_routes import opera_spec_table
    from greendcn.sim.optical.packet import circuit_spec

    opera = opera_spec_table(sched, slice_ps(sched), 10**9, spray=True)
    opera["spray"][1] = 0 if opera["next_switch"][1] != 255 else 1
    spec = circuit_spec(
        opera_fabric(sched, 10**10),
        [{"src": 0, "dst": 1, "size_bytes": 1000, "transport": "ndp"}],
        "opera",
        opera=opera,
    )
    with pytest.raises(InputError, match=r"opera\.spray\[1\]"):
        run_circuit_spec(json.loads(json.dumps(spec)))  # through JSON, as the engine reads it
