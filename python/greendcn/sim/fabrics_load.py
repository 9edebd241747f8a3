"""The fabric comparison on a user's workload (`greendcn fabrics --workload`) and under a load sweep
(`greendcn fabrics --load 0.05,0.1,0.3 --sizes websearch`): the same host-to-host flows on Opera, RotorNet,
SelectorNet and fat-trees, sized to the workload's hosts (docs/fabrics.md, "Any workload", says which parts
are ours).

- A flow file (`src,dst,size_bytes,start_s[,class]`, hosts S0..) runs on the fabrics of --racks x --switches
  hosts; a host beyond them is refused naming the file's line.
- A scenario's [workload] is built on the scenario's own topology (generated workloads included) and its H
  hosts run on fabrics of H hosts: H = racks x switches with the first of 4, 6, 8, 3, 2, ... switches that
  makes an even number of racks (at least 4) divisible by the switches (our choice: 4 as the default
  comparison, 6 to give Opera's 108 x 6 for 648 hosts).
- The load sweep generates a Poisson workload at each load with the same seed (sim/workload/generate.py):
  `sizes` from the shipped tables, `duration`, pattern uniform over hosts of other circuit racks (our choice:
  every flow then crosses a circuit, as in the fixed comparison, so the fabrics rather than the ToRs are
  compared). Energy over the window [0, duration) (run.window) beside the run's (until the last flow)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from ..core.errors import InputError
from .fabrics import (
    FabricsConfig,
    comparison_notes,
    fabric_plan,
    flow_columns,
    outcome_notes,
    run_fabric,
    run_flows,
)

__all__ = [
    "compare_on_flows",
    "flows_of_file",
    "flows_of_scenario",
    "layout_for",
    "load_sweep",
    "parse_loads",
]

SWITCH_PREFERENCE = (4, 6, 8, 3, 2, 5, 7, 9, 10, 12, 16)  # our choice (module doc)


def layout_for(hosts: int, what: str = "workload") -> tuple[int, int]:
    """(racks, circuit switches) of the circuit fabrics for `hosts` hosts, hosts per rack = switches."""
    for u in SWITCH_PREFERENCE:
        racks, rest = divmod(hosts, u)
        if not rest and racks >= 4 and racks % 2 == 0 and racks % u == 0:
            return racks, u
    raise InputError(
        f"{what}: {hosts} hosts cannot be racks x switches with an even number of racks (at least 4) that the "
        "switches divide, as Opera needs",
        hint="use a workload of 16, 32, 48, 128 or 648 hosts (e.g. a k = 4 or k = 8 fat-tree)",
        loc=(what,),
    )


def parse_loads(text: str) -> list[float]:
    """--load: comma-separated offered loads, each in (0, 1] (of every host's link rate)."""
    out = []
    for part in text.split(","):
        try:
            v = float(part)
        except ValueError:
            raise InputError(
                f"--load: {part.strip()!r} is not a number", hint="e.g. --load 0.05,0.1,0.3", loc=("load",)
            ) from None
        if not 0 < v <= 1:
            raise InputError(
                f"--load: {v:g} is outside (0, 1] (a share of every host's link rate)",
                hint="e.g. --load 0.05,0.1,0.3",
                loc=("load",),
            )
        out.append(v)
    return out


def _host_names(hosts: int) -> Any:
    """Just enough of a network for sim/workload/explicit.py to name hosts S0..S(H-1): the hosts, no links."""
    from .topology.graph import Network, Node

    return Network([Node(f"S{i}", "host") for i in range(hosts)], [])


def flows_of_file(path: Path, hosts: int) -> Any:
    """A CSV flow list's flows on `hosts` hosts, as the comparison's columns (`fabrics.flow_columns`)."""
    from .workload import read_flows_csv

    try:
        flows = read_flows_csv(path, _host_names(hosts), what="--workload")
    except InputError as e:
        if "no host named" in str(e) or "does not exist" in str(e):
            raise InputError(
                f"--workload: {e}",
                hint=f"the fabrics have {hosts} hosts, S0..S{hosts - 1} (--racks x --switches); "
                "give more racks or switches",
                loc=("workload",),
            ) from None
        raise
    return flow_columns(flows)


def flows_of_scenario(path: Path, seed: int) -> tuple[Any, int, dict[str, Any] | None, str, int]:
    """A scenario's workload built on its own topology: flows (`fabrics.flow_columns`), host count, the energy
    window ([run] keys: the scenario's run.window, else a generated workload's [start, start + duration)), a
    label, and the topology's link rate (the fabrics' link rate, so the load means the same)."""
    from .scenario import load_scenario
    from .workload import build_workload, is_generated
    from .workload.columns import FlowColumns

    sc = load_scenario(path)
    if sc.topology.kind in ("rotornet", "selectornet", "opera"):
        from .optical.scenario_run import endpoint_network

        net = endpoint_network(sc.topology)
    else:
        from .topology import build_topology

        net = build_topology(sc.topology)
    flows = build_workload(sc, net, seed)
    hosts = len(net.hosts)
    window = None
    if sc.run.window is not None:
        window = [f"{sc.run.window[0]}ps", f"{sc.run.window[1]}ps"]
    elif is_generated(sc.workload) and getattr(sc.workload, "duration", None):
        start = int(getattr(sc.workload, "start", 0) or 0)
        window = [f"{start}ps", f"{start + int(sc.workload.duration)}ps"]
    if not isinstance(flows, FlowColumns):  # a list of `Flow` (static, random, permutation, listed flows)
        flows = [(f.src, f.dst, f.size_bytes, f.start_ps, f.cls) for f in flows]
    label = f"{path.name}'s workload ({sc.workload.kind})"
    return (
        flow_columns(flows),
        hosts,
        ({"window": window} if window else None),
        label,
        int(sc.topology.link_rate),
    )


def compare_on_flows(
    cfg: FabricsConfig,
    flows: Any,
    label: str,
    run: dict[str, Any] | None = None,
    progress: Callable[[str], None] | None = None,
    keep_flows: bool = True,
) -> dict[str, Any]:
    """The comparison (sim/fabrics.py) on given flows; rows carry the short flows' slowdown and, with a
    window, its energy; `keep_flows` adds each fabric's flows as run (src, dst, size, start, FCT: a
    `fabrics.FlowRows`). `flows` become one set of columns that every fabric's engine takes."""
    cfg.check()
    plan = fabric_plan(cfg)
    flows = run_flows(flows)
    rows = []
    left_out: list[dict[str, str]] = []
    for entry in plan:
        row = run_fabric(entry, flows, cfg, left_out, run=run or {})
        if row is not None:
            if keep_flows:
                row["flow_list"] = row.pop("_flows")
            else:
                row.pop("_flows")
            rows.append(row)
        if progress is not None:
            progress(entry["fabric"])
    notes = comparison_notes(cfg) + outcome_notes(rows, left_out, cfg.transport)
    return {
        "config": {
            "racks": cfg.racks,
            "circuit_switches": cfg.circuit_switches,
            "hosts": cfg.hosts,
            "workload": label,
            "flows": len(flows),
            "link_rate_bps": cfg.link_rate_bps,
            "seed": cfg.seed,
            "hosts_priced": cfg.price_hosts,
            "transport": cfg.transport,
            "run": run or {},
        },
        "fabrics": rows,
        "left_out": left_out,
        "notes": notes,
    }


def generated_flows(
    cfg: FabricsConfig, load: float, sizes: str, duration_ps: int, pattern: str = "uniform"
) -> Any:
    """A Poisson workload at `load` on the circuit fabrics' hosts (racks of `circuit_switches` hosts), from
    the run's seed: the same seed at every load; as the comparison's columns (`fabrics.flow_columns`), no
    Python object per flow."""
    from .scenario import scenario_from_dict
    from .workload import GenContext, generate_table

    sc = scenario_from_dict(
        {
            "name": "fabrics-load",
            "topology": {
                "kind": "rotornet",
                "racks": cfg.racks,
                "circuit_switches": cfg.circuit_switches,
                "hosts_per_rack": cfg.circuit_switches,
                "link_rate": f"{cfg.link_rate_bps}bps",
            },
            "routing": {"scheme": "rotorlb"},
            "workload": {
                "kind": "poisson",
                "sizes": sizes,
                "load": load,
                "duration": f"{duration_ps}ps",
                "pattern": pattern,
                "inter_rack": True,
            },
        }
    )
    ctx = GenContext.of(sc.topology, cfg.hosts, None)
    return flow_columns(generate_table(sc.workload, ctx, cfg.seed).to_columns())


def check_sizes(sizes: str) -> None:
    """--sizes: a shipped size table's name (or a CDF file), refused with the option's name."""
    from .workload import load_distribution

    try:
        load_distribution(sizes, None, "--sizes")
    except InputError as e:
        msg = str(e)
        raise InputError(
            msg if msg.startswith("--sizes") else f"--sizes: {msg}", hint=e.hint, loc=("sizes",)
        ) from None


def load_sweep(
    cfg: FabricsConfig,
    loads: list[float],
    sizes: str,
    duration_ps: int,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Every fabric at every load: one row per (fabric, load) with the short flows' p99 slowdown and pJ/bit
    over the window [0, duration) and over the run."""
    check_sizes(sizes)
    run = {"window": ["0ps", f"{duration_ps}ps"]}
    rows: list[dict[str, Any]] = []
    left_out: list[dict[str, Any]] = []
    notes = comparison_notes(cfg)
    for load in loads:
        flows = generated_flows(cfg, load, sizes, duration_ps)
        if not flows:
            raise InputError(
                f"--load: {load:g} gives no flows in {duration_ps / 1e9:g} ms on {cfg.hosts} hosts",
                hint="raise --load or --duration",
                loc=("load",),
            )
        out = compare_on_flows(cfg, flows, "", run=run, keep_flows=False)
        notes += [f"load {load:g}: {n}" for n in out["notes"] if n not in notes]
        left_out += [{"load": load} | x for x in out["left_out"]]
        for r in out["fabrics"]:
            rows.append(
                {"load": load, "flows_offered": len(flows)} | {k: v for k, v in r.items() if k != "devices"}
            )
        if progress is not None:
            progress(f"load {load:g}")
    return {
        "config": {
            "racks": cfg.racks,
            "circuit_switches": cfg.circuit_switches,
            "hosts": cfg.hosts,
            "loads": loads,
            "sizes": sizes,
            "duration_s": duration_ps / 1e12,
            "pattern": "uniform, inter-rack (circuit racks)",
            "link_rate_bps": cfg.link_rate_bps,
            "seed": cfg.seed,
            "hosts_priced": cfg.price_hosts,
            "transport": cfg.transport,
            "window_s": [0.0, duration_ps / 1e12],
        },
        "rows": rows,
        "left_out": left_out,
        "notes": notes,
    }


CSV_COLUMNS = (
    "fabric",
    "load",
    "transport",
    "flows",
    "flows_completed",
    "short_flows",
    "short_completed",
    "short_slowdown_p50",
    "short_slowdown_p99",
    "fct_p99_s",
    "throughput_bps",
    "window_energy_j",
    "window_power_w",
    "window_energy_per_bit_pj",
    "window_host_share",
    "energy_j",
    "sim_time_s",
    "energy_per_bit_pj",
    "host_share",
    "drops",
)


def write_csv(rows: list[dict[str, Any]], path: Path) -> None:
    from ..core.clitools import write_csv as write_rows

    write_rows(rows, path, CSV_COLUMNS)


def plot_sweep(rows: list[dict[str, Any]], slowdown_png: Path, energy_png: Path) -> None:
    """Two figures, one line per fabric against load: the short flows' p99 slowdown, and pJ (or nJ) per
    delivered bit over the window."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..core.units import per_bit_unit

    fabrics = list(dict.fromkeys(r["fabric"] for r in rows))
    per_bit = [r["window_energy_per_bit_pj"] for r in rows if r.get("window_energy_per_bit_pj") is not None]
    unit, factor = per_bit_unit(max(per_bit, default=0.0))
    figures = (
        (slowdown_png, "short_slowdown_p99", 1.0, "p99 slowdown, flows < 100 KB", True),
        (energy_png, "window_energy_per_bit_pj", factor, f"{unit} per delivered bit (window)", False),
    )
    for path, key, scale, label, log in figures:
        fig, ax = plt.subplots(figsize=(5.5, 3.6))
        for name in fabrics:
            pts = [
                (r["load"], r[key] * scale) for r in rows if r["fabric"] == name and r.get(key) is not None
            ]
            if pts:
                ax.plot(*zip(*pts), marker="o", label=name)
        ax.set_xlabel("offered load (share of every host's link rate)")
        ax.set_ylabel(label)
        if log:
            ax.set_yscale("log")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=90)
        plt.close(fig)
