"""`greendcn reproduce energy-saving`: the fat-tree as built, with Energy-Efficient Ethernet (IEEE 802.3az),
under ElasticTree (Heller et al., NSDI 2010) and with both, and the circuit fabrics Opera and RotorNet, on the
same web-search and data-mining workloads at loads from 5 % to 60 %: network and host energy over one
observation window, pJ per delivered bit and the short flows' p99 slowdown (docs/energy-saving.md, "The
study").

The workload is the fabric comparison's load sweep (sim/fabrics_load.py): Poisson arrivals at each load from
one seed, destinations uniform over hosts of other circuit racks, the same flows on every fabric; each fabric
is run by sim/fabrics.py's run_one. Energy is over the window [0, duration) (run.window); the run continues
to at most three windows so that flows started in the window can finish (our choice)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "EnergySavingConfig",
    "findings",
    "parse_loads",
    "reproduce_energy_saving",
    "summarize",
    "write_csv",
    "write_figure",
]

# Heller et al. 2010 (abstract): ElasticTree saves up to 50 % of network energy for data-center workloads.
PUBLISHED_SAVING = 0.5

# --tree: the fabric comparison's fat-trees at 648 hosts (sim/fabrics.py)
TREES = {
    "1:1": "fat-tree 1:1",
    "3:1": "fat-tree 3:1",
    "cost-equivalent": "fat-tree k=12 (cost-equivalent)",
}

SCHEMES = (
    "fat-tree",
    "fat-tree + EEE",
    "fat-tree + ElasticTree",
    "fat-tree + EEE + ElasticTree",
    "opera",
    "rotornet",
)


@dataclass(frozen=True)
class EnergySavingConfig:
    # 32 racks x 4 circuit switches = 128 hosts: the k = 8 fat-tree's hosts (sim/fabrics_load.layout_for)
    racks: int = 32
    circuit_switches: int = 4
    loads: tuple[float, ...] = (0.05, 0.1, 0.2, 0.3, 0.45, 0.6)
    workloads: tuple[str, ...] = ("websearch", "datamining")
    duration_ps: int = 50_000_000_000  # our choice: 50 ms windows, fifty ElasticTree intervals
    link_rate_bps: int = 10 * 10**9
    interval: str = "1ms"
    margin: float = 0.8
    wake_time: str = "100us"
    seed: int = 1
    schemes: tuple[str, ...] = field(default=SCHEMES)
    # the fabric comparison's fat-tree the four tree schemes run on (sim/fabrics.py's fabric_plan names)
    tree: str = "fat-tree 1:1"

    @classmethod
    def network_648(cls, tree: str = "1:1", loads: tuple[float, ...] | None = None) -> EnergySavingConfig:
        """The fabric comparison's 648-host networks (docs/fabrics.md): Opera and RotorNet on 108 racks of 6
        hosts and 6 circuit switches, and one of its fat-trees for the tree schemes: `tree` "1:1" (k = 14,
        its first 648 of 686 hosts), "3:1" (k = 10, 648 of 750) or "cost-equivalent" (k = 12 at 1.5 hosts
        per edge uplink, 648 hosts, the Opera paper's comparison)."""
        if tree not in TREES:
            from ...core.errors import InputError

            raise InputError(
                f"--tree: unknown fat-tree {tree!r}",
                hint="one of " + ", ".join(TREES),
                loc=("tree",),
            )
        return cls(
            racks=108,
            circuit_switches=6,
            tree=TREES[tree],
            **({"loads": loads} if loads else {}),
        )

    @classmethod
    def quick(cls) -> EnergySavingConfig:
        """Seconds: 16 hosts (a k = 4 fat-tree), web search only, three loads, 2 ms."""
        return cls(
            racks=4,
            circuit_switches=4,
            loads=(0.05, 0.3, 0.6),
            workloads=("websearch",),
            duration_ps=2_000_000_000,
            interval="250us",
            wake_time="25us",
        )


def parse_loads(text: str) -> tuple[float, ...]:
    """`--loads`: comma-separated loads, each in (0, 1]."""
    from ...core.errors import InputError

    try:
        values = tuple(float(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise InputError(
            f"--loads: {text!r} is not a comma-separated list of numbers", hint="e.g. 0.05,0.3,0.6"
        ) from None
    if not values or not all(0 < v <= 1 for v in values):
        raise InputError(f"--loads: {text!r} must list loads in (0, 1]", hint="e.g. 0.05,0.3,0.6")
    return values


def _fabrics_config(cfg: EnergySavingConfig) -> Any:
    from ..fabrics import FabricsConfig

    return FabricsConfig(
        racks=cfg.racks, circuit_switches=cfg.circuit_switches, link_rate_bps=cfg.link_rate_bps, seed=cfg.seed
    )


def _entries(cfg: EnergySavingConfig) -> dict[str, dict[str, Any]]:
    from ..fabrics import eee_phy, fabric_plan

    plan = {e["fabric"]: e for e in fabric_plan(_fabrics_config(cfg))}
    tree = plan[cfg.tree]
    slept = tree | {
        "fabric": "fat-tree + ElasticTree",
        "scenario": {
            "elastictree": {
                "enabled": True,
                "interval": cfg.interval,
                "margin": cfg.margin,
                "wake_time": cfg.wake_time,
            }
        },
    }
    # Energy-Efficient Ethernet with the PHY of the link rate (10GBASE-T at 10 Gb/s); switches are then priced
    # port by port (power/ports.py), which equals the table's power with every port active
    eee = {"enabled": True, "phy": eee_phy(cfg.link_rate_bps)}
    both = slept | {"fabric": "fat-tree + EEE + ElasticTree", "eee": eee}
    return {
        "fat-tree": tree | {"fabric": "fat-tree"},
        "fat-tree + EEE": tree | {"fabric": "fat-tree + EEE", "eee": eee},
        "fat-tree + ElasticTree": slept,
        "fat-tree + EEE + ElasticTree": both,
    } | {k: plan[k] for k in ("opera", "rotornet")}


def _job(task: tuple[EnergySavingConfig, str, float, str]) -> dict[str, Any]:
    """One (workload, load, scheme): its row."""
    from ..fabrics import run_one
    from ..fabrics_load import generated_flows

    cfg, sizes, load, scheme = task
    fcfg = _fabrics_config(cfg)
    flows = generated_flows(fcfg, load, sizes, cfg.duration_ps)
    d = cfg.duration_ps
    run = {"window": ["0ps", f"{d}ps"], "stop_time": f"{3 * d}ps"}
    row = run_one(_entries(cfg)[scheme], flows, cfg.seed, hosts=fcfg.hosts, run=run)
    row.pop("_flows", None)
    row.pop("devices", None)
    bits = row.get("window_delivered_bits") or 0
    net_j = row["window_energy_j"] - row["window_hosts_energy_j"]
    return {
        "workload": sizes,
        "load": load,
        "scheme": scheme,
        "flows": row["flows"],
        "flows_completed": row["flows_completed"],
        "network_energy_j": net_j,
        "hosts_energy_j": row["window_hosts_energy_j"],
        "total_energy_j": row["window_energy_j"],
        "network_power_w": net_j / (d * 1e-12),
        "network_energy_per_bit_pj": net_j / bits * 1e12 if bits else None,
        "energy_per_bit_pj": row.get("window_energy_per_bit_pj"),
        "short_slowdown_p99": row.get("short_slowdown_p99"),
        "drops": row["drops"],
        "delivered_bits": bits,
    }


def reproduce_energy_saving(
    cfg: EnergySavingConfig, workers: int | None = None, progress: bool = True
) -> list[dict[str, Any]]:
    """Every (workload, load, scheme), on a process pool; rows in that order."""
    from ...core.pool import run_parallel
    from ..fabrics_load import check_sizes

    for sizes in cfg.workloads:
        check_sizes(sizes)
    tasks = [(cfg, w, load, s) for w in cfg.workloads for load in cfg.loads for s in cfg.schemes]
    return run_parallel(_job, tasks, workers=workers, desc="runs", progress=progress)


def summarize(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows with each scheme's network-energy saving against the fat-tree as built, at the same load."""
    base = {(r["workload"], r["load"]): r["network_energy_j"] for r in rows if r["scheme"] == "fat-tree"}
    out = []
    for r in rows:
        b = base.get((r["workload"], r["load"]))
        out.append(r | {"network_saving": 1 - r["network_energy_j"] / b if b else None})
    return out


TREE_SCHEMES = ("fat-tree + EEE", "fat-tree + ElasticTree", "fat-tree + EEE + ElasticTree")


def findings(summary: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per workload: ElasticTree's network saving at the lowest and the highest load, beside the published
    figure, and whether it falls as load rises; each fat-tree scheme's saving per load, and whether EEE and
    ElasticTree together use the least network energy of the fat-tree schemes at every load."""
    out = []
    for w in dict.fromkeys(r["workload"] for r in summary):
        per_load: dict[float, dict[str, float]] = {}
        for r in summary:
            if r["workload"] == w and r["scheme"] in TREE_SCHEMES and r["network_saving"] is not None:
                per_load.setdefault(r["load"], {})[r["scheme"]] = r["network_saving"]
        complete = {load: v for load, v in per_load.items() if len(v) == len(TREE_SCHEMES)}
        both_lowest = (
            all(v[TREE_SCHEMES[2]] >= max(v.values()) - 1e-12 for v in complete.values())
            if complete
            else None
        )
        pts = sorted(
            (r["load"], r["network_saving"])
            for r in summary
            if r["workload"] == w
            and r["scheme"] == "fat-tree + ElasticTree"
            and r["network_saving"] is not None
        )
        if not pts:
            continue
        out.append(
            {
                "workload": w,
                "saving_at_lowest_load": pts[0][1],
                "lowest_load": pts[0][0],
                "saving_at_highest_load": pts[-1][1],
                "highest_load": pts[-1][0],
                "falls_with_load": all(b[1] <= a[1] + 1e-9 for a, b in zip(pts, pts[1:])),
                "published_up_to": PUBLISHED_SAVING,
                "savings_by_load": [{"load": load} | v for load, v in sorted(per_load.items())],
                "both_lowest_at_every_load": both_lowest,
            }
        )
    return out


CSV_COLUMNS = (
    "workload",
    "load",
    "scheme",
    "flows",
    "flows_completed",
    "network_energy_j",
    "hosts_energy_j",
    "total_energy_j",
    "network_power_w",
    "network_saving",
    "network_energy_per_bit_pj",
    "energy_per_bit_pj",
    "short_slowdown_p99",
    "drops",
)


def write_csv(rows: list[dict[str, Any]], path: Path) -> None:
    from ...core.clitools import write_csv as write_rows

    write_rows(rows, path, CSV_COLUMNS)


def write_figure(rows: list[dict[str, Any]], path: Path) -> Path:
    """One row of panels per workload: network pJ per delivered bit and the short flows' p99 slowdown
    against load, one line per scheme."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    schemes = list(dict.fromkeys(r["scheme"] for r in rows))
    fig, axes = plt.subplots(len(workloads), 2, figsize=(10, 3.4 * len(workloads)), squeeze=False)
    for i, w in enumerate(workloads):
        for j, (key, label, log) in enumerate(
            (
                ("network_energy_per_bit_pj", "network pJ per delivered bit (window)", True),
                ("short_slowdown_p99", "p99 slowdown, flows < 100 KB", True),
            )
        ):
            ax = axes[i][j]
            for s in schemes:
                pts = [
                    (r["load"], r[key])
                    for r in rows
                    if r["workload"] == w and r["scheme"] == s and r.get(key)
                ]
                if pts:
                    ax.plot(*zip(*pts), marker="o", label=s)
            ax.set_xlabel("offered load (share of every host's link rate)")
            ax.set_ylabel(label)
            ax.set_title(w)
            if log:
                ax.set_yscale("log")
            ax.grid(alpha=0.3)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def config_dict(cfg: EnergySavingConfig) -> dict[str, Any]:
    return asdict(cfg)
