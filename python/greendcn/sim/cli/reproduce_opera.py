"""`greendcn reproduce opera`: Opera's schedule, hop counts per slice and a mixed workload's FCT per class."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from ...core.clitools import JsonOption, echo_table, finite_float, info, write_json
from ._apps import reproduce_app


@reproduce_app.command()
def opera(
    racks: int = typer.Option(108, "--racks", help="Racks (McGuinness 2021, section 2.6.1: 108)."),
    switches: int = typer.Option(
        6, "--switches", help="Circuit switches (McGuinness 2021, section 2.6.1: 6)."
    ),
    epsilon_us: float | None = typer.Option(
        None,
        "--epsilon-us",
        help="Slice guard in us; default: computed from the worst path.",
        parser=finite_float,
    ),
    reconfig_us: float = typer.Option(
        10.0, "--reconfig-us", help="Reconfiguration time r in us.", parser=finite_float
    ),
    moves: int | None = typer.Option(None, "--moves", min=0, help="Scored moves of the schedule search."),
    quick: bool = typer.Option(False, "--quick", help="A short search (200 moves)."),
    seed: int = typer.Option(0, "--seed", min=0, help="Seed of the schedule search."),
    workload: bool = typer.Option(
        True,
        "--workload/--no-workload",
        help="Also run a mixed workload on the fabric: 2 short (100 KB, low-latency) flows per rack among one "
        "long (20 MB, bulk) flow per 6 racks, starts spread over 1 ms (our choice).",
    ),
    out: Path = typer.Option(Path("out/reproduce-opera"), "--out", help="Folder for the CSV and the PNG."),
    json_out: Path | None = JsonOption,
) -> None:
    """McGuinness 2021 section 2.6: Opera's staggered schedule, hop counts of the low-latency paths per slice, and
    FCT percentiles per class of a mixed workload on the circuit engine."""
    from tqdm import tqdm

    from ..reproduce.opera import reproduce_opera, summary, write_figure
    from ..topology.opera import OperaParams

    n_moves = moves if moves is not None else (200 if quick else OperaParams.search_moves)
    params = OperaParams(
        racks=racks,
        switches=switches,
        reconfig_s=reconfig_us * 1e-6,
        seed=seed,
        epsilon=None if epsilon_us is None else epsilon_us * 1e-6,
        search_moves=n_moves,
    )
    params.check()
    with tqdm(total=n_moves, desc="schedule search", unit="move", file=sys.stderr, disable=None) as bar:
        sched, table, found = reproduce_opera(params, progress=lambda done, _total: bar.update(done - bar.n))
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "slices.csv", index=False)
    fig = write_figure(table, out / "opera_hops.png")
    s = summary(sched)
    echo_table(
        [
            {
                "slices": s["slices"],
                "epsilon_us": s["epsilon_s"] * 1e6,
                "slice_us": s["slice_s"] * 1e6,
                "cycle_ms": s["cycle_s"] * 1e3,
                "mean_hops": s["mean_hops"],
                "max_hops": s["max_hops"],
                "one_hop_share": s["one_hop_share_min"],
                "search_s": sched.search["wall_s"],
            }
        ]
    )
    print("\nMcGuinness 2021's statements beside our schedule:")
    for f in found:
        print(f"  {f['source']}: {f['statement']}\n      ours: {f['ours']}")
    info(f"wrote {out / 'slices.csv'} and {fig}")
    doc: dict[str, Any] = {**s, "findings": found, "slices_table": table}
    if workload:
        classes = _opera_workload(racks, switches, reconfig_us, epsilon_us, seed, n_moves)
        classes.to_csv(out / "fct_by_class.csv", index=False)
        print(
            f"\nmixed workload (circuit engine, routing.scheme = opera; {classes.attrs['transport']}, 10 Gb/s, "
            "500 ns fibre):"
        )
        echo_table(classes.to_dict(orient="records"))
        info(f"wrote {out / 'fct_by_class.csv'}")
        doc["workload_by_class"] = classes
    write_json(json_out, doc)


def _opera_workload(
    racks: int, switches: int, reconfig_us: float, epsilon_us: float | None, seed: int, moves: int
) -> Any:
    """FCT percentiles per class of `reproduce opera`'s mixed workload (the schedule search runs again, with
    the same parameters, inside the scenario: the same schedule)."""
    import pandas as pd

    from ..run import simulate

    topo: dict[str, Any] = {
        "kind": "opera",
        "racks": racks,
        "circuit_switches": switches,
        "reconfig": f"{reconfig_us}us",
        "link_rate": "10Gbps",
        "link_delay": "500ns",
        "guard": "1us",
        "schedule_seed": seed,
        "search_moves": moves,
    }
    if epsilon_us is not None:
        topo["epsilon"] = f"{epsilon_us}us"
    sc = {
        "name": "opera-mixed",
        "topology": topo,
        "routing": {"scheme": "opera"},
        "workload": {
            "kind": "random",
            "long_flows": max(1, racks // 6),
            "short_flows": 2 * racks,
            "long_size": "20MB",
            "short_size": "100KB",
            "start_jitter": "1ms",
        },
        "run": {"seed": seed + 1},
    }
    res = simulate(sc, progress=False)
    rows = []
    for cls, g in res.flows.groupby("class", sort=True):
        fct = g["fct_s"] * 1e3
        rows.append(
            {
                "class": f"{cls} ({'low-latency' if cls == 'short' else 'bulk'})",
                "flows": len(g),
                "completed": int(fct.notna().sum()),
                "fct_p50_ms": fct.quantile(0.5),
                "fct_p99_ms": fct.quantile(0.99),
                "fct_max_ms": fct.max(),
            }
        )
    s = res.summary
    for r in rows:
        r["reroutes_in_run"] = s["low_latency_reroutes"]
        r["no_path_drops_in_run"] = s["no_path_drops"]
    table = pd.DataFrame(rows)
    table.attrs["transport"] = s["transport"]  # what the run carried, as `simulate` prints it
    return table
