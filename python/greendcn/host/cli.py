"""`greendcn host`: AFFCON (seed 000) on a real Linux machine: layout, plan/apply, revert, control, measure.

Every command takes --root (default /: this machine; a directory: a copy or a fake sysfs tree) and --json."""

from __future__ import annotations

import dataclasses
import importlib
import shlex
from pathlib import Path

import typer

from ..core.clitools import JsonOption, echo_table, fail, info, write_json, finite_float
from ..core.units import format_rate, parse_freq_khz, parse_rate_bps, parse_time_s
from .cpuset import format_cpulist
from .sysfs import SysRoot

app = typer.Typer(
    help="AFFCON on this machine: core layout, affinity and DVFS plans, rate control, RAPL energy.",
    no_args_is_help=True,
)

# Sub-apps of `greendcn host` in their own packages: (command name, module with an `app`), one line each.
SUBAPPS: list[tuple[str, str]] = [
    ("tdma", ".tdma.cli"),
]
for _name, _module in SUBAPPS:
    app.add_typer(importlib.import_module(_module, __package__).app, name=_name)


@app.callback()
def _host() -> None:
    """AFFCON on this machine: core layout, affinity and DVFS plans, rate control, RAPL energy."""
    from .signals import terminate_as_interrupt

    terminate_as_interrupt()  # SIGTERM and SIGHUP restore like Ctrl-C in every host command


RootOption = typer.Option("/", "--root", help="Root holding sys/ (default: this machine).")
PlanPortOption = typer.Option(..., "--port", help="Interface to drive (repeat for several ports).")
ControlPortOption = typer.Option([], "--port", help="NAME:CPULIST, e.g. eth1:2,4 (repeat per port).")
PlanFileOption = typer.Option(None, "--plan", help="Ports and CPUs from a `plan --json` file.")
FakeDestArgument = typer.Argument(..., help="New directory for the fake tree (must not exist or be empty).")
CommandArgument = typer.Argument(None, help="The command to measure, after --.")
StateOption = typer.Option(
    None,
    "--state",
    help="State file of previous values [default: ROOT/run/greendcn/apply-state.json;"
    " control: control-state.json].",
)


def _grouped(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    """Merge policies with identical settings into one row listing their CPUs (48 rows say less than 3)."""
    groups: dict[tuple, list[int]] = {}
    for r in rows:
        key = tuple((k, v) for k, v in r.items() if k != "cpus")
        groups.setdefault(key, []).extend(r["cpus"])  # type: ignore[arg-type]
    out = [{"policies": 0, "cpus": format_cpulist(cpus)} | dict(key) for key, cpus in groups.items()]
    for o, key in zip(out, groups):
        o["policies"] = sum(1 for r in rows if tuple((k, v) for k, v in r.items() if k != "cpus") == key)
    return out


@app.command()
def layout(root: Path = RootOption, json_out: Path | None = JsonOption) -> None:
    """Print the socket x core table (as Li 2017 Table I shows it), the NICs with their nodes, cpufreq."""
    from .topology import discover, topology_json

    topo = discover(root)
    sockets = topo.sockets
    rows = []
    previous = None
    for cid in sorted({k.core_id for k in topo.cores}):
        if (
            previous is not None and cid > previous + 1
        ):  # Table I marks the jump in core ids (5 -> 8) this way
            rows.append({"core": "--"} | {f"Socket {s}": "--" for s in sockets})
        previous = cid
        row: dict[str, object] = {"core": f"Core {cid}"}
        for s in sockets:
            k = next((k for k in topo.cores if k.package == s and k.core_id == cid), None)
            row[f"Socket {s}"] = "[" + ", ".join(map(str, k.cpus)) + "]" if k else "-"
        rows.append(row)
    print(
        f"{len(topo.cpus)} logical CPUs, {len(topo.cores)} physical cores, {len(sockets)} sockets, "
        f"{len(topo.nodes)} NUMA nodes"
    )
    echo_table(rows)
    print()
    echo_table(
        [
            {
                "nic": n.name,
                "numa_node": n.node,
                "driver": n.driver or "-",
                "speed_mbps": n.speed_mbps,
                "pci": n.pci or "-",
                "kind": "virtual" if n.virtual else "device",
            }
            for n in topo.nics.values()
        ]
    )
    print()
    if topo.policies:
        print(f"cpufreq driver {topo.cpufreq_driver}: {len(topo.policies)} policies")
        echo_table(
            _grouped(
                [
                    {
                        "cpus": p.cpus,
                        "governor": p.governor,
                        "min_khz": p.min_khz,
                        "max_khz": p.max_khz,
                        "governors": " ".join(p.governors),
                    }
                    for p in topo.policies
                ]
            )
        )
    else:
        print(
            "cpufreq: "
            + (
                "directory present but empty: no frequency control here"
                if topo.cpufreq_present
                else "absent: no frequency control here"
            )
        )
    print(f"isolated CPUs: {format_cpulist(topo.isolated) or 'none'}")
    for w in topo.warnings:
        info(f"warning: {w}")
    write_json(json_out, topology_json(topo))


@app.command()
def plan(
    port: list[str] = PlanPortOption,
    cores_per_port: int = typer.Option(2, "--cores-per-port", help="Logical CPUs per port."),
    allow_cpu0: bool = typer.Option(
        False, "--allow-cpu0", help="Let CPU 0's core work (our default keeps it for the system)."
    ),
    main_lcore: bool = typer.Option(
        True, "--main-lcore/--no-main-lcore", help="Reserve a main lcore for pktgen."
    ),
    work_governor: str = typer.Option(
        "performance", help="Governor of working cores (Li 2017: performance)."
    ),
    idle_governor: str = typer.Option("powersave", help="Governor of idle cores (Li 2017: powersave)."),
    work_min_freq: str | None = typer.Option(None, help="Floor for working cores, e.g. 2.2GHz."),
    idle_max_freq: str | None = typer.Option(None, help="Cap for idle cores, e.g. 1.2GHz."),
    apply: bool = typer.Option(
        False, "--apply", help="Write the cpufreq settings (needs root; revert undoes)."
    ),
    state: Path | None = StateOption,
    root: Path = RootOption,
    json_out: Path | None = JsonOption,
) -> None:
    """Li 2017's Algorithm 1: cores on each port's NUMA node, then the DVFS plan; DPDK/pktgen arguments."""
    from .apply import apply_plan
    from .plan import make_plan, plan_json
    from .topology import discover

    sys = SysRoot(root)
    topo = discover(sys)
    p = make_plan(
        topo,
        port,
        cores_per_port,
        allow_cpu0=allow_cpu0,
        main_lcore=main_lcore,
        work_governor=work_governor,
        idle_governor=idle_governor,
        work_min_khz=parse_freq_khz(work_min_freq, "--work-min-freq"),
        idle_max_khz=parse_freq_khz(idle_max_freq, "--idle-max-freq"),
    )
    echo_table(
        [
            {
                "port": x.port,
                "numa_node": x.node if x.node_known else f"{x.node}?",
                "pci": x.pci or "-",
                "dpdk_port": x.dpdk_port,
                "cpus": format_cpulist(x.cpus),
                "cores": " ".join(f"{topo.cpus[c].package}:{topo.cpus[c].core_id}" for c in x.cpus),
            }
            for x in p.ports
        ]
    )
    print(f"main lcore: {p.main_cpu if p.main_cpu is not None else 'none'}")
    if p.settings:
        echo_table(
            _grouped(
                [
                    {
                        "cpus": s.cpus,
                        "role": s.role,
                        "governor": s.governor,
                        "min_khz": s.min_khz,
                        "max_khz": s.max_khz,
                    }
                    for s in p.settings
                ]
            )
        )
    print("DPDK EAL:            " + shlex.join(p.eal_args()))
    print("DPDK 16.04 coremask: " + shlex.join(p.eal_args_coremask()))
    print("pktgen -m:           " + shlex.quote(p.pktgen_m()))
    print("kernel command line: " + p.kernel_params(topo))
    for w in p.warnings:
        info(f"warning: {w}")
    writes = []
    if apply:
        writes = apply_plan(sys, p, state)
        info(
            f"applied {len(writes)} writes; undo with: greendcn host revert --root {sys.root}"
            + (f" --state {state}" if state else "")
        )
    else:
        info("nothing written (pass --apply to set the governors)")
    write_json(json_out, plan_json(p, topo, sys.root, writes))


@app.command()
def revert(
    state: Path | None = StateOption, root: Path = RootOption, json_out: Path | None = JsonOption
) -> None:
    """Restore the cpufreq values recorded by `plan --apply` or `control`."""
    from .apply import revert as do_revert

    restored = do_revert(SysRoot(root), state)
    print(f"restored {len(restored)} values")
    write_json(json_out, {"restored": restored})


@app.command()
def control(
    port: list[str] = ControlPortOption,
    plan_file: Path | None = PlanFileOption,
    high_rate: str = typer.Option("1Gbps", help="At or above: the port's cores work (our default)."),
    low_rate: str = typer.Option(
        "500Mbps", help="Below for --dwell: the port's cores go idle (our default)."
    ),
    dwell: str = typer.Option("5s", help="How long the rate must stay low before idling (our default)."),
    interval: str = typer.Option("1s", help="Sampling interval."),
    duration: str | None = typer.Option(None, help="Stop after this long (default: run until Ctrl-C)."),
    direction: str = typer.Option("both", help="Counter to use: rx, tx or both (the larger)."),
    actuator: str = typer.Option("cpufreq", help="cpufreq, none (log only), file:PATH or cmd:PROGRAM."),
    idle_governor: str = typer.Option("powersave", help="cpufreq actuator: governor of idle cores."),
    idle_max_freq: str | None = typer.Option(None, help="cpufreq actuator: frequency cap of idle cores."),
    netns: str | None = typer.Option(
        None, "--netns", help="Read the counters inside this network namespace."
    ),
    keep: bool = typer.Option(False, "--keep", help="Leave the last cpufreq settings in place on exit."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log every sample's rate on stderr."),
    state: Path | None = StateOption,
    root: Path = RootOption,
    json_out: Path | None = JsonOption,
) -> None:
    """Li 2017's rate affinity: idle a port's cores while its rate is low, wake them when it is high."""
    from .actuators import build_actuator
    from .apply import default_state_path
    from .control import ControlConfig, NetnsCounters, RateController, SysfsCounters, ports_from

    sys = SysRoot(root)
    ports, main = ports_from(port, plan_file)
    cfg = ControlConfig(
        parse_rate_bps(high_rate, "--high-rate"),
        parse_rate_bps(low_rate, "--low-rate"),
        parse_time_s(dwell, "--dwell"),
        parse_time_s(interval, "--interval"),
        direction,
    )
    act, changer = build_actuator(
        actuator,
        sys,
        ports,
        main,
        idle_governor=idle_governor,
        idle_max_khz=parse_freq_khz(idle_max_freq, "--idle-max-freq"),
        state_path=state or default_state_path(sys, "control"),
    )
    reader = NetnsCounters(netns) if netns else SysfsCounters(sys)
    ctl = RateController(ports, reader, act, cfg)
    duration_s = parse_time_s(duration, "--duration") if duration else None
    if changer is not None:
        # Only now, with every option checked: a refusal above must leave no state file behind.
        changer.begin()
    info(
        f"controlling {', '.join(ports)} every {cfg.interval_s:g} s: idle below {format_rate(cfg.low_bps)} "
        f"for {cfg.dwell_s:g} s, working at {format_rate(cfg.high_bps)}; actuator {act.name}"
    )

    def log(d) -> None:
        info(
            f"t={d.t_s:.2f}s {d.port}: {d.previous} -> {d.state}: {d.reason}"
            + (f" [{'; '.join(d.actions)}]" if d.actions else "")
        )

    def sample(s) -> None:
        info(f"t={s.t_s:.2f}s {s.port}: {format_rate(s.rate_bps)} ({s.state})")

    try:
        ctl.run(
            duration_s,
            on_decision=log,
            on_sample=sample if verbose else None,
        )
    finally:
        if changer is not None and not keep:
            problems = changer.restore()
            info(
                "restored the previous cpufreq settings"
                if not problems
                else "restore failed: " + "; ".join(problems)
            )
    print(f"{len(ctl.decisions)} decisions over {len(ctl.samples)} samples")
    echo_table(
        [
            {"t_s": d.t_s, "port": d.port, "rate_bps": d.rate_bps, "from": d.previous, "to": d.state}
            for d in ctl.decisions
        ]
    )
    write_json(json_out, ctl.to_json(act.name))


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def measure(
    cmd: list[str] = CommandArgument,
    interval: str = typer.Option("1s", help="How often to read the counters while it runs (catches wraps)."),
    root: Path = RootOption,
    json_out: Path | None = JsonOption,
) -> None:
    """Run CMD and report the RAPL energy (J) and average power (W) of every zone while it ran."""
    from .rapl import measure as do_measure

    m = do_measure(SysRoot(root), list(cmd or []), parse_time_s(interval, "--interval"))
    print(f"{shlex.join(m.argv)}: exit status {m.returncode}, {m.seconds:.3f} s")
    echo_table([{"zone": k, "energy_j": v, "power_w": m.power_w[k]} for k, v in m.energy_j.items()])
    write_json(
        json_out,
        {
            "argv": m.argv,
            "returncode": m.returncode,
            "duration_s": m.seconds,
            "zones": [{"zone": k, "energy_j": v, "power_w": m.power_w[k]} for k, v in m.energy_j.items()],
        },
    )
    if m.returncode != 0:
        raise typer.Exit(m.returncode)


@app.command()
def predict(
    spin: float = typer.Option(
        0.8,
        help="Share of the busy-core swing a packetless poll loop draws (our choice).",
        parser=finite_float,
    ),
    remote_factor: float = typer.Option(
        1.5, help="Per-packet cycles across the socket link vs local (our choice).", parser=finite_float
    ),
    frame_bytes: int = typer.Option(
        1024, help="Workload frame size at line rate on every port (our choice)."
    ),
    json_out: Path | None = JsonOption,
) -> None:
    """Model Li 2017 Server A: fit to its 112 W / 99 W, predict the share of each affinity (a model)."""
    from ..power.cpu import PARAMETER_SOURCES, CpuChoices, predict_affcon

    if not 0 <= spin <= 1:
        fail(f"--spin: {spin} is not between 0 and 1", hint="it is a share of the busy-core power swing")
    if remote_factor < 1 or frame_bytes < 60:
        fail(
            "--remote-factor must be >= 1 and --frame-bytes >= 60",
            hint="e.g. --remote-factor 1.5 --frame-bytes 64",
        )
    model, rows = predict_affcon(
        choices=CpuChoices(spin=spin, remote_factor=remote_factor, frame_bytes=frame_bytes)
    )
    base = rows["baseline_cpu_affinity"]["total_w"]
    print(
        "model fitted to Li 2017's 112 W (baseline) and 99 W (AFFCON) and 105 W TDP: those two match by "
        "construction; every other row is the model's prediction"
    )
    print(
        f"fitted: uncore {model.uncore_w_:.3g} W/socket, busy-core dynamic {model.active_dyn_w_:.3g} W, "
        f"idle-core dynamic {model.idle_dyn_w_:.3g} W (at 2.2 GHz)"
    )
    out = [
        {
            "config": k,
            "cpu_power_w": v["total_w"],
            "vs_baseline_w": v["total_w"] - base,
            "uncore_w": v["uncore_w"],
            "poll_cores_w": v["poll_cores_w"],
            "idle_cores_w": v["idle_cores_w"],
            "saturated_cores": v["saturated_cores"],
        }
        for k, v in rows.items()
    ]
    echo_table(out)
    print(f"baseline: {PARAMETER_SOURCES['ours']['baseline']} (our reading of Li 2017, section IV)")
    print(
        "public specifications: " + "; ".join(f"{k} {v}" for k, v in PARAMETER_SOURCES["public_spec"].items())
    )
    c = model.choices
    print(
        f"workload (ours): {c.frame_bytes} B frames at line rate on all {model.spec.ports} ports, 2 CPUs per port "
        f"+ main lcore; affcon_rate_*: two ports drop to {c.low_port_share:.0%} of line rate and their cores "
        "either poll at the lowest frequency (cpufreq) or sleep (an application that stops polling)"
    )
    print("our choices: spin, remote factor and the rest of CpuChoices (docs/models.md)")
    for k, v in rows.items():
        if v["saturated_cores"]:
            info(f"warning: {k}: {v['saturated_cores']} poll cores cannot carry their load (line rate lost)")
    write_json(
        json_out,
        {
            "fitted": {
                "uncore_w_per_socket": model.uncore_w_,
                "active_dyn_w": model.active_dyn_w_,
                "idle_dyn_w": model.idle_dyn_w_,
            },
            "targets_w": {"baseline": 112.0, "affcon": 99.0},
            "configs": out,
            "parameter_sources": PARAMETER_SOURCES,
            "choices": dataclasses.asdict(model.choices),
            "note": "fitted to the two targets; the per-affinity split is a model prediction, not a measurement",
        },
    )


@app.command()
def fake(
    dest: Path = FakeDestArgument,
    cpufreq: str = typer.Option("acpi-cpufreq", help="acpi-cpufreq, intel_pstate, empty or none."),
    policy_scope: str = typer.Option("cpu", help="Which CPUs share a cpufreq policy: cpu, core or package."),
) -> None:
    """Write a fake sysfs tree of Li 2017's Server A (Table I) to try the other commands with --root DEST."""
    from .fake import build_tree, table1_machine

    if cpufreq not in ("acpi-cpufreq", "intel_pstate", "empty", "none"):
        fail(f"--cpufreq: '{cpufreq}' is not offered", hint="acpi-cpufreq, intel_pstate, empty or none")
    if policy_scope not in ("cpu", "core", "package"):
        fail(f"--policy-scope: '{policy_scope}' is not offered", hint="cpu, core or package")
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        fail(f"{dest} exists and is not an empty directory", hint="name a new directory")
    build_tree(dest, table1_machine(None if cpufreq == "none" else cpufreq, policy_scope))
    print(f"wrote a Li 2017 Table I machine to {dest}; try: greendcn host layout --root {dest}")
