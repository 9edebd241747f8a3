"""Seed 002's 47 transmissions (Table 1): loading the shipped file and tuning each one with our model.

What we take from the seed: each row's size, packet size and the two measured throughputs. What we assume:
the offered packet rate is the optimal setting's measured throughput divided by the packet size (the rows
run at 3.4-3.7 kpps whatever the size, so they look paced by the sender, hping3); the default setting is
per-packet interrupts (params.default_setting); the host is params.DEFAULT_HOST. Our model's throughputs are
therefore predictions at that offered load, not fits to the seed's measurements.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..core.errors import InputError
from ..core.userfile import read_text
from ..core.pool import run_parallel
from .cpupower import CpuPower, cpu_power_w
from .linux import linux_commands
from .model import evaluate_setting
from .params import DEFAULT_HOST, Host, Transmission, default_setting
from .tuner import tune

__all__ = [
    "GB",
    "Row",
    "default_file",
    "improvement_pct",
    "load_transmissions",
    "size_class",
    "summary_by_class",
    "tune_rows",
]

GB = 1e9  # our reading of the seed's "GB" (decimal); row 26 (368.64 = 360 x 1.024) hints at binary units
_COLUMNS = (
    "node_id",
    "seed_line",
    "size_gb",
    "packet_size_bytes",
    "default_throughput_mbps",
    "optimal_throughput_mbps",
    "improvement_pct",
)


@dataclass(frozen=True)
class Row:
    node_id: str
    seed_line: int | None
    size_gb: float
    packet_size_bytes: int
    default_mbps: float | None
    optimal_mbps: float
    improvement_pct: float | None
    default_crashed: bool
    note: str

    def transmission(self) -> Transmission:
        rate = self.optimal_mbps * 1e6 / (8 * self.packet_size_bytes)
        return Transmission(rate, self.packet_size_bytes, self.size_gb * GB, 1, f"node {self.node_id}")


def default_file() -> Path:
    return Path(str(resources.files("greendcn.nic") / "data" / "nurika2017_table1.csv"))


def size_class(size_gb: float) -> str:
    """Seed 002 line 187: small below 20 GB, medium 20-100 GB inclusive, big above 100 GB."""
    return "small" if size_gb < 20 else ("medium" if size_gb <= 100 else "big")


def _num(raw: str, name: str, where: str, optional: bool = False) -> float | None:
    raw = (raw or "").strip()
    if not raw and optional:
        return None
    try:
        v = float(raw)
    except ValueError:
        raise InputError(
            f"{where}: column {name} must be a number, got {raw!r}",
            hint="fix the value in the transmissions file",
        ) from None
    if not math.isfinite(v) or v <= 0:
        raise InputError(
            f"{where}: column {name} must be positive, got {raw!r}",
            hint="sizes, packet sizes and throughputs are positive numbers",
        )
    return v


def load_transmissions(path: str | Path | None = None) -> list[Row]:
    """Read a transmissions CSV (lines starting with # are comments). Required columns: node_id, size_gb,
    packet_size_bytes, optimal_throughput_mbps; the others are optional."""
    p = Path(path) if path is not None else default_file()
    text = read_text(p, "--transmissions", kind="a CSV of transmissions")
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    reader = csv.DictReader(lines)
    missing = [
        c
        for c in ("node_id", "size_gb", "packet_size_bytes", "optimal_throughput_mbps")
        if c not in (reader.fieldnames or [])
    ]
    if missing:
        raise InputError(
            f"{p}: missing column(s) {', '.join(missing)}",
            hint=f"the header needs at least: {', '.join(_COLUMNS[:1] + _COLUMNS[2:4] + _COLUMNS[5:6])}",
        )
    rows = []
    for i, r in enumerate(reader, start=2):
        where = f"{p.name} row {i - 1} (node {r.get('node_id', '?')})"
        size = _num(r["size_gb"], "size_gb", where)
        pkt = _num(r["packet_size_bytes"], "packet_size_bytes", where)
        line = (r.get("seed_line") or "").strip()
        rows.append(
            Row(
                node_id=r["node_id"].strip(),
                seed_line=int(line) if line else None,
                size_gb=size,
                packet_size_bytes=int(pkt),
                default_mbps=_num(r.get("default_throughput_mbps", ""), "default", where, True),
                optimal_mbps=_num(r["optimal_throughput_mbps"], "optimal_throughput_mbps", where),
                improvement_pct=_num(r.get("improvement_pct", ""), "improvement_pct", where, True),
                default_crashed=(r.get("default_crashed") or "0").strip() in ("1", "true", "yes"),
                note=(r.get("note") or "").strip(),
            )
        )
    if not rows:
        raise InputError(f"{p}: no transmissions in the file", hint="add at least one row under the header")
    return rows


def _tune_one(args: tuple[Row, Host, int, float | None, CpuPower | None]) -> dict:
    """Tune one transmission alone on the host (module-level for the process pool). Power in W is always
    reported (priced with `power`, or the example platform at its top frequency); it is an objective only
    when `power` is given."""
    row, host, seed, max_latency_s, power = args
    tx = row.transmission()
    res = tune([tx], host, seed=seed, pop_size=20, n_gen=15, max_latency_s=max_latency_s, power=power)
    pricing = power if power is not None else CpuPower.from_platform()
    host = pricing.host_at_frequency(host)
    best = res.chosen_settings[0]
    dflt = default_setting()
    d = evaluate_setting(dflt, tx, host).row()
    t = evaluate_setting(best, tx, host).row()
    mbps = 8 * tx.packet_bytes / 1e6
    return {
        "node_id": row.node_id,
        "seed_line": row.seed_line,
        "size_gb": row.size_gb,
        "size_class": size_class(row.size_gb),
        "packet_size_bytes": row.packet_size_bytes,
        "offered_pps": tx.rate_pps,
        "seed_default_mbps": row.default_mbps,
        "seed_optimal_mbps": row.optimal_mbps,
        "model_default_mbps": d["delivered_pps"] * mbps,
        "model_tuned_mbps": t["delivered_pps"] * mbps,
        "model_default_interrupts_per_s": d["interrupts_per_s"],
        "model_tuned_interrupts_per_s": t["interrupts_per_s"],
        "model_default_cpu_util": d["cpu_util"],
        "model_tuned_cpu_util": t["cpu_util"],
        "model_default_cpu_power_w": float(cpu_power_w(d["busy_cores"], host.cpu_cores, pricing)),
        "model_tuned_cpu_power_w": float(cpu_power_w(t["busy_cores"], host.cpu_cores, pricing)),
        "tuned_setting": best.label(),
        "tuned_duration_s": tx.size_bytes * 8 / (t["delivered_pps"] * 8 * tx.packet_bytes)
        if t["delivered_pps"] > 0
        else float("inf"),
        "tuned_latency_s": t["latency_s"],
        "default_livelock_pps": d["livelock_pps"],
        "default_livelock_mbps": d["livelock_pps"] * mbps,
        "front": [
            {
                "setting": res.catalogue.settings[g[0]].label(),
                "throughput_mbps": thr / 1e6,
                "interrupts_per_s": irq,
                "latency_s": lat,
            }
            for g, thr, irq, lat in zip(
                res.front_genes,
                res.front_throughput_bps.tolist(),
                res.front_interrupts_per_s.tolist(),
                res.front_latency_s.tolist(),
            )
        ],
        "evaluations": res.n_evaluations,
        "linux": linux_commands(best, packet_bytes=tx.packet_bytes, host=host),
        "seed_default_crashed": row.default_crashed,
        "note": row.note,
    }


def tune_rows(
    rows: list[Row],
    host: Host = DEFAULT_HOST,
    seed: int = 0,
    max_latency_s: float | None = 10e-3,
    workers: int | None = None,
    progress: bool = True,
    power: CpuPower | None = None,
) -> list[dict]:
    """Tune every row separately, in parallel through the project's sweep runner."""
    tasks = [(r, host, seed, max_latency_s, power) for r in rows]
    return run_parallel(_tune_one, tasks, workers=workers, desc="tuning transmissions", progress=progress)


def improvement_pct(default_mbps: float | None, tuned_mbps: float) -> float | None:
    # rounded to 1e-9 %, so that equal throughputs print 0 and not floating-point noise
    return round(100 * (tuned_mbps / default_mbps - 1), 9) if default_mbps else None


def _mean(values: list[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def summary_by_class(out: list[dict]) -> list[dict]:
    """Per size class and over all rows: the seed's mean improvement (from its printed throughputs) beside
    our model's mean improvement and totals under the default and tuned settings. A default that delivers
    nothing has no improvement ratio; it is left out of the mean and still counts in the totals."""
    rows = []
    for cls in ("small", "medium", "big", "all"):
        sel = [o for o in out if cls in ("all", o["size_class"])]
        if not sel:
            continue
        irq_d = sum(o["model_default_interrupts_per_s"] for o in sel)
        irq_t = sum(o["model_tuned_interrupts_per_s"] for o in sel)
        rows.append(
            {
                "size_class": cls,
                "transmissions": len(sel),
                "seed_mean_improvement_pct": _mean(
                    [improvement_pct(o["seed_default_mbps"], o["seed_optimal_mbps"]) for o in sel]
                ),
                "model_mean_improvement_pct": _mean(
                    [improvement_pct(o["model_default_mbps"], o["model_tuned_mbps"]) for o in sel]
                ),
                "model_default_total_mbps": sum(o["model_default_mbps"] for o in sel),
                "model_tuned_total_mbps": sum(o["model_tuned_mbps"] for o in sel),
                "model_interrupt_reduction_pct": 100 * (1 - irq_t / irq_d) if irq_d > 0 else None,
            }
        )
    return rows
