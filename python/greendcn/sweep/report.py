"""A results store as one self-contained HTML page: per sweep, its parameters, how many runs are done, failed
and missing, a summary table (means over seeds), interactive plotly figures of the job kind's metrics, the
failed runs with their errors, and for a reproduction (`report = "seed003"`) the paper's statements beside our
numbers. plotly.js is embedded once in the page, so it opens without a network."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import pandas as pd

from ..core.errors import InputError
from .jobs import KINDS
from .quantities import format_value, numeric_column
from .store import Results

__all__ = ["write_report"]

_CSS = """
body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px;color:#222}
table{border-collapse:collapse;font-size:0.85em;margin:0.5em 0 1.5em}
th,td{border:1px solid #ccc;padding:0.2em 0.5em;text-align:right}
th{background:#f3f3f3} td.l,th.l{text-align:left}
.note{color:#555;font-size:0.9em} h2{border-bottom:2px solid #444;margin-top:2em}
"""


def _table(df: pd.DataFrame, floatfmt: str = "{:.4g}") -> str:
    if df.empty:
        return "<p class='note'>(no rows)</p>"
    return df.to_html(
        index=False, border=0, na_rep="", float_format=lambda x: floatfmt.format(x), escape=True
    )


def _is_seed(axis: str) -> bool:
    return axis.split(".")[-1] == "seed"


def _label(row: pd.Series, cols: list[str]) -> str:
    return ", ".join(f"{c}={row[c]}" for c in cols) or "all"


def _figures(df: pd.DataFrame, axis_vals: dict[str, list[Any]], metrics: list[str], sweep: str) -> list[Any]:
    import plotly.graph_objects as go

    axes = list(axis_vals)
    vary = [a for a in axes if not _is_seed(a) and a in df.columns and df[a].nunique(dropna=False) > 1]
    if "grid" in df.columns and df["grid"].nunique() > 1:
        vary = vary + ["grid"]
    if vary:
        numeric = [a for a in vary if pd.api.types.is_numeric_dtype(df[a])]
        pool = numeric or vary
        x = max(pool, key=lambda a: df[a].nunique())
    else:
        x = None
    groups = [a for a in vary if a != x]
    figs = []
    for m in metrics:
        if m not in df.columns or df[m].notna().sum() == 0:
            continue
        fig = go.Figure()
        d = df[df[m].notna()].copy()
        d["_x"] = d[x] if x else "all runs"
        order = [str(v) for v in axis_vals.get(x or "", [])]
        if x and not pd.api.types.is_numeric_dtype(d[x]) and order:
            # quantities written with units ("500kpps", "1Mpps") keep the spec's order, not the text order
            d["_o"] = d[x].astype(str).map({v: i for i, v in enumerate(order)})
        else:
            d["_o"] = d["_x"]
        d["_g"] = d.apply(lambda r: _label(r, groups), axis=1) if groups else "all"
        for g, sub in d.groupby("_g", sort=True):
            agg = sub.groupby(["_o", "_x"], sort=True)[m].agg(["mean", "std", "count"]).reset_index()
            fig.add_trace(
                go.Scatter(
                    x=agg["_x"],
                    y=agg["mean"],
                    error_y={"type": "data", "array": agg["std"].fillna(0.0), "visible": True},
                    mode="lines+markers",
                    name=str(g),
                    customdata=agg["count"],
                    hovertemplate=f"{x or 'runs'}=%{{x}}<br>{m}=%{{y:.4g}}<br>runs=%{{customdata}}<extra>%{{fullData.name}}</extra>",
                )
            )
        fig.update_layout(
            title=f"{sweep}: {m} (mean over the runs of each point, bars: one standard deviation)",
            xaxis_title=x or "",
            yaxis_title=m,
            height=420,
            margin={"l": 60, "r": 20, "t": 50, "b": 50},
            template="plotly_white",
        )
        figs.append(fig)
    return figs


# A reproduction's report plots the metrics its paper's figures show (seed 003: Figs 2-9).
_REPRO_METRICS = {"seed003": ("long_throughput_bps", "short_fct_s", "ooo_pct", "retransmits", "energy_j")}


def _seed003(df: pd.DataFrame) -> pd.DataFrame | None:
    """seed 003's statements beside this sweep's runs, through the reproduction's own summary and findings."""
    from ..sim.reproduce.rps import summarize
    from ..sim.reproduce.rps_findings import findings

    rows = []
    for _, r in df[df["status"] == "done"].iterrows():
        sc = json.loads(r["params_json"])
        wl = sc["workload"]
        rows.append(
            {
                "experiment": r["grid"],
                "scenario": wl["kind"],
                "scheme": sc["routing"]["scheme"],
                "n_long": wl["long_flows"],
                "n_short": wl.get("short_flows", 1) if wl["kind"] == "random" else 1,
                "dupack_threshold": sc["tcp"]["dupack_threshold"],
                "seed": sc["run"]["seed"],
                **{
                    k: r[k]
                    for k in (
                        "long_throughput_bps",
                        "short_fct_s",
                        "ooo_pct",
                        "retransmits",
                        "spurious_retransmits",
                        "all_completed",
                    )
                },
            }
        )
    if not rows:
        return None
    runs = pd.DataFrame(rows)
    runs["all_completed"] = runs["all_completed"].astype(bool)
    return pd.DataFrame(findings(summarize(runs)))


def _sweep_section(res: Results, sw: pd.Series, tables: list[str]) -> tuple[str, int]:
    import plotly.io as pio

    name, kind = sw["name"], sw["kind"]
    axes = list(json.loads(sw["axes_json"]))
    axis_vals = json.loads(sw["axes_json"])
    join = "LEFT JOIN summaries s USING (key)" if "summaries" in tables else ""
    cols = "r.*" + (", s.* EXCLUDE (key)" if join else "")
    df = res.query(
        f"SELECT m.idx, m.grid AS member_grid, {cols} FROM sweep_runs m LEFT JOIN runs r USING (key) {join} "
        "WHERE m.sweep = ? ORDER BY m.idx",
        [name],
    )
    # a parameter written with units ("50pkt") is grouped, sorted and plotted by its number in SI units
    # ("topology.queue_pkt"), the typed column the store keeps beside the text
    typed = {a: numeric_column(a, df.columns) for a in axes}
    axes = [typed[a] or a for a in axes]
    axis_vals = {
        (typed[a] or a): (sorted(df[typed[a]].dropna().unique().tolist()) if typed[a] else v)
        for a, v in axis_vals.items()
    }
    total = len(df)
    done = int((df["status"] == "done").sum())
    failed = int((df["status"] == "failed").sum())
    parts = [f"<h2>Sweep {html.escape(name)}</h2>"]
    if sw.get("description"):
        parts.append(f"<p>{html.escape(str(sw['description']))}</p>")
    parts.append(
        f"<p>job kind <b>{html.escape(kind)}</b> ({html.escape(KINDS[kind].doc if kind in KINDS else '')}); "
        f"spec {html.escape(str(sw['spec_path']))}; last started {sw['started_at']} UTC</p>"
    )
    parts.append(
        _table(
            pd.DataFrame(
                [{"runs": total, "done": done, "failed": failed, "not run yet": total - done - failed}]
            )
        )
    )
    parts.append("<h3>Parameters</h3>")
    parts.append(
        _table(
            pd.DataFrame(
                [
                    {"parameter": a, "values": ", ".join(format_value(a, x) for x in v), "count": len(v)}
                    for a, v in axis_vals.items()
                ]
            )
        )
    )
    ok = df[df["status"] == "done"]
    wanted = _REPRO_METRICS.get(sw.get("report") or "") or (KINDS[kind].metrics if kind in KINDS else ())
    metrics = [m for m in wanted if m in df.columns]
    group = [a for a in axes if not _is_seed(a) and a in ok.columns]
    if "grid" in ok.columns and ok["grid"].nunique() > 1:
        group = ["grid", *group]
    parts.append(
        "<h3>Summary</h3><p class='note'>Means over the runs of each parameter set (seeds and repeats).</p>"
    )
    if len(ok) and metrics:
        if group:
            summ = ok.groupby(group, sort=True, dropna=False)[metrics].mean()
            summ["runs"] = ok.groupby(group, sort=True, dropna=False).size()
            summ = summ.reset_index()
        else:
            summ = ok[metrics].mean().to_frame().T
            summ["runs"] = len(ok)
        # values with their units ("19.4 Gbps", "1.2 ms"), from the unit each column's name carries
        shown = summ.copy()
        for col in shown.columns:
            if col != "runs" and col != "grid":
                shown[col] = [format_value(col, v) for v in summ[col]]
        parts.append(_table(shown))
    else:
        parts.append("<p class='note'>(no finished runs)</p>")
    figs = _figures(ok, axis_vals, metrics, name) if len(ok) else []
    for i, fig in enumerate(figs):
        parts.append(
            pio.to_html(fig, full_html=False, include_plotlyjs=False, div_id=f"fig-{html.escape(name)}-{i}")
        )
    if sw.get("report") == "seed003" and len(ok):
        table = _seed003(df)
        if table is not None:
            parts.append(
                "<h3>Kaymak 2016 beside our runs</h3><p class='note'>Left: what the paper states, with its figure in "
                "Kaymak 2016 (docs/references.md); right: our runs (means over N and seeds), computed "
                "as `greendcn reproduce rps` computes them. The paper's figures are lost, so its sentences are "
                "all there is to compare.</p>"
            )
            parts.append(_table(table))
    bad = df[df["status"] == "failed"]
    if len(bad):
        parts.append("<h3>Failed runs</h3>")
        show = bad[["grid", "attempts", "error", "params_json"]].head(200)
        parts.append(_table(show))
    return "\n".join(parts), len(figs)


def write_report(store: str | Path, out: str | Path) -> dict[str, Any]:
    """Write the page; returns what it holds (sweeps, figures)."""
    from plotly.offline import get_plotlyjs

    res = Results(store)
    tables = res.tables()
    if "sweeps" not in tables:
        raise InputError(
            f"report: {store} holds no sweep", hint="run `greendcn sweep run SPEC.toml --store ...` first"
        )
    sweeps = res.query("SELECT * FROM sweeps ORDER BY name")
    sections, n_figs = [], 0
    for _, sw in sweeps.iterrows():
        text, n = _sweep_section(res, sw, tables)
        sections.append(text)
        n_figs += n
    page = (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>greendcn report: {html.escape(Path(store).name)}</title><style>{_CSS}</style>"
        f"<script type='text/javascript'>{get_plotlyjs()}</script></head><body>"
        f"<h1>greendcn results: {html.escape(Path(store).name)}</h1>"
        f"<p class='note'>{len(sweeps)} sweeps, {n_figs} figures. Written by `greendcn report`; figures are "
        "interactive (hover, zoom, click a legend entry to hide it).</p>"
        + "\n".join(sections)
        + "</body></html>\n"
    )
    p = Path(out)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(page, encoding="utf-8")
    except OSError as e:
        raise InputError(f"-o: cannot write {p}: {e.strerror}", hint="choose a writable path") from None
    return {"sweeps": len(sweeps), "figures": n_figs}
