"""`greendcn reproduce ...`: rerun a seed paper's headline experiments and write figures and CSV tables."""

from __future__ import annotations

from pathlib import Path

import typer

from ..clitools import JsonOption, echo_table, info, write_json

app = typer.Typer(help="Reproduce the seed papers' headline experiments.", no_args_is_help=True)


@app.callback()
def _reproduce() -> None:
    """Reproduce the seed papers' headline experiments."""


@app.command()
def rps(
    seeds: int = typer.Option(10, "--seeds", min=1, help="Runs (seeds) per point; seed 003 used 10."),
    out: Path = typer.Option(Path("out/reproduce-rps"), "--out", help="Folder for the CSV files and PNG figures."),
    quick: bool = typer.Option(False, "--quick", help="Small size: 2 seeds, 1 MB long flows, fewer points."),
    workers: int | None = typer.Option(None, "--workers", min=1, help="Processes (default: all cores)."),
    json_out: Path | None = JsonOption,
) -> None:
    """Seed 003: single path vs random packet spraying on a k=4 fat-tree (Figs 2-9, plus dupack threshold)."""
    from .rps import RpsConfig, reproduce_rps, summarize
    from .rps_figures import write_figures
    from .rps_findings import findings

    cfg = RpsConfig.quick() if quick else RpsConfig(seeds=seeds)
    if quick and seeds != 10:
        cfg = RpsConfig(**{**cfg.__dict__, "seeds": seeds})
    runs = reproduce_rps(cfg, workers=workers)
    summary = summarize(runs)
    out.mkdir(parents=True, exist_ok=True)
    runs.to_csv(out / "runs.csv", index=False)
    summary.to_csv(out / "summary.csv", index=False)
    figs = write_figures(summary, out)
    rows = [{"experiment": r.experiment, "scheme": r.scheme, "N_long": r.n_long, "shorts": r.n_short,
             "dupack": r.dupack_threshold, "long_Mbps": r.long_throughput_bps / 1e6,
             "short_fct_ms": r.short_fct_s * 1e3, "ooo_%": r.ooo_pct, "retx": r.retransmits,
             "spurious": r.spurious_retransmits, "runs": r.runs, "complete": r.all_completed}
            for r in summary.itertuples()]
    echo_table(rows)
    found = findings(summary)
    print("\nseed 003's statements beside our runs:")
    for f in found:
        print(f"  {f['figure']}: paper: {f['seed 003 states']}\n      ours: {f['our runs (means over N and seeds)']}")
    info(f"wrote {out / 'runs.csv'}, {out / 'summary.csv'} and {len(figs)} figures in {out}")
    write_json(json_out, {"config": cfg.__dict__, "findings": found, "summary": summary, "runs": runs})
