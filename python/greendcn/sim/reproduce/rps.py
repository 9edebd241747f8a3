"""Reproduce seed 003 (Kaymak & Rojas-Cessa, packet spraying in a k=4 fat-tree): the runs behind its
Figs 2-9, plus our duplicate-ACK threshold comparison, as one table of per-run metrics.

What the paper states (seed 003): k=4 fat-tree, 1 Gbps links of 25 us, 1000-packet drop-tail queues, 1500-byte
packets, TCP, 10 MB long / 200 KB short flows (Table 1, lines 62-72); static scenario with 0..5 long flows to
S15 plus a short flow S0 -> S15, random scenario with 20 short flows (line 60); 10 runs per test (line 60);
Figs 8-9 compare 10 and 20 short flows under spraying (lines 110-122). Ours (issue 7): NewReno, MSS 1448,
IW 10, min RTO 1 s, delayed ACKs, 128 KB window cap, all flows start at 0, random scenario N = 1..5 (the
paper's range is lost with its figure), and the reorder-tolerant threshold (100 duplicate ACKs: more than a
128 KB window holds, so reordering alone can never trigger a fast retransmit)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..scenario import scenario_from_dict
from ..run import simulate
from ...core.pool import run_parallel
from .metrics import run_metrics

__all__ = ["Case", "RpsConfig", "cases", "reproduce_rps", "run_case", "seed003_scenario", "summarize"]

SCHEMES = ("single", "rps")


def seed003_scenario(kind: str = "static", **workload: Any) -> dict[str, Any]:
    """The raw scenario dict of scenarios/seed003-<kind>.toml (a test keeps the two equal)."""
    return {
        "name": f"seed003-{kind}",
        "topology": {
            "kind": "fattree",
            "k": 4,
            "link_rate": "1Gbps",
            "link_delay": "25us",
            "queue": "1000pkt",
            "host_queue": "1000pkt",
        },
        # ns-3's global routing without ECMP, which seed 003 ran: every flow takes the first equal-cost port
        "routing": {"scheme": "single", "single_path": "first"},
        "tcp": {
            "mss": 1448,
            "initial_window": 10,
            "min_rto": "1s",
            "initial_rto": "1s",
            "dupack_threshold": 3,
            "max_window": "128KB",
            "delayed_ack": True,
        },
        "workload": {
            "kind": kind,
            "long_flows": 5,
            "long_size": "10MB",
            "short_size": "200KB",
            **({"short_flows": 20} if kind == "random" else {}),
            "start_jitter": "0s",
            **workload,
        },
        "run": {"seed": 1},
    }


@dataclass(frozen=True)
class RpsConfig:
    seeds: int = 10
    long_size: str = "10MB"
    short_size: str = "200KB"
    static_n: tuple[int, ...] = (0, 1, 2, 3, 4, 5)
    random_n: tuple[int, ...] = (1, 2, 3, 4, 5)
    short_counts: tuple[int, ...] = (10, 20)  # Figs 8-9; the last one is the random scenario's own
    tolerant_dupack: int = 100
    single_path: str = "first"  # ns-3's choice, which seed 003 ran; "hashed" is the 0.1 behaviour

    @classmethod
    def quick(cls) -> RpsConfig:
        """A small size for tests: 2 seeds, 1 MB long flows, fewer N."""
        return cls(seeds=2, long_size="1MB", static_n=(0, 2, 4), random_n=(1, 3), short_counts=(10, 20))


@dataclass(frozen=True)
class Case:
    experiment: str  # static, random, shorts (Figs 8-9), dupack
    scenario: str  # static or random
    scheme: str
    n_long: int
    n_short: int
    dupack: int
    seed: int
    raw: dict[str, Any] = field(hash=False, compare=False)


def _case(
    cfg: RpsConfig, experiment: str, kind: str, scheme: str, n: int, shorts: int, dupack: int, seed: int
) -> Case:
    wl: dict[str, Any] = {"long_flows": n, "long_size": cfg.long_size, "short_size": cfg.short_size}
    if kind == "random":
        wl["short_flows"] = shorts
    raw = seed003_scenario(kind, **wl)
    raw["routing"]["scheme"] = scheme
    raw["routing"]["single_path"] = cfg.single_path
    raw["tcp"]["dupack_threshold"] = dupack
    return Case(experiment, kind, scheme, n, shorts if kind == "random" else 1, dupack, seed, raw)


def cases(cfg: RpsConfig) -> list[Case]:
    out: list[Case] = []
    seeds = range(1, cfg.seeds + 1)
    full_shorts = cfg.short_counts[-1]
    for s in seeds:
        for scheme in SCHEMES:
            out += [_case(cfg, "static", "static", scheme, n, 1, 3, s) for n in cfg.static_n]
            out += [_case(cfg, "random", "random", scheme, n, full_shorts, 3, s) for n in cfg.random_n]
        out += [
            _case(cfg, "shorts", "random", "rps", n, m, 3, s)
            for m in cfg.short_counts[:-1]
            for n in cfg.random_n
        ]
        out += [_case(cfg, "dupack", "static", "rps", n, 1, cfg.tolerant_dupack, s) for n in cfg.static_n]
        out += [
            _case(cfg, "dupack", "random", "rps", n, full_shorts, cfg.tolerant_dupack, s)
            for n in cfg.random_n
        ]
    return out


def run_case(case: Case) -> dict[str, Any]:
    """One simulation; a module-level function so that worker processes can run it."""
    res = simulate(scenario_from_dict(case.raw), seed=case.seed)
    row = {
        "experiment": case.experiment,
        "scenario": case.scenario,
        "scheme": case.scheme,
        "n_long": case.n_long,
        "n_short": case.n_short,
        "dupack_threshold": case.dupack,
        "seed": case.seed,
    }
    row.update(run_metrics(res.flows))
    row.update(
        {
            "drops": res.summary["drops"],
            "sim_time_s": res.summary["sim_time_s"],
            "events": res.summary["events"],
            "wall_s": res.summary["wall_s"],
        }
    )
    return row


def reproduce_rps(
    cfg: RpsConfig = RpsConfig(), workers: int | None = None, progress: bool = True
) -> pd.DataFrame:
    """Every run of the study, one row each (the 'runs' table)."""
    rows = run_parallel(run_case, cases(cfg), workers=workers, desc="Kaymak 2016 runs", progress=progress)
    return pd.DataFrame(rows)


def summarize(runs: pd.DataFrame) -> pd.DataFrame:
    """Means over seeds of each (experiment, scenario, scheme, N, shorts, threshold); stds alongside.

    The dupack rows at threshold 3 are the 'static'/'random' rps rows themselves, so they are not run twice."""
    keys = ["experiment", "scenario", "scheme", "n_long", "n_short", "dupack_threshold"]
    metrics = ["long_throughput_bps", "short_fct_s", "ooo_pct", "retransmits", "spurious_retransmits"]
    g = runs.groupby(keys, sort=True)
    mean = g[metrics].mean()
    std = g[["long_throughput_bps", "short_fct_s", "ooo_pct"]].std(ddof=0).add_suffix("_std")
    out = mean.join(std)
    out["runs"] = g.size()
    out["all_completed"] = g["all_completed"].all()
    return out.reset_index()
