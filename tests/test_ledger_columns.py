"""The energy ledger reads the engine's link directions and nodes as columns (sim/ledger_columns.py): on a run's
own results it gives exactly what it gives on the same results as plain records (a dict per direction and node,
as a JSON file holds them), for the run, a window, a power series, EEE's port states and link models."""

from __future__ import annotations

import json
from pathlib import Path

from greendcn.power import ConstantPower, LinearPower
from greendcn.sim.ledger import EnergyModels, run_energy
from greendcn.sim.ledger_columns import dir_columns
from greendcn.sim.run import simulate
from greendcn.sim.scenario import load_scenario
from greendcn.sim.tables import Records

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "seed003-random.toml"


def _as_records(out: dict) -> dict:
    plain = dict(out)
    plain["links"] = [dict(r) for r in out["links"]]
    plain["nodes"] = [dict(r) for r in out["nodes"]]
    return plain


def _text(report) -> str:
    return json.dumps(report.to_dict(), sort_keys=True, default=float)


def test_columns_and_records_price_a_run_alike():
    sc = load_scenario(
        SCENARIO,
        ["topology.k=4", "eee.enabled=true", "run.stop_time=2ms", 'run.window=["0.5ms", "1.5ms"]'],
    )
    res = simulate(sc)
    out = res.engine_results
    assert isinstance(out["links"], Records)
    cols = dir_columns(out["links"])
    assert cols.any_low and dir_columns(out["links"]) is cols  # EEE counted, the columns kept
    plain = _as_records(out)
    hosts = sc.power.host_pricer(sc.base_dir)
    by_name = EnergyModels(
        nodes={"switch": ConstantPower(100.0), "C*": LinearPower(static_w=50.0, joules_per_bit=1e-9)},
        links={"host-switch": LinearPower(per_port_w=1.0, joules_per_packet=1e-6), "*": ConstantPower(0.5)},
    )
    for models in (sc.power.models(sc.base_dir, eee=True), by_name):
        for interval in (None, (500_000_000, 1_500_000_000)):
            a = run_energy(out, models, hosts=hosts, interval_ps=interval)
            b = run_energy(plain, models, hosts=hosts, interval_ps=interval)
            assert _text(a) == _text(b)
            assert a.total_energy_j > 0 and len(a.devices) > 20
    states = [d for d in run_energy(out, sc.power.models(sc.base_dir, eee=True)).devices if d.get("states_s")]
    assert states and all(d["states_s"].get("lpi", 0) > 0 for d in states)
