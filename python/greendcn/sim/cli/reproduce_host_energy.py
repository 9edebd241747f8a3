"""`greendcn reproduce host-energy`: hosts in the ledger, four host policies, single path vs spraying."""

from __future__ import annotations

from pathlib import Path

import typer

from ...core.clitools import JsonOption, echo_table, info, write_json
from ._apps import reproduce_app


@reproduce_app.command("host-energy")
def host_energy(
    seeds: int = typer.Option(3, "--seeds", min=1, help="Runs (seeds) per scenario and scheme."),
    out: Path = typer.Option(Path("out/reproduce-host-energy"), "--out", help="Folder for the CSV and PNG."),
    quick: bool = typer.Option(False, "--quick", help="Small size: 1 seed, 1 MB flows."),
    workers: int | None = typer.Option(None, "--workers", min=1, help="Processes (default: all cores)."),
    json_out: Path | None = JsonOption,
) -> None:
    """Hosts in the ledger: Kaymak 2016 and the k=8 permutation, single path vs spraying, four host policies."""
    from ..reproduce.host_energy import (
        HostEnergyConfig,
        findings,
        reproduce_host_energy,
        summarize,
        write_figure,
    )

    cfg = HostEnergyConfig.quick() if quick else HostEnergyConfig(seeds=seeds)
    if quick and seeds != 3:
        cfg = HostEnergyConfig(**{**cfg.__dict__, "seeds": seeds})
    runs = reproduce_host_energy(cfg, workers=workers)
    summary = summarize(runs)
    out.mkdir(parents=True, exist_ok=True)
    runs.to_csv(out / "runs.csv", index=False)
    summary.to_csv(out / "summary.csv", index=False)
    fig = write_figure(summary, out / "host_energy.png")
    echo_table(
        [
            {
                "scenario": r.scenario,
                "scheme": r.scheme,
                "policy": r.policy,
                "sim_ms": r.sim_time_s * 1e3,
                "hosts_W": r.hosts_avg_power_w,
                "hosts_J": r.hosts_energy_j,
                "switches_J": r.switches_energy_j,
                "host_share_%": 100 * r.host_share,
                "uJ_per_bit": r.energy_per_bit_pj * 1e-6,
                "network_uJ_per_bit": r.energy_per_bit_pj_without_hosts * 1e-6,
                "saturated": r.saturated_windows,
            }
            for r in summary.itertuples()
        ]
    )
    found = findings(summary)
    print("\nwhich policy draws least (carrying the load in every window), and the hosts' share:")
    for f in found:
        if "winner" in f:
            shares = ", ".join(f"{p} {v:.1f} %" for p, v in f["host_share_pct"].items())
            sat = f" (saturate: {', '.join(f['saturating_policies'])})" if f["saturating_policies"] else ""
            print(
                f"  {f['scenario']} {f['scheme']}: {f['winner']} wins, {f['winner_saves_pct_vs_default']:.1f} % "
                f"below fixed 3 GHz; host share {shares}{sat}"
            )
    print("does counting the hosts change which routing scheme delivers a bit for less?")
    for f in found:
        if "hosts_change_the_answer" in f:
            print(
                f"  {f['scenario']}, {f['policy']}: network only {f['cheaper_scheme_network_only']}, with hosts "
                f"{f['cheaper_scheme_with_hosts']}{' (changed)' if f['hosts_change_the_answer'] else ''}"
            )
    info(f"wrote {out / 'runs.csv'}, {out / 'summary.csv'} and {fig}")
    write_json(json_out, {"config": cfg.__dict__, "findings": found, "summary": summary, "runs": runs})
