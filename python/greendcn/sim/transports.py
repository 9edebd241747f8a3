"""Scenario keys for the transports: `[transport]` (which transport each flow class runs), `[dctcp]` and `[ndp]`
(docs/transports.md), their checks against the fabric, and the engine's settings built from them."""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from ..core.errors import FieldError, InputError
from ..core.units import parse_queue

__all__ = [
    "Dctcp",
    "Ndp",
    "TransportChoice",
    "check_flow_transports",
    "check_transports",
    "flow_transport",
    "ndp_initial_window",
    "transport_specs",
]

Name = Literal["tcp", "dctcp", "ndp"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True, validate_default=True)


class TransportChoice(_Model):
    # Our default: every flow runs TCP NewReno, as before. `classes` maps a flow class (workload `class`) to
    # its transport; a flow listed with its own `transport` other than tcp keeps it.
    default: Name = "tcp"
    classes: dict[str, Name] = {}
    # Circuit fabrics' bulk traffic (RotorNet, SelectorNet, Opera's bulk class): "datagram" (our default:
    # RotorLB's datagrams, the thesis's baseline, so existing scenarios keep their results) or "transport" (each
    # bulk flow runs its transport, TCP, DCTCP or NDP, from its source ToR's queue; docs/circuit-engine.md).
    circuit_bulk: Literal["datagram", "transport"] = "datagram"


class Dctcp(_Model):
    # Alizadeh et al., SIGCOMM 2010, section 3.4: K = 65 packets at 10 Gb/s and g = 1/16.
    k: int = Field(65, ge=1)
    g: float = Field(1 / 16, gt=0.0, le=1.0)
    # Our choice (not the paper's): alpha starts at 1, as Linux's DCTCP does, so the first mark halves.
    initial_alpha: float = Field(1.0, ge=0.0, le=1.0)


class Ndp(_Model):
    # 8 full packets of data queue, as Opera's shallow 24 KB queues hold (seed 001 line 927: 8 x 1500-byte
    # packets + 187 x 64-byte headers); headers of 64 bytes as there. Our choice: the header queue is not
    # bounded (a queue of bytes, "24KB", bounds the data and headers together instead).
    queue: Annotated[dict[str, int] | None, BeforeValidator(lambda v: parse_queue(v, "value"))] = "8pkt"  # type: ignore[assignment]
    header_bytes: int = Field(64, ge=1)
    # Packets sent before the first pull. Unset: one bandwidth-delay product of the fabric's longest
    # host-to-host path (the paper's choice), see `ndp_initial_window`.
    initial_window: int | None = Field(None, ge=1)
    # Who paces the receiver's pulls: "host" (Handley et al. 2017, section 3.2: one pacer per receiving host,
    # shared by its flows; our default) or "flow" (one pacer per flow at the host's link rate, as the public
    # Opera simulator's mains build them: src/opera/datacenter/main_ndp_dynexpTopology.cpp line 195,
    # src/clos/datacenter/main_ndp_fatTree_3to1_k12.cpp line 200; docs/transports.md). Every fabric.
    pull_pacer: Literal["host", "flow"] = "host"


CIRCUIT_KINDS = ("rotornet", "selectornet", "opera")


def used_transports(sc: Any) -> set[str]:
    """Every transport the scenario's flows may run (flows listed inline included)."""
    used = {sc.transport.default, *sc.transport.classes.values()}
    for f in getattr(sc.workload, "flows", None) or []:
        used.add(f.transport)
    return used


def check_flow_transports(sc: Any, flows: Any) -> None:
    """A flow file's own transports (a `FlowColumns`' per-row dctcp and ndp) checked as the scenario's: on a
    circuit fabric that runs neither on its traffic (no Opera low-latency class, bulk traffic as datagrams) the
    first such row is refused naming its file and line; the settings they use (`dctcp.k`, `ndp.queue`) as by
    `check_transports`."""
    import numpy as np

    from .engine import TRANSPORTS

    codes = flows.own_transport_codes()
    special = [TRANSPORTS.index(t) for t in ("dctcp", "ndp")]
    rows = np.flatnonzero(np.isin(codes, special))
    if not len(rows):
        return
    topo = sc.topology
    if topo.kind in CIRCUIT_KINDS:
        ll_class = topo.kind == "opera" and sc.routing.scheme == "opera"
        if not ll_class and sc.transport.circuit_bulk != "transport":
            i = int(rows[0])
            name = TRANSPORTS[int(codes[i])]
            raise InputError(
                f"{flows.row_name(i)}: transport: {name} does not run on a {topo.kind} fabric's datagram bulk "
                "traffic"
                + (f" (routing.scheme = {sc.routing.scheme!r})" if topo.kind == "opera" else "")
                + " with transport.circuit_bulk = 'datagram'",
                hint=f"set transport.circuit_bulk = 'transport' for {name} on bulk traffic, or write tcp or udp "
                "on that line",
            )
    present = np.flatnonzero(np.bincount(codes[rows]))
    try:
        check_transports(sc, used_transports(sc) | {TRANSPORTS[int(c)] for c in present})
    except FieldError as e:  # named by the key and the first row that asks for it
        asked = next((int(i) for i in rows if e.field.startswith(TRANSPORTS[int(codes[i])])), None)
        row = "" if asked is None else f" ({flows.row_name(asked)} runs {TRANSPORTS[int(codes[asked])]})"
        raise InputError(
            f"{e.field}: {e}{row}",
            hint=e.hint,
            loc=tuple(e.field.split(".")),
        ) from None


def check_transports(sc: Any, used: set[str] | None = None) -> None:
    """Refuse settings no run could use, naming the key: DCTCP's K not below the switch queue, an NDP queue
    too small for a packet, DCTCP or NDP on a circuit fabric's bulk traffic without
    transport.circuit_bulk = "transport". `used`: the transports in use (default: the scenario's own)."""
    used = used_transports(sc) if used is None else used
    special = sorted(used & {"dctcp", "ndp"})
    if not special:
        return
    topo = sc.topology
    if topo.kind in CIRCUIT_KINDS:
        # The circuit engine runs DCTCP and NDP on Opera's low-latency class, and on bulk traffic with
        # transport.circuit_bulk = "transport" (docs/transports.md).
        ll_class = topo.kind == "opera" and sc.routing.scheme == "opera"
        bulk = sc.transport.circuit_bulk == "transport"
        bad = [] if ll_class or bulk else special
        if bad:
            raise FieldError(
                _transport_key(sc, bad[0]),
                f"{bad[0]} does not run on a {topo.kind} fabric's datagram bulk traffic"
                + (f" (routing.scheme = {sc.routing.scheme!r})" if topo.kind == "opera" else "")
                + " with transport.circuit_bulk = 'datagram'",
                hint=f"set transport.circuit_bulk = 'transport' for {bad[0]} on bulk traffic, or use tcp (or "
                "udp); on Opera with routing.scheme = 'opera' the low-latency class runs it either way",
            )
    full = sc.tcp.mss + sc.tcp.header_bytes + topo.frame_overhead
    if "dctcp" in used and topo.queue is not None:
        room = topo.queue.get("packets", topo.queue.get("bytes", 0) // full)
        if sc.dctcp.k >= room:
            raise FieldError(
                "dctcp.k",
                f"K = {sc.dctcp.k} packets is not below the switch queue of {room} full-size packets "
                "(topology.queue): no packet would ever be marked",
                hint=f"set dctcp.k below {room}, or raise topology.queue",
            )
    if "ndp" in used:
        q = sc.ndp.queue
        if q is None:
            raise FieldError(
                "ndp.queue", "NDP trims at a bounded data queue, got unlimited", hint="write '8pkt'"
            )
        if "bytes" in q and q["bytes"] < full:
            header = sc.ndp.header_bytes + topo.frame_overhead
            what = (
                f"one header ({header} bytes)"
                if q["bytes"] < header
                else f"one full-size packet ({full} bytes)"
            )
            raise FieldError(
                "ndp.queue",
                f"{q['bytes']} bytes cannot hold {what}: every data packet would be trimmed",
                hint=f"write a queue of at least {full} bytes, or in packets like '8pkt'",
            )
        if sc.ndp.header_bytes > full:
            raise FieldError(
                "ndp.header_bytes", f"{sc.ndp.header_bytes} bytes is more than a full packet ({full})"
            )


def _transport_key(sc: Any, name: str) -> str:
    """The scenario key that asks for transport `name`: the default, a class, or a listed flow."""
    if sc.transport.default == name:
        return "transport.default"
    for cls, t in sc.transport.classes.items():
        if t == name:
            return f"transport.classes.{cls}"
    return "workload.flows"


def flow_transport(sc: Any, own: str, cls: str) -> str:
    """The transport a flow runs: its own if not tcp (udp, or named per flow), else its class's, else the
    default."""
    if own != "tcp":
        return own
    return sc.transport.classes.get(cls, sc.transport.default)


# Links on the longest host-to-host path (our reading of each fabric: up to the core and down again).
_PATH_LINKS = {"fattree": 6, "leafspine": 4}


def _path_links(topo: Any) -> int:
    if topo.kind == "clos":  # up to the top tier and down again
        return 2 * topo.tiers
    if topo.kind == "expander":  # two host links and the rack graph's diameter
        from .topology.expander import rack_diameter

        return 2 + rack_diameter(topo)
    return _PATH_LINKS.get(topo.kind, 6)


def ndp_initial_window(sc: Any) -> int:
    """`ndp.initial_window`, or one bandwidth-delay product in full-size packets: the round trip of the longest
    path, every link's propagation delay and a full packet's store-and-forward serialization each way
    (an upper bound: the returning ACKs and pulls are headers), at the link rate."""
    if sc.ndp.initial_window is not None:
        return int(sc.ndp.initial_window)
    topo = sc.topology
    full = sc.tcp.mss + sc.tcp.header_bytes + topo.frame_overhead
    ser_ps = full * 8 * 10**12 / topo.link_rate
    links = _path_links(topo)
    rtt_ps = 2 * links * (topo.link_delay + ser_ps)
    if getattr(topo, "host_link_delay", None) is not None:  # its two host links have their own delay
        rtt_ps += 4 * (topo.host_link_delay - topo.link_delay)
    return max(1, math.ceil(rtt_ps / ser_ps))


def transport_specs(sc: Any, used: set[str]) -> dict[str, Any]:
    """The engine's `dctcp` and `ndp` settings (docs/engine-spec.md), only for the transports in use."""
    out: dict[str, Any] = {}
    if "dctcp" in used:
        d = sc.dctcp
        out["dctcp"] = {"k_packets": d.k, "g": d.g, "initial_alpha": d.initial_alpha}
    if "ndp" in used:
        n = sc.ndp
        out["ndp"] = {
            "queue": n.queue,
            "header_bytes": n.header_bytes,
            "initial_window": ndp_initial_window(sc),
            # only when chosen, so the document of a run that does not use it is unchanged
            **({"pull_pacer": n.pull_pacer} if n.pull_pacer != "host" else {}),
        }
    return out
