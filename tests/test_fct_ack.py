"""The per-flow FCT at the sender (`fct_ack_s`, docs/metrics.md): it crosses the binding from both engines
(packet and circuit fabrics, the JSON records and the column buffers alike), reaches the result table, --json
and Parquet, equals the receiver's FCT plus the last ACK's trip back on an idle path, and is NaN for datagram
flows, which have no ACKs. One flow or two on tiny networks: well under a second each."""

from __future__ import annotations

import json

import numpy as np
import pytest

from greendcn.sim.run import simulate

PS = 1e-12


def one_switch(transport: str, size: str = "30KB") -> dict:
    # hosts S0 and S1 under one edge switch of a k = 4 fat-tree: S0 -> E0 -> S1, 10 Gb/s and 1 us a link
    udp = {"transport": "udp", "rate": "1Gbps"} if transport == "udp" else {}
    flow = {"src": 0, "dst": 1, "size": size, **udp}
    return {
        "topology": {
            "kind": "fattree",
            "k": 4,
            "link_rate": "10Gbps",
            "link_delay": "1us",
            "frame_overhead": 0,
        },
        "transport": {"default": "tcp" if transport == "udp" else transport},
        "tcp": {"header_bytes": 52, "mss": 1448},
        "ndp": {"header_bytes": 64},
        "workload": {"kind": "flows", "flows": [flow]},
    }


ONE_SWITCH_TOML = """
[topology]
kind = "fattree"
k = 4
link_rate = "10Gbps"
link_delay = "1us"
frame_overhead = 0
[tcp]
header_bytes = 52
mss = 1448
[workload]
kind = "flows"
flows = [{src = 0, dst = 1, size = "30KB"}]
"""


@pytest.mark.parametrize(("transport", "header"), [("tcp", 52), ("dctcp", 52), ("ndp", 64)])
def test_the_sender_ends_one_ack_trip_after_the_receiver_on_a_packet_fabric(transport, header):
    f = simulate(one_switch(transport), progress=False).flows.iloc[0]
    # the ACK crosses two idle links back: its header's serialisation (800 ps a byte) and 1 us on each
    ack_trip = 2 * (header * 800 + 1_000_000) * PS
    assert f["fct_ack_s"] == pytest.approx(f["fct_s"] + ack_trip, abs=1e-15)


def test_a_datagram_flow_has_no_sender_side_completion():
    f = simulate(one_switch("udp"), progress=False).flows.iloc[0]
    assert f["completed"] and np.isnan(f["fct_ack_s"])


def test_the_column_reaches_json_and_parquet_from_the_records_path_too(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    from greendcn.cli import main

    sc = tmp_path / "one.toml"
    sc.write_text(ONE_SWITCH_TOML)
    try:
        main(["simulate", str(sc), "--json", str(tmp_path / "o.json"), "--parquet", str(tmp_path / "pq")])
    except SystemExit as e:
        assert not e.code
    got = json.loads((tmp_path / "o.json").read_text())["flows"][0]
    assert got["fct_ack_s"] > got["fct_s"] > 0
    table = pq.read_table(tmp_path / "pq" / "flows.parquet").to_pydict()
    assert table["fct_ack_s"] == [got["fct_ack_s"]]
    # the engine's JSON records (no column buffers) give the same value
    import greendcn.sim.engine as engine

    monkeypatch.setattr(engine, "run_spec_columns", engine.run_spec)
    again = simulate(one_switch("tcp"), progress=False).flows.iloc[0]
    assert again["fct_ack_s"] == got["fct_ack_s"]


def test_circuit_fabric_flows_carry_it_too():
    # Opera, 8 racks of 2 hosts: an NDP flow across racks and a datagram flow (above the cutoff: bulk)
    sc = {
        "topology": {
            "kind": "opera",
            "racks": 8,
            "circuit_switches": 4,
            "hosts_per_rack": 2,
            "cutoff": "1MB",
        },
        "routing": {"scheme": "opera"},
        "transport": {"default": "ndp"},
        "workload": {
            "kind": "flows",
            "flows": [{"src": "S0", "dst": "S9", "size": "50KB"}, {"src": "S2", "dst": "S5", "size": "2MB"}],
        },
    }
    fl = simulate(sc, progress=False).flows.set_index("src")
    assert fl["completed"].all()
    assert fl.loc["S0", "transport"] == "ndp" and fl.loc["S0", "fct_ack_s"] > fl.loc["S0", "fct_s"]
    assert fl.loc["S2", "transport"] == "datagram" and np.isnan(fl.loc["S2", "fct_ack_s"])
