"""`greendcn energy`: network power against node count (compare), the green software-router plan (router),
fitting the router model to measurements (fit), and the switch table (switches)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..core.clitools import JsonOption, echo_table, fail, info, write_json
from ..core.units import parse_packet_rate_pps

app = typer.Typer(
    help="Power and energy: network power vs node count, software-router power plans.",
    no_args_is_help=True,
    add_completion=False,
)

_ASSUMPTIONS = [
    "switch powers: McGuinness 2021 Table 2.1 (measured, constant); optimized selector v2 = 10 W is the thesis' projection",
    (
        "fat-tree counting (our choice): edge switches k*s/(s+1) hosts down, k/(s+1) up; upper layers terminate the "
        "uplinks below (k/2 up + k/2 down, top layer k down); fewest tiers that hold N; each layer rounded up"
    ),
    (
        "optical counting (our choice): ToRs = ceil(N / hosts_per_tor), optical switches = ceil(ToRs x "
        "uplinks_per_tor / optical ports); default ToR: 64-port wedge100bf65x, half its ports each way"
    ),
]


@app.command()
def compare(
    nodes: Annotated[
        str, typer.Option(help="Node counts: LO:HI (doubling) or a comma list.")
    ] = "1024:131072",
    max_tiers: Annotated[int, typer.Option(help="Deepest fat-tree; larger trees are omitted.")] = 3,
    tor_switch: Annotated[
        str, typer.Option(help="ToR switch of the optical designs (table id).")
    ] = "wedge100bf65x",
    hosts_per_tor: Annotated[
        int | None, typer.Option(help="Servers per optical-design ToR (default: half its ports).")
    ] = None,
    uplinks_per_tor: Annotated[
        int | None, typer.Option(help="Uplinks per optical-design ToR (default: half its ports).")
    ] = None,
    switch_table: Annotated[Path | None, typer.Option(help="Your own switches (TOML or CSV).")] = None,
    figure: Annotated[
        Path | None, typer.Option(help="Also draw the PNG figure (Fig 2.3's axes) to this path.")
    ] = None,
    json_out: Path | None = JsonOption,
) -> None:
    """Network power (servers excluded) of fat-trees and optical designs against node count (McGuinness 2021 Fig 2.3)."""
    from dataclasses import replace

    from .network import FatTree, OpticalDesign, default_architectures, node_counts
    from .network import compare as run_compare
    from .switches import get_switch, load_switch_table

    if max_tiers < 1:
        fail(f"--max-tiers {max_tiers} must be >= 1", hint="3 is the thesis' three-tier fat-tree")
    counts = node_counts(nodes)
    table = load_switch_table(switch_table)
    half = get_switch(tor_switch, table).ports // 2
    down = half if hosts_per_tor is None else hosts_per_tor
    up = half if uplinks_per_tor is None else uplinks_per_tor
    if down < 1 or up < 1:
        fail(
            f"--hosts-per-tor {down} and --uplinks-per-tor {up} must both be >= 1",
            hint=f"e.g. {half} each, half the ports of {tor_switch}",
        )
    archs = [
        replace(a, max_tiers=max_tiers)
        if isinstance(a, FatTree)
        else replace(a, tor_switch=tor_switch, hosts_per_tor=down, uplinks_per_tor=up)
        if isinstance(a, OpticalDesign)
        else a
        for a in default_architectures()
    ]
    records = run_compare(counts, archs, table)
    rows = []
    for r in records:
        sw = r["switches"] or {}
        by = {
            kind: sum(n for key, n in sw.items() if key.startswith(kind + ":"))
            for kind in ("tor", "aggregation", "core", "optical")
        }
        rows.append(
            {
                "architecture": r["architecture"],
                "nodes": r["nodes"],
                **(by if sw else {}),
                "power_kw": None if r["power_w"] is None else r["power_w"] / 1e3,
                "note": r["note"],
            }
        )
    echo_table(
        rows,
        ["architecture", "nodes", "tor", "aggregation", "core", "optical", "power_kw", "note"],
        floatfmt=".1f",
    )
    if figure is not None:
        _plot(records, figure)
        info(f"figure: {figure}")
    used = sorted({key.split(":", 1)[1] for r in records for key in (r["switches"] or {})})
    write_json(
        json_out,
        {
            "records": records,
            "assumptions": _ASSUMPTIONS,
            "optical_tor": {"switch": tor_switch, "hosts_per_tor": down, "uplinks_per_tor": up},
            "switches": {
                s: {
                    "power_w": table[s].power_w,
                    "ports": table[s].ports,
                    "measured": table[s].measured,
                    "source": table[s].source,
                }
                for s in used
            },
        },
    )


def _plot(records: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    for name in dict.fromkeys(r["architecture"] for r in records):
        pts = [
            (r["nodes"], r["power_w"] / 1e3)
            for r in records
            if r["architecture"] == name and r["power_w"] is not None
        ]
        if pts:
            xs, ys = zip(*pts)
            ax.plot(xs, ys, marker="o", ls="--" if "fat-tree" in name else "-", label=name)
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="servers (100 Gbps each)",
        ylabel="network power (kW)",
        title="Network power against node count (servers excluded)",
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=120, bbox_inches="tight")
    except OSError as e:
        fail(f"cannot write figure {path}: {e.strerror}", hint="choose a writable --figure path")
    finally:
        plt.close(fig)


@app.command()
def router(
    platform: Annotated[Path | None, typer.Option(help="Platform file (TOML); default: example.")] = None,
    load: Annotated[str, typer.Option(help="Total offered load, e.g. 1.5Mpps or 800kpps.")] = "1.5Mpps",
    per_core: Annotated[str | None, typer.Option(help="Per-core loads, e.g. 4e5pps,3e5pps.")] = None,
    units: Annotated[
        int | None, typer.Option(help="Load quanta of the search grid (default: >= 256).")
    ] = None,
    exact: Annotated[bool, typer.Option(help="Exhaustive search (small platforms).")] = False,
    json_out: Path | None = JsonOption,
) -> None:
    """Least-power set of active cores, frequencies and load split (Bolla 2009 model), against all cores at max."""
    from .optimizer import default_plan, optimize, optimize_exact, optimize_per_core
    from .router import example_platform, load_platform

    plat = load_platform(platform) if platform else example_platform()
    info(
        f"platform: {plat.name} ({plat.cores} cores, {len(plat.frequencies_hz)} frequencies)"
        + ("  [an example sized on Bolla 2009, not a measurement]" if platform is None else "")
    )
    if units is not None and units < 1:
        fail(f"--units {units} must be >= 1", hint="e.g. --units 512")
    if per_core:
        loads = [parse_packet_rate_pps(x, "--per-core") for x in per_core.split(",")]
        plan = optimize_per_core(plat, loads)
        total = sum(loads)
    else:
        total = parse_packet_rate_pps(load, "--load")
        plan = (optimize_exact if exact else optimize)(plat, total, units)
    base = default_plan(plat, total)
    rows = [
        {
            "core": i,
            "f_ghz": c.f_hz / 1e9,
            "load_kpps": c.load_pps / 1e3,
            "capacity_kpps": c.capacity_pps / 1e3,
            "utilization": c.load_pps / c.capacity_pps,
        }
        for i, c in enumerate(plan.cores)
    ]
    echo_table(rows, floatfmt=".4g")
    saving = 100 * (1 - plan.power_w / base.power_w)
    print(
        f"plan: {plan.active_cores} active cores, {plan.power_w:.2f} W, forwards {plan.throughput_pps / 1e6:.4g} Mpps"
        f" ({plan.method}{f', {plan.units} quanta' if plan.units else ''})"
    )
    print(
        f"default (all {plat.cores} cores at {plat.frequencies_hz[-1] / 1e9:g} GHz, even split): "
        f"{base.power_w:.2f} W; saving {saving:.1f} %"
    )
    write_json(
        json_out,
        {
            "platform": plat.name,
            "offered_pps": total,
            "plan_power_w": plan.power_w,
            "plan_throughput_pps": plan.throughput_pps,
            "default_power_w": base.power_w,
            "saving_pct": saving,
            "method": plan.method,
            "units": plan.units,
            "cores": [
                {"f_hz": c.f_hz, "load_pps": c.load_pps, "capacity_pps": c.capacity_pps} for c in plan.cores
            ],
        },
    )


@app.command()
def fit(
    samples: Annotated[Path, typer.Argument(help="CSV of measurements (see docs/models.md).")],
    platform: Annotated[
        Path | None, typer.Option(help="Take r_max, Phi_idle, Phi_active from this platform.")
    ] = None,
    json_out: Path | None = JsonOption,
) -> None:
    """Fit chi (a0 = 0) and gamma to measurements and report the maximum model error (Bolla 2009 Fig 8)."""
    from .router import PUBLISHED_CHI, load_platform
    from .router_fit import fit_router, read_samples

    res = fit_router(read_samples(samples), load_platform(platform) if platform else None)
    echo_table(
        [
            {"coefficient": f"a{i}", "fitted": a, "published": b}
            for i, (a, b) in enumerate(zip(res.chi_coeffs_, PUBLISHED_CHI))
        ],
        floatfmt=".6g",
    )
    print("gamma: " + ", ".join(f"{n + 1} cores {g:.3f}" for n, g in enumerate(res.gamma_)))
    print(
        f"max model error: {res.max_error_w_:.3f} W ({res.max_error_pct_:.2f} %) over {res.samples} samples"
    )
    write_json(
        json_out,
        {
            "chi_coeffs": res.chi_coeffs_,
            "gamma": res.gamma_,
            "max_error_w": res.max_error_w_,
            "max_error_pct": res.max_error_pct_,
            "max_error_pct_by_cores": res.max_error_pct_by_cores_,
            "samples": res.samples,
        },
    )


@app.command()
def switches(
    switch_table: Annotated[Path | None, typer.Option(help="Your own switches (TOML or CSV).")] = None,
    json_out: Path | None = JsonOption,
) -> None:
    """List the switch table with the source of every entry."""
    from .switches import load_switch_table

    table = load_switch_table(switch_table)
    rows = [
        {
            "id": s.id,
            "model": s.model,
            "kind": s.kind,
            "ports": s.ports,
            "power_w": s.power_w,
            "measured": "yes" if s.measured else "no (projection)",
        }
        for s in table.values()
    ]
    echo_table(rows, floatfmt=".4g")
    for s in table.values():
        print(f"  {s.id}: {s.source}")
    write_json(json_out, {s.id: {**s.__dict__} for s in table.values()})
