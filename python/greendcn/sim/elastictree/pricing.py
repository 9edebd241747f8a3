"""The ledger under ElasticTree: switches and links priced at their off power for the time they are off.

A device that turns off at an interval's start is off from when its last queued packet has left (the engine's
`schedule.drained_ps`; a switch once all its links have drained) until the interval ends, less the wake-up
time when it is on in the next interval: the manager knows its plan and powers the device on that early, and
pays for it. Off time is taken out of each device's energy as what its model draws idle over that time (exact
for the constant and linear models: an off device carries no traffic), and the off power is added.

A switch priced port by port (power/ports.py; the default with Energy-Efficient Ethernet) is priced in its
ports' states instead (our choice, docs/energy-saving.md): while the switch is off it draws the off power
and nothing else, and its ports are in state "off"; a port whose link alone is off (the switch stays on) is
in state "off" at the port model's off power. That off time is taken out of the time the engine counted in
low-power idle first (EEE saw an off link as idle), then the transitions, then active (port_energy.to_off)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...power.models import ConstantPower, Counters, LinearPower
from ...power.ports import PortPowerModel
from ..ledger import EnergyModels, EnergyReport, _devices, _part
from ..ledger_columns import dir_columns, node_columns
from ..port_energy import port_states, to_off
from .schedule import Plan

__all__ = ["apply_sleep", "off_periods"]


def off_periods(plan: Plan, results: dict[str, Any], end_ps: int) -> dict[str, list[tuple[int, int]]]:
    """Per device name (switch nodes and `link{l}:A-B` as the ledger names them), its off periods [from, to)
    in picoseconds, up to `end_ps`. Interval e's off links are off from when they drained until the interval's
    end, less the wake time when they are on in the next one; an off switch from when its last link drained
    (at the earliest the interval's start), likewise; periods of consecutive intervals that meet are one.
    Computed on arrays of every (interval, device) pair at once; names in the order of their first period
    (interval, then links before aggregation before core switches, each in index order)."""
    sched = plan.link_schedule()
    times = np.asarray(sched["times_ps"], dtype=np.int64)
    n = len(times)
    ends = np.append(times[1:], np.int64(end_ps))  # interval e ends where e + 1 starts; the last at end_ps
    off = sched["off_links"]
    counts = np.array([len(o) for o in off], dtype=np.int64)
    e_link = np.repeat(np.arange(n), counts)
    link = np.array([x for o in off for x in o], dtype=np.int64)
    drained = (results.get("schedule") or {}).get("drained_ps")
    if drained is None:  # no engine report: off from the interval's start
        at_link = times[e_link]
    else:
        at_link = np.array([x for d in drained for x in d], dtype=np.int64)
    wake = plan.config.wake_time
    n_links = int(max(link.max(initial=-1), dir_columns(results["links"]).link.max(initial=-1))) + 1
    # a link wakes when it is on in the next interval (off links are sorted within an interval, so are keys)
    keys = e_link * n_links + link
    nxt = keys + n_links
    in_next = np.zeros(len(keys), dtype=bool)
    if len(keys):
        in_next = keys[np.minimum(np.searchsorted(keys, nxt), len(keys) - 1)] == nxt
    waking = (e_link + 1 < n) & ~in_next
    stop_link = np.where(waking, ends[e_link] - wake, ends[e_link])

    view = plan.view
    node_names = node_columns(results["nodes"]).names
    # per (interval, device): interval, category (0 link, 1 aggregation, 2 core), index, key, from, to
    rows_e, rows_cat, rows_pos, rows_key = [e_link], [np.zeros(len(link), np.int64)], [link], [link]
    rows_at, rows_stop = [at_link], [stop_link]
    offsets = np.concatenate([[0], np.cumsum(counts)])
    drained_now = np.empty(n_links, dtype=np.int64)
    layers = (("agg", view.aggs, _agg_links(view)), ("core", view.cores, _core_links(view)))
    for e in range(n):
        # each link's drained time in interval e (the interval's start for links left on)
        drained_now.fill(times[e])
        lo, hi = offsets[e], offsets[e + 1]
        drained_now[link[lo:hi]] = at_link[lo:hi]
        s = plan.subsets[e]
        nxt_s = plan.subsets[e + 1] if e + 1 < n else None
        for cat, (layer, ids, links_of) in enumerate(layers, start=1):
            on = s.aggs_on if layer == "agg" else s.cores_on
            idx = np.flatnonzero(~on)
            if not len(idx):
                continue
            at = np.maximum(times[e], drained_now[links_of[idx]].max(axis=1))
            if nxt_s is None:
                stop = np.full(len(idx), ends[e])
            else:
                woken = (nxt_s.aggs_on if layer == "agg" else nxt_s.cores_on)[idx]
                stop = np.where(woken, ends[e] - wake, ends[e])
            rows_e.append(np.full(len(idx), e))
            rows_cat.append(np.full(len(idx), cat))
            rows_pos.append(idx)
            rows_key.append(n_links + np.asarray(ids, dtype=np.int64)[idx])  # switches after every link
            rows_at.append(at)
            rows_stop.append(stop)
    e_all, cat, pos, key, start = (np.concatenate(x) for x in (rows_e, rows_cat, rows_pos, rows_key, rows_at))
    stop = np.minimum(np.concatenate(rows_stop), end_ps)
    keep = stop > start
    order = np.flatnonzero(keep)[np.lexsort((e_all[keep], key[keep]))]  # kept, by device, then interval
    e_all, cat, pos, key, start, stop = (x[order] for x in (e_all, cat, pos, key, start, stop))
    if not len(key):
        return {}  # nothing off
    # a period that starts where the device's previous one stopped continues it
    new = np.ones(len(key), dtype=bool)
    new[1:] = (key[1:] != key[:-1]) | (start[1:] != stop[:-1])
    first = np.flatnonzero(new)
    last = np.append(first[1:], len(key)) - 1
    span_key, span_from, span_to = key[first], start[first], stop[last]
    # devices in the order of their first period: interval, then category, then index
    device_first = np.flatnonzero(np.append(True, span_key[1:] != span_key[:-1]))
    dev_key = span_key[device_first]
    at_first = first[device_first]
    rank = np.lexsort((pos[at_first], cat[at_first], e_all[at_first]))
    link_name = _link_names(results)
    bounds = np.append(device_first, len(span_key))
    froms, tos = span_from.tolist(), span_to.tolist()
    out: dict[str, list[tuple[int, int]]] = {}
    for d in rank.tolist():
        k = int(dev_key[d])
        name = link_name[k] if k < n_links else node_names[k - n_links]
        out[name] = list(zip(froms[bounds[d] : bounds[d + 1]], tos[bounds[d] : bounds[d + 1]]))
    return out


def _agg_links(view: Any) -> np.ndarray:
    """Per aggregation switch, its links, one row each: the edge links of its pod at its position, then its core
    links."""
    half = view.half
    i = np.arange(len(view.aggs))
    edges = (i // half * half)[:, None] + np.arange(half)[None, :]
    return np.concatenate([view.edge_agg[edges, (i % half)[:, None]], view.agg_core], axis=1)


def _core_links(view: Any) -> np.ndarray:
    """Per core switch, its links, one row each: one to each aggregation switch at its position (core c hangs off
    aggregation position c // (k/2))."""
    half = view.half
    j, c = np.divmod(np.arange(len(view.cores)), half)
    aggs = j[:, None] + half * np.arange(len(view.aggs) // half)[None, :]
    return view.agg_core[aggs, c[:, None]]


def _link_names(results: dict[str, Any]) -> dict[int, str]:
    """Link id -> the ledger's name of it, `link{l}:A-B` from its first direction (read from the columns of
    sim/ledger_columns.py, not a dict per direction)."""
    names = node_columns(results["nodes"]).names
    dirs = dir_columns(results["links"])
    links, first = np.unique(dirs.link, return_index=True)  # each link's first direction
    return {
        link: f"link{link}:{names[a]}-{names[b]}"
        for link, a, b in zip(links.tolist(), dirs.src[first].tolist(), dirs.dst[first].tolist())
    }


def _clip(spans: list[tuple[int, int]], a: int, b: int) -> list[tuple[int, int]]:
    return [(max(lo, a), min(hi, b)) for lo, hi in spans if min(hi, b) > max(lo, a)]


def _length(spans: list[tuple[int, int]]) -> int:
    return sum(hi - lo for lo, hi in spans)


def _s(spans: list[tuple[int, int]]) -> float:
    return _length(spans) * 1e-12


def _outside(spans: list[tuple[int, int]], cut: list[tuple[int, int]]) -> int:
    """Picoseconds of `spans` not covered by `cut` (each a list of disjoint [from, to) periods)."""
    inter = sum(max(0, min(h1, h2) - max(l1, l2)) for l1, h1 in spans for l2, h2 in cut)
    return _length(spans) - inter


def apply_sleep(
    report: EnergyReport,
    results: dict[str, Any],
    models: EnergyModels,
    plan: Plan,
    interval_ps: tuple[int, int],
) -> EnergyReport:
    """`report` (over [start, end) ps) with every switch and link priced off while off; rows gain `off_s` and
    `off_periods_s` ([from, to] in seconds), and the run's power series (if any) drops the same energy."""
    a, b = interval_ps
    periods = off_periods(plan, results, b)
    devices = {name: (m, ks, p) for name, _, m, ks, p in _devices(results, models)}
    link_name = _link_names(results)
    dirs = results["links"]
    dir_link = dir_columns(dirs).link.tolist()
    sim_s = results["summary"]["sim_time_ps"] * 1e-12
    off_w = plan.config.off_power
    length_s = (b - a) * 1e-12
    series = report.series
    for row in report.devices:
        spans = periods.get(row["name"])
        if row["name"] not in devices:
            row["off_s"] = 0.0
            continue
        model, ks, p = devices[row["name"]]
        port_spans: list[tuple[int, int]] = []
        inside = _clip(spans or [], a, b)
        off_s = _length(inside) * 1e-12
        if isinstance(model, PortPowerModel) and row["kind"] != "link":
            port_spans = [_clip(periods.get(link_name[dir_link[k]], []), a, b) for k in ks]
            port_off_s = sum(_outside(x, inside) for x in port_spans) * 1e-12
            port_spans = [x for xs in port_spans for x in xs]
            row["ports_off_s"] = port_off_s
            if not off_s and not port_off_s:
                row["off_s"] = 0.0
                continue
            states = port_states(dirs, ks, length_s, sim_s) or {"active": p * length_s}
            idle = _port_idle_j(model, row, states, p, length_s, off_s, port_off_s, off_w)
        elif not spans:
            row["off_s"] = 0.0
            continue
        else:
            idle = model.energy_j(Counters(duration_s=off_s, ports=p))
        row["energy_j"] = max(0.0, row["energy_j"] - idle) + off_w * off_s
        row["avg_power_w"] = row["energy_j"] / length_s if length_s > 0 else 0.0
        row["off_s"] = off_s
        row["off_periods_s"] = [[lo * 1e-12, hi * 1e-12] for lo, hi in inside]
        if series is not None and port_spans:
            # a switch priced port by port: its saving spread evenly over its off time (our approximation)
            at = inside or port_spans
            _sleep_in_series(
                series, _part(row["kind"]), model, p, at, off_w if inside else 0.0, idle / _s(at)
            )
        elif series is not None:
            _sleep_in_series(series, _part(row["kind"]), model, p, inside, off_w)
    split = {"hosts_energy_j": 0.0, "switches_energy_j": 0.0, "links_energy_j": 0.0}
    for d in report.devices:
        split[_part(d["kind"]) + "_energy_j"] += d["energy_j"]
    total = sum(split.values())
    split["host_share"] = split["hosts_energy_j"] / total if total > 0 else 0.0
    report.split = split
    report.total_energy_j = total
    report.avg_power_w = total / length_s if length_s > 0 else 0.0
    bits = report.delivered_bits
    report.energy_per_bit_pj = total / bits * 1e12 if bits else None
    report.energy_per_bit_pj_without_hosts = (total - split["hosts_energy_j"]) / bits * 1e12 if bits else None
    return report


def _port_idle_j(
    model: PortPowerModel,
    row: dict[str, Any],
    states: dict[str, float],
    ports: int,
    length_s: float,
    off_s: float,
    port_off_s: float,
    off_w: float,
) -> float:
    """What a switch priced port by port would have drawn, over `length_s`, beyond what it draws once off for
    `off_s` (the whole switch, priced at `off_w` by the caller) and with `port_off_s` more port-seconds off
    (links turned off while the switch is on, priced at the port's off power); updates the row's
    `states_s`, `energy_by_state_j` and `fixed_energy_j` when it has them."""
    moved = to_off(states, ports * off_s + port_off_s)
    device_off = min(ports * off_s, moved["off"])
    kept = moved | {"off": moved["off"] - device_off}
    before = model.energy_j(Counters(duration_s=length_s, ports=ports, state_s=states))
    after = model.energy_j(Counters(duration_s=length_s - off_s, ports=ports, state_s=kept))
    if "states_s" in row:
        row["states_s"] = moved
        by_state = {s: model.watts(s) * t for s, t in kept.items()}
        by_state["off"] = by_state.get("off", 0.0) + off_w * off_s  # the whole switch off: its off power
        row["energy_by_state_j"] = by_state
        row["fixed_energy_j"] = model.energy_j(
            Counters(duration_s=length_s - off_s, ports=ports, state_s={"active": 0.0})
        )
    return float(before - after)


def _sleep_in_series(
    series: dict[str, Any],
    part: str,
    model: Any,
    ports: int,
    spans: list,
    off_w: float,
    idle_w: float | None = None,
) -> None:
    """Take a device's off time out of the run's power series (windows from time 0): per window, what its model
    draws idle over the time it was off there (or `idle_w` per second off: a switch priced port by port, our
    approximation spreading its saving evenly over its off time), less its off power."""
    w_s = float(series["window_s"])
    dur = np.asarray(series["duration_s"], dtype=float)
    starts = np.arange(len(dur)) * w_s
    ends = starts + dur
    off = np.zeros(len(dur))
    for lo, hi in spans:
        off += np.clip(np.minimum(hi * 1e-12, ends) - np.maximum(lo * 1e-12, starts), 0.0, None)
    if not off.any():
        return
    if idle_w is not None:
        idle = idle_w * off
    elif isinstance(model, (ConstantPower, LinearPower)):
        # idle and without traffic these draw (static + per port) x time: one rate times each window's time off,
        # the same products as a model call per window (the traffic terms add 0.0)
        idle = model.energy_j(Counters(duration_s=1.0, ports=ports)) * off
    else:
        idle = np.array(
            [model.energy_j(Counters(duration_s=float(x), ports=ports)) if x > 0 else 0.0 for x in off]
        )
    safe = np.where(dur > 0, dur, 1.0)
    drop = np.where(dur > 0, (idle - off_w * off) / safe, 0.0)
    for key in (f"{part}_power_w", "power_w"):
        series[key] = (np.asarray(series[key]) - drop).tolist()
