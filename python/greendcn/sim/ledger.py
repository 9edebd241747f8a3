"""Energy of a simulated run: price the engine's counters (docs/engine-spec.md, Output) with device models.

Models attach to nodes by exact name, by name prefix ("core*") or by kind ("switch", "host"), and to links by
the kinds of their ends ("host-switch", "switch-switch", ...) or "*". A node's counters are those of the
link directions leaving it; a link's are both of its directions, with 2 ports. Hosts without a node model are
priced by the host models (sim/host_power.py) from the engine's per-host series when a `HostPricer` is given;
other devices with no model are left out. Totals are sums over the devices, split into hosts, switches (every
node that is not a host) and links."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.errors import InputError
from ..power.models import Counters, PowerModel, from_switch
from ..power.ports import PortPowerModel
from ..power.switches import SwitchModel, get_switch
from .host_power import fold_windows, int_rows
from .ledger_columns import dir_columns, node_columns
from .port_energy import port_breakdown, port_states

if TYPE_CHECKING:
    from .host_power import HostEnergy, HostPricer

__all__ = ["DEFAULT_SWITCH", "EnergyModels", "EnergyReport", "default_models", "run_energy"]

DEFAULT_SWITCH = "sn2700"  # our default: the 32-port 100 Gbps switch of seed 001 Table 2.1


@dataclass
class EnergyModels:
    nodes: dict[str, PowerModel] = field(default_factory=dict)
    links: dict[str, PowerModel] = field(default_factory=dict)

    def for_node(self, name: str, kind: str) -> PowerModel | None:
        if name in self.nodes:
            return self.nodes[name]
        prefixes = [k for k in self.nodes if k.endswith("*") and name.startswith(k[:-1])]
        if prefixes:
            return self.nodes[max(prefixes, key=len)]  # the longest prefix is the most specific
        return self.nodes.get(kind)

    def for_link(self, kind_a: str, kind_b: str) -> PowerModel | None:
        for key in (f"{kind_a}-{kind_b}", f"{kind_b}-{kind_a}", "*"):
            if key in self.links:
                return self.links[key]
        return None


def default_models(switch: str = DEFAULT_SWITCH, table: dict[str, SwitchModel] | None = None) -> EnergyModels:
    """Switches draw the constant power of a shipped table entry; links are left out, and hosts too unless
    run_energy is given a HostPricer."""
    return EnergyModels(nodes={"switch": from_switch(get_switch(switch, table))})


@dataclass
class EnergyReport:
    devices: list[dict]
    sim_time_s: float
    total_energy_j: float
    avg_power_w: float
    delivered_bits: int
    energy_per_bit_pj: float | None
    series: dict | None = None
    hosts: dict | None = None  # how hosts were priced (None: by a node model or left out)
    split: dict = field(default_factory=dict)
    energy_per_bit_pj_without_hosts: float | None = None
    # The interval the energy is over: {"name": "run" or "window", "start_s", "end_s", "length_s"}.
    interval: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "interval": self.interval or run_interval(self.sim_time_s),
            "sim_time_s": self.sim_time_s,
            "total_energy_j": self.total_energy_j,
            "avg_power_w": self.avg_power_w,
            "delivered_bits": self.delivered_bits,
            "energy_per_bit_pj": self.energy_per_bit_pj,
            "energy_per_bit_pj_without_hosts": self.energy_per_bit_pj_without_hosts,
            "split": self.split,
            "hosts": self.hosts,
            "devices": self.devices,
            "series": self.series,
        }


def run_interval(sim_s: float) -> dict:
    """The whole run as an energy interval: from 0 to its end."""
    return {"name": "run", "start_s": 0.0, "end_s": sim_s, "length_s": sim_s}


def window_interval(interval_ps: tuple[int, int]) -> dict:
    """An observation window (run.window) as an energy interval."""
    a, b = interval_ps
    return {"name": "window", "start_s": a * 1e-12, "end_s": b * 1e-12, "length_s": (b - a) * 1e-12}


def interval_weights(window_ps: int, interval_ps: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The engine windows an interval [a, b) touches and the share of each inside it (1 for whole windows)."""
    a, b = interval_ps
    idx = np.arange(a // window_ps, -(-b // window_ps), dtype=np.int64)
    lo = np.maximum(idx * window_ps, a)
    hi = np.minimum((idx + 1) * window_ps, b)
    return idx, (hi - lo) / window_ps


def in_interval(rows: list[list[int]], idx: np.ndarray, frac: np.ndarray) -> np.ndarray:
    """Per row (a host or link direction), its windows' counts inside the interval (rows x windows touched)."""
    out = np.zeros((len(rows), idx.size))
    if not (isinstance(rows, np.ndarray) and rows.ndim == 2) and idx.size:  # lists (a results document)
        lo, hi = int(idx[0]), int(idx[-1]) + 1  # consecutive windows: only theirs are converted
        rows, idx = int_rows([row[lo:hi] for row in rows]), idx - lo
    if isinstance(rows, np.ndarray) and rows.ndim == 2:  # the engine's columns (sim.engine.run_spec_columns)
        keep = idx < rows.shape[1]
        out[:, keep] = rows[:, idx[keep]].astype(float) * frac[keep]
    return out


def _devices(results: dict, models: EnergyModels) -> list[tuple[str, str, PowerModel, list[int], int]]:
    """(name, kind, model, link directions counted, ports) for every device that has a model."""
    nodes = node_columns(results["nodes"])
    dirs = dir_columns(results["links"])
    # each node's outgoing directions and each link's directions, in the directions' order
    by_src = np.argsort(dirs.src, kind="stable")
    out_dirs = np.split(by_src, np.searchsorted(dirs.src[by_src], np.arange(1, len(nodes))))
    found = []
    names, kinds = nodes.names, nodes.kinds
    for i, model in enumerate(_node_models(models, names, kinds)):
        if model is not None:
            ks = out_dirs[i].tolist()
            found.append((names[i], f"node:{kinds[i]}", model, ks, len(ks)))
    if models.links and len(dirs):
        by_link = np.argsort(dirs.link, kind="stable")
        links, starts = np.unique(dirs.link[by_link], return_index=True)
        for link, ks_arr in zip(links.tolist(), np.split(by_link, starts[1:])):
            ks = ks_arr.tolist()
            a, b = int(dirs.src[ks[0]]), int(dirs.dst[ks[0]])
            model = models.for_link(kinds[a], kinds[b])
            if model is not None:
                found.append((f"link{link}:{names[a]}-{names[b]}", "link", model, ks, 2))
    return found


def _node_models(models: EnergyModels, names: tuple[str, ...], kinds: tuple[str, ...]) -> list[Any]:
    """`models.for_node` of every node; by kind alone when no model is keyed by a node's name or a prefix."""
    keys = models.nodes
    if any(k.endswith("*") for k in keys) or not keys.keys().isdisjoint(names):
        return [models.for_node(n, k) for n, k in zip(names, kinds)]
    by_kind = {k: keys.get(k) for k in set(kinds)}
    return [by_kind[k] for k in kinds]


def _sum(values: np.ndarray, ks: list[int]) -> Any:
    """The sum of the counters `values[ks]` as the records' sum of each times 1.0 gives it: a float (exact: whole
    numbers below 2**53), or the int 0 for no directions."""
    return float(int(values[ks].sum())) if ks else 0


def _counters(results: dict, ks: list[int], ports: int, duration_s: float, share=None) -> Counters:
    dirs = dir_columns(results["links"])
    sim_s = results["summary"]["sim_time_ps"] * 1e-12
    if share is None:
        return Counters(
            duration_s=duration_s,
            bytes=_sum(dirs.bytes_sent, ks),
            packets=_sum(dirs.packets_sent, ks),
            busy_s=_sum(dirs.busy_ps, ks) * 1e-12,
            ports=ports,
            state_s=port_states(dirs, ks, duration_s, sim_s),
        )
    return Counters(
        duration_s=duration_s,
        bytes=sum((dirs.bytes_sent[ks] * np.asarray(share)).tolist()),
        packets=sum((dirs.packets_sent[ks] * np.asarray(share)).tolist()),
        busy_s=sum((dirs.busy_ps[ks] * np.asarray(share)).tolist()) * 1e-12,
        ports=ports,
        state_s=port_states(dirs, ks, duration_s, sim_s),
    )


def run_energy(
    results: dict,
    models: EnergyModels | None = None,
    window_s: float | None = None,
    hosts: HostPricer | None = None,
    interval_ps: tuple[int, int] | None = None,
) -> EnergyReport:
    """Per-device energy (J), total (J), average power (W), pJ per delivered bit with and without hosts, the
    host/switch/link split, and a power series (W) per window when the results carry `series.link_bytes`.

    `hosts` prices every host from the engine's per-host series (sim/host_power.py); hosts matched by a node
    model in `models` are priced by that model instead. Delivered bits count only payload the receivers hold:
    8 x sum of flows' `bytes_received`. In a window, a direction's packets and busy time are taken in
    proportion to its bytes there (our choice: the engine counts only bytes per link and window).
    `window_s` widens the engine's windows to a whole multiple of them.

    `interval_ps` = (start, end) prices an observation window instead of the run (run.window): every device
    draws its power over the whole window, busy or idle, also after the run's end; its traffic is the engine's
    per-window counts inside the window (an engine window the interval cuts counts in proportion to the
    overlap); delivered bits are the hosts' received wire bytes there times the run's payload share of them.
    It needs the engine's per-window counters, and gives no power series."""
    for key in ("nodes", "links", "summary"):
        if key not in results:
            raise InputError(f"results lack '{key}'", hint="pass the dict a simulation returned")
    models = models if models is not None else default_models()
    sim_s = results["summary"]["sim_time_ps"] * 1e-12
    if interval_ps is not None:
        return _interval_energy(results, models, hosts, interval_ps)
    devices = []
    for name, kind, model, ks, ports in _devices(results, models):
        devices.append(_device_row(name, kind, model, _counters(results, ks, ports, sim_s), sim_s))
        if isinstance(model, PortPowerModel) and kind != "link":
            devices[-1].update(port_breakdown(model, results, ks, sim_s))  # per port and state (EEE)
    host_energy = None
    if hosts is not None and "host" in node_columns(results["nodes"]).kinds:
        host_energy = hosts.price(results)
        modelled = {d["name"] for d in devices if d["kind"] == "node:host"}
        devices += host_devices(host_energy, sim_s, skip=modelled)
    split = {"hosts_energy_j": 0.0, "switches_energy_j": 0.0, "links_energy_j": 0.0}
    for d in devices:
        split[_part(d["kind"]) + "_energy_j"] += d["energy_j"]
    total = sum(split.values())
    split["host_share"] = split["hosts_energy_j"] / total if total > 0 else 0.0
    bits = 8 * _bytes_received(results)
    network = total - split["hosts_energy_j"]
    return EnergyReport(
        devices=devices,
        sim_time_s=sim_s,
        total_energy_j=total,
        avg_power_w=total / sim_s if sim_s > 0 else 0.0,
        delivered_bits=bits,
        energy_per_bit_pj=total / bits * 1e12 if bits else None,
        series=_series(results, models, sim_s, window_s, host_energy),
        hosts=None if host_energy is None else _hosts_summary(host_energy, sim_s),
        split=split,
        energy_per_bit_pj_without_hosts=network / bits * 1e12 if bits else None,
        interval=run_interval(sim_s),
    )


def host_devices(
    host_energy: HostEnergy, sim_s: float, skip: set[str] | frozenset = frozenset()
) -> list[dict]:
    """The ledger's device rows of priced hosts (those not in `skip`); both engines' runs use them."""
    rows = []
    for i, name in enumerate(host_energy.names):
        if name in skip:
            continue
        e = float(host_energy.energy_j[i])
        rows.append(
            {
                "name": name,
                "kind": "node:host",
                "model": host_energy.settings[i],
                "energy_j": e,
                "avg_power_w": e / sim_s if sim_s > 0 else 0.0,
                "cpu_energy_j": float(host_energy.cpu_j[i]),
                "nic_energy_j": float(host_energy.nic_j[i]),
                "platform_energy_j": float(host_energy.platform_j[i]),
                "interrupts": float(host_energy.interrupts[i]),
                "packets_sent": int(host_energy.packets_sent[i]),
                "packets_received": int(host_energy.packets_received[i]),
                "bytes_sent": int(host_energy.bytes_sent[i]),
                "bytes_received": int(host_energy.bytes_received[i]),
                "saturated_windows": int(host_energy.saturated_windows[i]),
            }
        )
    return rows


def hosts_summary(h: HostEnergy, sim_s: float) -> dict:
    """How the hosts of a run were priced, and their totals (EnergyReport.hosts)."""
    return _hosts_summary(h, sim_s)


def _device_row(
    name: str, kind: str, model: PowerModel, counters: Counters, seconds: float
) -> dict[str, object]:
    """One device's ledger row: its model's energy for these counters over `seconds`, checked finite and >= 0."""
    e = model.energy_j(counters)
    if e < 0 or not math.isfinite(e):
        raise InputError(f"model of {name} gave energy {e}", hint="a power model must give finite E >= 0")
    return {
        "name": name,
        "kind": kind,
        "model": model.describe(),
        "energy_j": e,
        "avg_power_w": e / seconds if seconds > 0 else 0.0,
    }


def _interval_energy(
    results: dict, models: EnergyModels, hosts: HostPricer | None, interval_ps: tuple[int, int]
) -> EnergyReport:
    series = results.get("series") or {}
    if len(series.get("link_bytes", ())) == 0:
        raise InputError(
            "energy over a window needs the engine's per-window counters",
            hint="run with stats_window_ps set (simulate sets it when run.window is given)",
        )
    length_s = (interval_ps[1] - interval_ps[0]) * 1e-12
    idx, frac = interval_weights(series["window_ps"], interval_ps)
    dirs = dir_columns(results["links"])
    per_dir = in_interval(series["link_bytes"], idx, frac).sum(axis=1)
    total = dirs.bytes_sent.astype(float)
    share = np.divide(per_dir, total, out=np.zeros_like(per_dir), where=total > 0)
    # each direction's packets and busy time in the window, as the records' int times float gave them
    packets_in = dirs.packets_sent * share
    busy_in = dirs.busy_ps * share
    devices = []
    for name, kind, model, ks, ports in _devices(results, models):
        c = Counters(
            duration_s=length_s,
            bytes=float(per_dir[ks].sum()),
            packets=sum(packets_in[ks].tolist()),
            busy_s=sum(busy_in[ks].tolist()) * 1e-12,
            ports=ports,
            state_s=port_states(dirs, ks, length_s, results["summary"]["sim_time_ps"] * 1e-12),
        )
        devices.append(_device_row(name, kind, model, c, length_s))
    host_energy = None
    if hosts is not None and "host" in node_columns(results["nodes"]).kinds:
        host_energy = hosts.price(results, interval_ps=interval_ps)
        modelled = {d["name"] for d in devices if d["kind"] == "node:host"}
        for i, name in enumerate(host_energy.names):
            if name not in modelled:
                e = float(host_energy.energy_j[i])
                devices.append(
                    {
                        "name": name,
                        "kind": "node:host",
                        "model": host_energy.settings[i],
                        "energy_j": e,
                        "avg_power_w": e / length_s,
                    }
                )
    split = {"hosts_energy_j": 0.0, "switches_energy_j": 0.0, "links_energy_j": 0.0}
    for d in devices:
        split[_part(d["kind"]) + "_energy_j"] += d["energy_j"]
    total_j = sum(split.values())
    split["host_share"] = split["hosts_energy_j"] / total_j if total_j > 0 else 0.0
    bits = _interval_bits(results, idx, frac)
    network = total_j - split["hosts_energy_j"]
    return EnergyReport(
        devices=devices,
        sim_time_s=results["summary"]["sim_time_ps"] * 1e-12,
        total_energy_j=total_j,
        avg_power_w=total_j / length_s,
        delivered_bits=bits,
        energy_per_bit_pj=total_j / bits * 1e12 if bits else None,
        hosts=None if host_energy is None else _hosts_summary(host_energy, length_s),
        split=split,
        energy_per_bit_pj_without_hosts=network / bits * 1e12 if bits else None,
        interval=window_interval(interval_ps),
    )


def _interval_bits(results: dict, idx: np.ndarray, frac: np.ndarray) -> int:
    """Payload bits delivered in the window: the hosts' received wire bytes there, times the run's payload
    share of all received wire bytes (our choice: the engine counts wire bytes per host and window)."""
    rows = (results.get("series") or {}).get("host_bytes_received", [])
    wire_all = float(sum(sum(r) for r in rows))
    if wire_all <= 0:
        return 0
    payload = _bytes_received(results)
    return int(round(8 * in_interval(rows, idx, frac).sum() * payload / wire_all))


def _bytes_received(results: dict) -> int:
    """Payload bytes the run's flows delivered; the engine's flows as records or as a DataFrame
    (sim.engine.run_spec_columns)."""
    flows = results.get("flows", [])
    if hasattr(flows, "columns"):
        return int(flows["bytes_received"].sum()) if len(flows) else 0
    return sum(int(f.get("bytes_received", 0)) for f in flows)


def _part(kind: str) -> str:
    """hosts, switches or links: the three parts of the split (any node that is not a host is a switch)."""
    if kind == "link":
        return "links"
    return "hosts" if kind == "node:host" else "switches"


def _hosts_summary(h: HostEnergy, sim_s: float) -> dict:
    return {
        **h.description,
        "note": (
            "hosts priced with the documented defaults (no [power.hosts] table; docs/host-energy.md)"
            if h.defaults
            else "hosts priced by the scenario's [power.hosts] table (docs/host-energy.md)"
        ),
        "hosts": len(h.names),
        "energy_j": h.total_j,
        "avg_power_w": h.total_j / sim_s if sim_s > 0 else 0.0,
        "cpu_energy_j": float(h.cpu_j.sum()),
        "nic_energy_j": float(h.nic_j.sum()),
        "platform_energy_j": float(h.platform_j.sum()),
        "interrupts": float(h.interrupts.sum()),
        "saturated_windows": int(h.saturated_windows.sum()),
    }


_PER_HOST_SERIES_MAX = 200_000  # per-host power series in the report only up to this many host-windows


def _series(
    results: dict, models: EnergyModels, sim_s: float, window_s: float | None, host_energy: HostEnergy | None
) -> dict | None:
    series = results.get("series")
    if not series or len(series.get("link_bytes", ())) == 0:
        if window_s is not None:
            raise InputError(
                "a power series needs the engine's per-window counters",
                hint="set stats_window_ps (the scenario's stats window) in the run",
            )
        return None
    w_s = series["window_ps"] * 1e-12
    group = 1
    if window_s is not None:
        group = round(window_s / w_s)
        if group < 1 or not math.isclose(group * w_s, window_s, rel_tol=1e-6):
            raise InputError(
                f"power window {window_s:g} s is not a whole multiple of the engine's {w_s:g} s",
                hint=f"choose a multiple of {w_s:g} s",
            )
    windows = max(1, math.ceil(sim_s / w_s - 1e-9)) if sim_s > 0 else 1
    dur = np.clip(sim_s - np.arange(windows) * w_s, 0.0, w_s)
    dirs = dir_columns(results["links"])
    per_dir = fold_windows(series["link_bytes"], len(dirs), windows)
    total_bytes = dirs.bytes_sent.astype(float)
    share = np.divide(
        per_dir, total_bytes[:, None], out=np.zeros_like(per_dir), where=total_bytes[:, None] > 0
    )
    packets = dirs.packets_sent.astype(float)
    busy_s = dirs.busy_ps.astype(float) * 1e-12
    parts = {"hosts": np.zeros(windows), "switches": np.zeros(windows), "links": np.zeros(windows)}
    devices = _devices(results, models)
    for _name, kind, model, ks, ports in devices:
        c = Counters(
            duration_s=dur,  # type: ignore[arg-type]  # arrays: one value per window
            bytes=per_dir[ks].sum(axis=0),  # type: ignore[arg-type]
            packets=packets[ks] @ share[ks],  # type: ignore[arg-type]
            busy_s=busy_s[ks] @ share[ks],  # type: ignore[arg-type]
            ports=ports,
            state_s=port_states(dirs, ks, dur, sim_s),
        )
        parts[_part(kind)] += _energy_per_window(model, c, windows)
    host_w = None
    if host_energy is not None:
        modelled = {name for name, kind, *_rest in devices if kind.startswith("node:")}
        keep = np.array([n not in modelled for n in host_energy.names], dtype=bool)
        parts["hosts"] += (host_energy.power_w[keep] * dur).sum(axis=0)
        if host_energy.power_w.size <= _PER_HOST_SERIES_MAX:
            host_w = host_energy.power_w
    out: dict = {"window_s": w_s * group}
    g_dur = _grouped(dur, group)
    safe = np.where(g_dur > 0, g_dur, 1.0)
    total = sum(parts.values())
    out["duration_s"] = g_dur.tolist()
    out["power_w"] = np.where(g_dur > 0, _grouped(total, group) / safe, 0.0).tolist()
    for name, e in parts.items():
        out[f"{name}_power_w"] = np.where(g_dur > 0, _grouped(e, group) / safe, 0.0).tolist()
    if host_w is not None:
        hw = _grouped((host_w * dur).T, group).T / safe
        out["per_host_power_w"] = {n: row.tolist() for n, row in zip(host_energy.names, hw)}  # type: ignore[union-attr]
    return out


def _grouped(a: np.ndarray, group: int) -> np.ndarray:
    """Sums over consecutive groups of `group` windows along the first axis (the last group may be short)."""
    if group == 1:
        return a
    starts = np.arange(0, a.shape[0], group)
    return np.add.reduceat(a, starts, axis=0)


def _energy_per_window(model: PowerModel, c: Counters, windows: int) -> np.ndarray:
    """The model on every window at once when it takes arrays (constant and linear models do); else one call
    per window."""
    try:
        e = np.asarray(model.energy_j(c), dtype=float)
        if e.shape == (windows,):
            return e
    except (TypeError, ValueError):
        pass
    return np.array(
        [
            model.energy_j(
                Counters(
                    duration_s=float(c.duration_s[w]),  # type: ignore[index]
                    bytes=float(c.bytes[w]),  # type: ignore[index]
                    packets=float(c.packets[w]),  # type: ignore[index]
                    busy_s=float(c.busy_s[w]),  # type: ignore[index]
                    ports=c.ports,
                )
            )
            for w in range(windows)
        ]
    )
