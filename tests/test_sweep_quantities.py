"""A store with numbers: parameters written with units get a typed column in SI units beside the text, so SQL
and the report sort them by value; summaries carry the energy split and FCT percentiles; the report prints
values with their units."""

from __future__ import annotations

import pytest
from sweep_fixtures import STATIC, write_spec

import greendcn.sweep
from greendcn.sweep.driver import run_sweep
from greendcn.sweep.quantities import format_value, quantity_columns
from greendcn.sweep.report import write_report


@pytest.mark.parametrize(
    "value, column, number",
    [
        ("50pkt", "q_pkt", 50.0),
        ("10Gbps", "q_bps", 1e10),
        ("1000Bps", "q_bps", 8000.0),
        ("25us", "q_s", 25e-6),
        ("1.5MB", "q_bytes", 1.5e6),
        ("128KiB", "q_bytes", 131072.0),
        ("1.5Mpps", "q_pps", 1.5e6),
    ],
)
def test_a_value_with_a_unit_becomes_a_number_in_si_units(value, column, number):
    assert quantity_columns("q", value) == {column: pytest.approx(number)}


def test_values_without_a_unit_get_no_typed_column():
    assert quantity_columns("q", "rps") == {} and quantity_columns("q", 3) == {}
    assert quantity_columns("q", "unlimited") == {}


def test_numbers_print_with_their_units():
    assert format_value("throughput_bps", 1.94e10) == "19.4 Gbps"
    assert format_value("fct_p99_s", 0.0012) == "1.2 ms"
    assert format_value("topology.queue_pkt", 50.0) == "50 pkt"


def test_the_store_sorts_queues_by_value_and_keeps_the_split(tmp_path):
    spec = write_spec(
        tmp_path,
        f"""
[sweep]
name = "queues"
scenario = "{STATIC}"

[base]
"workload.long_size" = "200KB"
"workload.long_flows" = 2

[axes]
"topology.queue" = ["200pkt", "50pkt", "100pkt"]
""",
    )
    run_sweep(spec, store=tmp_path / "q.duckdb", workers=1, progress=False)
    res = greendcn.sweep.open(tmp_path / "q.duckdb")
    by_value = res.query('SELECT "topology.queue" FROM runs ORDER BY "topology.queue_pkt"')
    assert list(by_value["topology.queue"]) == [
        "50pkt",
        "100pkt",
        "200pkt",
    ]  # text order would be 100, 200, 50
    types = res.query(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'runs'"
    )
    assert dict(zip(types["column_name"], types["data_type"]))["topology.queue_pkt"] == "DOUBLE"
    s = res.summaries
    for col in ("hosts_energy_j", "switches_energy_j", "links_energy_j", "fct_p50_s", "fct_p99_s"):
        assert s[col].notna().all(), col
    parts = s["hosts_energy_j"] + s["switches_energy_j"] + s["links_energy_j"]
    assert parts.to_numpy() == pytest.approx(s["energy_j"].to_numpy(), rel=1e-9)
    write_report(tmp_path / "q.duckdb", tmp_path / "q.html")
    page = (tmp_path / "q.html").read_text()
    assert "50 pkt, 100 pkt, 200 pkt" in page  # the parameter table, in numeric order, with units
    assert " Gbps" in page or " Mbps" in page  # throughput with its unit, not raw bits per second
