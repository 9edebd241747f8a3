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
    workers: int | None = typer.Option(None, "--workers", min=1, help="Processes (default: all cores)."),
    json_out: Path | None = JsonOption,
) -> None:
    """Fat-tree as built, with EEE (IEEE 802.3az), with ElasticTree (Heller 2010) and with both, Opera and
    RotorNet: energy, pJ/bit and slowdown."""
    from ..reproduce.energy_saving import (
        EnergySavingConfig,
        config_dict,
        findings,
        reproduce_energy_saving,
        summarize,
        write_csv,
        write_figure,
    )

    cfg = EnergySavingConfig.quick() if quick else EnergySavingConfig()
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
