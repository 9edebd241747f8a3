"""`greendcn workload describe` (a flow-size distribution's mean and percentiles) and `greendcn workload
generate` (a scenario's flows as CSV, the same a run of the scenario uses, with what they achieve)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from ...core.clitools import JsonOption, check_output_path, echo_table, write_json
from ...core.errors import InputError

__all__ = ["app"]

app = typer.Typer(
    help="Flow-size distributions and generated workloads (docs/workloads.md).", no_args_is_help=True
)

# Memory per generated flow while generating and writing it (columns, sort and CSV chunks); our measurement
# of 1,000,000 web-search flows (BENCHMARKS.md), rounded up.
GEN_BYTES_PER_FLOW = 200


@app.callback()
def _workload() -> None:
    """Flow-size distributions and generated workloads (docs/workloads.md)."""


@app.command()
def describe(
    distribution: str = typer.Argument(
        ..., help="websearch, datamining, hadoop, or a CDF file (size_bytes,cumulative_probability)."
    ),
    json_out: Path | None = JsonOption,
) -> None:
    """Print a flow-size distribution's mean, median and percentiles, read as table points (the default
    sampling) and interpolated linearly between them."""
    from .distributions import SAMPLINGS, load_distribution

    d = load_distribution(distribution, where="distribution")
    stats = {s: d.describe(s) for s in SAMPLINGS}
    print(f"{d.name}: {len(d.sizes)} points; {d.source}")
    rows = [
        {"statistic": k.removesuffix("_bytes"), **{s: stats[s][k] for s in SAMPLINGS}}
        for k in stats["points"]
    ]
    echo_table(rows, floatfmt=".6g")
    print('bytes; "points" draws the table\'s own sizes (default), "interpolate" is linear between them')
    write_json(
        json_out,
        {
            "distribution": d.name,
            "source": d.source,
            "table": [
                {"size_bytes": int(s), "cumulative_probability": float(p)} for s, p in zip(d.sizes, d.cdf)
            ],
            "sampling": stats,
        },
    )


@app.command()
def generate(
    scenario: Path = typer.Argument(..., help="Scenario TOML file (docs/scenario-format.md)."),
    output: Path | None = typer.Option(
        None, "-o", "--output", help="Write the flows here as CSV: src,dst,size_bytes,start_s,class."
    ),
    seed: int | None = typer.Option(None, "--seed", help="Replaces run.seed."),
    set_: list[str] | None = typer.Option(None, "--set", help="Override a key: --set workload.load=0.5."),
    json_out: Path | None = JsonOption,
) -> None:
    """Write the flows a run of SCENARIO uses (same seed, same flows) and print flows, bytes, the offered load
    achieved against the target and the sizes' percentiles against the distribution's."""
    from ..scenario import load_scenario

    check_output_path(output, "-o")
    sc = load_scenario(scenario, set_ or None)
    try:
        table, net, records, rates = _generate(sc, sc.run.seed if seed is None else seed)
    except InputError as e:
        raise type(e)(f"{scenario.name}: {e}", hint=e.hint) from None
    if output is not None:
        try:
            table.write_csv(output, net.hosts, rates)
        except OSError as e:
            raise InputError(
                f"-o: cannot write {output}: {e.strerror}", hint="choose a writable path"
            ) from None
    total = table.total_bytes
    print(
        f"{len(table):,} flows, {total:,} bytes, {len(net.hosts)} endpoints"
        + (f"; written to {output}" if output is not None else "")
    )
    if records:
        echo_table(
            [
                {
                    "class": r["class"],
                    "kind": r["kind"],
                    "pattern": r["pattern"],
                    "sizes": r["sizes"],
                    "flows": r["flows"],
                    "bytes": r["bytes"],
                    "target_load": r["target_load"],
                    "achieved_load": r["achieved_load"],
                    "load_on": r["load_on"],
                    "ks_distance": r["ks_distance"],
                }
                for r in records
            ]
        )
        for r in records:
            print(f"sizes of {r['class']} (bytes): generated vs distribution ({r['sampling']})")
            echo_table(
                [{"": "mean", "generated": r["mean_bytes"], "distribution": r["dist_mean_bytes"]}]
                + [
                    {
                        "": f"p{p['percentile']:g}",
                        "generated": p["generated_bytes"],
                        "distribution": p["distribution_bytes"],
                    }
                    for p in r["percentiles"]
                ],
                floatfmt=".6g",
            )
    write_json(
        json_out,
        {
            "scenario": sc.name,
            "seed": sc.run.seed if seed is None else seed,
            "flows": len(table),
            "bytes": total,
            "endpoints": len(net.hosts),
            "output": None if output is None else str(output),
            "components": records,
        },
    )


def _generate(sc: Any, seed: int) -> tuple[Any, Any, list[dict[str, Any]], Any]:
    """The flows of the scenario's workload (a FlowTable), its network, per-component records and the UDP
    flows' rates (None for generated workloads, which are TCP)."""
    import numpy as np

    from ..limits import (
        RunSize,
        available_memory_bytes,
        check_run_size,
        topology_size,
        workload_flow_count,
        workload_size_key,
    )
    from . import build_table, build_workload
    from .generate import GenContext, is_generated
    from .report import describe_table
    from .table import TRANSPORTS, FlowTable

    hosts, switches, links, racks = topology_size(sc.topology)
    check_run_size(RunSize(hosts, switches, links, 0, racks), None, "topology")
    n = workload_flow_count(sc, hosts)
    need = n * GEN_BYTES_PER_FLOW
    if need > available_memory_bytes():
        key = workload_size_key(sc)
        raise InputError(
            f"{key}: about {n:,} flows would need about {need / 2**30:.3g} GiB to generate, more than the "
            f"memory available",
            hint="shorten workload.duration or lower workload.load (or workload.count)",
            loc=tuple(key.split(".")),
        )
    if sc.topology.kind in ("rotornet", "selectornet", "opera"):
        from ..optical.scenario_run import endpoint_network

        net = endpoint_network(sc.topology)
    else:
        from ..topology import build_topology

        net = build_topology(sc.topology)
    if is_generated(sc.workload):
        table = build_table(sc, net, seed)
        ctx = GenContext.of(sc.topology, len(net.hosts), sc.base_dir)
        return table, net, describe_table(sc.workload, ctx, table), None
    flows = build_workload(sc, net, seed)
    classes = sorted({f.cls for f in flows})
    table = FlowTable(
        np.array([f.src for f in flows], dtype=np.int32),
        np.array([f.dst for f in flows], dtype=np.int32),
        np.array([f.size_bytes for f in flows], dtype=np.int64),
        np.array([f.start_ps for f in flows], dtype=np.int64),
        np.array([classes.index(f.cls) for f in flows], dtype=np.int16),
        np.array([TRANSPORTS.index(f.transport) for f in flows], dtype=np.int8),
        classes,
    )
    return table, net, [], np.array([f.rate_bps or 0 for f in flows], dtype=np.int64)
