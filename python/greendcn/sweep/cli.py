"""`greendcn sweep run|query` (in `app`) and `greendcn report` (in `report_app`, merged into the root)."""

from __future__ import annotations

from pathlib import Path

import typer

from ..core.clitools import JsonOption, check_output_path, echo_table, info, write_json

__all__ = ["app", "report_app"]

app = typer.Typer(
    help="Sweeps from a spec file into a DuckDB results store (docs/sweeps.md).", no_args_is_help=True
)
report_app = typer.Typer()


@app.callback()
def _sweep() -> None:
    """Sweeps from a spec file into a DuckDB results store (docs/sweeps.md)."""


@app.command("run")
def run_cmd(
    spec: Path = typer.Argument(..., help="Sweep spec (TOML, docs/sweeps.md)."),
    store: Path | None = typer.Option(
        None, "--store", help="DuckDB file (default: sweep.store, else results.duckdb beside the spec)."
    ),
    executor: str = typer.Option("local", "--executor", help="local (a process pool) or ray."),
    address: str | None = typer.Option(
        None, "--address", help="Ray cluster address ('auto': the one `ray start` began)."
    ),
    workers: int | None = typer.Option(
        None, "--workers", min=1, help="Local processes or local Ray CPUs (default: all cores)."
    ),
    rerun_failed: bool = typer.Option(False, "--rerun-failed", help="Run again the runs stored as failed."),
    json_out: Path | None = JsonOption,
) -> None:
    """Run every run of SPEC that the store does not hold yet; a second call resumes where the first stopped."""
    from .driver import run_sweep
    from .executors import EXECUTORS
    from .spec import load_spec
    from ..core.errors import InputError

    if executor not in EXECUTORS:
        raise InputError(
            f"--executor: unknown executor {executor!r}", hint=f"choose one of {', '.join(EXECUTORS)}"
        )
    if address and executor != "ray":
        raise InputError("--address: only the ray executor takes an address", hint="add --executor ray")
    sp = load_spec(spec, store)  # everything checked before the store is opened
    out = run_sweep(sp, executor=executor, workers=workers, address=address, rerun_failed=rerun_failed)
    echo_table(
        [
            {
                "sweep": out.name,
                "runs": out.runs,
                "already_stored": out.skipped,
                "done": out.done,
                "failed": out.failed,
                "retries": out.retried,
                "wall_s": out.wall_s,
            }
        ]
    )
    for f in out.failures[:10]:
        info(f"failed: {f['grid']} {f['params']}: {f['error']}")
    if len(out.failures) > 10:
        info(
            f"... and {len(out.failures) - 10} more failed runs (SELECT * FROM runs WHERE status = 'failed')"
        )
    info(
        f'store: {out.store}  (greendcn sweep query {out.store} "SELECT ..."; greendcn report {out.store} -o report.html)'
    )
    write_json(json_out, out.to_json())


@app.command("query")
def query_cmd(
    store: Path = typer.Argument(..., help="DuckDB file a sweep wrote."),
    sql: str = typer.Argument(
        ..., help='One SQL statement, e.g. "SELECT status, count(*) FROM runs GROUP BY 1".'
    ),
    json_out: Path | None = JsonOption,
) -> None:
    """Run one SQL statement on a store (read-only) and print the rows."""
    from .store import Results

    df = Results(store).query(sql)
    echo_table(df.to_dict(orient="records"), columns=list(df.columns))
    write_json(json_out, {"columns": list(df.columns), "rows": df})


def report_cmd(
    store: Path = typer.Argument(..., help="DuckDB file a sweep wrote."),
    out: Path = typer.Option(Path("report.html"), "-o", "--out", help="HTML file to write."),
    json_out: Path | None = JsonOption,
) -> None:
    """One self-contained HTML page of a store: parameters, summary tables, interactive figures (no network needed)."""
    from .report import write_report

    check_output_path(out, "-o")
    info_ = write_report(store, out)
    info(
        f"wrote {out} ({info_['sweeps']} sweeps, {info_['figures']} figures, {out.stat().st_size / 1e6:.1f} MB)"
    )
    write_json(json_out, {"report": str(out), **info_})


report_app.command("report")(report_cmd)
