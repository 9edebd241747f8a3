"""A flow file's `transport` column per row: tcp, udp, dctcp and ndp each run as written on a packet fabric and
on Opera's low-latency class (each flow's transport in the per-flow results); a tcp row follows its class; a
fabric that runs none of them on its traffic refuses the first such row naming the file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import assert_clean_error, run_greendcn

from greendcn.core.errors import InputError
from greendcn.sim import simulate

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "scenarios" / "seed003-static.toml"
OPERA = ROOT / "scenarios" / "websearch-opera.toml"
MIXED = (
    "src,dst,size_bytes,start_s,class,transport,rate_bps\n"
    "S0,S15,60000,0,a,tcp,\n"
    "S1,S14,60000,0,a,dctcp,\n"
    "S2,S13,60000,0,a,NDP,\n"
    "S3,S12,60000,0,a,udp,1000000000\n"
    "S4,S11,60000,0,a,,\n"
)


def test_each_row_runs_its_own_transport_on_a_packet_fabric(tmp_path):
    f = tmp_path / "f.csv"
    f.write_text(MIXED)
    res = simulate(STATIC, flows=f, progress=False)
    assert res.flows["transport"].tolist() == ["tcp", "dctcp", "ndp", "udp", "tcp"]
    assert res.flows["fct_s"].notna().all()
    # tcp rows (written or empty) follow their class's transport; the others keep their own
    res = simulate(STATIC, flows=f, overrides=["transport.classes.a=dctcp"], progress=False)
    assert res.flows["transport"].tolist() == ["dctcp", "dctcp", "ndp", "udp", "dctcp"]


def test_rows_run_their_own_transport_on_operas_low_latency_class(tmp_path):
    f = tmp_path / "f.csv"
    f.write_text(MIXED.replace("S3,S12,60000,0,a,udp,1000000000\n", "S3,S12,20000000,0,a,ndp,\n"))
    res = simulate(OPERA, flows=f, overrides=["run.stop_time=5ms"], progress=False)
    # below the 15 MB cutoff each runs its transport; the 20 MB ndp row is bulk: a datagram
    assert res.flows["transport"].tolist() == ["tcp", "dctcp", "ndp", "datagram", "tcp"]
    assert res.flows["fct_s"].iloc[[0, 1, 2, 4]].notna().all()
    # with bulk traffic by transport, the bulk row runs NDP too
    res = simulate(
        OPERA, flows=f, overrides=["run.stop_time=1ms", "transport.circuit_bulk=transport"], progress=False
    )
    assert res.flows["transport"].tolist()[3] == "ndp"


def test_a_fabric_that_runs_no_dctcp_or_ndp_refuses_the_first_such_row(tmp_path):
    f = tmp_path / "f.csv"
    f.write_text(MIXED)
    sets = ["topology.kind=rotornet", "routing.scheme=rotorlb"]
    with pytest.raises(InputError, match=r"f\.csv line 3: transport: dctcp does not run on a rotornet"):
        simulate(OPERA, flows=f, overrides=sets, progress=False)
    out = run_greendcn("simulate", OPERA, "--flows", f, *(a for s in sets for a in ("--set", s)))
    assert_clean_error(out, "f.csv line 3", "transport", "circuit_bulk")
    # the same file from the scenario's workload.file
    sc = tmp_path / "s.toml"
    sc.write_text(
        '[topology]\nkind = "rotornet"\nracks = 4\ncircuit_switches = 2\nhosts_per_rack = 4\n\n'
        '[routing]\nscheme = "rotorlb"\n\n[workload]\nkind = "flows"\nfile = "f.csv"\n'
    )
    with pytest.raises(InputError, match=r"f\.csv line 3: transport: dctcp"):
        simulate(sc, progress=False)


def test_an_ndp_row_is_held_to_ndps_settings(tmp_path):
    f = tmp_path / "f.csv"
    f.write_text("src,dst,size_bytes,start_s,transport\nS0,S15,1000,0,ndp\n")
    out = run_greendcn("simulate", STATIC, "--flows", f, "--set", "ndp.queue=100B")
    assert_clean_error(out, "ndp.queue: 100 bytes cannot hold", "f.csv line 2 runs ndp")


def test_flow_tables_and_the_engine_share_the_transport_codes():
    from greendcn.sim.engine import TRANSPORTS
    from greendcn.sim.workload.table import TRANSPORTS as TABLE

    assert TABLE == TRANSPORTS
