"""Energy of a simulated run: price the engine's counters (docs/engine-spec.md, Output) with device models.

Models attach to nodes by exact name, by name prefix ("core*") or by kind ("switch", "host"), and to links by
the kinds of their ends ("host-switch", "switch-switch", ...) or "*". A node's counters are those of the
link directions leaving it; a link's are both of its directions, with 2 ports. Devices with no model are
left out (seed 001 leaves servers out the same way). Totals are sums over the devices."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..core.errors import InputError
from ..power.models import Counters, PowerModel, from_switch
from ..power.switches import SwitchModel, get_switch

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
    """Switches draw the constant power of a shipped table entry; hosts and links are left out."""
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

    def to_dict(self) -> dict:
        return {
            "sim_time_s": self.sim_time_s,
            "total_energy_j": self.total_energy_j,
            "avg_power_w": self.avg_power_w,
            "delivered_bits": self.delivered_bits,
            "energy_per_bit_pj": self.energy_per_bit_pj,
            "devices": self.devices,
            "series": self.series,
        }


def _devices(results: dict, models: EnergyModels) -> list[tuple[str, str, PowerModel, list[int], int]]:
    """(name, kind, model, link directions counted, ports) for every device that has a model."""
    nodes = results["nodes"]
    dirs = results["links"]
    out_dirs: dict[int, list[int]] = {i: [] for i in range(len(nodes))}
    link_dirs: dict[int, list[int]] = {}
    for k, d in enumerate(dirs):
        out_dirs.setdefault(d["from"], []).append(k)
        link_dirs.setdefault(d["link"], []).append(k)
    found = []
    for i, node in enumerate(nodes):
        model = models.for_node(node["name"], node["kind"])
        if model is not None:
            found.append((node["name"], f"node:{node['kind']}", model, out_dirs[i], len(out_dirs[i])))
    for link, ks in sorted(link_dirs.items()):
        a, b = dirs[ks[0]]["from"], dirs[ks[0]]["to"]
        model = models.for_link(nodes[a]["kind"], nodes[b]["kind"])
        if model is not None:
            found.append((f"link{link}:{nodes[a]['name']}-{nodes[b]['name']}", "link", model, ks, 2))
    return found


def _counters(results: dict, ks: list[int], ports: int, duration_s: float, share=None) -> Counters:
    dirs = results["links"]
    if share is None:
        share = [1.0] * len(ks)
    return Counters(
        duration_s=duration_s,
        bytes=sum(dirs[k]["bytes_sent"] * s for k, s in zip(ks, share)),
        packets=sum(dirs[k]["packets_sent"] * s for k, s in zip(ks, share)),
        busy_s=sum(dirs[k]["busy_ps"] * s for k, s in zip(ks, share)) * 1e-12,
        ports=ports,
    )


def run_energy(
    results: dict, models: EnergyModels | None = None, window_s: float | None = None
) -> EnergyReport:
    """Per-device energy (J), total (J), average power (W), pJ per delivered bit, and a power series (W) per
    window when the results carry `series.link_bytes`.

    Delivered bits count only payload the receivers hold: 8 x sum of flows' `bytes_received`. In a window,
    a direction's packets and busy time are taken in proportion to its bytes there (our choice: the engine
    counts only bytes per window). `window_s` widens the engine's windows to a whole multiple of them."""
    for key in ("nodes", "links", "summary"):
        if key not in results:
            raise InputError(f"results lack '{key}'", hint="pass the dict a simulation returned")
    models = models if models is not None else default_models()
    sim_s = results["summary"]["sim_time_ps"] * 1e-12
    devices = []
    total = 0.0
    for name, kind, model, ks, ports in _devices(results, models):
        e = model.energy_j(_counters(results, ks, ports, sim_s))
        if e < 0 or not math.isfinite(e):
            raise InputError(f"model of {name} gave energy {e}", hint="a power model must give finite E >= 0")
        devices.append(
            {
                "name": name,
                "kind": kind,
                "model": model.describe(),
                "energy_j": e,
                "avg_power_w": e / sim_s if sim_s > 0 else 0.0,
            }
        )
        total += e
    bits = 8 * sum(int(f.get("bytes_received", 0)) for f in results.get("flows", []))
    return EnergyReport(
        devices=devices,
        sim_time_s=sim_s,
        total_energy_j=total,
        avg_power_w=total / sim_s if sim_s > 0 else 0.0,
        delivered_bits=bits,
        energy_per_bit_pj=total / bits * 1e12 if bits else None,
        series=_series(results, models, sim_s, window_s),
    )


def _series(results: dict, models: EnergyModels, sim_s: float, window_s: float | None) -> dict | None:
    series = results.get("series")
    if not series or not series.get("link_bytes"):
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
    per_dir = series["link_bytes"]
    windows = max(math.ceil(sim_s / w_s - 1e-9) if w_s > 0 else 0, max(len(x) for x in per_dir))
    dirs = results["links"]
    devices = _devices(results, models)
    energies, durations = [], []
    for w in range(windows):
        dur = min(w_s, sim_s - w * w_s) if sim_s > w * w_s else w_s  # the last window may be partial
        energy = 0.0
        for _name, _kind, model, ks, ports in devices:
            share = [
                (per_dir[k][w] / dirs[k]["bytes_sent"])
                if w < len(per_dir[k]) and dirs[k]["bytes_sent"]
                else 0.0
                for k in ks
            ]
            energy += model.energy_j(_counters(results, ks, ports, dur, share))
        energies.append(energy)
        durations.append(dur)
    power = []
    for g in range(0, windows, group):
        e, d = sum(energies[g : g + group]), sum(durations[g : g + group])
        power.append(e / d if d > 0 else 0.0)
    return {"window_s": w_s * group, "power_w": power}
