"""`greendcn simulate`: one scenario, a summary per flow class, energy with its split. The command's options are
in simulate_app.py (typer); this module imports no typer, so that greendcn/launch.py can run a plain command
line without it."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

from ...core.clitools import echo_table
from ...core.errors import InputError

__all__ = ["run_simulate"]


def _class_rows(res: Any) -> list[dict[str, Any]]:
    import numpy as np

    from ..metrics import _class_groups
    from ..tables import Columns, column, raw_table

    fl = raw_table(res, "flows")
    fct = np.asarray(column(fl, "fct_s"), dtype=float)
    tput = np.asarray(column(fl, "throughput_bps"), dtype=float)
    received, retx, spurious, ooo = (
        column(fl, c) for c in ("packets_received", "retransmits", "spurious_retransmits", "ooo_packets")
    )
    rows = []
    for cls, g in _class_groups(fl.raw("class") if isinstance(fl, Columns) else column(fl, "class")):
        rec = received[g].sum()
        done = ~np.isnan(fct[g])
        rows.append(
            {
                "class": cls,
                "flows": int(g.sum()),
                "completed": int(done.sum()),
                "mean_fct_ms": _mean(fct[g]) * 1e3,
                "max_fct_ms": (fct[g][done].max() if done.any() else math.nan) * 1e3,
                "mean_Mbps": _mean(tput[g]) / 1e6,
                "retx": int(retx[g].sum()),
                "spurious": int(spurious[g].sum()),
                "ooo_%": 100.0 * ooo[g].sum() / rec if rec else math.nan,
            }
        )
    return rows


def _mean(values: Any) -> float:
    """The mean of the values that are not NaN (NaN when there are none), as pandas takes it."""
    import numpy as np

    kept = values[~np.isnan(values)]
    return float(kept.mean()) if len(kept) else math.nan


def _print_summary(res: Any) -> None:
    s = res.summary
    print(f"scenario {s['scenario']}  routing {s['routing']}  seed {s['seed']}  flows {s['flows']}")
    echo_table(_class_rows(res))
    print(
        f"simulated {s['sim_time_s']:.6g} s, {s['events']} events, {s['packet_hops']} packet-hops, "
        f"{s['drops']} drops, engine wall {s['wall_s']:.3g} s ({s.get('stopped_by', '')})"
    )
    if "transport" in s:
        print(f"transport: {s['transport']}")
    if "opera_routing" in s:
        print(f"opera: {s['opera_routing']}")
    print("busiest link directions: " + ", ".join(_busiest(res)))
    e = res.energy
    if e is not None:
        per_bit = "n/a" if e.energy_per_bit_pj is None else f"{e.energy_per_bit_pj:.4g} pJ per delivered bit"
        print(
            f"energy {e.total_energy_j:.4g} J over {len(e.devices)} priced devices, average "
            f"{e.avg_power_w:.4g} W, {per_bit} (models: "
            + (
                "topology.circuit_switch and topology.tor_switch, constant power from the switch table)"
                if "fabric" in s
                else "the scenario's [power] table, docs/models.md)"
            )
        )
        sp = e.split
        no_hosts = e.energy_per_bit_pj_without_hosts
        print(
            f"split: hosts {sp['hosts_energy_j']:.4g} J ({100 * sp['host_share']:.1f} %), switches "
            f"{sp['switches_energy_j']:.4g} J, links {sp['links_energy_j']:.4g} J; without hosts "
            + ("n/a" if no_hosts is None else f"{no_hosts:.4g} pJ per delivered bit")
        )
        print(f"hosts: {e.hosts['note'] if e.hosts else 'no host models (power.host_w, or hosts left out)'}")
        for kind, label in (("node:host", "hosts"), ("node:switch", "switches")):
            devs = [d for d in e.devices if d["kind"] == kind]
            if devs:
                top = max(devs, key=lambda d: d["avg_power_w"])
                print(
                    f"  {label}: {len(devs)}, mean {sum(d['avg_power_w'] for d in devs) / len(devs):.4g} W, "
                    f"most {top['avg_power_w']:.4g} W ({top['name']}); per device J and W in --json energy.devices"
                )
        states: dict[str, float] = {}
        for d in e.devices:
            for state, t in (d.get("states_s") or {}).items():
                states[state] = states.get(state, 0.0) + t
        if states:  # switches priced port by port (docs/energy-saving.md)
            total = sum(states.values()) or 1.0
            print(
                f"  switch ports: {100 * states.get('lpi', 0.0) / total:.1f} % of port time in low-power idle, "
                f"{100 * (states.get('sleep', 0.0) + states.get('wake', 0.0)) / total:.1f} % going to sleep "
                "or waking; per port in --json energy.devices[].ports"
            )
    from ..metrics import print_metrics

    print_metrics(res)


def _busiest(res: Any, n: int = 3) -> list[str]:
    """The `n` most utilised link directions (ties in table order), as `from->to U %`."""
    import numpy as np

    from ..tables import column, raw_table

    li = raw_table(res, "links")
    util = np.asarray(column(li, "utilization"), dtype=float)
    top = np.argsort(-util, kind="stable")[:n].tolist()
    src, dst = column(li, "from"), column(li, "to")
    return [f"{src[i]}->{dst[i]} {100 * util[i]:.0f} %" for i in top]


def rto_dominated_flows(res: Any) -> int:
    """Flows whose retransmission timeouts (each at least tcp.min_rto) make up half their completion time or more."""
    import numpy as np

    from ..tables import column, raw_table

    fl = raw_table(res, "flows")
    if "timeouts" not in fl.columns or not len(fl):
        return 0
    min_rto_s = res.scenario.tcp.min_rto / 1e12
    timeouts = column(fl, "timeouts")
    fct = np.asarray(column(fl, "fct_s"), dtype=float)
    waited = timeouts * min_rto_s
    return int(((timeouts > 0) & (waited >= 0.5 * np.where(np.isnan(fct), np.inf, fct))).sum())


def rto_warning(res: Any) -> str | None:
    """One warning line when timeouts dominate some flows' completion times, else None."""
    n = rto_dominated_flows(res)
    if not n:
        return None
    min_rto = res.scenario.tcp.min_rto / 1e12
    from ..tables import raw_table

    return (
        f"warning: {n} of {len(raw_table(res, 'flows'))} flows spent at least half their completion time waiting for "
        f"retransmission timeouts (tcp.min_rto = {min_rto * 1e3:g} ms); a smaller tcp.min_rto suits fast links "
        "(docs/scenario-format.md)"
    )


def run_simulate(
    scenario: Path,
    seed: int | None = None,
    json_out: Path | None = None,
    flows: Path | None = None,
    set_: list[str] | None = None,
    max_memory: str | None = None,
    parquet: Path | None = None,
) -> int:
    """Simulate one scenario and print a summary per flow class; --json writes flows, links, nodes, summary.
    Returns the exit status: 0, or 130 when the run was interrupted (its results are incomplete)."""
    from ..output import check_parquet_dir, write_parquet, write_result_json
    from ..scenario import load_scenario
    from ..run import simulate

    check_parquet_dir(parquet)
    from ...core.units import parse_size_bytes

    limit = None if max_memory is None else parse_size_bytes(max_memory, "--max-memory")
    sc = load_scenario(scenario, set_ or None)
    try:
        res = simulate(sc, seed=seed, flows=flows, max_memory_bytes=limit, partial_on_interrupt=True)
    except InputError as e:
        # Fields checked while building the run (workload against topology, engine limits) name the scenario
        # file as the loader's checks do; errors in the flows file already name that file.
        if flows is not None and str(e).startswith(flows.name):
            raise
        raise type(e)(f"{scenario.name}: {e}", hint=e.hint) from None
    _print_summary(res)
    warning = rto_warning(res)
    if warning:
        print(warning, file=sys.stderr)
    write_result_json(json_out, res)
    write_parquet(parquet, res)
    if res.summary.get("incomplete"):
        print(
            f"interrupted at {res.summary['sim_time_s']:.6g} s simulated: the results above are incomplete "
            "(summary.incomplete in --json)",
            file=sys.stderr,
        )
        return 130
    return 0


def __getattr__(name: str) -> Any:
    if name == "simulate_cmd":  # the typer command, in its own module
        from .simulate_app import simulate_cmd

        return simulate_cmd
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
