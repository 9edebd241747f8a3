"""The simulator's commands: `greendcn simulate` and `greendcn demo` (in `app`, merged into the root app) and
`greendcn reproduce ...` (in `reproduce_app`), which reruns a seed paper's headline experiments."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import typer

from ..core.errors import InputError

from ..core.clitools import JsonOption, echo_table, info, write_json, finite_float

__all__ = ["app", "reproduce_app"]

app = typer.Typer()
reproduce_app = typer.Typer(help="Reproduce the seed papers' headline experiments.", no_args_is_help=True)


def _class_rows(res: Any) -> list[dict[str, Any]]:
    rows = []
    for cls, g in res.flows.groupby("class", sort=True):
        rec = g["packets_received"].sum()
        rows.append(
            {
                "class": cls,
                "flows": len(g),
                "completed": int(g["fct_s"].notna().sum()),
                "mean_fct_ms": g["fct_s"].mean() * 1e3,
                "max_fct_ms": g["fct_s"].max() * 1e3,
                "mean_Mbps": g["throughput_bps"].mean() / 1e6,
                "retx": int(g["retransmits"].sum()),
                "spurious": int(g["spurious_retransmits"].sum()),
                "ooo_%": 100.0 * g["ooo_packets"].sum() / rec if rec else math.nan,
            }
        )
    return rows


def _print_summary(res: Any) -> None:
    s = res.summary
    print(f"scenario {s['scenario']}  routing {s['routing']}  seed {s['seed']}  flows {s['flows']}")
    echo_table(_class_rows(res))
    print(
        f"simulated {s['sim_time_s']:.6g} s, {s['events']} events, {s['packet_hops']} packet-hops, "
        f"{s['drops']} drops, engine wall {s['wall_s']:.3g} s ({s.get('stopped_by', '')})"
    )
    if "transport" in s:
        print(f"transport: {s['transport']}")
    if "opera_routing" in s:
        print(f"opera: {s['opera_routing']}")
    busiest = res.links.nlargest(3, "utilization")
    print(
        "busiest link directions: "
        + ", ".join(f"{r['from']}->{r['to']} {100 * r['utilization']:.0f} %" for _, r in busiest.iterrows())
    )
    e = res.energy
    if e is not None:
        per_bit = "n/a" if e.energy_per_bit_pj is None else f"{e.energy_per_bit_pj:.4g} pJ per delivered bit"
        print(
            f"energy {e.total_energy_j:.4g} J over {len(e.devices)} priced devices, average "
            f"{e.avg_power_w:.4g} W, {per_bit} (models: "
            + (
                "topology.circuit_switch and topology.tor_switch, constant power from the switch table)"
                if "fabric" in s
                else "the scenario's [power] table, docs/models.md)"
            )
        )
        sp = e.split
        no_hosts = e.energy_per_bit_pj_without_hosts
        print(
            f"split: hosts {sp['hosts_energy_j']:.4g} J ({100 * sp['host_share']:.1f} %), switches "
            f"{sp['switches_energy_j']:.4g} J, links {sp['links_energy_j']:.4g} J; without hosts "
            + ("n/a" if no_hosts is None else f"{no_hosts:.4g} pJ per delivered bit")
        )
        print(f"hosts: {e.hosts['note'] if e.hosts else 'no host models (power.host_w, or hosts left out)'}")
        for kind, label in (("node:host", "hosts"), ("node:switch", "switches")):
            devs = [d for d in e.devices if d["kind"] == kind]
            if devs:
                top = max(devs, key=lambda d: d["avg_power_w"])
                print(
                    f"  {label}: {len(devs)}, mean {sum(d['avg_power_w'] for d in devs) / len(devs):.4g} W, "
                    f"most {top['avg_power_w']:.4g} W ({top['name']}); per device J and W in --json energy.devices"
                )
    from .metrics import print_metrics

    print_metrics(res)


def simulate_cmd(
    scenario: Path = typer.Argument(..., help="Scenario TOML file (docs/scenario-format.md)."),
    seed: int | None = typer.Option(None, "--seed", help="Replaces run.seed."),
    json_out: Path | None = JsonOption,
    flows: Path | None = typer.Option(
        None, "--flows", help="CSV src,dst,size_bytes,start_s[,class] replacing the scenario's workload."
    ),
    set_: list[str] | None = typer.Option(None, "--set", help="Override a key: --set routing.scheme=rps."),
    max_memory: str | None = typer.Option(
        None,
        "--max-memory",
        help="Refuse runs estimated to need more, e.g. 4GB (default: the memory available now).",
    ),
    parquet: Path | None = typer.Option(
        None,
        "--parquet",
        help="Also write flows, links, nodes and summary as Parquet files into this folder.",
    ),
) -> None:
    """Simulate one scenario and print a summary per flow class; --json writes flows, links, nodes, summary."""
    from .output import check_parquet_dir, write_parquet, write_result_json
    from .scenario import load_scenario
    from .run import simulate

    check_parquet_dir(parquet)
    from ..core.units import parse_size_bytes

    limit = None if max_memory is None else parse_size_bytes(max_memory, "--max-memory")
    sc = load_scenario(scenario, set_ or None)
    try:
        res = simulate(sc, seed=seed, flows=flows, max_memory_bytes=limit, partial_on_interrupt=True)
    except InputError as e:
        # Fields checked while building the run (workload against topology, engine limits) name the scenario
        # file as the loader's checks do; errors in the flows file already name that file.
        if flows is not None and str(e).startswith(flows.name):
            raise
        raise type(e)(f"{scenario.name}: {e}", hint=e.hint) from None
    _print_summary(res)
    write_result_json(json_out, res)
    write_parquet(parquet, res)
    if res.summary.get("incomplete"):
        print(
            f"interrupted at {res.summary['sim_time_s']:.6g} s simulated: the results above are incomplete "
            "(summary.incomplete in --json)",
            file=sys.stderr,
        )
        raise typer.Exit(130)


def demo_cmd(
    seed: int = typer.Option(1, "--seed", help="Seed of the random pairs and of the spraying choices."),
    json_out: Path | None = JsonOption,
) -> None:
    """Which fabric moves a workload for the fewest joules: Opera, RotorNet, SelectorNet and fat-trees on one
    small workload (greendcn energy fabrics), then seed 003 on a k=4 fat-tree, single path vs packet spraying."""
    from ..power.cli import print_fabrics
    from .fabrics import FabricsConfig, compare_fabrics
    from .reproduce.metrics import run_metrics

    info("running one workload on Opera, RotorNet, SelectorNet and two fat-trees ...")
    fabrics = compare_fabrics(FabricsConfig(seed=seed))
    print_fabrics(fabrics)
    print()
    from .reproduce.rps import seed003_scenario
    from .scenario import scenario_from_dict
    from .run import simulate

    rows = []
    for kind in ("static", "random"):
        for scheme in ("single", "rps"):
            raw = seed003_scenario(kind)
            raw["routing"]["scheme"] = scheme
            info(f"running seed003-{kind} with {scheme} ...")
            res = simulate(scenario_from_dict(raw), seed=seed)
            m = run_metrics(res.flows)
            rows.append(
                {
                    "scenario": f"seed003-{kind}",
                    "routing": scheme,
                    "long_flows": m["long_flows"],
                    "short_flows": m["short_flows"],
                    "long_throughput_Mbps": m["long_throughput_bps"] / 1e6,
                    "short_fct_ms": m["short_fct_s"] * 1e3,
                    "short_ooo_%": m["ooo_pct"],
                    "retransmits": m["retransmits"],
                    "spurious_retx": m["spurious_retransmits"],
                    "drops": res.summary["drops"],
                    **_energy_columns(res.energy),
                    "wall_s": res.summary["wall_s"],
                }
            )
    print("seed 003 (k=4 fat-tree, 1 Gbps, 25 us, 1000-pkt queues; 10 MB long, 200 KB short flows):")
    echo_table(rows)
    print(
        "energy: switches priced by the scenario's [power] table (default: seed 001 Table 2.1's SN2700, a "
        "constant 90.5 W each; docs/models.md); hosts by the host defaults (seed 004's Phi on the example "
        "Xeon platform at 3 GHz, NAPI receive; docs/host-energy.md); uJ per delivered payload bit over the run, "
        "with hosts (energy) and without (network)"
    )
    write_json(
        json_out,
        {
            "seed": seed,
            "fabrics": fabrics,
            "rows": [{_json_key(k): _json_value(k, v) for k, v in r.items()} for r in rows],
        },
    )


def _energy_columns(e: Any) -> dict[str, Any]:
    """The demo's energy columns: network (switches and links) and host watts, the hosts' share, per bit."""
    if e is None:
        return {}
    sp, t = e.split, e.sim_time_s
    return {
        "network_W": (sp["switches_energy_j"] + sp["links_energy_j"]) / t if t > 0 else 0.0,
        "hosts_W": sp["hosts_energy_j"] / t if t > 0 else 0.0,
        "host_share_%": 100.0 * sp["host_share"],
        "energy_uJ_per_bit": (e.energy_per_bit_pj or 0.0) * 1e-6,
        "network_uJ_per_bit": (e.energy_per_bit_pj_without_hosts or 0.0) * 1e-6,
    }


def _json_key(key: str) -> str:
    """Demo table columns in JSON units: bits per second, watts and joules per bit."""
    return key.replace("_Mbps", "_bps").replace("_uJ_per_bit", "_j_per_bit").replace("_W", "_w")


def _json_value(key: str, value):
    if value is None:
        return None
    if key.endswith("_Mbps"):
        return value * 1e6
    if key.endswith("_uJ_per_bit"):
        return value * 1e-6
    return value


app.command("simulate")(simulate_cmd)
app.command("demo")(demo_cmd)


@reproduce_app.callback()
def _reproduce() -> None:
    """Reproduce the seed papers' headline experiments."""


@reproduce_app.command()
def rps(
    seeds: int = typer.Option(10, "--seeds", min=1, help="Runs (seeds) per point; seed 003 used 10."),
    out: Path = typer.Option(
        Path("out/reproduce-rps"), "--out", help="Folder for the CSV files and PNG figures."
    ),
    quick: bool = typer.Option(False, "--quick", help="Small size: 2 seeds, 1 MB long flows, fewer points."),
    workers: int | None = typer.Option(None, "--workers", min=1, help="Processes (default: all cores)."),
    single_path: str = typer.Option(
        "first", "--single-path", help="first (ns-3's choice, which seed 003 ran) or hashed (greendcn 0.1)."
    ),
    report: bool = typer.Option(
        False,
        "--report",
        help="Also run the matrix as the sweep scenarios/sweep-seed003.toml into OUT/seed003.duckdb "
        "(resumable) and write OUT/report.html (greendcn report) with the paper's statements beside ours.",
    ),
    json_out: Path | None = JsonOption,
) -> None:
    """Seed 003: single path vs random packet spraying on a k=4 fat-tree (Figs 2-9, plus dupack threshold)."""
    from .reproduce.rps import RpsConfig, reproduce_rps, summarize
    from .reproduce.rps_figures import write_figures
    from .reproduce.rps_findings import findings

    if single_path not in ("first", "hashed"):
        raise InputError(f"--single-path: {single_path!r} is not first or hashed", hint="--single-path first")
    cfg = RpsConfig.quick() if quick else RpsConfig(seeds=seeds)
    if quick and seeds != 10:
        cfg = RpsConfig(**{**cfg.__dict__, "seeds": seeds})
    cfg = RpsConfig(**{**cfg.__dict__, "single_path": single_path})
    sweep_spec = None
    if report:
        # The report reads a sweep store; the shipped sweep spec is exactly the default matrix (tested).
        if cfg != RpsConfig():
            raise InputError(
                "--report: covers the default matrix only (10 seeds, full size, single path first)",
                hint="drop --quick, --seeds and --single-path, or run a sweep spec of your own (docs/sweeps.md)",
            )
        sweep_spec = Path(__file__).resolve().parents[3] / "scenarios" / "sweep-seed003.toml"
        if not sweep_spec.is_file():
            raise InputError(
                f"--report: the sweep spec {sweep_spec} is not here (it ships with the source tree)",
                hint="run from a clone of the repository",
            )
    runs = reproduce_rps(cfg, workers=workers)
    summary = summarize(runs)
    out.mkdir(parents=True, exist_ok=True)
    runs.to_csv(out / "runs.csv", index=False)
    summary.to_csv(out / "summary.csv", index=False)
    figs = write_figures(summary, out)
    rows = [
        {
            "experiment": r.experiment,
            "scheme": r.scheme,
            "N_long": r.n_long,
            "shorts": r.n_short,
            "dupack": r.dupack_threshold,
            "long_Mbps": r.long_throughput_bps / 1e6,
            "short_fct_ms": r.short_fct_s * 1e3,
            "ooo_%": r.ooo_pct,
            "retx": r.retransmits,
            "spurious": r.spurious_retransmits,
            "runs": r.runs,
            "complete": r.all_completed,
        }
        for r in summary.itertuples()
    ]
    echo_table(rows)
    found = findings(summary)
    print("\nseed 003's statements beside our runs:")
    for f in found:
        print(
            f"  {f['figure']}: paper: {f['seed 003 states']}\n      ours: {f['our runs (means over N and seeds)']}"
        )
    info(f"wrote {out / 'runs.csv'}, {out / 'summary.csv'} and {len(figs)} figures in {out}")
    doc: dict[str, Any] = {"config": cfg.__dict__, "findings": found, "summary": summary, "runs": runs}
    if sweep_spec is not None:
        from ..sweep.driver import run_sweep
        from ..sweep.report import write_report

        outcome = run_sweep(sweep_spec, store=out / "seed003.duckdb", workers=workers)
        page = write_report(out / "seed003.duckdb", out / "report.html")
        info(f"wrote {out / 'report.html'} from {out / 'seed003.duckdb'} ({outcome.runs} runs)")
        doc["report"] = {"store": str(out / "seed003.duckdb"), "html": str(out / "report.html"), **page}
    write_json(json_out, doc)


@reproduce_app.command()
def opera(
    racks: int = typer.Option(108, "--racks", help="Racks (seed 001 line 931: 108)."),
    switches: int = typer.Option(6, "--switches", help="Circuit switches (seed 001 line 931: 6)."),
    epsilon_us: float | None = typer.Option(
        None,
        "--epsilon-us",
        help="Slice guard in us; default: computed from the worst path.",
        parser=finite_float,
    ),
    reconfig_us: float = typer.Option(
        10.0, "--reconfig-us", help="Reconfiguration time r in us.", parser=finite_float
    ),
    moves: int | None = typer.Option(None, "--moves", min=0, help="Scored moves of the schedule search."),
    quick: bool = typer.Option(False, "--quick", help="A short search (200 moves)."),
    seed: int = typer.Option(0, "--seed", min=0, help="Seed of the schedule search."),
    workload: bool = typer.Option(
        True,
        "--workload/--no-workload",
        help="Also run a mixed workload on the fabric: 2 short (100 KB, low-latency) flows per rack among one "
        "long (20 MB, bulk) flow per 6 racks, starts spread over 1 ms (our choice).",
    ),
    out: Path = typer.Option(Path("out/reproduce-opera"), "--out", help="Folder for the CSV and the PNG."),
    json_out: Path | None = JsonOption,
) -> None:
    """Seed 001 section 2.6: Opera's staggered schedule, hop counts of the low-latency paths per slice, and
    FCT percentiles per class of a mixed workload on the circuit engine."""
    from tqdm import tqdm

    from .reproduce.opera import reproduce_opera, summary, write_figure
    from .topology.opera import OperaParams

    n_moves = moves if moves is not None else (200 if quick else OperaParams.search_moves)
    params = OperaParams(
        racks=racks,
        switches=switches,
        reconfig_s=reconfig_us * 1e-6,
        seed=seed,
        epsilon=None if epsilon_us is None else epsilon_us * 1e-6,
        search_moves=n_moves,
    )
    params.check()
    with tqdm(total=n_moves, desc="schedule search", unit="move", file=sys.stderr, disable=None) as bar:
        sched, table, found = reproduce_opera(params, progress=lambda done, _total: bar.update(done - bar.n))
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "slices.csv", index=False)
    fig = write_figure(table, out / "opera_hops.png")
    s = summary(sched)
    echo_table(
        [
            {
                "slices": s["slices"],
                "epsilon_us": s["epsilon_s"] * 1e6,
                "slice_us": s["slice_s"] * 1e6,
                "cycle_ms": s["cycle_s"] * 1e3,
                "mean_hops": s["mean_hops"],
                "max_hops": s["max_hops"],
                "one_hop_share": s["one_hop_share_min"],
                "search_s": sched.search["wall_s"],
            }
        ]
    )
    print("\nseed 001's statements beside our schedule:")
    for f in found:
        print(f"  {f['source']}: {f['statement']}\n      ours: {f['ours']}")
    info(f"wrote {out / 'slices.csv'} and {fig}")
    doc: dict[str, Any] = {**s, "findings": found, "slices_table": table}
    if workload:
        classes = _opera_workload(racks, switches, reconfig_us, epsilon_us, seed, n_moves)
        classes.to_csv(out / "fct_by_class.csv", index=False)
        print("\nmixed workload (circuit engine, routing.scheme = opera; datagrams, 10 Gb/s, 500 ns fibre):")
        echo_table(classes.to_dict(orient="records"))
        info(f"wrote {out / 'fct_by_class.csv'}")
        doc["workload_by_class"] = classes
    write_json(json_out, doc)


def _opera_workload(
    racks: int, switches: int, reconfig_us: float, epsilon_us: float | None, seed: int, moves: int
) -> Any:
    """FCT percentiles per class of `reproduce opera`'s mixed workload (the schedule search runs again, with
    the same parameters, inside the scenario: the same schedule)."""
    import pandas as pd

    from .run import simulate

    topo: dict[str, Any] = {
        "kind": "opera",
        "racks": racks,
        "circuit_switches": switches,
        "reconfig": f"{reconfig_us}us",
        "link_rate": "10Gbps",
        "link_delay": "500ns",
        "guard": "1us",
        "schedule_seed": seed,
        "search_moves": moves,
    }
    if epsilon_us is not None:
        topo["epsilon"] = f"{epsilon_us}us"
    sc = {
        "name": "opera-mixed",
        "topology": topo,
        "routing": {"scheme": "opera"},
        "workload": {
            "kind": "random",
            "long_flows": max(1, racks // 6),
            "short_flows": 2 * racks,
            "long_size": "20MB",
            "short_size": "100KB",
            "start_jitter": "1ms",
        },
        "run": {"seed": seed + 1},
    }
    res = simulate(sc, progress=False)
    rows = []
    for cls, g in res.flows.groupby("class", sort=True):
        fct = g["fct_s"] * 1e3
        rows.append(
            {
                "class": f"{cls} ({'low-latency' if cls == 'short' else 'bulk'})",
                "flows": len(g),
                "completed": int(fct.notna().sum()),
                "fct_p50_ms": fct.quantile(0.5),
                "fct_p99_ms": fct.quantile(0.99),
                "fct_max_ms": fct.max(),
            }
        )
    s = res.summary
    for r in rows:
        r["reroutes_in_run"] = s["low_latency_reroutes"]
        r["no_path_drops_in_run"] = s["no_path_drops"]
    return pd.DataFrame(rows)


def _progress_bar(total: int, desc: str, unit: str):
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, disable=None)


def _float_list(option: str, text: str) -> list[float]:
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InputError(
            f"{option}: {text!r} is not a comma-separated list of numbers", hint="e.g. 1,10"
        ) from None
    if not values or not all(math.isfinite(v) and v > 0 for v in values):
        raise InputError(f"{option}: {text!r} must list positive numbers", hint="e.g. 1,10, or none")
    return values


def _int_list(option: str, text: str, low: int, high: int) -> list[int]:
    if text.strip().lower() == "none":
        return []
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InputError(
            f"{option}: {text!r} is not a comma-separated list of integers", hint="e.g. 1,7"
        ) from None
    bad = [v for v in values if not low <= v <= high]
    if bad or not values:
        raise InputError(
            f"{option}: {bad or text!r} outside {low}..{high}", hint=f"integers in {low}..{high}"
        )
    return values


def _tor_option(value: str) -> str | None:
    return None if value == "none" else value


def _print_findings(found: list[dict[str, str]]) -> None:
    print("\nseed 001's statements beside our model:")
    for f in found:
        print(f"  {f['source']}: {f['statement']}\n      ours: {f['ours']}")


@reproduce_app.command()
def rotornet(
    matrices: int = typer.Option(
        32, "--matrices", help="Random matrices per density (seed 001 line 879: 32)."
    ),
    layout: str = typer.Option(
        "1x7",
        "--layout",
        help="Rotor switches x matchings: 1x7 (the thesis's testbed) or 2x4 (public model).",
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the random traffic matrices."),
    uptime_ms: float = typer.Option(
        10.0, "--uptime-ms", help="Slot uptime (line 890: 10 ms).", parser=finite_float
    ),
    guard_ms: float = typer.Option(
        1.0, "--guard-ms", help="Host guard time (line 890: 1 ms).", parser=finite_float
    ),
    reconfig_us: float = typer.Option(
        150.0, "--reconfig-us", help="Reconfiguration time (line 675: 150 us).", parser=finite_float
    ),
    tor: str = typer.Option("sn2700", "--tor", help="ToR packet switch of the switch table, or none."),
    duration_s: float = typer.Option(
        1.0, "--duration-s", help="Steady-state time the energy is reported over.", parser=finite_float
    ),
    out: Path = typer.Option(Path("out/reproduce-rotornet"), "--out", help="Folder for the CSV and the PNG."),
    packet_densities: str = typer.Option(
        "1,7,14,28,42,56",
        "--packet-densities",
        help="Densities k (of 56) also run at packet level in the circuit engine, comma-separated, or none.",
    ),
    packet_matrices: int = typer.Option(4, "--packet-matrices", help="Matrices per packet-level density."),
    json_out: Path | None = JsonOption,
) -> None:
    """Seed 001 Fig 2.10: RotorLB / one-hop throughput against traffic density (fluid model, and the packet
    level for a subset), with energy."""
    from .optical.rotornet import THESIS_RACKS
    from .reproduce.rotornet import RotorNetConfig, reproduce_rotornet, write_figure

    cfg = RotorNetConfig(
        racks=THESIS_RACKS,
        layout=layout,
        matrices=matrices,
        seed=seed,
        uptime_ps=round(uptime_ms * 1e9),
        guard_ps=round(guard_ms * 1e9),
        reconfig_ps=round(reconfig_us * 1e6),
        tor=_tor_option(tor),
        duration_s=duration_s,
    )
    cfg.check()
    ks = _int_list("--packet-densities", packet_densities, 1, THESIS_RACKS * (THESIS_RACKS - 1))
    if packet_matrices < 1:
        raise InputError(f"--packet-matrices: need at least 1, got {packet_matrices}", hint="e.g. 4")
    runner = None
    if ks:
        from .optical.runners import rotornet_packet_runner

        inner = rotornet_packet_runner(seed=seed)
        pbar = _progress_bar(2 * len(ks) * min(packet_matrices, matrices), "packet level", "run")

        def runner(fabric, demand, rotorlb):
            got = inner(fabric, demand, rotorlb)
            pbar.update(1)
            return got

    with _progress_bar(2 * (cfg.warmup_cycles + cfg.measure_cycles), "fluid model", "cycle") as bar:
        res = reproduce_rotornet(
            cfg,
            progress=lambda done, _total: bar.update(done - bar.n),
            packet_runner=runner,
            packet_densities=ks,
            packet_matrices=packet_matrices,
        )
    if ks:
        pbar.close()
    table = res["densities"]
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "rotornet_densities.csv", index=False)
    fig = write_figure(table, out / "rotornet_fig2_10.png", res["permutations"])
    marks = {0, 6, 13, 27, 41, len(table) - 1} | set(table.index[table["packet_matrices"] > 0])
    show = table.iloc[sorted(marks & set(range(len(table))))]
    echo_table(
        [
            {
                "density": f"{int(r.connections)}/56",
                "ratio_mean": r.ratio_mean,
                "ratio_min": r.ratio_min,
                "ratio_max": r.ratio_max,
                "packet_ratio": r.packet_ratio_mean,
                "fluid_same_matrices": r.fluid_ratio_mean_same_matrices,
                "RotorLB_Gbps": r.rotorlb_bps / 1e9,
                "one-hop_Gbps": r.onehop_bps / 1e9,
                "power_W": r.power_w,
                "RotorLB_pJ_per_bit": r.rotorlb_pj_per_bit,
                "one-hop_pJ_per_bit": r.onehop_pj_per_bit,
            }
            for r in show.itertuples()
        ]
    )
    p = res["permutations"]
    print(
        f"random permutations ({p['matrices']}): ratio {p['ratio_mean']:.3f} "
        f"(min {p['ratio_min']:.3f}, max {p['ratio_max']:.3f})"
    )
    print(
        "ratio_* and throughput are the fluid model's (greendcn); packet_ratio is our circuit engine's, on the "
        f"first matrices of each marked density; energy: {res['switches']} "
        f"selector switch(es) v1 + ToRs ({tor}) from seed 001 Table 2.1, over {duration_s:g} s"
    )
    _print_findings(res["findings"])
    info(f"wrote {out / 'rotornet_densities.csv'} and {fig}")
    write_json(json_out, res)


@reproduce_app.command()
def selectornet(
    uptimes_ms: str = typer.Option(
        ",".join(f"{u:g}" for u in (0.15, 0.3, 0.5, 1, 2, 5, 10, 20, 50, 100)),
        "--uptimes-ms",
        help="Comma-separated uptimes in ms (the thesis's random bijection: 1 to 100 ms).",
    ),
    bijections: int = typer.Option(1000, "--bijections", help="Random bijections (seed 001 line 709: 1000)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the random bijections."),
    guard_ns: float = typer.Option(
        400.0, "--guard-ns", help="Guard time (line 663: 400 ns).", parser=finite_float
    ),
    reconfig_us: float = typer.Option(
        150.0, "--reconfig-us", help="Reconfiguration (line 675: 150 us).", parser=finite_float
    ),
    prealloc_us: float = typer.Option(
        5.6, "--prealloc-us", help="Preallocation delay (line 663: 5.6 us).", parser=finite_float
    ),
    lag_us: float | None = typer.Option(
        None, "--lag-us", help="Hosts' fixed lag (default: the preallocation covers it).", parser=finite_float
    ),
    tor: str = typer.Option("sn2700", "--tor", help="ToR packet switch of the switch table, or none."),
    duration_s: float = typer.Option(
        1.0, "--duration-s", help="Steady-state time the energy is reported over.", parser=finite_float
    ),
    out: Path = typer.Option(
        Path("out/reproduce-selectornet"), "--out", help="Folder for the CSV and the PNG."
    ),
    packet_uptimes_ms: str | None = typer.Option(
        None,
        "--packet-uptimes-ms",
        help="Uptimes (of --uptimes-ms) also simulated at packet level, comma-separated, or none "
        "(default: those of 0.3, 1 and 2 ms among --uptimes-ms).",
    ),
    packet_matrices: int = typer.Option(
        3, "--packet-matrices", help="Matrices per workload simulated at packet level (strides, bijections)."
    ),
    lag_law: Path | None = typer.Option(
        None,
        "--lag-law",
        help="A host's fitted send-to-wire lag (greendcn tdma fit --save) to drive the packet level.",
    ),
    json_out: Path | None = JsonOption,
) -> None:
    """Seed 001 Fig 2.8: our scheduler's predicted maximum per-host throughput against uptime, with energy."""
    from .reproduce.selectornet import SelectorNetConfig, reproduce_selectornet, write_figure

    try:
        ups = tuple(float(x) for x in uptimes_ms.split(",") if x.strip())
    except ValueError:
        raise InputError(
            f"--uptimes-ms: {uptimes_ms!r} is not a comma-separated list of numbers", hint="e.g. 1,10,100"
        ) from None
    cfg = SelectorNetConfig(
        uptimes_ms=ups,
        guard_ps=round(guard_ns * 1e3),
        reconfig_ps=round(reconfig_us * 1e6),
        prealloc_ps=round(prealloc_us * 1e6),
        lag_ps=None if lag_us is None else round(lag_us * 1e6),
        bijections=bijections,
        seed=seed,
        tor=_tor_option(tor),
        duration_s=duration_s,
    )
    cfg.check()
    if packet_uptimes_ms is None:
        # our default: short uptimes, where a packet-level run of a few cycles takes well under a second
        pk = [u for u in (0.3, 1.0, 2.0) if any(abs(u - x) < 1e-9 for x in ups)]
    elif packet_uptimes_ms.strip().lower() == "none":
        pk = []
    else:
        pk = _float_list("--packet-uptimes-ms", packet_uptimes_ms)
    missing = [u for u in pk if not any(abs(u - x) < 1e-9 for x in ups)]
    if missing:
        raise InputError(
            f"--packet-uptimes-ms: {missing} are not among --uptimes-ms",
            hint="pick uptimes from --uptimes-ms",
        )
    if packet_matrices < 1:
        raise InputError(f"--packet-matrices: need at least 1, got {packet_matrices}", hint="e.g. 3")
    runner = None
    if pk:
        from ..host.tdma.fit import load_lag_law
        from .optical.runners import selectornet_packet_runner

        lag = load_lag_law(lag_law) if lag_law is not None else None
        runner = selectornet_packet_runner(max_matrices=packet_matrices, lag=lag, seed=seed)
    with _progress_bar(3 * len(ups), "workloads x uptimes", "point") as bar:
        res = reproduce_selectornet(
            cfg,
            progress=lambda done, _total: bar.update(done - bar.n),
            packet_runner=runner,
            packet_workloads=("all-to-all", "rolling-stride", "random-bijection"),
            packet_uptimes_ms=pk,
        )
    table = res["table"]
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "selectornet_uptimes.csv", index=False)
    fig = write_figure(table, out / "selectornet_fig2_8.png")
    echo_table(
        [
            {
                "workload": r.workload,
                "uptime_ms": r.uptime_ms,
                "duty": r.duty_cycle,
                "tax": r.effective_tax,
                "predicted_Gbps_per_host": r.predicted_per_host_bps / 1e9,
                "simulated_over_predicted": r.simulated_over_predicted,
                "power_W": r.power_w,
                "pJ_per_bit": r.pj_per_bit,
            }
            for r in table.itertuples()
        ]
    )
    print(
        "throughput is our scheduler's predicted maximum (greendcn's model, docs/selectornet.md); "
        "simulated_over_predicted: our circuit engine on the first matrices of the workload against the "
        f"prediction for those matrices; energy: 1 selector switch v1 + {cfg.ports} ToRs ({tor}), seed 001 Table 2.1, "
        f"over {duration_s:g} s"
    )
    _print_findings(res["findings"])
    info(f"wrote {out / 'selectornet_uptimes.csv'} and {fig}")
    write_json(json_out, res)


@reproduce_app.command("host-energy")
def host_energy(
    seeds: int = typer.Option(3, "--seeds", min=1, help="Runs (seeds) per scenario and scheme."),
    out: Path = typer.Option(Path("out/reproduce-host-energy"), "--out", help="Folder for the CSV and PNG."),
    quick: bool = typer.Option(False, "--quick", help="Small size: 1 seed, 1 MB flows."),
    workers: int | None = typer.Option(None, "--workers", min=1, help="Processes (default: all cores)."),
    json_out: Path | None = JsonOption,
) -> None:
    """Hosts in the ledger: seed 003 and the k=8 permutation, single path vs spraying, four host policies."""
    from .reproduce.host_energy import (
        HostEnergyConfig,
        findings,
        reproduce_host_energy,
        summarize,
        write_figure,
    )

    cfg = HostEnergyConfig.quick() if quick else HostEnergyConfig(seeds=seeds)
    if quick and seeds != 3:
        cfg = HostEnergyConfig(**{**cfg.__dict__, "seeds": seeds})
    runs = reproduce_host_energy(cfg, workers=workers)
    summary = summarize(runs)
    out.mkdir(parents=True, exist_ok=True)
    runs.to_csv(out / "runs.csv", index=False)
    summary.to_csv(out / "summary.csv", index=False)
    fig = write_figure(summary, out / "host_energy.png")
    echo_table(
        [
            {
                "scenario": r.scenario,
                "scheme": r.scheme,
                "policy": r.policy,
                "sim_ms": r.sim_time_s * 1e3,
                "hosts_W": r.hosts_avg_power_w,
                "hosts_J": r.hosts_energy_j,
                "switches_J": r.switches_energy_j,
                "host_share_%": 100 * r.host_share,
                "uJ_per_bit": r.energy_per_bit_pj * 1e-6,
                "network_uJ_per_bit": r.energy_per_bit_pj_without_hosts * 1e-6,
                "saturated": r.saturated_windows,
            }
            for r in summary.itertuples()
        ]
    )
    found = findings(summary)
    print("\nwhich policy draws least (carrying the load in every window), and the hosts' share:")
    for f in found:
        if "winner" in f:
            shares = ", ".join(f"{p} {v:.1f} %" for p, v in f["host_share_pct"].items())
            sat = f" (saturate: {', '.join(f['saturating_policies'])})" if f["saturating_policies"] else ""
            print(
                f"  {f['scenario']} {f['scheme']}: {f['winner']} wins, {f['winner_saves_pct_vs_default']:.1f} % "
                f"below fixed 3 GHz; host share {shares}{sat}"
            )
    print("does counting the hosts change which routing scheme delivers a bit for less?")
    for f in found:
        if "hosts_change_the_answer" in f:
            print(
                f"  {f['scenario']}, {f['policy']}: network only {f['cheaper_scheme_network_only']}, with hosts "
                f"{f['cheaper_scheme_with_hosts']}{' (changed)' if f['hosts_change_the_answer'] else ''}"
            )
    info(f"wrote {out / 'runs.csv'}, {out / 'summary.csv'} and {fig}")
    write_json(json_out, {"config": cfg.__dict__, "findings": found, "summary": summary, "runs": runs})
