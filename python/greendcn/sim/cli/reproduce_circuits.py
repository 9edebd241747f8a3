"""`greendcn reproduce rotornet` and `reproduce selectornet`: the circuit fabrics' throughput and energy."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import typer

from ...core.clitools import JsonOption, echo_table, finite_float, info, write_json
from ...core.errors import InputError
from ._apps import reproduce_app


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
    print("\nMcGuinness 2021's statements beside our model:")
    for f in found:
        print(f"  {f['source']}: {f['statement']}\n      ours: {f['ours']}")


@reproduce_app.command()
def rotornet(
    matrices: int = typer.Option(
        32, "--matrices", help="Random matrices per density (McGuinness 2021, section 2.5.4: 32)."
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
    """McGuinness 2021 Fig 2.10: RotorLB / one-hop throughput against traffic density (fluid model, and the packet
    level for a subset), with energy."""
    from ..optical.rotornet import THESIS_RACKS
    from ..reproduce.rotornet import RotorNetConfig, reproduce_rotornet, write_figure

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
        from ..optical.runners import rotornet_packet_runner

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
        f"selector switch(es) v1 + ToRs ({tor}) from McGuinness 2021 Table 2.1, over {duration_s:g} s"
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
    bijections: int = typer.Option(
        1000, "--bijections", help="Random bijections (McGuinness 2021, section 2.4.4: 1000)."
    ),
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
    """McGuinness 2021 Fig 2.8: our scheduler's predicted maximum per-host throughput against uptime, with energy."""
    from ..reproduce.selectornet import SelectorNetConfig, reproduce_selectornet, write_figure

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
        from ...host.tdma.fit import load_lag_law
        from ..optical.runners import selectornet_packet_runner

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
        f"prediction for those matrices; energy: 1 selector switch v1 + {cfg.ports} ToRs ({tor}), McGuinness 2021 Table 2.1, "
        f"over {duration_s:g} s"
    )
    _print_findings(res["findings"])
    info(f"wrote {out / 'selectornet_uptimes.csv'} and {fig}")
    write_json(json_out, res)
