"""`greendcn host tdma ...`: probe this host's TDMA timing over veth, search guards, sweep, pace, relay, model.

Every figure printed here is this host's software path (sender, kernel, veth, scheduler, hypervisor); none is
NIC or wire accuracy, and none is a 10/40/100 G result."""

from __future__ import annotations

from pathlib import Path

import typer

from ...core.clitools import JsonOption, echo_table, info, write_json, finite_float
from ...core.errors import InputError
from ...core.units import parse_rate_bps, parse_size_bytes, parse_time_ps

app = typer.Typer(
    help="TDMA on this host: guard time, duty cycle, slot jitter, pacing, relay; and the model.",
    no_args_is_help=True,
)

_CAVEAT = "note: veth on this host measures software timing only; it is not NIC or wire accuracy."


def _ns(text: str, what: str) -> int:
    return parse_time_ps(text, what) // 1000


def _number(text: str, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise InputError(
            f"{what}: {text!r} is not a number", hint="for example --values 0.1,0.3,0.5"
        ) from None


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InputError(
            f"{what}: {text!r} is not a whole number", hint="for example --values 1,2,3,4"
        ) from None


def _list(text: str, parse, what: str) -> list:
    items = [t for t in text.split(",") if t.strip()]
    if not items:
        raise InputError(f"{what}: empty list", hint="separate values with commas, e.g. 100Mbps,500Mbps")
    return [parse(t.strip(), what) for t in items]


def _metrics_rows(m) -> list[dict[str, object]]:
    rows = [
        ("duty scheduled", m.duty_scheduled, "share of period"),
        ("duty achieved (on-air span / period)", m.duty_achieved, "share of period"),
        ("goodput (data in uptime)", m.goodput_bps / 1e6, "Mb/s"),
        ("data packets received", m.data_received, "packets"),
        ("downtime share (would be lost)", m.downtime_share, "share of data"),
        ("wrong-destination share", m.wrong_share, "share of data"),
        ("loss (sent, never received)", m.loss_share, "share of sent"),
        ("empty-slot share", m.empty_slot_share, "share of slots"),
    ]
    for name, d in (
        ("slot-start lateness", m.lateness_ns),
        ("slot-end overrun", m.overrun_ns),
        ("send-to-receive lag", m.lag_ns),
    ):
        for k in ("p50", "p99", "p99_9", "max"):
            rows.append((f"{name} {k.replace('_', '.')}", d[k] / 1e3, "us"))
    rows.append(("fixed lag d0 = suggested preallocation", m.fixed_lag_ns / 1e3, "us"))
    for q in ("q01", "q50", "q99"):
        if q in m.gap_ns:
            rows.append((f"in-slot receive gap {q}", m.gap_ns[q] / 1e3, "us"))
    if m.ideal_gap_ns:
        rows.append(("ideal gap at the pacing rate", m.ideal_gap_ns / 1e3, "us"))
    return [{"quantity": q, "value": v, "unit": u} for q, v, u in rows]


@app.command()
def probe(
    period: str = typer.Option("500us", help="TDMA period."),
    duty: float = typer.Option(0.5, help="Uptime / period.", parser=finite_float),
    guard: str = typer.Option("5us", help="Guard time cut from the end of every send window."),
    prealloc: str = typer.Option("0us", help="Preallocation: how early every send window opens."),
    duration: str = typer.Option("500ms", help="Length of the run."),
    vhosts: int = typer.Option(1, help="Virtual hosts (one sender process each)."),
    destinations: int = typer.Option(1, help="Destinations per virtual host, rotated slot by slot."),
    size: str = typer.Option("1472B", help="UDP payload per data packet."),
    burst: int = typer.Option(8, help="Packets handed over per clock check."),
    rate: str | None = typer.Option(
        None, help="In-slot pacing per virtual host, e.g. 1Gbps (default: none)."
    ),
    demand: int = typer.Option(0, help="Data packets per slot (0 = infinite demand)."),
    pad: str = typer.Option(
        "0B", help="Padding packet size completing a burst when demand runs out (0 = off)."
    ),
    rt_priority: int = typer.Option(10, help="SCHED_FIFO priority of the sender (0 = ordinary scheduling)."),
    sender_cpu: int | None = typer.Option(
        None, help="CPU the (first) sender is pinned to [default: the last]."
    ),
    receiver_cpu: int | None = typer.Option(None, help="CPU the receiver is pinned to [default: the first]."),
    log: Path | None = typer.Option(None, help="Keep the raw receiver log (48-byte records) here."),
    fit: Path | None = typer.Option(None, help="Fit the lag law to this run and write it here (JSON)."),
    json_path: Path | None = JsonOption,
) -> None:
    """Run one TDMA schedule over veth between two namespaces and measure it."""
    from .probe import ProbeConfig, run_probe
    from .schedule import Schedule

    p = _ns(period, "period")
    sched = Schedule.from_duty(
        p,
        duty,
        guard_ns=_ns(guard, "guard"),
        prealloc_ns=_ns(prealloc, "prealloc"),
        slots=max(1, _ns(duration, "duration") // p),
        destinations=destinations,
    )
    cfg = ProbeConfig(
        sched,
        vhosts=vhosts,
        size_bytes=parse_size_bytes(size, "size"),
        burst=burst,
        rate_bps=parse_rate_bps(rate, "rate") if rate else 0,
        demand_pkts=demand,
        pad_bytes=parse_size_bytes(pad, "pad"),
        fifo_priority=rt_priority,
        sender_cpu=sender_cpu,
        receiver_cpu=receiver_cpu,
    )
    info(
        f"probe: {sched.slots} slots of {p / 1e3:g} us, duty {duty:g}, guard {sched.guard_ns / 1e3:g} us ..."
    )
    run = run_probe(cfg, log_path=log)
    echo_table(_metrics_rows(run.metrics))
    info(_CAVEAT)
    payload = {
        "schedule": run.schedule,
        "vhosts": vhosts,
        "size_bytes": cfg.size_bytes,
        "burst": burst,
        "rate_bps": cfg.rate_bps,
        "metrics": run.metrics,
        "senders": run.senders,
        "receiver": run.receiver,
        "caveat": _CAVEAT,
    }
    if fit is not None:
        import numpy as np

        from .fit import fit_lag_law, save_lag_law
        from .records import FLAG_PAD

        data = run.records[(run.records["flags"] & FLAG_PAD) == 0]
        law, details = fit_lag_law((data["rx_ns"].astype(np.int64) - data["send_ns"].astype(np.int64)) * 1e-9)
        save_lag_law(fit, law, source="greendcn host tdma probe (veth)", **details)
        info(f"lag fit written to {fit}")
        payload["lag_fit"] = law
    write_json(json_path, payload)


@app.command()
def search(
    period: str = typer.Option("500us", help="TDMA period."),
    duty: float = typer.Option(0.5, help="Uptime / period.", parser=finite_float),
    prealloc: str = typer.Option("0us", help="Preallocation."),
    target: float = typer.Option(
        1e-3, help="Largest acceptable downtime share of data packets.", parser=finite_float
    ),
    low: str = typer.Option("0us", help="Smallest guard tried."),
    high: str = typer.Option("200us", help="Largest guard tried."),
    resolution: str = typer.Option("2us", help="Stop when the bracket is this narrow."),
    duration: str = typer.Option("300ms", help="Length of each probe run."),
    burst: int = typer.Option(8, help="Packets per burst."),
    size: str = typer.Option("1472B", help="UDP payload per packet."),
    json_path: Path | None = JsonOption,
) -> None:
    """Binary-search the smallest guard whose measured downtime share meets --target."""
    from .probe import ProbeConfig, run_probe
    from .schedule import Schedule
    from .search import guard_search

    p = _ns(period, "period")
    base = Schedule.from_duty(
        p, duty, prealloc_ns=_ns(prealloc, "prealloc"), slots=max(1, _ns(duration, "duration") // p)
    )
    size_b = parse_size_bytes(size, "size")

    def measure(g: int) -> tuple[int, int]:
        m = run_probe(ProbeConfig(base.with_(guard_ns=g), size_bytes=size_b, burst=burst)).metrics
        info(f"search: guard {g / 1e3:g} us -> {m.data_down} of {m.data_received} data packets in downtime")
        return m.data_down, m.data_received

    res = guard_search(measure, target, _ns(low, "low"), _ns(high, "high"), _ns(resolution, "resolution"))
    echo_table(
        [
            {"guard_us": s.guard_ns / 1e3, "leaked": s.leaked, "packets": s.packets, "share": s.share}
            for s in res.steps
        ]
    )
    if res.met:
        print(
            f"smallest guard meeting {target:g}: {res.guard_ns / 1e3:g} us "
            f"({res.leaked} of {res.packets} packets leaked; 95% upper bound {res.share_upper_bound:.2g})"
        )
    else:
        print(
            f"no guard up to {_ns(high, 'high') / 1e3:g} us met {target:g} "
            f"({res.leaked} of {res.packets} leaked at the top)"
        )
    info(_CAVEAT)
    write_json(
        json_path,
        {
            "target_share": target,
            "guard_ns": res.guard_ns,
            "met": res.met,
            "leaked": res.leaked,
            "packets": res.packets,
            "share_upper_bound": res.share_upper_bound,
            "steps": [{"guard_ns": s.guard_ns, "leaked": s.leaked, "packets": s.packets} for s in res.steps],
            "caveat": _CAVEAT,
        },
    )


_DEFAULT_VALUES = {
    "guard": "0us,5us,10us,20us,40us,80us",
    "duty": "0.1,0.3,0.5,0.7,0.9",
    "period": "50us,100us,200us,500us,1ms,2ms",
    "vhosts": "1,2,3,4",
}


@app.command()
def sweep(
    kind: str = typer.Argument(..., help="guard | duty | period | vhosts"),
    values: str | None = typer.Option(
        None, help="Comma-separated values (times with units for guard/period)."
    ),
    period: str = typer.Option("500us", help="Period (fixed unless sweeping it)."),
    duty: float = typer.Option(0.5, help="Duty (fixed unless sweeping it).", parser=finite_float),
    guard: str = typer.Option("5us", help="Guard (fixed unless sweeping it)."),
    prealloc: str = typer.Option("0us", help="Preallocation."),
    duration: str = typer.Option("200ms", help="Length of each point's run."),
    burst: int = typer.Option(8, help="Packets per burst."),
    size: str = typer.Option("1472B", help="UDP payload per packet."),
    out: Path = typer.Option(Path("out/tdma"), help="Folder for the CSV and PNG."),
    json_path: Path | None = JsonOption,
) -> None:
    """Sweep one parameter (like McGuinness 2021 Figs 3.10-3.12), set beside the model fitted to the runs."""
    from .probe import ProbeConfig
    from .schedule import Schedule
    from .sweeps import SWEEP_KINDS, run_sweep

    if kind not in SWEEP_KINDS:
        raise InputError(f"sweep: unknown kind {kind!r}", hint=f"choose one of {', '.join(SWEEP_KINDS)}")
    text = values or _DEFAULT_VALUES[kind]
    if kind in ("guard", "period"):
        vals = [float(v) for v in _list(text, _ns, kind)]
    else:
        vals = [float(v) for v in _list(text, _int if kind == "vhosts" else _number, kind)]
    p = _ns(period, "period")
    base = ProbeConfig(
        Schedule.from_duty(p, duty, guard_ns=_ns(guard, "guard"), prealloc_ns=_ns(prealloc, "prealloc")),
        size_bytes=parse_size_bytes(size, "size"),
        burst=burst,
    )
    res = run_sweep(kind, vals, base, _ns(duration, "duration"), out_dir=out)
    cols = [
        kind,
        "data_rx",
        "loss_share",
        "down_share",
        "model_down_share",
        "goodput_Mbps",
        "model_goodput_Mbps",
        "duty_achieved",
        "empty_slot_share",
        "late_p99_us",
        "overrun_p99_us",
        "pkt_time_us",
    ]
    echo_table(res.table[cols].to_dict(orient="records"), cols)
    print(
        f"largest model-measurement gap: downtime share {res.largest_gap_down_share:.3g} (absolute), "
        f"goodput {res.largest_gap_goodput_rel:.1%} (relative)"
    )
    print(f"CSV: {res.csv}  PNG: {res.png}")
    info(_CAVEAT)
    write_json(
        json_path,
        {
            "kind": kind,
            "rows": res.table,
            "lag_fit": res.law,
            "largest_gap_down_share": res.largest_gap_down_share,
            "largest_gap_goodput_rel": res.largest_gap_goodput_rel,
            "csv": res.csv,
            "png": res.png,
            "caveat": _CAVEAT,
        },
    )


@app.command()
def pacing(
    rates: str = typer.Option("100Mbps,500Mbps", help="Requested rates, comma-separated."),
    modes: str = typer.Option("user,tbf,htb", help="user (sender paces) and/or qdiscs tbf, htb."),
    size: str = typer.Option("1472B", help="UDP payload per packet."),
    burst: int = typer.Option(1, help="Packets per burst for user-space pacing."),
    duration: str = typer.Option("300ms", help="Length of each run."),
    out: Path = typer.Option(Path("out/tdma"), help="Folder for the CSV and PNG."),
    list_only: bool = typer.Option(False, "--list", help="Only list the qdiscs this kernel offers."),
    json_path: Path | None = JsonOption,
) -> None:
    """Compare tc tbf/htb with user-space pacing: achieved vs requested rate and the gap CDF."""
    from .pacing import PACING_MODES, detect_qdiscs, run_pacing

    if list_only:
        qd = detect_qdiscs()
        echo_table([{"qdisc": k, "status": v} for k, v in qd.items()])
        write_json(json_path, {"qdiscs": qd})
        return
    wanted = tuple(m.strip() for m in modes.split(",") if m.strip())
    for m in wanted:
        if m not in PACING_MODES:
            raise InputError(f"modes: unknown mode {m!r}", hint=f"choose from {', '.join(PACING_MODES)}")
    res = run_pacing(
        _list(rates, parse_rate_bps, "rates"),
        wanted,
        parse_size_bytes(size, "size"),
        burst,
        _ns(duration, "duration"),
        out_dir=out,
    )
    skipped = [m for m in wanted if m != "user" and res.qdiscs.get(m) != "available"]
    if skipped:
        info(
            f"pacing: qdisc(s) {', '.join(skipped)} not available here, left out: "
            + ", ".join(f"{m}={res.qdiscs.get(m)}" for m in skipped)
        )
    echo_table(res.table.to_dict(orient="records"))
    print(f"CSV: {res.csv}  PNG: {res.png}")
    info(_CAVEAT)
    write_json(
        json_path,
        {"rows": res.table, "qdiscs": res.qdiscs, "csv": res.csv, "png": res.png, "caveat": _CAVEAT},
    )


@app.command()
def relay(
    rates: str = typer.Option("100Mbps,500Mbps,1Gbps", help="Offered rates, comma-separated."),
    size: str = typer.Option("1472B", help="UDP payload per packet (GRE header included)."),
    duration: str = typer.Option("300ms", help="Length of each run."),
    out: Path = typer.Option(Path("out/tdma"), help="Folder for the CSV and PNG."),
    json_path: Path | None = JsonOption,
) -> None:
    """Indirection A->B->C with a user-space GRE relay: latency percentiles and loss vs offered rate."""
    from .relay import relay_sweep

    table, csv, png = relay_sweep(
        _list(rates, parse_rate_bps, "rates"),
        parse_size_bytes(size, "size"),
        _ns(duration, "duration"),
        out_dir=out,
    )
    echo_table(table.to_dict(orient="records"))
    print(f"CSV: {csv}  PNG: {png}")
    info(_CAVEAT)
    write_json(json_path, {"rows": table, "csv": csv, "png": png, "caveat": _CAVEAT})


@app.command()
def model(
    rate: str = typer.Option("25Gbps", help="Line rate C."),
    pace: str | None = typer.Option(None, help="In-slot sending rate R if below the line rate."),
    period: str = typer.Option("500us", help="Period P."),
    duty: float = typer.Option(0.5, help="Uptime / period.", parser=finite_float),
    guard: str = typer.Option("5us", help="Guard g."),
    prealloc: str = typer.Option("3us", help="Preallocation p."),
    d0: str = typer.Option("3us", help="Fixed lag d0."),
    jitter: str = typer.Option("0.3us", help="Mean of the exponential jitter above d0."),
    stall_prob: float = typer.Option(
        0.0, help="Probability that a packet meets a stall.", parser=finite_float
    ),
    stall_mean: str = typer.Option("0us", help="Mean stall length."),
    stall_law: str = typer.Option("exponential", help="exponential | fixed"),
    size: str = typer.Option("1500B", help="Packet size s."),
    burst: int = typer.Option(8, help="Burst size b."),
    lag_fit: Path | None = typer.Option(None, help="Load d0, jitter and stalls from a fit file instead."),
    thesis: bool = typer.Option(
        False, "--thesis", help="Print the model beside McGuinness 2021's statements."
    ),
    json_path: Path | None = JsonOption,
) -> None:
    """Goodput R(U - g + p - d0)/P, downtime leak and stall shortfall for given inputs."""
    from .model import LagLaw, TdmaLink
    from .checks import thesis_checks
    from .fit import load_lag_law

    if thesis:
        rows = thesis_checks()
        echo_table(rows)
        write_json(json_path, {"thesis_checks": rows})
        return
    law = (
        load_lag_law(lag_fit)
        if lag_fit
        else LagLaw(
            d0_s=_ns(d0, "d0") * 1e-9,
            jitter_mean_s=parse_time_ps(jitter, "jitter") * 1e-12,
            stall_prob=stall_prob,
            stall_mean_s=_ns(stall_mean, "stall-mean") * 1e-9,
            stall_law=stall_law,
        )
    )
    p = _ns(period, "period") * 1e-9
    link = TdmaLink(
        line_rate_bps=parse_rate_bps(rate, "rate"),
        period_s=p,
        uptime_s=p * duty,
        guard_s=parse_time_ps(guard, "guard") * 1e-12,
        prealloc_s=parse_time_ps(prealloc, "prealloc") * 1e-12,
        packet_bytes=parse_size_bytes(size, "size"),
        burst=burst,
        lag=law,
        rate_bps=parse_rate_bps(pace, "pace") if pace else None,
    )
    out = {
        "goodput_bps": link.goodput_bps(),
        "leak_share": link.leak_share(),
        "stall_shortfall_share": link.stall_shortfall(),
        "batch_time_s": link.batch_time_s,
        "lag": law,
    }
    echo_table(
        [
            {"quantity": "goodput", "value": out["goodput_bps"] / 1e9, "unit": "Gb/s"},
            {"quantity": "downtime leak", "value": out["leak_share"], "unit": "share of packets"},
            {"quantity": "stall shortfall", "value": out["stall_shortfall_share"], "unit": "share of window"},
            {"quantity": "batch time b(s+24)8/C", "value": link.batch_time_s * 1e6, "unit": "us"},
        ]
    )
    write_json(json_path, out)
