"""The job kinds a sweep spec can name (simulate, router_power, nic_model): each checks and resolves its parameters in the driver (before any run)
and runs one parameter set in a worker, returning plain tables for the store.

A kind is registered in `KINDS` with:
- `resolve(params, base_dir)`: the parameters of one run (dotted keys as the spec writes them) -> (`job`, what a
  worker needs, picklable; `canonical`, the resolved parameters whose hash is the run key). Raises InputError
  naming the field;
- `run(job)`: -> `JobOutput` (a one-row summary, and optional flow and device tables);
- `metrics`: summary columns the report plots.
`execute(kind, job)` is what executors call in a worker: it never raises, so that a failure is data."""

from __future__ import annotations

import math
import os
import socket
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import InputError, reject_unknown_keys

__all__ = ["KINDS", "JobKind", "JobOutput", "execute", "versions"]


@dataclass
class JobOutput:
    summary: dict[str, Any]
    flows: Any = None  # pandas DataFrame or None
    devices: Any = None  # pandas DataFrame or None


@dataclass(frozen=True)
class JobKind:
    name: str
    resolve: Callable[[dict[str, Any], Path], tuple[dict[str, Any], dict[str, Any]]]
    run: Callable[[dict[str, Any]], JobOutput]
    metrics: tuple[str, ...] = field(default=())
    doc: str = ""


def versions() -> dict[str, str]:
    """The package and engine versions that go into every run key: a new engine reruns everything."""
    from .. import __version__, _native

    return {"package": __version__, "engine": _native.version()}


# ---------------------------------------------------------------------------------------------- simulate
_BASES: dict[str, tuple[dict[str, Any], str]] = {}


def _base_scenario(path: Path, load: Any) -> tuple[dict[str, Any], str]:
    """A base scenario file read and checked once per process, however many runs start from it."""
    import copy

    k = str(path.resolve())
    if k not in _BASES:
        raw = load(path).raw
        raw.setdefault("name", path.stem)
        _BASES[k] = (raw, str(path.parent.resolve()))
    raw, d = _BASES[k]
    return copy.deepcopy(raw), d


def _simulate_resolve(params: dict[str, Any], base_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    from ..sim.scenario import load_scenario, scenario_from_dict

    params = dict(params)
    base = params.pop("scenario", None)
    if base is not None:
        if not isinstance(base, str):
            raise InputError("scenario: must be a path to a scenario TOML file", loc=("scenario",))
        path = Path(base) if Path(base).is_absolute() else base_dir / base
        raw, sc_dir = _base_scenario(path, load_scenario)
    else:
        raw, sc_dir = {}, str(base_dir.resolve())
    from ..sim.scenario import apply_overrides

    raw = apply_overrides(raw, params)
    sc = scenario_from_dict(raw, base_dir=sc_dir)
    canonical = sc.model_dump(mode="json", by_alias=True)
    if getattr(sc.workload, "file", None):  # a flow file's content is part of the run, not only its name
        import hashlib

        f = Path(sc.workload.file)  # type: ignore[union-attr]
        f = f if f.is_absolute() else Path(sc_dir) / f
        try:
            canonical["workload_file_sha256"] = hashlib.sha256(f.read_bytes()).hexdigest()
        except OSError as e:
            raise InputError(
                f"workload.file: cannot read {f}: {e.strerror}",
                hint="check the path",
                loc=("workload", "file"),
            ) from None
    return {"raw": raw, "base_dir": sc_dir}, canonical


def _quantile(values: Any, q: float) -> float | None:
    import numpy as np

    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    return float(np.quantile(v, q)) if v.size else None


def _simulate_run(job: dict[str, Any]) -> JobOutput:
    import pandas as pd

    from ..sim.metrics import summary_row
    from ..sim.reproduce.metrics import run_metrics
    from ..sim.run import simulate
    from ..sim.scenario import scenario_from_dict

    res = simulate(scenario_from_dict(job["raw"], base_dir=job["base_dir"]), progress=False)
    fl, s, e = res.flows, res.summary, res.energy
    done = fl[fl["fct_s"].notna()]
    sim_s = float(s["sim_time_s"])
    summary: dict[str, Any] = {
        "scenario": s["scenario"],
        "seed": int(s["seed"]),
        "routing": s["routing"],
        "sim_time_s": sim_s,
        "events": int(s["events"]),
        "packet_hops": int(s["packet_hops"]),
        "drops": int(s["drops"]),
        "stopped_by": str(s.get("stopped_by", "")),
        "flows": int(s["flows"]),
        "flows_completed": len(done),
        # delivered payload of completed flows over the simulated time (our definition of a run's throughput)
        "throughput_bps": 8.0 * float(done["size_bytes"].sum()) / sim_s if sim_s > 0 else None,
        "fct_mean_s": float(done["fct_s"].mean()) if len(done) else None,
        "fct_p50_s": _quantile(done["fct_s"], 0.50),
        "fct_p99_s": _quantile(done["fct_s"], 0.99),
        "fct_max_s": float(done["fct_s"].max()) if len(done) else None,
        **run_metrics(fl),
        **summary_row(s),  # FCT and slowdown by size bucket and class, the observation window's energy
        "energy_j": e.total_energy_j if e else None,
        "avg_power_w": e.avg_power_w if e else None,
        "energy_per_bit_pj": e.energy_per_bit_pj if e else None,
        # the split of the ledger: hosts, switches and links (hosts priced only on the packet engine)
        **(
            {
                "hosts_energy_j": e.split.get("hosts_energy_j"),
                "switches_energy_j": e.split.get("switches_energy_j"),
                "links_energy_j": e.split.get("links_energy_j"),
                "host_share": e.split.get("host_share"),
                "energy_per_bit_pj_without_hosts": e.energy_per_bit_pj_without_hosts,
            }
            if e is not None and e.split
            else {}
        ),
        "engine_wall_s": float(s["wall_s"]),
    }
    summary = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in summary.items()}
    devices = None
    if e is not None and e.devices:
        devices = pd.DataFrame(
            [{k: v for k, v in d.items() if not isinstance(v, (list, dict))} for d in e.devices]
        )
    return JobOutput(summary, fl, devices)


# ---------------------------------------------------------------------------------------------- router_power
_ROUTER_KEYS = {"platform", "load", "units", "exact"}


def _router_resolve(params: dict[str, Any], base_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    import dataclasses

    from ..core.units import parse_packet_rate_pps
    from ..power.router import example_platform, load_platform

    reject_unknown_keys(params, _ROUTER_KEYS, takes="router_power takes")
    plat_name = params.get("platform", "example")
    if not isinstance(plat_name, str):
        raise InputError("platform: must be 'example' or a path", loc=("platform",))
    if plat_name == "example":
        plat = example_platform()
    else:
        p = Path(plat_name)
        plat = load_platform(p if p.is_absolute() else base_dir / p)
    load = params.get("load", "1.5Mpps")
    try:
        load_pps = float(load) if isinstance(load, (int, float)) else parse_packet_rate_pps(load, "load")
    except InputError as e:
        raise InputError(f"load: {e}", hint=e.hint, loc=("load",)) from None
    units = params.get("units")
    if units is not None and (not isinstance(units, int) or isinstance(units, bool) or units < 1):
        raise InputError(f"units: must be a whole number >= 1, got {units!r}", loc=("units",))
    exact = params.get("exact", False)
    if not isinstance(exact, bool):
        raise InputError(f"exact: must be true or false, got {exact!r}", loc=("exact",))
    job = {"platform": dataclasses.asdict(plat), "load_pps": load_pps, "units": units, "exact": exact}
    return job, job


def _router_run(job: dict[str, Any]) -> JobOutput:
    import pandas as pd

    from ..power.optimizer import default_plan, optimize, optimize_exact
    from ..power.router import RouterPlatform

    plat = RouterPlatform(**{k: tuple(v) if isinstance(v, list) else v for k, v in job["platform"].items()})
    plan = (optimize_exact if job["exact"] else optimize)(plat, job["load_pps"], job["units"])
    base = default_plan(plat, job["load_pps"])
    summary = {
        "platform": plat.name,
        "offered_pps": job["load_pps"],
        "plan_power_w": plan.power_w,
        "default_power_w": base.power_w,
        "saving_pct": 100 * (1 - plan.power_w / base.power_w),
        "active_cores": plan.active_cores,
        "plan_throughput_pps": plan.throughput_pps,
        "method": plan.method,
        "units": plan.units,
    }
    cores = pd.DataFrame(
        [
            {
                "name": f"core{i}",
                "kind": "core",
                "f_hz": c.f_hz,
                "load_pps": c.load_pps,
                "capacity_pps": c.capacity_pps,
            }
            for i, c in enumerate(plan.cores)
        ]
    )
    return JobOutput(summary, None, cores)


# ---------------------------------------------------------------------------------------------- nic_model
_NIC_KEYS = {
    "setting", "rate", "link_rate", "packet_size", "burst", "size",
    "ring", "irq_cost", "poll_cost", "pkt_cost", "cores", "wake_timeout",
}  # fmt: skip


def _nic_resolve(params: dict[str, Any], base_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    import dataclasses

    from ..nic.params import DEFAULT_HOST, host_from_options, parse_setting, transmission_from_options

    reject_unknown_keys(params, _NIC_KEYS, takes="nic_model takes")

    def us(s: float) -> str:
        return f"{s * 1e6:g}us"

    p = {
        k: (str(v) if isinstance(v, (int, float)) and k in ("rate", "link_rate", "size") else v)
        for k, v in params.items()
    }
    setting = parse_setting(p.get("setting", "napi:64"))
    burst, ring, cores = (
        p.get("burst", 1),
        p.get("ring", DEFAULT_HOST.ring_slots),
        p.get("cores", DEFAULT_HOST.cpu_cores),
    )
    for name, v in (("burst", burst), ("ring", ring)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise InputError(f"{name}: must be a whole number >= 1, got {v!r}", loc=(name,))
    if (
        not isinstance(cores, (int, float))
        or isinstance(cores, bool)
        or not math.isfinite(cores)
        or cores <= 0
    ):
        raise InputError(f"cores: must be a positive number, got {cores!r}", loc=("cores",))
    host = host_from_options(
        ring,
        p.get("irq_cost", us(DEFAULT_HOST.irq_cost_s)),
        p.get("poll_cost", us(DEFAULT_HOST.poll_cost_s)),
        p.get("pkt_cost", us(DEFAULT_HOST.pkt_cost_s)),
        float(cores),
        p.get("wake_timeout", us(DEFAULT_HOST.wake_timeout_s)),
    )
    tx = transmission_from_options(
        p.get("rate"), p.get("link_rate"), p.get("packet_size", "1500B"), burst, p.get("size")
    )
    job = {
        "setting": dataclasses.asdict(setting),
        "host": dataclasses.asdict(host),
        "tx": {
            k: (None if isinstance(v, float) and math.isinf(v) else v)
            for k, v in dataclasses.asdict(tx).items()
        },
    }
    return job, job


def _nic_run(job: dict[str, Any]) -> JobOutput:
    from ..nic.cpupower import CpuPower, cpu_power_w
    from ..nic.model import evaluate_setting
    from ..nic.params import Host, Setting, Transmission

    tx_args = {k: (math.inf if v is None else v) for k, v in job["tx"].items()}
    s, tx, host = Setting(**job["setting"]), Transmission(**tx_args), Host(**job["host"])
    r = evaluate_setting(s, tx, host).row()
    thr_bps = r["delivered_pps"] * tx.packet_bytes * 8
    summary = {
        "setting": s.label(),
        "offered_pps": tx.rate_pps,
        "throughput_bps": thr_bps,
        "delivered_pps": r["delivered_pps"],
        "drops_pps": r["drops_pps"],
        "interrupts_per_s": r["interrupts_per_s"],
        "cpu_util": r["cpu_util"],
        "cpu_power_w": float(cpu_power_w(r["busy_cores"], host.cpu_cores, CpuPower.from_platform())),
        "latency_s": r["latency_s"],
        "livelock": bool(r["livelock"]),
    }
    return JobOutput(
        {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in summary.items()}
    )


KINDS: dict[str, JobKind] = {
    "simulate": JobKind(
        "simulate",
        _simulate_resolve,
        _simulate_run,
        ("throughput_bps", "fct_p99_s", "drops", "energy_j", "energy_per_bit_pj"),
        "one `greendcn simulate` run; parameters are scenario keys as `--set` takes them",
    ),
    "router_power": JobKind(
        "router_power",
        _router_resolve,
        _router_run,
        ("plan_power_w", "default_power_w", "saving_pct"),
        "Bolla 2009's router power optimizer at one offered load (`greendcn energy router`)",
    ),
    "nic_model": JobKind(
        "nic_model",
        _nic_resolve,
        _nic_run,
        ("throughput_bps", "interrupts_per_s", "cpu_power_w", "latency_s"),
        "one NIC receive setting under one transmission, the tuner's model (`greendcn nic model`)",
    ),
}


def execute(kind: str, job: dict[str, Any]) -> dict[str, Any]:
    """Run one job; never raises. Returns status `done`, `failed` (bad input: retrying cannot help) or `error`
    (anything else: an executor may retry it), the wall time, where it ran, and the output."""
    t0 = time.perf_counter()
    where = f"{socket.gethostname()}:{os.getpid()}"
    try:
        out = KINDS[kind].run(job)
        return {
            "status": "done",
            "output": out,
            "error": None,
            "wall_s": time.perf_counter() - t0,
            "worker": where,
        }
    except InputError as e:
        status, msg = "failed", f"{e}" + (f" (hint: {e.hint})" if e.hint else "")
    except Exception as e:  # a crash of one run must not stop the sweep: it is recorded and may be retried
        tb = traceback.format_exception_only(type(e), e)
        status, msg = "error", "".join(tb).strip()
    return {
        "status": status,
        "output": None,
        "error": msg,
        "wall_s": time.perf_counter() - t0,
        "worker": where,
    }


def to_jsonable_spec(doc: Any) -> Any:
    """A parsed TOML document as JSON values (TOML dates and times become text)."""
    if isinstance(doc, dict):
        return {k: to_jsonable_spec(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [to_jsonable_spec(v) for v in doc]
    if isinstance(doc, (str, int, float, bool)) or doc is None:
        return doc
    return str(doc)
