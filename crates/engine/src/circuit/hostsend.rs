//! The circuit simulator's hosts (runs whose spec has `hosts`): a datagram leaves its host's NIC just in time
//! for the ToR uplink that sends it (the NIC serialising one packet at a time), TCP segments and ACKs and
//! flows within a rack are pushed through the NIC's queue, and every packet for a host crosses the ToR's port
//! down to it. The links themselves are `super::super::hostlink::HostLinks`; docs/circuit-engine.md, "Hosts".

use super::{CPacket, CircuitSim, Kind};
use crate::event::EventKind;

impl CircuitSim<'_> {
    /// Can flow `f`'s next packet (`avail` bytes are there to send) have left its host's NIC and reached the
    /// ToR by now? Always, without hosts.
    #[inline]
    pub(super) fn nic_ready(&self, f: u32, avail: u64) -> bool {
        self.hosts.is_none() || self.nic_ready_at(f, avail) <= self.now
    }

    /// When flow `f`'s next packet of `len` payload bytes (at most a full one) can be at its ToR (0 without
    /// hosts).
    pub(super) fn nic_ready_at(&self, f: u32, len: u64) -> u64 {
        let Some(hl) = &self.hosts else { return 0 };
        let len = len.min(self.spec.packet.payload_bytes as u64) as u32;
        let hdr = if self.any_bulk_tcp && self.bulk_tcp[f as usize] {
            self.tcp_header()
        } else {
            self.data_header()
        };
        hl.ready_at(self.spec.flows[f as usize].src, len + hdr)
    }

    /// Flow `f`'s packet of `wire` bytes is handed over at its ToR now: its host's NIC sent it just in time.
    #[inline]
    pub(super) fn pull_from_host(&mut self, f: u32, wire: u32) {
        if let Some(hl) = &mut self.hosts {
            hl.pull(self.spec.flows[f as usize].src, wire, self.now);
        }
    }

    /// Packet `id` is made at `x` (a host, or an endpoint without hosts): onto the host's NIC, or straight
    /// onto the endpoint's low-latency path (bulk TCP's ACKs without a low-latency class: its ACK queue).
    pub(super) fn emit(&mut self, x: u32, id: u32) {
        let now = self.now;
        let Some(hl) = &mut self.hosts else {
            return self.route_from(x, id);
        };
        let pk = &self.pkts[id as usize];
        // NDP's headers and control go ahead of data on the NIC, as the public Opera simulator's host queues
        // send them (src/opera/queue.cpp, `PriorityQueue::getPriority`, lines 178-192)
        match hl.push_up(x, id, pk.wire_bytes, now, pk.kind.ndp_priority()) {
            None => self.release(id),
            Some((arrival, first)) => {
                self.in_pipes += 1;
                if first {
                    self.events.push(arrival, EventKind::PortArrival, 2 * x);
                }
            }
        }
    }

    /// Packet `id` reached the ToR of its destination host (a flow's destination for data and NDP's trimmed
    /// headers; the flow's source for TCP's ACKs and NDP's ACKs, NACKs and pulls): onto the ToR's port down to
    /// that host. NDP's headers and control go ahead of data there, and NDP data meeting `ndp.queue` of data
    /// is trimmed to its header, as at the ToR's uplinks (the public Opera simulator's ToR ports down to hosts
    /// are the same trimming queues as its uplinks, src/opera/datacenter/dynexp_topology.cpp lines 196-200).
    pub(super) fn down_to_host(&mut self, id: u32) {
        let pk = self.pkts[id as usize];
        let f = &self.spec.flows[pk.flow as usize];
        let h = if matches!(
            pk.kind,
            Kind::Ack | Kind::NdpAck | Kind::NdpNack | Kind::NdpPull
        ) {
            f.src
        } else {
            f.dst
        };
        let now = self.now;
        let ndp_data = pk.kind == Kind::Data && self.flows[pk.flow as usize].ndp.is_some();
        let hl = self.hosts.as_mut().expect("a run with hosts");
        let mut prio = pk.kind.ndp_priority();
        if ndp_data && hl.down_full(h, now, self.spec.ndp.queue, pk.wire_bytes) {
            let p = &mut self.pkts[id as usize];
            p.kind = Kind::Header;
            p.wire_bytes = self.spec.ndp.header_bytes + self.spec.packet.frame_overhead_bytes;
            self.flows[pk.flow as usize].trims += 1;
            hl.trimmed(h);
            prio = true;
        }
        match hl.push_down(h, id, self.pkts[id as usize].wire_bytes, now, prio) {
            None => self.release(id),
            Some((arrival, first)) => {
                self.in_pipes += 1;
                if first {
                    self.events.push(arrival, EventKind::PortArrival, 2 * h + 1);
                }
            }
        }
    }

    /// The packet at the head of a host link's pipe arrives: `arg` 2h at host h's ToR, 2h + 1 at host h.
    pub(super) fn host_link_arrival(&mut self, arg: u32) {
        let (h, down) = (arg / 2, arg % 2 == 1);
        let hl = self.hosts.as_mut().expect("a run with hosts");
        let port = if down {
            &mut hl.down[h as usize]
        } else {
            &mut hl.up[h as usize]
        };
        let (head, next) = port.pop_arrival();
        if let Some(t) = next {
            self.events.push(t, EventKind::PortArrival, arg);
        }
        self.in_pipes -= 1;
        let id = head.pkt;
        let pk = self.pkts[id as usize];
        let rack = hl.rack(h);
        if down {
            hl.received(h, pk.wire_bytes, pk.payload, self.now);
            match pk.kind {
                Kind::Data => self.data_at_destination(id, rack),
                Kind::Ack => self.ack_at_source(id),
                Kind::Header => self.header_at_destination(id),
                Kind::NdpAck | Kind::NdpNack | Kind::NdpPull => self.ndp_control_at_source(id),
                Kind::Offer | Kind::Accept => unreachable!("control messages stay between ToRs"),
            }
        } else if pk.dst == rack {
            self.down_to_host(id); // within the rack: the ToR turns it round
        } else {
            self.route_from(rack, id);
        }
    }

    /// Packet `id` made here leaves endpoint `at`: on the low-latency class, or (a bulk TCP ACK on a fabric
    /// without one) into the ACK queue for its next hop.
    #[inline]
    fn route_from(&mut self, at: u32, id: u32) {
        if self.pkts[id as usize].ll {
            self.route_low_latency(at, id)
        } else {
            self.route_ack(at, id)
        }
    }

    /// A flow between two hosts of one rack hands its next datagram to its host's NIC when the NIC is free
    /// (and its rate cap, if any, has earned it), and comes back when the NIC is free again.
    pub(super) fn intra_send(&mut self, f: u32) {
        let h = self.hot[f as usize];
        if h.sent >= h.size {
            return;
        }
        let pay = self.spec.packet.payload_bytes as u64;
        let src = self.spec.flows[f as usize].src;
        let free = self.hosts.as_ref().expect("a run with hosts").up[src as usize].free_at();
        let avail = self.available(f);
        let wait = if free > self.now {
            Some(free)
        } else if avail < (h.size - h.sent).min(pay) {
            self.earliest_available(&[f])
        } else {
            None
        };
        if let Some(t) = wait {
            self.events.push(t.max(self.now), EventKind::UdpSend, f);
            return;
        }
        let len = avail.min(pay);
        let wire = len as u32 + self.data_header();
        let seq = self.hand_out(f, len);
        let pk = CPacket::of_flow(
            Kind::Data,
            f,
            self.ends[f as usize].1,
            wire,
            len as u32,
            seq,
            self.now,
        );
        let id = self.slot_for(pk);
        self.emit(src, id);
        if self.hot[f as usize].sent < self.hot[f as usize].size {
            let free = self.hosts.as_ref().expect("a run with hosts").up[src as usize].free_at();
            self.events.push(free.max(self.now), EventKind::UdpSend, f);
        }
    }

    /// Opera's low-latency datagrams of endpoint `e` found nothing to send on `port`: with hosts, one whose
    /// path starts on this port may be waiting only for its host's NIC; look again when the first such NIC
    /// can deliver.
    pub(super) fn wake_for_low_latency(&mut self, port: u32, e: u32) {
        if self.hosts.is_none() {
            return;
        }
        let sw = port % self.s;
        // The first time after now that one of them will have a packet, if before the window ends: finished
        // flows are skipped, and on a list whose flows start in order the walk stops at a flow not yet started
        // that starts at or after both the window's end and the time found (none after it is earlier).
        let until = self.ports[port as usize].win_end;
        let in_order = self.fast && self.ll_src.in_order(e as usize);
        let (s, end) = self.ll_src.span(e as usize);
        let mut t: Option<u64> = None;
        let mut k = self.ll_src.listed_from(s);
        while k < end {
            let f = self.ll_src.item(k);
            let start = self.hot[f as usize].start;
            if in_order && start > self.now && start >= t.map_or(until, |b| b.min(until)) {
                break;
            }
            if self.next_switch(e, self.ends[f as usize].1) == Some(sw) {
                if let Some(x) = self.earliest_of(f).filter(|&x| x > self.now) {
                    t = Some(t.map_or(x, |b| b.min(x)));
                }
            }
            k = self.ll_src.listed_from(k + 1);
        }
        if let Some(t) = t.filter(|&t| t < until) {
            let ps = &mut self.ports[port as usize];
            if ps.next_at.is_none_or(|p| p > t) {
                ps.next_at = Some(t);
                self.events.push(t, EventKind::PortNext, port);
            }
        }
    }
}
