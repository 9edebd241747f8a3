"""Cross-check of the fluid model against the packet-level event simulation on a grid of cases.

Two-NIC cases compare model.evaluate_shared with eventsim.simulate_shared the same way (per NIC; CPU as
the total busy cores). Disagreement is measured per offered packet, so that a case where almost nothing is delivered cannot blow
up a relative error: the difference in delivered fraction, the difference in interrupts per offered packet,
and the absolute difference in CPU utilisation. The report names the case with the largest disagreement.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.pool import run_parallel
from .eventsim import simulate
from .model import evaluate
from .params import DEFAULT_HOST, MODE_CODES, Host

__all__ = ["Case", "compare_case", "crosscheck", "default_grid"]


@dataclass(frozen=True)
class Case:
    mode: str
    param: float
    rate_pps: float
    burst: int = 1
    pattern: str = "poisson"


def default_grid(quick: bool = False) -> list[Case]:
    """Loads from light to past saturation for each mode. `quick` keeps a dozen cases for tests."""
    loads = (5e4, 1.5e5, 4e5, 9e5) if not quick else (5e4, 4e5)
    cases = []
    for lam in loads:
        cases.append(Case("interrupt", 0, lam if lam < 2e5 else lam / 4))
        cases.append(Case("timer", 2e-4, lam))
        cases.append(Case("watermark", 32, lam))
        cases.append(Case("napi", 64, lam))
        if not quick:
            cases.append(Case("watermark", 64, lam, burst=8))
            cases.append(Case("napi", 64, lam, burst=4))
            cases.append(Case("timer", 1e-3, lam, pattern="periodic"))
    return cases


def compare_case(args: tuple[Case, Host, int, int]) -> dict[str, float | str]:
    """Run one case both ways (module-level so a process pool can call it)."""
    case, host, n_packets, seed = args
    code = MODE_CODES[case.mode]
    fl = evaluate(code, case.param, case.rate_pps, case.burst, host).row()
    sim = simulate(code, case.param, case.rate_pps, case.burst, host, n_packets, case.pattern, seed)
    lam = case.rate_pps
    return {
        "mode": case.mode,
        "param": case.param,
        "offered_pps": lam,
        "burst": case.burst,
        "pattern": case.pattern,
        "fluid_delivered_pps": fl["delivered_pps"],
        "sim_delivered_pps": sim.delivered_pps,
        "fluid_interrupts_per_s": fl["interrupts_per_s"],
        "sim_interrupts_per_s": sim.interrupts_per_s,
        "fluid_cpu_util": fl["cpu_util"],
        "sim_cpu_util": sim.cpu_util,
        # Per offered packet on each side, so the sampled (Poisson) arrival rate does not count as an error.
        "err_throughput": abs(fl["delivered_pps"] / lam - sim.delivered / sim.offered),
        "err_interrupts": abs(fl["interrupts_per_s"] / lam - sim.interrupts / sim.offered),
        "err_cpu": abs(fl["cpu_util"] - sim.cpu_util),
        "conserved": sim.offered == sim.delivered + sim.dropped + sim.in_flight,
    }


def crosscheck(
    cases: list[Case] | None = None,
    host: Host = DEFAULT_HOST,
    n_packets: int = 20_000,
    seed: int = 0,
    workers: int | None = None,
    progress: bool = True,
    shared: bool | list | None = None,
) -> dict:
    """Compare every case; return the rows and the largest disagreement of each kind. `shared=True` also
    runs the two-NIC grid (or the given list of NIC tuples) against the shared-CPU simulation."""
    cases = default_grid() if cases is None else cases
    rows = run_parallel(
        compare_case,
        [(c, host, n_packets, seed + i) for i, c in enumerate(cases)],
        workers=workers,
        desc="fluid vs event sim",
        progress=progress,
    )
    worst = {}
    for key in ("err_throughput", "err_interrupts", "err_cpu"):
        r = max(rows, key=lambda r: r[key])
        worst[key] = {
            "value": r[key],
            "case": {k: r[k] for k in ("mode", "param", "offered_pps", "burst", "pattern")},
        }
    out = {"rows": rows, "worst": worst, "n_packets": n_packets, "seed": seed}
    if shared is not None:
        grid = default_shared_grid() if shared is True else shared
        srows = run_parallel(
            compare_shared,
            [(g, host, n_packets, seed + 1000 + i) for i, g in enumerate(grid)],
            workers=workers,
            desc="shared CPU: fluid vs event sim",
            progress=progress,
        )
        out["shared_rows"] = srows
        out["worst_shared"] = {
            key: {"value": max(r[key] for r in srows), "nics": max(srows, key=lambda r: r[key])["nics"]}
            for key in ("err_throughput", "err_interrupts", "err_cpu")
        }
    return out


def default_shared_grid() -> list[tuple[Case, Case]]:
    """Two NICs on one core: light, contended and interrupt-storm cases."""
    return [
        (Case("napi", 64, 2e5), Case("timer", 2e-4, 2e5)),
        (Case("napi", 64, 5e5), Case("napi", 64, 4e5)),
        (Case("interrupt", 0, 3e5), Case("timer", 1e-4, 3e5)),
        (Case("interrupt", 0, 1.2e5), Case("watermark", 32, 4e5)),
        (Case("watermark", 64, 6e5), Case("watermark", 64, 6e5)),
        (Case("timer", 1e-3, 3e5), Case("napi", 64, 5e5)),
        (Case("interrupt", 0, 6e4), Case("napi", 16, 6e5, burst=4)),
        (Case("napi", 1, 4e5), Case("napi", 1, 3e5, burst=4)),
        (Case("napi", 3, 4.5e5), Case("napi", 1, 3.5e5, burst=4)),
        (Case("napi", 7, 4.5e5), Case("timer", 2e-3, 3.5e5, burst=4)),
    ]


def compare_shared(args: tuple[tuple[Case, ...], Host, int, int]) -> dict:
    """One multi-NIC case both ways (fluid evaluate_shared against simulate_shared)."""
    from .eventsim import simulate_shared
    from .model import evaluate_shared

    cases, host, n_packets, seed = args
    codes = [MODE_CODES[c.mode] for c in cases]
    fl = evaluate_shared(
        codes, [c.param for c in cases], [c.rate_pps for c in cases], [c.burst for c in cases], host
    )
    sims = simulate_shared(
        [(k, c.param, c.rate_pps, c.burst) for k, c in zip(codes, cases)], host, n_packets, "poisson", seed
    )
    err_thr = max(
        abs(fl.delivered_pps[i] / c.rate_pps - s.delivered / s.offered)
        for i, (c, s) in enumerate(zip(cases, sims))
    )
    err_irq = max(
        abs(fl.interrupts_per_s[i] / c.rate_pps - s.interrupts / s.offered)
        for i, (c, s) in enumerate(zip(cases, sims))
    )
    return {
        "nics": [f"{c.mode} {c.param:g} @ {c.rate_pps / 1e3:g} kpps x{c.burst}" for c in cases],
        "fluid_delivered_fraction": [float(fl.delivered_pps[i] / c.rate_pps) for i, c in enumerate(cases)],
        "sim_delivered_fraction": [s.delivered / s.offered for s in sims],
        "fluid_cpu_cores": float(fl.busy_cores.sum()),
        "sim_cpu_cores": sum(s.busy_s for s in sims) / sims[0].horizon_s,
        "err_throughput": float(err_thr),
        "err_interrupts": float(err_irq),
        "err_cpu": abs(float(fl.busy_cores.sum()) - sum(s.busy_s for s in sims) / sims[0].horizon_s),
        "conserved": all(s.offered == s.delivered + s.dropped + s.in_flight for s in sims),
    }
