"""The binding layer: JSON in and out, errors as Python exceptions, a Rust panic never aborts the interpreter."""

import json

import pytest

from greendcn import EngineCrash, EngineInputError, _native
from greendcn.sim.engine import run_spec

GBPS = 10**9
US = 10**6


def two_hosts(**extra):
    nodes = [{"name": "h0", "kind": "host"}, {"name": "h1", "kind": "host"}, {"name": "sw", "kind": "switch"}]
    links = [
        {"a": 0, "b": 2, "rate_bps": GBPS, "delay_ps": 10 * US},
        {"a": 1, "b": 2, "rate_bps": GBPS, "delay_ps": 10 * US},
    ]
    spec = {
        "routing": "single",
        "nodes": nodes,
        "links": links,
        "flows": [{"id": 7, "src": 0, "dst": 1, "size_bytes": 1_000_000}],
    }
    spec.update(extra)
    return spec


def test_a_run_returns_the_documented_tables_and_conserves_packets():
    r = run_spec(two_hosts())
    assert set(r) == {"flows", "links", "nodes", "summary", "series"}
    (flow,) = r["flows"]
    assert flow["id"] == 7 and flow["completed"] and flow["bytes_received"] == 1_000_000
    assert len(r["links"]) == 4 and [l["dir"] for l in r["links"]] == [0, 1, 2, 3]
    s = r["summary"]
    assert s["packets_created"] == s["packets_delivered"] + s["drops"] + s["packets_in_flight"]
    assert s["packet_hops"] == sum(l["packets_sent"] for l in r["links"])


def test_windows_of_link_bytes_add_up_to_the_link_counters():
    r = run_spec(two_hosts(stats_window_ps=1_000_000_000))
    series = r["series"]
    assert series["window_ps"] == 1_000_000_000
    for link, row in zip(r["links"], series["link_bytes"]):
        assert sum(row) == link["bytes_sent"]
    hosts = [n for n in r["nodes"] if n["kind"] == "host"]
    for n, sent, received in zip(hosts, series["host_packets_sent"], series["host_packets_received"]):
        assert sum(sent) == n["packets_sent"] and sum(received) == n["packets_received"]
    assert sum(map(sum, series["host_bytes_received"])) > 1_000_000  # the flow's payload and headers


def test_same_spec_same_results_apart_from_wall_time():
    a, b = run_spec(two_hosts(routing="rps")), run_spec(two_hosts(routing="rps"))
    a["summary"].pop("wall_s"), b["summary"].pop("wall_s")
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@pytest.mark.parametrize(
    "change,field",
    [
        ({"routing": "sprinkle"}, "routing"),
        ({"bogus": 1}, "bogus"),
        ({"flows": [{"id": 0, "src": 0, "dst": 2, "size_bytes": 10}]}, "flows[0].dst"),
        ({"flows": [{"id": 0, "src": 0, "dst": 1, "size_bytes": 0}]}, "flows[0].size_bytes"),
    ],
)
def test_bad_specs_raise_input_errors_naming_the_field(change, field):
    with pytest.raises(EngineInputError, match=field.replace("[", r"\[").replace("]", r"\]")):
        run_spec(two_hosts(**change))


@pytest.mark.parametrize(
    "change,engine_loc,scenario_loc",
    [
        (
            {"flows": [{"id": 0, "src": 0, "dst": 1, "size_bytes": 0}]},
            ("flows", 0, "size_bytes"),
            ("workload", "flows", 0, "size"),
        ),
        ({"stats_window_ps": 0}, ("stats_window_ps",), ("power", "window")),
        ({"routing": "sprinkle"}, ("routing",), ("routing", "scheme")),
        ({"tcp": {"min_rto_ps": 0}}, ("tcp",), ("tcp",)),
        (
            {"links": [{"a": 0, "b": 2, "rate_bps": 0, "delay_ps": 1}]},
            ("links", 0, "rate_bps"),
            ("topology",),
        ),
    ],
)
def test_engine_errors_carry_the_field_location_as_data_and_the_scenario_key(
    change, engine_loc, scenario_loc
):
    with pytest.raises(EngineInputError) as e:
        run_spec(two_hosts(**change))
    assert e.value.engine_loc == engine_loc
    assert e.value.loc == scenario_loc
    assert e.value.msg and e.value.msg in str(e.value)


def test_the_binding_s_error_types_are_not_the_package_s():
    # One name, one class: the compiled module's exceptions are converted at the door (greendcn.sim.engine).
    assert (
        _native.SpecError is not EngineInputError and _native.SpecError.__name__ != EngineInputError.__name__
    )
    assert _native.NativePanic.__name__ != EngineCrash.__name__


def test_a_panic_in_rust_becomes_an_exception_not_an_abort():
    with pytest.raises(_native.NativePanic, match="deliberate panic"):
        _native._panic_for_tests()
    # and the interpreter, and the engine, still work afterwards
    assert run_spec(two_hosts())["flows"][0]["completed"]
    assert issubclass(EngineCrash, RuntimeError)


def test_the_output_example_in_the_engine_spec_doc_has_the_engine_s_keys():
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "engine-spec.md").read_text()
    output = text[text.index("## Output") :]
    doc = json.loads(re.search(r"```json\n(.*?)```", output, re.DOTALL).group(1))
    r = run_spec(two_hosts())
    assert set(doc) == set(r)
    for table in ("flows", "links", "nodes"):
        assert set(doc[table][0]) == set(r[table][0]), table
    assert set(doc["summary"]) == set(r["summary"])
