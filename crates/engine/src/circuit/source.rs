//! What the circuit simulator's flows have to send: bytes a flow or a (source, destination) pair could hand
//! out now (backlogged or earned by a rate cap), when a flow next has a packet, and handing bytes out; a bulk
//! TCP flow has what its window released into its source ToR's queue.

use super::CircuitSim;

impl CircuitSim<'_> {
    /// Flow `f` hands `len` bytes to a new packet: returns their first sequence number.
    #[inline]
    pub(super) fn hand_out(&mut self, f: u32, len: u64) -> u64 {
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

    /// Flow `f` has a whole packet to send, or its last bytes: a rate-capped flow waits for a full packet
    /// rather than trickling out the bytes its rate earned since its last one.
    #[inline]
    pub(super) fn ready(&self, f: u32) -> bool {
        if self.any_bulk_tcp && self.bulk_tcp[f as usize] {
            let q = &self.flows[f as usize].queued;
            return q
                .front()
                .is_some_and(|x| self.nic_ready(f, x.seg.len as u64));
        }
        let h = &self.hot[f as usize];
        let left = h.size - h.sent;
        let avail = self.available(f);
        left > 0
            && avail >= left.min(self.spec.packet.payload_bytes as u64)
            && self.nic_ready(f, avail)
    }

    /// Bytes all flows from `e` to `d` could hand out now: the started backlogged flows' remainder (kept as a
    /// running sum, as every slot's offers ask for it) plus what rate-capped flows have earned.
    #[inline]
    pub(super) fn pair_available(&self, e: u32, d: u32) -> u64 {
        let at = (e * self.n + d) as usize;
        let mut sum = self.backlog[at];
        if self.capped[at] {
            sum += self
                .local
                .iter(at)
                .filter(|&f| self.hot[f as usize].rate > 0)
                .map(|f| self.available(f))
                .sum::<u64>();
        }
        sum
    }

    /// Bytes flow `f` could hand out now: all that is left once started, or what its rate has earned.
    #[inline]
    pub(super) fn available(&self, f: u32) -> u64 {
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
    pub(super) fn earliest_available(&self, fs: &[u32]) -> Option<u64> {
        fs.iter().filter_map(|&f| self.earliest_of(f)).min()
    }

    /// When flow `f` will have a whole packet (or its last bytes) to send, if ever.
    #[inline]
    pub(super) fn earliest_of(&self, f: u32) -> Option<u64> {
        if self.any_bulk_tcp && self.bulk_tcp[f as usize] {
            let head = self.flows[f as usize].queued.front()?;
            return Some(self.nic_ready_at(f, head.seg.len as u64));
        }
        let pay = self.spec.packet.payload_bytes as u64;
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
    }

    /// The first flow of pair list `list` (in flow order) that is `ready`, or else when the first of them will
    /// have a packet if that is before `until` (None: not before). Equal to searching the whole list with
    /// `ready` and then `earliest_available`, for a caller that ignores times at or after `until`: flows that
    /// have handed out every byte are no longer listed, and on a list whose flows start in order the walk
    /// stops at the first flow that starts after now and at or after both `until` and the earliest time found
    /// (it and all after it cannot be ready, and cannot have a packet before their start). The reference path
    /// walks every flow still listed and keeps finished datagram flows listed (tests compare the two).
    pub(super) fn first_ready(&self, list: usize, until: u64) -> Result<u32, Option<u64>> {
        let in_order = self.local.in_order(list);
        let mut best: Option<u64> = None;
        let mut f = self.local.first(list);
        while f != crate::circuit::pairlists::NONE {
            let start = self.hot[f as usize].start;
            let not_started = start > self.now;
            if self.fast && in_order && not_started && start >= best.map_or(until, |b| b.min(until))
            {
                break;
            }
            if self.ready(f) {
                return Ok(f);
            }
            if let Some(t) = self.earliest_of(f) {
                best = Some(best.map_or(t, |b| b.min(t)));
            }
            f = self.local.next(f);
        }
        Err(best.filter(|&t| t < until || !self.fast))
    }

    /// SelectorNet: the first flow of first-hop list `list` that is `ready`, in round-robin order from position
    /// `rr` (modulo the list's length), with its position; or else when the first of them will have a packet if
    /// that is before `until`. Equal to asking every flow of the list in that order and then
    /// `earliest_available`, for a caller that ignores times at or after `until`, as `first_ready` is: finished
    /// datagram flows are skipped, and on a list whose flows start in order so are the flows not yet started
    /// (found by a binary search), and the search for the earliest time stops as `first_ready`'s does.
    pub(super) fn first_ready_in_round(
        &self,
        list: usize,
        rr: u32,
        until: u64,
    ) -> Result<(u32, u32), Option<u64>> {
        let fh = &self.first_hop;
        let (s, e) = fh.span(list);
        if s == e {
            return Err(None);
        }
        let started = if self.fast {
            fh.started_end(list, self.now, |f| self.hot[f as usize].start)
        } else {
            e
        };
        let from = s + rr % (e - s);
        for (lo, hi) in [(from, e), (s, from)] {
            let hi = hi.min(started);
            let mut k = fh.listed_from(lo);
            while k < hi {
                let f = fh.item(k);
                if self.ready(f) {
                    return Ok((f, k - s));
                }
                k = fh.listed_from(k + 1);
            }
        }
        let in_order = self.fast && fh.in_order(list);
        let mut best: Option<u64> = None;
        let mut k = fh.listed_from(s);
        while k < e {
            let f = fh.item(k);
            let start = self.hot[f as usize].start;
            if in_order && start > self.now && start >= best.map_or(until, |b| b.min(until)) {
                break;
            }
            if let Some(t) = self.earliest_of(f) {
                best = Some(best.map_or(t, |b| b.min(t)));
            }
            k = fh.listed_from(k + 1);
        }
        Err(best.filter(|&t| t < until || !self.fast))
    }
}
