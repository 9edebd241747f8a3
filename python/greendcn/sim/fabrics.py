"""The fabric energy comparison (`greendcn fabrics`, `greendcn demo`): one workload of host-to-host flows
run on Opera, RotorNet, SelectorNet and fat-trees with the same hosts and link rate, reported side by side as
throughput, flow completion times, joules, watts and picojoules per delivered bit.

Method (docs/fabrics.md says which parts the papers state and which are ours):
- hosts: H = racks x circuit_switches, named S0..S(H-1) on every fabric. A circuit fabric's rack has its
  hosts behind its ToR (topology.hosts_per_rack, each host linked to the ToR at the link rate) and one uplink
  per circuit switch at the link rate; with as many hosts per rack as circuit switches (Opera's 648 hosts on
  108 racks and 6 switches, as the public Opera simulator builds it), a rack's uplink equals its hosts' rate
  (our choice). SelectorNet needs 2^k racks, so it takes the largest power of two dividing H that leaves at
  least 2 hosts on a ToR as its racks and H / racks selector switches (one host per ToR would price a whole
  ToR per host: 32 hosts on 32 ToRs cost 279,216 pJ/bit of network alone, which measures the ToRs, not the
  fabric), and is left out, with the reason in the notes, when that puts more than 16 hosts on a ToR (half the
  SN2700's 32 ports; 648 = 8 x 81 hosts is such a case) or needs fewer than 4 racks.
- fat-trees: the smallest k-ary fat-tree of each oversubscription (topology.oversubscription) holding H hosts;
  the workload uses its first H hosts and every switch is priced, idle hosts' switches included. The Opera
  paper's cost-equivalent tree for 648 hosts, k = 12 (our model: 1.5 hosts per edge uplink, 648 hosts),
  joins when H = 648.
- workload: every host sends `flows_per_host` flows of `size_bytes` to hosts drawn uniformly from those in
  another rack under every circuit fabric's mapping (so each flow crosses a circuit), seeded.
- energy: the network's devices (circuit switches, ToRs, fat-tree switches), each at its constant power from
  the switch table over the run, plus the workload's H hosts priced by the host ledger's defaults
  ([power.hosts], docs/host-energy.md) on every fabric (`price_hosts=False`: the network alone; a fat-tree's hosts
  beyond H are idle and left out); J is until the last flow finished (or the run ended), W = J / run time,
  pJ/bit over delivered bits.
- not comparable (without `transport`): fat-trees carry TCP (the packet engine), RotorNet, SelectorNet and
  Opera's bulk class datagrams (the circuit engine: no retransmission; a lost packet leaves its flow
  incomplete); Opera's low-latency class (flows below its cutoff) TCP hop by hop over the current slice's
  expander.
- like for like (`transport` set: tcp, dctcp or ndp): every fabric's scenario gets transport.default, and a
  circuit fabric's also transport.circuit_bulk = "transport" (its bulk traffic runs that transport from each
  source ToR's queue, sent again when lost, instead of RotorLB's datagrams); a fabric whose scenario check or
  engine refuses it, or whose flows ran another transport (as the circuit engine's result says flow by flow),
  is left out of the rows with the reason (`left_out`), never shown as if it ran
  it (our choice)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.errors import InputError
from .tables import Columns, Records, Text, column, raw_table

__all__ = [
    "TRANSPORTS",
    "FabricsConfig",
    "FlowRows",
    "compare_fabrics",
    "fabric_plan",
    "fattree_size",
    "fabrics_workload",
    "flow_columns",
    "run_fabric",
    "run_flows",
]

TRANSPORTS = ("tcp", "dctcp", "ndp")  # what --transport takes (docs/transports.md)

MAX_HOSTS_PER_TOR = 16  # half the ports of the SN2700 ToR (32 ports), the other half its uplinks
COST_EQUIVALENT_HOSTS = 648  # the Opera paper's 648-host comparison (public Opera simulator, not the thesis)


@dataclass(frozen=True)
class FabricsConfig:
    racks: int = 12  # our choice: a small Opera (12 racks, 4 switches, 48 hosts) that runs in seconds
    circuit_switches: int = 4
    size_bytes: int = 1_000_000  # our choice
    flows_per_host: int = 1
    link_rate_bps: int = 10 * 10**9  # the public Opera simulator's 10 Gb/s, not the thesis's 100 Gb/s
    link_delay_ps: int = 500_000  # our choice: 100 m of fibre
    opera_reconfig_ps: int = 10_000_000  # r = 10 us: the public Opera simulator, not the thesis
    rotor_uptime_ps: int = 1_000_000_000  # our choice: 1 ms (the thesis's RotorNet runs used 10 ms, line 890)
    rotor_reconfig_ps: int = 150_000_000  # the selector v1 switch's 150 us (seed 001 line 675)
    search_moves: int = 300  # our choice, as topology.search_moves
    cost_equivalent: bool | None = None  # None: the k = 12 tree joins when the hosts number 648
    seed: int = 1
    price_hosts: bool = (
        True  # the workload's hosts priced on every fabric (False: the network's devices only)
    )
    eee: bool = False  # Energy-Efficient Ethernet on the fat-trees' links (docs/energy-saving.md)
    transport: str | None = None  # every flow on every fabric (None: each fabric's own, see the docstring)
    elastictree: bool = False  # also every fat-tree under ElasticTree (docs/energy-saving.md), as its own row

    def check(self) -> None:
        def bad(field: str, msg: str, hint: str) -> InputError:
            return InputError(f"{field}: {msg}", hint=hint, loc=(field,))

        if self.racks < 4 or self.racks % 2:
            raise bad("racks", f"need an even number >= 4, got {self.racks}", "e.g. 12, 16 or 108")
        if self.circuit_switches < 2:
            raise bad("switches", f"need at least 2, got {self.circuit_switches}", "e.g. 4 or 6")
        if self.racks % self.circuit_switches:
            raise bad(
                "switches",
                f"{self.circuit_switches} circuit switches do not divide {self.racks} racks (Opera holds "
                "racks / switches matchings per switch)",
                "choose a divisor of --racks, e.g. 4 for 12 racks or 6 for 108",
            )
        if self.size_bytes <= 0:
            raise bad("size", f"must be a positive size, got {self.size_bytes} bytes", "e.g. 1MB")
        if self.flows_per_host < 1:
            raise bad("flows-per-host", f"must be >= 1, got {self.flows_per_host}", "e.g. 1")
        if self.link_rate_bps <= 0:
            raise bad("link-rate", f"must be positive, got {self.link_rate_bps}", "e.g. 10Gbps")
        if self.transport is not None and self.transport not in TRANSPORTS:
            raise bad("transport", f"unknown transport {self.transport!r}", "one of " + ", ".join(TRANSPORTS))

    @property
    def hosts(self) -> int:
        return self.racks * self.circuit_switches


def fattree_size(hosts: int, oversubscription: float) -> int:
    """The smallest even k >= 4 whose fat-tree with this oversubscription holds `hosts` (k^3 x ratio / 4)."""
    k = 4
    while True:
        per_edge = k / 2 * oversubscription
        if abs(per_edge - round(per_edge)) < 1e-9 and k * (k // 2) * round(per_edge) >= hosts:
            return k
        k += 2


def fabric_plan(cfg: FabricsConfig) -> list[dict[str, Any]]:
    """The fabrics to run: name, scenario topology and routing, and how hosts map onto its endpoints."""
    h, n, u = cfg.hosts, cfg.racks, cfg.circuit_switches
    # 1000-packet NIC and switch queues: our choice for this comparison, pinned so it does not move with the
    # scenario defaults (docs/fabrics.md)
    common = {
        "link_rate": f"{cfg.link_rate_bps}bps",
        "link_delay": f"{cfg.link_delay_ps}ps",
        "queue": "1000pkt",
        "host_queue": "1000pkt",
    }
    plan: list[dict[str, Any]] = [
        {
            "fabric": "opera",
            "topology": {
                **common,
                "kind": "opera",
                "racks": n,
                "circuit_switches": u,
                "reconfig": f"{cfg.opera_reconfig_ps}ps",
                "search_moves": cfg.search_moves,
                "schedule_seed": cfg.seed,
                "hosts_per_rack": u,
            },
            # Opera's two classes: flows below topology.cutoff (15 MB) hop by hop over the slice's expander,
            # larger ones by RotorLB (seed 001 lines 914-918)
            "routing": "opera",
            "hosts_per_endpoint": u,
        },
        {
            "fabric": "rotornet",
            "topology": {
                **common,
                "kind": "rotornet",
                "racks": n,
                "circuit_switches": u,
                "uptime": f"{cfg.rotor_uptime_ps}ps",
                "reconfig": f"{cfg.rotor_reconfig_ps}ps",
                "hosts_per_rack": u,
            },
            "routing": "rotorlb",
            "hosts_per_endpoint": u,
        },
    ]
    sel_racks = selectornet_racks(h)
    # a ToR serves its hosts and one uplink per switch: at most half of the SN2700's 32 ports each (our bound)
    if selectornet_left_out(h) is None:
        plan.append(
            {
                "fabric": "selectornet",
                "topology": {
                    **common,
                    "kind": "selectornet",
                    "racks": sel_racks,
                    "circuit_switches": h // sel_racks,
                    "uptime": f"{cfg.rotor_uptime_ps}ps",
                    "reconfig": f"{cfg.rotor_reconfig_ps}ps",
                    "hosts_per_rack": h // sel_racks,
                },
                "routing": "selector",
                "hosts_per_endpoint": h // sel_racks,
            }
        )
    trees = [("fat-tree 1:1", 1.0), ("fat-tree 3:1", 3.0)]
    with_k12 = cfg.cost_equivalent if cfg.cost_equivalent is not None else h == COST_EQUIVALENT_HOSTS
    for name, ratio in trees:
        plan.append(_tree(name, fattree_size(h, ratio), ratio, common))
    if with_k12:
        if h > COST_EQUIVALENT_HOSTS:
            raise InputError(
                f"cost_equivalent: the k = 12 fat-tree holds {COST_EQUIVALENT_HOSTS} hosts, the workload has {h}",
                hint="use --no-cost-equivalent or at most 108 racks x 6 switches",
                loc=("cost_equivalent",),
            )
        plan.append(_tree("fat-tree k=12 (cost-equivalent)", 12, 1.5, common))
    if cfg.eee:
        for entry in plan:
            if entry["topology"]["kind"] == "fattree":
                entry["eee"] = {"enabled": True, "phy": eee_phy(cfg.link_rate_bps)}
    if cfg.elastictree:
        trees_run = [p for p in plan if p["topology"]["kind"] == "fattree"]
        plan += [
            p | {"fabric": f"{p['fabric']} + ElasticTree", "scenario": {"elastictree": {"enabled": True}}}
            for p in trees_run
        ]
    return plan


def eee_phy(rate_bps: int) -> str:
    """The 802.3az PHY whose sleep and wake times the fat-trees' links take with --eee: the one of the link
    rate, else 10GBASE-T, the fastest in the table (our choice, said in the notes)."""
    from .eee import PHYS

    return next((name for name, p in PHYS.items() if p[0] == rate_bps), "10GBASE-T")


def selectornet_racks(hosts: int) -> int:
    """SelectorNet's racks for H hosts: the largest power of two dividing H that leaves at least 2 hosts on a
    ToR (our choice: one host per ToR would price a whole ToR per host)."""
    racks = hosts & -hosts  # the largest power of two dividing H
    return racks // 2 if racks == hosts else racks


def selectornet_left_out(hosts: int) -> str | None:
    """Why SelectorNet cannot be built sensibly for H hosts, or None when it can."""
    racks = selectornet_racks(hosts)
    if racks < 4:
        return (
            f"selectornet left out: {hosts} hosts give fewer than 4 racks of 2^k with at least 2 hosts each"
        )
    if hosts // racks > MAX_HOSTS_PER_TOR:
        return (
            f"selectornet left out: {hosts} hosts on {racks} racks (the largest power of two dividing them) put "
            f"{hosts // racks} hosts on a ToR, more than {MAX_HOSTS_PER_TOR} (half of a 32-port ToR)"
        )
    return None


def _tree(name: str, k: int, ratio: float, common: dict) -> dict[str, Any]:
    return {
        "fabric": name,
        "topology": {**common, "kind": "fattree", "k": k, "oversubscription": ratio},
        "routing": "ecmp",  # our choice: per-flow ECMP, the usual fat-tree routing
        "hosts_per_endpoint": 1,
    }


def fabrics_workload(cfg: FabricsConfig, plan: list[dict[str, Any]]) -> list[tuple[int, int, int]]:
    """(host src, host dst, bytes) per flow: destinations uniform over hosts in another rack of every circuit
    fabric (rack = host // hosts_per_endpoint), from one seeded generator."""
    rng = np.random.default_rng(cfg.seed)
    h = cfg.hosts
    per = [p["hosts_per_endpoint"] for p in plan if p["topology"]["kind"] != "fattree"]
    hosts = np.arange(h)
    out = []
    for src in range(h):
        ok = np.ones(h, dtype=bool)
        for q in per:
            ok &= hosts // q != src // q
        choices = hosts[ok]
        for _ in range(cfg.flows_per_host):
            out.append((src, int(rng.choice(choices)), cfg.size_bytes))
    return out


def flow_columns(flows: Any) -> Any:
    """The comparison's flows as columns (sim/workload/columns.py), built once and handed to every fabric's
    engine as column buffers, with no Python object per flow: from (src host, dst host, bytes[, start ps,
    class]) tuples or from a `FlowColumns` (a flow file's, a generated workload's). Ids are 0..n-1 in row
    order, classes are numbered in order of first appearance, and every flow is asked to run the fabric's own
    transport (or --transport's): a flow's own transport and rate are not taken (as with one `Flow(i, src, dst,
    bytes, start, class)` per row, which these columns replace). Columns already in that form come back as
    they are."""
    from .workload.columns import FlowColumns

    if isinstance(flows, FlowColumns):
        n = len(flows)
        cls = np.asarray(flows.cls, dtype=np.int64)
        seen, first = np.unique(cls, return_index=True)
        order = seen[np.argsort(first, kind="stable")]  # the class codes by first appearance
        plain = (
            flows.transport is None
            and not flows.udp.any()
            and not flows.rate_bps.any()
            and np.array_equal(flows.id, np.arange(n))
            and np.array_equal(order, np.arange(len(flows.classes)))
        )
        if plain:
            return flows
        recode = np.zeros(len(flows.classes), dtype=np.int64)
        recode[order] = np.arange(len(order))
        ints = [
            np.asarray(getattr(flows, k), dtype=np.int64) for k in ("src", "dst", "size_bytes", "start_ps")
        ]
        codes = recode[cls]
        classes = tuple(flows.classes[int(c)] for c in order)
        where = flows.where
    else:
        rows = list(flows)
        n = len(rows)
        ints = [np.fromiter((r[k] if len(r) > k else 0 for r in rows), np.int64, n) for k in range(4)]
        names = [r[4] if len(r) > 4 else "flow" for r in rows]
        classes = tuple(dict.fromkeys(names))
        code = {c: i for i, c in enumerate(classes)}
        codes = np.fromiter((code[c] for c in names), np.int64, n)
        where = None
    return FlowColumns(
        id=np.arange(n, dtype=np.int64),
        src=ints[0],
        dst=ints[1],
        size_bytes=ints[2],
        start_ps=ints[3],
        cls=codes,
        classes=classes,
        udp=np.zeros(n, dtype=bool),
        rate_bps=np.zeros(n, dtype=np.int64),
        where=where,
    )


def run_flows(flows: Any) -> Any:
    """The flows as the fabrics run them: `flow_columns(flows)`, except that a list of `Flow` runs as it is (the
    per-flow path, one object per flow, which the tests compare the columns with)."""
    from .workload import Flow

    if isinstance(flows, list) and flows and isinstance(flows[0], Flow):
        return flows
    return flow_columns(flows)


def _percentile(values: np.ndarray, q: float) -> float | None:
    return float(np.percentile(values, q)) if len(values) else None


def run_one(
    entry: dict[str, Any],
    flows: Any,
    seed: int,
    progress: bool = False,
    hosts: int | None = None,
    run: dict[str, Any] | None = None,
    transport: str | None = None,
) -> dict[str, Any]:
    """Simulate the workload on one fabric; the row of the comparison (units in the keys). `flows`: a
    `FlowColumns` or (src host, dst host, bytes[, start ps, class]) each (`flow_columns`). `hosts`: price the
    first `hosts` hosts (S0..) beside the network's devices; None: the network alone. `run`: the scenario's
    [run] table (run.window adds the energy over that window, `window_*` keys). `transport`: the scenario's
    transport.default; the row's `transport` is then what the flows ran, from the result's per-flow column.
    The flows reach the engine as columns (`run_flows`) and the per-flow results are read as the result's
    columns."""
    from .run import simulate
    from .scenario import scenario_from_dict

    topo = entry["topology"]
    per = entry["hosts_per_endpoint"]
    circuit = topo["kind"] != "fattree"
    sc = scenario_from_dict(
        {"name": entry["fabric"], "topology": topo, "routing": {"scheme": entry["routing"]}}
        | ({"run": run} if run else {})
        | ({"eee": entry["eee"]} if "eee" in entry else {})
        | ({"transport": {"default": transport} | _bulk(circuit)} if transport else {})
        | entry.get("scenario", {})  # further scenario tables, e.g. [elastictree]
    )
    # hosts are the endpoints on every fabric (circuit fabrics: topology.hosts_per_rack)
    fl = run_flows(flows)
    res = simulate(sc, seed=seed, flows=fl, progress=progress)
    table = raw_table(res, "flows")  # the result's columns (a DataFrame on circuit fabrics)
    e = res.energy
    assert e is not None
    priced = {f"S{i}" for i in range(hosts or 0)}
    devices = [
        {"name": d["name"], "model": d["model"], "power_w": d["avg_power_w"], "energy_j": d["energy_j"]}
        | ({"host": True} if d["kind"] == "node:host" else {})
        for d in e.devices
        if d["kind"] != "node:host" or d["name"] in priced
    ]
    sim_s = float(res.summary["sim_time_s"])
    energy_j = float(sum(d["energy_j"] for d in devices))
    hosts_j = float(sum(d["energy_j"] for d in devices if d.get("host")))
    delivered_bits = _delivered_bits(table, circuit)
    fct = np.asarray(column(table, "fct_s"), dtype=float)
    done = fct[np.isfinite(fct)]
    endpoints = (
        sc.topology.racks if circuit else int((column(raw_table(res, "nodes"), "kind") == "host").sum())
    )
    row: dict[str, Any] = {
        "fabric": entry["fabric"],
        # Opera's flows below its cutoff run TCP on the circuit engine; other circuit traffic is datagrams
        # unless a transport is asked for (then bulk runs it too, `_bulk`)
        "transport": _ran(table)
        if transport
        else ("tcp" if entry["routing"] == "opera" else "datagram")
        if circuit
        else "tcp",
        "routing": entry["routing"],
        "endpoints": endpoints,
        "hosts_per_endpoint": per,
        "fabric_hosts": endpoints * per,
        "circuit_switches": sc.topology.circuit_switches if circuit else 0,
        "packet_switches": sum(
            1 for d in devices if not d["name"].startswith("circuit") and not d.get("host")
        ),
        "flows": len(fl),
        "flows_completed": int(len(done)),
        "delivered_bits": delivered_bits,
        "sim_time_s": sim_s,
        "throughput_bps": delivered_bits / sim_s if sim_s > 0 else 0.0,
        "fct_p50_s": _percentile(done, 50),
        "fct_p99_s": _percentile(done, 99),
        "energy_j": energy_j,
        "power_w": energy_j / sim_s if sim_s > 0 else 0.0,
        "energy_per_bit_pj": energy_j / delivered_bits * 1e12 if delivered_bits else None,
        "hosts_priced": len(priced),
        "hosts_energy_j": hosts_j,
        "network_energy_j": energy_j - hosts_j,
        "network_power_w": (energy_j - hosts_j) / sim_s if sim_s > 0 else 0.0,
        "host_share": hosts_j / energy_j if energy_j > 0 else 0.0,
        "drops": int(res.summary.get("drops", 0)),
        "stopped_by": res.summary.get("stopped_by"),
        "wall_s": float(res.summary.get("wall_s", 0.0)),
        "packet_hops": int(res.summary.get("packet_hops", 0)),
        "devices": devices,
    }
    if topo["kind"] == "fattree":
        row["k"] = topo["k"]
        row["oversubscription"] = topo["oversubscription"]
    if "opera_routing" in res.summary:
        row["note"] = res.summary["opera_routing"]
    if run is not None:
        row.update(_short_and_window(res, priced))
        row["_flows"] = FlowRows(
            Columns(
                {
                    "src": _text(table, "src"),
                    "dst": _text(table, "dst"),
                    "size_bytes": np.asarray(column(table, "size_bytes"), dtype=np.int64),
                    "start_s": np.asarray(column(table, "start_s"), dtype=np.float64),
                    "fct_s": fct,
                }
            )
        )
    return row


class FlowRows(Records):
    """A fabric's flows as run: per flow its src, dst, size_bytes, start_s and fct_s (None: never finished),
    the JSON's list of records, held as the result's columns until a row is read (sim/tables.py `Records`);
    `columns` and `to_dict` let the JSON writers take it as the table it is (sim/fabrics_json.py)."""

    @property
    def columns(self) -> list[str]:
        return self.table.columns

    def rows(self) -> list[dict[str, Any]]:
        if self._rows is None:
            rows = super().rows()
            for i in np.flatnonzero(~np.isfinite(self.table["fct_s"])).tolist():
                rows[i]["fct_s"] = None
        return self._rows

    def to_dict(self, orient: str = "records") -> list[dict[str, Any]]:
        return self.rows()


def _text(table: Any, name: str) -> Any:
    """A text column of a result table as a `Text` of codes: as stored (packet runs), else its strings coded
    (a circuit run's DataFrame), so writing it encodes each name once."""
    import pandas as pd

    if isinstance(table, Columns):
        return table.raw(name)
    codes, names = pd.factorize(table[name].astype(str))
    return Text(codes, names)


def _bulk(circuit: bool) -> dict[str, str]:
    """Like for like: a circuit fabric's bulk traffic runs the chosen transport too, not datagrams."""
    return {"circuit_bulk": "transport"} if circuit else {}


def _ran(flows: Any) -> str:
    """The transports the flows ran, from the result's per-flow `transport`: one name, or each with its count."""
    import pandas as pd

    counts = pd.Series(column(flows, "transport")).astype(str).value_counts()
    if len(counts) == 1:
        return str(counts.index[0])
    return " + ".join(f"{name} {n}" for name, n in counts.items())


def _refuses_transport(e: InputError) -> bool:
    """Whether a scenario check's or engine's refusal is about the flows' transport (its key or field)."""
    keys = {str(k) for k in (*(e.loc or ()), *getattr(e, "engine_loc", ()))}
    return bool(keys & {"transport", "dctcp", "ndp"})


def run_fabric(
    entry: dict[str, Any], flows: Any, cfg: FabricsConfig, left_out: list[dict[str, str]], **kw: Any
) -> dict[str, Any] | None:
    """`run_one` with the configuration's transport; None when the fabric cannot run it for every flow, with
    the reason added to `left_out` ({"fabric", "reason"})."""
    t = cfg.transport
    hosts = cfg.hosts if cfg.price_hosts else None
    try:
        row = run_one(entry, flows, cfg.seed, hosts=hosts, transport=t, **kw)
    except InputError as e:
        if t is None or not _refuses_transport(e):
            raise
        left_out.append({"fabric": entry["fabric"], "reason": str(e)})
        return None
    if t is not None and row["transport"] != t:
        why = f"its flows ran {row['transport']}, not {t} (the engine's per-flow transport)"
        left_out.append({"fabric": entry["fabric"], "reason": why})
        return None
    return row


def outcome_notes(
    rows: list[dict[str, Any]], left_out: list[dict[str, str]], transport: str | None
) -> list[str]:
    """One line per fabric left out (with --transport) and per fabric whose flows did not all complete."""
    notes = [f"{x['fabric']} left out with --transport {transport}: {x['reason']}" for x in left_out]
    for r in rows:
        missing = r["flows"] - r["flows_completed"]
        if missing:
            lost = ", datagrams are not retransmitted" if "datagram" in r["transport"] else ""
            notes.append(
                f"{r['fabric']}: {missing} of {r['flows']} flows did not complete (run ended by "
                f"{r.get('stopped_by') or 'completion'}, {r['drops']} packets dropped{lost})"
            )
    return notes


def _short_and_window(res: Any, priced: set[str]) -> dict[str, Any]:
    """The short flows' slowdown (< 100 KB, sim/metrics.py's first size bucket) and, with run.window, the energy
    over the window of the network's devices and the priced hosts (a fat-tree's idle extra hosts left out)."""
    s = res.summary
    out: dict[str, Any] = {
        "short_flows": int(s.get("size_lt_100KB_flows", 0)),
        "short_completed": int(s.get("size_lt_100KB_completed", 0)),
        "short_slowdown_p50": _finite(s.get("size_lt_100KB_slowdown_p50")),
        "short_slowdown_p99": _finite(s.get("size_lt_100KB_slowdown_p99")),
        "slowdown_p99": _finite(s.get("slowdown_p99")),
    }
    w = res.window_energy
    if w is not None:
        kept = [d for d in w.devices if d["kind"] != "node:host" or d["name"] in priced]
        j = float(sum(d["energy_j"] for d in kept))
        hj = float(sum(d["energy_j"] for d in kept if d["kind"] == "node:host"))
        length = float(w.interval["length_s"])
        out |= {
            "window_start_s": float(w.interval["start_s"]),
            "window_end_s": float(w.interval["end_s"]),
            "window_energy_j": j,
            "window_hosts_energy_j": hj,
            "window_power_w": j / length if length > 0 else 0.0,
            "window_delivered_bits": int(w.delivered_bits),
            "window_energy_per_bit_pj": j / w.delivered_bits * 1e12 if w.delivered_bits else None,
            "window_host_share": hj / j if j > 0 else 0.0,
        }
    return out


def _finite(v: Any) -> float | None:
    return float(v) if v is not None and np.isfinite(v) else None


def _delivered_bits(fl: Any, circuit: bool) -> int:
    """Delivered payload bits from the result's per-flow table (its columns, or a DataFrame)."""
    if circuit:
        # distinct bytes: a TCP flow's duplicate deliveries (Opera's low-latency class) count once
        return int(column(fl, "bytes_received").sum()) * 8
    # the packet engine: a completed TCP flow delivered its size; an unfinished one what its receiver got
    if "bytes_received" in fl.columns:
        return int(column(fl, "bytes_received").sum()) * 8
    done = ~np.isnan(np.asarray(column(fl, "fct_s"), dtype=float))
    return int(column(fl, "size_bytes")[done].sum()) * 8


_OPTION_OF = {("topology", "racks"): "--racks", ("topology", "circuit_switches"): "--switches"}


def compare_fabrics(cfg: FabricsConfig, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the workload on every fabric of the plan; rows in plan order plus the method's notes."""
    cfg.check()
    plan = fabric_plan(cfg)
    flows = flow_columns(fabrics_workload(cfg, plan))  # one set of columns for every fabric
    rows = []
    left_out: list[dict[str, str]] = []
    for entry in plan:
        try:
            row = run_fabric(entry, flows, cfg, left_out)
            if row is not None:
                rows.append(row)
        except InputError as e:
            # name the command's option that set the scenario key, and the fabric it failed on
            option = _OPTION_OF.get(tuple(e.loc or ())[:2])
            if option is None:
                raise
            raise InputError(
                f"{option}: on {entry['fabric']}: {e}", hint=e.hint, loc=(option.lstrip("-"),)
            ) from None
        if progress is not None:
            progress(entry["fabric"])
    notes = comparison_notes(cfg) + outcome_notes(rows, left_out, cfg.transport)
    sel_shown = any(r["fabric"] == "selectornet" for r in rows)
    if sel_shown and cfg.hosts & -cfg.hosts == cfg.hosts:
        notes.append(
            f"selectornet: {selectornet_racks(cfg.hosts)} racks of {cfg.hosts // selectornet_racks(cfg.hosts)} "
            f"hosts, not {cfg.hosts} of one: a ToR per host would price the ToRs, not the fabric (our choice)"
        )
    return {
        "config": {
            "racks": cfg.racks,
            "circuit_switches": cfg.circuit_switches,
            "hosts": cfg.hosts,
            "size_bytes": cfg.size_bytes,
            "flows_per_host": cfg.flows_per_host,
            "link_rate_bps": cfg.link_rate_bps,
            "link_delay_s": cfg.link_delay_ps / 1e12,
            "opera_reconfig_s": cfg.opera_reconfig_ps / 1e12,
            "rotor_uptime_s": cfg.rotor_uptime_ps / 1e12,
            "rotor_reconfig_s": cfg.rotor_reconfig_ps / 1e12,
            "seed": cfg.seed,
            "hosts_priced": cfg.price_hosts,
            "eee": cfg.eee,
            "transport": cfg.transport,
        },
        "fabrics": rows,
        "left_out": left_out,
        "notes": notes,
    }


def comparison_notes(cfg: FabricsConfig) -> list[str]:
    """The method notes every comparison prints: NOTES, the host pricing as configured, and why SelectorNet is
    left out when it is."""
    notes = list(NOTES)
    if not cfg.price_hosts:
        notes[1] = notes[1].split(", plus")[0] + "; hosts not priced (--no-hosts)"
    if cfg.transport is not None:
        t = cfg.transport
        notes[2] = (
            f"like for like: every flow in the table ran {t} (--transport {t}); a fabric that cannot run it "
            "for every flow is left out with the reason below (docs/fabrics.md)"
        )
    why = selectornet_left_out(cfg.hosts)
    if why is not None:
        notes.append(why)
    if cfg.eee:
        from .eee import PHYS

        phy = eee_phy(cfg.link_rate_bps)
        _, ts, tw = PHYS[phy]
        own = PHYS[phy][0] == cfg.link_rate_bps
        notes.append(
            f"fat-trees with Energy-Efficient Ethernet (IEEE 802.3az) on every link: {phy}'s sleep "
            f"{ts / 1e6:g} us and wake {tw / 1e6:g} us (Reviriego 2009, Table I)"
            + (
                ""
                if own
                else " at a rate it does not run at (our choice: no 802.3az PHY of this rate in the table)"
            )
            + "; their switches priced port by port, LPI at 10 % of a port's active power (docs/energy-saving.md)"
        )
    return notes


NOTES = [
    "hosts per circuit rack = circuit switches, so a rack's uplinks equal its hosts' rate (our choice; "
    "Opera's 648 hosts on 108 racks and 6 switches, public Opera simulator); every host linked to its ToR",
    "energy: network devices (circuit switches, ToRs, fat-tree switches) at constant power from the switch "
    "table (McGuinness 2021, Table 2.1; idle = loaded, section 2.1.3), plus the workload's hosts priced by "
    "the host ledger's defaults on every fabric (docs/host-energy.md); host_% is their share",
    "not comparable: fat-trees run TCP (packet engine); RotorNet and SelectorNet datagrams (circuit engine, no "
    "retransmission); Opera sends flows below its 15 MB cutoff by TCP hop by hop over the current slice's "
    "expander (low-latency class) and larger ones as datagrams by RotorLB",
    "fat-trees: smallest k-ary tree of each oversubscription holding the hosts; all its switches priced",
]


def plot_fabrics(rows: list[dict[str, Any]], path: Any) -> None:
    """Bars per fabric: pJ per delivered bit, network power, throughput and p99 FCT."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["fabric"] for r in rows]
    from ..core.units import per_bit_unit

    per_bit = [r["energy_per_bit_pj"] for r in rows if r.get("energy_per_bit_pj") is not None]
    unit, factor = per_bit_unit(max(per_bit, default=0.0))  # nJ once a bar passes 10^4 pJ
    bit_panel = ("energy_per_bit_pj", f"{unit} per delivered bit", factor)
    panels = [
        bit_panel,
        ("power_w", "network power (W)", 1.0),
        ("throughput_bps", "throughput (Gb/s)", 1e-9),
        ("fct_p99_s", "p99 FCT (ms)", 1e3),
    ]
    fig, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 4))
    for ax, (key, label, scale) in zip(axes, panels):
        vals = [(r.get(key) or math.nan) * scale for r in rows]
        ax.bar(
            range(len(names)),
            vals,
            color=["C1" if r["fabric"].startswith("fat-tree") else "C0" for r in rows],
        )
        ax.set_xticks(range(len(names)), names, rotation=40, ha="right", fontsize=8)
        ax.set_title(label, fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
    fig.suptitle("one workload on each fabric (blue: circuit engine; orange: packet engine, TCP)")
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
