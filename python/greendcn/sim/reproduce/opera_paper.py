"""`greendcn reproduce opera-paper`: a flow file of the public Opera simulator (TritonNetworking/opera-sim,
published with Mellette et al., NSDI 2020) run on the matching network with its run script's parameters, and
our FCT per size bucket beside the simulator's own output for the same flows (docs/opera-paper.md).

The network comes from a scenario file found by name (NETWORK_FILES; the [topology] and [routing] tables are
read, everything else is set here from the run script), so the Clos and the expander are whatever their
scenario files build. The run script's parameters (docs/opera-paper.md, "Developers", cites each in the
simulator's source):
- 1500-byte packets of which 64 are header (each main_*.cpp's DEFAULT_PACKET_SIZE / DEFAULT_HEADER_SIZE):
  tcp.mss = 1436, tcp.header_bytes = ndp.header_bytes = 64;
- per-packet spraying for NDP on the Clos and the expander (routing.scheme = "rps"); TCP and DCTCP keep the
  scenario file's routing, as does Opera;
- queues in packets (run.sh `-q`: 8 on Opera, 46 on the Clos and the expander): ndp.queue, and on the packet
  fabrics topology.queue (drop-tail for TCP and DCTCP);
- initial window (run.sh `-cwnd`: 20 on Opera, 30 on the others): ndp.initial_window, tcp.initial_window
  (the latter our choice: the simulator runs NDP only);
- Opera's low-latency cutoff (run.sh `-cutoff 30000000`): topology.cutoff;
- 10 Gb/s links (main.h HOST_NIC) with 500 ns between switches (delay_ToR2ToR / RTT_net) and 0 ns on host
  links (delay_host2ToR / RTT_rack): topology.link_rate, link_delay and host_link_delay;
- Opera's packets of 1500 bytes on the wire, no framing (the circuit engine's default adds 24 bytes):
  topology.frame_overhead = 0;
- one NDP pull pacer per flow on every network (main_ndp_dynexpTopology.cpp line 195,
  main_ndp_fatTree_3to1_k12.cpp line 200 and main_ndp_expander.cpp line 206 make one for every flow):
  ndp.pull_pacer = "flow" (our default is one per receiving host);
- a 1 ms minimum retransmission timeout (NdpSrc::setMinRTO(1000)): tcp.min_rto;
- 1.00001 s simulated (run.sh `-simtime`): run.stop_time, so flows still running then are unfinished on both.

Where an FCT ends: the simulator prints a flow's FCT when its sender gets the ACK whose cumulative number
covers the flow (`NdpSrc::processAck`: src/clos/ndp.cpp line 437, src/expander/ndp.cpp line 455,
src/opera/ndp.cpp line 346; TCP's `TcpSrc::receivePacket`, src/clos/tcp.cpp line 230), and the receiver's
completion only for Opera's bulk datagrams (src/opera/rlb.cpp line 152). So with a reference file our FCT ends
the same way: at the engine's `fct_ack` (the sender's last ACK) for flows with ACKs, at the receiver's last
byte for datagram flows. Without one, FCT ends at the receiver's last byte, as everywhere else in greendcn.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ...core.errors import InputError
from .opera_paper_files import FlowFile, match_reference, read_fct_file, read_flow_file

__all__ = [
    "BUCKET_EDGES",
    "NETWORK_FILES",
    "RUN_SCRIPTS",
    "TARGETS",
    "bucket_rows",
    "network_scenario",
    "reproduce_opera_paper",
]

# Size buckets of the comparison: < 100 KB, 100 KB-1 MB, >= 1 MB (the table; sim/metrics.py's labels).
BUCKET_EDGES = (100_000, 1_000_000)
# The targets we hold ourselves to, with NDP: median and mean within 15 %, p99 within 30 % (our choice).
TARGETS = {"p50": 0.15, "mean": 0.15, "p99": 0.30}
TRANSPORTS = ("ndp", "tcp", "dctcp")

# The scenario file of each network, under scenarios/ (or the folder given): its [topology] and [routing].
NETWORK_FILES = {
    "opera": "opera-paper-648.toml",
    "clos": "clos-3to1-648.toml",
    "expander": "expander-u7-650.toml",
}


@dataclass(frozen=True)
class RunScript:
    """One network's parameters as its run script and main program set them (module doc)."""

    queue_pkts: int
    initial_window: int
    cutoff_bytes: int | None = None


# Figure9_websearch/<net>/sim/run.sh of the public simulator: -q, -cwnd, -cutoff.
RUN_SCRIPTS = {
    "opera": RunScript(queue_pkts=8, initial_window=20, cutoff_bytes=30_000_000),
    "clos": RunScript(queue_pkts=46, initial_window=30),
    "expander": RunScript(queue_pkts=46, initial_window=30),
}
PACKET_BYTES, HEADER_BYTES = 1500, 64
STOP_TIME = "1000010us"  # run.sh: -simtime 1.00001
# Where the compared FCT ends (config.fct_ends; module doc): with a reference file as the simulator ends it.
FCT_ENDS = {
    "sender": "the sender's last ACK (datagram flows: the receiver's last byte), as the simulator",
    "receiver": "the receiver's last byte",
}


def default_scenarios_dir() -> Path:
    """The repository's scenarios/ folder."""
    return Path(__file__).resolve().parents[4] / "scenarios"


def _network_tables(network: str, scenarios_dir: Path | None) -> tuple[dict[str, Any], dict[str, Any], Path]:
    """The [topology] and [routing] tables of the network's scenario file."""
    from ...core.userfile import read_toml

    if network not in NETWORK_FILES:
        raise InputError(
            f"--network: {network!r} is not one of {', '.join(NETWORK_FILES)}",
            hint="--network opera, clos or expander",
            loc=("network",),
        )
    folder = scenarios_dir or default_scenarios_dir()
    path = folder / NETWORK_FILES[network]
    if not path.is_file():
        raise InputError(
            f"--network {network}: its scenario file {path} does not exist",
            hint=f"the {network} network is built from {NETWORK_FILES[network]} in {folder}; "
            "this version of greendcn does not ship it yet",
            loc=("network",),
        )
    doc = read_toml(path, "scenario", kind="a TOML scenario")
    topo = doc.get("topology")
    if not isinstance(topo, dict):
        raise InputError(
            f"scenario {path}: no [topology] table", hint="the file must have a [topology] table"
        )
    routing = doc.get("routing") if isinstance(doc.get("routing"), dict) else {}
    return dict(topo), dict(routing), path


def network_scenario(
    network: str, transport: str = "ndp", scenarios_dir: Path | None = None
) -> dict[str, Any]:
    """The scenario (a dict, without workload) of `network` with the run script's parameters (module doc)."""
    if transport not in TRANSPORTS:
        raise InputError(
            f"--transport: {transport!r} is not one of {', '.join(TRANSPORTS)}",
            hint="--transport ndp (the simulator's), tcp or dctcp",
            loc=("transport",),
        )
    topo, routing, path = _network_tables(network, scenarios_dir)
    rs = RUN_SCRIPTS[network]
    queue = f"{rs.queue_pkts}pkt"
    topo |= {"link_rate": "10Gbps", "link_delay": "500ns", "host_link_delay": "0ns"}  # RTT_net, RTT_rack
    circuit = topo.get("kind") in ("opera", "rotornet", "selectornet")
    if circuit:
        topo["frame_overhead"] = 0  # the simulator's packets are 1500 bytes on the wire
    else:
        topo["queue"] = queue  # drop-tail limit of every switch port (TCP, DCTCP); NDP trims at ndp.queue
        # NDP sprays packet by packet: the Clos's run.sh passes `-strat perm` (SCATTER_PERMUTE,
        # main_ndp_fatTree_3to1_k12.cpp lines 100-102), the expander's main sets SCATTER_RANDOM whatever the
        # options (main_ndp_expander.cpp line 139); spraying over equal-cost next hops is our `rps`. TCP and
        # DCTCP keep the file's routing (our choice: spraying would reorder their segments). The file's Valiant
        # load balancing keys (routing.vlb*, the simulator's -VLB 1) are kept either way.
        if transport == "ndp":
            routing = {"scheme": "rps", **{k: v for k, v in routing.items() if k.startswith("vlb")}}
    if rs.cutoff_bytes is not None and topo.get("kind") == "opera":
        topo["cutoff"] = f"{rs.cutoff_bytes}B"
    sc: dict[str, Any] = {
        "name": f"opera-paper-{network}",
        "topology": topo,
        "routing": routing,
        "transport": {"default": transport},
        "tcp": {
            "mss": PACKET_BYTES - HEADER_BYTES,
            "header_bytes": HEADER_BYTES,
            "initial_window": rs.initial_window,
            "min_rto": "1ms",
        },
        "ndp": {
            "queue": queue,
            "header_bytes": HEADER_BYTES,
            "initial_window": rs.initial_window,
            # a pull pacer per flow, as every main of the simulator builds one NdpPullPacer per flow
            # (main_ndp_dynexpTopology.cpp line 195, main_ndp_fatTree_3to1_k12.cpp line 200,
            # main_ndp_expander.cpp line 206); ours default to one per receiving host
            "pull_pacer": "flow",
        },
        "run": {"stop_time": STOP_TIME, "size_buckets": [f"{e}B" for e in BUCKET_EDGES]},
        "_file": str(path),
        "_base_dir": str(path.parent),  # the file's own relative paths (an expander's graph_file)
    }
    if transport == "dctcp":
        # our choice: DCTCP's K = 65 packets (Alizadeh et al. 2010) does not fit a 46-packet queue; half the
        # queue on packet fabrics, 65 on Opera (its ToRs' ports down to hosts keep the default queue)
        sc["dctcp"] = {"k": 65 if circuit else max(1, rs.queue_pkts // 2)}
    return sc


def _scenario(sc: dict[str, Any]) -> Any:
    from ..scenario import scenario_from_dict

    return scenario_from_dict(
        {k: v for k, v in sc.items() if not k.startswith("_")}, base_dir=sc.get("_base_dir")
    )


def _flows(ff: FlowFile) -> Any:
    """The file's flows as columns (`FlowColumns`, handed to either engine as column buffers): ids in file
    order, class "flow", the transport the scenario gives that class."""
    from ..workload.columns import FlowColumns

    n = len(ff.src)
    zeros = np.zeros(n, dtype=np.int64)
    return FlowColumns(
        id=np.arange(n, dtype=np.int64),
        src=np.asarray(ff.src, dtype=np.int64),
        dst=np.asarray(ff.dst, dtype=np.int64),
        size_bytes=np.asarray(ff.size, dtype=np.int64),
        start_ps=np.asarray(ff.start_ns, dtype=np.int64) * 1000,
        cls=zeros,
        classes=("flow",),
        udp=np.zeros(n, dtype=bool),
        rate_bps=zeros,
    )


def bucket_rows(size: np.ndarray, fct_s: np.ndarray, slowdown: np.ndarray) -> list[dict[str, Any]]:
    """sim/metrics.py's rows (all flows, then one per size bucket) of one side's FCTs."""
    import pandas as pd

    from ..metrics import flow_rows

    df = pd.DataFrame({"size_bytes": size, "fct_s": fct_s, "slowdown": slowdown, "class": "flow"})
    return [r for r in flow_rows(df, BUCKET_EDGES) if r["group"] in ("all", "size")]


def _diff(ours: float | None, theirs: float | None) -> float | None:
    if ours is None or theirs is None or not theirs:
        return None
    return (ours - theirs) / theirs


def compare_rows(ours: list[dict[str, Any]], theirs: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """One row per bucket: FCT (ms) and slowdown p50 / mean / p99, ours, theirs and the relative difference,
    and whether the FCT differences meet TARGETS."""
    out = []
    for i, o in enumerate(ours):
        t = theirs[i] if theirs is not None else None
        row: dict[str, Any] = {"bucket": o["name"], "flows": o["flows"], "completed_ours": o["completed"]}
        if t is not None:
            row["completed_theirs"] = t["completed"]
        ok = True
        for stat in ("p50", "mean", "p99"):
            v = o[f"fct_{stat}_s"]
            row[f"fct_{stat}_ms_ours"] = None if v is None else v * 1e3
            if t is not None:
                w = t[f"fct_{stat}_s"]
                row[f"fct_{stat}_ms_theirs"] = None if w is None else w * 1e3
                d = _diff(v, w)
                row[f"fct_{stat}_diff"] = d
                ok = ok and d is not None and abs(d) <= TARGETS[stat]
        for stat in ("p50", "mean", "p99"):
            row[f"slowdown_{stat}_ours"] = o[f"slowdown_{stat}"]
            if t is not None:
                row[f"slowdown_{stat}_theirs"] = t[f"slowdown_{stat}"]
        if t is not None:
            row["within_target"] = ok if o["completed"] and t["completed"] else None
        out.append(row)
    return out


def reproduce_opera_paper(
    flows_path: Path,
    network: str,
    reference: Path | None = None,
    transport: str = "ndp",
    scenarios_dir: Path | None = None,
    progress: bool = False,
    run: Callable[..., Any] | None = None,
) -> dict[str, Any]:
    """Run the flow file on the network and compare with the reference. Returns the document `--json` writes,
    plus "_flows" (the per-flow table, a DataFrame)."""
    import time

    import pandas as pd

    from ..run import simulate

    sc = network_scenario(network, transport, scenarios_dir)
    scenario = _scenario(sc)
    from ..limits import topology_size

    hosts = int(topology_size(scenario.topology)[0])
    ff = read_flow_file(flows_path, hosts)
    ref_fct = None
    if reference is not None:
        ref_fct = match_reference(ff, read_fct_file(reference))
    t0 = time.perf_counter()
    res = (run or simulate)(scenario, flows=_flows(ff), progress=progress)
    wall = time.perf_counter() - t0
    fl = res.flows
    order = np.argsort(fl["id"].to_numpy())
    fct_ack = sender_fct_s(fl)[order]
    # with a reference, FCT ends where the simulator ends it: at the sender's last ACK (module doc)
    fct = fct_ack if reference is not None else fl["fct_s"].to_numpy(dtype=float)[order]
    ideal = fl["ideal_fct_s"].to_numpy(dtype=float)[order]
    slow = fct / ideal
    ours = bucket_rows(ff.size, fct, slow)
    theirs = bucket_rows(ff.size, ref_fct, ref_fct / ideal) if ref_fct is not None else None
    per_flow = pd.DataFrame(
        {
            "src": ff.src,
            "dst": ff.dst,
            "size_bytes": ff.size,
            "start_ns": ff.start_ns,
            "fct_ms": fct * 1e3,
            "fct_receiver_ms": fl["fct_s"].to_numpy(dtype=float)[order] * 1e3,
            "fct_ack_ms": fct_ack * 1e3,
            "ideal_fct_ms": ideal * 1e3,
            "slowdown": slow,
        }
    )
    if ref_fct is not None:
        per_flow["reference_fct_ms"] = ref_fct * 1e3
        per_flow["reference_slowdown"] = ref_fct / ideal
    s = res.summary
    e = res.energy
    energy = {
        "energy_j": e.total_energy_j,
        "sim_time_s": e.sim_time_s,
        "avg_power_w": e.avg_power_w,
        "delivered_bits": int(e.delivered_bits),
        "energy_per_bit_pj": e.energy_per_bit_pj,
        "energy_per_bit_pj_without_hosts": e.energy_per_bit_pj_without_hosts,
        "hosts_energy_j": float(sum(d["energy_j"] for d in e.devices if d["kind"] == "node:host")),
        "devices": len(e.devices),
        "hosts_priced": sum(1 for d in e.devices if d["kind"] == "node:host"),
    }
    doc = {
        "config": {
            "flows_file": str(flows_path),
            "reference_file": None if reference is None else str(reference),
            "network": network,
            "network_file": sc["_file"],
            "topology_kind": sc["topology"].get("kind"),
            "routing": dict(sc["routing"]),  # the [routing] that ran (with routing.vlb if the file sets it)
            "hosts": hosts,
            "transport": transport,
            "transport_ran": _ran(fl, s),
            "fct_ends": FCT_ENDS["sender" if reference is not None else "receiver"],
            "queue_pkts": RUN_SCRIPTS[network].queue_pkts,
            "initial_window_pkts": RUN_SCRIPTS[network].initial_window,
            "cutoff_bytes": RUN_SCRIPTS[network].cutoff_bytes,
            "packet_bytes": PACKET_BYTES,
            "header_bytes": HEADER_BYTES,
            "stop_time_s": 1.00001,
            "size_buckets_bytes": list(BUCKET_EDGES),
            "targets": TARGETS,
        },
        "flows": len(ff),
        "completed_ours": int(np.isfinite(fct).sum()),
        "completed_theirs": None if ref_fct is None else int(np.isfinite(ref_fct).sum()),
        "buckets": compare_rows(ours, theirs),
        "energy": energy,
        "run": {
            "wall_s": wall,  # the whole run: building the network, the engine, the results and the energy
            "engine_wall_s": s.get("wall_s"),
            "events": s.get("events"),
            "packet_hops": s.get("packet_hops"),
            "stopped_by": s.get("stopped_by"),
            # losses and their repair, for the TCP and DCTCP tables (docs/opera-paper.md); Opera's packets
            # dropped for want of a path in the slice and moved to another path (circuit fabrics only)
            "drops": s.get("drops"),
            **{k: s[k] for k in ("no_path_drops", "low_latency_reroutes") if k in s},
            **{k: _total(fl, k) for k in _FLOW_COUNTS},
            "sim_time_s": s.get("sim_time_s"),
        },
        "_flows": per_flow,
    }
    return doc


def sender_fct_s(flows: Any) -> np.ndarray:
    """Each flow's FCT as its sender sees it (s, in the table's order): until the ACK that told it every byte
    arrived (`fct_ack_s`), or for a datagram flow, which has no ACKs, until its receiver held every byte
    (`fct_s`), as the simulator's bulk datagrams end theirs; NaN for a flow that did not end."""
    fct = flows["fct_s"].to_numpy(dtype=float)
    ack = flows["fct_ack_s"].to_numpy(dtype=float)
    datagram = flows["transport"].isin(["udp", "datagram"]).to_numpy()
    return np.where(datagram, fct, ack)


_FLOW_COUNTS = ("retransmits", "fast_retransmits", "spurious_retransmits", "timeouts", "trims", "ecn_marks")


def _total(flows: Any, name: str) -> int | None:
    """A per-flow counter summed over the flows (None where the table lacks it)."""
    return int(flows[name].sum()) if name in flows.columns else None


def _ran(flows: Any, summary: dict[str, Any]) -> str | None:
    """The transports the flows ran, from the per-flow column (e.g. "ndp"), else the summary's wording."""
    if "transport" in flows.columns:
        return "/".join(sorted({str(t) for t in flows["transport"].dropna()}))
    return summary.get("transport")
