"""`greendcn nic ...`: receive-path model, NAPI load curve, GA tuner and event-sim cross-check."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import typer

from ..core.clitools import JsonOption, echo_table, fail, info, write_json, finite_float
from ..core.units import parse_packet_rate_pps, parse_size_bytes, parse_time_s
from .linux import CAVEAT
from .cpupower import power_objective
from .params import (
    DEFAULT_HOST,
    MODES,
    default_setting,
    host_from_options,
    parse_setting,
    quantity,
    transmission_from_options,
)

app = typer.Typer(
    help="NIC receive modes (interrupt, timer, watermark, NAPI): model, tuner, cross-check.",
    no_args_is_help=True,
)

_DEFAULT_SETTINGS = ["interrupt", "timer:100us", "watermark:64pkt", "napi:64"]


def _us(s: float) -> str:
    return f"{s * 1e6:g}us"


RingOpt = typer.Option(DEFAULT_HOST.ring_slots, "--ring", help="Receive ring size in packets (our default).")
IrqOpt = typer.Option(_us(DEFAULT_HOST.irq_cost_s), "--irq-cost", help="CPU time per interrupt.")
PollOpt = typer.Option(_us(DEFAULT_HOST.poll_cost_s), "--poll-cost", help="CPU time per poll.")
PktOpt = typer.Option(_us(DEFAULT_HOST.pkt_cost_s), "--pkt-cost", help="CPU time per delivered packet.")
CoresOpt = typer.Option(
    DEFAULT_HOST.cpu_cores, "--cores", help="CPU cores available for receiving.", parser=finite_float
)
WakeOpt = typer.Option(
    _us(DEFAULT_HOST.wake_timeout_s),
    "--wake-timeout",
    help="A sleeping reader wakes after this long even below its watermark.",
)

SettingsOpt = typer.Option(
    _DEFAULT_SETTINGS,
    "--setting",
    "-s",
    help=f"Receive setting (repeat): {', '.join(MODES)}, e.g. timer:100us, "
    "watermark:64pkt, watermark:16KB, napi:64.",
)
TransmissionsOpt = typer.Option(
    None, "--transmissions", "-t", help="CSV of transmissions (default: Nurika 2017's Table 1)."
)


@app.command()
def model(
    rate: str | None = typer.Option(None, "--rate", help="Offered load in packets/s, e.g. 3.6kpps."),
    link_rate: str | None = typer.Option(None, "--link-rate", help="Offered load in bits/s, e.g. 1Gbps."),
    packet_size: str = typer.Option("1500B", "--packet-size", help="Packet size, e.g. 1500B."),
    burst: int = typer.Option(1, "--burst", help="Packets arriving back to back."),
    size: str | None = typer.Option(None, "--size", help="Transmission size (for its duration), e.g. 7.5GB."),
    setting: list[str] = SettingsOpt,
    ring: int = RingOpt,
    irq_cost: str = IrqOpt,
    poll_cost: str = PollOpt,
    pkt_cost: str = PktOpt,
    cores: float = CoresOpt,
    wake_timeout: str = WakeOpt,
    json: Path | None = JsonOption,
) -> None:
    """Throughput, interrupts, CPU, drops, latency and livelock of a transmission under each setting."""
    from .cpupower import CpuPower, cpu_power_w
    from .model import evaluate_setting

    host = host_from_options(ring, irq_cost, poll_cost, pkt_cost, cores, wake_timeout)
    tx = transmission_from_options(rate, link_rate, packet_size, burst, size)
    pricing = CpuPower.from_platform()  # example platform at its top frequency: prices only, costs unchanged
    rows = []
    for text in setting:
        s = parse_setting(text)
        r = evaluate_setting(s, tx, host).row()
        thr_bps = r["delivered_pps"] * tx.packet_bytes * 8
        rows.append(
            {
                "setting": s.label(),
                "throughput_bps": thr_bps,
                "delivered_pps": r["delivered_pps"],
                "drops_pps": r["drops_pps"],
                "interrupts_per_s": r["interrupts_per_s"],
                "cpu_util": r["cpu_util"],
                "cpu_power_w": float(cpu_power_w(r["busy_cores"], host.cpu_cores, pricing)),
                "latency_s": r["latency_s"],
                "livelock": r["livelock"],
                "livelock_at_pps": r["livelock_pps"],
                "duration_s": tx.size_bytes * 8 / thr_bps if thr_bps > 0 else float("inf"),
            }
        )
    info(
        f"offered {tx.rate_pps:.6g} packets/s of {tx.packet_bytes} B ({tx.rate_bps / 1e6:.6g} Mbps), burst "
        f"{tx.burst}; host: ring {host.ring_slots} pkt, {host.cpu_cores:g} core(s)"
    )
    echo_table(
        [
            {
                "setting": r["setting"],
                "Mbps": r["throughput_bps"] / 1e6,
                "drops_pps": r["drops_pps"],
                "irq_per_s": r["interrupts_per_s"],
                "cpu_%": 100 * r["cpu_util"],
                "cpu_W": r["cpu_power_w"],
                "latency_us": r["latency_s"] * 1e6,
                "livelock": r["livelock"],
                "livelock_at_kpps": r["livelock_at_pps"] / 1e3,
            }
            for r in rows
        ]
    )
    info("cpu_W: Bolla 2009 Eq. 2 on the busy cores, priced with the example Xeon platform of greendcn.power")
    write_json(json, {"transmission": tx, "host": host, "results": rows})


@app.command()
def curve(
    setting: str = typer.Option(
        "napi:64", "--setting", "-s", help="Receive setting, e.g. napi:64 or interrupt."
    ),
    lo: str = typer.Option("10kpps", "--from", help="Lowest offered load."),
    hi: str = typer.Option("1.2Mpps", "--to", help="Highest offered load."),
    points: int = typer.Option(12, "--points", help="Number of loads (linear spacing)."),
    packet_size: str = typer.Option("64B", "--packet-size", help="Packet size."),
    ring: int = RingOpt,
    irq_cost: str = IrqOpt,
    poll_cost: str = PollOpt,
    pkt_cost: str = PktOpt,
    cores: float = CoresOpt,
    wake_timeout: str = WakeOpt,
    json: Path | None = JsonOption,
) -> None:
    """Interrupts per packet, CPU and throughput as the offered load rises (Bolla 2009 Fig. 6's NAPI shape)."""
    from .model import evaluate

    host = host_from_options(ring, irq_cost, poll_cost, pkt_cost, cores, wake_timeout)
    if points < 2:
        fail(f"--points: need at least 2, got {points}", hint="e.g. --points 12")
    a = quantity(lo, parse_packet_rate_pps, "--from", "e.g. 10kpps")
    b = quantity(hi, parse_packet_rate_pps, "--to", "e.g. 1.2Mpps")
    if not 0 < a < b:
        fail(
            f"--from must be positive and below --to, got {lo!r} and {hi!r}",
            hint="e.g. --from 10kpps --to 1.2Mpps",
        )
    pkt = quantity(packet_size, parse_size_bytes, "--packet-size", "e.g. 64B")
    s = parse_setting(setting)
    if pkt <= 0:
        fail(f"--packet-size: must be positive, got {packet_size!r}", hint="e.g. 64B")
    loads = np.linspace(a, b, points)
    r = evaluate(s.code, s.param(pkt), loads, 1, host)
    rows = [
        {
            "offered_pps": float(loads[i]),
            "delivered_pps": float(r.delivered_pps[i]),
            "interrupts_per_packet": float(r.interrupts_per_s[i] / r.delivered_pps[i])
            if r.delivered_pps[i]
            else 0.0,
            "cpu_util": float(r.cpu_util[i]),
            "livelock": bool(r.livelock[i]),
        }
        for i in range(points)
    ]
    info(f"{s.label()}, {pkt} B packets")
    echo_table(
        [
            {
                "offered_kpps": x["offered_pps"] / 1e3,
                "delivered_kpps": x["delivered_pps"] / 1e3,
                "irq_per_pkt": x["interrupts_per_packet"],
                "cpu_%": 100 * x["cpu_util"],
                "livelock": x["livelock"],
            }
            for x in rows
        ]
    )
    write_json(json, {"setting": s, "packet_bytes": pkt, "host": host, "points": rows})


@app.command()
def tune(
    transmissions: Path | None = TransmissionsOpt,
    seed: int = typer.Option(0, "--seed", help="Seed of the GA."),
    max_latency: str | None = typer.Option(
        "10ms", "--max-latency", help="Reject settings whose mean delay exceeds this ('none': no limit)."
    ),
    joint: bool = typer.Option(
        False, "--joint", help="Also tune all NICs together, sharing the CPU (--cores)."
    ),
    power: bool = typer.Option(
        False, "--power", help="Add CPU power (Bolla 2009 Eq. 2, example Xeon platform) as a third objective."
    ),
    frequency: str | None = typer.Option(
        None, "--frequency", help="Core frequency for --power, one of the platform's (default: the highest)."
    ),
    workers: int | None = typer.Option(None, "--workers", help="Processes (default: all cores)."),
    ring: int = RingOpt,
    irq_cost: str = IrqOpt,
    poll_cost: str = PollOpt,
    pkt_cost: str = PktOpt,
    cores: float = CoresOpt,
    wake_timeout: str = WakeOpt,
    json: Path | None = JsonOption,
) -> None:
    """Tune each transmission's receive setting (NSGA-II: throughput up, interrupts down) and compare with
    Nurika 2017's default and optimal throughputs."""
    from .transmissions import load_transmissions, summary_by_class, tune_rows

    host = host_from_options(ring, irq_cost, poll_cost, pkt_cost, cores, wake_timeout)
    lat = (
        None
        if max_latency is None or max_latency.strip().lower() == "none"
        else quantity(max_latency, parse_time_s, "--max-latency", "e.g. 10ms, or none")
    )
    rows = load_transmissions(transmissions)
    pm = power_objective(power, frequency)
    info(f"tuning {len(rows)} transmissions; default setting (our assumption): {default_setting().label()}")
    out = tune_rows(rows, host, seed=seed, max_latency_s=lat, workers=workers, power=pm)
    echo_table(
        [
            {
                "node": o["node_id"],
                "class": o["size_class"],
                "pkt_B": o["packet_size_bytes"],
                "paper_dflt_Mbps": o["seed_default_mbps"],
                "paper_opt_Mbps": o["seed_optimal_mbps"],
                "model_dflt_Mbps": o["model_default_mbps"],
                "model_tuned_Mbps": o["model_tuned_mbps"],
                "dflt_irq/s": o["model_default_interrupts_per_s"],
                "tuned_irq/s": o["model_tuned_interrupts_per_s"],
                "dflt_W": o["model_default_cpu_power_w"],
                "tuned_W": o["model_tuned_cpu_power_w"],
                "tuned": o["tuned_setting"],
                "dflt_livelock_Mbps": o["default_livelock_mbps"],
                "paper_note": "default crashed (paper)" if o["seed_default_crashed"] else "",
            }
            for o in out
        ]
    )
    summary = summary_by_class(out)
    print(
        "\nby size class (Nurika 2017, section 5; 'all' = every row; the paper states a 4.6 % mean, section 5):"
    )
    echo_table(summary)
    if all(
        abs(r["model_tuned_total_mbps"] - r["model_default_total_mbps"]) <= 1e-3 * r["model_tuned_total_mbps"]
        for r in summary
    ):
        print(
            "note: at these offered loads our model loses no packet under the default or the tuned setting, "
            "so tuning changes interrupts and CPU, not throughput; Nurika 2017's measured gains are not explained "
            "by the receive path alone. Each row's offered load is Nurika 2017's optimal throughput (our "
            "assumption), so model_tuned_Mbps equal to paper_opt_Mbps holds by construction, not as a result"
        )
    payload: dict = {
        "default_setting": default_setting().label(),
        "rule": _rule(),
        "seed": seed,
        "host": host,
        "max_latency_s": lat,
        "transmissions": out,
        "by_size_class": summary,
        "linux_caveat": CAVEAT,
    }
    if joint:
        from .tuner import tune_jointly

        info(f"joint tuning of {len(rows)} NICs sharing {host.cpu_cores:g} core(s)")
        res = tune_jointly(rows, host, seed, lat, pm)
        print(
            f"\njoint ({res['nics']} NICs, one CPU of {host.cpu_cores:g} core(s)): front of {len(res['front'])} "
            f"points; chosen: {res['chosen_throughput_bps'] / 1e6:.6g} Mbps, {res['chosen_interrupts_per_s']:.6g} "
            f"interrupts/s after {res['evaluations']} evaluations"
        )
        res.pop("nics")
        payload["joint"] = res
    print(f"\nrule: {_rule()}")
    print(
        "default: one interrupt per packet (our assumption; Nurika 2017 does not print PF_RING 5.4.6's default)"
    )
    print("livelock: our model's default livelocks from the offered load in dflt_livelock_Mbps upwards")
    for o in out:
        if o["seed_default_crashed"]:
            print(
                f"  node {o['node_id']}: Nurika 2017 reports that its default crashed the receiver; our model "
                f"predicts livelock only above {o['default_livelock_mbps']:.4g} Mbps, not at the measured "
                f"{o['seed_optimal_mbps']:.4g} Mbps, so we report the crash as Nurika 2017's observation"
            )
    for o in out:
        if o["note"]:
            print(f"  node {o['node_id']} (Nurika 2017, Table 1): {o['note']}")
    print(
        "sizes: 'GB' read as 10^9 bytes (row 26's 368.64 = 360 x 1.024 hints at binary units); sizes only set "
        "durations and size classes, not any modelled rate"
    )
    print(f"linux: {CAVEAT}")
    for o in out[:3]:
        print(f"  node {o['node_id']} ({o['tuned_setting']}): " + " ; ".join(o["linux"]))
    write_json(json, payload)


def _rule() -> str:
    from .tuner import CHOICE_RULE

    return CHOICE_RULE.format(tol=1e-3)


@app.command()
def crosscheck(
    packets: int = typer.Option(20_000, "--packets", help="Packets per simulated case."),
    seed: int = typer.Option(0, "--seed", help="Seed of the arrival processes."),
    quick: bool = typer.Option(False, "--quick", help="A dozen cases instead of the full grid."),
    workers: int | None = typer.Option(None, "--workers", help="Processes (default: all cores)."),
    json: Path | None = JsonOption,
) -> None:
    """Compare the fluid model with the packet-level event simulation on a grid; report the worst case."""
    from .crosscheck import crosscheck as run
    from .crosscheck import default_grid

    if packets < 100:
        fail(f"--packets: need at least 100, got {packets}", hint="e.g. --packets 20000")
    res = run(default_grid(quick), DEFAULT_HOST, packets, seed, workers, shared=True)
    echo_table(
        [
            {
                "mode": r["mode"],
                "param": r["param"],
                "offered_kpps": r["offered_pps"] / 1e3,
                "burst": r["burst"],
                "arrivals": r["pattern"],
                "d_thr": r["err_throughput"],
                "d_irq_per_pkt": r["err_interrupts"],
                "d_cpu": r["err_cpu"],
            }
            for r in res["rows"]
        ]
    )
    for key, w in res["worst"].items():
        print(f"largest {key}: {w['value']:.4g} at {w['case']}")
    print("\ntwo NICs sharing one core:")
    echo_table(
        [
            {
                "nics": " + ".join(r["nics"]),
                "d_thr": r["err_throughput"],
                "d_irq_per_pkt": r["err_interrupts"],
                "d_cpu": r["err_cpu"],
            }
            for r in res["shared_rows"]
        ]
    )
    for key, w in res["worst_shared"].items():
        print(f"largest shared {key}: {w['value']:.4g} at {' + '.join(w['nics'])}")
    write_json(json, res)
