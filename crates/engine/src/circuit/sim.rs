//! The circuit-fabric simulator: endpoints (racks or hosts) send over circuit switches that have no buffer
//! and follow cyclic schedules. Each endpoint has one uplink per switch; an uplink holds traffic per next hop
//! and sends only inside its TDMA window of the current slot; the switch passes a packet only if it arrives
//! wholly inside the uptime of the circuit the sender meant, else it is dropped as a no-circuit drop.
//!
//! Traffic is datagrams (no acknowledgement, no retransmission). A flow is backlogged from its start or
//! capped at a rate; its packets are made when an uplink can send them, so a backlog costs no memory.
//! Within a window an uplink sends, in strict priority: control messages (RotorLB offers and accepts),
//! stored relayed traffic for the peer, the endpoint's own traffic for the peer, and RotorLB phase-3 relayed
//! traffic. The per-packet send-to-wire lag (fixed + jitter + rare stalls) is the TDMA host model's.

use std::collections::VecDeque;
use std::time::Instant;

use super::hostlink::HostLinks;
use super::results::{CircuitFlowResult, CircuitPortResult, CircuitResults, CircuitSeries, CircuitSummary};
use super::rotorlb::{accept, Offer};
use super::schedule::Schedule;
use super::spec::{CircuitRouting, CircuitSpec, CircuitTransport};
use crate::error::EngineError;
use crate::event::{EventKind, EventQueue};
use crate::rng::Rng;
use crate::spec::TcpSpec;
use crate::tcp::{Segment, TcpReceiver, TcpSender};
use crate::units::SerClock;

#[path = "hostsend.rs"]
mod hostsend;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Data,
    /// A TCP acknowledgement of an Opera low-latency flow (travels the low-latency class back to the source).
    Ack,
    Offer,
    Accept,
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
    rto_pending: Option<u64>,
    receiver: TcpReceiver,
}

/// Lists of flow indices by key (source x destination, or source x first offset), stored flat: one lookup
/// per hand-over reads two neighbouring offsets instead of a vector header and its separate allocation.
#[derive(Debug, Default)]
struct Lists {
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Lists {
    fn new(lists: Vec<Vec<u32>>) -> Self {
        let mut start = Vec::with_capacity(lists.len() + 1);
        start.push(0);
        let mut items = Vec::new();
        for l in lists {
            items.extend(l);
            start.push(items.len() as u32);
        }
        Lists { start, items }
    }

    #[inline]
    fn get(&self, key: usize) -> &[u32] {
        &self.items[self.start[key] as usize..self.start[key + 1] as usize]
    }
}

/// Ask the CPU to bring `p`'s cache line closer. A relay's queue is read one packet per hand-over, thousands
/// of events apart, and its packets were written long before: without the hint every read waits for memory.
#[inline(always)]
fn prefetch<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it reads nothing into the program and cannot fault.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((p as *const T).cast::<i8>())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// A selector route's default order: the offset's powers of two from the largest down.
pub fn default_route(offset: u32) -> Vec<u32> {
    (0..32).rev().map(|i| 1u32 << i).filter(|b| offset & b != 0).collect()
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
    flows: Vec<FlowState>,
    hot: Vec<FlowHot>,
    /// Flow indices per (source, destination), in flow order.
    local: Lists,
    /// Opera: which flows are low-latency, and the low-latency flows of each source.
    low_latency: Vec<bool>,
    ll_src: Vec<Vec<u32>>,
    reroutes: u64,
    no_path: u64,
    /// Per (source, destination): remaining bytes of started backlogged flows; whether rate-capped flows exist.
    backlog: Vec<u64>,
    capped: Vec<bool>,
    /// Selector routing: each flow's hops as offsets, and flow indices per (source, first offset).
    routes: Vec<Vec<u32>>,
    first_hop: Lists,
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
    /// Deliver datagrams at hand-over (see `deliver`) and skip slots nothing can use (see `useful_slot`); off,
    /// every arrival is an event and every slot opens (the reference path).
    fast: bool,
}

impl<'a> CircuitSim<'a> {
    pub fn new(spec: &'a CircuitSpec) -> Result<Self, EngineError> {
        super::validate::check(spec)?;
        let (n, s) = (spec.endpoints, spec.switches.len() as u32);
        let scheds: Vec<Schedule> = spec.switches.iter().map(|sw| Schedule::new(sw, n)).collect();
        if matches!(spec.routing, CircuitRouting::Rotorlb | CircuitRouting::Opera) {
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
        let ends: Vec<(u32, u32)> = spec.flows.iter().map(|f| (f.src / per, f.dst / per)).collect();
        let intra: Vec<bool> = ends.iter().map(|(a, b)| a == b).collect();
        let mut local = vec![Vec::new(); (n * n) as usize];
        let mut ll_src = vec![Vec::new(); n as usize];
        for (i, f) in spec.flows.iter().enumerate() {
            let (src, dst) = ends[i];
            if intra[i] || (low_latency[i] && f.transport == CircuitTransport::Tcp) {
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
        for (i, f) in spec.flows.iter().enumerate() {
            if low_latency[i] || intra[i] {
                continue;
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
        if spec.routing == CircuitRouting::Selector {
            first_hop = vec![Vec::new(); (n * n) as usize];
            for (i, f) in spec.flows.iter().enumerate() {
                let (src, dst) = ends[i];
                let r = f.route_offsets.clone().unwrap_or_else(|| default_route((dst + n - src) % n));
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
            events.push(Self::window_start(start, spec.tdma.prealloc_ps + spec.delay_ps), EventKind::SlotStart, i as u32);
        }
        // Flows that start by an event, and those starts in time order (see `quiet_until`).
        let mut starts = Vec::new();
        for (i, f) in spec.flows.iter().enumerate() {
            let tcp = low_latency[i] && f.transport == CircuitTransport::Tcp;
            if f.start_ps > 0 || tcp || intra[i] {
                events.push(f.start_ps, EventKind::FlowStart, i as u32);
                starts.push(f.start_ps);
            }
        }
        starts.sort_unstable();
        if let Some(o) = &spec.opera {
            events.push(o.origin_ps + o.slice_ps, EventKind::OperaSlice, 0);
        }
        let ports = (0..n * s).map(|_| PortState::default()).collect();
        let rngs = (0..n * s).map(|p| Rng::new(spec.seed, 0xC1C0 + p as u64)).collect();
        let flows = spec
            .flows
            .iter()
            .zip(&low_latency)
            .map(|(f, &ll)| FlowState {
                pending: Vec::new(),
                sender: (ll && f.transport == CircuitTransport::Tcp).then(|| Box::new(TcpSender::new(f.size_bytes, &spec.tcp))),
                rto_pending: None,
                receiver: TcpReceiver::new(f.size_bytes),
            })
            .collect();
        Ok(CircuitSim {
            spec,
            ends,
            intra,
            hosts: spec.hosts.as_ref().map(|h| HostLinks::new(h, n, spec.stats_window_ps.unwrap_or(0))),
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
            local: Lists::new(local),
            low_latency,
            ll_src,
            reroutes: 0,
            no_path: 0,
            backlog,
            capped,
            routes,
            first_hop: Lists::new(first_hop),
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

    /// When the fabric next gets work, if it has none now: every packet alive is on a circuit (none queued,
    /// none held by a relay) and every flow with bytes left has yet to start. Then nothing can be sent before
    /// the first of those packets arrives or the next flow starts, and that moment is returned.
    fn quiet_until(&self) -> Option<u64> {
        if self.live != self.in_pipes || self.unsent != (self.starts.len() - self.started) as u64 {
            return None;
        }
        let start = self.starts.get(self.started).copied();
        let arrival = self.ports.iter().filter_map(|p| p.pipe.front().map(|x| x.0)).min();
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

    pub fn run(mut self, watch: &mut dyn FnMut(&crate::Progress) -> bool) -> Result<CircuitResults, EngineError> {
        let started = Instant::now();
        let stop = self.spec.stop_ps.unwrap_or(u64::MAX);
        let mut stopped_by = "completion";
        // The first slot of each switch: remembered per switch so each SlotStart knows which slot it opens.
        let mut next_slot: Vec<(usize, i128)> = self.scheds.iter().map(|sc| sc.slot_at(0)).collect();
        while let Some(ev) = self.events.pop() {
            if ev.kind == EventKind::PortNext && self.ports[ev.arg as usize].next_at != Some(ev.time) {
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
                if fl.sender.as_ref().is_none_or(|t| t.rto_deadline.is_none()) {
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
                        && f.receiver.bytes_received() + f.pending.iter().map(|d| d.payload as u64).sum::<u64>() >= size)
            };
            let done = || flows.iter().zip(&self.hot).filter(|(f, h)| complete(f, h.size)).count() as u64;
            if crate::check_in(watch, self.events_done, self.now, self.spec.stop_ps, flows.len() as u64, done) {
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
                                t = o.origin_ps + (from - o.origin_ps).div_ceil(o.slice_ps) * o.slice_ps;
                            }
                        }
                        self.events.push(t, EventKind::OperaSlice, 0);
                    }
                }
                EventKind::FlowStart if self.flows[ev.arg as usize].sender.is_some() => {
                    self.started += 1;
                    let now = self.now;
                    let mut segs = Vec::new();
                    let tcp = self.tcp.clone();
                    self.flows[ev.arg as usize].sender.as_mut().expect("tcp").fill_window(now, &tcp, &mut segs);
                    self.send_segments(ev.arg, &segs);
                }
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
                format!("the run lasted {} ps, more than {} windows", self.now, crate::port::MAX_WINDOWS),
            ));
        }
        Ok(self.results(started.elapsed().as_secs_f64(), stopped_by))
    }

    /// Every flow has handed out all its bytes and no packet is left anywhere: no slot needs to open again.
    fn finished(&self) -> bool {
        self.unsent == 0 && self.live == 0
    }

    // ---- packets -----------------------------------------------------------------------------------

    fn alloc(&mut self, p: CPacket) -> u32 {
        self.born();
        self.slot_for(p)
    }

    /// Flow `f` hands `len` bytes to a new packet: returns their first sequence number.
    fn hand_out(&mut self, f: u32, len: u64) -> u64 {
        let h = &mut self.hot[f as usize];
        let seq = h.sent;
        h.sent += len;
        h.packets_sent += 1;
        if h.sent >= h.size {
            self.unsent -= 1;
        }
        self.born();
        seq
    }

    /// A new packet exists (with or without a pool slot).
    fn born(&mut self) {
        self.live += 1;
        self.peak_live = self.peak_live.max(self.live);
        self.created += 1;
    }

    /// A packet is gone (delivered or dropped); its pool slot, if it had one, is free again.
    fn retire(&mut self, slot: Option<u32>) {
        self.live -= 1;
        if let Some(i) = slot {
            self.free.push(i);
        }
    }

    /// A pool slot for a packet that is alive already (queued, or entering a pipe): not a new packet.
    fn slot_for(&mut self, p: CPacket) -> u32 {
        if let Some(i) = self.free.pop() {
            self.pkts[i as usize] = p;
            i
        } else {
            self.pkts.push(p);
            (self.pkts.len() - 1) as u32
        }
    }

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
        self.msgs[i as usize].take().expect("a control packet's message is alive")
    }

    /// Header and framing bytes of a data packet on the wire.
    fn data_header(&self) -> u32 {
        self.spec.packet.header_bytes + self.spec.packet.frame_overhead_bytes
    }

    fn full_packet_wire(&self) -> u32 {
        let p = &self.spec.packet;
        p.payload_bytes + p.header_bytes + p.frame_overhead_bytes
    }

    /// Payload bytes an uplink can send in a window of `len` ps, in full-size packets.
    fn window_payload(&self, len: u64) -> u64 {
        let per = self.clock.time_ps(self.full_packet_wire() as u64);
        (len / per) * self.spec.packet.payload_bytes as u64
    }

    /// Flow `f` has a whole packet to send, or its last bytes: a rate-capped flow waits for a full packet
    /// rather than trickling out the bytes its rate earned since its last one.
    fn ready(&self, f: u32) -> bool {
        let h = &self.hot[f as usize];
        let left = h.size - h.sent;
        let avail = self.available(f);
        left > 0 && avail >= left.min(self.spec.packet.payload_bytes as u64) && self.nic_ready(f, avail)
    }

    /// Bytes all flows from `e` to `d` could hand out now: the started backlogged flows' remainder (kept as a
    /// running sum, as every slot's offers ask for it) plus what rate-capped flows have earned.
    fn pair_available(&self, e: u32, d: u32) -> u64 {
        let at = (e * self.n + d) as usize;
        let mut sum = self.backlog[at];
        if self.capped[at] {
            sum += self.local
                .get(at)
                .iter()
                .filter(|&&f| self.hot[f as usize].rate > 0)
                .map(|&f| self.available(f))
                .sum::<u64>();
        }
        sum
    }

    /// Bytes flow `f` could hand out now: all that is left once started, or what its rate has earned.
    fn available(&self, f: u32) -> u64 {
        let h = &self.hot[f as usize];
        if self.now < h.start {
            return 0;
        }
        let earned = match h.rate {
            0 => h.size,
            r => {
                let e = (r as u128 * (self.now - h.start) as u128 / 8_000_000_000_000u128) as u64;
                e.min(h.size)
            }
        };
        earned.saturating_sub(h.sent)
    }

    /// When the first of flows `fs` will have a whole packet (or its last bytes) to send, if ever.
    fn earliest_available(&self, fs: &[u32]) -> Option<u64> {
        let pay = self.spec.packet.payload_bytes as u64;
        fs.iter()
            .filter_map(|&f| {
                let h = &self.hot[f as usize];
                if h.sent >= h.size {
                    return None;
                }
                let need = (h.sent + pay).min(h.size);
                let earned = match h.rate {
                    0 => h.start,
                    r => {
                        let dt = (need as u128 * 8_000_000_000_000u128).div_ceil(r as u128) as u64;
                        h.start + dt
                    }
                };
                Some(earned.max(self.nic_ready_at(f, need - h.sent)))
            })
            .min()
    }

    // ---- slots -------------------------------------------------------------------------------------

    fn slot_start(&mut self, sw: u32, k: usize, start: i128) {
        let t = &self.spec.tdma;
        let uptime = self.scheds[sw as usize].uptimes[k];
        // Senders are synchronised to the switch: they lead its slot by the fibre's delay and the
        // preallocation (the expected send-to-wire lag), and stop a guard time before the uptime ends.
        let lead = t.prealloc_ps as i128 + self.spec.delay_ps as i128;
        let win_start = Self::window_start(start, lead as u64).max(self.now);
        let win_end = (start + uptime as i128 - t.guard_ps as i128 - lead).max(0) as u64;
        for e in 0..self.n {
            let port = e * self.s + sw;
            let peer = self.scheds[sw as usize].peers[k][e as usize];
            let ps = &mut self.ports[port as usize];
            // Control messages and budgets of the last slot are void: their circuit is gone.
            while let Some(c) = ps.control.pop_front() {
                let pk = self.pkts[c as usize];
                self.free_msgs.push(pk.msg);
                self.msgs[pk.msg as usize] = None;
                self.live -= 1;
                self.free.push(c);
                self.no_circuit += 1;
                ps.no_circuit_drops += 1;
            }
            ps.relay_budget.clear();
            ps.slot_start = start;
            ps.up_end = start + uptime as i128;
            ps.win_start = win_start;
            ps.win_end = win_end;
            ps.peer = (peer != e && win_end > win_start).then_some(peer);
            self.peer_of[port as usize] = ps.peer.unwrap_or(u32::MAX);
            ps.next_handover = ps.next_handover.max(win_start);
        }
        if self.balances() {
            for e in 0..self.n {
                self.send_offer(e * self.s + sw);
            }
        }
        for e in 0..self.n {
            self.wake(e * self.s + sw);
        }
    }

    fn send_offer(&mut self, port: u32) {
        let Some(peer) = self.ports[port as usize].peer else { return };
        let e = port / self.s;
        let (ws, we) = (self.ports[port as usize].win_start, self.ports[port as usize].win_end);
        let cap = self.window_payload(we - ws);
        let stored = self.held[(e * self.n + peer) as usize];
        let direct = self.pair_available(e, peer);
        let capacity = cap.saturating_sub(stored).saturating_sub(direct);
        let mut bytes = vec![0u64; self.n as usize];
        for d in 0..self.n {
            if d != e && d != peer {
                let avail = self.pair_available(e, d);
                bytes[d as usize] = avail.min(cap);
            }
        }
        if capacity == 0 || bytes.iter().all(|&b| b == 0) {
            return; // nothing to offer: the peer expects no offer from an uplink that sends none (see below)
        }
        let slot_start = self.ports[port as usize].slot_start;
        let msg = self.new_msg(Msg { slot_start, offer: Offer { bytes, capacity }, accepted: Vec::new() });
        self.push_control(port, Kind::Offer, peer, msg);
    }

    fn push_control(&mut self, port: u32, kind: Kind, to: u32, msg: u32) {
        let p = &self.spec.packet;
        let wire = p.control_bytes + p.frame_overhead_bytes;
        let id = self.alloc(CPacket {
            kind,
            flow: u32::MAX,
            dst: to,
            wire_bytes: wire,
            payload: 0,
            seq: 0,
            ts: self.now,
            msg,
            relayed: false,
            hop: 0,
            ll: false,
            retx: false,
        });
        self.ports[port as usize].control.push_back(id);
        self.wake(port);
    }

    /// Make sure `port` looks for work at the earliest time it may hand over a packet.
    fn wake(&mut self, port: u32) {
        let ps = &mut self.ports[port as usize];
        if ps.peer.is_none() || self.now >= ps.win_end {
            return;
        }
        let t = ps.next_handover.max(self.now).max(ps.win_start);
        if ps.next_at.is_none_or(|p| p > t) {
            ps.next_at = Some(t);
            self.events.push(t, EventKind::PortNext, port);
        }
    }

    fn wake_endpoint(&mut self, e: u32) {
        for sw in 0..self.s {
            self.wake(e * self.s + sw);
        }
    }

    // ---- sending -----------------------------------------------------------------------------------

    fn port_next(&mut self, port: u32) {
        let Some(peer) = self.ports[port as usize].peer else { return };
        let e = port / self.s;
        let n = self.n;
        let now = self.now;
        if now >= self.ports[port as usize].win_end {
            return;
        }
        let pkt_hdr = self.data_header();
        let pay = self.spec.packet.payload_bytes as u64;
        // 1. control
        if let Some(&c) = self.ports[port as usize].control.front() {
            if self.fits(port, self.pkts[c as usize].wire_bytes) {
                self.ports[port as usize].control.pop_front();
                self.transmit(port, peer, self.pkts[c as usize], Some(c));
            }
            return;
        }
        if self.spec.routing == CircuitRouting::Opera && self.low_latency_next(port, peer) {
            return;
        }
        let routing = self.spec.routing;
        let off = (peer + n - e) % n;
        // 2. stored relayed traffic that this circuit moves on (held per next hop)
        let q = (e * n + peer) as usize;
        if self.relay_len[q] > 0 {
            let head = self.relay[q].front().expect("counted");
            if self.fits(port, head.payload + pkt_hdr) {
                let h = self.relay[q].pop_front().expect("non-empty");
                self.relay_len[q] -= 1;
                if let Some(next) = self.relay[q].front() {
                    prefetch(next);
                }
                self.held[q] -= h.payload as u64;
                let pk = CPacket {
                    kind: Kind::Data,
                    flow: h.flow,
                    dst: h.dst,
                    wire_bytes: h.payload + pkt_hdr,
                    payload: h.payload,
                    seq: h.seq,
                    ts: h.ts,
                    msg: 0,
                    relayed: true,
                    hop: h.hop,
                    ll: false,
                    retx: false,
                };
                self.transmit(port, peer, pk, None);
            }
            return;
        }
        // 3. the endpoint's own traffic for the peer (selector: flows whose route starts with this hop), then
        // 4. RotorLB phase 3: what the peer accepted to relay, per final destination
        let primary = match routing {
            CircuitRouting::Selector => ((e * n + off) as usize, peer, false),
            _ => ((e * n + peer) as usize, peer, false),
        };
        let extra = if self.balances() { self.ports[port as usize].relay_budget.len() } else { 0 };
        let mut wake_at: Option<u64> = None;
        for c in 0..=extra {
            let (list, d, via_relay) = if c == 0 {
                primary
            } else {
                let (d, b) = self.ports[port as usize].relay_budget[c - 1];
                if b == 0 {
                    continue;
                }
                ((e * n + d) as usize, d, true)
            };
            let flows = if routing == CircuitRouting::Selector { self.first_hop.get(list) } else { self.local.get(list) };
            // Round robin over the list's flows (selector lists mix destinations), first come otherwise.
            let len_list = flows.len();
            let start = if routing == CircuitRouting::Selector { self.ports[port as usize].rr as usize } else { 0 };
            let Some(f) = (0..len_list).map(|i| flows[(start + i) % len_list]).find(|&f| self.ready(f)) else {
                if let Some(t) = self.earliest_available(flows) {
                    wake_at = Some(wake_at.map_or(t, |w| w.min(t)));
                }
                continue;
            };
            let d = if routing == CircuitRouting::Selector { self.ends[f as usize].1 } else { d };
            let mut len = self.available(f).min(pay);
            if via_relay {
                let b = self.ports[port as usize].relay_budget.iter().find(|(x, _)| *x == d).map_or(0, |x| x.1);
                len = len.min(b);
            }
            let wire = len as u32 + pkt_hdr;
            if !self.fits(port, wire) {
                return; // the window cannot take this packet: stop early (the guard)
            }
            if via_relay {
                for x in self.ports[port as usize].relay_budget.iter_mut().filter(|x| x.0 == d) {
                    x.1 -= len;
                }
            }
            let seq = self.hand_out(f, len);
            self.pull_from_host(f, wire);
            if self.hot[f as usize].rate == 0 && !self.low_latency[f as usize] {
                self.backlog[(e * n + d) as usize] -= len;
            }
            let pk = CPacket {
                kind: Kind::Data,
                flow: f,
                dst: d,
                wire_bytes: wire,
                payload: len as u32,
                seq,
                ts: now,
                msg: 0,
                relayed: via_relay || d != peer,
                hop: 1,
                ll: false,
                retx: false,
            };
            if routing == CircuitRouting::Selector {
                let len_list = self.first_hop.get(list).len();
                let at = self.first_hop.get(list).iter().position(|&x| x == f).expect("listed");
                self.ports[port as usize].rr = ((at + 1) % len_list) as u32;
            }
            self.transmit(port, peer, pk, None);
            return;
        }
        // Nothing to send now: wake when a rate-capped flow will have a packet (arrivals wake us otherwise).
        if let Some(t) = wake_at {
            if t > now && t < self.ports[port as usize].win_end {
                let ps = &mut self.ports[port as usize];
                if ps.next_at.is_none_or(|p| p > t) {
                    ps.next_at = Some(t);
                    self.events.push(t, EventKind::PortNext, port);
                }
            }
        }
    }

    /// Does a packet of `wire` bytes handed over now finish before the window closes?
    #[inline]
    fn fits(&self, port: u32, wire: u32) -> bool {
        self.now + self.clock.time_ps(wire as u64) <= self.ports[port as usize].win_end
    }

    fn lag(&mut self, port: u32) -> u64 {
        let t = &self.spec.tdma;
        let mut lag = t.lag_ps;
        if t.jitter_mean_ps == 0 && t.stall_prob == 0.0 {
            return lag;
        }
        let rng = &mut self.rngs[port as usize];
        let mut unit = || ((rng.next_u64() >> 11) as f64 + 1.0) / (1u64 << 53) as f64; // (0, 1]
        if t.jitter_mean_ps > 0 {
            lag += (-(t.jitter_mean_ps as f64) * unit().ln()) as u64;
        }
        if t.stall_prob > 0.0 && unit() <= t.stall_prob {
            lag += if t.stall_law == "fixed" { t.stall_ps } else { (-(t.stall_ps as f64) * unit().ln()) as u64 };
        }
        lag
    }

    /// Hand packet `pk` to `port`'s NIC. `slot` is its pool slot if it has one (queued control and low-latency
    /// packets); a packet made at hand-over or leaving a relay's store gets one only if it enters the pipe.
    fn transmit(&mut self, port: u32, peer: u32, pk: CPacket, slot: Option<u32>) {
        let wire = pk.wire_bytes;
        let ser = self.clock.time_ps(wire as u64);
        let lag = self.lag(port);
        let delay = self.spec.delay_ps;
        let e = port / self.s;
        let sw = (port % self.s) as usize;
        let ps = &mut self.ports[port as usize];
        let w = (self.now + lag).max(ps.wire_free);
        ps.wire_free = w + ser;
        ps.next_handover = self.now + ser;
        ps.bytes_sent += wire as u64;
        ps.packets_sent += 1;
        ps.busy_ps += ser;
        self.hops += 1;
        if let Some(win) = w.checked_div(self.window_ps) {
            Self::count(&mut self.win_tx[e as usize], win, wire as u64, &mut self.windows_overflowed);
        }
        // The switch passes the packet only inside the uptime of the circuit to the intended peer.
        let a0 = w + delay;
        // Most packets reach the switch inside the uptime of the port's own slot, whose circuit is `peer`'s; the
        // schedule is searched only for the others (sent early into the last slot, or late past the uptime).
        let ps = &self.ports[port as usize];
        let ok = if a0 as i128 >= ps.slot_start && (a0 + ser) as i128 <= ps.up_end {
            true
        } else {
            matches!(self.scheds[sw].circuit_at(e, a0), Some((q, end)) if q == peer && (a0 + ser) as i128 <= end)
        };
        if ok {
            let arrival = a0 + ser + delay;
            if self.fast
                && self.hosts.is_none()
                && pk.kind == Kind::Data
                && pk.dst == peer
                && (!pk.ll || self.flows[pk.flow as usize].sender.is_none())
                && self.spec.stop_ps.is_none_or(|stop| arrival <= stop)
            {
                self.retire(slot);
                self.deliver(pk, arrival);
                return self.wake_after_handover(port);
            }
            let id = slot.unwrap_or_else(|| self.slot_for(pk));
            let ps = &mut self.ports[port as usize];
            ps.pipe.push_back((arrival, id, peer));
            self.in_pipes += 1;
            if ps.pipe.len() == 1 {
                self.events.push(arrival, EventKind::CircuitArrival, port);
            }
        } else {
            if matches!(pk.kind, Kind::Offer | Kind::Accept) {
                self.take_msg(pk.msg);
            }
            self.retire(slot);
            self.no_circuit += 1;
            self.ports[port as usize].no_circuit_drops += 1;
        }
        self.wake_after_handover(port);
    }

    /// The uplink looks for its next packet when the one just handed over has left the NIC.
    fn wake_after_handover(&mut self, port: u32) {
        let ps = &mut self.ports[port as usize];
        let t = ps.next_handover;
        if t < ps.win_end && ps.next_at.is_none_or(|p| p > t) {
            ps.next_at = Some(t);
            self.events.push(t, EventKind::PortNext, port);
        }
    }

    /// A datagram's last hop was handed over and its circuit will carry it: it is delivered at `arrival`
    /// without an event of its own. Nothing a sender decides depends on a datagram's delivery, so only its
    /// receiver must see the flow's packets in arrival order: they wait in the flow's `pending` list, sorted by
    /// arrival (then hand-over order), and are shown to the receiver once no packet handed over later can
    /// arrive before them (every hand-over reaches the far end at least `min_transit_ps` after it), or at the
    /// end of the run. This halves the events of a datagram run (one per hop instead of two).
    fn deliver(&mut self, pk: CPacket, arrival: u64) {
        self.delivered += 1;
        self.payload_delivered += pk.payload as u64;
        self.last_delivery = self.last_delivery.max(arrival);
        if let Some(w) = arrival.checked_div(self.window_ps) {
            Self::count(&mut self.win_rx[pk.dst as usize], w, pk.payload as u64, &mut self.windows_overflowed);
        }
        if pk.relayed {
            self.max_relay_delay = self.max_relay_delay.max(arrival - pk.ts);
        }
        let settled = self.now + self.min_transit_ps;
        let d = Delivery { arrival, seq: pk.seq, ts: pk.ts, payload: pk.payload, retx: pk.retx };
        let fl = &mut self.flows[pk.flow as usize];
        let at = fl.pending.iter().rposition(|x| x.arrival <= arrival).map_or(0, |i| i + 1);
        fl.pending.insert(at, d);
        let ready = fl.pending.iter().take_while(|x| x.arrival <= settled).count();
        Self::show(fl, ready, &self.tcp);
    }

    /// Hand the first `count` pending deliveries of a flow to its receiver.
    fn show(fl: &mut FlowState, count: usize, tcp: &TcpSpec) {
        for d in fl.pending.drain(..count) {
            fl.receiver.on_data(d.arrival, d.seq, d.payload, d.retx, d.ts, tcp);
        }
    }

    fn count(row: &mut Vec<u64>, w: u64, bytes: u64, overflowed: &mut bool) {
        if w >= crate::port::MAX_WINDOWS {
            *overflowed = true;
            return;
        }
        let w = w as usize;
        if row.len() <= w {
            row.resize(w + 1, 0);
        }
        row[w] += bytes;
    }

    // ---- receiving ---------------------------------------------------------------------------------

    fn arrival(&mut self, port: u32) {
        let ps = &mut self.ports[port as usize];
        let (_, id, to) = ps.pipe.pop_front().expect("an arrival has a packet");
        self.in_pipes -= 1;
        if let Some(&(next, _, _)) = ps.pipe.front() {
            self.events.push(next, EventKind::CircuitArrival, port);
        }
        let sw = port % self.s;
        let pk = self.pkts[id as usize];
        match pk.kind {
            Kind::Data | Kind::Ack if pk.dst == to && self.hosts.is_some() => self.down_to_host(id),
            Kind::Data if pk.dst == to => self.data_at_destination(id, to),
            Kind::Ack if pk.dst == to => self.ack_at_source(id),
            Kind::Data | Kind::Ack if pk.ll => {
                self.pkts[id as usize].hop = pk.hop.saturating_add(1);
                self.route_low_latency(to, id);
            }
            _ => self.arrival_elsewhere(id, to, sw),
        }
    }

    /// A data packet reached its destination (the endpoint `to`, or its host): delivered to the flow's
    /// receiver; a TCP segment is acknowledged at once (our choice: no delayed ACKs on circuits).
    fn data_at_destination(&mut self, id: u32, to: u32) {
        let pk = self.pkts[id as usize];
        self.release(id);
        self.delivered += 1;
        self.payload_delivered += pk.payload as u64;
        if let Some(w) = self.now.checked_div(self.window_ps) {
            Self::count(&mut self.win_rx[to as usize], w, pk.payload as u64, &mut self.windows_overflowed);
        }
        if pk.relayed {
            self.max_relay_delay = self.max_relay_delay.max(self.now - pk.ts);
        }
        let tcp = &self.tcp;
        let fl = &mut self.flows[pk.flow as usize];
        fl.receiver.on_data(self.now, pk.seq, pk.payload, pk.retx, pk.ts, tcp);
        if fl.sender.is_some() {
            // Every segment is acknowledged at once (our choice: no delayed ACKs on circuits).
            let (ack, echo) = fl.receiver.take_ack();
            let wire = self.tcp.header_bytes + self.spec.packet.frame_overhead_bytes;
            let src = self.ends[pk.flow as usize].0;
            let ack_id = self.alloc(CPacket {
                kind: Kind::Ack,
                flow: pk.flow,
                dst: src,
                wire_bytes: wire,
                payload: 0,
                seq: ack,
                ts: echo,
                msg: 0,
                relayed: false,
                hop: 1,
                ll: true,
                retx: false,
            });
            self.emit(self.spec.flows[pk.flow as usize].dst, ack_id);
        }
    }

    /// A TCP ACK reached its flow's source (endpoint or host).
    fn ack_at_source(&mut self, id: u32) {
        let pk = self.pkts[id as usize];
        self.release(id);
        self.control_received += 1;
        let now = self.now;
        let tcp = self.tcp.clone();
        let mut segs = Vec::new();
        if let Some(s) = self.flows[pk.flow as usize].sender.as_mut() {
            let was_done = s.done();
            s.on_ack(now, pk.seq, pk.ts, &tcp, &mut segs);
            if s.done() && !was_done {
                self.unsent -= 1;
            }
        }
        self.send_segments(pk.flow, &segs);
    }

    /// A packet reached an endpoint that is not its destination: a relay (data), or a control message's peer.
    fn arrival_elsewhere(&mut self, id: u32, to: u32, sw: u32) {
        let pk = self.pkts[id as usize];
        match pk.kind {
            Kind::Data => {
                // Held for the next hop: the destination itself (RotorLB) or the route's next offset (selector).
                let next = if self.spec.routing == CircuitRouting::Selector {
                    let off = self.routes[pk.flow as usize][pk.hop as usize];
                    self.pkts[id as usize].hop += 1;
                    (to + off) % self.n
                } else {
                    pk.dst
                };
                let q = (to * self.n + next) as usize;
                let p = self.pkts[id as usize];
                debug_assert!(p.relayed && !p.retx && p.wire_bytes == p.payload + self.data_header());
                self.free.push(id); // the packet stays alive (counted in `live`), held by value
                self.relay_len[q] += 1;
                self.relay[q].push_back(Held {
                    seq: p.seq,
                    ts: p.ts,
                    flow: p.flow,
                    dst: p.dst,
                    payload: p.payload,
                    hop: p.hop,
                });
                self.held[q] += pk.payload as u64;
                self.relayed += 1;
                // Only an uplink whose circuit reaches `next` serves this queue: wake that one, not all.
                for sw in 0..self.s {
                    if self.peer_of[(to * self.s + sw) as usize] == next {
                        self.wake(to * self.s + sw);
                    }
                }
            }
            Kind::Ack => unreachable!("an ACK always travels the low-latency class"),
            Kind::Offer => {
                self.release(id);
                self.control_received += 1;
                self.mailbox[to as usize].push((pk.msg, to * self.s + sw));
                self.maybe_accept(to, pk.msg);
            }
            Kind::Accept => {
                self.release(id);
                self.control_received += 1;
                let m = self.take_msg(pk.msg);
                let my_port = to * self.s + sw;
                let ps = &mut self.ports[my_port as usize];
                if ps.slot_start == m.slot_start && ps.peer.is_some() {
                    ps.relay_budget = m
                        .accepted
                        .iter()
                        .enumerate()
                        .filter(|(_, &b)| b > 0)
                        .map(|(d, &b)| (d as u32, b))
                        .collect();
                    self.wake(my_port);
                }
            }
        }
    }

    /// Phase 2 at relay `r`: once every neighbour that will offer in this slot has, accept for all of them.
    fn maybe_accept(&mut self, r: u32, msg: u32) {
        let slot_start = self.msgs[msg as usize].as_ref().expect("alive").slot_start;
        let mine: Vec<(u32, u32)> = self.mailbox[r as usize]
            .iter()
            .copied()
            .filter(|(m, _)| self.msgs[*m as usize].as_ref().is_some_and(|x| x.slot_start == slot_start))
            .collect();
        // Neighbours that will offer: the peers of r's uplinks in this slot whose own offer was non-empty. We
        // cannot know the latter at r without a message, so every uplink of a peer offers or is silent, and
        // r waits for the offers of the peers it can see; silent peers are learnt from the other offers' time:
        // all offers of one slot are sent at its start and travel the same delay, so they arrive together.
        let expected = (0..self.s)
            .filter(|&sw| {
                let ps = &self.ports[(r * self.s + sw) as usize];
                ps.peer.is_some() && ps.slot_start == slot_start
            })
            .count();
        let pending_same_time = mine.len() < expected && self.events_pending_offer(r, slot_start);
        if pending_same_time {
            return;
        }
        self.mailbox[r as usize].retain(|(m, _)| !mine.iter().any(|(x, _)| x == m));
        let ws = self.ports[mine[0].1 as usize].win_start;
        let we = self.ports[mine[0].1 as usize].win_end;
        let slot_bytes = self.window_payload(we - ws);
        // Room per destination: one window's worth less what r already queues for it, relayed and its own
        // (seed 001 Algorithm 1: a relay never takes on more for d than one slot to d can carry).
        let room: Vec<u64> = (0..self.n)
            .map(|d| {
                let queued = self.held[(r * self.n + d) as usize] + self.pair_available(r, d);
                slot_bytes.saturating_sub(queued)
            })
            .collect();
        let offers: Vec<Offer> =
            mine.iter().map(|(m, _)| self.msgs[*m as usize].as_ref().expect("alive").offer.clone()).collect();
        let acc = accept(&room, &offers);
        for ((m, port), accepted) in mine.into_iter().zip(acc) {
            let sender = self.ports[port as usize].peer.expect("an uplink that got an offer is up");
            let msg = self.msgs[m as usize].as_mut().expect("alive");
            msg.accepted = accepted;
            self.push_control(port, Kind::Accept, sender, m);
        }
    }

    /// Is another offer for relay `r` of the slot starting at `slot_start` still on its way?
    fn events_pending_offer(&self, r: u32, slot_start: i128) -> bool {
        (0..self.s).any(|sw| {
            let peer_port = |p: u32| p * self.s + sw;
            let ps = &self.ports[(r * self.s + sw) as usize];
            let Some(peer) = ps.peer else { return false };
            if ps.slot_start != slot_start {
                return false;
            }
            let pp = &self.ports[peer_port(peer) as usize];
            pp.control.iter().any(|&c| self.pkts[c as usize].kind == Kind::Offer)
                || pp.pipe.iter().any(|&(_, id, _)| self.pkts[id as usize].kind == Kind::Offer)
        })
    }

    // ---- TCP on Opera's low-latency class ----------------------------------------------------------

    /// Queue a TCP flow's segments at its source on the current slice's paths and keep its timer armed.
    fn send_segments(&mut self, f: u32, segs: &[Segment]) {
        let src = self.spec.flows[f as usize].src;
        let dst = self.ends[f as usize].1;
        let hdr = self.tcp.header_bytes + self.spec.packet.frame_overhead_bytes;
        for seg in segs {
            let h = &mut self.hot[f as usize];
            h.packets_sent += 1;
            h.sent = h.sent.max(seg.seq + seg.len as u64);
            let id = self.alloc(CPacket {
                kind: Kind::Data,
                flow: f,
                dst,
                wire_bytes: seg.len + hdr,
                payload: seg.len,
                seq: seg.seq,
                ts: self.now,
                msg: 0,
                relayed: false,
                hop: 1,
                ll: true,
                retx: seg.retx,
            });
            self.emit(src, id);
        }
        let fl = &mut self.flows[f as usize];
        if let Some(d) = fl.sender.as_ref().and_then(|s| s.rto_deadline) {
            if fl.rto_pending.is_none_or(|p| p > d) {
                fl.rto_pending = Some(d);
                self.events.push(d, EventKind::RtoTimer, f);
            }
        }
    }

    fn rto_timer(&mut self, f: u32) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        fl.rto_pending = None;
        let Some(sender) = fl.sender.as_mut() else { return };
        let mut segs = Vec::new();
        match sender.rto_deadline {
            Some(d) if d <= now => {
                let tcp = self.tcp.clone();
                sender.on_timeout(now, &tcp, &mut segs);
                self.send_segments(f, &segs);
            }
            Some(_) => self.send_segments(f, &segs), // moved later: re-arm
            None => {}
        }
    }

    // ---- Opera's low-latency routing --------------------------------------------------------------

    /// RotorLB negotiates on this run (RotorLB itself, or Opera's bulk traffic).
    fn balances(&self) -> bool {
        matches!(self.spec.routing, CircuitRouting::Rotorlb | CircuitRouting::Opera)
    }

    /// The switch whose circuit from `at` leads towards `dst` in the current slice (None: no path).
    fn next_switch(&self, at: u32, dst: u32) -> Option<u32> {
        let o = self.spec.opera.as_ref().expect("opera routing has its table");
        let slice = (self.now.saturating_sub(o.origin_ps) / o.slice_ps) % o.slices as u64;
        let x = o.next_switch[((slice as usize * self.n as usize) + at as usize) * self.n as usize + dst as usize];
        (x != 255).then_some(x as u32)
    }

    /// Queue low-latency packet `id` at endpoint `at` on the uplink of the current slice's path, or drop it
    /// (counted) where the slice has no path.
    fn route_low_latency(&mut self, at: u32, id: u32) {
        match self.next_switch(at, self.pkts[id as usize].dst) {
            Some(sw) => {
                let port = at * self.s + sw;
                // The circuit this packet is queued for: it keeps it while that circuit lasts.
                self.pkts[id as usize].msg = self.ports[port as usize].peer.unwrap_or(u32::MAX);
                self.ports[port as usize].ll.push_back(id);
                self.wake(port);
            }
            None => {
                self.release(id);
                self.no_path += 1;
            }
        }
    }

    /// A new slice: packets queued on an uplink whose circuit has gone (its switch reconfigures) take the new
    /// slice's path from where they are, each move counted as a re-route (seed 001 lines 914-918); packets on
    /// circuits that stay up keep them. Every uplink then looks again for low-latency work.
    fn new_slice(&mut self) {
        for port in 0..self.n * self.s {
            let ps = &self.ports[port as usize];
            if ps.ll.is_empty() || (ps.peer.is_some() && self.now < ps.win_end) {
                continue;
            }
            let at = port / self.s;
            for id in std::mem::take(&mut self.ports[port as usize].ll) {
                self.reroutes += 1;
                self.route_low_latency(at, id);
            }
        }
        for port in 0..self.n * self.s {
            self.wake(port);
        }
    }

    /// Serve Opera's low-latency class on `port`: queued packets first, then this endpoint's own low-latency
    /// flows whose current path starts here. Returns whether the port is busy with it (sent or must wait).
    fn low_latency_next(&mut self, port: u32, peer: u32) -> bool {
        let (e, sw) = (port / self.s, port % self.s);
        while let Some(&id) = self.ports[port as usize].ll.front() {
            if Some(self.pkts[id as usize].msg) != self.ports[port as usize].peer {
                // The circuit it was queued for is gone: re-route on the current slice's path.
                self.ports[port as usize].ll.pop_front();
                self.reroutes += 1;
                self.route_low_latency(e, id);
                continue;
            }
            if self.fits(port, self.pkts[id as usize].wire_bytes) {
                self.ports[port as usize].ll.pop_front();
                self.transmit(port, peer, self.pkts[id as usize], Some(id));
            }
            return true;
        }
        let flows = &self.ll_src[e as usize];
        let count = flows.len();
        let start = self.ports[port as usize].ll_rr;
        let pick = (0..count)
            .map(|i| (start + i) % count)
            .find(|&i| {
                let f = flows[i];
                self.ready(f) && self.next_switch(e, self.ends[f as usize].1) == Some(sw)
            });
        let Some(i) = pick else {
            self.wake_for_low_latency(port, e);
            return false;
        };
        let f = self.ll_src[e as usize][i];
        let pay = self.spec.packet.payload_bytes as u64;
        let len = self.available(f).min(pay);
        let wire = len as u32 + self.data_header();
        if !self.fits(port, wire) {
            return true;
        }
        let seq = self.hand_out(f, len);
        self.pull_from_host(f, wire);
        let dst = self.ends[f as usize].1;
        let pk = CPacket {
            kind: Kind::Data,
            flow: f,
            dst,
            wire_bytes: wire,
            payload: len as u32,
            seq,
            ts: self.now,
            msg: 0,
            relayed: false,
            hop: 1,
            ll: true,
            retx: false,
        };
        self.ports[port as usize].ll_rr = (i + 1) % count;
        self.transmit(port, peer, pk, None);
        true
    }

    // ---- results -----------------------------------------------------------------------------------

    fn results(self, wall_s: f64, stopped_by: &'static str) -> CircuitResults {
        let flows = self
            .spec
            .flows
            .iter()
            .zip(self.flows.iter().zip(&self.hot))
            .map(|(f, (s, h))| CircuitFlowResult {
                id: f.id,
                src: f.src,
                dst: f.dst,
                size_bytes: f.size_bytes,
                start_ps: f.start_ps,
                completed: s.receiver.finish.is_some(),
                finish_ps: s.receiver.finish,
                fct_ps: s.receiver.finish.map(|t| t - f.start_ps),
                bytes_sent: h.sent,
                data_packets_sent: h.packets_sent,
                bytes_received: s.receiver.bytes_received(),
                packets_received: s.receiver.stats.packets_received,
                ooo_packets: s.receiver.stats.ooo_packets,
                transport: if s.sender.is_some() { "tcp" } else { "datagram" },
                retransmits: s.sender.as_ref().map_or(0, |t| t.stats.retransmits),
                timeouts: s.sender.as_ref().map_or(0, |t| t.stats.timeouts),
            })
            .collect::<Vec<_>>();
        let ports = self
            .ports
            .iter()
            .enumerate()
            .map(|(i, p)| CircuitPortResult {
                endpoint: i as u32 / self.s,
                switch: i as u32 % self.s,
                bytes_sent: p.bytes_sent,
                packets_sent: p.packets_sent,
                busy_ps: p.busy_ps,
                no_circuit_drops: p.no_circuit_drops,
            })
            .collect();
        let series = (self.window_ps > 0).then(|| {
            let width = self.win_rx.iter().chain(&self.win_tx).map(|r| r.len()).max().unwrap_or(0);
            let width = width.max(self.hosts.as_ref().map_or(0, |h| h.width()));
            let [hps, hbs, hpr, hbr] = match &self.hosts {
                Some(h) => h.series(width).map(Some),
                None => [None, None, None, None],
            };
            let pad = |rows: &Vec<Vec<u64>>| {
                rows.iter()
                    .map(|r| {
                        let mut v = r.clone();
                        v.resize(width, 0);
                        v
                    })
                    .collect()
            };
            CircuitSeries {
                window_ps: self.window_ps,
                endpoint_payload_bytes_received: pad(&self.win_rx),
                endpoint_wire_bytes_sent: pad(&self.win_tx),
                host_packets_sent: hps,
                host_bytes_sent: hbs,
                host_packets_received: hpr,
                host_bytes_received: hbr,
            }
        });
        let flows_completed = flows.iter().filter(|f| f.completed).count() as u64;
        CircuitResults {
            summary: CircuitSummary {
                sim_time_ps: self.now,
                events: self.events_done,
                packet_hops: self.hops,
                wall_s,
                packets_created: self.created,
                packets_delivered: self.delivered,
                control_packets_received: self.control_received,
                relayed_packets: self.relayed,
                no_circuit_drops: self.no_circuit,
                no_path_drops: self.no_path,
                low_latency_reroutes: self.reroutes,
                packets_in_flight: self.live,
                payload_bytes_delivered: self.payload_delivered,
                max_relay_delay_ps: self.max_relay_delay,
                flows_completed,
                stopped_by,
                peak_packets_alive: self.peak_live,
                host_link_drops: self.hosts.as_ref().map(|h| h.drops()),
            },
            flows,
            ports,
            hosts: self.hosts.as_ref().map(|h| h.results()),
            series,
        }
    }
}
