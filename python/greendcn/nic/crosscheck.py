"""Cross-check of the fluid model against the packet-level event simulation on a grid of cases.

Disagreement is measured per offered packet, so that a case where almost nothing is delivered cannot blow
up a relative error: the difference in delivered fraction, the difference in interrupts per offered packet,
and the absolute difference in CPU utilisation. The report names the case with the largest disagreement.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..sweep import run_parallel
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
) -> dict:
    """Compare every case; return the rows and the largest disagreement of each kind."""
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
    return {"rows": rows, "worst": worst, "n_packets": n_packets, "seed": seed}
