"""`greendcn reproduce rps`: single path vs packet spraying on a k=4 fat-tree."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from ...core.clitools import JsonOption, echo_table, info, write_json
from ...core.errors import InputError
from ._apps import reproduce_app


@reproduce_app.command()
def rps(
    seeds: int = typer.Option(10, "--seeds", min=1, help="Runs (seeds) per point; Kaymak 2016 used 10."),
    out: Path = typer.Option(
        Path("out/reproduce-rps"), "--out", help="Folder for the CSV files and PNG figures."
    ),
    quick: bool = typer.Option(False, "--quick", help="Small size: 2 seeds, 1 MB long flows, fewer points."),
    workers: int | None = typer.Option(None, "--workers", min=1, help="Processes (default: all cores)."),
    single_path: str = typer.Option(
        "first",
        "--single-path",
        help="first (ns-3's choice, which Kaymak 2016 ran) or hashed (greendcn 0.1).",
    ),
    report: bool = typer.Option(
        False,
        "--report",
        help="Also run the matrix as the sweep scenarios/sweep-seed003.toml into OUT/seed003.duckdb "
        "(resumable) and write OUT/report.html (greendcn report) with the paper's statements beside ours.",
    ),
    json_out: Path | None = JsonOption,
) -> None:
    """Kaymak 2016: single path vs random packet spraying on a k=4 fat-tree (Figs 2-9, plus dupack threshold)."""
    from ..reproduce.rps import RpsConfig, reproduce_rps, summarize
    from ..reproduce.rps_figures import write_figures
    from ..reproduce.rps_findings import findings

    if single_path not in ("first", "hashed"):
        raise InputError(f"--single-path: {single_path!r} is not first or hashed", hint="--single-path first")
    cfg = RpsConfig.quick() if quick else RpsConfig(seeds=seeds)
    if quick and seeds != 10:
        cfg = RpsConfig(**{**cfg.__dict__, "seeds": seeds})
    cfg = RpsConfig(**{**cfg.__dict__, "single_path": single_path})
    sweep_spec = None
    if report:
        # The report reads a sweep store; the shipped sweep spec is exactly the default matrix (tested).
        if cfg != RpsConfig():
            raise InputError(
                "--report: covers the default matrix only (10 seeds, full size, single path first)",
                hint="drop --quick, --seeds and --single-path, or run a sweep spec of your own (docs/sweeps.md)",
            )
        sweep_spec = Path(__file__).resolve().parents[4] / "scenarios" / "sweep-seed003.toml"
        if not sweep_spec.is_file():
            raise InputError(
                f"--report: the sweep spec {sweep_spec} is not here (it ships with the source tree)",
                hint="run from a clone of the repository",
            )
    runs = reproduce_rps(cfg, workers=workers)
    summary = summarize(runs)
    out.mkdir(parents=True, exist_ok=True)
    runs.to_csv(out / "runs.csv", index=False)
    summary.to_csv(out / "summary.csv", index=False)
    figs = write_figures(summary, out)
    rows = [
        {
            "experiment": r.experiment,
            "scheme": r.scheme,
            "N_long": r.n_long,
            "shorts": r.n_short,
            "dupack": r.dupack_threshold,
            "long_Mbps": r.long_throughput_bps / 1e6,
            "short_fct_ms": r.short_fct_s * 1e3,
            "ooo_%": r.ooo_pct,
            "retx": r.retransmits,
            "spurious": r.spurious_retransmits,
            "runs": r.runs,
            "complete": r.all_completed,
        }
        for r in summary.itertuples()
    ]
    echo_table(rows)
    found = findings(summary)
    print("\nKaymak 2016's statements beside our runs:")
    for f in found:
        print(
            f"  {f['figure']}: paper: {f['Kaymak 2016 states']}\n      ours: {f['our runs (means over N and seeds)']}"
        )
    info(f"wrote {out / 'runs.csv'}, {out / 'summary.csv'} and {len(figs)} figures in {out}")
    doc: dict[str, Any] = {"config": cfg.__dict__, "findings": found, "summary": summary, "runs": runs}
    if sweep_spec is not None:
        from ...sweep.driver import run_sweep
        from ...sweep.report import write_report

        outcome = run_sweep(sweep_spec, store=out / "seed003.duckdb", workers=workers)
        page = write_report(out / "seed003.duckdb", out / "report.html")
        info(f"wrote {out / 'report.html'} from {out / 'seed003.duckdb'} ({outcome.runs} runs)")
        doc["report"] = {"store": str(out / "seed003.duckdb"), "html": str(out / "report.html"), **page}
    write_json(json_out, doc)
