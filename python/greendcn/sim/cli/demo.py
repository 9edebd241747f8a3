"""`greendcn demo`: the fabric comparison on a small workload, then seed 003's matrix on a k=4 fat-tree."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from ...core.clitools import JsonOption, echo_table, info, write_json
from ._apps import app

__all__ = ["demo_cmd"]


def demo_cmd(
    seed: int = typer.Option(1, "--seed", help="Seed of the random pairs and of the spraying choices."),
    json_out: Path | None = JsonOption,
) -> None:
    """Which fabric moves a workload for the fewest joules: Opera, RotorNet, SelectorNet and fat-trees on one
    small workload (greendcn fabrics), then Kaymak 2016 on a k=4 fat-tree, single path vs packet spraying."""
    from .fabrics import print_fabrics
    from ..fabrics import FabricsConfig, compare_fabrics
    from ..reproduce.metrics import run_metrics

    info("running one workload on Opera, RotorNet, SelectorNet and two fat-trees ...")
    fabrics = compare_fabrics(FabricsConfig(seed=seed))
    print_fabrics(fabrics)
    print()
    from ..reproduce.rps import seed003_scenario
    from ..scenario import scenario_from_dict
    from ..run import simulate

    rows = []
    for kind in ("static", "random"):
        for scheme in ("single", "rps"):
            raw = seed003_scenario(kind)
            raw["routing"]["scheme"] = scheme
            info(f"running seed003-{kind} with {scheme} ...")
            res = simulate(scenario_from_dict(raw), seed=seed)
            m = run_metrics(res.flows)
            rows.append(
                {
                    "scenario": f"seed003-{kind}",
                    "routing": scheme,
                    "long_flows": m["long_flows"],
                    "short_flows": m["short_flows"],
                    "long_throughput_Mbps": m["long_throughput_bps"] / 1e6,
                    "short_fct_ms": m["short_fct_s"] * 1e3,
                    "short_ooo_%": m["ooo_pct"],
                    "retransmits": m["retransmits"],
                    "spurious_retx": m["spurious_retransmits"],
                    "drops": res.summary["drops"],
                    **_energy_columns(res.energy),
                    "wall_s": res.summary["wall_s"],
                }
            )
    print("Kaymak 2016 (k=4 fat-tree, 1 Gbps, 25 us, 1000-pkt queues; 10 MB long, 200 KB short flows):")
    echo_table(rows)
    print(
        "energy: switches priced by the scenario's [power] table (default: McGuinness 2021 Table 2.1's SN2700, a "
        "constant 90.5 W each; docs/models.md); hosts by the host defaults (Bolla 2009's Phi on the example "
        "Xeon platform at 3 GHz, NAPI receive; docs/host-energy.md); uJ per delivered payload bit over the run, "
        "with hosts (energy) and without (network)"
    )
    write_json(
        json_out,
        {
            "seed": seed,
            "fabrics": fabrics,
            "rows": [{_json_key(k): _json_value(k, v) for k, v in r.items()} for r in rows],
        },
    )


def _energy_columns(e: Any) -> dict[str, Any]:
    """The demo's energy columns: network (switches and links) and host watts, the hosts' share, per bit."""
    if e is None:
        return {}
    sp, t = e.split, e.sim_time_s
    return {
        "network_W": (sp["switches_energy_j"] + sp["links_energy_j"]) / t if t > 0 else 0.0,
        "hosts_W": sp["hosts_energy_j"] / t if t > 0 else 0.0,
        "host_share_%": 100.0 * sp["host_share"],
        "energy_uJ_per_bit": (e.energy_per_bit_pj or 0.0) * 1e-6,
        "network_uJ_per_bit": (e.energy_per_bit_pj_without_hosts or 0.0) * 1e-6,
    }


def _json_key(key: str) -> str:
    """Demo table columns in JSON units: bits per second, watts and joules per bit."""
    return key.replace("_Mbps", "_bps").replace("_uJ_per_bit", "_j_per_bit").replace("_W", "_w")


def _json_value(key: str, value):
    if value is None:
        return None
    if key.endswith("_Mbps"):
        return value * 1e6
    if key.endswith("_uJ_per_bit"):
        return value * 1e-6
    return value


app.command("demo")(demo_cmd)
