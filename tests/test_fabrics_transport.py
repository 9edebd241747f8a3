"""`greendcn fabrics --transport`: every flow on every fabric with one transport; a fabric that cannot run it is
left out with the reason, never shown as if it had run it."""

from __future__ import annotations

import json

import pytest

from greendcn.core.errors import InputError
from greendcn.sim import fabrics
from greendcn.sim.fabrics import FabricsConfig, compare_fabrics, fabric_plan, outcome_notes, run_fabric

from conftest import assert_clean_error, run_greendcn

QUICK = {"racks": 8, "circuit_switches": 4, "size_bytes": 200_000}  # the command's --quick size


@pytest.mark.parametrize("transport", ["tcp", "ndp"])
def test_every_fabric_runs_the_transport_with_reliable_bulk_traffic(transport):
    # like for like: circuit fabrics' bulk traffic runs the transport too (transport.circuit_bulk =
    # "transport"; NDP's bulk packets pulled by the receiver, resent on a timeout), so no fabric is left out
    # and every flow of every fabric ran it and completed
    cfg = FabricsConfig(**QUICK, transport=transport)
    out = compare_fabrics(cfg)
    assert out["left_out"] == []
    assert sorted(r["fabric"] for r in out["fabrics"]) == sorted(p["fabric"] for p in fabric_plan(cfg))
    for r in out["fabrics"]:
        assert r["transport"] == transport and r["flows_completed"] == r["flows"] == 32, r["fabric"]
    assert {"rotornet", "selectornet", "opera"} <= {r["fabric"].split()[0].lower() for r in out["fabrics"]}
    assert out["config"]["transport"] == transport
    assert any(n.startswith(f"like for like: every flow in the table ran {transport}") for n in out["notes"])


def test_the_command_prints_the_transport_and_the_fabrics_left_out(tmp_path):
    doc_path = tmp_path / "f.json"
    out = run_greendcn(
        "energy", "fabrics", "--quick", "--transport", "dctcp", "--no-hosts", "--json", doc_path
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(doc_path.read_text())
    assert doc["config"]["transport"] == "dctcp" and doc["config"]["hosts_priced"] is False
    assert "every flow dctcp" in out.stdout and "host_%" not in out.stdout
    lines = out.stdout.splitlines()
    assert lines[1].split()[:2] == ["fabric", "transport"]
    for r, line in zip(doc["fabrics"], lines[2 : 2 + len(doc["fabrics"])]):
        assert line.split()[len(r["fabric"].split())] == "dctcp", line  # the transport column
    for x in doc["left_out"]:
        assert f"{x['fabric']} left out with --transport dctcp: {x['reason']}" in out.stdout
    for r in doc["fabrics"]:
        assert r["hosts_energy_j"] == 0 and r["transport"] == "dctcp"


def test_a_refusal_about_the_transport_leaves_the_fabric_out_and_any_other_error_stops(monkeypatch):
    cfg = FabricsConfig(**QUICK, transport="tcp")
    entry = fabric_plan(cfg)[0]

    def refuse(*_a, **_k):
        raise InputError("flows[0].transport: not on this fabric", loc=("transport", "default"))

    monkeypatch.setattr(fabrics, "run_one", refuse)
    left: list[dict[str, str]] = []
    assert run_fabric(entry, [], cfg, left) is None
    assert left == [{"fabric": entry["fabric"], "reason": "flows[0].transport: not on this fabric"}]

    def other(*_a, **_k):
        raise InputError("topology.racks: too few", loc=("topology", "racks"))

    monkeypatch.setattr(fabrics, "run_one", other)
    with pytest.raises(InputError, match="too few"):
        run_fabric(entry, [], cfg, left)

    # flows that ran another transport than asked (the engine's per-flow column) leave the fabric out too
    monkeypatch.setattr(fabrics, "run_one", lambda *_a, **_k: {"transport": "tcp 3 + datagram 29"})
    assert run_fabric(entry, [], cfg, left) is None
    assert "ran tcp 3 + datagram 29, not tcp" in left[-1]["reason"]
    # without --transport each fabric runs its own: nothing is left out
    monkeypatch.setattr(fabrics, "run_one", lambda *_a, **_k: {"transport": "datagram"})
    assert run_fabric(entry, [], FabricsConfig(**QUICK), left) == {"transport": "datagram"}


def test_incomplete_flows_are_explained():
    rows = [
        {"fabric": "rotornet", "flows": 48, "flows_completed": 41, "transport": "datagram", "drops": 90},
        {"fabric": "opera", "flows": 48, "flows_completed": 48, "transport": "tcp", "drops": 0},
    ]
    notes = outcome_notes(rows, [], None)
    assert notes == [
        "rotornet: 7 of 48 flows did not complete (run ended by completion, 90 packets dropped, datagrams are "
        "not retransmitted)"
    ]


def test_an_unknown_transport_is_refused_naming_the_option():
    assert_clean_error(run_greendcn("fabrics", "--quick", "--transport", "quic"), "transport", "quic")
