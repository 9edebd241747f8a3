//! Opera's low-latency class in the circuit simulator (seed 001 section 2.6, lines 912-931): packets routed
//! hop by hop over the current slice's expander, re-routed when their circuit goes, and served on an uplink
//! right after control messages.

use super::{opera_paths, CPacket, CircuitSim, Kind};
use crate::spec::QueueLimit;

impl CircuitSim<'_> {
    /// The current slice.
    #[inline]
    fn slice_now(&self) -> usize {
        let o = self
            .spec
            .opera
            .as_ref()
            .expect("opera routing has its table");
        ((self.now.saturating_sub(o.origin_ps) / o.slice_ps) % o.slices as u64) as usize
    }

    /// The entry of the routing tables for (current slice, `at`, `dst`).
    #[inline]
    fn table_at(&self, at: u32, dst: u32) -> usize {
        ((self.slice_now() * self.n as usize) + at as usize) * self.n as usize + dst as usize
    }

    /// With listed paths (`opera.paths`): the switch NDP packet `id` leaves endpoint `at` by. A packet without
    /// a path (new, or re-routed) draws one of the current slice's paths from `at` to its destination, as the
    /// public Opera simulator draws one at the sending host's NIC (src/opera/queue.cpp line 503), and is
    /// stamped with it; a packet on its path takes the path's switch for this hop, whatever circuit that
    /// switch now holds (the simulator forwards on the stamped path's port to the current slice's circuit,
    /// src/opera/pipe.cpp lines 169-173). Our choice where the path cannot go on (it ended short of the
    /// destination after a slice change sent the packet elsewhere, or its switch is reconfiguring): draw
    /// again from here, counted as a re-route (the simulator delivers such a packet down the last port of
    /// whichever ToR it reached, or drops it at a switch that is down).
    fn listed_hop(&mut self, at: u32, id: u32) -> Option<u32> {
        let pk = self.pkts[id as usize];
        let lp = self.listed.as_ref().expect("listed paths");
        if pk.path != opera_paths::NO_PATH {
            if let Some(sw) = lp.switch(pk.path, pk.hop) {
                if self.ports[(at * self.s + sw) as usize].peer.is_some() {
                    return Some(sw);
                }
            }
            self.reroutes += 1;
        }
        let t = self.slice_now();
        let spec = self.spec;
        let circuits = spec
            .opera
            .as_ref()
            .and_then(|o| o.circuits.as_deref())
            .expect("validated: circuits");
        let rng = &mut self.path_rng;
        let lp = self.listed.as_mut().expect("listed paths");
        let path = lp.draw(circuits, t, at, pk.dst, |count| rng.below(count))?;
        let p = &mut self.pkts[id as usize];
        p.path = path;
        p.hop = 0;
        lp.switch(path, 0)
    }

    /// Route low-latency packet `id` again from endpoint `at` (its circuit is gone): a listed path is drawn
    /// anew.
    fn reroute_low_latency(&mut self, at: u32, id: u32) {
        self.reroutes += 1;
        self.pkts[id as usize].path = opera_paths::NO_PATH;
        self.route_low_latency(at, id);
    }

    /// The switch whose circuit from `at` leads towards `dst` in the current slice (None: no path).
    #[inline]
    pub(super) fn next_switch(&self, at: u32, dst: u32) -> Option<u32> {
        let x = self
            .spec
            .opera
            .as_ref()
            .expect("opera routing has its table")
            .next_switch[self.table_at(at, dst)];
        (x != 255).then_some(x as u32)
    }

    /// The switch low-latency packet `id` leaves endpoint `at` by: with `opera.spray`, an NDP flow's packet
    /// takes one of the switches starting a shortest path in the current slice, drawn at random (NDP sprays
    /// packet by packet, Handley et al. 2017 section 3; the public Opera simulator draws each packet's path
    /// among its topology file's paths of the slice at the host's NIC, src/opera/queue.cpp line 503); every
    /// other packet takes `next_switch`.
    fn first_hop(&mut self, at: u32, id: u32) -> Option<u32> {
        let pk = self.pkts[id as usize];
        let o = self
            .spec
            .opera
            .as_ref()
            .expect("opera routing has its table");
        if self.listed.is_some() && self.flows[pk.flow as usize].ndp.is_some() {
            return self.listed_hop(at, id);
        }
        if let Some(spray) = o
            .spray
            .as_ref()
            .filter(|_| self.flows[pk.flow as usize].ndp.is_some())
        {
            let mut mask = spray[self.table_at(at, pk.dst)];
            if mask == 0 {
                return None;
            }
            for _ in 0..self.spray_rng.below(mask.count_ones()) {
                mask &= mask - 1; // drop the lowest switch: the k-th set bit is left lowest
            }
            return Some(mask.trailing_zeros());
        }
        self.next_switch(at, pk.dst)
    }

    /// Queue low-latency packet `id` at endpoint `at` on the uplink of the current slice's path, or drop it
    /// (counted) where the slice has no path.
    pub(super) fn route_low_latency(&mut self, at: u32, id: u32) {
        match self.first_hop(at, id) {
            Some(sw) => {
                let port = at * self.s + sw;
                // The circuit this packet is queued for: it keeps it while that circuit lasts.
                self.pkts[id as usize].msg = self.ports[port as usize].peer.unwrap_or(u32::MAX);
                let pk = self.pkts[id as usize];
                if pk.kind.ndp_priority() {
                    self.ports[port as usize].ll_hi.push_back(id);
                } else if pk.kind == Kind::Data
                    && self.flows[pk.flow as usize].ndp.is_some()
                    && self.ll_full(port, pk.wire_bytes)
                {
                    // NDP data meeting a full data queue is trimmed to its header, which goes ahead of the data
                    // (Handley et al. 2017, section 3.1; the public Opera simulator trims at its ToRs' 8-packet
                    // queues).
                    let p = &mut self.pkts[id as usize];
                    p.kind = Kind::Header;
                    p.wire_bytes =
                        self.spec.ndp.header_bytes + self.spec.packet.frame_overhead_bytes;
                    self.flows[pk.flow as usize].trims += 1;
                    self.ports[port as usize].ll_hi.push_back(id);
                } else {
                    if pk.kind == Kind::Data
                        && self.flows[pk.flow as usize]
                            .sender
                            .as_ref()
                            .is_some_and(|s| s.dctcp.is_some())
                        && self.ports[port as usize].ll.len() as u64 >= self.spec.dctcp.k_packets
                    {
                        // DCTCP: data meeting K or more packets in the queue is marked (Alizadeh et al. 2010,
                        // section 3.1), as at the packet engine's switches.
                        self.pkts[id as usize].ce = true;
                    }
                    self.ports[port as usize].ll.push_back(id);
                }
                self.wake(port);
            }
            None => {
                self.release(id);
                self.no_path += 1;
            }
        }
    }

    /// Is `port`'s low-latency data queue full for a packet of `wire` bytes (the spec's `ndp.queue`)?
    fn ll_full(&self, port: u32, wire: u32) -> bool {
        let q = &self.ports[port as usize].ll;
        match self.spec.ndp.queue {
            QueueLimit::Packets(n) => q.len() as u64 >= n,
            QueueLimit::Bytes(b) => {
                q.iter()
                    .map(|&i| self.pkts[i as usize].wire_bytes as u64)
                    .sum::<u64>()
                    + wire as u64
                    > b
            }
        }
    }

    /// A new slice: packets queued on an uplink whose circuit has gone (its switch reconfigures) take the new
    /// slice's path from where they are, each move counted as a re-route (seed 001 lines 914-918); packets on
    /// circuits that stay up keep them. Every uplink then looks again for low-latency work.
    pub(super) fn new_slice(&mut self) {
        for port in 0..self.n * self.s {
            let ps = &self.ports[port as usize];
            if (ps.ll.is_empty() && ps.ll_hi.is_empty())
                || (ps.peer.is_some() && self.now < ps.win_end)
            {
                continue;
            }
            let at = port / self.s;
            let hi = std::mem::take(&mut self.ports[port as usize].ll_hi);
            for id in hi
                .into_iter()
                .chain(std::mem::take(&mut self.ports[port as usize].ll))
            {
                self.reroute_low_latency(at, id);
            }
        }
        for port in 0..self.n * self.s {
            self.wake(port);
        }
    }

    /// Serve Opera's low-latency class on `port`: queued packets first, then this endpoint's own low-latency
    /// flows whose current path starts here. Returns whether the port is busy with it (sent or must wait).
    pub(super) fn low_latency_next(&mut self, port: u32, peer: u32) -> bool {
        let (e, sw) = (port / self.s, port % self.s);
        // NDP's headers and control first, then the data queue.
        for hi in [true, false] {
            fn queue(ps: &mut super::PortState, hi: bool) -> &mut std::collections::VecDeque<u32> {
                if hi {
                    &mut ps.ll_hi
                } else {
                    &mut ps.ll
                }
            }
            while let Some(&id) = queue(&mut self.ports[port as usize], hi).front() {
                if Some(self.pkts[id as usize].msg) != self.ports[port as usize].peer {
                    // The circuit it was queued for is gone: re-route on the current slice's path.
                    queue(&mut self.ports[port as usize], hi).pop_front();
                    self.reroute_low_latency(e, id);
                    continue;
                }
                if self.fits(port, self.pkts[id as usize].wire_bytes) {
                    queue(&mut self.ports[port as usize], hi).pop_front();
                    self.transmit(port, peer, self.pkts[id as usize], Some(id));
                }
                return true;
            }
        }
        // Round robin over the source's flows from `ll_rr`, skipping finished flows and (their list starting in
        // order) flows not yet started, none of which is ready (`roundlists`).
        let (s, end) = self.ll_src.span(e as usize);
        let count = end - s;
        let mut pick = None;
        if count > 0 {
            let started = if self.fast {
                self.ll_src
                    .started_end(e as usize, self.now, |f| self.hot[f as usize].start)
            } else {
                end
            };
            let from = s + self.ports[port as usize].ll_rr as u32 % count;
            'search: for (lo, hi) in [(from, end), (s, from)] {
                let hi = hi.min(started);
                let mut k = self.ll_src.listed_from(lo);
                while k < hi {
                    let f = self.ll_src.item(k);
                    if self.ready(f) && self.next_switch(e, self.ends[f as usize].1) == Some(sw) {
                        pick = Some(k - s);
                        break 'search;
                    }
                    k = self.ll_src.listed_from(k + 1);
                }
            }
        }
        let Some(i) = pick else {
            self.wake_for_low_latency(port, e);
            return false;
        };
        let (i, count) = (i as usize, count as usize);
        let f = self.ll_src.item(s + i as u32);
        let pay = self.spec.packet.payload_bytes as u64;
        let len = self.available(f).min(pay);
        let wire = len as u32 + self.data_header();
        if !self.fits(port, wire) {
            return true;
        }
        let seq = self.hand_out(f, len);
        if self.fast && self.hot[f as usize].sent >= self.hot[f as usize].size {
            self.ll_src.remove(f); // its last byte is out: skipped from now on
        }
        self.pull_from_host(f, wire);
        let dst = self.ends[f as usize].1;
        let pk = CPacket {
            ll: true,
            ..CPacket::of_flow(Kind::Data, f, dst, wire, len as u32, seq, self.now)
        };
        self.ports[port as usize].ll_rr = (i + 1) % count;
        self.transmit(port, peer, pk, None);
        true
    }
}
