//! The circuit-fabric simulator: endpoints (racks or hosts) send over circuit switches that have no buffer
//! and follow cyclic schedules. Each endpoint has one uplink per switch; an uplink holds traffic per next hop
//! and sends only inside its TDMA window of the current slot; the switch passes a packet only if it arrives
//! wholly inside the uptime of the circuit the sender meant, else it is dropped as a no-circuit drop.
//!
//! Bulk traffic is datagrams (no acknowledgement, no retransmission) unless a flow asks for TCP, DCTCP or NDP. A
//! datagram flow is backlogged from its start or capped at a rate; its packets are made when an uplink can
//! send them, so a backlog costs no memory. A TCP flow's window (NDP: its initial window, then one packet per
//! pull) releases segments into its source ToR's queue for the destination, from which the uplinks take them
//! as they take datagrams (docs/circuit-engine.md, "Reliable bulk traffic"). Within a window an uplink sends,
//! in strict priority: control messages (RotorLB offers and accepts), bulk TCP's ACKs and NDP's pulls, stored relayed traffic for the peer, the endpoint's own traffic for
//! the peer, and RotorLB phase-3 relayed traffic. The per-packet send-to-wire lag (fixed + jitter + rare stalls) is the TDMA host model's.

use std::collections::VecDeque;
use std::time::Instant;

use super::hostlink::HostLinks;
use super::pairlists::PairLists;
use super::results::CircuitResults;
use super::rotorlb::Offer;
use super::roundlists::RoundLists;
use super::schedule::Schedule;
use super::spec::{CircuitRouting, CircuitSpec, CircuitTransport};
use crate::error::EngineError;
use crate::event::{EventKind, EventQueue};
use crate::ndp::{NdpSender, PullPacer};
use crate::rng::Rng;
use crate::spec::PullPacing;
use crate::spec::TcpSpec;
use crate::tcp::{Segment, TcpReceiver, TcpSender};
use crate::units::SerClock;

// One concern per file, all of them `impl CircuitSim` blocks over this module's state (docs/circuit-engine.md,
// "Where the code is").
#[path = "delivery.rs"]
mod delivery;
#[path = "hostsend.rs"]
mod hostsend;
#[path = "opera.rs"]
mod opera;
#[path = "opera_paths.rs"]
mod opera_paths;
pub use opera_paths::listed_switch_paths;
#[path = "report.rs"]
mod report;
#[path = "rotorlb_ctl.rs"]
mod rotorlb_ctl;
#[path = "sender.rs"]
mod sender;
#[path = "source.rs"]
mod source;
#[path = "transport.rs"]
mod transport;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Data,
    /// A TCP acknowledgement of an Opera low-latency flow (travels the low-latency class back to the source).
    Ack,
    Offer,
    Accept,
    /// NDP on Opera's low-latency class: a data packet trimmed to its header at a full uplink queue, and the
    /// receiver's ACK, NACK and pull back to the source. All four travel at high priority.
    Header,
    NdpAck,
    NdpNack,
    NdpPull,
}

impl Kind {
    /// NDP's high-priority packets: trimmed headers and the receiver's control.
    #[inline]
    pub(crate) fn ndp_priority(self) -> bool {
        matches!(
            self,
            Kind::Header | Kind::NdpAck | Kind::NdpNack | Kind::NdpPull
        )
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct CPacket {
    kind: Kind,
    flow: u32,
    /// Final destination endpoint (its rack, for a flow between hosts).
    dst: u32,
    wire_bytes: u32,
    payload: u32,
    seq: u64,
    /// When the source handed it over (data) ; message index (control).
    ts: u64,
    msg: u32,
    relayed: bool,
    /// Selector routing: index of the next hop in the flow's route.
    hop: u8,
    /// Opera: a low-latency packet (routed hop by hop over the current slice).
    ll: bool,
    /// A TCP segment sent again.
    retx: bool,
    /// DCTCP: a data packet marked Congestion Experienced at an uplink; an ACK echoing such a mark (ECN-Echo).
    ce: bool,
    /// Opera's listed paths (`opera.paths`): the path this packet follows (`opera_paths::NO_PATH`: none yet);
    /// `hop` is then the index of its next switch on it.
    path: u32,
}

impl CPacket {
    /// A packet of flow `flow` with what most packets share: first hop, sent by its source, best-effort
    /// class, not a retransmission, unmarked, no control message. Callers override the rest by struct update.
    #[inline]
    fn of_flow(
        kind: Kind,
        flow: u32,
        dst: u32,
        wire_bytes: u32,
        payload: u32,
        seq: u64,
        ts: u64,
    ) -> Self {
        let (msg, relayed, hop, ll, retx, ce) = (0, false, 1, false, false, false);
        let path = opera_paths::NO_PATH;
        CPacket {
            kind,
            flow,
            dst,
            wire_bytes,
            payload,
            seq,
            ts,
            msg,
            relayed,
            hop,
            ll,
            retx,
            ce,
            path,
        }
    }
}

/// A relayed datagram held at a relay for its next hop: only what it needs to leave again (32 bytes, not the
/// pool's 48: relays of a 108-rack shuffle hold half a million of them, and reading a queue's head is a cache
/// miss per packet). It leaves as a full data packet (`wire = payload + header + frame overhead`).
#[derive(Debug, Clone, Copy)]
struct Held {
    seq: u64,
    ts: u64,
    flow: u32,
    dst: u32,
    payload: u32,
    hop: u8,
    /// A TCP segment (its header is TCP's), sent again, marked Congestion Experienced: what a reliable bulk
    /// flow's packet keeps across a relay (in the struct's padding: still 32 bytes).
    tcp: bool,
    retx: bool,
    ce: bool,
}

/// A bulk TCP segment released by its sender's window and waiting in its source ToR's queue for the
/// destination (DCTCP: marked if it found K or more packets there).
#[derive(Debug, Clone, Copy)]
struct Queued {
    seg: Segment,
    ce: bool,
}

struct Msg {
    slot_start: i128,
    offer: Offer,
    accepted: Vec<u64>,
}

/// An uplink's state. Laid out in declaration order (`repr(C)`) so that what every hand-over reads and writes
/// shares the first cache lines; the queues follow, the counters of the results last.
#[derive(Default)]
#[repr(C)]
struct PortState {
    slot_start: i128,
    /// When the uptime of the port's current slot ends at the switch.
    up_end: i128,
    next_at: Option<u64>,
    peer: Option<u32>,
    rr: u32,
    win_start: u64,
    win_end: u64,
    next_handover: u64,
    wire_free: u64,
    bytes_sent: u64,
    packets_sent: u64,
    busy_ps: u64,
    control: VecDeque<u32>,
    /// Opera: low-latency packets waiting for this uplink (relayed ones and those made here).
    ll: VecDeque<u32>,
    ll_rr: usize,
    /// NDP: trimmed headers and NDP control waiting for this uplink, served before `ll`.
    ll_hi: VecDeque<u32>,
    /// RotorLB phase 3: bytes the peer accepted, per final destination, for this slot.
    relay_budget: Vec<(u32, u64)>,
    pipe: VecDeque<(u64, u32, u32)>,
    no_circuit_drops: u64,
}

/// A datagram that reached its destination, waiting to be shown to the flow's receiver in arrival order.
#[derive(Debug, Clone, Copy)]
struct Delivery {
    arrival: u64,
    seq: u64,
    ts: u64,
    payload: u32,
    retx: bool,
}

/// What the sending path reads of a flow on every hand-over, packed apart from the rest (a 108-rack Opera
/// shuffle spent a sixth of its time on cache misses reading `sent` out of the much larger `FlowState`).
#[derive(Debug, Clone, Copy)]
struct FlowHot {
    size: u64,
    start: u64,
    /// The flow's rate cap; 0 for a backlogged flow (the spec refuses a zero rate).
    rate: u64,
    /// Bytes handed out so far.
    sent: u64,
    packets_sent: u64,
}

struct FlowState {
    /// Datagrams delivered but not yet shown to the receiver, in (arrival, hand-over) order (see `deliver`).
    pending: Vec<Delivery>,
    /// TCP flows (Opera's low-latency class with transport "tcp"): the NewReno sender and its timer. Boxed:
    /// most flows are datagrams, and a delivery reads this record, so it should be small.
    sender: Option<Box<TcpSender>>,
    /// NDP flows (transport "ndp", low-latency or bulk): the packet engine's NDP sender.
    ndp: Option<Box<NdpSender>>,
    /// Data packets of this flow trimmed to their header at an uplink (NDP).
    trims: u64,
    /// Bulk TCP flows: segments the window released, waiting at the source ToR for a circuit.
    queued: VecDeque<Queued>,
    rto_pending: Option<u64>,
    receiver: TcpReceiver,
    /// When the sender learnt that every byte arrived (TCP: the ACK covering the last byte; NDP: the first ACK
    /// sent once the receiver held every byte); None before, and always for datagram flows.
    acked: Option<u64>,
}

impl FlowState {
    /// A flow with a sender that acts on what comes back (TCP or NDP), not a datagram flow.
    #[inline]
    fn reliable(&self) -> bool {
        self.sender.is_some() || self.ndp.is_some()
    }

    /// When the flow's retransmission timer (TCP) or last-resort timer (NDP) is due, if armed.
    fn rto_deadline(&self) -> Option<u64> {
        self.sender.as_ref().map_or_else(
            || self.ndp.as_ref().and_then(|n| n.rto_deadline),
            |s| s.rto_deadline,
        )
    }
}

/// Ask the CPU to bring `p`'s cache line closer. A relay's queue is read one packet per hand-over, thousands
/// of events apart, and its packets were written long before: without the hint every read waits for memory.
#[inline(always)]
fn prefetch<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it reads nothing into the program and cannot fault.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (p as *const T).cast::<i8>(),
        )
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// A selector route's default order: the offset's powers of two from the largest down.
pub fn default_route(offset: u32) -> Vec<u32> {
    (0..32)
        .rev()
        .map(|i| 1u32 << i)
        .filter(|b| offset & b != 0)
        .collect()
}

pub struct CircuitSim<'a> {
    spec: &'a CircuitSpec,
    /// Each flow's source and destination endpoint (its hosts' racks when the fabric has hosts).
    ends: Vec<(u32, u32)>,
    /// Flows between two hosts of one rack: they cross their ToR only, never a circuit.
    intra: Vec<bool>,
    /// The hosts' links to their ToRs (`spec.hosts`); None: the endpoints are the flows' ends.
    hosts: Option<HostLinks>,
    n: u32,
    s: u32,
    scheds: Vec<Schedule>,
    clock: SerClock,
    events: EventQueue,
    pkts: Vec<CPacket>,
    free: Vec<u32>,
    live: u64,
    peak_live: u64,
    ports: Vec<PortState>,
    /// Each uplink's peer (u32::MAX: none), mirrored from `PortState::peer` for the scan a relayed arrival
    /// makes over its endpoint's uplinks: one cache line instead of one per uplink.
    peer_of: Vec<u32>,
    rngs: Vec<Rng>,
    /// Draws NDP packets' switches where they spray (`opera.spray`), a stream of its own.
    spray_rng: Rng,
    /// Opera's listed paths (`opera.paths` > 0), and the stream that draws each packet's path.
    listed: Option<opera_paths::ListedPaths>,
    path_rng: Rng,
    flows: Vec<FlowState>,
    hot: Vec<FlowHot>,
    /// Flow indices per (source, destination), in flow order; a datagram flow leaves its list once it has
    /// handed out its last byte.
    local: PairLists,
    /// Opera: which flows are low-latency, and the low-latency flows of each source.
    low_latency: Vec<bool>,
    /// Bulk flows that run TCP, DCTCP or NDP over the bulk path (RotorLB, direct, selector), and whether any does:
    /// the datagram paths ask the per-flow flag only when one does, so datagram runs read nothing more.
    bulk_tcp: Vec<bool>,
    any_bulk_tcp: bool,
    /// Bulk TCP's ACKs waiting at an endpoint, per (endpoint, next hop) (routings without a low-latency class;
    /// on Opera they take the low-latency class); empty when no flow runs bulk TCP.
    ack_q: Vec<VecDeque<u32>>,
    /// Bulk TCP segments waiting per (source endpoint, destination endpoint): the ToR queue DCTCP marks at K.
    voq_pkts: Vec<u32>,
    /// Opera's low-latency datagram flows per source, for the round robin (finished flows skipped).
    ll_src: RoundLists,
    reroutes: u64,
    no_path: u64,
    /// Per (source, destination): remaining bytes of started backlogged flows; whether rate-capped flows exist.
    backlog: Vec<u64>,
    capped: Vec<bool>,
    /// Selector routing: each flow's hops as offsets, and flow indices per (source, first offset) (a datagram
    /// flow skipped once it has handed out its last byte).
    routes: Vec<Vec<u32>>,
    first_hop: RoundLists,
    /// Relayed packets held per (endpoint, next hop), and their payload bytes.
    /// Held by value, not as pool slots: a relay may hold hundreds of thousands of packets, and a queue walked
    /// in order is far kinder to the cache than pool slots scattered by reuse (a profile of a 108-rack Opera
    /// shuffle spent a third of its time on the pool loads of relayed packets).
    relay: Vec<VecDeque<Held>>,
    /// How many packets each relay queue holds, mirrored in a dense array: every hand-over asks whether its
    /// queue is empty, and the answer is usually no longer in cache in the much larger array of queue headers.
    relay_len: Vec<u32>,
    held: Vec<u64>,
    msgs: Vec<Option<Msg>>,
    free_msgs: Vec<u32>,
    /// Offers received per endpoint for the slot being negotiated: (message, uplink of the relay).
    mailbox: Vec<Vec<(u32, u32)>>,
    window_ps: u64,
    win_rx: Vec<Vec<u64>>,
    win_tx: Vec<Vec<u64>>,
    windows_overflowed: bool,
    tcp: TcpSpec,
    /// NDP receivers' pull pacers, per host (or endpoint without hosts), or per flow (`ndp.pull_pacer`); empty
    /// when no flow runs NDP.
    pacers: Vec<PullPacer>,
    now: u64,
    events_done: u64,
    hops: u64,
    created: u64,
    delivered: u64,
    control_received: u64,
    relayed: u64,
    payload_delivered: u64,
    max_relay_delay: u64,
    no_circuit: u64,
    /// Flows that still have bytes to hand out (TCP flows: not yet all acknowledged).
    unsent: u64,
    /// The earliest any packet handed over now can reach the far endpoint, less now (see `deliver`).
    min_transit_ps: u64,
    /// The latest arrival of a datagram delivered when its last hop was handed over.
    last_delivery: u64,
    /// The times of the flow starts still to come, ascending, and how many have come (see `useful_slot`).
    starts: Vec<u64>,
    started: usize,
    /// Packets on a circuit to a relay or an endpoint that will act on them (in some uplink's pipe).
    in_pipes: u64,
    /// Deliver datagrams at hand-over (see `deliver`), skip slots nothing can use (see `useful_slot`) and
    /// flows that cannot send (see `first_ready`); off, every arrival is an event, every slot opens and every
    /// listed flow is asked (the reference path).
    fast: bool,
}

impl<'a> CircuitSim<'a> {
    pub fn new(spec: &'a CircuitSpec) -> Result<Self, EngineError> {
        super::validate::check(spec)?;
        let (n, s) = (spec.endpoints, spec.switches.len() as u32);
        let scheds: Vec<Schedule> = spec
            .switches
            .iter()
            .map(|sw| Schedule::new(sw, n))
            .collect();
        if matches!(
            spec.routing,
            CircuitRouting::Rotorlb | CircuitRouting::Opera
        ) {
            // Offers and accepts go back over the circuit they came on, so each circuit must be two-way.
            for (i, sc) in scheds.iter().enumerate() {
                for (k, peers) in sc.peers.iter().enumerate() {
                    if (0..n).any(|p| peers[peers[p as usize] as usize] != p) {
                        return Err(EngineError::invalid(
                            &format!("switches[{i}].slots[{k}].matching"),
                            "RotorLB needs symmetric matchings (if p reaches q, q reaches p)",
                        ));
                    }
                }
            }
        }
        // Opera: flows below the cutoff are low-latency (routed hop by hop), the others bulk (RotorLB).
        let cutoff = spec.opera.as_ref().map_or(0, |o| o.cutoff_bytes);
        let low_latency: Vec<bool> = spec.flows.iter().map(|f| f.size_bytes < cutoff).collect();
        let per = spec.hosts.as_ref().map_or(1, |h| h.per_endpoint);
        let ends: Vec<(u32, u32)> = spec
            .flows
            .iter()
            .map(|f| (f.src / per, f.dst / per))
            .collect();
        let intra: Vec<bool> = ends.iter().map(|(a, b)| a == b).collect();
        let mut local = vec![Vec::new(); (n * n) as usize];
        let mut ll_src = vec![Vec::new(); n as usize];
        for (i, f) in spec.flows.iter().enumerate() {
            let (src, dst) = ends[i];
            if intra[i] || (low_latency[i] && f.transport != CircuitTransport::Datagram) {
                // TCP flows hand their segments to the low-latency queues themselves (FlowStart, ACKs, RTOs);
                // flows within a rack go host -> ToR -> host (`hostsend`)
            } else if low_latency[i] {
                ll_src[src as usize].push(i as u32);
            } else {
                local[(src * n + dst) as usize].push(i as u32);
            }
        }
        let mut backlog = vec![0u64; (n * n) as usize];
        let mut capped = vec![false; (n * n) as usize];
        let tcp_kind = |f: &super::spec::CircuitFlowSpec| {
            matches!(f.transport, CircuitTransport::Tcp | CircuitTransport::Dctcp)
        };
        let bulk_tcp: Vec<bool> = spec
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| !low_latency[i] && !intra[i] && f.transport != CircuitTransport::Datagram)
            .collect();
        let any_bulk_tcp = bulk_tcp.iter().any(|&b| b);
        for (i, f) in spec.flows.iter().enumerate() {
            if low_latency[i] || intra[i] || bulk_tcp[i] {
                continue; // bulk TCP: its queue joins the backlog as its window releases segments
            }
            let at = (ends[i].0 * n + ends[i].1) as usize;
            match f.rate_bps {
                Some(_) => capped[at] = true,
                None if f.start_ps == 0 => backlog[at] += f.size_bytes,
                None => {}
            }
        }
        let mut routes = Vec::new();
        let mut first_hop = Vec::new();
        let selector = spec.routing == CircuitRouting::Selector;
        if selector {
            first_hop = vec![Vec::new(); (n * n) as usize];
            for (i, f) in spec.flows.iter().enumerate() {
                let (src, dst) = ends[i];
                let r = f
                    .route_offsets
                    .clone()
                    .unwrap_or_else(|| default_route((dst + n - src) % n));
                if !intra[i] {
                    first_hop[(src * n + r[0]) as usize].push(i as u32);
                }
                routes.push(r);
            }
        }
        let mut events = EventQueue::default();
        for (i, sc) in scheds.iter().enumerate() {
            // The slot in force at time 0 (a phase may put its start before 0); `run` opens it first.
            let (_, start) = sc.slot_at(0);
            events.push(
                Self::window_start(start, spec.tdma.prealloc_ps + spec.delay_ps),
                EventKind::SlotStart,
                i as u32,
            );
        }
        // Flows that start by an event, and those starts in time order (see `quiet_until`).
        let mut starts = Vec::new();
        for (i, f) in spec.flows.iter().enumerate() {
            let reliable = f.transport != CircuitTransport::Datagram;
            if f.start_ps > 0 || reliable || intra[i] {
                events.push(f.start_ps, EventKind::FlowStart, i as u32);
                starts.push(f.start_ps);
            }
        }
        starts.sort_unstable();
        if let Some(o) = &spec.opera {
            events.push(o.origin_ps + o.slice_ps, EventKind::OperaSlice, 0);
        }
        let ports = (0..n * s).map(|_| PortState::default()).collect();
        let pacers = Self::pacers(spec);
        let rngs = (0..n * s)
            .map(|p| Rng::new(spec.seed, 0xC1C0 + p as u64))
            .collect();
        let flows = spec
            .flows
            .iter()
            .map(|f| FlowState {
                pending: Vec::new(),
                sender: tcp_kind(f).then(|| {
                    let mut s = TcpSender::new(f.size_bytes, &spec.tcp);
                    if f.transport == CircuitTransport::Dctcp {
                        s.dctcp = Some(Box::new(crate::dctcp::Dctcp::new(&spec.dctcp)));
                    }
                    Box::new(s)
                }),
                ndp: (f.transport == CircuitTransport::Ndp).then(|| {
                    Box::new(NdpSender::new(
                        f.size_bytes,
                        spec.tcp.mss,
                        spec.tcp.min_rto_ps,
                    ))
                }),
                trims: 0,
                queued: VecDeque::new(),
                rto_pending: None,
                receiver: TcpReceiver::new(f.size_bytes),
                acked: None,
            })
            .collect();
        Ok(CircuitSim {
            spec,
            ends,
            intra,
            hosts: spec
                .hosts
                .as_ref()
                .map(|h| HostLinks::new(h, n, spec.stats_window_ps.unwrap_or(0))),
            n,
            s,
            scheds,
            clock: SerClock::new(spec.link_rate_bps),
            events,
            pkts: Vec::new(),
            free: Vec::new(),
            live: 0,
            peak_live: 0,
            ports,
            peer_of: vec![u32::MAX; (n * s) as usize],
            rngs,
            spray_rng: Rng::new(spec.seed, 0x5B4A7),
            listed: spec
                .opera
                .as_ref()
                .filter(|o| o.paths > 0)
                .map(|o| opera_paths::ListedPaths::new(o.paths, n, s, o.slices)),
            path_rng: Rng::new(spec.seed, 0x9A7B5),
            flows,
            hot: spec
                .flows
                .iter()
                .map(|f| FlowHot {
                    size: f.size_bytes,
                    start: f.start_ps,
                    rate: f.rate_bps.unwrap_or(0),
                    sent: 0,
                    packets_sent: 0,
                })
                .collect(),
            local: PairLists::new(&local, spec.flows.len(), |f| {
                spec.flows[f as usize].start_ps
            }),
            low_latency,
            bulk_tcp,
            any_bulk_tcp,
            ack_q: if any_bulk_tcp {
                vec![VecDeque::new(); (n * n) as usize]
            } else {
                Vec::new()
            },
            voq_pkts: if any_bulk_tcp {
                vec![0; (n * n) as usize]
            } else {
                Vec::new()
            },
            // (only Opera runs have low-latency flows; the others need no per-flow positions)
            ll_src: RoundLists::new(
                ll_src,
                if spec.opera.is_some() {
                    spec.flows.len()
                } else {
                    0
                },
                |f| spec.flows[f as usize].start_ps,
            ),
            reroutes: 0,
            no_path: 0,
            backlog,
            capped,
            routes,
            // (only selector runs have lists; the others need no per-flow positions)
            first_hop: RoundLists::new(
                first_hop,
                if selector { spec.flows.len() } else { 0 },
                |f| spec.flows[f as usize].start_ps,
            ),
            relay: vec![VecDeque::new(); (n * n) as usize],
            relay_len: vec![0; (n * n) as usize],
            held: vec![0; (n * n) as usize],
            msgs: Vec::new(),
            free_msgs: Vec::new(),
            mailbox: vec![Vec::new(); n as usize],
            window_ps: spec.stats_window_ps.unwrap_or(0),
            win_rx: vec![Vec::new(); n as usize],
            win_tx: vec![Vec::new(); n as usize],
            windows_overflowed: false,
            tcp: spec.tcp.clone(),
            pacers,
            now: 0,
            events_done: 0,
            hops: 0,
            created: 0,
            delivered: 0,
            control_received: 0,
            relayed: 0,
            payload_delivered: 0,
            max_relay_delay: 0,
            no_circuit: 0,
            unsent: spec.flows.len() as u64,
            min_transit_ps: spec.tdma.lag_ps
                + 2 * spec.delay_ps
                + SerClock::new(spec.link_rate_bps)
                    .time_ps((spec.packet.header_bytes + spec.packet.frame_overhead_bytes) as u64),
            last_delivery: 0,
            starts,
            started: 0,
            in_pipes: 0,
            fast: true,
        })
    }

    /// Run every arrival as an event of its own and open every slot: the straightforward path the fast
    /// paths must match result for result (tests compare the two; only `events` and `peak_packets_alive`,
    /// which counts packets on their last circuit, differ).
    #[doc(hidden)]
    pub fn reference_path(mut self) -> Self {
        self.fast = false;
        self
    }

    /// NDP's pull pacers when some flow runs NDP: one per receiver (host, or endpoint without hosts), or one
    /// per flow with `ndp.pull_pacer = "flow"` (the public Opera simulator's main makes a pacer for every flow,
    /// src/opera/datacenter/main_ndp_dynexpTopology.cpp line 195). Either paces its pulls one full packet
    /// apart at the receiver's link rate (the host's link, or an uplink's rate without hosts: our choice; the
    /// simulator's pacers space pulls by a packet's payload at 10 Gb/s, src/opera/ndp.cpp line 1014, 4 %
    /// faster than its 1500-byte packets arrive).
    fn pacers(spec: &CircuitSpec) -> Vec<PullPacer> {
        let ndp = spec
            .flows
            .iter()
            .any(|f| f.transport == CircuitTransport::Ndp);
        if !ndp {
            return Vec::new();
        }
        let full = (spec.tcp.mss + spec.tcp.header_bytes + spec.packet.frame_overhead_bytes) as u64;
        let (receivers, rate) = match &spec.hosts {
            Some(h) => (spec.endpoints * h.per_endpoint, h.rate_bps),
            None => (spec.endpoints, spec.link_rate_bps),
        };
        let count = match spec.ndp.pull_pacer {
            PullPacing::Host => receivers as usize,
            PullPacing::Flow => spec.flows.len(),
        };
        let gap = SerClock::new(rate).time_ps(full);
        (0..count).map(|_| PullPacer::new(gap)).collect()
    }

    /// The pull pacer of flow `f`'s receiver: its destination's, or its own with per-flow pacing.
    #[inline]
    fn pacer_of(&self, f: u32) -> u32 {
        match self.spec.ndp.pull_pacer {
            PullPacing::Host => self.spec.flows[f as usize].dst,
            PullPacing::Flow => f,
        }
    }

    /// When the fabric next gets work, if it has none now: every packet alive is on a circuit (none queued,
    /// none held by a relay) and every flow with bytes left has yet to start. Then nothing can be sent before
    /// the first of those packets arrives or the next flow starts, and that moment is returned.
    fn quiet_until(&self) -> Option<u64> {
        if self.live != self.in_pipes || self.unsent != (self.starts.len() - self.started) as u64 {
            return None;
        }
        let start = self.starts.get(self.started).copied();
        let arrival = self
            .ports
            .iter()
            .filter_map(|p| p.pipe.front().map(|x| x.0))
            .min();
        let on_host_links = self.hosts.as_ref().and_then(|h| h.in_pipes().1);
        start.into_iter().chain(arrival).chain(on_host_links).min()
    }

    /// The slot of switch `sw` to open after the one just opened (`next` follows it in the schedule). Slots
    /// whose sending windows open before the fabric can next have work would change nothing (their windows
    /// have closed by then, nothing is queued to drop and nothing is there to offer) but cost an event each:
    /// a lead (fibre delay and preallocation) longer than many slots would open them all at time 0, and a
    /// stretch with nothing to send (before a late flow, or while packets cross a long fibre) would tick
    /// through every slot of it. So the next slot opened is the one in force at the senders at that moment,
    /// when it is later than `next`: the state every uplink then has is what opening every slot would give.
    fn useful_slot(&self, sw: usize, next: (usize, i128)) -> (usize, i128) {
        if !self.fast {
            return next;
        }
        let horizon = self.quiet_until().unwrap_or(self.now).max(self.now);
        let lead = self.spec.tdma.prealloc_ps + self.spec.delay_ps;
        // the last slot whose window opens at or before the horizon (window = slot start - lead)
        let at = self.scheds[sw].slot_at(horizon + lead);
        if at.1 > next.1 {
            at
        } else {
            next
        }
    }

    fn window_start(slot_start: i128, prealloc: u64) -> u64 {
        (slot_start - prealloc as i128).max(0) as u64
    }

    pub fn run(
        mut self,
        watch: &mut dyn FnMut(&crate::Progress) -> bool,
    ) -> Result<CircuitResults, EngineError> {
        let started = Instant::now();
        let stop = self.spec.stop_ps.unwrap_or(u64::MAX);
        let mut stopped_by = "completion";
        // The first slot of each switch: remembered per switch so each SlotStart knows which slot it opens.
        let mut next_slot: Vec<(usize, i128)> =
            self.scheds.iter().map(|sc| sc.slot_at(0)).collect();
        while let Some(ev) = self.events.pop() {
            if ev.kind == EventKind::PortNext
                && self.ports[ev.arg as usize].next_at != Some(ev.time)
            {
                continue; // superseded
            }
            if matches!(ev.kind, EventKind::SlotStart | EventKind::OperaSlice) && self.finished() {
                continue; // the schedule turns on, but the run is over: its clock stops at its last packet
            }
            if ev.kind == EventKind::RtoTimer {
                let fl = &mut self.flows[ev.arg as usize];
                if fl.rto_pending != Some(ev.time) {
                    continue; // superseded
                }
                if fl.rto_deadline().is_none() {
                    // disarmed (everything acknowledged): not an event of the run, the clock stays
                    fl.rto_pending = None;
                    continue;
                }
            }
            // After the skips above: a superseded or disarmed event past the stop time neither stops the run
            // nor moves its clock (a finished run ends at its last packet, whatever the stop time).
            if ev.time > stop {
                stopped_by = "time_limit";
                self.now = stop;
                break;
            }
            self.now = ev.time;
            self.events_done += 1;
            let flows = &self.flows;
            // A flow whose last datagrams wait in `pending` (shown to its receiver at the end) is done too.
            let complete = |f: &FlowState, size: u64| {
                f.receiver.finish.is_some()
                    || (!f.pending.is_empty()
                        && f.receiver.bytes_received()
                            + f.pending.iter().map(|d| d.payload as u64).sum::<u64>()
                            >= size)
            };
            let done = || {
                flows
                    .iter()
                    .zip(&self.hot)
                    .filter(|(f, h)| complete(f, h.size))
                    .count() as u64
            };
            if crate::check_in(
                watch,
                self.events_done,
                self.now,
                self.spec.stop_ps,
                flows.len() as u64,
                done,
            ) {
                stopped_by = "interrupted";
                break;
            }
            match ev.kind {
                EventKind::SlotStart => {
                    let sw = ev.arg as usize;
                    let (k, start) = next_slot[sw];
                    self.slot_start(sw as u32, k, start);
                    next_slot[sw] = self.scheds[sw].next_slot(k, start);
                    if !self.finished() {
                        next_slot[sw] = self.useful_slot(sw, next_slot[sw]);
                        let lead = self.spec.tdma.prealloc_ps + self.spec.delay_ps;
                        let t = Self::window_start(next_slot[sw].1, lead).max(self.now);
                        self.events.push(t, EventKind::SlotStart, ev.arg);
                    }
                }
                EventKind::PortNext => {
                    self.ports[ev.arg as usize].next_at = None;
                    self.port_next(ev.arg);
                }
                EventKind::CircuitArrival => self.arrival(ev.arg),
                EventKind::OperaSlice => {
                    self.new_slice();
                    if !self.finished() {
                        let o = self.spec.opera.as_ref().expect("opera");
                        let mut t = self.now + o.slice_ps;
                        if let Some(from) = self.quiet_until().filter(|_| self.fast) {
                            // Nothing is queued to re-route until the fabric has work: the first slice from then.
                            if from > t {
                                t = o.origin_ps
                                    + (from - o.origin_ps).div_ceil(o.slice_ps) * o.slice_ps;
                            }
                        }
                        self.events.push(t, EventKind::OperaSlice, 0);
                    }
                }
                EventKind::FlowStart if self.flows[ev.arg as usize].reliable() => {
                    self.started += 1;
                    self.transport_start(ev.arg);
                }
                EventKind::NdpPull => self.ndp_pull(ev.arg),
                EventKind::RtoTimer => self.rto_timer(ev.arg),
                EventKind::FlowStart if self.intra[ev.arg as usize] => {
                    self.started += 1;
                    self.intra_send(ev.arg);
                }
                EventKind::FlowStart => {
                    self.started += 1;
                    let f = &self.spec.flows[ev.arg as usize];
                    let (src, dst) = self.ends[ev.arg as usize];
                    if f.rate_bps.is_none() && !self.low_latency[ev.arg as usize] {
                        self.backlog[(src * self.n + dst) as usize] += f.size_bytes;
                    }
                    self.wake_endpoint(src);
                }
                // Hosts: a flow within a rack hands its next datagram to its host's NIC; a packet reaches the
                // far end of a host link (arg 2h: host h's ToR, 2h + 1: host h).
                EventKind::UdpSend => self.intra_send(ev.arg),
                EventKind::PortArrival => self.host_link_arrival(ev.arg),
                _ => unreachable!("packet-switch events do not occur in a circuit run"),
            }
        }
        for fl in &mut self.flows {
            let count = fl.pending.len();
            Self::show(fl, count, &self.tcp);
        }
        if stopped_by == "completion" {
            self.now = self.now.max(self.last_delivery);
        }
        if self.windows_overflowed || self.hosts.as_ref().is_some_and(|h| h.windows_overflowed) {
            return Err(EngineError::invalid(
                "stats_window_ps",
                format!(
                    "the run lasted {} ps, more than {} windows",
                    self.now,
                    crate::port::MAX_WINDOWS
                ),
            ));
        }
        Ok(self.results(started.elapsed().as_secs_f64(), stopped_by))
    }

    /// Every flow has handed out all its bytes and no packet is left anywhere: no slot needs to open again.
    #[inline]
    fn finished(&self) -> bool {
        self.unsent == 0 && self.live == 0
    }

    #[inline]
    fn alloc(&mut self, p: CPacket) -> u32 {
        self.born();
        self.slot_for(p)
    }

    /// A new packet exists (with or without a pool slot).
    #[inline]
    fn born(&mut self) {
        self.live += 1;
        self.peak_live = self.peak_live.max(self.live);
        self.created += 1;
    }

    /// A packet is gone (delivered or dropped); its pool slot, if it had one, is free again.
    #[inline]
    fn retire(&mut self, slot: Option<u32>) {
        self.live -= 1;
        if let Some(i) = slot {
            self.free.push(i);
        }
    }

    /// A pool slot for a packet that is alive already (queued, or entering a pipe): not a new packet.
    #[inline]
    fn slot_for(&mut self, p: CPacket) -> u32 {
        if let Some(i) = self.free.pop() {
            self.pkts[i as usize] = p;
            i
        } else {
            self.pkts.push(p);
            (self.pkts.len() - 1) as u32
        }
    }

    #[inline]
    fn release(&mut self, i: u32) {
        self.live -= 1;
        self.free.push(i);
    }

    fn new_msg(&mut self, m: Msg) -> u32 {
        if let Some(i) = self.free_msgs.pop() {
            self.msgs[i as usize] = Some(m);
            i
        } else {
            self.msgs.push(Some(m));
            (self.msgs.len() - 1) as u32
        }
    }

    fn take_msg(&mut self, i: u32) -> Msg {
        self.free_msgs.push(i);
        self.msgs[i as usize]
            .take()
            .expect("a control packet's message is alive")
    }

    /// Header and framing bytes of a data packet on the wire.
    #[inline]
    fn data_header(&self) -> u32 {
        self.spec.packet.header_bytes + self.spec.packet.frame_overhead_bytes
    }

    /// Header and framing bytes of a TCP segment on the wire.
    #[inline]
    fn tcp_header(&self) -> u32 {
        self.tcp.header_bytes + self.spec.packet.frame_overhead_bytes
    }

    #[inline]
    fn full_packet_wire(&self) -> u32 {
        let p = &self.spec.packet;
        p.payload_bytes + p.header_bytes + p.frame_overhead_bytes
    }

    /// Payload bytes an uplink can send in a window of `len` ps, in full-size packets.
    #[inline]
    fn window_payload(&self, len: u64) -> u64 {
        let per = self.clock.time_ps(self.full_packet_wire() as u64);
        (len / per) * self.spec.packet.payload_bytes as u64
    }
}
