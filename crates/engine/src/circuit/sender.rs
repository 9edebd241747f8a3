//! The circuit simulator's TDMA senders: opening a slot's sending window on every uplink, choosing what an
//! uplink hands over next (control, bulk TCP's ACKs, stored relayed traffic, its own traffic, RotorLB phase 3),
//! the per-packet
//! send-to-wire lag, and the hand-over itself with the switch's circuit check (docs/circuit-engine.md, "Model").

use super::{prefetch, CPacket, CircuitSim, Kind, Queued};
use crate::circuit::spec::CircuitRouting;
use crate::event::EventKind;

impl CircuitSim<'_> {
    pub(super) fn slot_start(&mut self, sw: u32, k: usize, start: i128) {
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

    /// Make sure `port` looks for work at the earliest time it may hand over a packet.
    #[inline]
    pub(super) fn wake(&mut self, port: u32) {
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

    pub(super) fn wake_endpoint(&mut self, e: u32) {
        for sw in 0..self.s {
            self.wake(e * self.s + sw);
        }
    }

    pub(super) fn port_next(&mut self, port: u32) {
        let Some(peer) = self.ports[port as usize].peer else {
            return;
        };
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
        let q = (e * n + peer) as usize;
        // 1b. bulk TCP's ACKs for this next hop (fabrics without a low-latency class)
        if let Some(&a) = self.ack_q.get(q).and_then(|x| x.front()) {
            if self.fits(port, self.pkts[a as usize].wire_bytes) {
                self.ack_q[q].pop_front();
                self.transmit(port, peer, self.pkts[a as usize], Some(a));
            }
            return;
        }
        // 2. stored relayed traffic that this circuit moves on (held per next hop)
        if self.relay_len[q] > 0 {
            let head = self.relay[q].front().expect("counted");
            let hdr = if head.tcp { self.tcp_header() } else { pkt_hdr };
            if self.fits(port, head.payload + hdr) {
                let h = self.relay[q].pop_front().expect("non-empty");
                self.relay_len[q] -= 1;
                if let Some(next) = self.relay[q].front() {
                    prefetch(next);
                }
                self.held[q] -= h.payload as u64;
                let pk = CPacket {
                    relayed: true,
                    hop: h.hop,
                    retx: h.retx,
                    ce: h.ce,
                    ..CPacket::of_flow(
                        Kind::Data,
                        h.flow,
                        h.dst,
                        h.payload + hdr,
                        h.payload,
                        h.seq,
                        h.ts,
                    )
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
        let extra = if self.balances() {
            self.ports[port as usize].relay_budget.len()
        } else {
            0
        };
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
            // Round robin over the list's flows (selector lists mix destinations), first come otherwise.
            let until = self.ports[port as usize].win_end;
            let pick = if routing == CircuitRouting::Selector {
                self.first_ready_in_round(list, self.ports[port as usize].rr, until)
            } else {
                self.first_ready(list, until).map(|f| (f, 0))
            };
            let (f, at) = match pick {
                Ok(x) => x,
                Err(t) => {
                    if let Some(t) = t {
                        wake_at = Some(wake_at.map_or(t, |w| w.min(t)));
                    }
                    continue;
                }
            };
            let d = if routing == CircuitRouting::Selector {
                self.ends[f as usize].1
            } else {
                d
            };
            if self.any_bulk_tcp && self.bulk_tcp[f as usize] {
                self.send_queued(port, peer, f, d, via_relay);
                if routing == CircuitRouting::Selector {
                    self.next_in_round(port, list, at);
                }
                return;
            }
            let mut len = self.available(f).min(pay);
            if via_relay {
                let b = self.ports[port as usize]
                    .relay_budget
                    .iter()
                    .find(|(x, _)| *x == d)
                    .map_or(0, |x| x.1);
                len = len.min(b);
            }
            let wire = len as u32 + pkt_hdr;
            if !self.fits(port, wire) {
                return; // the window cannot take this packet: stop early (the guard)
            }
            if via_relay {
                for x in self.ports[port as usize]
                    .relay_budget
                    .iter_mut()
                    .filter(|x| x.0 == d)
                {
                    x.1 -= len;
                }
            }
            let seq = self.hand_out(f, len);
            let h = &self.hot[f as usize];
            if h.sent >= h.size && self.fast {
                // its last byte is out: no uplink need look at it again
                let (src, dst) = self.ends[f as usize];
                self.local.unlink((src * n + dst) as usize, f);
                self.first_hop.remove(f);
            }
            self.pull_from_host(f, wire);
            if self.hot[f as usize].rate == 0 && !self.low_latency[f as usize] {
                self.backlog[(e * n + d) as usize] -= len;
            }
            let pk = CPacket {
                relayed: via_relay || d != peer,
                ..CPacket::of_flow(Kind::Data, f, d, wire, len as u32, seq, now)
            };
            if routing == CircuitRouting::Selector {
                self.next_in_round(port, list, at);
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

    /// Selector routing: the round robin over a first-hop list goes on after the flow at position `at`.
    #[inline]
    fn next_in_round(&mut self, port: u32, list: usize, at: u32) {
        let (s, e) = self.first_hop.span(list);
        self.ports[port as usize].rr = (at + 1) % (e - s);
    }

    /// Bulk TCP flow `f` hands the segment at the head of its source ToR queue for `d` to `port` (its next hop
    /// `peer`), if the window can take it. A segment is never split: on RotorLB's phase 3 it leaves while the
    /// peer's accepted budget for `d` is not yet spent, and may overrun it by less than one segment (our choice).
    fn send_queued(&mut self, port: u32, peer: u32, f: u32, d: u32, via_relay: bool) {
        let Some(&Queued { seg, ce }) = self.flows[f as usize].queued.front() else {
            return;
        };
        let wire = seg.len + self.tcp_header();
        if !self.fits(port, wire) {
            return; // the window cannot take this packet: stop early (the guard)
        }
        if via_relay {
            for x in self.ports[port as usize]
                .relay_budget
                .iter_mut()
                .filter(|x| x.0 == d)
            {
                x.1 = x.1.saturating_sub(seg.len as u64);
            }
        }
        self.flows[f as usize].queued.pop_front();
        let (e, n) = (port / self.s, self.n);
        self.backlog[(e * n + d) as usize] -= seg.len as u64;
        self.voq_pkts[(e * n + d) as usize] -= 1;
        self.born();
        self.pull_from_host(f, wire);
        let pk = CPacket {
            relayed: via_relay || d != peer,
            retx: seg.retx,
            ce,
            ..CPacket::of_flow(Kind::Data, f, d, wire, seg.len, seg.seq, self.now)
        };
        self.transmit(port, peer, pk, None);
    }

    /// Does a packet of `wire` bytes handed over now finish before the window closes?
    #[inline]
    pub(super) fn fits(&self, port: u32, wire: u32) -> bool {
        self.now + self.clock.time_ps(wire as u64) <= self.ports[port as usize].win_end
    }

    #[inline]
    pub(super) fn lag(&mut self, port: u32) -> u64 {
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
            lag += if t.stall_law == "fixed" {
                t.stall_ps
            } else {
                (-(t.stall_ps as f64) * unit().ln()) as u64
            };
        }
        lag
    }

    /// Hand packet `pk` to `port`'s NIC. `slot` is its pool slot if it has one (queued control and low-latency
    /// packets); a packet made at hand-over or leaving a relay's store gets one only if it enters the pipe.
    pub(super) fn transmit(&mut self, port: u32, peer: u32, pk: CPacket, slot: Option<u32>) {
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
            Self::count(
                &mut self.win_tx[e as usize],
                win,
                wire as u64,
                &mut self.windows_overflowed,
            );
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
                && (!(pk.ll || self.any_bulk_tcp) || !self.flows[pk.flow as usize].reliable())
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
    #[inline]
    pub(super) fn wake_after_handover(&mut self, port: u32) {
        let ps = &mut self.ports[port as usize];
        let t = ps.next_handover;
        if t < ps.win_end && ps.next_at.is_none_or(|p| p > t) {
            ps.next_at = Some(t);
            self.events.push(t, EventKind::PortNext, port);
        }
    }
}
