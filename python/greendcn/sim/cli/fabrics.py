"""`greendcn fabrics` (alias `greendcn energy fabrics`): one workload on Opera, RotorNet, SelectorNet and
fat-trees with the same hosts, side by side; `print_fabrics` is shared with `greendcn demo`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ...core.clitools import JsonOption, echo_table, fail, info, write_json
from ._apps import app

__all__ = ["fabrics", "print_fabrics"]


def fabrics(
    racks: Annotated[int, typer.Option(help="Racks of Opera and RotorNet (their endpoints).")] = 12,
    switches: Annotated[
        int, typer.Option(help="Circuit switches u (= hosts per rack); must divide --racks.")
    ] = 4,
    size: Annotated[str, typer.Option(help="Bytes of every flow, e.g. 1MB.")] = "1MB",
    flows_per_host: Annotated[int, typer.Option(help="Flows each host sends.")] = 1,
    link_rate: Annotated[
        str, typer.Option(help="Every link's rate (host, uplink, circuit port).")
    ] = "10Gbps",
    cost_equivalent: Annotated[
        bool | None,
        typer.Option(
            "--cost-equivalent/--no-cost-equivalent",
            help="Add the Opera paper's k = 12 fat-tree (648 hosts); default: only when the hosts are 648.",
        ),
    ] = None,
    quick: Annotated[bool, typer.Option(help="A smaller run: 8 racks x 4 switches, 200 KB flows.")] = False,
    seed: Annotated[int, typer.Option(help="Seed of the workload and of Opera's schedule search.")] = 1,
    hosts: Annotated[
        bool,
        typer.Option(
            "--hosts/--no-hosts", help="Price the hosts on every fabric (--no-hosts: network only)."
        ),
    ] = True,
    transport: Annotated[
        str | None,
        typer.Option(
            help="Run every flow on every fabric with this transport: tcp, dctcp or ndp; a fabric that cannot "
            "is left out with the reason (default: each fabric its own, TCP on fat-trees, datagrams on "
            "circuits).",
        ),
    ] = None,
    elastictree: Annotated[
        bool,
        typer.Option(
            "--elastictree",
            help="Also run every fat-tree under ElasticTree (Heller 2010: switches off when the load allows).",
        ),
    ] = False,
    workload: Annotated[
        Path | None,
        typer.Option(
            help="Run this workload instead: a flow CSV (src,dst,size_bytes,start_s; hosts S0.. of --racks x "
            "--switches) or a scenario TOML whose [workload] is used (fabrics sized to its hosts).",
        ),
    ] = None,
    load: Annotated[
        str | None,
        typer.Option(help="A load sweep: offered loads in (0, 1], e.g. 0.05,0.1,0.3 (Poisson, same seed)."),
    ] = None,
    sizes: Annotated[
        str, typer.Option(help="The sweep's flow sizes: a shipped table (websearch, datamining, ...).")
    ] = "websearch",
    duration: Annotated[
        str, typer.Option(help="The sweep's arrivals window; energy is also reported over it.")
    ] = "10ms",
    csv_out: Annotated[
        Path | None, typer.Option("--csv", help="The sweep's rows (one per fabric and load) as CSV.")
    ] = None,
    figure: Annotated[
        Path | None,
        typer.Option(
            help="Also draw the PNG there (default: no figure); a missing folder is created and named. A sweep "
            "draws two: NAME-slowdown.png and NAME-energy.png."
        ),
    ] = None,
    json_out: Path | None = JsonOption,
) -> None:
    """One workload on Opera, RotorNet, SelectorNet and fat-trees with the same hosts and link rate: throughput,
    FCT, J, W and pJ per delivered bit side by side (docs/fabrics.md); --workload runs yours, --load sweeps
    generated loads."""
    import sys

    from tqdm import tqdm

    from ...core.units import parse_rate_bps, parse_size_bytes
    from ..fabrics import FabricsConfig, compare_fabrics, fabric_plan, plot_fabrics

    if workload is not None or load is not None:
        from .fabrics_workload import run_workload

        run_workload(
            workload=workload,
            load=load,
            sizes=sizes,
            duration=duration,
            racks=racks,
            switches=switches,
            link_rate=link_rate,
            cost_equivalent=cost_equivalent,
            seed=seed,
            hosts=hosts,
            transport=transport,
            elastictree=elastictree,
            csv_out=csv_out,
            figure=figure,
            json_out=json_out,
        )
        return
    if quick:
        racks, switches, size = 8, 4, "200KB"
    cfg = FabricsConfig(
        racks=racks,
        circuit_switches=switches,
        size_bytes=parse_size_bytes(size, "size"),
        flows_per_host=flows_per_host,
        link_rate_bps=parse_rate_bps(link_rate, "link_rate"),
        cost_equivalent=cost_equivalent,
        seed=seed,
        price_hosts=hosts,
        transport=transport,
        elastictree=elastictree,
    )
    cfg.check()
    with tqdm(
        total=len(fabric_plan(cfg)), desc="fabrics", unit="fabric", file=sys.stderr, disable=None
    ) as bar:
        out = compare_fabrics(cfg, progress=lambda name: (bar.set_postfix_str(name), bar.update(1)))
    print_fabrics(out)
    if figure is not None:
        try:
            if not figure.parent.exists():
                figure.parent.mkdir(parents=True)
                info(f"created folder {figure.parent}")
            plot_fabrics(out["fabrics"], figure)
        except OSError as e:
            fail(f"--figure: cannot write {figure}: {e.strerror}", hint="choose a writable --figure path")
        info(f"figure: {figure}")
    write_json(json_out, out)


def _num(v: float) -> float | int:
    """Three significant digits, whole numbers from 100 up (no exponent in the table)."""
    return round(v) if abs(v) >= 100 else float(f"{v:.3g}")


def print_fabrics(out: dict) -> None:
    """The comparison's table, its workload line and its notes (shared with `greendcn demo`)."""
    c = out["config"]
    print(
        f"{c['hosts']} hosts, each sending {c['flows_per_host']} flow(s) of {c['size_bytes'] / 1e6:g} MB to a "
        f"host in another rack, {c['link_rate_bps'] / 1e9:g} Gb/s links, seed {c['seed']}"
        + (f", every flow {c['transport']}:" if c.get("transport") else ":")
    )
    rows = [
        {
            "fabric": r["fabric"],
            "transport": r["transport"],
            "hosts": r["fabric_hosts"],
            "switches": f"{r['circuit_switches']} OCS + {r['packet_switches']}"
            if r["circuit_switches"]
            else str(r["packet_switches"]),
            "done": f"{r['flows_completed']}/{r['flows']}",
            "Gbps": _num(r["throughput_bps"] / 1e9),
            "p50_ms": None if r["fct_p50_s"] is None else _num(r["fct_p50_s"] * 1e3),
            "p99_ms": None if r["fct_p99_s"] is None else _num(r["fct_p99_s"] * 1e3),
            "J": _num(r["energy_j"]),
            "W": round(r["power_w"]),
            "pJ/bit": None if r["energy_per_bit_pj"] is None else round(r["energy_per_bit_pj"]),
            **({"host_%": round(100 * r["host_share"])} if r.get("hosts_priced") else {}),
        }
        for r in out["fabrics"]
    ]
    echo_table(rows, floatfmt=".3g")
    for note in out["notes"]:
        print(f"  - {note}")


app.command("fabrics")(fabrics)
