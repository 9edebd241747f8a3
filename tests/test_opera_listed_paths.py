"""Listed paths on Opera (routing.opera_paths, docs/circuit-engine.md, routing "opera"): NDP's packets each take
one of up to k paths listed per slice and rack pair, longer ones included, drawn from the run's seeded
generator and followed switch by switch. Small networks, one flow or two each."""

from __future__ import annotations

import json

import pytest

from greendcn.core.errors import InputError
from greendcn.sim.engine import run_circuit_spec
from greendcn.sim.optical.opera_routes import NO_CIRCUIT, circuit_table
from greendcn.sim.run import simulate
from greendcn.sim.scenario import scenario_from_dict
from greendcn.sim.topology.opera import OperaParams, build_opera
from opera_fixtures import TOPOLOGY, ndp_scenario


def scenario(flows: list[dict], paths: int | None) -> dict:
    return ndp_scenario(flows, paths=paths)


ONE = [{"src": "S0", "dst": "S4", "size": "300KB"}]  # rack 0 to rack 2


def test_listed_paths_take_longer_paths_than_the_shortest_and_still_arrive():
    # Spraying keeps every packet on a shortest path; with 5 listed paths per pair some packets take longer
    # ones (more packet-hops for the same packets delivered), leave the source ToR by more uplinks, and the
    # flow still completes with nothing dropped or lost for want of a path.
    sprayed = simulate(scenario(ONE, None), progress=False)
    listed = simulate(scenario(ONE, 5), progress=False)
    for res in (sprayed, listed):
        assert res.flows["completed"].all()
        assert res.summary["host_link_drops"] == 0 and res.summary["no_path_drops"] == 0
    assert listed.summary["packet_hops"] > sprayed.summary["packet_hops"]
    # k = 1 lists the shortest path alone: never more hops than spraying over shortest first hops
    single = simulate(scenario(ONE, 1), progress=False)
    assert single.flows["completed"].all()
    assert single.summary["packet_hops"] <= sprayed.summary["packet_hops"]

    def uplinks(res):
        links = res.links
        return int(((links["from"] == "R0") & (links["packets_sent"] > 0)).sum())

    assert uplinks(listed) >= uplinks(single)


def test_listed_paths_are_deterministic_and_zero_is_the_default():
    flows = [{"src": "S0", "dst": "S9", "size": "200KB"}, {"src": "S2", "dst": "S9", "size": "200KB"}]
    a, b = (simulate(scenario(flows, 5), progress=False) for _ in range(2))
    assert a.flows["fct_s"].tolist() == b.flows["fct_s"].tolist()
    assert a.summary["events"] == b.summary["events"] and a.summary["packet_hops"] == b.summary["packet_hops"]
    # routing.opera_paths = 0 is today's routing, result for result
    zero, absent = (
        simulate(scenario(flows, 0), progress=False),
        simulate(scenario(flows, None), progress=False),
    )
    assert zero.flows["fct_s"].tolist() == absent.flows["fct_s"].tolist()
    assert zero.summary["events"] == absent.summary["events"]


def test_the_circuit_table_holds_each_slices_low_latency_circuits():
    sched = build_opera(OperaParams(racks=8, switches=4, reconfig_s=10e-6))
    table = circuit_table(sched)
    assert table.shape == (sched.slices, 8, 4)
    for t in range(sched.slices):
        down = sched.reconfiguring(t)
        assert (table[t, :, down] == NO_CIRCUIT).all()  # the reconfiguring switch carries none
        for s in range(4):
            row = table[t, :, s]
            ends = [(a, int(b)) for a, b in enumerate(row) if b != NO_CIRCUIT]
            assert all(b != a and row[b] == a for a, b in ends)  # circuits go both ways, none to oneself
            assert len(ends) > 0 or s == down


def test_bad_listed_paths_are_refused_naming_the_key():
    with pytest.raises(InputError, match="routing.opera_paths"):
        scenario_from_dict({"topology": {"kind": "rotornet", "racks": 8}, "routing": {"opera_paths": 5}})
    with pytest.raises(InputError, match="routing.opera_paths"):
        scenario_from_dict({"topology": TOPOLOGY, "routing": {"scheme": "opera", "opera_paths": -1}})
    from greendcn.sim.optical.opera_fabric import opera_fabric, slice_ps
    from greendcn.sim.optical.opera_routes import opera_spec_table
    from greendcn.sim.optical.packet import circuit_spec

    sched = build_opera(OperaParams(racks=8, switches=4, reconfig_s=10e-6))
    opera = opera_spec_table(sched, slice_ps(sched), 10**9, spray=True, paths=5)
    del opera["circuits"]
    spec = circuit_spec(
        opera_fabric(sched, 10**10),
        [{"src": 0, "dst": 1, "size_bytes": 1000, "transport": "ndp"}],
        "opera",
        opera=opera,
    )
    with pytest.raises(InputError, match=r"opera\.circuits"):
        run_circuit_spec(json.loads(json.dumps(spec)))


@pytest.mark.parametrize("racks,switches,k", [(8, 4, 5), (24, 6, 5), (24, 6, 2)])
def test_the_engine_lists_the_same_paths_as_the_python_listing(racks, switches, k):
    # The engine's listing (crates/engine/src/circuit/opera_paths.rs) and the Python one used for analysis
    # (sim/topology/opera_paths.py) are two implementations of one choice: the same paths in the same order,
    # for every rack pair of every slice checked. The engine's paths are switch sequences; followed over the
    # slice's circuits they must give the Python listing's rack sequences exactly.
    from greendcn import _native
    from greendcn.sim.topology.opera_paths import listed_paths

    sched = build_opera(OperaParams(racks=racks, switches=switches, reconfig_s=10e-6, search_moves=50))
    table = circuit_table(sched)
    longer = 0
    for t in range(0, sched.slices, max(1, sched.slices // 4)):
        engine = _native._opera_listed_paths(k, racks, switches, table[t].ravel().tolist())
        for a in range(racks):
            for b in range(racks):
                expected = listed_paths(sched, t, a, b, k=k)
                got = []
                for path in engine[a * racks + b]:
                    seq = [a]
                    for sw in path:
                        nxt = int(table[t, seq[-1], sw])
                        assert nxt != NO_CIRCUIT, f"slice {t}: path {path} leaves {seq[-1]} by a dark switch"
                        seq.append(nxt)
                    got.append(seq)
                assert got == expected, f"slice {t}, racks {a} -> {b}"
                longer += bool(got) and len(got[-1]) > len(got[0])
    assert longer > 0, "the check covered listed paths longer than the shortest"
