"""Sweeps shaped like seed 001's Figs 3.10-3.12 (guard; duty at a fixed period; period at 50% duty) and over
1..N virtual hosts, each point a probe run, set beside the model fitted to the same runs' lags.

Only trends are comparable with the thesis: these runs are veth on this host, not a 100 G NIC. The model
column uses the lag law fitted to all points' lags pooled and the host's measured per-packet send time in
place of a line rate (our choice, see docs/tdma.md)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm import tqdm

from .model import LagLaw, TdmaLink
from .fit import fit_lag_law
from ...core.errors import InputError
from .metrics import send_gaps
from .probe import ProbeConfig, ProbeRun, run_probe
from .records import FLAG_PAD

__all__ = ["SWEEP_KINDS", "SweepResult", "model_columns", "plot_sweep", "point_config", "run_sweep"]

SWEEP_KINDS = ("guard", "duty", "period", "vhosts")
_LAG_SAMPLE = 200_000  # pooled lags kept for the fit; more adds time, not accuracy


def point_config(kind: str, value: float, base: ProbeConfig, duration_ns: int) -> ProbeConfig:
    """The probe configuration of one sweep point: `base` with one parameter changed."""
    s = base.schedule
    if kind == "guard":
        s = s.with_(guard_ns=int(value))
    elif kind == "duty":
        s = s.with_(uptime_ns=round(s.period_ns * value))
    elif kind == "period":
        s = s.with_(period_ns=int(value), uptime_ns=round(int(value) * s.duty))
    elif kind == "vhosts":
        return replace(base, vhosts=int(value), schedule=s.with_(slots=max(20, duration_ns // s.period_ns)))
    else:
        raise InputError(f"sweep: unknown kind {kind!r}", hint=f"choose one of {', '.join(SWEEP_KINDS)}")
    s = s.with_(slots=max(20, duration_ns // s.period_ns))
    return replace(base, schedule=s)


@dataclass
class SweepResult:
    kind: str
    table: pd.DataFrame
    law: LagLaw
    largest_gap_down_share: float
    largest_gap_goodput_rel: float
    csv: Path | None = None
    png: Path | None = None


def _row(kind: str, value: float, run: ProbeRun) -> dict[str, float]:
    m, s = run.metrics, run.schedule
    gaps = send_gaps(run.records)
    return {
        kind: value,
        "period_us": s.period_ns / 1e3,
        "duty": s.duty,
        "guard_us": s.guard_ns / 1e3,
        "vhosts": run.config.vhosts,
        "data_rx": m.data_received,
        "down_share": m.downtime_share,
        "wrong_share": m.wrong_share,
        "loss_share": m.loss_share,
        "empty_slot_share": m.empty_slot_share,
        "duty_achieved": m.duty_achieved,
        "goodput_Mbps": m.goodput_bps / 1e6,
        "late_p99_us": m.lateness_ns["p99"] / 1e3,
        "overrun_p99_us": m.overrun_ns["p99"] / 1e3,
        "lag_min_us": m.fixed_lag_ns / 1e3,
        # The sender's mean cost per packet (send-stamp gaps within a slot) stands in for (s + 24) * 8 / C.
        "pkt_time_us": float(np.mean(gaps)) / 1e3 if gaps.size else float("nan"),
        "pkt_time_sd_us": float(np.std(gaps)) / 1e3 if gaps.size else float("nan"),
    }


def drift_width(window_s: float, t_pkt_s: float, sd_s: float) -> float:
    """Width of a uniform law with the spread of the last burst's start: the sender starts at the window's
    opening, and n independent per-packet costs of standard deviation sd add up to sd * sqrt(n) (our
    choice of model; a uniform law of width w has standard deviation w / sqrt(12))."""
    n = max(1.0, window_s / t_pkt_s)
    return float(np.sqrt(12.0) * sd_s * np.sqrt(n))


def model_columns(table: pd.DataFrame, law: LagLaw, base: ProbeConfig) -> pd.DataFrame:
    """Add the model's downtime share and goodput for every row (per-packet time from the row itself)."""
    down, good = [], []
    for r in table.itertuples():
        t_pkt = r.pkt_time_us * 1e-6
        if not np.isfinite(t_pkt) or t_pkt <= 0:
            down.append(float("nan"))
            good.append(float("nan"))
            continue
        link = TdmaLink(
            line_rate_bps=1.0,
            period_s=r.period_us * 1e-6,
            uptime_s=r.duty * r.period_us * 1e-6,
            guard_s=r.guard_us * 1e-6,
            prealloc_s=base.schedule.prealloc_ns * 1e-9,
            packet_bytes=base.size_bytes,
            burst=base.burst,
            lag=law,
            packet_time_s=t_pkt,
            phase_spread_s=drift_width(
                r.duty * r.period_us * 1e-6 - r.guard_us * 1e-6, t_pkt, r.pkt_time_sd_us * 1e-6
            ),
        )
        down.append(link.leak_share())
        good.append(link.goodput_bps() * r.vhosts / 1e6)
    out = table.copy()
    out["model_down_share"] = down
    out["model_goodput_Mbps"] = good
    return out


def run_sweep(
    kind: str,
    values: list[float],
    base: ProbeConfig,
    duration_ns: int,
    out_dir: Path | None = None,
    progress: bool = True,
) -> SweepResult:
    if not values:
        raise InputError("sweep: no values given", hint="for example --values 0us,5us,10us,20us")
    configs = [point_config(kind, v, base, duration_ns) for v in values]  # refuse a bad value before any run
    rows, lags = [], []
    for v, cfg in tqdm(
        list(zip(values, configs)),
        desc=f"{kind} sweep",
        unit="run",
        file=sys.stderr,
        disable=not progress,
        leave=False,
    ):
        run = run_probe(cfg)
        rows.append(_row(kind, v, run))
        data = run.records[(run.records["flags"] & FLAG_PAD) == 0]
        lags.append((data["rx_ns"].astype(np.int64) - data["send_ns"].astype(np.int64)) * 1e-9)
    pooled = np.concatenate(lags)
    if pooled.size > _LAG_SAMPLE:  # a fixed-seed subsample keeps the fit deterministic for given runs
        pooled = np.random.default_rng(0).choice(pooled, _LAG_SAMPLE, replace=False)
    law, _ = fit_lag_law(pooled)
    table = model_columns(pd.DataFrame(rows), law, base)
    gap_down = float(np.nanmax(np.abs(table["model_down_share"] - table["down_share"])))
    rel = np.abs(table["model_goodput_Mbps"] - table["goodput_Mbps"]) / table["goodput_Mbps"].where(
        table["goodput_Mbps"] > 0
    )
    result = SweepResult(
        kind, table, law, gap_down, float(np.nanmax(rel)) if rel.notna().any() else float("nan")
    )
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        result.csv = out_dir / f"tdma_sweep_{kind}.csv"
        table.to_csv(result.csv, index=False)
        result.png = plot_sweep(result, out_dir / f"tdma_sweep_{kind}.png")
    return result


def plot_sweep(result: SweepResult, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t, k = result.table, result.kind
    x = t[k] / 1e3 if k in ("guard", "period") else t[k]
    xlabel = {
        "guard": "guard (us)",
        "period": "period (us)",
        "duty": "duty cycle",
        "vhosts": "virtual hosts",
    }[k]
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    floor = 1e-6  # a share of 0 is drawn at the floor so the log axis can show it
    a.semilogy(x, np.maximum(t["down_share"], floor), "o", label="measured (veth)")
    a.semilogy(x, np.maximum(t["model_down_share"], floor), "-", label="model (fitted lag law)")
    a.set_xlabel(xlabel)
    a.set_ylabel(f"downtime share (floor {floor:g})")
    a.legend()
    b.plot(x, t["goodput_Mbps"], "o", label="measured (veth)")
    b.plot(x, t["model_goodput_Mbps"], "-", label="model")
    b.set_xlabel(xlabel)
    b.set_ylabel("goodput (Mb/s)")
    b.legend()
    fig.suptitle(f"TDMA {k} sweep on this host's veth (not NIC or wire timing)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
