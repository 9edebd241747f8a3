"""The host-energy study (`greendcn reproduce host-energy`, docs/host-energy.md): how much of a simulated run's
energy the hosts draw, and whether the host policy changes which fabric setting wins.

Runs: seed 003's static and random scenarios (k=4, 1 Gbps; seed 003 Table 1) and our k=8 permutation
benchmark (10 Gbps, scenarios/bench-k8-permutation.toml), each under single path and packet spraying, for
several seeds. Each run is simulated once and priced under every host policy (`reprice`): the packets do
not depend on how the hosts are priced. Policies: fixed at the highest frequency (the host defaults), fixed at
the lowest, AFFCON's DVFS affinity (seed 000 line 136), and the green optimizer's per-window plan (seed 004
lines 259-261)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ...core.pool import run_parallel
from ..run import reprice, simulate
from ..scenario import scenario_from_dict
from .metrics import run_metrics
from .rps import seed003_scenario

__all__ = [
    "POLICIES",
    "HostEnergyConfig",
    "findings",
    "k8_permutation_scenario",
    "reproduce_host_energy",
    "summarize",
    "write_figure",
]

# Policy label -> the [power.hosts] keys that select it (the example platform's highest and lowest frequency).
POLICIES: dict[str, list[str]] = {
    "fixed 3 GHz": ["power.hosts.policy=fixed", "power.hosts.frequency=3GHz"],
    "fixed 2 GHz": ["power.hosts.policy=fixed", "power.hosts.frequency=2GHz"],
    "affcon": ["power.hosts.policy=affcon"],
    "optimizer": ["power.hosts.policy=optimizer"],
}
SCHEMES = ("single", "rps")


def k8_permutation_scenario(size: str = "10MB") -> dict[str, Any]:
    """The raw scenario dict of scenarios/bench-k8-permutation.toml (a test keeps the two equal)."""
    return {
        "name": "bench-k8-permutation",
        "topology": {
            "kind": "fattree",
            "k": 8,
            "link_rate": "10Gbps",
            "link_delay": "25us",
            "queue": "1000pkt",
            "host_queue": "1000pkt",
        },
        "routing": {"scheme": "single"},
        "tcp": {"mss": 1448, "max_window": "128KB"},
        "workload": {"kind": "permutation", "size": size},
        "run": {"seed": 1},
    }


@dataclass(frozen=True)
class HostEnergyConfig:
    seeds: int = 3
    long_size: str = "10MB"  # seed 003's long flows (Table 1)
    k8_size: str = "10MB"  # the benchmark's flows

    @classmethod
    def quick(cls) -> HostEnergyConfig:
        """A small size for tests and a first look: one seed, 1 MB flows."""
        return cls(seeds=1, long_size="1MB", k8_size="1MB")


@dataclass(frozen=True)
class Case:
    scenario: str
    scheme: str
    seed: int
    raw: dict[str, Any]


def cases(cfg: HostEnergyConfig) -> list[Case]:
    out = []
    for seed in range(1, cfg.seeds + 1):
        for scheme in SCHEMES:
            for kind in ("static", "random"):
                raw = seed003_scenario(kind, long_size=cfg.long_size)
                raw["routing"]["scheme"] = scheme
                out.append(Case(f"seed003-{kind}", scheme, seed, raw))
            raw = k8_permutation_scenario(cfg.k8_size)
            raw["routing"]["scheme"] = scheme
            out.append(Case("k8-permutation", scheme, seed, raw))
    return out


def run_case(case: Case) -> list[dict[str, Any]]:
    """One simulation priced under every host policy; a module-level function for the worker processes."""
    res = simulate(scenario_from_dict(case.raw), seed=case.seed, progress=False)
    m = run_metrics(res.flows)
    rows = []
    for policy, keys in POLICIES.items():
        e = reprice(res, keys)
        sp, t = e.split, e.sim_time_s
        h = e.hosts or {}
        rows.append(
            {
                "scenario": case.scenario,
                "scheme": case.scheme,
                "seed": case.seed,
                "policy": policy,
                "sim_time_s": t,
                "delivered_bits": e.delivered_bits,
                "all_completed": bool(res.flows["fct_s"].notna().all()),
                "long_throughput_bps": m["long_throughput_bps"],
                "hosts_energy_j": sp["hosts_energy_j"],
                "switches_energy_j": sp["switches_energy_j"],
                "links_energy_j": sp["links_energy_j"],
                "total_energy_j": e.total_energy_j,
                "host_share": sp["host_share"],
                "hosts_avg_power_w": sp["hosts_energy_j"] / t if t > 0 else 0.0,
                "host_cpu_energy_j": h.get("cpu_energy_j", 0.0),
                "host_nic_energy_j": h.get("nic_energy_j", 0.0),
                "interrupts": h.get("interrupts", 0.0),
                "saturated_windows": h.get("saturated_windows", 0),
                "energy_per_bit_pj": e.energy_per_bit_pj,
                "energy_per_bit_pj_without_hosts": e.energy_per_bit_pj_without_hosts,
                "wall_s": res.summary["wall_s"],
            }
        )
    return rows


def reproduce_host_energy(
    cfg: HostEnergyConfig = HostEnergyConfig(), workers: int | None = None, progress: bool = True
) -> pd.DataFrame:
    """Every (run, policy) of the study, one row each."""
    batches = run_parallel(run_case, cases(cfg), workers=workers, desc="host-energy runs", progress=progress)
    return pd.DataFrame([row for rows in batches for row in rows])


def summarize(runs: pd.DataFrame) -> pd.DataFrame:
    """Means over seeds per (scenario, scheme, policy); saturated windows summed."""
    keys = ["scenario", "scheme", "policy"]
    g = runs.groupby(keys, sort=False)
    cols = [
        "sim_time_s",
        "hosts_energy_j",
        "switches_energy_j",
        "links_energy_j",
        "total_energy_j",
        "host_share",
        "hosts_avg_power_w",
        "host_cpu_energy_j",
        "host_nic_energy_j",
        "interrupts",
        "energy_per_bit_pj",
        "energy_per_bit_pj_without_hosts",
    ]
    out = g[cols].mean()
    out["saturated_windows"] = g["saturated_windows"].sum()
    out["all_completed"] = g["all_completed"].all()
    out["runs"] = g.size()
    return out.reset_index()


def findings(summary: pd.DataFrame) -> list[dict[str, Any]]:
    """Per scenario and scheme: the host share under each policy and the policy that draws least while
    carrying the load (no saturated window); per scenario and policy: whether counting the hosts changes
    which routing scheme delivers a bit for fewer joules."""
    out: list[dict[str, Any]] = []
    for (scenario, scheme), g in summary.groupby(["scenario", "scheme"], sort=False):
        ok = g[g["saturated_windows"] == 0]
        best = ok.loc[ok["total_energy_j"].idxmin()] if len(ok) else None
        out.append(
            {
                "scenario": scenario,
                "scheme": scheme,
                "host_share_pct": {r.policy: 100.0 * r.host_share for r in g.itertuples()},
                "winner": None if best is None else best["policy"],
                "winner_saves_pct_vs_default": None
                if best is None
                else 100.0
                * (
                    1.0
                    - best["total_energy_j"]
                    / float(g.loc[g["policy"] == "fixed 3 GHz", "total_energy_j"].iloc[0])
                ),
                "saturating_policies": sorted(g.loc[g["saturated_windows"] > 0, "policy"]),
            }
        )
    for (scenario, policy), g in summary.groupby(["scenario", "policy"], sort=False):
        if set(g["scheme"]) != set(SCHEMES):
            continue
        by = g.set_index("scheme")
        net = by["energy_per_bit_pj_without_hosts"].idxmin()
        tot = by["energy_per_bit_pj"].idxmin()
        out.append(
            {
                "scenario": scenario,
                "policy": policy,
                "cheaper_scheme_network_only": net,
                "cheaper_scheme_with_hosts": tot,
                "hosts_change_the_answer": bool(net != tot),
                "pj_per_bit_with_hosts": by["energy_per_bit_pj"].to_dict(),
                "pj_per_bit_without_hosts": by["energy_per_bit_pj_without_hosts"].to_dict(),
            }
        )
    return out


def write_figure(summary: pd.DataFrame, path: Path) -> Path:
    """Two panels: the hosts' share of the run's energy, and pJ per delivered bit (with hosts; the network
    alone as a black tick), per scenario and scheme, one bar per policy."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    order = list(dict.fromkeys(summary["scenario"]))
    groups = sorted(
        dict.fromkeys(zip(summary["scenario"], summary["scheme"])), key=lambda g: order.index(g[0])
    )
    policies = list(POLICIES)
    x = np.arange(len(groups))
    width = 0.8 / len(policies)
    from ...core.units import per_bit_unit

    unit, factor = per_bit_unit(float(summary["energy_per_bit_pj"].max()))
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
    for j, policy in enumerate(policies):
        sub = summary[summary["policy"] == policy].set_index(["scenario", "scheme"])
        share = [100.0 * sub.loc[gk, "host_share"] for gk in groups]
        per_bit = [sub.loc[gk, "energy_per_bit_pj"] * factor for gk in groups]
        ax1.bar(x + (j - (len(policies) - 1) / 2) * width, share, width, label=policy)
        ax2.bar(x + (j - (len(policies) - 1) / 2) * width, per_bit, width, label=policy)
    net = summary[summary["policy"] == policies[0]].set_index(["scenario", "scheme"])
    ax2.scatter(
        x,
        [net.loc[gk, "energy_per_bit_pj_without_hosts"] * factor for gk in groups],
        marker="_",
        s=600,
        c="k",
        label="network only",
        zorder=3,
    )
    ax1.set_ylabel("host share of energy (%)")
    ax2.set_ylabel(f"{unit} per delivered bit")
    ax2.set_yscale("log")
    ax2.set_xticks(x, [f"{s}\n{r}" for s, r in groups])
    ax1.legend(ncols=len(policies), fontsize=8)
    ax2.legend(ncols=len(policies) + 1, fontsize=8)
    ax1.set_title("host energy in the ledger: Kaymak 2016 (k=4, 1 Gbps) and the k=8 permutation (10 Gbps)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
