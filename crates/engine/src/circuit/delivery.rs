//! Arrivals in the circuit simulator: a packet off a circuit goes to its destination's receiver (datagrams
//! shown in arrival order through a flow's pending list), to a relay's store for its next hop, or to RotorLB's
//! negotiation; the per-window receive counters.

use super::{CPacket, CircuitSim, Delivery, FlowState, Held, Kind};
use crate::circuit::spec::CircuitRouting;
use crate::event::EventKind;
use crate::spec::TcpSpec;

impl CircuitSim<'_> {
    /// A datagram's last hop was handed over and its circuit will carry it: it is delivered at `arrival`
    /// without an event of its own. Nothing a sender decides depends on a datagram's delivery, so only its
    /// receiver must see the flow's packets in arrival order: they wait in the flow's `pending` list, sorted by
    /// arrival (then hand-over order), and are shown to the receiver once no packet handed over later can
    /// arrive before them (every hand-over reaches the far end at least `min_transit_ps` after it), or at the
    /// end of the run. This halves the events of a datagram run (one per hop instead of two).
    pub(super) fn deliver(&mut self, pk: CPacket, arrival: u64) {
        self.delivered += 1;
        self.payload_delivered += pk.payload as u64;
        self.last_delivery = self.last_delivery.max(arrival);
        if let Some(w) = arrival.checked_div(self.window_ps) {
            Self::count(
                &mut self.win_rx[pk.dst as usize],
                w,
                pk.payload as u64,
                &mut self.windows_overflowed,
            );
        }
        if pk.relayed {
            self.max_relay_delay = self.max_relay_delay.max(arrival - pk.ts);
        }
        let settled = self.now + self.min_transit_ps;
        let d = Delivery {
            arrival,
            seq: pk.seq,
            ts: pk.ts,
            payload: pk.payload,
            retx: pk.retx,
        };
        let fl = &mut self.flows[pk.flow as usize];
        let at = fl
            .pending
            .iter()
            .rposition(|x| x.arrival <= arrival)
            .map_or(0, |i| i + 1);
        fl.pending.insert(at, d);
        let ready = fl
            .pending
            .iter()
            .take_while(|x| x.arrival <= settled)
            .count();
        Self::show(fl, ready, &self.tcp);
    }

    /// Hand the first `count` pending deliveries of a flow to its receiver.
    #[inline]
    pub(super) fn show(fl: &mut FlowState, count: usize, tcp: &TcpSpec) {
        for d in fl.pending.drain(..count) {
            fl.receiver
                .on_data(d.arrival, d.seq, d.payload, d.retx, d.ts, tcp);
        }
    }

    #[inline]
    pub(super) fn count(row: &mut Vec<u64>, w: u64, bytes: u64, overflowed: &mut bool) {
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

    pub(super) fn arrival(&mut self, port: u32) {
        let ps = &mut self.ports[port as usize];
        let (_, id, to) = ps.pipe.pop_front().expect("an arrival has a packet");
        self.in_pipes -= 1;
        if let Some(&(next, _, _)) = ps.pipe.front() {
            self.events.push(next, EventKind::CircuitArrival, port);
        }
        let sw = port % self.s;
        let pk = self.pkts[id as usize];
        match pk.kind {
            Kind::Offer | Kind::Accept => self.arrival_elsewhere(id, to, sw),
            _ if pk.dst == to && self.hosts.is_some() => self.down_to_host(id),
            Kind::Data if pk.dst == to => self.data_at_destination(id, to),
            Kind::Ack if pk.dst == to => self.ack_at_source(id),
            Kind::Header if pk.dst == to => self.header_at_destination(id),
            Kind::NdpAck | Kind::NdpNack | Kind::NdpPull if pk.dst == to => {
                self.ndp_control_at_source(id)
            }
            _ if pk.ll => {
                self.pkts[id as usize].hop = pk.hop.saturating_add(1);
                self.route_low_latency(to, id);
            }
            _ => self.arrival_elsewhere(id, to, sw),
        }
    }

    /// A data packet reached its destination (the endpoint `to`, or its host): delivered to the flow's
    /// receiver; a TCP segment is acknowledged at once (our choice: no delayed ACKs on circuits).
    pub(super) fn data_at_destination(&mut self, id: u32, to: u32) {
        let pk = self.pkts[id as usize];
        self.release(id);
        self.delivered += 1;
        self.payload_delivered += pk.payload as u64;
        if let Some(w) = self.now.checked_div(self.window_ps) {
            Self::count(
                &mut self.win_rx[to as usize],
                w,
                pk.payload as u64,
                &mut self.windows_overflowed,
            );
        }
        if pk.relayed {
            self.max_relay_delay = self.max_relay_delay.max(self.now - pk.ts);
        }
        let tcp = &self.tcp;
        let fl = &mut self.flows[pk.flow as usize];
        if fl.sender.as_ref().is_some_and(|s| s.dctcp.is_some()) {
            fl.receiver.note_ce(pk.ce);
        }
        fl.receiver
            .on_data(self.now, pk.seq, pk.payload, pk.retx, pk.ts, tcp);
        if fl.sender.is_some() {
            self.acknowledge(pk.flow);
        } else if fl.ndp.is_some() {
            self.ndp_receive(pk.flow, pk.seq, true);
        }
    }

    /// A packet reached an endpoint that is not its destination: a relay (data), or a control message's peer.
    pub(super) fn arrival_elsewhere(&mut self, id: u32, to: u32, sw: u32) {
        let pk = self.pkts[id as usize];
        match pk.kind {
            Kind::Data => self.hold_at_relay(id, to),
            // bulk TCP's ACK, bulk NDP's ACK, NACK or pull, on a fabric without a low-latency class
            Kind::Ack | Kind::NdpAck | Kind::NdpNack | Kind::NdpPull => self.route_ack(to, id),
            Kind::Header => {
                unreachable!("bulk packets are never trimmed: headers travel the low-latency class")
            }
            Kind::Offer => self.offer_arrived(id, to, sw),
            Kind::Accept => self.accept_arrived(id, to, sw),
        }
    }

    /// A relayed data packet reached a relay: held by value for its next hop, the destination itself (RotorLB)
    /// or the route's next offset (selector).
    pub(super) fn hold_at_relay(&mut self, id: u32, to: u32) {
        let pk = self.pkts[id as usize];
        let next = if self.spec.routing == CircuitRouting::Selector {
            let off = self.routes[pk.flow as usize][pk.hop as usize];
            self.pkts[id as usize].hop += 1;
            (to + off) % self.n
        } else {
            pk.dst
        };
        let q = (to * self.n + next) as usize;
        let p = self.pkts[id as usize];
        let tcp = self.any_bulk_tcp && self.bulk_tcp[p.flow as usize];
        debug_assert!(
            p.relayed
                && p.wire_bytes
                    == p.payload
                        + if tcp {
                            self.tcp_header()
                        } else {
                            self.data_header()
                        }
        );
        self.free.push(id); // the packet stays alive (counted in `live`), held by value
        self.relay_len[q] += 1;
        self.relay[q].push_back(Held {
            seq: p.seq,
            ts: p.ts,
            flow: p.flow,
            dst: p.dst,
            payload: p.payload,
            hop: p.hop,
            tcp,
            retx: p.retx,
            ce: p.ce,
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
}
