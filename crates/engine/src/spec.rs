//! The engine's input: a flat network (nodes, links, queues), transport settings and flows.
//! Python builds this from a scenario (`greendcn.topology`, `greendcn.workload`) and hands it over as JSON.
//! Units are fixed here and nowhere else: times in picoseconds, sizes in bytes, rates in bits per second.

use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    Host,
    Switch,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
    pub kind: NodeKind,
}

/// A drop-tail limit on one output queue: in packets or in bytes; `None` in the link means unlimited.
/// The limit counts every packet held by the port, the one being serialized included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
}

/// A full-duplex point-to-point link between nodes `a` and `b`. Direction 2*i is a->b, 2*i+1 is b->a.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub a: u32,
    pub b: u32,
    pub rate_bps: u64,
    pub delay_ps: u64,
    /// Output queue of `a` onto this link.
    #[serde(default)]
    pub queue_a: Option<QueueLimit>,
    /// Output queue of `b` onto this link.
    #[serde(default)]
    pub queue_b: Option<QueueLimit>,
}

/// Which of the equal-cost next hops `Routing::Single` takes at each switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SinglePath {
    /// The lowest-numbered equal-cost port (ports are numbered in link order): every flow to hosts behind the
    /// same switches takes the same first path, as ns-3's global routing without ECMP does.
    First,
    /// A hash of (switch, destination host): destinations spread over the uplinks, one fixed path each.
    #[default]
    Hashed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Routing {
    /// One fixed shortest path per destination: each switch picks the same next hop for every packet to it.
    Single,
    /// Per-flow hash over (src, dst, flow id) at each switch.
    Ecmp,
    /// Random packet spraying: a uniform choice among equal-cost next hops for every packet.
    Rps,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    Tcp,
    Udp,
    /// TCP NewReno with DCTCP's ECN response (crate::dctcp, docs/transports.md).
    Dctcp,
    /// NDP: trimmed headers, receiver pulls (crate::ndp, docs/transports.md).
    Ndp,
}

impl Transport {
    pub fn name(self) -> &'static str {
        match self {
            Transport::Tcp => "tcp",
            Transport::Udp => "udp",
            Transport::Dctcp => "dctcp",
            Transport::Ndp => "ndp",
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub id: u64,
    pub src: u32,
    pub dst: u32,
    pub size_bytes: u64,
    #[serde(default)]
    pub start_ps: u64,
    #[serde(default = "default_transport")]
    pub transport: Transport,
    /// Sending rate of a UDP constant-bit-rate source (bits on the wire per second); ignored for TCP.
    #[serde(default)]
    pub rate_bps: Option<u64>,
    /// Time from the flow's start to its first data packet: a connection handshake's round trip when the
    /// scenario models one (our model: the unloaded path's SYN/SYN-ACK time, computed in Python); the flow's
    /// completion time still counts from `start_ps`.
    #[serde(default)]
    pub handshake_ps: u64,
}

fn default_transport() -> Transport {
    Transport::Tcp
}

/// TCP NewReno settings shared by all TCP flows of a run.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpSpec {
    pub mss: u32,
    /// Bytes of headers on every data packet (IP + TCP + options) and the size of a pure ACK.
    pub header_bytes: u32,
    /// Initial congestion window in segments.
    pub initial_window: u32,
    pub min_rto_ps: u64,
    /// Retransmission timeout before the first RTT sample.
    pub initial_rto_ps: u64,
    pub max_rto_ps: u64,
    pub dupack_threshold: u32,
    /// Receive-window cap: the sender never has more than this many bytes outstanding.
    pub max_window_bytes: u64,
    pub delayed_ack: bool,
    pub delayed_ack_timeout_ps: u64,
    /// Slow start grows the window by the bytes an ACK acknowledges, at most this many segments per ACK
    /// (RFC 3465's L; 2 by default; ns-3's NewReno grows one segment per ACK, which is 1 here).
    pub slow_start_segments_per_ack: u32,
    /// How a sender tells loss from reordering (docs/transports.md): a fixed duplicate-ACK threshold, or one
    /// that adapts to the reordering seen, as Linux does.
    pub loss_detection: LossDetection,
    /// Highest duplicate-ACK threshold the adaptive detection may reach (Linux's tcp_max_reordering, 300).
    pub max_reordering: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LossDetection {
    /// Fast retransmit after `dupack_threshold` duplicate ACKs, always (RFC 5681).
    #[default]
    Dupack,
    /// As Dupack, but a fast retransmission found spurious (the ACK that ends it echoes the original's send
    /// time, RFC 4015's Eifel detection with timestamps) raises the threshold to the reordering seen and
    /// undoes the window reduction, as Linux's adaptive reordering threshold.
    Adaptive,
}

impl Default for TcpSpec {
    fn default() -> Self {
        TcpSpec {
            mss: 1448,
            header_bytes: 52,
            initial_window: 10,
            min_rto_ps: 200_000_000_000,
            initial_rto_ps: 1_000_000_000_000,
            max_rto_ps: 60_000_000_000_000,
            dupack_threshold: 3,
            max_window_bytes: 1 << 30,
            delayed_ack: false,
            delayed_ack_timeout_ps: 1_000_000_000,
            slow_start_segments_per_ack: 2,
            loss_detection: LossDetection::Dupack,
            max_reordering: 300,
        }
    }
}

/// DCTCP settings (Alizadeh et al., SIGCOMM 2010, section 3.1 and 3.4): switches mark ECN-capable packets
/// that find at least `k_packets` packets in the output queue; senders keep alpha with gain `g`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DctcpSpec {
    /// Marking threshold in packets (the paper's K = 65 at 10 Gb/s).
    pub k_packets: u64,
    /// Estimation gain g (the paper's 1/16).
    pub g: f64,
    /// Alpha before the first window is measured (our choice 1, as Linux starts: the first mark halves).
    pub initial_alpha: f64,
}

impl Default for DctcpSpec {
    fn default() -> Self {
        DctcpSpec {
            k_packets: 65,
            g: 1.0 / 16.0,
            initial_alpha: 1.0,
        }
    }
}

/// NDP settings (Handley et al., SIGCOMM 2017): data queues trim to headers beyond `queue`, the receiver paces
/// pulls at its link rate, the sender starts with `initial_window` packets.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NdpSpec {
    /// Data-queue size at switch ports beyond which NDP data is trimmed (8 packets, as the public Opera
    /// simulator's ToR queues).
    pub queue: QueueLimit,
    /// Bytes on the wire of a trimmed header, an ACK, a NACK and a pull (64, as htsim).
    pub header_bytes: u32,
    /// Packets sent before the first pull (our default 12: one bandwidth-delay product at 10 Gb/s and a 14 us
    /// round trip; the paper sends one BDP, so settable).
    pub initial_window: u32,
    /// Who paces pulls: one pacer per receiving host (the paper's) or one per flow (the public Opera
    /// simulator's runs). Both engines.
    pub pull_pacer: PullPacing,
}

/// NDP's pull pacing: `Host` paces all the pulls of a receiving host at its link rate (Handley et al. 2017,
/// section 3.2); `Flow` gives each flow a pacer of its own at the receiver's link rate, so a host receiving n
/// flows pulls up to n packets per packet time, as the public Opera simulator's mains build their sinks
/// (src/clos/datacenter/main_ndp_fatTree_3to1_k12.cpp line 200, src/expander/datacenter/main_ndp_expander.cpp
/// line 206, src/opera/datacenter/main_ndp_dynexpTopology.cpp line 195: a `NdpPullPacer` per flow).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PullPacing {
    #[default]
    Host,
    Flow,
}

impl Default for NdpSpec {
    fn default() -> Self {
        NdpSpec {
            queue: QueueLimit::Packets(8),
            header_bytes: 64,
            initial_window: 12,
            pull_pacer: PullPacing::Host,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UdpSpec {
    /// Payload bytes per datagram.
    pub payload_bytes: u32,
    /// IP + UDP header bytes per datagram.
    pub header_bytes: u32,
}

impl Default for UdpSpec {
    fn default() -> Self {
        UdpSpec {
            payload_bytes: 1472,
            header_bytes: 28,
        }
    }
}

/// Energy-Efficient Ethernet on every link whose rate has a PHY here (crate::eee, docs/energy-saving.md).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EeeSpec {
    /// Time a port stays awake after its queue empties before it starts to sleep (0: at once).
    #[serde(default)]
    pub hold_off_ps: u64,
    /// Time a port in LPI waits after the first packet arrives before it starts to wake (0: at once).
    #[serde(default)]
    pub coalesce_ps: u64,
    /// Bytes held that wake a port in LPI before `coalesce_ps` runs out (0: the delay alone).
    #[serde(default)]
    pub coalesce_bytes: u64,
    /// Sleep (Ts) and wake (Tw) times by link rate; links of other rates have no EEE.
    pub phys: Vec<EeePhy>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EeePhy {
    pub rate_bps: u64,
    pub sleep_ps: u64,
    pub wake_ps: u64,
}

/// Valiant load balancing (crate::vlb, docs/engine-spec.md): data of flows larger than `min_size_bytes` goes
/// through an intermediate rack, one of up to `intermediates` drawn per flow.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VlbSpec {
    /// Draws of an intermediate rack per flow (those on the flow's own racks are dropped); at least 1.
    pub intermediates: u32,
    /// Flows of this size or less take shortest paths.
    pub min_size_bytes: u64,
}

/// Everything one run needs.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimSpec {
    #[serde(default)]
    pub seed: u64,
    pub routing: Routing,
    /// The single-path policy (used only with `routing = "single"`).
    #[serde(default)]
    pub single_path: SinglePath,
    /// Valiant load balancing through intermediate racks (None: shortest paths only).
    #[serde(default)]
    pub vlb: Option<VlbSpec>,
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    #[serde(default)]
    pub tcp: TcpSpec,
    #[serde(default)]
    pub udp: UdpSpec,
    #[serde(default)]
    pub dctcp: DctcpSpec,
    #[serde(default)]
    pub ndp: NdpSpec,
    /// Bytes added to every packet on the wire (Ethernet framing, preamble, gap); 0 by default.
    #[serde(default)]
    pub frame_overhead_bytes: u32,
    /// Stop at this simulated time even if flows are still running.
    #[serde(default)]
    pub stop_ps: Option<u64>,
    /// If set, bytes sent per link direction are also recorded in windows of this width.
    #[serde(default)]
    pub stats_window_ps: Option<u64>,
    /// Energy-Efficient Ethernet on the links (None: off, every port always active).
    #[serde(default)]
    pub eee: Option<EeeSpec>,
    /// Links turned off and on over time (crate::linkstate); none: every link is on for the whole run.
    #[serde(default)]
    pub link_schedule: Option<crate::linkstate::LinkSchedule>,
}
