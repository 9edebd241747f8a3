//! The input of a circuit-fabric run: endpoints (racks or hosts) with one uplink per circuit switch, the
//! switches' cyclic schedules, the senders' TDMA settings and timing error, the routing mode and the flows.
//! Units as in the packet engine: picoseconds, bytes, bits per second. docs/circuit-engine.md is the contract.

use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SwitchKind {
    /// Cycles through its matchings in the order of `slots`; every port follows the same matching.
    Rotor,
    /// Holds a fixed set of hard-wired matchings; a slot may pick one for all ports or one per input port.
    Selector,
}

/// Which matching a slot uses: one index for every port, or one per input port (selector switches only).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Selection {
    All(u32),
    PerPort(Vec<u32>),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlotSpec {
    pub matching: Selection,
    /// Time the circuits of this slot stay up.
    pub uptime_ps: u64,
    /// Reconfiguration gap after the uptime: no circuit at all.
    pub reconfig_ps: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchSpec {
    pub kind: SwitchKind,
    /// Each matching maps input port p (endpoint p) to output port matching[p] (endpoint matching[p]).
    pub matchings: Vec<Vec<u32>>,
    pub slots: Vec<SlotSpec>,
    /// The schedule's cycle starts at this time (all of the switch's cycles are shifted by it).
    #[serde(default)]
    pub phase_ps: u64,
}

/// How endpoints move traffic over the circuits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CircuitRouting {
    /// One hop only: a flow waits for the circuit to its destination.
    Direct,
    /// RotorLB (seed 001, Algorithm 1): direct traffic plus two-hop relaying negotiated by offer/accept.
    Rotorlb,
    /// SelectorNet multi-hop: matchings are rotations by powers of two; a packet takes one hop per set bit
    /// of its offset (destination - source mod N), using whichever of those matchings is up first.
    Selector,
    /// Opera (seed 001 section 2.6): flows below `opera.cutoff_bytes` go hop by hop over the current slice's
    /// expander (`opera.next_switch`) at high priority, re-routed when the slice changes under them; larger
    /// flows go by RotorLB at the lowest priority.
    Opera,
}

/// Opera's low-latency routing: time is cut into slices of `slice_ps` from `origin_ps`, `slices` per cycle;
/// `next_switch[(slice * N + at) * N + dst]` is the circuit switch whose current circuit from endpoint `at`
/// lies on a shortest path to `dst` in that slice (255: no path).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperaSpec {
    pub slice_ps: u64,
    #[serde(default)]
    pub origin_ps: u64,
    pub slices: u32,
    pub cutoff_bytes: u64,
    pub next_switch: Vec<u8>,
    /// NDP's packets spray (docs/circuit-engine.md, routing "opera"): `spray[(slice * N + at) * N + dst]` has
    /// bit s set when switch s's current circuit from `at` starts a shortest path to `dst` in that slice (0
    /// exactly where `next_switch` is 255). With it, every NDP packet (data, trimmed header, ACK, NACK, pull)
    /// leaves each endpoint by one of those switches drawn at random; others keep `next_switch`. Absent: none
    /// sprays.
    #[serde(default)]
    pub spray: Option<Vec<u64>>,
    /// Listed paths (docs/circuit-engine.md, routing "opera"): with k > 0, every NDP packet takes one of up to
    /// k paths listed per (slice, source endpoint, destination), drawn at random where it enters the fabric
    /// and followed switch by switch (the public Opera simulator's label switching); `spray` then goes
    /// unused. 0 (the default): NDP sprays or follows `next_switch`.
    #[serde(default)]
    pub paths: u8,
    /// The slices' low-latency circuits the listed paths are drawn over: `circuits[(slice * N + at) * S + s]`
    /// is the endpoint switch s's circuit from `at` reaches in that slice, u32::MAX where s carries none
    /// (it reconfigures in the slice, or holds `at` to itself). Required with `paths`.
    #[serde(default)]
    pub circuits: Option<Vec<u32>>,
}

/// The sender's TDMA: for a slot whose circuits are up at the switch over [start, start + uptime), the
/// sending window is [start - lead, start + uptime - guard - lead) with lead = prealloc + delay (senders are
/// synchronised to the switch and lead it by the fibre delay: our choice).
/// The send-to-wire lag of every packet is lag + Exp(jitter_mean) + (with probability stall_prob) a stall
/// (the parameters of greendcn.host.tdma.model.LagLaw, so a probe of a real host can drive a run).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TdmaSpec {
    pub guard_ps: u64,
    pub prealloc_ps: u64,
    pub lag_ps: u64,
    pub jitter_mean_ps: u64,
    pub stall_prob: f64,
    pub stall_ps: u64,
    /// "exponential" or "fixed" stall lengths (of mean / exactly `stall_ps`).
    pub stall_law: String,
}

impl Default for TdmaSpec {
    fn default() -> Self {
        TdmaSpec {
            guard_ps: 0,
            prealloc_ps: 0,
            lag_ps: 0,
            jitter_mean_ps: 0,
            stall_prob: 0.0,
            stall_ps: 0,
            stall_law: "exponential".into(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CircuitTransport {
    #[default]
    Datagram,
    Tcp,
    /// NDP (crate::ndp): on Opera's low-latency class with trimming at the ToR uplinks' low-latency queues;
    /// bulk traffic (any routing) from its source ToR's queue, untrimmed, pulls back the way bulk ACKs go.
    Ndp,
    /// DCTCP (TCP NewReno with crate::dctcp's ECN response): marking at K on Opera's ToR uplinks' low-latency
    /// queues, and for bulk traffic on the source ToR's queue for the destination.
    Dctcp,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CircuitFlowSpec {
    pub id: u64,
    /// Endpoints, or hosts when the spec has `hosts`.
    pub src: u32,
    pub dst: u32,
    pub size_bytes: u64,
    #[serde(default)]
    pub start_ps: u64,
    /// A sending-rate cap (a scheduler's allocation); `None`: the flow is backlogged from its start.
    #[serde(default)]
    pub rate_bps: Option<u64>,
    /// "tcp" sends the flow with NewReno (`tcp`): on Opera's low-latency class hop by hop, ACKs back over the
    /// slices' paths; bulk traffic (any routing) from its source ToR's queue, ACKs back over the circuits (or
    /// Opera's low-latency class). "dctcp" likewise with DCTCP. "ndp" with NDP (`ndp`: receiver pulls; headers
    /// trimmed on Opera's low-latency class, bulk packets never). "datagram" (the default) sends each byte once.
    #[serde(default)]
    pub transport: CircuitTransport,
    /// Selector routing: the hops as offsets (powers of two, distinct, summing to dst - src mod N), in the
    /// order taken; by default the offset's bits from the largest down.
    #[serde(default)]
    pub route_offsets: Option<Vec<u32>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PacketSpec {
    /// Payload bytes per data packet (UDP-style datagrams: no acknowledgements, no retransmission).
    pub payload_bytes: u32,
    pub header_bytes: u32,
    /// Bytes on the wire of a RotorLB offer or accept message.
    pub control_bytes: u32,
    /// Bytes added to every packet on the wire (preamble, FCS, gap).
    pub frame_overhead_bytes: u32,
}

impl Default for PacketSpec {
    fn default() -> Self {
        PacketSpec {
            payload_bytes: 1472,
            header_bytes: 28,
            control_bytes: 64,
            frame_overhead_bytes: 24,
        }
    }
}

/// Hosts behind each endpoint's ToR (docs/circuit-engine.md, "Hosts"): host h sits under endpoint
/// h / per_endpoint and is joined to it by a full-duplex link: the host's NIC (a drop-tail queue limited by
/// `nic_queue`, serialising at `rate_bps`) and the ToR's port down to the host (limited by `tor_queue`), each
/// with `delay_ps` of propagation. Flows then name hosts (0 .. endpoints x per_endpoint) instead of endpoints.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostsSpec {
    pub per_endpoint: u32,
    pub rate_bps: u64,
    #[serde(default)]
    pub delay_ps: u64,
    #[serde(default)]
    pub nic_queue: Option<crate::spec::QueueLimit>,
    #[serde(default)]
    pub tor_queue: Option<crate::spec::QueueLimit>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CircuitSpec {
    #[serde(default)]
    pub seed: u64,
    pub endpoints: u32,
    pub link_rate_bps: u64,
    /// One-way propagation delay of an endpoint's fibre to a circuit switch (each way).
    #[serde(default)]
    pub delay_ps: u64,
    pub switches: Vec<SwitchSpec>,
    pub routing: CircuitRouting,
    /// Required with `routing = "opera"`.
    #[serde(default)]
    pub opera: Option<OperaSpec>,
    #[serde(default)]
    pub tdma: TdmaSpec,
    #[serde(default)]
    pub packet: PacketSpec,
    /// NewReno settings of TCP and DCTCP flows.
    #[serde(default)]
    pub tcp: crate::spec::TcpSpec,
    /// NDP settings of NDP flows (Opera's low-latency class with transport "ndp"): `queue` limits each uplink's
    /// low-latency data queue, beyond which NDP data is trimmed to its header; `pull_pacer`: one pacer per
    /// receiving host (per endpoint without hosts, the default) or one per flow.
    #[serde(default)]
    pub ndp: crate::spec::NdpSpec,
    /// DCTCP settings of DCTCP flows: `k_packets` is the marking threshold on each uplink's low-latency data
    /// queue (Opera) and on each source ToR's bulk queue per destination.
    #[serde(default)]
    pub dctcp: crate::spec::DctcpSpec,
    /// Hosts behind the endpoints; absent: the endpoints themselves are the flows' sources and destinations.
    #[serde(default)]
    pub hosts: Option<HostsSpec>,
    #[serde(default)]
    pub flows: Vec<CircuitFlowSpec>,
    #[serde(default)]
    pub stop_ps: Option<u64>,
    #[serde(default)]
    pub stats_window_ps: Option<u64>,
}
