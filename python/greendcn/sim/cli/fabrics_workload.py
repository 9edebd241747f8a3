"""`greendcn fabrics --workload FILE` and `--load L1,L2 --sizes NAME`: the fabric comparison on a user's
workload or under a load sweep (sim/fabrics_load.py); prints, `--csv`, `--json`, figures only when asked."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ...core.clitools import echo_table, fail, info
from ...core.errors import InputError

__all__ = ["run_workload"]


def _num(v: float | None, digits: int = 3) -> float | int | None:
    if v is None:
        return None
    return round(v) if abs(v) >= 100 else float(f"{v:.{digits}g}")


def run_workload(
    *,
    workload: Path | None,
    load: str | None,
    sizes: str,
    duration: str,
    racks: int,
    switches: int,
    link_rate: str,
    cost_equivalent: bool | None,
    seed: int,
    hosts: bool,
    eee: bool = False,
    transport: str | None = None,
    csv_out: Path | None,
    elastictree: bool = False,
    figure: Path | None,
    json_out: Path | None,
) -> None:
    from tqdm import tqdm

    from ...core.units import parse_rate_bps, parse_time_ps
    from .. import fabrics_load as fl
    from ..fabrics import FabricsConfig, fabric_plan
    from ..fabrics_json import write_fabrics_json

    if workload is not None and load is not None:
        raise InputError(
            "--load: a load sweep generates its own workloads; it cannot take --workload too",
            hint="drop --workload, or drop --load to run your workload as it is",
            loc=("load",),
        )
    loads = fl.parse_loads(load) if load is not None else None
    rate = parse_rate_bps(link_rate, "link_rate")
    run: dict[str, Any] | None = {}
    flows: Any = []
    label = ""
    if workload is not None:
        if not workload.is_file():
            raise InputError(
                f"--workload: no file {workload}",
                hint="give a flow CSV or a scenario TOML",
                loc=("workload",),
            )
        if workload.suffix.lower() == ".toml":
            flows, n_hosts, run, label, rate = fl.flows_of_scenario(workload, seed)
            racks, switches = fl.layout_for(n_hosts, "--workload")
        else:
            n_hosts = racks * switches
            flows = fl.flows_of_file(workload, n_hosts)
            label = workload.name
    cfg = FabricsConfig(
        racks=racks,
        circuit_switches=switches,
        link_rate_bps=rate,
        cost_equivalent=cost_equivalent,
        seed=seed,
        price_hosts=hosts,
        eee=eee,
        transport=transport,
        elastictree=elastictree,
    )
    cfg.check()
    steps = len(fabric_plan(cfg)) * (len(loads) if loads else 1)
    with tqdm(total=steps, desc="fabrics", unit="run", file=sys.stderr, disable=None) as bar:
        tick = lambda name: (bar.set_postfix_str(name), bar.update(1))  # noqa: E731
        if loads is not None:
            dur = parse_time_ps(duration, "duration")
            if dur <= 0:
                raise InputError(
                    f"--duration: must be positive, got {duration}", hint="e.g. 10ms", loc=("duration",)
                )
            out = fl.load_sweep(cfg, loads, sizes, dur, progress=lambda _: bar.update(len(fabric_plan(cfg))))
        else:
            out = fl.compare_on_flows(cfg, flows, label, run=run or {}, progress=tick)
    if loads is not None:
        print_sweep(out)
        rows = out["rows"]
        if csv_out is not None:
            _write(csv_out, "--csv", lambda p: fl.write_csv(rows, p))
        if figure is not None:
            stem = figure.with_suffix("")
            slow, energy = Path(f"{stem}-slowdown.png"), Path(f"{stem}-energy.png")
            _write(slow, "--figure", lambda _: fl.plot_sweep(rows, slow, energy))
            info(f"figures: {slow}, {energy}")
    else:
        print_workload(out)
        if figure is not None:
            from ..fabrics import plot_fabrics

            _write(figure, "--figure", lambda p: plot_fabrics(out["fabrics"], p))
            info(f"figure: {figure}")
    write_fabrics_json(json_out, out)


def _write(path: Path, option: str, write: Any) -> None:
    try:
        if not path.parent.exists():
            path.parent.mkdir(parents=True)
            info(f"created folder {path.parent}")
        write(path)
    except OSError as e:
        fail(f"{option}: cannot write {path}: {e.strerror}", hint=f"choose a writable {option} path")


def print_workload(out: dict[str, Any]) -> None:
    """The comparison on the user's workload: one row per fabric, with the short flows' p99 slowdown and,
    when the workload has a window, the energy over it."""
    c = out["config"]
    print(
        f"{c['workload']}: {c['flows']} flows on {c['hosts']} hosts ({c['racks']} racks x {c['circuit_switches']} "
        f"switches on the circuit fabrics), {c['link_rate_bps'] / 1e9:g} Gb/s links, seed {c['seed']}:"
    )
    window = bool(c["run"].get("window"))
    rows = []
    for r in out["fabrics"]:
        row = {
            "fabric": r["fabric"],
            "transport": r["transport"],
            "done": f"{r['flows_completed']}/{r['flows']}",
            "short_p99_slowdown": _num(r.get("short_slowdown_p99")),
            "p99_ms": None if r["fct_p99_s"] is None else _num(r["fct_p99_s"] * 1e3),
            "J": _num(r["energy_j"]),
            "pJ/bit": None if r["energy_per_bit_pj"] is None else round(r["energy_per_bit_pj"]),
        }
        if window:
            row["window_J"] = _num(r.get("window_energy_j"))
            row["window_pJ/bit"] = _num(r.get("window_energy_per_bit_pj"))
        if r.get("hosts_priced"):
            row["host_%"] = round(100 * (r["window_host_share"] if window else r["host_share"]))
        rows.append(row)
    echo_table(rows, floatfmt=".3g")
    if window:
        r0 = out["fabrics"][0]
        print(
            f"  - window: {r0['window_start_s'] * 1e3:g} to {r0['window_end_s'] * 1e3:g} ms (the workload's "
            "arrivals); J and pJ/bit without 'window' are until the last flow"
        )
    for note in out["notes"]:
        print(f"  - {note}")


def print_sweep(out: dict[str, Any]) -> None:
    """The load sweep: one row per (fabric, load)."""
    c = out["config"]
    print(
        f"{c['sizes']} flows, Poisson at each load for {c['duration_s'] * 1e3:g} ms, {c['pattern']}, on "
        f"{c['hosts']} hosts, {c['link_rate_bps'] / 1e9:g} Gb/s links, seed {c['seed']}; energy over the window "
        f"0 to {c['duration_s'] * 1e3:g} ms:"
    )
    rows = [
        {
            "fabric": r["fabric"],
            "load": r["load"],
            "transport": r["transport"],
            "done": f"{r['flows_completed']}/{r['flows']}",
            "short": r["short_flows"],
            "short_p99_slowdown": _num(r.get("short_slowdown_p99")),
            "window_W": _num(r.get("window_power_w")),
            "window_pJ/bit": _num(r.get("window_energy_per_bit_pj")),
            "run_pJ/bit": _num(r.get("energy_per_bit_pj")),
            **({"host_%": round(100 * r["window_host_share"])} if r.get("hosts_priced") else {}),
        }
        for r in out["rows"]
    ]
    echo_table(rows, floatfmt=".3g")
    for note in out["notes"]:
        print(f"  - {note}")
