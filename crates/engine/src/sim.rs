//! The simulator: owns the network, the packets and the event loop of one run. A `Sim` is a plain value, so
//! several runs can live in one process and on several threads.

use std::time::Instant;

use crate::error::EngineError;
use crate::event::{EventKind, EventQueue, NO_HINT};
use crate::hugevec::HugeVec;
use crate::ndp::{NdpSender, PullPacer};
use crate::packet::{Packet, PacketKind, PacketPool};
use crate::port::{Admission, InFlight, PipeArena, Port};
use crate::results::{FlowRow, LinkDirResult, NodeResult, Series, SimResults, Summary};
use crate::rng::{mix64, Rng};
use crate::routing::{Hops, Routes, NO_ROUTE};
use crate::spec::{FlowSpec, NodeKind, Routing, SimSpec, SinglePath, Transport};
use crate::tcp::{on_held_data, AckAction, Segment, SenderStats, TcpReceiver, TcpSender};
use crate::units::ser_time_ps;
use crate::validate;
use crate::vlb::Vlb;

#[derive(Debug, Default, Clone)]
struct NodeCounters {
    sent: u64,
    received: u64,
    forwarded: u64,
}

/// Tags in the top bits of a pipe entry's `dst_host` (set only in runs with DCTCP or NDP flows or VLB; host
/// indices stay below 2^29, checked in `validate`): what the packet is (`TAG_KIND`: ECN-capable data, NDP data,
/// packets that go at high priority) and, apart, `TAG_VIA`: on its way to its intermediate rack (crate::vlb),
/// whose first host is then the entry's destination.
const TAG_MASK: u32 = 0b111 << 29;
const TAG_KIND: u32 = 0b11 << 29;
const TAG_ECT: u32 = 1 << 29;
const TAG_NDP_DATA: u32 = 2 << 29;
const TAG_PRIO: u32 = 3 << 29;
const TAG_VIA: u32 = 4 << 29;

/// A port arrival's hint (`arrival_hint`) names a packet when this bit is set, else a port (ports and packets
/// stay below 2^31: a pool that large would be 100 GB).
const HINT_PKT: u32 = 1 << 31;

impl FlowState {
    fn rto_deadline(&self) -> Option<u64> {
        match (&self.sender, &self.ndp) {
            (Some(s), _) => s.rto_deadline,
            (None, Some(s)) => s.rto_deadline,
            (None, None) => None,
        }
    }
}

struct FlowState {
    src: u32,
    dst: u32,
    src_host: u32,
    dst_host: u32,
    hash_fwd: u64,
    hash_rev: u64,
    transport: Transport,
    /// A TCP or DCTCP flow's sender while it has bytes to send; once every byte is acknowledged it is inert
    /// (further ACKs and timers change nothing), so the flow is folded into its result row (`Flows::fold`).
    sender: Option<Box<TcpSender>>,
    /// An NDP flow's sender (crate::ndp); `sender` is then None. Folded like `sender` once every packet is
    /// acknowledged.
    ndp: Option<Box<NdpSender>>,
    receiver: TcpReceiver,
    /// Data packets of this flow trimmed to their header by a switch (NDP).
    trims: u64,
    udp_sent: u64,
    udp_packets: u64,
    rto_pending: Option<u64>,
    delack_pending: Option<u64>,
    /// When the sender learnt that every byte arrived (`FlowRow::acked_ps`); `u64::MAX` before.
    acked_ps: u64,
}

impl FlowState {
    /// The state of flow `f` as it starts (hosts as host indices: `host_index`).
    fn new(spec: &SimSpec, f: &FlowSpec, host_index: &[u32]) -> Self {
        let base = mix64(spec.seed ^ mix64(f.id));
        FlowState {
            src: f.src,
            dst: f.dst,
            src_host: host_index[f.src as usize],
            dst_host: host_index[f.dst as usize],
            hash_fwd: flow_hash(base, f.src, f.dst),
            hash_rev: flow_hash(base, f.dst, f.src),
            transport: f.transport,
            sender: matches!(f.transport, Transport::Tcp | Transport::Dctcp).then(|| {
                let mut s = Box::new(TcpSender::new(f.size_bytes, &spec.tcp));
                if f.transport == Transport::Dctcp {
                    s.dctcp = Some(Box::new(crate::dctcp::Dctcp::new(&spec.dctcp)));
                }
                s
            }),
            ndp: (f.transport == Transport::Ndp).then(|| {
                Box::new(NdpSender::new(
                    f.size_bytes,
                    spec.tcp.mss,
                    spec.tcp.min_rto_ps,
                ))
            }),
            // NDP's packets are whole segments of `mss` bytes (crate::ndp): its receiver keeps one bit each.
            receiver: if f.transport == Transport::Ndp {
                TcpReceiver::for_packets(f.size_bytes, spec.tcp.mss)
            } else {
                TcpReceiver::new(f.size_bytes)
            },
            trims: 0,
            udp_sent: 0,
            udp_packets: 0,
            rto_pending: None,
            delack_pending: None,
            acked_ps: u64::MAX,
        }
    }

    /// The flow's result row as it stands, with the sender's counters (`sent`: those of a sender dropped).
    fn row(&self, sent: Option<&SenderStats>) -> FlowRow {
        let mut row = self.receiver.row();
        match (&self.sender, &self.ndp, sent) {
            (Some(x), _, _) => x.stats.fold_into(&mut row),
            (None, Some(x), _) => x.stats.fold_into(&mut row),
            (None, None, Some(st)) => st.fold_into(&mut row),
            (None, None, None) => row.data_packets_sent = self.udp_packets,
        }
        row.trims = self.trims;
        row.acked_ps = self.acked_ps;
        row
    }
}

/// Where a flow stands (`Flows::at`): before it starts (nothing but its spec), while it runs (an index into
/// `Flows::live`), or once finished only its result row: a TCP, DCTCP or NDP flow whose sender saw every byte
/// acknowledged, a UDP flow whose receiver holds every byte. Copies of its data (and NDP's trimmed headers) that
/// arrive later are still counted, in the row (`tcp::on_held_data`), and acknowledged.
const PENDING: u32 = u32::MAX;
const DONE: u32 = u32::MAX - 1;

/// Every flow's state, indexed by flow. Indexing gives a live flow's state (a finished one's is gone: asking
/// for it is a bug); `finished` and `row_mut` serve both.
///
/// The live flows' states sit in one dense table, not each in its own box: a delivery finds its flow's state
/// from the flow's index through `at` (4 bytes per flow: small enough to stay in cache), so the loop can ask
/// for the state while the event before it runs (`prefetch`). Profiles of a k = 32 fat-tree had the read
/// through the box (behind a 120-byte slot per flow) as the largest stall of the loop. A finished flow's entry
/// is emptied and taken by the next flow to start.
struct Flows {
    /// Per flow: PENDING, DONE, or its entry in `live`.
    at: Vec<u32>,
    live: Vec<Option<FlowState>>,
    /// Entries of `live` emptied by finished flows.
    free: Vec<u32>,
    /// Per flow: its result row once DONE (before that, the row of a flow that never started).
    rows: Vec<FlowRow>,
}

impl std::ops::Index<usize> for Flows {
    type Output = FlowState;
    #[inline]
    fn index(&self, f: usize) -> &FlowState {
        match self.at[f] {
            DONE => panic!("flow {f} is finished: only its result row is kept"),
            PENDING => panic!("flow {f} has not started"),
            i => self.live[i as usize].as_ref().expect("a live entry"),
        }
    }
}

impl std::ops::IndexMut<usize> for Flows {
    #[inline]
    fn index_mut(&mut self, f: usize) -> &mut FlowState {
        match self.at[f] {
            DONE => panic!("flow {f} is finished: only its result row is kept"),
            PENDING => panic!("flow {f} has not started"),
            i => self.live[i as usize].as_mut().expect("a live entry"),
        }
    }
}

impl Flows {
    /// `n` flows, none started.
    fn new(n: usize) -> Self {
        Flows {
            at: vec![PENDING; n],
            live: Vec::new(),
            free: Vec::new(),
            rows: vec![TcpReceiver::new(1).row(); n],
        }
    }

    fn len(&self) -> usize {
        self.at.len()
    }

    /// Flow `f` starts with `state`.
    fn start(&mut self, f: usize, state: FlowState) {
        debug_assert_eq!(self.at[f], PENDING);
        let i = match self.free.pop() {
            Some(i) => {
                self.live[i as usize] = Some(state);
                i
            }
            None => {
                self.live.push(Some(state));
                (self.live.len() - 1) as u32
            }
        };
        self.at[f] = i;
    }

    /// Ask for the lines of flow `f`'s state (a hint: nothing for a flow not live).
    #[inline(always)]
    fn prefetch(&self, f: usize) {
        if let Some(&i) = self.at.get(f) {
            if let Some(s) = self.live.get(i as usize) {
                let at = s as *const Option<FlowState> as *const u8;
                for l in 0..size_of::<Option<FlowState>>().div_ceil(64) {
                    crate::port::prefetch(at.wrapping_add(64 * l));
                }
            }
        }
    }

    /// Whether flow `f`'s receiver holds every byte.
    fn finished(&self, f: usize) -> bool {
        match self.at[f] {
            DONE => true,
            PENDING => false,
            _ => self[f].receiver.finish.is_some(),
        }
    }

    /// The row of a folded flow.
    #[inline]
    fn row_mut(&mut self, f: usize) -> Option<&mut FlowRow> {
        (self.at[f] == DONE).then(|| &mut self.rows[f])
    }

    /// Keep only flow `f`'s result row (`sent`: the counters of its sender, dropped).
    fn fold(&mut self, f: usize, sent: Option<&SenderStats>) {
        self.rows[f] = self[f].row(sent);
        let i = self.at[f];
        self.live[i as usize] = None;
        self.free.push(i);
        self.at[f] = DONE;
    }

    /// Every flow's result row, in flow order.
    fn into_rows(mut self) -> Vec<FlowRow> {
        for f in 0..self.at.len() {
            if self.at[f] != PENDING && self.at[f] != DONE {
                self.rows[f] = self[f].row(None);
            }
        }
        self.rows
    }
}

pub struct Sim<'a> {
    spec: &'a SimSpec,
    now: u64,
    events: EventQueue,
    pool: PacketPool,
    /// On 2 MB pages when large (crate::hugevec): each hop reads two ports at random places in it.
    ports: HugeVec<Port>,
    /// The ports' pipe rings (crate::port::PipeArena; None: the ports' own VecDeques). The ports point into
    /// it, so it is dropped after them (fields drop in declaration order).
    pipes: Option<PipeArena>,
    kinds: Vec<NodeKind>,
    host_index: Vec<u32>,
    routes: Routes,
    /// Links off and on over time (None: all on); `next_change` is when its next epoch starts (u64::MAX: never).
    linkstate: Option<Box<crate::linkstate::LinkState>>,
    next_change: u64,
    switch_rngs: Vec<Rng>,
    node_counters: Vec<NodeCounters>,
    /// Per host index and window: [packets sent, bytes sent, packets received, bytes received] (windows on).
    host_windows: Vec<Vec<[u64; 4]>>,
    /// Per host index: its current window (u32::MAX: none) and that window's counts so far, added to
    /// `host_windows` when the window changes (time never goes back, so once per window) and when the run ends:
    /// one flat entry per packet sent or received instead of a row header and a row in `host_windows`.
    host_cur: Vec<(u32, [u64; 4])>,
    /// Per host index: the port it sends by towards every other host (NO_ROUTE: none such, or a link schedule
    /// changes routes), taken without a route lookup: a host's line was a cache miss per packet sent.
    host_port: Vec<u32>,
    host_windows_overflowed: bool,
    flows: Flows,
    /// Flows whose receiver holds every byte.
    flows_done: usize,
    window_ps: u64,
    segs: Vec<Segment>,
    events_done: u64,
    hops: u64,
    drops: u64,
    created: u64,
    delivered: u64,
    /// Some transport needs more than a FIFO per port (DCTCP marking, NDP trimming and priority): `forward`
    /// looks at the packet itself only then, so runs of TCP alone take the plain path.
    special: bool,
    /// The ports have lanes (runs with NDP): the loop prefetches their lanes too.
    lanes: bool,
    /// Valiant load balancing's intermediates per flow (None: shortest paths only).
    vlb: Option<Box<Vlb>>,
    /// NDP receivers' pull pacers (`crate::ndp::PullPacer`), per host index, or per flow with
    /// `ndp.pull_pacer = flow`: the gap between pulls is one full packet at the receiving host's link rate.
    pull_pacers: Vec<PullPacer>,
    pull_per_flow: bool,
}

/// Ask for the cache lines of the value at `p` (a hint: any address will do).
#[inline(always)]
fn prefetch_all<T>(p: *const T) {
    let at = p as *const u8;
    crate::port::prefetch(at);
    crate::port::prefetch(at.wrapping_add(size_of::<T>() - 1));
}

/// When a port's last packet has reached the far end (0 if it never sent one): a link turned off powers down then.
fn drain_end(p: &Port) -> u64 {
    if p.counters.packets_sent == 0 {
        0
    } else {
        p.free_at() + p.delay_ps
    }
}

/// The hash that picks a flow's paths from `from` to `to` (`base`: from the seed and the flow's id).
fn flow_hash(base: u64, from: u32, to: u32) -> u64 {
    mix64(base ^ ((from as u64) << 32 | to as u64))
}

/// Position of each host among the hosts (u32::MAX for switches), and the hosts' node ids.
fn index_hosts(kinds: &[NodeKind]) -> (Vec<u32>, Vec<u32>) {
    let mut index = vec![u32::MAX; kinds.len()];
    let mut hosts = Vec::new();
    for (n, k) in kinds.iter().enumerate() {
        if *k == NodeKind::Host {
            index[n] = hosts.len() as u32;
            hosts.push(n as u32);
        }
    }
    (index, hosts)
}

impl<'a> Sim<'a> {
    pub fn new(spec: &'a SimSpec) -> Result<Self, EngineError> {
        validate::check(spec)?;
        let kinds: Vec<NodeKind> = spec.nodes.iter().map(|n| n.kind).collect();
        let mut ports = HugeVec::with_capacity(spec.links.len() * 2);
        let mut out_ports: Vec<Vec<(u32, u32)>> = vec![Vec::new(); kinds.len()];
        for (i, l) in spec.links.iter().enumerate() {
            let (ab, ba) = ((2 * i) as u32, (2 * i + 1) as u32);
            ports.push(Port::new(
                l.a, l.b, i as u32, l.rate_bps, l.delay_ps, l.queue_a,
            ));
            ports.push(Port::new(
                l.b, l.a, i as u32, l.rate_bps, l.delay_ps, l.queue_b,
            ));
            if let Some(eee) = spec
                .eee
                .as_ref()
                .and_then(|e| crate::eee::Eee::for_rate(e, l.rate_bps))
            {
                let n = ports.len();
                ports[n - 2].eee = Some(Box::new(eee.clone()));
                ports[n - 1].eee = Some(Box::new(eee));
            }
            out_ports[l.a as usize].push((ab, l.b));
            out_ports[l.b as usize].push((ba, l.a));
        }
        let (host_index, hosts) = index_hosts(&kinds);
        let mut routes = Routes::build(&kinds, &out_ports, &hosts);
        routes.index_lines(hosts.len());
        let linkstate = match &spec.link_schedule {
            None => None,
            Some(s) => {
                let names = |n: u32| spec.nodes[n as usize].name.clone();
                Some(Box::new(crate::linkstate::LinkState::build(
                    s, &kinds, &out_ports, &hosts, &names,
                )?))
            }
        };
        let next_change = linkstate.as_ref().map_or(u64::MAX, |l| l.next_change());
        let host_port: Vec<u32> = if linkstate.is_some() {
            Vec::new()
        } else {
            let n = hosts.len() as u32;
            (0..n)
                .map(|h| {
                    routes
                        .one_port_except(hosts[h as usize], h, n)
                        .unwrap_or(NO_ROUTE)
                })
                .collect()
        };
        for (i, f) in spec.flows.iter().enumerate() {
            let (sh, dh) = (host_index[f.src as usize], host_index[f.dst as usize]);
            if routes.next_hops(f.src, dh).is_empty() || routes.next_hops(f.dst, sh).is_empty() {
                return Err(EngineError::invalid(
                    &format!("flows[{i}]"),
                    format!(
                        "no path between {} and {}",
                        spec.nodes[f.src as usize].name, spec.nodes[f.dst as usize].name
                    ),
                ));
            }
        }
        let vlb = match &spec.vlb {
            None => None,
            Some(v) => {
                let attach = crate::routing::attachments(&kinds, &out_ports, &hosts);
                let fl = spec.flows.iter().map(|f| {
                    (
                        f.id,
                        host_index[f.src as usize],
                        host_index[f.dst as usize],
                        f.size_bytes,
                    )
                });
                let per_packet = spec.routing == Routing::Rps;
                let built = Vlb::build(v, spec.seed, &attach, fl, per_packet).map_err(|h| {
                    EngineError::invalid(
                        "vlb",
                        format!(
                            "host {} is not under one switch (a rack), which VLB needs",
                            spec.nodes[hosts[h] as usize].name
                        ),
                    )
                })?;
                Some(Box::new(built))
            }
        };
        let ndp_on = spec.flows.iter().any(|f| f.transport == Transport::Ndp);
        let special =
            ndp_on || vlb.is_some() || spec.flows.iter().any(|f| f.transport == Transport::Dctcp);
        let mut pull_gap = Vec::new();
        if ndp_on {
            // A host's pull gap: one full-size packet at the rate of its (first) link.
            let full = (spec.tcp.mss + spec.tcp.header_bytes + spec.frame_overhead_bytes) as u64;
            pull_gap = vec![1; hosts.len()];
            for l in spec.links.iter().rev() {
                for end in [l.a, l.b] {
                    if kinds[end as usize] == NodeKind::Host {
                        pull_gap[host_index[end as usize] as usize] =
                            ser_time_ps(full, l.rate_bps).max(1);
                    }
                }
            }
        }
        let pull_per_flow = spec.ndp.pull_pacer == crate::spec::PullPacing::Flow;
        let pull_pacers = if pull_per_flow && ndp_on {
            spec.flows
                .iter()
                .map(|f| PullPacer::new(pull_gap[host_index[f.dst as usize] as usize]))
                .collect()
        } else {
            pull_gap.into_iter().map(PullPacer::new).collect()
        };
        if ndp_on {
            // Headers and control go in a lane ahead of waiting data (crate::port::Lanes).
            ports.iter_mut().for_each(Port::add_lanes);
        }
        // NDP's small packets make long pipes: larger rings then (crate::port::ring::LANED_RING).
        let ring = PipeArena::ring_for(ports.len(), ndp_on);
        let pipes = PipeArena::attach_sized(&mut ports, ring);
        let switch_rngs = (0..kinds.len())
            .map(|n| Rng::new(spec.seed, n as u64))
            .collect();
        let mut events = EventQueue::default();
        for (i, f) in spec.flows.iter().enumerate() {
            events.push(f.start_ps + f.handshake_ps, EventKind::FlowStart, i as u32);
        }
        Ok(Sim {
            spec,
            now: 0,
            events,
            pool: PacketPool::default(),
            ports,
            pipes,
            node_counters: vec![NodeCounters::default(); kinds.len()],
            host_windows: vec![Vec::new(); hosts.len()],
            host_cur: vec![(u32::MAX, [0; 4]); hosts.len()],
            host_port,
            host_windows_overflowed: false,
            kinds,
            host_index,
            routes,
            linkstate,
            next_change,
            switch_rngs,
            flows: Flows::new(spec.flows.len()),
            flows_done: 0,
            window_ps: spec.stats_window_ps.unwrap_or(0),
            segs: Vec::new(),
            events_done: 0,
            hops: 0,
            drops: 0,
            created: 0,
            delivered: 0,
            special,
            lanes: ndp_on,
            vlb,
            pull_pacers,
            pull_per_flow,
        })
    }

    /// Run until the last flow completes, or to `stop_ps` if that comes first (docs/engine-spec.md, "When a
    /// run ends"): cancelled timers never stop or extend it. `watch` sees the progress every 2^20 events; returning true stops
    /// the run, whose results so far come back with `stopped_by = "interrupted"`.
    pub fn run(
        self,
        watch: &mut dyn FnMut(&crate::Progress) -> bool,
    ) -> Result<SimResults, EngineError> {
        let spec = self.spec;
        let (mut results, rows) = self.run_rows(watch)?;
        results.flows = rows
            .iter()
            .zip(&spec.flows)
            .map(|(r, f)| r.result(f))
            .collect();
        Ok(results)
    }

    /// Start the loads an arrival event at `port` makes that need nothing read first: the port's first line,
    /// the pipe slot the event moves up to the head, the spill's header when the ring was full (`slot`), and
    /// what the hint names (the packet at a host, the port it leaves by at a switch).
    #[inline(always)]
    fn prefetch_first_stage(&self, port: u32, hint: u32, slot: u32) {
        Port::prefetch_arrival(&self.ports, port, self.lanes);
        if let Some(pipes) = &self.pipes {
            pipes.prefetch(slot);
            Port::prefetch_spill(&self.ports, port, slot);
        }
        if hint & HINT_PKT != 0 {
            self.pool.prefetch(hint & !HINT_PKT);
        } else {
            Port::prefetch_offer(&self.ports, hint, self.lanes);
        }
    }

    /// Start the loads of an arrival event at `port` that depend on the first stage's lines (call it once they
    /// have had time to come in): a full ring's spilled entry (`prefetch_refill`; its other line, the pipe's
    /// next entry, is the first stage's slot again), the far node's counters, and for a forwarding the ring
    /// slots the offer reads and writes, for a delivery the flow's state and the host's window counts.
    #[inline(always)]
    fn prefetch_second_stage(&self, port: u32, hint: u32) {
        let p = &self.ports[port as usize];
        p.prefetch_refill();
        prefetch_all(self.node_counters.as_ptr().wrapping_add(p.to as usize));
        if hint & HINT_PKT == 0 {
            if let Some(q) = self.ports.get(hint as usize) {
                q.prefetch_offer_slots();
            }
        } else if hint != NO_HINT {
            self.flows
                .prefetch(self.pool.get(hint & !HINT_PKT).flow as usize);
            if self.window_ps > 0 {
                let h = self.host_index[p.to as usize] as usize;
                prefetch_all(self.host_cur.as_ptr().wrapping_add(h));
            }
        }
    }

    /// `run`, with the results' `flows` empty and the flows' result rows beside them, in flow order (what a
    /// caller that wants columns reads, without a `FlowResult` per flow).
    pub fn run_rows(
        mut self,
        watch: &mut dyn FnMut(&crate::Progress) -> bool,
    ) -> Result<(SimResults, Vec<FlowRow>), EngineError> {
        let started = Instant::now();
        let stop = self.spec.stop_ps.unwrap_or(u64::MAX);
        let mut stopped_by = "completion";
        // The arrival events whose lines were asked for two events ahead (`staged_ahead`: the event after the
        // next one, when the queue could name it) and whose dependent loads were then started one event
        // ahead (`staged_early`). The port names the event: a port has one pending arrival at a time.
        const NO_PORT: u32 = u32::MAX;
        let (mut staged_ahead, mut staged_early) = (NO_PORT, NO_PORT);
        loop {
            if let Some((EventKind::PortArrival, port, hint)) = self.events.peek() {
                if port != staged_early {
                    self.prefetch_second_stage(port, hint);
                }
            }
            staged_early = NO_PORT;
            let Some(ev) = self.events.pop() else { break };
            if self.is_stale(ev.kind, ev.arg, ev.time) {
                continue; // a timer that was cancelled or moved: not an event of the run
            }
            if self.flows_done == self.flows.len()
                && matches!(ev.kind, EventKind::RtoTimer | EventKind::DelackTimer)
            {
                // Every flow is complete: the packets still on the wire arrive (the last acknowledgements),
                // but no timer fires any more, so the run ends with its traffic, whatever timers are queued.
                continue;
            }
            if ev.time > stop {
                stopped_by = "time_limit";
                self.now = stop;
                break;
            }
            self.now = ev.time;
            self.events_done += 1;
            if let Some((EventKind::PortArrival, port, hint, slot)) = self.events.peek_slot() {
                // The next event (unless this one schedules an earlier one) reads this port, the pipe slot it
                // moves up to the head, and what its hint names (the packet at a host, the port it leaves by at
                // a switch). When those loads were started one event ago (the event was then the one after the
                // next), the loads that depend on them start now, a whole event before they are needed;
                // otherwise the first loads start now and the others at the top of the next turn.
                if port == staged_ahead {
                    self.prefetch_second_stage(port, hint);
                    staged_early = port;
                } else {
                    self.prefetch_first_stage(port, hint, slot);
                }
            }
            staged_ahead = NO_PORT;
            if let Some((EventKind::PortArrival, port, hint, slot)) = self.events.peek_second_slot()
            {
                self.prefetch_first_stage(port, hint, slot);
                staged_ahead = port;
            }
            let flows = &self.flows;
            let done = || (0..flows.len()).filter(|&f| flows.finished(f)).count() as u64;
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
                EventKind::PortArrival => {
                    self.port_arrival(ev.arg, (ev.hint & HINT_PKT == 0).then_some(ev.hint))
                }
                EventKind::FlowStart => self.flow_start(ev.arg),
                EventKind::RtoTimer => self.rto_timer(ev.arg),
                EventKind::DelackTimer => self.delack_timer(ev.arg),
                EventKind::UdpSend => self.udp_send(ev.arg),
                EventKind::NdpPull => self.ndp_pull(ev.arg),
                EventKind::EeeWake => self.eee_wake(ev.arg),
                EventKind::SlotStart
                | EventKind::PortNext
                | EventKind::CircuitArrival
                | EventKind::OperaSlice => {
                    unreachable!("circuit events belong to circuit::CircuitSim")
                }
            }
        }
        self.ports.iter_mut().for_each(Port::drain_lanes);
        if self.lanes && self.pool.live() > 0 {
            self.count_trims_in_flight();
        }
        (0..self.host_cur.len()).for_each(|h| self.flush_host_window(h));
        if self.host_windows_overflowed || self.ports.iter().any(|p| p.windows_overflowed) {
            return Err(EngineError::invalid(
                "stats_window_ps",
                format!(
                    "the run lasted {} ps, more than {} windows of {} ps per link",
                    self.now,
                    crate::port::MAX_WINDOWS,
                    self.window_ps
                ),
            ));
        }
        let wall_s = started.elapsed().as_secs_f64();
        Ok(self.results(wall_s, stopped_by))
    }

    /// A timer event is stale when a newer one superseded it or the timer was disarmed since. Stale events
    /// neither advance the clock nor count, so a finished run ends at its last real event.
    fn is_stale(&mut self, kind: EventKind, f: u32, time: u64) -> bool {
        match kind {
            EventKind::RtoTimer if self.flows.row_mut(f as usize).is_some() => true,
            EventKind::DelackTimer if self.flows.row_mut(f as usize).is_some() => true,
            EventKind::RtoTimer => {
                let fl = &mut self.flows[f as usize];
                if fl.rto_pending != Some(time) {
                    return true;
                }
                if fl.rto_deadline().is_none() {
                    fl.rto_pending = None;
                    return true;
                }
                false
            }
            EventKind::DelackTimer => {
                let fl = &mut self.flows[f as usize];
                if fl.delack_pending != Some(time) {
                    return true;
                }
                if fl.receiver.delack_deadline.is_none() {
                    fl.delack_pending = None;
                    return true;
                }
                false
            }
            EventKind::EeeWake => !self.ports[f as usize].wake_due(time),
            _ => false,
        }
    }

    /// A sleeping port's coalescing delay ran out: it wakes and sends what it holds (crate::eee).
    #[cold]
    fn eee_wake(&mut self, port: u32) {
        if let Some(arrival) = self.ports[port as usize].coalesce_deadline(self.now, self.window_ps)
        {
            self.events.push(arrival, EventKind::PortArrival, port);
        }
    }

    // ---- the network -------------------------------------------------------------------------------

    #[inline]
    fn pick_port(&mut self, node: u32, dst_host: u32, flow_hash: u32) -> Option<u32> {
        if self.now >= self.next_change {
            self.change_epoch();
        }
        let hops = match &self.linkstate {
            None => self.routes.hops(node, dst_host),
            Some(ls) => Hops::Listed(ls.next_hops(&self.routes, node, dst_host)),
        };
        let n = hops.len();
        if n <= 1 {
            return (n == 1).then(|| hops.get(0));
        }
        let i = match self.path_index(node, dst_host, flow_hash, n) {
            Some(i) => i,
            None => self.switch_rngs[node as usize].below(n as u32) as usize, // packet spraying
        };
        Some(hops.get(i))
    }

    /// The port a packet for `dst_host` leaves `node` by, when choosing it needs no draw (single path, ECMP,
    /// or one next hop) and no link schedule: the same port `pick_port` returns then. Looked up when a port's
    /// arrival event is pushed (`arrival_hint`), so the loop can prefetch that port one event ahead and the
    /// forwarding skips its own lookup.
    #[inline]
    fn fixed_port(&self, node: u32, dst_host: u32, flow_hash: u32) -> Option<u32> {
        if self.linkstate.is_some() {
            return None;
        }
        let hops = self.routes.hops(node, dst_host);
        self.path_index(node, dst_host, flow_hash, hops.len())
            .map(|i| hops.get(i))
    }

    /// Which of `n` > 0 equal-cost ports a packet takes, for the schemes that decide without drawing (None:
    /// packet spraying, which draws from the switch's generator; and n = 0).
    #[inline]
    fn path_index(&self, node: u32, dst_host: u32, flow_hash: u32, n: usize) -> Option<usize> {
        if n <= 1 {
            return (n == 1).then_some(0);
        }
        // x % n, without a 64-bit division when n is a power of two (a fat-tree's k/2 up-links): the same index.
        let modulo = |x: u64| {
            if n.is_power_of_two() {
                x as usize & (n - 1)
            } else {
                (x % n as u64) as usize
            }
        };
        Some(match self.spec.routing {
            // Depends on (destination, switch) only, never on the seed: one fixed path per destination.
            Routing::Single => match self.spec.single_path {
                SinglePath::First => 0, // groups list their ports in ascending order
                SinglePath::Hashed => modulo(mix64((dst_host as u64) << 32 | node as u64)),
            },
            Routing::Ecmp => modulo(mix64(
                flow_hash as u64 ^ (node as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            )),
            Routing::Rps => return None,
        })
    }

    /// Enter the link schedule's epochs that have begun by now (checked when a packet is routed, so a run with
    /// no schedule pays one comparison per hop).
    #[cold]
    fn change_epoch(&mut self) {
        let ports = &self.ports;
        if let Some(ls) = self.linkstate.as_mut() {
            while self.now >= self.next_change {
                ls.advance(&|p| drain_end(&ports[p as usize]));
                self.next_change = ls.next_change();
            }
        }
    }

    /// Forward a packet out of `node` (a switch, or the host that made it); `via`: the port `fixed_port` gave.
    #[inline]
    fn forward(&mut self, node: u32, entry: InFlight, via: Option<u32>) {
        if self.special {
            return self.forward_special(node, entry, via);
        }
        let Some(port) = via.or_else(|| self.pick_port(node, entry.dst_host, entry.flow_hash))
        else {
            // Unreachable by construction (flows are checked for paths); counted, never silently lost.
            self.drops += 1;
            self.pool.release(entry.pkt);
            return;
        };
        let a = self.ports[port as usize].offer(self.now, entry, self.window_ps);
        self.admitted(port, entry, a);
    }

    /// Forwarding where transports ask more of the port: NDP headers and control overtake waiting data, NDP
    /// data meeting a full data queue at a switch is trimmed to its header (Handley et al. 2017, section
    /// 3.1), and ECN-capable data meeting K or more packets at a switch is marked (Alizadeh et al. 2010,
    /// section 3.1: marking on the instantaneous queue, the arriving packet making it exceed K).
    ///
    /// What the packet is travels in the top bits of its pipe entry's destination (`TAG_*`), so a switch
    /// decides without reading the packet itself (a cache miss per hop otherwise).
    fn forward_special(&mut self, node: u32, mut entry: InFlight, via: Option<u32>) {
        if entry.dst_host & TAG_VIA != 0 {
            // Never hinted (`arrival_hint`): the packet may turn here towards its destination.
            self.vlb_turn(node, &mut entry);
        }
        let tag = entry.dst_host & TAG_KIND;
        let Some(port) =
            via.or_else(|| self.pick_port(node, entry.dst_host & !TAG_MASK, entry.flow_hash))
        else {
            self.drops += 1;
            self.pool.release(entry.pkt);
            return;
        };
        let at_switch = self.kinds[node as usize] == NodeKind::Switch;
        let now = self.now;
        let p = &mut self.ports[port as usize];
        let a = match tag {
            TAG_PRIO => p.offer_priority(now, entry, self.window_ps),
            TAG_NDP_DATA if at_switch => {
                // Not trimmed: admitted. The port's drop-tail limit would count the waiting headers too and
                // drop data NDP's rule admits, a loss only a timeout repairs; the public Opera simulator's
                // switch queues trim or keep every data packet (src/clos/compositequeue.cpp,
                // CompositeQueue::receivePacket, lines 115-216: the data queue's size alone decides).
                match p.offer_unless_full(now, entry, self.spec.ndp.queue, self.window_ps) {
                    Some(a) => a,
                    None => {
                        // Trimmed: the pipe entry alone says so (NDP data tagged TAG_PRIO), and the packet in
                        // the pool becomes a header when it is delivered (`trimmed_on_arrival`): reading it
                        // here was a cache miss per trim.
                        entry.wire_bytes =
                            self.spec.ndp.header_bytes + self.spec.frame_overhead_bytes;
                        entry.dst_host = (entry.dst_host & !TAG_KIND) | TAG_PRIO; // TAG_VIA kept
                        p.offer_priority(now, entry, self.window_ps)
                    }
                }
            }
            TAG_ECT if at_switch => {
                if p.occupancy(now).0 >= self.spec.dctcp.k_packets {
                    self.pool.get_mut(entry.pkt).ce = true;
                }
                p.offer(now, entry, self.window_ps)
            }
            _ => p.offer(now, entry, self.window_ps),
        };
        self.admitted(port, entry, a);
    }

    /// The hint of `port`'s arrival event (crate::event::EventQueue::push_hinted), from its pipe's head: the
    /// packet with HINT_PKT set when the far node is a host, else the port `fixed_port` names (NO_HINT: none).
    /// The head cannot change while its event is pending, so the hint holds when the event runs.
    #[inline]
    fn arrival_hint(&self, port: u32) -> u32 {
        let p = &self.ports[port as usize];
        let Some(head) = p.pipe_front() else {
            return NO_HINT;
        };
        if head.dst_host & TAG_VIA != 0 {
            // On its way to a VLB intermediate: where it leaves depends on whether it turns there.
            NO_HINT
        } else if self.kinds[p.to as usize] == NodeKind::Host {
            if head.pkt < HINT_PKT {
                head.pkt | HINT_PKT
            } else {
                NO_HINT
            }
        } else {
            self.fixed_port(p.to, head.dst_host & !TAG_MASK, head.flow_hash)
                .unwrap_or(NO_HINT)
        }
    }

    /// A packet on its way to its intermediate rack (crate::vlb): at that rack's switch, it turns to its
    /// destination, which the packet itself holds.
    #[cold]
    fn vlb_turn(&mut self, node: u32, entry: &mut InFlight) {
        let via = entry.dst_host & !TAG_MASK;
        if self.vlb.as_ref().is_some_and(|v| v.reached(node, via)) {
            entry.dst_host = self.pool.get(entry.pkt).dst_host | (entry.dst_host & TAG_KIND);
        }
    }

    #[inline]
    fn admitted(&mut self, port: u32, entry: InFlight, a: Admission) {
        match a {
            Admission::Dropped => {
                self.drops += 1;
                self.pool.release(entry.pkt);
            }
            Admission::Accepted {
                arrival,
                pipe_was_empty,
            } => {
                self.hops += 1;
                if pipe_was_empty {
                    let hint = self.arrival_hint(port);
                    let slot = PipeArena::next_slot(&self.ports, port);
                    self.events
                        .push_hinted_slot(arrival, EventKind::PortArrival, port, hint, slot);
                }
            }
            Admission::Held { timer } => {
                self.hops += 1;
                if let Some(t) = timer {
                    self.events.push(t, EventKind::EeeWake, port);
                }
            }
        }
    }

    fn send_from_host(&mut self, host: u32, pkt: Packet) {
        let mut dst = pkt.dst_host;
        let tag = if !self.special {
            0
        } else {
            if let Some(v) = self.vlb.as_ref() {
                // Data goes through an intermediate rack; ACKs, NACKs and pulls take shortest paths.
                if matches!(
                    pkt.kind,
                    PacketKind::TcpData | PacketKind::NdpData | PacketKind::Udp
                ) {
                    let rng = &mut self.switch_rngs[host as usize];
                    if let Some(via) = v.via(pkt.flow, pkt.flow_hash as u32, |n| rng.below(n)) {
                        dst = via | TAG_VIA;
                    }
                }
            }
            if pkt.ect {
                TAG_ECT
            } else {
                match pkt.kind {
                    PacketKind::NdpData => TAG_NDP_DATA,
                    PacketKind::NdpHeader
                    | PacketKind::NdpAck
                    | PacketKind::NdpNack
                    | PacketKind::NdpPull => TAG_PRIO,
                    _ => 0,
                }
            }
        };
        let entry = InFlight {
            arrival: 0,
            pkt: self.pool.alloc(pkt),
            dst_host: dst | tag,
            wire_bytes: pkt.wire_bytes,
            flow_hash: pkt.flow_hash as u32,
        };
        self.created += 1;
        self.node_counters[host as usize].sent += 1;
        if self.window_ps > 0 {
            self.count_host_window(host, 0, entry.wire_bytes);
        }
        // The port `pick_port` would find (one port, so no draw): the host's uplink, unless the packet is for
        // the host itself.
        let h = self.host_index[host as usize];
        let via = self
            .host_port
            .get(h as usize)
            .copied()
            .filter(|&p| p != NO_ROUTE && dst & !TAG_MASK != h);
        self.forward(host, entry, via);
    }

    /// Count one packet of `wire_bytes` in the host's current window: `at` 0 for sent, 2 for received.
    fn count_host_window(&mut self, host: u32, at: usize, wire_bytes: u32) {
        let w = self.now / self.window_ps;
        if w >= crate::port::MAX_WINDOWS {
            self.host_windows_overflowed = true;
            return;
        }
        let h = self.host_index[host as usize] as usize;
        if self.host_cur[h].0 as u64 != w {
            self.flush_host_window(h);
            self.host_cur[h].0 = w as u32;
        }
        let counts = &mut self.host_cur[h].1;
        counts[at] += 1;
        counts[at + 1] += wire_bytes as u64;
    }

    /// Add host index `h`'s current window's counts to its row of `host_windows`.
    #[cold]
    #[inline(never)]
    fn flush_host_window(&mut self, h: usize) {
        let (w, counts) = std::mem::replace(&mut self.host_cur[h], (u32::MAX, [0; 4]));
        if w == u32::MAX {
            return;
        }
        let row = &mut self.host_windows[h];
        let w = w as usize;
        if row.len() <= w {
            if row.try_reserve(w + 1 - row.len()).is_err() {
                self.host_windows_overflowed = true;
                return;
            }
            row.resize(w + 1, [0; 4]);
        }
        for (total, c) in row[w].iter_mut().zip(counts) {
            *total += c;
        }
    }

    /// The packet at the head of `port`'s pipe reaches the far node; `via`: the port it leaves by, if known.
    fn port_arrival(&mut self, port: u32, via: Option<u32>) {
        let (entry, next) = self.ports[port as usize].pop_arrival();
        if let Some(next) = next {
            let hint = self.arrival_hint(port);
            let slot = PipeArena::next_slot(&self.ports, port);
            self.events
                .push_hinted_slot(next, EventKind::PortArrival, port, hint, slot);
        }
        let node = self.ports[port as usize].to;
        match self.kinds[node as usize] {
            NodeKind::Switch => {
                self.node_counters[node as usize].forwarded += 1;
                self.forward(node, entry, via);
            }
            NodeKind::Host => {
                if self.special && entry.dst_host & TAG_KIND == TAG_PRIO {
                    self.trimmed_on_arrival(&entry);
                }
                self.deliver(node, entry.pkt)
            }
        }
    }

    /// A high-priority packet reached its host: if it is NDP data, a switch trimmed it (`forward_special`), so
    /// it becomes its header, counted as a trim of its flow. Out of line: runs of TCP alone never call it.
    #[inline(never)]
    fn trimmed_on_arrival(&mut self, entry: &InFlight) {
        let pkt = self.pool.get_mut(entry.pkt);
        if pkt.kind == PacketKind::NdpData {
            pkt.kind = PacketKind::NdpHeader;
            pkt.wire_bytes = entry.wire_bytes;
            let f = pkt.flow;
            self.count_trim(f);
        }
    }

    /// Count the trims of headers still on their way when the run ends (every lane drained into its pipe).
    #[cold]
    fn count_trims_in_flight(&mut self) {
        for port in 0..self.ports.len() {
            let trimmed: Vec<u32> = self.ports[port]
                .pipe_entries()
                .filter(|e| {
                    e.dst_host & TAG_KIND == TAG_PRIO
                        && self.pool.get(e.pkt).kind == PacketKind::NdpData
                })
                .map(|e| self.pool.get(e.pkt).flow)
                .collect();
            trimmed.into_iter().for_each(|f| self.count_trim(f));
        }
    }

    fn count_trim(&mut self, f: u32) {
        match self.flows.row_mut(f as usize) {
            Some(row) => row.trims += 1,
            None => self.flows[f as usize].trims += 1,
        }
    }

    fn deliver(&mut self, host: u32, pkt_id: u32) {
        let pkt = *self.pool.get(pkt_id);
        self.pool.release(pkt_id);
        self.node_counters[host as usize].received += 1;
        self.delivered += 1;
        if self.window_ps > 0 {
            self.count_host_window(host, 2, pkt.wire_bytes);
        }
        debug_assert_eq!(self.host_index[host as usize], pkt.dst_host);
        let f = pkt.flow;
        if let Some(row) = self.flows.row_mut(f as usize) {
            // A finished flow: a late copy of its data is counted and acknowledged (an ACK changes nothing).
            if matches!(pkt.kind, PacketKind::NdpData | PacketKind::NdpHeader) {
                return self.ndp_receive_held(f, &pkt);
            }
            if matches!(pkt.kind, PacketKind::TcpData | PacketKind::Udp) {
                let dctcp = self.spec.flows[f as usize].transport == Transport::Dctcp;
                row.ecn_marks += u64::from(dctcp && pkt.ce);
                let ack = on_held_data(row, pkt.seq, pkt.retx && pkt.kind == PacketKind::TcpData);
                if pkt.kind == PacketKind::TcpData {
                    row.acks_sent += 1;
                    self.send_held_ack(f, ack, pkt.ts, dctcp && pkt.ce);
                }
            }
            return;
        }
        let was_done = self.flows.finished(f as usize);
        match pkt.kind {
            PacketKind::TcpData => {
                let fl = &mut self.flows[f as usize];
                let dctcp = fl.transport == Transport::Dctcp;
                if dctcp {
                    fl.receiver.note_ce(pkt.ce);
                }
                let mut action = fl.receiver.on_data(
                    self.now,
                    pkt.seq,
                    pkt.payload,
                    pkt.retx,
                    pkt.ts,
                    &self.spec.tcp,
                );
                if dctcp {
                    // Our choice: a DCTCP receiver acknowledges every packet, echoing its CE mark exactly
                    // (docs/transports.md), instead of the paper's two-state delayed-ACK machine.
                    action = AckAction::Now;
                }
                match action {
                    AckAction::Now => self.send_ack(f),
                    AckAction::Delay(deadline) => self.arm_delack(f, deadline),
                }
            }
            PacketKind::TcpAck => {
                let now = self.now;
                let mut segs = std::mem::take(&mut self.segs);
                if let Some(s) = self.flows[f as usize].sender.as_mut() {
                    if s.dctcp.is_some() {
                        s.on_ack_ecn(
                            now,
                            pkt.seq,
                            pkt.ts,
                            pkt.ce,
                            &self.spec.tcp,
                            &self.spec.dctcp,
                            &mut segs,
                        );
                    } else {
                        s.on_ack(now, pkt.seq, pkt.ts, &self.spec.tcp, &mut segs);
                    }
                }
                self.send_segments(f, &mut segs);
                self.segs = segs;
                self.sync_rto(f);
                let fl = &mut self.flows[f as usize];
                if fl.sender.as_ref().is_some_and(|s| s.done()) {
                    let sender = fl.sender.take().expect("a sender");
                    // The ACK covering the last byte: where the sender's view of the flow ends.
                    fl.acked_ps = now;
                    debug_assert!(
                        fl.receiver.finish.is_some(),
                        "every byte acknowledged, so every byte received"
                    );
                    if !was_done {
                        self.flows_done += 1;
                    }
                    self.flows.fold(f as usize, Some(&sender.stats));
                    return;
                }
            }
            PacketKind::Udp => {
                let fl = &mut self.flows[f as usize];
                fl.receiver.on_data(
                    self.now,
                    pkt.seq,
                    pkt.payload,
                    false,
                    pkt.ts,
                    &self.spec.tcp,
                );
                if fl.receiver.finish.is_some() {
                    // Every byte sent (once) and received: nothing of this flow is left on the wire.
                    self.flows_done += 1;
                    self.flows.fold(f as usize, None);
                    return;
                }
            }
            PacketKind::NdpData | PacketKind::NdpHeader => self.ndp_receive(f, &pkt),
            PacketKind::NdpAck | PacketKind::NdpNack | PacketKind::NdpPull => {
                self.ndp_control(f, &pkt)
            }
        }
        if !was_done && self.flows.finished(f as usize) {
            self.flows_done += 1;
        }
    }

    // ---- NDP ---------------------------------------------------------------------------------------

    /// Data or a trimmed header reached the receiver: ACK or NACK it at once and owe the sender a pull.
    fn ndp_receive(&mut self, f: u32, pkt: &Packet) {
        let fl = &mut self.flows[f as usize];
        let kind = if pkt.kind == PacketKind::NdpData {
            fl.receiver.on_data(
                self.now,
                pkt.seq,
                pkt.payload,
                pkt.retx,
                pkt.ts,
                &self.spec.tcp,
            );
            PacketKind::NdpAck
        } else {
            PacketKind::NdpNack
        };
        fl.receiver.stats.acks_sent += 1;
        let wanted = fl.receiver.finish.is_none();
        self.ndp_send_control(f, kind, pkt.seq);
        let h = if self.pull_per_flow {
            f as usize
        } else {
            self.flows[f as usize].dst_host as usize
        };
        if wanted {
            if let Some(t) = self.pull_pacers[h].owe(f, self.now) {
                self.events.push(t, EventKind::NdpPull, h as u32);
            }
        } else {
            // Everything arrived: the pulls still owed to this flow would fetch nothing and hold up the
            // host's other flows (the simulator's receiver releases them, src/clos/ndp.cpp line 1102).
            self.pull_pacers[h].release(f);
            if self.pull_per_flow {
                self.pull_pacers[h].free();
            }
        }
    }

    /// Data or a trimmed header of a flow folded into its row (its sender had every packet acknowledged, so its
    /// receiver held every byte): counted as `ndp_receive` counts it at a receiver that holds every byte
    /// (`tcp::on_held_data` for data), and ACKed or NACKed the same way. No pull is owed: the receiver released
    /// the flow's pulls when its last byte arrived.
    fn ndp_receive_held(&mut self, f: u32, pkt: &Packet) {
        let Some(row) = self.flows.row_mut(f as usize) else {
            return;
        };
        let kind = if pkt.kind == PacketKind::NdpData {
            on_held_data(row, pkt.seq, pkt.retx);
            PacketKind::NdpAck
        } else {
            PacketKind::NdpNack
        };
        row.acks_sent += 1;
        let spec = &self.spec.flows[f as usize];
        let base = mix64(self.spec.seed ^ mix64(spec.id));
        let (dst, src_host) = (spec.dst, self.host_index[spec.src as usize]);
        let hash = flow_hash(base, spec.dst, spec.src);
        self.ndp_send_control_to(dst, src_host, hash, f, kind, pkt.seq);
    }

    fn ndp_send_control(&mut self, f: u32, kind: PacketKind, seq: u64) {
        let fl = &self.flows[f as usize];
        let (dst, src_host, hash) = (fl.dst, fl.src_host, fl.hash_rev);
        self.ndp_send_control_to(dst, src_host, hash, f, kind, seq);
    }

    /// Send flow `f`'s control packet from its receiving host `dst` to its sender's host index `src_host`.
    fn ndp_send_control_to(
        &mut self,
        dst: u32,
        src_host: u32,
        hash_rev: u64,
        f: u32,
        kind: PacketKind,
        seq: u64,
    ) {
        let pkt = Packet {
            kind,
            flow: f,
            dst_host: src_host,
            wire_bytes: self.spec.ndp.header_bytes + self.spec.frame_overhead_bytes,
            payload: 0,
            seq,
            ts: self.now,
            flow_hash: hash_rev,
            retx: false,
            ect: false,
            ce: false,
        };
        self.send_from_host(dst, pkt);
    }

    /// A receiving host's pacer (or a flow's) sends the next pull it owes, then waits one full packet's time
    /// at the host's rate.
    fn ndp_pull(&mut self, h: u32) {
        let h = h as usize;
        let (Some(f), next) = self.pull_pacers[h].fire(self.now) else {
            return;
        };
        self.ndp_send_control(f, PacketKind::NdpPull, 0);
        if let Some(t) = next {
            self.events.push(t, EventKind::NdpPull, h as u32);
        }
    }

    fn ndp_control(&mut self, f: u32, pkt: &Packet) {
        let now = self.now;
        let mut segs = std::mem::take(&mut self.segs);
        let fl = &mut self.flows[f as usize];
        // The first ACK the receiver sent once it held every byte (sent at `pkt.ts`) ends the flow at the
        // sender, where the public Opera simulator ends its FCT: the ACK's cumulative number covers the flow
        // (src/clos/ndp.cpp line 437, src/opera/ndp.cpp line 346, `NdpSrc::processAck`).
        if pkt.kind == PacketKind::NdpAck
            && fl.acked_ps == u64::MAX
            && fl.receiver.finish.is_some_and(|t| pkt.ts >= t)
        {
            fl.acked_ps = now;
        }
        if let Some(s) = fl.ndp.as_mut() {
            match pkt.kind {
                PacketKind::NdpAck => s.on_ack(now, pkt.seq),
                PacketKind::NdpNack => s.on_nack(now, pkt.seq),
                _ => s.on_pull(now, &mut segs),
            }
        }
        self.send_segments(f, &mut segs);
        self.segs = segs;
        self.sync_rto(f);
        let fl = &mut self.flows[f as usize];
        if fl.ndp.as_ref().is_some_and(|s| s.done()) {
            // Every packet acknowledged: the sender is inert (ACKs, NACKs and pulls still on their way change
            // nothing and its timer is off), so the flow keeps only its result row, as TCP's does.
            let sender = fl.ndp.take().expect("a sender");
            debug_assert!(
                fl.receiver.finish.is_some() && fl.acked_ps != u64::MAX,
                "every packet acknowledged, so every byte received and its last ACK seen"
            );
            self.flows.fold(f as usize, Some(&sender.stats));
        }
    }

    // ---- TCP ---------------------------------------------------------------------------------------

    fn send_segments(&mut self, f: u32, segs: &mut Vec<Segment>) {
        let overhead = self.spec.tcp.header_bytes + self.spec.frame_overhead_bytes;
        let (src, dst_host, hash, transport) = {
            let fl = &self.flows[f as usize];
            (fl.src, fl.dst_host, fl.hash_fwd, fl.transport)
        };
        let kind = if transport == Transport::Ndp {
            PacketKind::NdpData
        } else {
            PacketKind::TcpData
        };
        for s in segs.drain(..) {
            let pkt = Packet {
                kind,
                flow: f,
                dst_host,
                wire_bytes: s.len + overhead,
                payload: s.len,
                seq: s.seq,
                ts: self.now,
                flow_hash: hash,
                retx: s.retx,
                ect: transport == Transport::Dctcp,
                ce: false,
            };
            self.send_from_host(src, pkt);
        }
    }

    fn send_ack(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        let (ack, echo) = fl.receiver.take_ack();
        let pkt = Packet {
            kind: PacketKind::TcpAck,
            flow: f,
            dst_host: fl.src_host,
            wire_bytes: self.spec.tcp.header_bytes + self.spec.frame_overhead_bytes,
            payload: 0,
            seq: ack,
            ts: echo,
            flow_hash: fl.hash_rev,
            retx: false,
            ect: false,
            ce: fl.transport == Transport::Dctcp && fl.receiver.ece,
        };
        let dst = fl.dst;
        self.send_from_host(dst, pkt);
    }

    /// The ACK of a late data packet for flow `f`, folded into its row (`ack`, `echo` and `ce` as
    /// `send_ack` would take them from the receiver).
    fn send_held_ack(&mut self, f: u32, ack: u64, echo: u64, ce: bool) {
        let spec = &self.spec.flows[f as usize];
        let base = mix64(self.spec.seed ^ mix64(spec.id));
        let pkt = Packet {
            kind: PacketKind::TcpAck,
            flow: f,
            dst_host: self.host_index[spec.src as usize],
            wire_bytes: self.spec.tcp.header_bytes + self.spec.frame_overhead_bytes,
            payload: 0,
            seq: ack,
            ts: echo,
            flow_hash: flow_hash(base, spec.dst, spec.src),
            retx: false,
            ect: false,
            ce,
        };
        self.send_from_host(spec.dst, pkt);
    }

    /// Make sure a timer event is pending no later than `deadline`. One pending event per flow and timer
    /// kind is the rule; a deadline moved later is found when the earlier event fires and re-arms.
    fn arm(
        events: &mut EventQueue,
        pending: &mut Option<u64>,
        deadline: u64,
        kind: EventKind,
        f: u32,
    ) {
        if pending.is_none_or(|p| p > deadline) {
            events.push(deadline, kind, f);
            *pending = Some(deadline);
        }
    }

    fn sync_rto(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        if let Some(d) = fl.rto_deadline() {
            Self::arm(
                &mut self.events,
                &mut fl.rto_pending,
                d,
                EventKind::RtoTimer,
                f,
            );
        }
    }

    fn arm_delack(&mut self, f: u32, deadline: u64) {
        let fl = &mut self.flows[f as usize];
        Self::arm(
            &mut self.events,
            &mut fl.delack_pending,
            deadline,
            EventKind::DelackTimer,
            f,
        );
    }

    fn flow_start(&mut self, f: u32) {
        let state = FlowState::new(self.spec, &self.spec.flows[f as usize], &self.host_index);
        self.flows.start(f as usize, state);
        if let Some(s) = self.flows[f as usize].ndp.as_mut() {
            let mut segs = std::mem::take(&mut self.segs);
            s.start(self.now, self.spec.ndp.initial_window, &mut segs);
            self.send_segments(f, &mut segs);
            self.segs = segs;
            self.sync_rto(f);
        } else if self.flows[f as usize].sender.is_some() {
            let now = self.now;
            let mut segs = std::mem::take(&mut self.segs);
            self.flows[f as usize].sender.as_mut().unwrap().fill_window(
                now,
                &self.spec.tcp,
                &mut segs,
            );
            self.send_segments(f, &mut segs);
            self.segs = segs;
            self.sync_rto(f);
        } else {
            self.udp_send(f);
        }
    }

    fn rto_timer(&mut self, f: u32) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        if fl.rto_pending != Some(now) {
            return; // superseded by an earlier timer event
        }
        fl.rto_pending = None;
        if let Some(s) = fl.ndp.as_mut() {
            match s.rto_deadline {
                Some(d) if d <= now => {
                    let mut segs = std::mem::take(&mut self.segs);
                    s.on_timeout(now, self.spec.ndp.initial_window, &mut segs);
                    self.send_segments(f, &mut segs);
                    self.segs = segs;
                }
                _ => {}
            }
            self.sync_rto(f);
            return;
        }
        let Some(sender) = fl.sender.as_mut() else {
            return;
        };
        match sender.rto_deadline {
            Some(d) if d <= now => {
                let mut segs = std::mem::take(&mut self.segs);
                sender.on_timeout(now, &self.spec.tcp, &mut segs);
                self.send_segments(f, &mut segs);
                self.segs = segs;
                self.sync_rto(f);
            }
            Some(_) => self.sync_rto(f),
            None => {}
        }
    }

    fn delack_timer(&mut self, f: u32) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        if fl.delack_pending != Some(now) {
            return;
        }
        fl.delack_pending = None;
        match fl.receiver.delack_deadline {
            Some(d) if d <= now => self.send_ack(f),
            Some(d) => self.arm_delack(f, d),
            None => {}
        }
    }

    // ---- UDP ---------------------------------------------------------------------------------------

    fn udp_send(&mut self, f: u32) {
        let spec = &self.spec.flows[f as usize];
        let udp = &self.spec.udp;
        let fl = &mut self.flows[f as usize];
        let remaining = spec.size_bytes - fl.udp_sent;
        let payload = (udp.payload_bytes as u64).min(remaining) as u32;
        let wire = payload + udp.header_bytes + self.spec.frame_overhead_bytes;
        let pkt = Packet {
            kind: PacketKind::Udp,
            flow: f,
            dst_host: fl.dst_host,
            wire_bytes: wire,
            payload,
            seq: fl.udp_sent,
            ts: self.now,
            flow_hash: fl.hash_fwd,
            retx: false,
            ect: false,
            ce: false,
        };
        fl.udp_sent += payload as u64;
        fl.udp_packets += 1;
        let more = fl.udp_sent < spec.size_bytes;
        let src = fl.src;
        let gap = ser_time_ps(wire as u64, spec.rate_bps.unwrap_or(1)).max(1);
        self.send_from_host(src, pkt);
        if more {
            self.events.push(self.now + gap, EventKind::UdpSend, f);
        }
    }

    // ---- results -----------------------------------------------------------------------------------

    /// The results, with `flows` empty: the flows' result rows, in flow order, come beside them.
    fn results(mut self, wall_s: f64, stopped_by: &'static str) -> (SimResults, Vec<FlowRow>) {
        let schedule = self.linkstate.take().map(|mut ls| {
            let ports = &self.ports;
            ls.close(&|p| drain_end(&ports[p as usize]));
            ls.result()
        });
        let rows = std::mem::replace(&mut self.flows, Flows::new(0)).into_rows();
        let links = self
            .ports
            .iter()
            .enumerate()
            .map(|(d, p)| LinkDirResult {
                link: p.link,
                dir: d as u32,
                from: p.from,
                to: p.to,
                bytes_sent: p.counters.bytes_sent,
                packets_sent: p.counters.packets_sent,
                busy_ps: p.counters.busy_ps,
                drops: p.counters.drops,
                drop_bytes: p.counters.drop_bytes,
                peak_queue_packets: p.counters.peak_queue_packets,
                peak_queue_bytes: p.counters.peak_queue_bytes,
                eee: p.eee.as_ref().map(|e| e.close(p.free_at(), self.now)),
            })
            .collect();
        let nodes = self
            .spec
            .nodes
            .iter()
            .zip(&self.node_counters)
            .map(|(n, c)| NodeResult {
                name: n.name.clone(),
                kind: match n.kind {
                    NodeKind::Host => "host",
                    NodeKind::Switch => "switch",
                },
                packets_sent: c.sent,
                packets_received: c.received,
                packets_forwarded: c.forwarded,
            })
            .collect();
        let series = (self.window_ps > 0).then(|| {
            let width = self
                .ports
                .iter()
                .map(|p| p.window_bytes.len())
                .chain(self.host_windows.iter().map(|r| r.len()))
                .max()
                .unwrap_or(0);
            let host_series = |at: usize| -> Vec<Vec<u64>> {
                self.host_windows
                    .iter()
                    .map(|r| (0..width).map(|w| r.get(w).map_or(0, |c| c[at])).collect())
                    .collect()
            };
            Series {
                window_ps: self.window_ps,
                host_packets_sent: host_series(0),
                host_bytes_sent: host_series(1),
                host_packets_received: host_series(2),
                host_bytes_received: host_series(3),
                link_bytes: self
                    .ports
                    .iter()
                    .map(|p| {
                        let mut v = p.window_bytes.clone();
                        v.resize(width, 0);
                        v
                    })
                    .collect(),
            }
        });
        let flows_completed = rows.iter().filter(|r| r.finish().is_some()).count() as u64;
        let results = SimResults {
            summary: Summary {
                sim_time_ps: self.now,
                events: self.events_done,
                packet_hops: self.hops,
                wall_s,
                drops: self.drops,
                packets_created: self.created,
                packets_delivered: self.delivered,
                packets_in_flight: self.pool.live(),
                flows_completed,
                stopped_by,
                peak_packets_alive: self.pool.capacity_used() as u64,
            },
            flows: Vec::new(),
            links,
            nodes,
            series,
            schedule,
        };
        (results, rows)
    }
}
