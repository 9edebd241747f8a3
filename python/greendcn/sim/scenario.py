"""A simulation scenario: the pydantic models of a scenario TOML file, `--set` overrides, and loading.

Quantities are written with units ("1Gbps", "25us", "1000pkt", "128KB") and parsed once, here, into
picoseconds, bytes and bits per second. The defaults fit a 10 Gb/s datacenter (a k=4 fat-tree under a
permutation of 10 MB TCP flows); scenarios that reproduce seed 003 (Kaymak 2016: 1 Gbps, 25 us, 1000-packet
queues, Table 1, lines 62-72) pin that paper's values. docs/scenario-format.md lists every key and gives each
default's source."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    PrivateAttr,
    ValidationError,
    model_validator,
)
from pydantic_core import PydanticCustomError

from ..core.errors import FieldError, InputError, format_loc
from .eee import EeeConfig
from .power_table import PowerConfig
from ..core.userfile import read_toml
from ..core.units import parse_queue, parse_rate_bps, parse_size_bytes, parse_time_ps
from .transports import Dctcp, Ndp, TransportChoice, check_transports
from .elastictree.config import ElasticTree

__all__ = [
    "FlowEntry",
    "FlowsWorkload",
    "GeneratedWorkload",
    "MixWorkload",
    "PermutationWorkload",
    "RandomWorkload",
    "Routing",
    "Run",
    "Scenario",
    "StaticWorkload",
    "Tcp",
    "Topology",
    "WorkloadComponent",
    "apply_overrides",
    "load_scenario",
    "parse_set",
    "scenario_from_dict",
]


def _unit(parser: Any, allow_bare_int: bool = False) -> BeforeValidator:
    """A validator that parses a quantity with a unit; the error keeps the parser's hint (via ctx)."""

    def check(value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool) and (allow_bare_int or value == 0):
            return value  # zero needs no unit
        if isinstance(value, str) and value.strip().startswith("-"):
            raise InputError(f"must not be negative, got {value!r}", hint="write a positive quantity")
        return parser(value, "value")

    return BeforeValidator(check)


TimePs = Annotated[int, _unit(parse_time_ps), Field(ge=0)]
RateBps = Annotated[int, _unit(parse_rate_bps), Field(gt=0)]
SizeBytes = Annotated[int, _unit(parse_size_bytes), Field(ge=0)]
# A byte count that may also be written as a plain integer (MSS is customarily a bare number of bytes).
ByteCount = Annotated[int, _unit(parse_size_bytes, allow_bare_int=True), Field(ge=0)]
QueueLimit = Annotated[dict[str, int] | None, _unit(parse_queue)]
HostRef = Annotated[str | int, Field(union_mode="left_to_right")]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True, validate_default=True)


class Topology(_Model):
    kind: Literal["fattree", "leafspine", "clos", "expander", "rotornet", "selectornet", "opera"] = "fattree"
    k: int = Field(4, ge=2, description="fat-tree arity (pods); even")
    oversubscription: float = Field(1.0, ge=1.0, description="hosts per edge switch = k/2 x this")
    leaves: int = Field(4, ge=1)
    spines: int = Field(2, ge=1)
    hosts_per_leaf: int = Field(4, ge=1)
    # Folded Clos (kind = "clos"; topology/clos.py): tiers, each tier's radix (one number for all; unset: k) and
    # down:up ratio below the top (unset: oversubscription at the ToRs, 1:1 above). Static expander (kind =
    # "expander"; topology/expander.py): racks, uplinks per ToR, hosts_per_rack (unset: radix - uplinks, else 1),
    # the graph from graph_file (the public Opera simulator's format) or our generator seeded by graph_seed.
    tiers: int = Field(3, ge=2, le=4)
    radix: int | list[int] | None = None
    tier_oversubscription: list[float] | None = None
    uplinks: int = Field(3, ge=1)
    graph_file: str | None = None
    graph_seed: int = Field(0, ge=0)
    # Network defaults of a 10 Gb/s datacenter, each one's source in docs/scenario-format.md's table; the seed 003
    # scenarios pin Kaymak 2016's 1 Gbps, 25 us and 1000 packets. 10 Gb/s: the rate DCTCP's K = 65 is set for
    # (Alizadeh et al. 2010, section 3.4), the public Opera simulator's, the thesis's testbed NICs (seed 001 line 677).
    link_rate: RateBps = "10Gbps"  # type: ignore[assignment]
    link_delay: TimePs = "500ns"  # type: ignore[assignment]  # our choice: 100 m of fibre at about 5 ns/m
    # The delay of host links alone (unset: link_delay; circuit fabrics need hosts_per_rack); the public Opera
    # simulator's are 0 ns.
    host_link_delay: TimePs | None = None  # type: ignore[assignment]
    # Our choice: 500 x 1500 B = 750 KB per port, between the even share of a 4 MB shared-buffer 10 Gb/s switch
    # (24 ports, 167 KB; DCTCP paper Table 1) and the most one busy port may take of the shared buffer.
    queue: QueueLimit = "500pkt"  # type: ignore[assignment]
    host_queue: QueueLimit = "1000pkt"  # type: ignore[assignment]  # Linux's default txqueuelen
    frame_overhead: ByteCount = 0
    # Circuit fabrics (rotornet, selectornet; docs/circuit-engine.md). Defaults are our choices: 8 racks (the
    # thesis's RotorNet testbed, seed 001 line 831), one switch, a 1 ms uptime, the testbed switch's 150 us
    # reconfiguration (line 675), its 400 ns guard (line 663); link_rate and link_delay (the fibre to a
    # circuit switch) are the keys above.
    racks: int = Field(8, ge=2)
    circuit_switches: int = Field(1, ge=1)
    uptime: TimePs = "1ms"  # type: ignore[assignment]
    reconfig: TimePs = "150us"  # type: ignore[assignment]
    guard: TimePs = "400ns"  # type: ignore[assignment]
    prealloc: TimePs = 0  # type: ignore[assignment]
    # None: the thesis's switch of the kind (seed 001 line 472): selector v1 in SelectorNet and RotorNet, v2 in Opera
    circuit_switch: str | None = None
    tor_switch: str | None = "sn2700"  # our choice: the smaller packet switch of Table 2.1
    # Opera (kind = "opera"; docs/fabrics.md): circuit_switches is u and reconfig is r; epsilon unset computes
    # it from the schedule's worst low-latency path (greendcn.sim.topology.opera.epsilon_s); the schedule search
    # takes schedule_seed and search_moves (our choices, as `reproduce opera`).
    epsilon: TimePs | None = None  # type: ignore[assignment]
    # routing.scheme = "opera": flows below the cutoff are low-latency (hop by hop over the slice's expander),
    # the rest bulk via RotorLB; 15 MB is the public Opera simulator's cutoff for 108 racks, not the thesis's.
    cutoff: SizeBytes = "15MB"  # type: ignore[assignment]
    schedule_seed: int = Field(0, ge=0)
    search_moves: int = Field(300, ge=0)
    # how the matchings are drawn and ordered: "search" (ours, greendcn.sim.topology.opera) or "lifted" (the
    # public Opera simulator's generator: random matchings lifted from a base, the best of schedule_runs random
    # orders; greendcn.sim.topology.opera_lifted, docs/opera-paper.md)
    opera_schedule: Literal["search", "lifted"] = "search"
    schedule_runs: int = Field(1, ge=1)
    # Circuit fabrics: hosts under each rack's ToR, named S0.. as on the packet fabrics (host h in rack
    # h // hosts_per_rack), each linked to its ToR at link_rate with link_delay and the queues above. Unset (our
    # default): the racks themselves are the workload's endpoints (R0..), as before hosts existed there.
    hosts_per_rack: int | None = Field(None, ge=1)
    _base_dir: str | None = PrivateAttr(None)  # the scenario's folder, for a relative graph_file

    @property
    def circuit_switch_model(self) -> str:
        """The circuit switch's table id: the one given, else the thesis's for the kind (line 472)."""
        if self.circuit_switch is not None:
            return self.circuit_switch
        return "selector_v2" if self.kind == "opera" else "selector_v1"

    @model_validator(mode="after")
    def _check(self) -> Topology:
        if self.kind == "opera":
            cs, n = self.circuit_switches, self.racks
            if cs < 2:
                raise FieldError(
                    "circuit_switches",
                    f"Opera needs at least 2 circuit switches (one reconfigures while the others carry "
                    f"traffic), got {cs}",
                    hint="e.g. 4 for 12 racks, 6 for 108",
                )
            if n % cs:
                raise FieldError(
                    "circuit_switches",
                    f"{cs} circuit switches do not divide {n} racks: each switch holds racks / "
                    f"circuit_switches matchings",
                    hint="choose a divisor of topology.racks, e.g. 6 for 108",
                )
            if self.opera_schedule == "lifted":
                from .topology.opera_lifted import lift_plan

                try:
                    lift_plan(n)
                except InputError as e:
                    raise FieldError("opera_schedule", str(e).split(": ", 1)[1], hint=e.hint) from None
            if self.epsilon is not None:
                one_packet = 1500 * 8 * 10**12 // self.link_rate
                if self.epsilon < one_packet:
                    raise FieldError(
                        "epsilon",
                        f"{self.epsilon} ps is shorter than one 1500-byte packet's transmission "
                        f"({one_packet} ps at the link rate)",
                        hint="leave topology.epsilon unset to compute it from the worst path",
                    )
        if self.kind in ("rotornet", "selectornet", "opera"):
            if self.host_link_delay is not None and not self.hosts_per_rack:
                raise FieldError(
                    "host_link_delay",
                    f"sets the delay of host links; this {self.kind} fabric has none (its racks are the endpoints)",
                    hint="set topology.hosts_per_rack, or remove topology.host_link_delay",
                )
            if self.kind != "opera" and self.uptime <= 0:
                raise FieldError("uptime", "must be a positive time", hint="write a time like '1ms'")
            if self.kind != "opera" and self.guard >= self.uptime:
                raise FieldError(
                    "guard",
                    f"a guard of {self.guard} ps is not shorter than the uptime ({self.uptime} ps)",
                    hint="lower topology.guard or raise topology.uptime",
                )
            if self.kind == "selectornet" and self.racks & (self.racks - 1):
                raise FieldError("racks", f"SelectorNet needs 2^k racks, got {self.racks}", hint="e.g. 16")
            if self.kind == "rotornet" and self.racks % 2:
                raise FieldError(
                    "racks",
                    f"RotorNet's matchings need an even number of racks, got {self.racks}",
                    hint="e.g. 8",
                )
            if self.kind == "rotornet":
                cs, n = self.circuit_switches, self.racks
                if (n - 1) % cs and n % cs:
                    raise FieldError(
                        "circuit_switches",
                        f"{cs} rotor switches cannot share the {n - 1} matchings of {n} racks evenly "
                        f"(nor {n} with the identity)",
                        hint=f"use a divisor of {n - 1} or of {n}",
                    )
            from ..power.switches import get_switch

            for name in ("circuit_switch", "tor_switch"):
                value = getattr(self, name)
                if value is not None:
                    try:
                        get_switch(value)
                    except InputError as e:
                        raise FieldError(
                            name, str(e), hint="a switch id of the switch table (greendcn energy switches)"
                        ) from None
            if self.hosts_per_rack is not None and self.tor_switch is not None:
                # a ToR's ports carry its uplinks (one per circuit switch) and its hosts
                ports = get_switch(self.tor_switch).ports
                if self.circuit_switches + self.hosts_per_rack > ports:
                    raise FieldError(
                        "hosts_per_rack",
                        f"{self.hosts_per_rack} hosts and {self.circuit_switches} uplinks need "
                        f"{self.hosts_per_rack + self.circuit_switches} ports; the ToR ({self.tor_switch}) has "
                        f"{ports}",
                        hint=f"at most {ports - self.circuit_switches} hosts per rack, or a larger "
                        "topology.tor_switch",
                    )
        if self.kind == "clos":
            from .topology.clos import shape_of

            shape_of(self)
        if self.kind == "expander":
            from .topology.expander import check_keys

            check_keys(self)
        # Sizing keys of the other kind are ignored, not refused: `--set topology.kind=leafspine` on a fat-tree
        # file must work without deleting its k (our choice, documented in docs/scenario-format.md).
        if self.kind == "fattree":
            if self.k % 2:
                raise FieldError(
                    "k", f"must be even, got {self.k}", hint="a k-ary fat-tree needs an even k: 4, 6, 8 ..."
                )
            half = self.k // 2
            if abs(half * self.oversubscription - round(half * self.oversubscription)) > 1e-9:
                raise FieldError(
                    "oversubscription",
                    f"{self.oversubscription} gives a fractional number of hosts per edge "
                    f"switch ({half} x {self.oversubscription})",
                    hint=f"choose a ratio r with {half} x r a whole number",
                )
        return self


class Routing(_Model):
    # single, ecmp, rps: packet-switched fabrics; direct, rotorlb (RotorNet) and selector (SelectorNet):
    # circuit fabrics (docs/circuit-engine.md)
    scheme: Literal["single", "ecmp", "rps", "direct", "rotorlb", "selector", "opera"] = "single"
    # Which equal-cost next hop "single" takes: "hashed" (a hash of switch and destination; our default, as
    # before) or "first" (the lowest-numbered port, ns-3 global routing's choice; seed 003's scenarios use it).
    single_path: Literal["first", "hashed"] = "hashed"
    # Valiant load balancing on the static expander (docs/scenario-format.md, "Valiant load balancing"): data of
    # flows larger than vlb_min_size goes through an intermediate rack, one of up to vlb_intermediates drawn per
    # flow; defaults are the public Opera simulator's (20 draws, flows above 100,000 bytes).
    vlb: bool = False
    vlb_intermediates: int = Field(20, ge=1, le=1000)  # at most 1000: our bound (4 bytes per draw and flow)
    vlb_min_size: ByteCount = 100_000
    # Opera (scheme "opera"): NDP's low-latency packets each take one of up to this many paths listed per slice
    # and rack pair, longer ones included, as the public Opera simulator's topology files list them
    # (docs/scenario-format.md, "Listed paths on Opera"); 0: they spray over the slice's shortest first hops.
    opera_paths: int = Field(0, ge=0, le=64)  # at most 64: our bound (a path list's count fits a byte)


class Tcp(_Model):
    # All our choices (seed 003 names only "TCP" and 1500-byte packets: 1448 + 52 header bytes = 1500).
    mss: ByteCount = Field(1448, gt=0)
    header_bytes: ByteCount = 52
    initial_window: int = Field(10, ge=1)
    # Linux's TCP_RTO_MIN (200 ms); 1 s (RFC 6298's floor, used by the paper scenarios, which pin it) makes a
    # single timeout dominate every flow at 10 Gb/s (docs/scenario-format.md)
    min_rto: TimePs = "200ms"  # type: ignore[assignment]
    initial_rto: TimePs = "1s"  # type: ignore[assignment]  # RFC 6298 (2.1), Linux's TCP_TIMEOUT_INIT
    max_rto: TimePs = "60s"  # type: ignore[assignment]  # RFC 6298 (2.5): at least 60 s
    dupack_threshold: int = Field(3, ge=1)
    max_window: SizeBytes = "128KB"  # type: ignore[assignment]
    delayed_ack: bool = True
    delayed_ack_timeout: TimePs = "1ms"  # type: ignore[assignment]
    # Our default: no handshake (as 0.1). true: the first data packet leaves one unloaded round trip of
    # header-only packets after the start (a SYN and SYN-ACK; not simulated as packets), as ns-3's TCP opens.
    handshake: bool = False
    # Slow start grows the window by the bytes each ACK acknowledges, at most this many segments per ACK: 2 is
    # RFC 3465's limit (our default, as 0.1); 1 is one segment per ACK, as ns-3's NewReno grows.
    slow_start_segments_per_ack: int = Field(2, ge=1)
    # "dupack" (our default, as before): fast retransmit after dupack_threshold duplicate ACKs. "adaptive": a
    # fast retransmission found spurious raises the threshold to the reordering seen (at most max_reordering,
    # Linux's 300) and undoes the window cut, as Linux does (docs/transports.md).
    loss_detection: Literal["dupack", "adaptive"] = "dupack"
    max_reordering: int = Field(300, ge=1)

    @model_validator(mode="after")
    def _check(self) -> Tcp:
        # The engine refuses these too, but under its own names (min_rto_ps); here the user's key is named.
        for name in ("min_rto", "initial_rto") + (("delayed_ack_timeout",) if self.delayed_ack else ()):
            if getattr(self, name) <= 0:
                raise FieldError(name, "must be a positive time, got 0", hint="write a time like '200ms'")
        if self.max_rto < self.min_rto:
            from ..core.units import PS_PER_S, format_time

            raise FieldError(
                "max_rto",
                f"must be at least min_rto ({format_time(self.max_rto / PS_PER_S)} < "
                f"{format_time(self.min_rto / PS_PER_S)})",
                hint="raise tcp.max_rto or lower tcp.min_rto",
            )
        if self.max_window < self.mss:
            raise FieldError(
                "max_window",
                f"must hold at least one segment of mss = {self.mss} bytes, got {self.max_window} bytes",
                hint="write a window like '128KB'",
            )
        return self


class _WorkloadBase(_Model):
    # each kind's model is built when a scenario first uses that kind (see Workload below)
    model_config = ConfigDict(defer_build=True)

    start_jitter: TimePs = 0  # type: ignore[assignment]  # 0: every flow starts at 0 (our choice)


class StaticWorkload(_WorkloadBase):
    """Seed 003's static scenario: N long flows S0..S(N-1) -> S15 and one short flow S0 -> S15."""

    kind: Literal["static"] = "static"
    long_flows: int = Field(5, ge=0)
    long_size: SizeBytes = "10MB"  # type: ignore[assignment]
    short_size: SizeBytes = "200KB"  # type: ignore[assignment]
    destination: HostRef | None = None  # default: the last host (S15 for k=4)


class RandomWorkload(_WorkloadBase):
    """Seed 003's randomized scenario: short and long flows between random pairs, src != dst."""

    kind: Literal["random"]
    long_flows: int = Field(5, ge=0)
    short_flows: int = Field(20, ge=0)
    long_size: SizeBytes = "10MB"  # type: ignore[assignment]
    short_size: SizeBytes = "200KB"  # type: ignore[assignment]


class PermutationWorkload(_WorkloadBase):
    """Every host sends one flow to a distinct other host (a random derangement)."""

    kind: Literal["permutation"] = "permutation"
    size: SizeBytes = "10MB"  # type: ignore[assignment]
    flow_class: str = "long"


class FlowEntry(_Model):
    model_config = ConfigDict(defer_build=True)

    src: HostRef
    dst: HostRef
    size: SizeBytes
    start: TimePs = 0  # type: ignore[assignment]
    flow_class: str = Field("flow", alias="class")
    transport: Literal["tcp", "udp", "dctcp", "ndp"] = "tcp"
    rate: RateBps | None = None  # UDP constant bit rate on the wire; required for udp

    @model_validator(mode="after")
    def _udp_rate(self) -> FlowEntry:
        if self.transport == "udp" and self.rate is None:
            raise FieldError("rate", "a UDP flow needs a sending rate", hint="add rate = '500Mbps'")
        return self


class FlowsWorkload(_WorkloadBase):
    """An explicit list of flows, inline (`[[workload.flows]]`) and/or from a CSV file."""

    kind: Literal["flows"]
    flows: list[FlowEntry] = []
    file: str | None = None  # CSV src,dst,size_bytes,start_s[,class]; relative to the scenario file


class WorkloadComponent(_Model):
    """Generated flows (sim/workload/generate.py, docs/workloads.md): arrivals (`kind`), sizes and a pattern."""

    model_config = ConfigDict(defer_build=True)

    kind: Literal["poisson", "count", "all_at_once"]
    # websearch | datamining | hadoop | a CDF file: size_bytes,cumulative_probability
    sizes: str = "websearch"
    size: SizeBytes | None = None  # every flow this size instead of `sizes`
    sampling: Literal["points", "interpolate"] = "points"
    draws: Literal["stratified", "independent"] = "stratified"
    load: float | None = None  # of each sending endpoint's link rate (or of the bisection, load_on)
    load_on: Literal["host", "bisection"] = "host"
    duration: TimePs | None = None  # type: ignore[assignment]
    count: int | None = Field(None, ge=1)
    start: TimePs = 0  # type: ignore[assignment]
    period: TimePs | None = None  # type: ignore[assignment]
    pattern: Literal["uniform", "all_to_all", "permutation", "stride", "bijection", "incast", "hotspot"] = (
        "uniform"
    )
    inter_rack: bool = False
    rack_local: float | None = Field(None, ge=0.0, le=1.0)
    stride: int | None = None
    fan_in: int | None = None
    hot_racks: float | None = Field(None, gt=0.0, lt=1.0)
    hot_share: float | None = Field(None, gt=0.0, le=1.0)
    flow_class: str = Field("flow", alias="class")

    @model_validator(mode="after")
    def _check(self) -> WorkloadComponent:
        from .workload.generate import check_component

        check_component(self)
        return self


class GeneratedWorkload(WorkloadComponent):
    start_jitter: TimePs = 0  # type: ignore[assignment]


class MixWorkload(_WorkloadBase):
    """Several generated components in one run (`[[workload.components]]`), each with its own class."""

    kind: Literal["mix"]
    components: list[WorkloadComponent] = Field(min_length=1)

    @model_validator(mode="after")
    def _distinct(self) -> MixWorkload:
        seen: set[str] = set()
        for i, c in enumerate(self.components):
            if c.flow_class in seen:
                raise FieldError(
                    f"components[{i}].class",
                    f"class {c.flow_class!r} is taken by an earlier component",
                    hint="give each component its own class name",
                )
            seen.add(c.flow_class)
        return self


GENERATED_KINDS = ("poisson", "count", "all_at_once")


def _workload_kind(value: Any) -> Any:
    # A workload without `kind` is a permutation (our default, as the scenario's default workload).
    kind = value.get("kind", "permutation") if isinstance(value, dict) else getattr(value, "kind", None)
    return "generated" if kind in GENERATED_KINDS else kind


_WORKLOADS: dict[Any, type[BaseModel]] = {
    "static": StaticWorkload,
    "random": RandomWorkload,
    "permutation": PermutationWorkload,
    "flows": FlowsWorkload,
    "generated": GeneratedWorkload,
    "mix": MixWorkload,
}


def _validate_workload(value: Any) -> Any:
    """The workload section, validated by its kind's model alone: the scenario's validator holds none of the
    kinds' schemas, so only the kinds a run uses are built (their models defer_build; about 37 M instructions
    of a one-flow `simulate`, BENCHMARKS.md). Errors keep their locations under `workload`."""
    kind = _workload_kind(value)
    model = _WORKLOADS.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise PydanticCustomError("union_tag_invalid", "workload.kind is not one of the kinds")
    return model.model_validate(value)


Workload = Annotated[Any, PlainValidator(_validate_workload)]


class Run(_Model):
    seed: int = Field(1, ge=0)
    stop_time: TimePs | None = None
    # An observation window [start, end) in simulated time: energy is reported over it too, every device
    # drawing its power over the whole window (docs/scenario-format.md, "When a run ends").
    window: tuple[TimePs, TimePs] | None = None
    # Upper edges of the FCT size buckets (docs/metrics.md); our defaults: < 100 KB, 100 KB-1 MB, 1-10 MB, >= 10 MB.
    size_buckets: list[SizeBytes] = ["100KB", "1MB", "10MB"]  # type: ignore[assignment]

    @model_validator(mode="after")
    def _check(self) -> Run:
        if self.window is not None:
            start, end = self.window
            if end <= start:
                raise FieldError("window", "must end after it starts", hint='write window = ["10ms", "60ms"]')
            if self.stop_time is not None and end > self.stop_time:
                raise FieldError(
                    "window",
                    "ends after run.stop_time: the run would stop before the window closes",
                    hint="end the window at or before run.stop_time, or raise run.stop_time",
                )
        b = self.size_buckets
        if any(x <= 0 for x in b) or any(y <= x for x, y in zip(b, b[1:])):
            raise FieldError(
                "size_buckets",
                "must be positive sizes in increasing order",
                hint='e.g. ["100KB", "1MB", "10MB"]',
            )
        return self


class Scenario(_Model):
    name: str = "scenario"
    topology: Topology = Topology()
    routing: Routing = Routing()
    tcp: Tcp = Tcp()
    # which transport each flow class runs, and their settings (docs/transports.md)
    transport: TransportChoice = TransportChoice()
    dctcp: Dctcp = Dctcp()
    ndp: Ndp = Ndp()
    # Our default: every host sends one 10 MB flow to a distinct other host (docs/scenario-format.md)
    workload: Workload = Field(default_factory=lambda: PermutationWorkload(kind="permutation"))
    run: Run = Run()
    power: PowerConfig = PowerConfig()  # the models that price the run (greendcn.power, docs/models.md)
    eee: EeeConfig = EeeConfig()  # Energy-Efficient Ethernet on the links (docs/energy-saving.md)
    elastictree: ElasticTree = ElasticTree()  # switch and link sleeping (docs/energy-saving.md)
    base_dir: str | None = Field(None, exclude=True)  # folder of the file, for relative workload.file

    # The scenario as written (units as text), so that overrides are validated exactly like the file.
    _raw: dict[str, Any] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _scheme_fits_fabric(self) -> Scenario:
        # On Opera, "opera" routes the low-latency class over the slices' expanders; "rotorlb" runs all as bulk.
        circuit = {
            "rotornet": ("rotorlb", "direct"),
            "selectornet": ("selector",),
            "opera": ("opera", "rotorlb"),
        }
        allowed = circuit.get(self.topology.kind, ("single", "ecmp", "rps"))
        if "scheme" not in self.routing.model_fields_set and self.topology.kind in circuit:
            # unset on a circuit fabric: the fabric's own routing (our choice), not the packet fabrics' default
            object.__setattr__(self, "routing", self.routing.model_copy(update={"scheme": allowed[0]}))
        if self.routing.scheme not in allowed:
            raise FieldError(
                "routing.scheme",
                f"{self.routing.scheme!r} does not run on a {self.topology.kind} fabric",
                hint=f"set routing.scheme to one of {', '.join(allowed)}",
            )
        if self.routing.vlb:
            _check_vlb(self)
        if self.routing.opera_paths and self.routing.scheme != "opera":
            raise FieldError(
                "routing.opera_paths",
                f"listed paths route Opera's low-latency class; routing.scheme is {self.routing.scheme!r}",
                hint='set routing.opera_paths = 0, or topology.kind = "opera" with routing.scheme = "opera"',
            )
        check_transports(self)
        if self.topology.kind == "expander" and self.topology.graph_file:
            from .topology.expander import check_file

            self.topology._base_dir = self.base_dir
            check_file(self.topology, self.base_dir)
        if self.eee.enabled and self.topology.kind in circuit:
            raise FieldError(
                "eee.enabled",
                f"Energy-Efficient Ethernet runs on packet fabrics, not on a {self.topology.kind} fabric",
                hint="set eee.enabled = false, or topology.kind = fattree or leafspine",
            )
        if self.elastictree.enabled and self.topology.kind != "fattree":
            raise FieldError(
                "elastictree.enabled",
                f"ElasticTree plans fat-trees; this topology is {self.topology.kind}",
                hint='set topology.kind = "fattree" or elastictree.enabled = false',
            )
        return self

    @property
    def raw(self) -> dict[str, Any]:
        """The scenario as written, before parsing (a copy)."""
        return _deepcopy(self._raw)

    def with_overrides(self, overrides: list[str] | dict[str, Any]) -> Scenario:
        """A copy with `--set` style overrides applied and validated again."""
        return scenario_from_dict(apply_overrides(self._raw, overrides), base_dir=self.base_dir)


def _check_vlb(sc: Scenario) -> None:
    """Valiant load balancing runs on the static expander, over spreading schemes; each refusal names its key."""
    if sc.topology.kind != "expander":
        raise FieldError(
            "routing.vlb",
            f"Valiant load balancing routes through intermediate racks of a static expander; this topology is "
            f"{sc.topology.kind}",
            hint='set routing.vlb = false, or topology.kind = "expander"',
        )
    if sc.routing.scheme == "single":
        raise FieldError(
            "routing.vlb",
            "Valiant load balancing spreads a flow over intermediate racks; routing.scheme = 'single' fixes one "
            "path per destination",
            hint='set routing.scheme = "rps" (an intermediate per packet) or "ecmp" (one per flow)',
        )


def _deepcopy(d: Any) -> Any:
    import copy

    return copy.deepcopy(d)


def parse_set(item: str) -> tuple[str, Any]:
    """'tcp.min_rto=1ms' -> ('tcp.min_rto', '1ms'); values are read as TOML when they can be (8, true)."""
    if "=" not in item:
        raise InputError(f"--set {item!r}: expected KEY=VALUE", hint="for example --set routing.scheme=rps")
    key, value = item.split("=", 1)
    key = key.strip()
    if not key or any(not part for part in key.split(".")):
        raise InputError(f"--set {item!r}: empty key", hint="write a dotted path like tcp.min_rto=1ms")
    try:
        parsed: Any = tomllib.loads(f"v = {value}")["v"]
    except tomllib.TOMLDecodeError:
        parsed = value.strip()
    return key, parsed


def apply_overrides(raw: dict[str, Any], overrides: list[str] | dict[str, Any] | None) -> dict[str, Any]:
    """Set dotted keys in a raw scenario dict (a copy). Validation happens afterwards, as for the file."""
    out = _deepcopy(raw)
    if not overrides:
        return out
    items = [parse_set(o) for o in overrides] if isinstance(overrides, list) else list(overrides.items())
    for key, value in items:
        node: Any = out
        parts = key.split(".")
        for i, part in enumerate(parts):
            if isinstance(node, list):  # a list of tables ([[workload.components]]): the part is an index
                idx = _list_index(node, part, ".".join(parts[:i]), key)
                if i == len(parts) - 1:
                    node[idx] = value
                    break
                child = node[idx]
            elif i == len(parts) - 1:
                node[part] = value
                break
            else:
                child = node.setdefault(part, {})
            if not isinstance(child, (dict, list)):
                raise InputError(
                    f"{'.'.join(parts[: i + 1])} is a value, not a section; cannot set {key}",
                    hint="check the dotted path against docs/scenario-format.md",
                )
            node = child
    return out


def _list_index(items: list[Any], part: str, where: str, key: str) -> int:
    """The entry `part` of the list at `where`, counted from 0 as a number in the dotted key."""
    n = len(items)
    if not part.isdigit() or int(part) >= n:
        have = f"entries 0..{n - 1}" if n else "no entries"
        raise InputError(
            f"{where}.{part}: {where} is a list with {have}; cannot set {key}",
            hint=f"index the list by number, e.g. {where}.0.KEY; entries are counted from 0",
        )
    return int(part)


# Entries pydantic adds to an error's location for union members and wrapped validators.
_TYPE_TAGS = {"str", "int", "float", "bool", "none"}


def _error_loc(loc: tuple[Any, ...]) -> tuple[str | int, ...]:
    """pydantic's location without the tags it inserts (validator and type names)."""
    parts: list[str | int] = []
    for item in loc:
        if isinstance(item, int):
            parts.append(item)
        elif isinstance(item, str) and (
            item in _TYPE_TAGS or item.startswith(("function-", "union[", "dict["))
        ):
            continue
        else:
            parts.append(str(item))
    return tuple(parts)


def _to_input_error(err: ValidationError, origin: str) -> InputError:
    first = err.errors(include_url=False)[0]
    loc = _error_loc(tuple(first["loc"]))
    path = format_loc(loc) or "scenario"
    cause = (first.get("ctx") or {}).get("error")
    hint = getattr(cause, "hint", None)
    kind = first["type"]
    if kind == "extra_forbidden":
        msg = f"unknown key {path!r}"
        hint = "check the spelling against docs/scenario-format.md"
    elif kind == "union_tag_invalid" or kind == "union_tag_not_found":
        msg = f"{path}.kind: must be one of static, random, permutation, flows, poisson, count, all_at_once, mix"
        hint = "set workload.kind"
    elif isinstance(cause, FieldError) and not loc:
        # a check across sections of the scenario: the field is a dotted key from the top
        msg = f"{cause.field}: {cause}"
        loc = tuple(cause.field.split("."))
    elif isinstance(cause, FieldError):
        msg = f"{path}.{cause.field}: {cause}"
        loc = (*loc, cause.field)
    elif isinstance(cause, Exception):
        text = str(cause)
        msg = f"{path}: {text.removeprefix('value: ')}"
    else:
        msg = f"{path}: {first['msg']}"
    if not hint:
        hint = "see docs/scenario-format.md for the allowed values"
    return InputError(f"{origin}: {msg}" if origin else msg, hint=hint, loc=loc)


MAX_DEPTH = 16  # a scenario needs four levels (workload.flows[i].key); deeper is not a scenario


def _check_depth(raw: Any, origin: str) -> None:
    """Refuse tables or arrays nested deeper than MAX_DEPTH, naming the key where it happens, before anything
    recursive (copying, validation) sees them: ten thousand `[a.a.a...]` levels would exhaust Python's stack."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(raw, ())]
    while stack:
        node, loc = stack.pop()
        if len(loc) > MAX_DEPTH:
            where = format_loc(loc[:4]) + "..."
            raise InputError(
                f"{origin or 'scenario'}: {where}: tables or arrays nested more than {MAX_DEPTH} levels deep",
                hint="a scenario's keys are at most four levels deep (docs/scenario-format.md)",
                loc=loc[:MAX_DEPTH],
            )
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        stack.extend((v, (*loc, k)) for k, v in items if isinstance(v, (dict, list)))


def scenario_from_dict(raw: dict[str, Any], base_dir: str | None = None, origin: str = "") -> Scenario:
    """Validate a raw scenario dict; any problem becomes ONE InputError naming the dotted field."""
    _check_depth(raw, origin)
    try:
        s = Scenario.model_validate({**raw, "base_dir": base_dir})
    except ValidationError as e:
        raise _to_input_error(e, origin) from None
    except RecursionError:
        raise InputError(
            f"{origin or 'scenario'}: values nested too deeply", hint="see docs/scenario-format.md"
        ) from None
    s._raw = _deepcopy(raw)
    return s


def load_scenario(path: str | Path, overrides: list[str] | dict[str, Any] | None = None) -> Scenario:
    """Read a scenario TOML file and apply `--set` overrides."""
    p = Path(path)
    # an empty file is the scenario of all defaults, as a file of comments only is (docs/scenario-format.md)
    raw = read_toml(p, "scenario", max_bytes=16 * 2**20, kind="a TOML scenario", allow_empty=True)
    _check_depth(raw, p.name)
    raw.setdefault("name", p.stem)
    return scenario_from_dict(
        apply_overrides(raw, overrides), base_dir=str(p.parent.resolve()), origin=p.name
    )
