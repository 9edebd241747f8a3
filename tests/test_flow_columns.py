"""Both engines report the same per-flow columns, counted the same way (docs/engine-spec.md, per-flow columns)."""

from pathlib import Path

from greendcn.sim import simulate

OPERA = Path(__file__).resolve().parent.parent / "scenarios" / "opera-mixed.toml"
WORKLOAD = ["workload.long_flows=0", "workload.short_flows=6", "workload.short_size=30KB"]
SHARED = [
    "retransmits",
    "fast_retransmits",
    "timeouts",
    "spurious_retransmits",
    "acks_sent",
    "ooo_packets",
    "ecn_marks",
    "trims",
    "packets_received",
    "data_packets_sent",
    "transport",
]


def test_the_same_workload_on_both_engines_has_the_same_columns():
    circuit = simulate(OPERA, overrides=WORKLOAD, seed=2, progress=False).flows
    packet = simulate(
        {"topology": {"kind": "fattree", "k": 4}, "workload": {"kind": "random"}},
        overrides=WORKLOAD,
        seed=2,
        progress=False,
    ).flows
    for col in SHARED:
        assert col in circuit.columns and col in packet.columns, col
    assert len(circuit) == len(packet) == 6
    for fl in (circuit, packet):
        tcp = fl[fl["transport"] == "tcp"]
        assert len(tcp) > 0
        # every segment counted once at the receiver, every retransmission at the sender
        assert (tcp["acks_sent"] > 0).all()
        assert (tcp["spurious_retransmits"] <= tcp["retransmits"]).all()
        assert (fl["ecn_marks"] == 0).all() and (fl["trims"] == 0).all()
    # On circuits every segment is acknowledged at once (no delayed ACKs there).
    ll = circuit[circuit["transport"] == "tcp"]
    assert (ll["acks_sent"] == ll["packets_received"]).all()
