"""`greendcn reproduce energy-saving`: the fat-tree as built, with Energy-Efficient Ethernet, under ElasticTree
and with both, Opera and RotorNet, on web search and data mining at loads from 5 % to 60 %."""

from __future__ import annotations

from pathlib import Path

import typer

from ...core.clitools import JsonOption, echo_table, info, write_json
from ._apps import reproduce_app


@reproduce_app.command("energy-saving")
def energy_saving(
    out: Path = typer.Option(
        Path("out/reproduce-energy-saving"), "--out", help="Folder for the CSV and PNG."
    ),
    quick: bool = typer.Option(False, "--quick", help="Small size: k = 4, web search, three loads, 2 ms."),
    network: str = typer.Option(
        "128",
        "--network",
        help="Hosts: 128 (k = 8 fat-tree, 32 racks of 4) or 648 (the fabric comparison's 648-host networks).",
    ),
    tree: str = typer.Option(
        "1:1",
        "--tree",
        help="With --network 648, the fat-tree of the tree schemes: 1:1, 3:1 or cost-equivalent.",
    ),
    loads: str | None = typer.Option(None, "--loads", help="Comma-separated loads (default 0.05 to 0.6)."),
    workers: int | None = typer.Option(None, "--workers", min=1, help="Processes (default: all cores)."),
    json_out: Path | None = JsonOption,
) -> None:
    """Fat-tree as built, with EEE (IEEE 802.3az), with ElasticTree (Heller 2010) and with both, Opera and
    RotorNet: energy, pJ/bit and slowdown."""
    from ..reproduce.energy_saving import (
        EnergySavingConfig,
        config_dict,
        findings,
        parse_loads,
        reproduce_energy_saving,
        summarize,
        write_csv,
        write_figure,
    )

    from dataclasses import replace

    from ...core.errors import InputError

    if network not in ("128", "648"):
        raise InputError(f"--network: {network!r} is not 128 or 648", hint="--network 648", loc=("network",))
    if network == "128" and tree != "1:1":
        raise InputError("--tree: needs --network 648", hint="add --network 648", loc=("tree",))
    if quick and network == "648":
        raise InputError(
            "--quick: not with --network 648", hint="use --loads to run fewer loads", loc=("quick",)
        )
    chosen = parse_loads(loads) if loads is not None else None
    if network == "648":
        cfg = EnergySavingConfig.network_648(tree, chosen)
    else:
        cfg = EnergySavingConfig.quick() if quick else EnergySavingConfig()
        if chosen:
            cfg = replace(cfg, loads=chosen)
    rows = summarize(reproduce_energy_saving(cfg, workers=workers))
    out.mkdir(parents=True, exist_ok=True)
    write_csv(rows, out / "energy_saving.csv")
    fig = write_figure(rows, out / "energy_saving.png")
    echo_table(
        [
            {
                "workload": r["workload"],
                "load": r["load"],
                "scheme": r["scheme"],
                "network_J": r["network_energy_j"],
                "hosts_J": r["hosts_energy_j"],
                "saved_%": None if r["network_saving"] is None else 100 * r["network_saving"],
                "network_pJ_per_bit": r["network_energy_per_bit_pj"],
                "pJ_per_bit": r["energy_per_bit_pj"],
                "short_p99_slowdown": r["short_slowdown_p99"],
            }
            for r in rows
        ]
    )
    found = findings(rows)
    print("\nElasticTree's network-energy saving beside the published 'up to 50 %' (Heller et al. 2010):")
    for f in found:
        print(
            f"  {f['workload']}: {100 * f['saving_at_lowest_load']:.1f} % at load {f['lowest_load']:g}, "
            f"{100 * f['saving_at_highest_load']:.1f} % at load {f['highest_load']:g}"
            f"{'' if f['falls_with_load'] else ' (does not fall monotonically with load)'}"
        )
    print("\nNetwork-energy saving against the fat-tree as built (EEE / ElasticTree / both):")
    for f in found:
        for v in f["savings_by_load"]:
            print(
                f"  {f['workload']} load {v['load']:g}: "
                + " / ".join(
                    f"{100 * v[s]:.1f} %" if s in v else "-"
                    for s in ("fat-tree + EEE", "fat-tree + ElasticTree", "fat-tree + EEE + ElasticTree")
                )
            )
        if f["both_lowest_at_every_load"] is False:
            print(f"  {f['workload']}: EEE with ElasticTree is not the lowest at every load")
    info(f"wrote {out / 'energy_saving.csv'} and {fig}")
    write_json(json_out, {"config": config_dict(cfg), "findings": found, "rows": rows})
