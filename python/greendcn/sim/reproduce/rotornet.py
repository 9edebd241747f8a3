"""`greendcn reproduce rotornet`: seed 001 Figure 2.10, RotorLB's throughput over one-hop forwarding against the
traffic density, from our fluid model, with the fabric's energy beside it.

Every number here is computed: the RotorLB fluid model (`sim.optical.rotorlb`) runs k = 1..56 heavy connections
among 8 racks on `--matrices` random matrices each, and random permutations besides. The thesis's statements are
printed beside ours with their line numbers. A packet-level column can be added by passing `packet_runner`
(a callable that simulates one fabric and demand and returns delivered bits per second); without it the packet
columns stay empty."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...core.errors import InputError
from ..optical.energy import DEFAULT_TOR, fabric_power
from ..optical.rotorlb import density_matrices, permutation_matrices, run_fluid
from ..optical.rotornet import (
    THESIS_GUARD_PS,
    THESIS_RACKS,
    THESIS_RATE_BPS,
    THESIS_RECONFIG_PS,
    THESIS_UPTIME_PS,
    build_rotornet,
    parse_layout,
    rotor_matchings,
)
from ..optical.schedule import CircuitFabric

__all__ = ["PacketRunner", "RotorNetConfig", "findings", "reproduce_rotornet", "write_figure"]

# packet_runner(fabric, demand (N x N, np.inf = backlogged heavy connection), rotorlb) -> delivered bits/s
PacketRunner = Callable[[CircuitFabric, np.ndarray, bool], float]

THESIS_MATRICES = 32  # seed 001 line 879
THESIS_GAIN_ONE_FLOW = 7  # seed 001 line 884: N_R - 1 with N_R = 8


@dataclass(frozen=True)
class RotorNetConfig:
    racks: int = THESIS_RACKS
    layout: str = "1x7"
    matrices: int = THESIS_MATRICES
    seed: int = 0
    densities: tuple[int, ...] | None = None  # heavy connections k; None: 1 .. N (N - 1)
    permutations: int | None = None  # random permutation matrices; None: as many as `matrices`
    uptime_ps: int = THESIS_UPTIME_PS
    guard_ps: int = THESIS_GUARD_PS
    reconfig_ps: int = THESIS_RECONFIG_PS
    rate_bps: int = THESIS_RATE_BPS
    tor: str | None = DEFAULT_TOR
    duration_s: float = 1.0  # our choice: energy over one second of steady state
    warmup_cycles: int = 6
    measure_cycles: int = 6

    def check(self) -> tuple[int, CircuitFabric]:
        """Refuse bad values (each error names its field); returns the switch count and the fabric."""
        if self.matrices < 1:
            raise InputError(
                f"matrices: need at least 1, got {self.matrices}",
                hint="e.g. --matrices 32",
                loc=("matrices",),
            )
        if self.seed < 0:
            raise InputError(f"seed: must be >= 0, got {self.seed}", hint="e.g. --seed 0", loc=("seed",))
        if self.warmup_cycles < 0 or self.measure_cycles < 1:
            raise InputError(
                "measure_cycles: need warmup_cycles >= 0 and measure_cycles >= 1",
                hint="e.g. 6 and 6",
                loc=("measure_cycles",),
            )
        pairs = self.racks * (self.racks - 1)
        for k in self.densities or ():
            if not 1 <= k <= pairs:
                raise InputError(
                    f"densities: {k} is not a number of heavy connections 1..{pairs}",
                    hint=f"k = 1..{pairs}",
                    loc=("densities",),
                )
        switches = parse_layout(self.layout, self.racks)
        fabric = build_rotornet(
            self.racks, switches, self.uptime_ps, self.reconfig_ps, self.rate_bps, self.guard_ps
        )
        if self.duration_s <= 0 or not np.isfinite(self.duration_s):
            raise InputError(
                f"duration_s: must be a positive time, got {self.duration_s}",
                hint="e.g. 1",
                loc=("duration_s",),
            )
        return switches, fabric


def _units_to_bps(cfg: RotorNetConfig, cycle_slots: int) -> float:
    """Bits per second of one unit per cycle: a unit is what a circuit carries in one slot, the rate times
    the uptime less the guard (the preallocation covers the hosts' fixed lag); a cycle is cycle_slots slots of
    uptime plus reconfiguration."""
    unit_bits = cfg.rate_bps * (cfg.uptime_ps - cfg.guard_ps) * 1e-12
    return unit_bits / (cycle_slots * (cfg.uptime_ps + cfg.reconfig_ps) * 1e-12)


def reproduce_rotornet(
    cfg: RotorNetConfig,
    progress: Callable[[int, int], None] | None = None,
    packet_runner: PacketRunner | None = None,
    packet_densities: Sequence[int] = (),
    packet_matrices: int = 4,
) -> dict[str, Any]:
    """The density table (one row per k), the permutation summary, the fabric's power and the findings."""
    switches, fabric = cfg.check()
    n = cfg.racks
    mats = rotor_matchings(n, switches)
    ks = list(cfg.densities or range(1, n * (n - 1) + 1))
    demand = np.concatenate([density_matrices(n, k, cfg.matrices, cfg.seed) for k in ks])
    perms = permutation_matrices(n, cfg.permutations or cfg.matrices, cfg.seed)
    batch = np.concatenate([demand, perms])
    cycles = cfg.warmup_cycles + cfg.measure_cycles
    total = 2 * cycles

    def step(offset: int) -> Callable[[int, int], None] | None:
        return None if progress is None else (lambda done, _all: progress(offset + done, total))

    lb = run_fluid(batch, mats, True, cfg.warmup_cycles, cfg.measure_cycles, progress=step(0))
    one = run_fluid(batch, mats, False, cfg.warmup_cycles, cfg.measure_cycles, progress=step(cycles))
    ratio = lb.delivered_per_cycle / one.delivered_per_cycle
    to_bps = _units_to_bps(cfg, lb.cycle_slots)
    power = fabric_power(switches, n, cfg.tor)
    rows = []
    m, pairs = cfg.matrices, n * (n - 1)
    for j, k in enumerate(ks):
        sl = slice(j * m, (j + 1) * m)
        r = ratio[sl]
        lb_bps = float(lb.delivered_per_cycle[sl].mean()) * to_bps
        one_bps = float(one.delivered_per_cycle[sl].mean()) * to_bps
        e_lb = power.energy(cfg.duration_s, lb_bps)
        e_one = power.energy(cfg.duration_s, one_bps)
        row = {
            "density": k / pairs,
            "connections": k,
            "matrices": m,
            "ratio_mean": float(r.mean()),
            "ratio_min": float(r.min()),
            "ratio_max": float(r.max()),
            "ratio_std": float(r.std()),
            "rotorlb_share_of_capacity": float(lb.normalized[sl].mean()),
            "onehop_share_of_capacity": float(one.normalized[sl].mean()),
            "rotorlb_bps": lb_bps,
            "onehop_bps": one_bps,
            "power_w": power.power_w,
            "energy_j": e_lb["energy_j"],
            "rotorlb_pj_per_bit": e_lb["pj_per_bit"],
            "onehop_pj_per_bit": e_one["pj_per_bit"],
            "packet_ratio_mean": np.nan,
            "packet_ratio_min": np.nan,
            "packet_ratio_max": np.nan,
            "packet_matrices": 0,
            "fluid_ratio_mean_same_matrices": np.nan,
        }
        if packet_runner is not None and k in packet_densities:
            got = []
            for d in demand[sl][:packet_matrices]:
                got.append(packet_runner(fabric, d, True) / packet_runner(fabric, d, False))
            row.update(
                packet_ratio_mean=float(np.mean(got)),
                packet_ratio_min=float(np.min(got)),
                packet_ratio_max=float(np.max(got)),
                packet_matrices=len(got),
                fluid_ratio_mean_same_matrices=float(r[: len(got)].mean()),
            )
        rows.append(row)
    table = pd.DataFrame(rows)
    pr = ratio[len(demand) :]
    perm = {
        "matrices": len(pr),
        "ratio_mean": float(pr.mean()),
        "ratio_min": float(pr.min()),
        "ratio_max": float(pr.max()),
        "rotorlb_bps": float(lb.delivered_per_cycle[len(demand) :].mean()) * to_bps,
        "onehop_bps": float(one.delivered_per_cycle[len(demand) :].mean()) * to_bps,
    }
    energy = power.energy(cfg.duration_s, float(table["rotorlb_bps"].mean()))
    return {
        "config": asdict(cfg),
        "switches": switches,
        "cycle_slots": lb.cycle_slots,
        "cycle_s": fabric.cycle_ps() * 1e-12,
        "densities": table,
        "permutations": perm,
        "energy_example": {
            "what": "energy over duration_s at the mean RotorLB throughput over densities (model)",
            **energy,
        },
        "findings": findings(table, perm, cfg, switches),
    }


def findings(table: pd.DataFrame, perm: dict, cfg: RotorNetConfig, switches: int) -> list[dict[str, str]]:
    """The thesis's RotorNet statements beside our fluid model's numbers."""
    by_k = table.set_index("connections")
    out = []
    if 1 in by_k.index:
        r = by_k.loc[1]
        out.append(
            {
                "source": "McGuinness 2021, section 2.5.4",
                "statement": "one heavy connection gains N_R - 1 = 7",
                "ours": f"ratio {r['ratio_mean']:.3f} (min {r['ratio_min']:.3f}, max {r['ratio_max']:.3f})",
            }
        )
    last = cfg.racks * (cfg.racks - 1)
    if last in by_k.index:
        r = by_k.loc[last]
        out.append(
            {
                "source": "McGuinness 2021, section 2.5.4",
                "statement": "RotorLB converges to one-hop for uniform traffic",
                "ours": f"ratio {r['ratio_mean']:.3f} at density 1 (all {last} connections)",
            }
        )
    out.append(
        {
            "source": "McGuinness 2021, section 2.5.4, Fig 2.10",
            "statement": "32 random matrices per density; "
            "intermediate values only in the figure (lost in the text)",
            "ours": f"{cfg.matrices} matrices per density; ratio falls from {table['ratio_mean'].iloc[0]:.3f} "
            f"to {table['ratio_mean'].iloc[-1]:.3f}, never below 1 (min {table['ratio_min'].min():.3f})",
        }
    )
    out.append(
        {
            "source": "ours (no statement in the thesis)",
            "statement": "RotorLB under random permutations",
            "ours": f"ratio {perm['ratio_mean']:.3f} (min {perm['ratio_min']:.3f}, max "
            f"{perm['ratio_max']:.3f}) over {perm['matrices']} permutations",
        }
    )
    out.append(
        {
            "source": "McGuinness 2021, section 2.5.4",
            "statement": "Fig 2.10 used a 10 ms uptime and a 1 ms guard",
            "ours": f"uptime {cfg.uptime_ps * 1e-9:g} ms, guard {cfg.guard_ps * 1e-9:g} ms, reconfiguration "
            f"{cfg.reconfig_ps * 1e-6:g} us: each circuit carries {(cfg.uptime_ps - cfg.guard_ps) / (cfg.uptime_ps + cfg.reconfig_ps):.1%} "
            "of its rate",
        }
    )
    out.append(
        {
            "source": "McGuinness 2021 Table 2.1 (section 2.1.3), section 2.1.3",
            "statement": "selector switch v1 draws 2.7 W",
            "ours": f"{switches} x 2.7 W of circuit switches + ToRs ({cfg.tor or 'none'}) = "
            f"{table['power_w'].iloc[0]:.1f} W, constant, so pJ per bit falls as the ratio rises",
        }
    )
    return out


def write_figure(table: pd.DataFrame, path: Path, perm: dict | None = None) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    x = table["density"]
    err = [table["ratio_mean"] - table["ratio_min"], table["ratio_max"] - table["ratio_mean"]]
    ax1.errorbar(x, table["ratio_mean"], yerr=err, fmt="o", ms=3, capsize=2, label="fluid model (greendcn)")
    if table["packet_matrices"].gt(0).any():
        sim = table[table["packet_matrices"] > 0]
        ax1.plot(sim["density"], sim["packet_ratio_mean"], "s", mfc="none", label="packet level")
    if perm is not None:
        ax1.axhline(perm["ratio_mean"], ls=":", color="grey", label="random permutations (model)")
    ax1.set_xlabel("traffic density (heavy connections / 56)")
    ax1.set_ylabel("throughput, RotorLB / one-hop")
    ax1.set_ylim(bottom=0)
    ax1.legend(fontsize=8)
    from ...core.units import per_bit_unit

    unit, factor = per_bit_unit(
        float(max(table["rotorlb_pj_per_bit"].max(), table["onehop_pj_per_bit"].max()))
    )
    ax2.plot(x, table["rotorlb_pj_per_bit"] * factor, label="RotorLB (model)")
    ax2.plot(x, table["onehop_pj_per_bit"] * factor, label="one-hop (model)")
    ax2.set_yscale("log")
    ax2.set_xlabel("traffic density")
    ax2.set_ylabel(f"{unit} per delivered bit")
    ax2.legend(fontsize=8)
    fig.suptitle("RotorNet, 8 racks: RotorLB against one-hop forwarding (cf. McGuinness 2021 Fig 2.10)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
