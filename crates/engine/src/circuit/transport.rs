//! Transports in the circuit simulator: a flow's start, segments queued at the source (onto Opera's low-latency
//! class, or a bulk flow's source ToR queue), TCP's ACKs sent at once and acted on at the source, NDP's ACKs,
//! NACKs and paced pulls, the timers. The senders, the receiver and the pull pacer are the packet engine's
//! (`crate::tcp`, `crate::ndp`).

use super::{CPacket, CircuitSim, Kind, Queued};
use crate::circuit::spec::CircuitRouting;
use crate::event::EventKind;
use crate::tcp::Segment;

impl CircuitSim<'_> {
    /// A TCP or NDP flow starts: its first window of segments onto the low-latency path.
    pub(super) fn transport_start(&mut self, f: u32) {
        let now = self.now;
        let mut segs = Vec::new();
        let tcp = self.tcp.clone();
        let fl = &mut self.flows[f as usize];
        match (fl.sender.as_mut(), fl.ndp.as_mut()) {
            (Some(s), _) => s.fill_window(now, &tcp, &mut segs),
            (None, Some(n)) => n.start(now, self.spec.ndp.initial_window, &mut segs),
            (None, None) => unreachable!("only TCP and NDP flows start here"),
        }
        self.send_segments(f, &segs);
    }

    /// Flow `f`'s receiver acknowledges at once (our choice: no delayed ACKs on circuits); the ACK travels the
    /// low-latency class back to the source (Opera, bulk flows too), or, on a fabric without one, the circuits
    /// towards the source like bulk data (`route_ack`).
    pub(super) fn acknowledge(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        let ece = fl.receiver.ece;
        let (ack, echo) = fl.receiver.take_ack();
        let wire = self.tcp.header_bytes + self.spec.packet.frame_overhead_bytes;
        let src = self.ends[f as usize].0;
        let ll = self.spec.routing == CircuitRouting::Opera
            || !self.bulk_tcp.get(f as usize).is_some_and(|&b| b);
        let pk = CPacket {
            ll,
            ce: ece,
            ..CPacket::of_flow(Kind::Ack, f, src, wire, 0, ack, echo)
        };
        let ack_id = self.alloc(pk);
        self.emit(self.spec.flows[f as usize].dst, ack_id);
    }

    /// A TCP ACK reached its flow's source (endpoint or host).
    pub(super) fn ack_at_source(&mut self, id: u32) {
        let pk = self.pkts[id as usize];
        self.release(id);
        self.control_received += 1;
        let now = self.now;
        let tcp = self.tcp.clone();
        let mut segs = Vec::new();
        let fl = &mut self.flows[pk.flow as usize];
        if let Some(s) = fl.sender.as_mut() {
            let was_done = s.done();
            if s.dctcp.is_some() {
                s.on_ack_ecn(now, pk.seq, pk.ts, pk.ce, &tcp, &self.spec.dctcp, &mut segs);
            } else {
                s.on_ack(now, pk.seq, pk.ts, &tcp, &mut segs);
            }
            if s.done() && !was_done {
                self.unsent -= 1;
                fl.acked = Some(now); // the ACK covering the last byte
            }
        }
        self.send_segments(pk.flow, &segs);
    }

    /// Queue a TCP flow's segments at its source on the current slice's paths (a bulk flow: in its source
    /// ToR's queue for the destination) and keep its timer armed.
    pub(super) fn send_segments(&mut self, f: u32, segs: &[Segment]) {
        if self.any_bulk_tcp && self.bulk_tcp[f as usize] {
            self.queue_bulk(f, segs);
            return self.arm_timer(f);
        }
        let src = self.spec.flows[f as usize].src;
        let dst = self.ends[f as usize].1;
        let hdr = self.tcp.header_bytes + self.spec.packet.frame_overhead_bytes;
        for seg in segs {
            let h = &mut self.hot[f as usize];
            h.packets_sent += 1;
            h.sent = h.sent.max(seg.seq + seg.len as u64);
            let id = self.alloc(CPacket {
                ll: true,
                retx: seg.retx,
                ..CPacket::of_flow(
                    Kind::Data,
                    f,
                    dst,
                    seg.len + hdr,
                    seg.len,
                    seg.seq,
                    self.now,
                )
            });
            self.emit(src, id);
        }
        self.arm_timer(f);
    }

    /// Keep flow `f`'s retransmission (or NDP's last-resort) timer armed for its deadline.
    fn arm_timer(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        if let Some(d) = fl.rto_deadline() {
            if fl.rto_pending.is_none_or(|p| p > d) {
                fl.rto_pending = Some(d);
                self.events.push(d, EventKind::RtoTimer, f);
            }
        }
    }

    /// Bulk TCP flow `f`'s window released `segs` (or bulk NDP's initial window, a pull, a timeout): they join
    /// its source ToR's queue for the destination, where the uplinks take them as they take datagrams (RotorLB
    /// offers them and may relay them). Our choice (the window limits what the sender hands to its ToR; the
    /// schedule and RotorLB decide when queued bytes cross a circuit; NDP's bulk packets are never trimmed, as
    /// its pulls keep a flow's queue within its initial window): docs/circuit-engine.md, "Reliable bulk
    /// traffic". DCTCP: a segment finding K or more packets in
    /// that queue is marked Congestion Experienced (Alizadeh et al. 2010, section 3.1).
    fn queue_bulk(&mut self, f: u32, segs: &[Segment]) {
        if segs.is_empty() {
            return;
        }
        let (e, d) = self.ends[f as usize];
        let voq = (e * self.n + d) as usize;
        let k = self.flows[f as usize]
            .sender
            .as_ref()
            .and_then(|s| s.dctcp.as_ref())
            .map(|_| self.spec.dctcp.k_packets);
        for &seg in segs {
            let h = &mut self.hot[f as usize];
            h.packets_sent += 1;
            h.sent = h.sent.max(seg.seq + seg.len as u64);
            let ce = k.is_some_and(|k| self.voq_pkts[voq] as u64 >= k);
            self.flows[f as usize].queued.push_back(Queued { seg, ce });
            self.voq_pkts[voq] += 1;
            self.backlog[voq] += seg.len as u64;
        }
        self.wake_endpoint(e);
    }

    /// Bulk TCP's ACK `id` is at endpoint `at` on a fabric without a low-latency class: it waits there for the
    /// circuit to its next hop, served right after control messages. Its next hop is its destination (RotorLB
    /// and direct routing: one hop, our choice, as an ACK is not offered to relays), or on SelectorNet the
    /// largest power of two in the offset still to go (a selector route's default order).
    pub(super) fn route_ack(&mut self, at: u32, id: u32) {
        let dst = self.pkts[id as usize].dst;
        let n = self.n;
        let next = if self.spec.routing == CircuitRouting::Selector {
            let off = (dst + n - at) % n;
            (at + (1 << (31 - off.leading_zeros()))) % n
        } else {
            dst
        };
        self.ack_q[(at * n + next) as usize].push_back(id);
        for sw in 0..self.s {
            if self.peer_of[(at * self.s + sw) as usize] == next {
                self.wake(at * self.s + sw);
            }
        }
    }

    pub(super) fn rto_timer(&mut self, f: u32) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        fl.rto_pending = None;
        let mut segs = Vec::new();
        match fl.rto_deadline() {
            Some(d) if d <= now => {
                let tcp = self.tcp.clone();
                match (fl.sender.as_mut(), fl.ndp.as_mut()) {
                    (Some(s), _) => s.on_timeout(now, &tcp, &mut segs),
                    (None, Some(n)) => n.on_timeout(now, self.spec.ndp.initial_window, &mut segs),
                    (None, None) => return,
                }
                self.send_segments(f, &segs);
            }
            Some(_) => self.send_segments(f, &segs), // moved later: re-arm
            None => {}
        }
    }

    // NDP (Handley et al. 2017, section 3): the receiver ACKs each data packet and NACKs each trimmed header at
    // once, owes the sender a pull for either, and its pacer sends the pulls one full packet apart.

    /// A trimmed header reached its destination (endpoint or host): NACK it and owe a pull. Counted with the
    /// control packets (it carries no payload).
    pub(super) fn header_at_destination(&mut self, id: u32) {
        let pk = self.pkts[id as usize];
        self.release(id);
        self.control_received += 1;
        self.ndp_receive(pk.flow, pk.seq, false);
    }

    /// NDP flow `f`'s receiver saw the packet at byte `seq` whole (ACK) or trimmed (NACK).
    pub(super) fn ndp_receive(&mut self, f: u32, seq: u64, whole: bool) {
        let rx = &mut self.flows[f as usize].receiver;
        rx.stats.acks_sent += 1;
        let wanted = rx.finish.is_none();
        self.ndp_send_control(f, if whole { Kind::NdpAck } else { Kind::NdpNack }, seq);
        let x = self.pacer_of(f);
        if !wanted {
            return; // every byte is in: no more pulls (as the packet engine)
        }
        if let Some(t) = self.pacers[x as usize].owe(f, self.now) {
            self.events.push(t, EventKind::NdpPull, x);
        }
    }

    /// Pacer `x` (a receiver's, or a flow's: `pacer_of`) sends the next pull it owes.
    pub(super) fn ndp_pull(&mut self, x: u32) {
        let (Some(f), next) = self.pacers[x as usize].fire(self.now) else {
            return;
        };
        self.ndp_send_control(f, Kind::NdpPull, 0);
        if let Some(t) = next {
            self.events.push(t, EventKind::NdpPull, x);
        }
    }

    /// An NDP header-sized control packet from flow `f`'s receiver back to its source, at high priority on the
    /// low-latency class (Opera, bulk flows too), or, on a fabric without one, the way bulk TCP's ACKs go
    /// (`route_ack`: over the direct circuit, or hop by hop on SelectorNet).
    fn ndp_send_control(&mut self, f: u32, kind: Kind, seq: u64) {
        let src = self.ends[f as usize].0;
        let wire = self.spec.ndp.header_bytes + self.spec.packet.frame_overhead_bytes;
        let ll = self.spec.routing == CircuitRouting::Opera
            || !self.bulk_tcp.get(f as usize).is_some_and(|&b| b);
        let id = self.alloc(CPacket {
            ll,
            ..CPacket::of_flow(kind, f, src, wire, 0, seq, self.now)
        });
        self.emit(self.spec.flows[f as usize].dst, id);
    }

    /// An NDP ACK, NACK or pull reached its flow's source: the sender acts, maybe sending a packet.
    pub(super) fn ndp_control_at_source(&mut self, id: u32) {
        let pk = self.pkts[id as usize];
        self.release(id);
        self.control_received += 1;
        let now = self.now;
        let mut segs = Vec::new();
        let fl = &mut self.flows[pk.flow as usize];
        // The first ACK sent once the receiver held every byte, as in the packet engine (`Sim::ndp_control`).
        if pk.kind == Kind::NdpAck
            && fl.acked.is_none()
            && fl.receiver.finish.is_some_and(|t| pk.ts >= t)
        {
            fl.acked = Some(now);
        }
        let Some(s) = fl.ndp.as_mut() else { return };
        let was_done = s.done();
        match pk.kind {
            Kind::NdpAck => s.on_ack(now, pk.seq),
            Kind::NdpNack => {
                s.on_nack(now, pk.seq);
                // With every packet sent, a NACKed one goes again at once, as the public Opera simulator's
                // sender does (src/opera/ndp.cpp, `NdpSrc::processNack`, lines 252-258): its pull may have
                // overtaken the NACK on another path (NDP's packets spray) and found nothing to send, and no
                // later pull would come for it, leaving the flow to its last-resort timer.
                if s.all_sent() {
                    s.on_pull(now, &mut segs);
                }
            }
            _ => s.on_pull(now, &mut segs),
        }
        if s.done() && !was_done {
            self.unsent -= 1;
        }
        self.send_segments(pk.flow, &segs);
    }
}
