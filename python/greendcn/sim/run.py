"""Run one scenario through the engine and return its results as tables (seconds here, picoseconds only inside
the engine spec): built as numpy columns (sim/tables.py), read as DataFrames by whoever asks for one."""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.errors import InputError
from .limits import (
    RunSize,
    check_run_size,
    count_csv_rows,
    topology_size,
    workload_flow_count,
    workload_size_key,
)
from .eee import eee_spec
from .ledger import EnergyReport, run_energy
from .metrics import attach, ideal_fct_packet_s, window_summary
from .scenario import Scenario, load_scenario, scenario_from_dict
from .topology import Network, build_topology
from .transports import check_flow_transports, flow_transport, transport_specs
from ..core.units import PS_PER_S
from .workload import Flow, build_workload, read_flows_csv
from .tables import TableField, raw_table
from .workload.columns import FlowColumns

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SimResult", "as_scenario", "build_spec", "reprice", "simulate", "tcp_spec"]


@dataclass
class SimResult:
    """Per-flow, per-link-direction and per-node tables, a one-run summary (dict), and the run's energy
    priced by the scenario's [power] table (greendcn.power.run_energy); with run.window, the energy over that
    window too; FCT and slowdown by size bucket and class in `fct_table` (sim/metrics.py).

    The tables are DataFrames to whoever reads them; a run keeps them as numpy columns (`sim.tables.Columns`)
    until then, so printing a summary or writing --json or --parquet needs no pandas."""

    flows: pd.DataFrame = TableField()  # type: ignore[assignment]
    links: pd.DataFrame = TableField()  # type: ignore[assignment]
    nodes: pd.DataFrame = TableField()  # type: ignore[assignment]
    summary: dict[str, Any]
    scenario: Scenario = field(repr=False)
    energy: EnergyReport | None = field(default=None, repr=False)
    # The engine's own results document (docs/engine-spec.md), kept so the run can be priced again
    # under other power settings without simulating it again (`reprice`).
    engine_results: dict[str, Any] | None = field(default=None, repr=False)
    # FCT and slowdown by size bucket and by class (sim/metrics.py, docs/metrics.md).
    fct_table: pd.DataFrame | None = TableField(optional=True)  # type: ignore[assignment]
    # The energy over run.window, when the scenario gives one (the `energy` above is over the run).
    window_energy: EnergyReport | None = field(default=None, repr=False)
    # Circuit fabrics with topology.hosts_per_rack: one row per host's link to its ToR (scenario_run.py).
    hosts: pd.DataFrame | None = TableField(optional=True)  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SimResult(flows={self.flows!r}, links={self.links!r}, nodes={self.nodes!r}, summary={self.summary!r})"

    def to_json(self, tables: bool = True) -> dict[str, Any]:
        """The JSON document of `greendcn simulate --json`: flows, links, nodes, summary, energy. With
        `tables=False`, flows, links and nodes are empty lists (sim/output.py streams them in their place)."""
        from ..core.clitools import to_jsonable

        hosts = raw_table(self, "hosts")

        def table(name: str) -> Any:
            return raw_table(self, name) if tables else []

        return to_jsonable(
            {
                "flows": table("flows"),
                "links": table("links"),
                "nodes": table("nodes"),
                "summary": self.summary,
                "scenario": self.scenario.raw,
                "energy": None if self.energy is None else self.energy.to_dict(),
                "window_energy": None if self.window_energy is None else self.window_energy.to_dict(),
                "fct_table": raw_table(self, "fct_table"),
                **({"hosts": hosts} if hosts is not None else {}),
            }
        )


def as_scenario(scenario: Scenario | dict[str, Any] | str | Path) -> Scenario:
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, dict):
        return scenario_from_dict(scenario)
    return load_scenario(scenario)


def build_spec(sc: Scenario, net: Network, flows: list[Flow], seed: int) -> dict[str, Any]:
    """The engine's input document (docs/engine-spec.md)."""
    return {
        "seed": seed,
        "routing": sc.routing.scheme,
        "single_path": sc.routing.single_path,
        **({"vlb": vlb_spec(sc.routing)} if sc.routing.vlb else {}),
        **net.to_spec(),
        "flows": (specs := _flow_specs(sc, net, flows)),
        "tcp": tcp_spec(sc.tcp),
        **transport_specs(sc, _transports_used(specs)),
        "frame_overhead_bytes": sc.topology.frame_overhead,
        "stop_ps": sc.run.stop_time,
        **({"stats_window_ps": window} if (window := _window_ps(sc, net)) else {}),
        **({"eee": eee} if (eee := eee_spec(sc.eee, {link.rate_bps for link in net.links})) else {}),
    }


def vlb_spec(r: Any) -> dict[str, Any]:
    """The engine's Valiant load balancing settings (docs/engine-spec.md) from a scenario's [routing]."""
    return {"intermediates": r.vlb_intermediates, "min_size_bytes": r.vlb_min_size}


def tcp_spec(t: Any) -> dict[str, Any]:
    """The engines' TCP settings (docs/engine-spec.md) from a scenario's [tcp]; the circuit engine takes the
    same document."""
    return {
        "mss": t.mss,
        "header_bytes": t.header_bytes,
        "initial_window": t.initial_window,
        "min_rto_ps": t.min_rto,
        "initial_rto_ps": t.initial_rto,
        "max_rto_ps": t.max_rto,
        "dupack_threshold": t.dupack_threshold,
        "max_window_bytes": t.max_window,
        "delayed_ack": t.delayed_ack,
        "delayed_ack_timeout_ps": t.delayed_ack_timeout,
        "slow_start_segments_per_ack": t.slow_start_segments_per_ack,
        # only when chosen, so the document of a run that does not use it is unchanged
        **(
            {"loss_detection": t.loss_detection, "max_reordering": t.max_reordering}
            if t.loss_detection != "dupack"
            else {}
        ),
    }


def _window_ps(sc: Scenario, net: Network) -> int | None:
    """The engine's stats window for this run (PowerConfig.engine_window_ps)."""
    hosts = sum(1 for n in net.nodes if n.kind == "host")
    window = sc.power.engine_window_ps(sc.run.stop_time, counters=4 * hosts + 2 * len(net.links))
    return observation_window_ps(sc, window)


def observation_window_ps(sc: Scenario, window: int | None) -> int | None:
    """With run.window, the engine keeps per-window counters: windows of the default width narrowed to divide
    the window's start and end, so no engine window straddles them (our choice), unless power.window is set
    or that would make the windows 1000 times narrower than the default."""
    from .host_power import DEFAULT_WINDOW_PS

    if sc.run.window is None:
        return window
    w = window or DEFAULT_WINDOW_PS
    if sc.power.window:
        return w
    aligned = math.gcd(w, *sc.run.window)
    return aligned if aligned * 1000 >= w else w


def handshake_ps(net: Network, src: int, dst: int, header_bytes: int) -> int:
    """One round trip of a header-only packet on the first shortest path from src to dst, unloaded: per link,
    its propagation delay plus the serialization of `header_bytes`, there and back (our handshake model)."""
    from collections import deque

    parent: dict[int, int] = {src: -1}
    via: dict[int, int] = {}
    links_of: list[list[int]] = [[] for _ in net.nodes]
    for i, link in enumerate(net.links):
        links_of[link.a].append(i)
        links_of[link.b].append(i)
    queue = deque([src])
    while queue and dst not in parent:
        u = queue.popleft()
        if u != src and net.nodes[u].kind == "host":
            continue
        for i in links_of[u]:
            v = net.links[i].b if net.links[i].a == u else net.links[i].a
            if v not in parent:
                parent[v], via[v] = u, i
                queue.append(v)
    if dst not in parent:
        return 0
    one_way, node = 0, dst
    while node != src:
        link = net.links[via[node]]
        one_way += link.delay_ps + math.ceil(header_bytes * 8 * PS_PER_S / link.rate_bps)
        node = parent[node]
    return 2 * one_way


def _flow_specs(sc: Scenario, net: Network, flows: list[Flow]) -> Any:
    if isinstance(flows, FlowColumns):
        return _column_flow_specs(sc, net, flows)
    specs = [f.to_spec() for f in flows]
    for spec, f in zip(specs, flows):
        spec["transport"] = flow_transport(sc, f.transport, f.cls)
    if sc.tcp.handshake:
        header = sc.tcp.header_bytes + sc.topology.frame_overhead
        cache: dict[tuple[int, int], int] = {}
        for spec, f in zip(specs, flows):
            if spec["transport"] in ("tcp", "dctcp"):
                key = (f.src, f.dst)
                if key not in cache:
                    cache[key] = handshake_ps(net, f.src, f.dst, header)
                spec["handshake_ps"] = cache[key]
    return specs


def _transports_used(specs: Any) -> set[str]:
    from .engine import FlowBuffers

    if isinstance(specs, FlowBuffers):
        return set(specs.transports)
    return {s["transport"] for s in specs}


def _column_flow_specs(sc: Scenario, net: Network, flows: FlowColumns) -> Any:
    """The spec's flows as column buffers (JSON text where a JSON spec is needed); the handshake computed once
    per (src, dst) pair."""
    import numpy as np

    from .engine import TRANSPORTS, FlowBuffers

    # Each flow's transport: its own (a flow file's udp, dctcp or ndp), else its class's (flow_transport), as
    # code into TRANSPORTS.
    by_class = np.array([TRANSPORTS.index(flow_transport(sc, "tcp", c)) for c in flows.classes] or [0])
    own = flows.own_transport_codes()
    codes = np.where(own != TRANSPORTS.index("tcp"), own, by_class[flows.cls]).astype(np.uint8)
    # the codes present, by count (np.unique imports numpy.ma, about 50 M instructions at start-up)
    used = frozenset(TRANSPORTS[int(c)] for c in np.flatnonzero(np.bincount(codes)))
    hs = None
    if sc.tcp.handshake:
        header = sc.tcp.header_bytes + sc.topology.frame_overhead
        pairs, back = np.unique(flows.src * len(net.nodes) + flows.dst, return_inverse=True)
        per_pair = [
            handshake_ps(net, int(p) // len(net.nodes), int(p) % len(net.nodes), header) for p in pairs
        ]
        # a handshake for TCP and DCTCP flows only, as in _flow_specs
        opens = np.isin(codes, [TRANSPORTS.index("tcp"), TRANSPORTS.index("dctcp")])
        hs = np.where(opens, np.asarray(per_pair, dtype=np.int64)[back], 0)
    return FlowBuffers(flows.engine_buffers(hs, codes), lambda: flows.engine_flows_json(hs, codes), used)


def simulate(
    scenario: Scenario | dict[str, Any] | str | Path,
    seed: int | None = None,
    flows: str | Path | list[Flow] | None = None,
    overrides: list[str] | dict[str, Any] | None = None,
    max_memory_bytes: int | None = None,
    progress: bool = True,
    partial_on_interrupt: bool = False,
) -> SimResult:
    """Simulate a scenario (object, raw dict or TOML path) once.

    `seed` replaces `run.seed`; `flows` (a CSV path or a list of Flow) replaces the workload; `overrides`
    are `--set` style dotted keys, validated like the file. Before anything is built, the run's memory is
    estimated (`sim.limits`) and a run that needs more than `max_memory_bytes` (default: the memory available
    now) is refused. A run longer than a few seconds reports its simulated time and finished flows on stderr
    (`progress=False` silences it). Ctrl-C raises KeyboardInterrupt, or, with `partial_on_interrupt`, returns
    what was measured so far with `summary["incomplete"] = True`.

    >>> res = simulate({"routing": {"scheme": "rps"},
    ...                 "workload": {"kind": "static", "long_flows": 1, "long_size": "1MB"}}, seed=2)
    >>> res.flows[["src", "dst", "size_bytes", "class"]].values.tolist()
    [['S0', 'S15', 1000000, 'long'], ['S0', 'S15', 200000, 'short']]
    >>> bool(res.flows["fct_s"].notna().all()), res.summary["routing"]
    (True, 'rps')
    """
    sc = as_scenario(scenario)
    if overrides:
        sc = sc.with_overrides(overrides)
    seed = sc.run.seed if seed is None else seed
    if seed < 0:
        raise InputError(f"seed must be >= 0, got {seed}", hint="give a non-negative integer seed")
    hosts, switches, links, racks = topology_size(sc.topology)
    check_run_size(RunSize(hosts, switches, links, 0, racks), max_memory_bytes, "topology")
    if flows is None:
        n_flows = workload_flow_count(sc, hosts)
    elif isinstance(flows, (str, Path)):
        n_flows = count_csv_rows(flows)
    else:
        n_flows = len(flows)
    where = workload_size_key(sc) if flows is None else "workload"
    check_run_size(RunSize(hosts, switches, links, n_flows, racks), max_memory_bytes, where)
    circuit = sc.topology.kind in ("rotornet", "selectornet", "opera")
    if circuit:
        from .optical.scenario_run import endpoint_network

        net = endpoint_network(sc.topology)
    else:
        net = build_topology(sc.topology)
    if flows is None:
        flow_list = build_workload(sc, net, seed)
    elif isinstance(flows, (str, Path)):
        flow_list = read_flows_csv(flows, net)
        check_flow_transports(sc, flow_list)
    else:
        flow_list = flows if isinstance(flows, FlowColumns) else list(flows)
    if not flow_list:
        raise InputError("workload: no flows to simulate", hint="give at least one flow")
    _warn_if_long(sc, flow_list)
    if circuit:
        from .optical.scenario_run import simulate_circuit

        res = simulate_circuit(sc, net, flow_list, seed, _Progress() if progress else None)
        if res.summary.get("stopped_by") == "interrupted":
            if not partial_on_interrupt:
                raise KeyboardInterrupt("simulation interrupted")
            res.summary["incomplete"] = True
        return res
    # before the run, so a bad [power] table fails at once
    models = sc.power.models(sc.base_dir, eee=sc.eee.enabled)
    hosts = sc.power.host_pricer(sc.base_dir)
    spec = build_spec(sc, net, flow_list, seed)
    et_plan = None
    if sc.elastictree.enabled:
        from .elastictree import plan as et_plan_for

        et_plan = et_plan_for(
            net, flow_list, sc.elastictree, horizon_ps=sc.run.window[1] if sc.run.window else None
        )
        spec["link_schedule"] = et_plan.link_schedule()
    out = _run_windowed(spec, sc, _Progress() if progress else None)
    if out["summary"].get("stopped_by") == "interrupted":
        if not partial_on_interrupt:
            raise KeyboardInterrupt("simulation interrupted")
        out["summary"]["incomplete"] = True
    res = _results(sc, net, flow_list, seed, out)
    res.energy = run_energy(out, models, hosts=hosts)
    if et_plan is not None:
        from .elastictree.pricing import apply_sleep

        apply_sleep(res.energy, out, models, et_plan, (0, out["summary"]["sim_time_ps"]))
        res.summary["elastictree_intervals"] = len(et_plan.subsets)
    if sc.run.window is not None:
        res.window_energy = run_energy(out, models, hosts=hosts, interval_ps=sc.run.window)
        if et_plan is not None:
            apply_sleep(res.window_energy, out, models, et_plan, sc.run.window)
        res.summary.update(window_summary(res.window_energy))
    res.engine_results = out
    return res


def reprice(res: SimResult, overrides: list[str] | dict[str, Any]) -> EnergyReport:
    """The run's energy under other [power] settings (`--set` style keys such as power.hosts.policy=affcon):
    the packets do not depend on the power models, so the engine's counters are priced again, not re-run.
    A setting that needs engine windows the run did not keep (a different power.window) is an InputError."""
    if res.engine_results is None:
        raise InputError("this result holds no engine counters to price", hint="use a result of simulate()")
    sc = res.scenario.with_overrides(overrides)
    window = sc.power.engine_window_ps(sc.run.stop_time)
    kept = (res.engine_results.get("series") or {}).get("window_ps")
    if window is not None and kept is None:
        raise InputError(
            "these power settings need per-window counters the run did not keep",
            hint="simulate with the settings instead",
        )
    return run_energy(
        res.engine_results,
        sc.power.models(sc.base_dir, eee=sc.eee.enabled),
        hosts=sc.power.host_pricer(sc.base_dir),
    )


def _run_windowed(spec: dict[str, Any], sc: Scenario, progress: Any) -> dict[str, Any]:
    """Run the spec. When the stats window is our default (hosts priced, no power.window) and the run lasted
    more windows than the engine keeps, run again once with windows wide enough (a long run without a stop
    time; the engine says how long it lasted)."""
    import re

    from ..core.errors import EngineInputError
    from .engine import run_spec_columns as run_spec
    from .host_power import MAX_WINDOWS

    try:
        return run_spec(spec, progress)
    except EngineInputError as e:
        lasted = re.search(r"lasted (\d+) ps", str(e))
        if sc.power.window or tuple(e.engine_loc) != ("stats_window_ps",) or not lasted:
            raise
        window = -(-int(lasted.group(1)) // (MAX_WINDOWS - 1))
        print(
            f"note: the run outlasted {MAX_WINDOWS} host-pricing windows of {spec['stats_window_ps'] / 1e9:g} ms; "
            f"running it again with {window / 1e9:.6g} ms windows (set power.window to choose)",
            file=sys.stderr,
        )
        return run_spec({**spec, "stats_window_ps": window}, progress)


class _Progress:
    """Progress on stderr for runs longer than a few seconds: simulated time (against the stop time, when there
    is one) and finished flows; a line every ten seconds, or one updated line on a terminal."""

    DELAY_S, EVERY_S = 3.0, 10.0

    def __init__(self) -> None:
        import time

        self.t0 = time.monotonic()
        self.last = -self.EVERY_S
        self.tty = sys.stderr.isatty()

    def __call__(self, now_ps: int, stop_ps: int | None, events: int, flows_done: int, flows: int) -> None:
        import time

        t = time.monotonic() - self.t0
        if t < self.DELAY_S or (not self.tty and t - self.last < self.EVERY_S):
            return
        self.last = t
        until = f" of {stop_ps / 1e9:.3f} ms" if stop_ps else ""
        line = (
            f"simulating: {now_ps / 1e9:.3f} ms simulated{until}, {events / 1e6:.1f} M events, flows done "
            f"{flows_done}/{flows}, {t:.0f} s (Ctrl-C stops with the results so far)"
        )
        print(("\r" + line) if self.tty else line, end="" if self.tty else "\n", file=sys.stderr, flush=True)


# Our measurement of the engine on the 2-core development machine: about 10 M packet-hops per second.
_HOPS_PER_S = 1e7


def _warn_if_long(sc: Scenario, flows: list[Flow]) -> None:
    """Say so when a run without a stop time will move so many packets that it may take minutes or more."""
    if sc.run.stop_time is not None:
        return
    if isinstance(flows, FlowColumns):
        packets = int((-(-flows.size_bytes // sc.tcp.mss)).sum())
    else:
        packets = sum(math.ceil(f.size_bytes / sc.tcp.mss) for f in flows)
    hops = packets * 6  # at most 6 links host to host in a fat-tree; an upper bound for the warning
    if hops > 60 * _HOPS_PER_S:
        print(
            f"warning: the workload moves about {packets:.3g} packets ({hops:.3g} packet-hops at most); at "
            f"~{_HOPS_PER_S:.0e} packet-hops/s this run may take up to {hops / _HOPS_PER_S / 60:.3g} min; "
            "set run.stop_time to bound it",
            file=sys.stderr,
        )


def _results(sc: Scenario, net: Network, flows: list[Flow], seed: int, out: dict[str, Any]) -> SimResult:
    from .engine import TRANSPORTS
    from .tables import Columns, Text, from_records

    names = [n.name for n in net.nodes]
    f = out["flows"]
    if not isinstance(f, Columns):  # the engine's flows as JSON records (engine.run_spec)
        f = from_records(f)
        f["transport"] = Text([TRANSPORTS.index(t) for t in f["transport"]], TRANSPORTS)
    ids = f["id"]
    fl = Columns({"id": ids, "src": Text(f["src"], names), "dst": Text(f["dst"], names)})
    fl["size_bytes"] = f["size_bytes"]
    fl["start_s"] = f["start_ps"] / PS_PER_S
    fl["fct_s"] = f["fct_ps"].astype("float64") / PS_PER_S  # NaN: never finished
    with np.errstate(divide="ignore", invalid="ignore"):
        fl["throughput_bps"] = 8 * f["size_bytes"] / fl["fct_s"]
    for name in ("retransmits", "spurious_retransmits", "ooo_packets", "packets_received"):
        fl[name] = f[name]
    fl["class"] = _class_column(flows, ids)
    for name in f.columns:
        if name not in fl and not name.endswith("_ps"):
            fl[name] = f.raw(name)
    # when the sender learnt every byte arrived (its last ACK), less the start; NaN: never, or no ACKs (UDP)
    fl["fct_ack_s"] = np.array(f["fct_ack_ps"], dtype=np.float64) / PS_PER_S

    li = from_records(out["links"])
    li["from"] = Text(li["from"], names)
    li["to"] = Text(li["to"], names)
    li["busy_s"] = li.pop("busy_ps") / PS_PER_S
    li["rate_bps"] = np.array([net.links[i].rate_bps for i in li["link"].tolist()], dtype=np.int64)

    no = from_records(out["nodes"])
    s = dict(out["summary"])
    sim_time_s = s.pop("sim_time_ps") / PS_PER_S
    li["utilization"] = li["busy_s"] / sim_time_s if sim_time_s > 0 else np.zeros(len(li))
    summary = {
        "scenario": sc.name,
        "seed": seed,
        "routing": sc.routing.scheme,
        **({"vlb": True} if sc.routing.vlb else {}),
        "sim_time_s": sim_time_s,
        **s,
        "flows": len(flows),
    }
    res = SimResult(fl, li, no, summary, sc)
    codes = f.raw("transport").codes
    udp = codes == TRANSPORTS.index("udp")
    # the flows the engine gives a handshake (TCP and DCTCP, as _flow_specs): NDP starts at once
    shakes = np.isin(codes, [TRANSPORTS.index("tcp"), TRANSPORTS.index("dctcp")])
    ideal = ideal_fct_packet_s(sc, net, f["src"], f["dst"], f["size_bytes"], udp, shakes)
    attach(res, ideal, sc.run.size_buckets)
    return res


def _class_column(flows: Any, ids: np.ndarray) -> Any:
    """Each result row's flow class (rows by flow id), as codes into the class names: a flow file's classes
    taken from their codes, a `Flow` list's looked up by id."""
    from .tables import Text

    if isinstance(flows, FlowColumns):
        if np.array_equal(ids, flows.id):
            return Text(flows.cls, flows.classes)
        order = np.argsort(flows.id, kind="stable")
        at = order[np.searchsorted(flows.id, ids, sorter=order)]
        return Text(flows.cls[at], flows.classes)
    by_id = {f.id: f.cls for f in flows}
    names: dict[str, int] = {}
    codes = [names.setdefault(by_id[i], len(names)) for i in ids.tolist()]
    return Text(np.asarray(codes, dtype=np.int64), names)
