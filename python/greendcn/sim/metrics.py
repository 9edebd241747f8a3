"""Flow metrics as datacenter papers report them: each flow's ideal FCT on the idle network and its slowdown
(FCT over ideal FCT), and FCT and slowdown by size bucket and by class (mean, p50, p99, p99.9), for packet and
circuit fabrics alike. docs/metrics.md gives every definition and says which choices are ours.

- Packet fabrics: ideal FCT = W x 8 / r1 + d1 + sum over the path's other links i of (L x 8 / r_i + d_i): the
  flow's wire bytes W (payload plus, per packet, the transport header and topology.frame_overhead) serialized
  back to back at its host's link rate r1, then its last packet (L wire bytes) stored and forwarded over the
  rest of the unloaded shortest path (propagation d_i). When every link of the network has one rate (all
  topologies greendcn builds), L is a full packet for flows of several packets: the last packet waits on each
  later link for the one before it, so the formula is then the exact idle-network FCT of a stream at line
  rate. Sprayed packets (routing.scheme = "rps") need not wait for each other between the first and the last
  link, so a short last packet may overtake and reach the last switch first: there the ideal is the
  smaller of that formula and the first and last links' schedule with every packet on a path of its own
  (docs/metrics.md). With tcp.handshake, the handshake's round trip is added for the flows that make one
  (TCP and DCTCP; the engine's FCT includes it; NDP and UDP start at once). No flow can finish sooner, so
  slowdown >= 1 on packet fabrics.
- Circuit fabrics: ideal FCT = W x 8 / link_rate + 2 x link_delay, as if a direct circuit to the destination
  were up for the whole flow (one uplink at the link rate, endpoint -> circuit switch -> endpoint): waiting for a
  circuit and indirection count as slowdown (our choice). With hosts as endpoints (topology.hosts_per_rack)
  the host links add 2 x (L x 8 / link_rate + link_delay) between racks, L the last packet's wire bytes
  stored and forwarded at each ToR; within a rack the ideal is host -> ToR -> host, W x 8 / link_rate +
  L x 8 / link_rate + 2 x link_delay.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.units import PS_PER_S

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "DEFAULT_SIZE_BUCKETS",
    "QUANTILES",
    "bucket_labels",
    "flow_table",
    "ideal_fct_circuit_s",
    "ideal_fct_packet_s",
    "attach",
    "summary_row",
    "window_summary",
    "summary_keys",
]

# Our defaults: < 100 KB, 100 KB-1 MB, 1-10 MB, >= 10 MB (pFabric, Alizadeh et al. 2013, reports flows up to
# 100 KB and above 10 MB; its edges fall in the other bucket).
DEFAULT_SIZE_BUCKETS = (100_000, 1_000_000, 10_000_000)
QUANTILES = (("p50", 0.50), ("p99", 0.99), ("p999", 0.999))


def _size_text(n: int) -> str:
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return f"{n}B"


def bucket_labels(edges: tuple[int, ...] | list[int]) -> list[str]:
    """Key-safe labels of the buckets [0, e1), [e1, e2), ..., [e_last, inf): lt_100KB, 100KB_1MB, ge_10MB."""
    e = [_size_text(int(x)) for x in edges]
    if not e:
        return ["all_sizes"]
    return [f"lt_{e[0]}"] + [f"{a}_{b}" for a, b in zip(e, e[1:])] + [f"ge_{e[-1]}"]


def _packets(size: np.ndarray, payload: int) -> tuple[np.ndarray, np.ndarray]:
    """Packets per flow and the payload of each flow's last packet (a zero-byte flow sends none)."""
    n = np.maximum(1, -(-size // payload))
    last = size - (n - 1) * payload
    return n, last


def _wire(size: np.ndarray, payload: int, overhead: int) -> tuple[np.ndarray, np.ndarray]:
    n, last = _packets(size, payload)
    return size + n * overhead, last + overhead


def _host_attachment(net: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per host: the switch it hangs from, its link's rate and delay (hosts are single-homed here)."""
    hosts = sum(1 for n in net.nodes if n.kind == "host")
    sw = np.full(hosts, -1, dtype=np.int64)
    rate = np.zeros(hosts)
    delay = np.zeros(hosts)
    for link in net.links:
        for h, other in ((link.a, link.b), (link.b, link.a)):
            if h < hosts and net.nodes[other].kind == "switch" and sw[h] < 0:
                sw[h], rate[h], delay[h] = other, link.rate_bps, link.delay_ps
    return sw, rate, delay


def _switch_paths(net: Any, sources: np.ndarray) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """From each source switch to every node, over switches only, along the first breadth-first path: the sum
    of the links' delays (ps) and of their inverse rates (s per bit)."""
    from collections import deque

    adj: list[list[tuple[int, int, int]]] = [[] for _ in net.nodes]
    for link in net.links:
        if net.nodes[link.a].kind == "switch" and net.nodes[link.b].kind == "switch":
            adj[link.a].append((link.b, link.rate_bps, link.delay_ps))
            adj[link.b].append((link.a, link.rate_bps, link.delay_ps))
    out = {}
    for s in sources.tolist():
        delay = np.full(len(net.nodes), np.nan)
        inv = np.full(len(net.nodes), np.nan)
        delay[s] = inv[s] = 0.0
        todo = deque([s])
        while todo:
            u = todo.popleft()
            for v, r, d in adj[u]:
                if math.isnan(delay[v]):
                    delay[v], inv[v] = delay[u] + d, inv[u] + 1.0 / r
                    todo.append(v)
        out[s] = (delay, inv)
    return out


def _hops_to(net: Any, hosts: int, sources: np.ndarray, s_sw: np.ndarray, d_sw: np.ndarray) -> np.ndarray:
    """Hop count between each flow's source and destination switch over switch links: a breadth-first search
    from every distinct source switch at once, level by level in numpy (blocks of 64 sources), so a k = 48
    fat-tree's 1152 edge switches take a second rather than minutes of Python. The distances from every source
    go into one table (sources x switches, int16: 6.6 MB at k = 48), read for all flows by one gather rather than
    grouping the flows by source (a sort of a million flows cost more than the searches; BENCHMARKS.md)."""
    # switches renumbered from 0 (hosts come first in every network)
    links = [(l.a - hosts, l.b - hosts) for l in net.links if min(l.a, l.b) >= hosts]
    a = np.array([x for x, _ in links] + [y for _, y in links], dtype=np.int64)
    b = np.array([y for _, y in links] + [x for x, _ in links], dtype=np.int64)
    sources = sources - hosts
    order = np.argsort(b, kind="stable")
    a, b = a[order], b[order]
    starts = np.flatnonzero(np.r_[True, b[1:] != b[:-1]])
    targets = b[starts]
    n = len(net.nodes) - hosts
    table = np.empty((len(sources), n), dtype=np.int16)
    for lo in range(0, len(sources), 64):
        block = sources[lo : lo + 64]
        rows = np.arange(len(block))
        dist = np.full((len(block), n), -1, dtype=np.int16)
        dist[rows, block] = 0
        frontier = np.zeros((len(block), n), dtype=bool)
        frontier[rows, block] = True
        level = 0
        while frontier.any():
            level += 1
            nxt = np.zeros_like(frontier)
            nxt[:, targets] = np.logical_or.reduceat(frontier[:, a], starts, axis=1)
            nxt &= dist < 0
            dist[nxt] = level
            frontier = nxt
        table[lo : lo + len(block)] = dist
    pos = np.searchsorted(sources, s_sw - hosts)  # each flow's source among `sources` (sorted, distinct)
    return table[pos, d_sw - hosts].astype(np.float64)


def ideal_fct_packet_s(
    sc: Any,
    net: Any,
    src: np.ndarray,
    dst: np.ndarray,
    size: np.ndarray,
    udp: np.ndarray,
    handshake: np.ndarray | None = None,
) -> np.ndarray:
    """Ideal FCT (s) of each flow on the idle packet network (module doc). `src` and `dst` are node indices,
    `udp` marks datagram flows (the engine's 1472-byte payloads and 28-byte headers), `handshake` the flows
    that open with a handshake when tcp.handshake is on (default: every flow but the datagrams)."""
    size = np.asarray(size, dtype=np.int64)
    frame = int(sc.topology.frame_overhead)
    w_tcp, l_tcp = _wire(size, int(sc.tcp.mss), int(sc.tcp.header_bytes) + frame)
    w_udp, l_udp = _wire(size, 1472, 28 + frame)
    wire = np.where(udp, w_udp, w_tcp).astype(float)
    last = np.where(udp, l_udp, l_tcp).astype(float)
    full = np.where(udp, 1472 + 28 + frame, int(sc.tcp.mss) + int(sc.tcp.header_bytes) + frame)
    several = size > np.where(udp, 1472, int(sc.tcp.mss))
    sw, rate, delay = _host_attachment(net)
    src, dst = np.asarray(src), np.asarray(dst)
    s_sw, d_sw = sw[src], sw[dst]
    mid_delay = np.zeros(len(size))
    sprayed = None
    mid_inv = np.zeros(len(size))
    sources = _distinct(s_sw)
    uniform = {(l.rate_bps, l.delay_ps) for l in net.links if min(l.a, l.b) >= len(sw)}
    if len(uniform) == 1:  # fat-trees and leaf-spines: every switch link alike, so hops say it all
        ((r, d),) = uniform
        hops = _hops_to(net, len(sw), sources, s_sw, d_sw)
        mid_delay, mid_inv = hops * float(d), hops / float(r)
        if np.all(rate[src] == r) and np.all(rate[dst] == r):
            if sc.routing.scheme == "rps":
                sprayed = _sprayed_ps(wire, last, full, hops, r)
            # One rate everywhere: on each later link the last packet also waits for the one before it to
            # be sent on, so a flow of several packets pays a full packet's time there (exact when idle).
            last = np.where(several, np.maximum(last, full), last)
    elif uniform:
        for s, (dl, inv) in _switch_paths(net, sources).items():
            rows = s_sw == s
            mid_delay[rows] = dl[d_sw[rows]]
            mid_inv[rows] = inv[d_sw[rows]]
    ideal_ps = (
        wire * 8 * PS_PER_S / rate[src]
        + delay[src]
        + mid_delay
        + last * 8 * PS_PER_S * mid_inv
        + last * 8 * PS_PER_S / rate[dst]
        + delay[dst]
    )
    if sprayed is not None:
        ideal_ps = np.where(
            several, np.minimum(ideal_ps, sprayed + delay[src] + mid_delay + delay[dst]), ideal_ps
        )
    if sc.tcp.handshake:
        header = 8 * PS_PER_S * (int(sc.tcp.header_bytes) + frame)
        rtt = 2 * (
            delay[src] + header / rate[src] + mid_delay + header * mid_inv + delay[dst] + header / rate[dst]
        )
        shakes = ~np.asarray(udp, dtype=bool) if handshake is None else np.asarray(handshake, dtype=bool)
        ideal_ps = ideal_ps + np.where(shakes, np.ceil(rtt), 0.0)
    return ideal_ps / PS_PER_S


def _sprayed_ps(wire: np.ndarray, last: np.ndarray, full: Any, hops: np.ndarray, rate: float) -> np.ndarray:
    """Serialization part (ps) of a sprayed flow's idle FCT on one-rate links, each packet on a path of its own
    (our derivation, docs/metrics.md): its m packets leave the host back to back, full ones F long and the last
    L; between the first and the last link a packet is held up by none of the others, so full packet k reaches
    the last switch at (k + h) F (h links between switches) and the last packet at (m - 1) F + (h + 1) L. If
    the last packet comes before the first full one, it goes first on the last link and the full ones follow:
    max((1 + h) F, (m - 1) F + (h + 2) L) + (m - 1) F. Otherwise it falls among them and the single-path
    formula is exact; the caller takes the smaller of the two."""
    ps_per_byte = 8 * PS_PER_S / rate
    f = np.asarray(full, dtype=float) * ps_per_byte
    lt = last * ps_per_byte
    m1 = np.rint((wire - last) / np.asarray(full, dtype=float))  # full packets before the last one
    return np.maximum((1 + hops) * f, m1 * f + (hops + 2) * lt) + m1 * f


def ideal_fct_circuit_s(
    link_rate_bps: int,
    link_delay_ps: int,
    size: np.ndarray,
    same_rack: np.ndarray | None = None,
    host_delay_ps: int | None = None,
    frame_bytes: int = 24,
) -> np.ndarray:
    """Ideal FCT (s) on a circuit fabric (module doc): the circuit engine's datagrams (1472 payload bytes, 28
    header and `frame_bytes` of framing each) at the link rate, plus endpoint -> circuit switch -> endpoint.

    With hosts as endpoints (topology.hosts_per_rack; host links at the same rate, with `host_delay_ps`,
    unset: the link delay), pass `same_rack` (per flow: source and destination under one ToR). The flow
    streams out of its host and its last packet is stored and forwarded at each ToR it crosses: host -> ToR ->
    host within a rack, host -> ToR -> circuit switch -> ToR -> host between racks."""
    wire, last = _wire(np.asarray(size, dtype=np.int64), 1472, 28 + frame_bytes)
    d = link_delay_ps / PS_PER_S
    stream = wire * 8 / link_rate_bps
    if same_rack is None:
        return stream + 2 * d
    hop = last * 8 / link_rate_bps
    same = np.asarray(same_rack, dtype=bool)
    if host_delay_ps is None or host_delay_ps == link_delay_ps:
        return np.where(same, stream + hop + 2 * d, stream + 2 * hop + 4 * d)
    h = host_delay_ps / PS_PER_S
    return np.where(same, stream + hop + 2 * h, stream + 2 * hop + 2 * d + 2 * h)


def _stats(values: np.ndarray, prefix: str, unit: str) -> dict[str, float | None]:
    v = values[np.isfinite(values)]
    out: dict[str, float | None] = {f"{prefix}_mean{unit}": float(v.mean()) if v.size else None}
    ordered = np.sort(v)
    for name, q in QUANTILES:
        out[f"{prefix}_{name}{unit}"] = quantile_sorted(ordered, q) if v.size else None
    return out


def quantile_sorted(ordered: np.ndarray, q: float) -> float:
    """np.quantile(values, q) (its default, linear method) of values sorted ascending, the same float bit for
    bit: the order statistics either side of (n - 1) q, interpolated as numpy's _lerp does (from the upper one
    when the fraction is at least 0.5). np.quantile imports numpy.ma on its first call (through np.unique),
    about 50 M instructions of a small run's start-up (BENCHMARKS.md); sorting once also serves every q."""
    n = len(ordered)
    at = (n - 1) * q
    if at >= n - 1:
        return float(ordered[-1])
    below = max(int(math.floor(at)), 0)
    a, b = float(ordered[below]), float(ordered[below + 1])
    t = at - below
    diff = b - a
    return b - diff * (1 - t) if t >= 0.5 else a + diff * t


def _row(group: str, name: str, fct: np.ndarray, slowdown: np.ndarray) -> dict[str, Any]:
    return {
        "group": group,
        "name": name,
        "flows": len(fct),
        "completed": int((~np.isnan(fct)).sum()),
        **_stats(fct, "fct", "_s"),
        **_stats(slowdown, "slowdown", ""),
    }


def _distinct(values: Any) -> np.ndarray:
    """np.unique of whole numbers (sorted, each once), by counting when none is negative: np.unique imports
    numpy.ma on its first call, about 50 M instructions of a small run's start-up (BENCHMARKS.md)."""
    a = np.asarray(values)
    if a.size and a.min() < 0:
        return np.unique(a)
    return np.flatnonzero(np.bincount(a)).astype(a.dtype)


def _class_groups(classes: Any) -> list[tuple[str, np.ndarray]]:
    """(class, rows) per class present, in sorted order: a `Text` column by its codes, any other by value."""
    from .tables import Text

    if isinstance(classes, Text):
        present = _distinct(classes.codes)
        groups = [(classes.names[c], classes.codes == c) for c in present.tolist()]
    else:
        values = np.asarray(classes, dtype=object)
        groups = [(v, values == v) for v in {v for v in values.tolist() if isinstance(v, str)}]
    return sorted(groups, key=lambda g: g[0])


def flow_rows(flows: Any, edges: tuple[int, ...] | list[int] = DEFAULT_SIZE_BUCKETS) -> list[dict[str, Any]]:
    """`flow_table`'s rows, of a DataFrame or of `sim.tables.Columns`."""
    from .tables import Columns, column

    fct = np.asarray(column(flows, "fct_s"), dtype=float)
    slowdown = np.asarray(column(flows, "slowdown"), dtype=float)
    rows = [_row("all", "all", fct, slowdown)]
    bucket = np.searchsorted(np.asarray(edges, dtype=np.int64), column(flows, "size_bytes"), side="right")
    for i, label in enumerate(bucket_labels(edges)):
        rows.append(_row("size", label, fct[bucket == i], slowdown[bucket == i]))
    classes = flows.raw("class") if isinstance(flows, Columns) else column(flows, "class")
    for cls, rows_of in _class_groups(classes):
        rows.append(_row("class", str(cls), fct[rows_of], slowdown[rows_of]))
    return rows


def flow_table(
    flows: pd.DataFrame, edges: tuple[int, ...] | list[int] = DEFAULT_SIZE_BUCKETS
) -> pd.DataFrame:
    """FCT (s) and slowdown by size bucket and by class: one row for all flows (group "all"), one per bucket
    (group "size", empty buckets included) and one per class (group "class"). Percentiles are over completed
    flows, numpy's linear interpolation between order statistics."""
    import pandas as pd

    return pd.DataFrame(flow_rows(flows, edges))


def _key(text: str) -> str:
    return re.sub(r"[^0-9A-Za-z]+", "_", text).strip("_") or "unnamed"


def summary_keys(table: pd.DataFrame) -> dict[str, float | int | None]:
    """The table as flat summary keys with units: fct_p999_s, slowdown_p99, size_lt_100KB_slowdown_p99,
    class_short_fct_p50_s, size_ge_10MB_flows, ... (None where no flow of the group completed)."""
    out: dict[str, float | int | None] = {}
    metrics = [c for c in table.columns if c.startswith(("fct_", "slowdown_"))]
    for r in table.to_dict(orient="records"):
        prefix = "" if r["group"] == "all" else f"{r['group']}_{_key(r['name'])}_"
        if prefix:
            out[f"{prefix}flows"] = int(r["flows"])
            out[f"{prefix}completed"] = int(r["completed"])
        for m in metrics:
            v = r[m]
            out[prefix + m] = (
                None if v is None or (isinstance(v, float) and not math.isfinite(v)) else float(v)
            )
    return out


def attach(res: Any, ideal_s: np.ndarray, edges: tuple[int, ...] | list[int] = DEFAULT_SIZE_BUCKETS) -> None:
    """Add to a SimResult: per flow `ideal_fct_s` and `slowdown` (NaN for a flow that did not finish), the
    bucket and class table (`fct_table`), and its flat keys in the summary."""
    from .tables import column, from_records, raw_table

    fl = raw_table(res, "flows")
    ideal = np.asarray(ideal_s, dtype=float)
    fl["ideal_fct_s"] = ideal
    with np.errstate(divide="ignore", invalid="ignore"):
        fl["slowdown"] = np.asarray(column(fl, "fct_s"), dtype=float) / ideal
    res.fct_table = from_records(flow_rows(fl, edges))
    res.summary["size_buckets_bytes"] = [int(e) for e in edges]
    res.summary.update(summary_keys(raw_table(res, "fct_table")))


def window_summary(e: Any) -> dict[str, Any]:
    """The observation window's energy as flat summary keys (run.window; the run's own is `energy`)."""
    i = e.interval
    return {
        "window_start_s": i["start_s"],
        "window_end_s": i["end_s"],
        "window_length_s": i["length_s"],
        "window_energy_j": e.total_energy_j,
        "window_avg_power_w": e.avg_power_w,
        "window_energy_per_bit_pj": e.energy_per_bit_pj,
    }


def _ms(seconds: float | None) -> str:
    return "n/a" if seconds is None or not math.isfinite(seconds) else f"{seconds * 1e3:.4g} ms"


def print_metrics(res: Any) -> None:
    """The printed part of `greendcn simulate` this module owns: which interval the energy is over (and the
    observation window's energy), then FCT and slowdown by size bucket and by class."""
    from ..core.clitools import echo_table

    if res.energy is not None:
        t = res.energy.interval or {}
        print(f"energy interval: the run, 0 to {_ms(t.get('end_s'))} (its length)")
    w = res.window_energy
    if w is not None:
        i = w.interval
        per_bit = "n/a" if w.energy_per_bit_pj is None else f"{w.energy_per_bit_pj:.4g} pJ per delivered bit"
        print(
            f"window {_ms(i['start_s'])} to {_ms(i['end_s'])} ({_ms(i['length_s'])}): energy "
            f"{w.total_energy_j:.4g} J, average {w.avg_power_w:.4g} W, {per_bit} (run.window; devices draw "
            "power over the whole window, busy or idle)"
        )
    from .tables import raw_table

    table = raw_table(res, "fct_table")
    if table is None or table.empty:
        return
    print("FCT and slowdown (FCT / ideal FCT on the idle network, docs/metrics.md), completed flows:")
    echo_table(
        [
            {
                "group": r["group"],
                "name": r["name"],
                "flows": r["flows"],
                "done": r["completed"],
                "fct_p50_ms": (r["fct_p50_s"] or math.nan) * 1e3,
                "fct_p99_ms": (r["fct_p99_s"] or math.nan) * 1e3,
                "fct_p99.9_ms": (r["fct_p999_s"] or math.nan) * 1e3,
                "slow_mean": r["slowdown_mean"],
                "slow_p50": r["slowdown_p50"],
                "slow_p99": r["slowdown_p99"],
                "slow_p99.9": r["slowdown_p999"],
            }
            for r in table.to_dict(orient="records")
        ]
    )


_ROW_PREFIXES = ("fct_", "slowdown_", "size_", "class_", "window_")


def summary_row(summary: dict[str, Any]) -> dict[str, Any]:
    """This module's flat keys of a run's summary (scalars only), for the sweep store's summary rows."""
    return {
        k: v
        for k, v in summary.items()
        if k.startswith(_ROW_PREFIXES) and (v is None or isinstance(v, (int, float)))
    }
