//! A port is one direction of a full-duplex link: a drop-tail FIFO output queue feeding a serializer, then a
//! pipe (propagation delay) to the far node.
//!
//! Because the queue is FIFO and work-conserving, a packet's departure time is fixed the moment the port
//! accepts it: start = max(now, end of the previous packet), finish = start + serialization. So the port
//! needs no "transmission done" event: it puts the packet straight into its pipe with its arrival time
//! (finish + delay). Arrival times in the pipe never decrease, so one pending event per port (for the pipe's
//! head) suffices.
//!
//! The pipe is also the queue: the packets the port still holds (not yet fully on the wire) are the pipe's
//! newest entries, those with arrival - delay > now. A counter of finished transmissions walks forward
//! over the pipe lazily, when a packet is offered or leaves the pipe.
//! Pipe entries carry what a switch needs to forward (destination, size, flow hash), so forwarding a
//! packet reads the entry it just popped instead of the packet in the pool.
//!
//! A port may also have lanes (`Lanes`, runs with NDP): a high-priority lane for headers and control packets
//! and a data lane behind it. There a data packet's departure is fixed only when the serializer takes it (a
//! priority packet's is fixed when it is accepted, so it goes straight into the pipe: `commit_priority`), and the
//! lanes are drained lazily: whenever the port is touched (a packet offered, the pipe's head popped), every
//! lane packet whose start (the end of the previous transmission) is not after `now` enters the pipe, headers
//! first. The pipe's head is therefore always a packet whose arrival is fixed: when the pipe empties, the
//! next lane packet started at the popped packet's finish, no later than its arrival, so it is committed at
//! that pop. One pending event per port still suffices.

mod coalesce;
mod ring;

pub use ring::{PipeArena, NO_SLOT, RING, SLOT_SPILL};

use std::collections::VecDeque;

use crate::eee::Eee;
use crate::spec::QueueLimit;
use crate::units::SerClock;

/// Windows of per-link byte counts one port keeps at most (our choice: 100,000 windows x 8 bytes = 800 kB per
/// port direction). A run that would need more stops with an error naming stats_window_ps.
pub const MAX_WINDOWS: u64 = 100_000;

#[derive(Debug, Clone, Default)]
pub struct PortCounters {
    pub bytes_sent: u64,
    pub packets_sent: u64,
    pub busy_ps: u64,
    pub drops: u64,
    pub drop_bytes: u64,
    pub peak_queue_packets: u64,
    pub peak_queue_bytes: u64,
}

/// A packet in a port's pipe, with the keys needed to forward it at the far node.
#[derive(Debug, Clone, Copy)]
pub struct InFlight {
    pub arrival: u64,
    pub pkt: u32,
    pub dst_host: u32,
    pub wire_bytes: u32,
    pub flow_hash: u32,
}

/// The port's fields in the order the hot loop reads them (`repr(C)`, aligned to a cache line): the first line
/// holds everything an arrival reads on a port without lanes (the pipe's head inline, not in the pipe's buffer,
/// and where the pipe's next entries are), so an arrival costs one cache miss; the second line holds the
/// serializer and what an offer adds (delay, clock, queue limit), the third the counters an offer updates.
/// Profiles of k = 24 and 32 fat-trees had the arriving port and its pipe's head as the two largest cache
/// misses of the run; `prefetch_arrival` brings in the first line (both first lines with lanes) ahead of a
/// port's next event.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Port {
    /// The pipe's oldest entry (valid when `has_head`); the pipe is `head` then `rest`.
    head: InFlight,
    /// When the serializer is free again.
    busy_until: u64,
    held_bytes: u64,
    /// The pipe's entries after `head`, in arrival order, in the port's block of a `PipeArena` (null and
    /// `ring_cap` 0: none; port/ring.rs): `ring_len` entries from `ring_start`, then those in `rest`.
    ring: *mut InFlight,
    /// How many of the pipe's entries, counted from its front (`head` included), have finished transmission.
    finished_in_pipe: u32,
    pub to: u32,
    ring_start: u16,
    ring_len: u16,
    ring_cap: u16,
    has_head: bool,
    laned: bool,
    pub delay_ps: u64,
    /// The per-window byte counts' current window (u32::MAX: none) and its bytes so far, kept in the port's
    /// hot lines and added to `window_bytes` when the window changes (starts at a port never go back in time, so
    /// that is once per window) or the run ends: a count in `window_bytes` itself was one more cache miss per hop.
    win_cur: u32,
    clock: SerClock,
    limit: Option<QueueLimit>,
    pub counters: PortCounters,
    win_acc: u64,
    /// Energy-Efficient Ethernet (None: the port is always active). In the third line: an offer to an idle
    /// serializer reads it.
    pub eee: Option<Box<Eee>>,
    /// The pipe's newest entries when its ring is full (or the port has none); the newest of the pipe's
    /// entries are still being sent.
    rest: VecDeque<InFlight>,
    /// Bytes whose transmission starts in each window (only when windows are on; complete after `drain_lanes`).
    pub window_bytes: Vec<u64>,
    /// Set when a transmission started past MAX_WINDOWS windows (or their memory could not be had).
    pub windows_overflowed: bool,
    pub from: u32,
    pub link: u32,
    /// Packets accepted whose transmission has not started yet (ports with lanes only, `laned`). Kept inline,
    /// not boxed: the lanes' lengths are then read with the port's other fields, not by one more cache miss.
    lanes: Lanes,
}

// SAFETY: `ring` points into a `PipeArena` block that only this port reads or writes (through `&self` /
// `&mut self`), as a `Vec` it owned would be; the arena outlives the port (`PipeArena::attach`).
unsafe impl Send for Port {}

/// Ask the CPU to bring the cache line at `p` in (a hint: no effect on results, nothing on other targets).
#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and reads nothing the program sees, whatever the address.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// A port's two lanes: packets waiting for the serializer, which takes the priority lane's head first.
#[derive(Debug, Default)]
struct Lanes {
    prio: VecDeque<InFlight>,
    data: VecDeque<InFlight>,
    /// Serialization time of every packet in both lanes, and in the priority lane.
    queued_ps: u64,
    prio_ps: u64,
    /// The per-window byte counts' width, from the last offer (lane packets are counted when they start).
    window_ps: u64,
    /// Bytes waiting in both lanes, and the size of the packet the serializer took last.
    bytes: u64,
    on_wire: u32,
    /// The port had its lanes before its first packet, and no EEE: every packet then enters the pipe as it
    /// starts, or, for priority packets, when it is accepted (`commit_priority`), so only the pipe's newest
    /// entries can still be held, and `advance` knows what the port holds without reading the pipe.
    exact: bool,
    /// Exact ports: the priority packets put straight into the pipe since the serializer last took a packet
    /// itself (`tail`, all of `tail_bytes` bytes and `tail_ps` on the wire), sent back to back after it.
    tail: u32,
    tail_bytes: u32,
    tail_ps: u64,
}

impl Lanes {
    /// A priority packet of `wire_bytes` may go straight into the pipe (`Port::commit_priority`): the port is
    /// exact, no priority packet waits in the lane (it would have to go first), and the tail's packets are all
    /// the same size (NDP's headers and control packets are), so `unfinished` can count them.
    #[inline]
    fn takes_straight(&self, wire_bytes: u32) -> bool {
        self.exact && self.prio.is_empty() && (self.tail == 0 || self.tail_bytes == wire_bytes)
    }

    /// With the serializer busy for `busy_ps` more: how many of the tail's packets have not finished, and
    /// whether the packet before them has not either. The tail's packets end every `tail_ps`, the last at the
    /// end of the busy time.
    #[inline]
    fn unfinished(&self, busy_ps: u64) -> (u32, bool) {
        if self.tail == 0 {
            return (0, true);
        }
        let tail = self.tail as u64;
        if busy_ps > tail * self.tail_ps {
            return (self.tail, true);
        }
        (busy_ps.div_ceil(self.tail_ps) as u32, false)
    }

    /// With the serializer busy for `busy_ps` more: how many of the tail's packets have not started.
    #[inline]
    fn waiting(&self, busy_ps: u64) -> u32 {
        let (tail, before) = self.unfinished(busy_ps);
        if before {
            tail
        } else {
            tail - 1
        }
    }
}

/// What happened to a packet offered to a port.
pub enum Admission {
    Dropped,
    /// Accepted; `pipe_was_empty` tells the caller to schedule the pipe's head event at `arrival`. A packet
    /// put in a lane has `pipe_was_empty` false and, as `arrival`, the one it would have if nothing overtook it.
    Accepted {
        arrival: u64,
        pipe_was_empty: bool,
    },
    /// Held by a sleeping port that coalesces up to a byte count (crate::eee); `Some(t)`: schedule the port's
    /// `EeeWake` event at t, when the coalescing delay runs out.
    Held {
        timer: Option<u64>,
    },
}

impl Port {
    pub fn new(
        from: u32,
        to: u32,
        link: u32,
        rate_bps: u64,
        delay_ps: u64,
        limit: Option<QueueLimit>,
    ) -> Self {
        Port {
            head: InFlight {
                arrival: 0,
                pkt: 0,
                dst_host: 0,
                wire_bytes: 0,
                flow_hash: 0,
            },
            busy_until: 0,
            delay_ps,
            held_bytes: 0,
            finished_in_pipe: 0,
            to,
            has_head: false,
            laned: false,
            win_cur: u32::MAX,
            ring: std::ptr::null_mut(),
            ring_start: 0,
            ring_len: 0,
            ring_cap: 0,
            rest: VecDeque::new(),
            clock: SerClock::new(rate_bps),
            limit,
            counters: PortCounters::default(),
            win_acc: 0,
            eee: None,
            window_bytes: Vec::new(),
            windows_overflowed: false,
            from,
            link,
            lanes: Lanes::default(),
        }
    }

    /// The pipe's entries, oldest first.
    pub fn pipe_entries(&self) -> impl Iterator<Item = &InFlight> {
        (0..self.pipe_len()).filter_map(|i| self.pipe_get(i))
    }

    /// Second step of a prefetch (call it once `prefetch_arrival`'s lines have had time to come in): bring in
    /// the entry that becomes the pipe's head when the next arrival pops the current one. Not the lanes' next
    /// entries: an arrival reads them only when it empties the pipe, and asking for them (and for the port's
    /// lane lines) at every arrival cost NDP runs more than it saved (BENCHMARKS.md, "NDP: deeper pipe rings").
    #[inline(always)]
    pub fn prefetch_refill(&self) {
        if let Some(e) = self.pipe_next() {
            prefetch(e);
        }
        if let Some(e) = self.spill_next() {
            prefetch(e);
        }
    }

    /// Bring in the cache lines an offer to this port reads: its first three lines, and with `lanes` (a run
    /// whose ports have lanes) all of them, the lanes being in the last.
    #[inline(always)]
    pub fn prefetch_offer(ports: &[Port], port: u32, lanes: bool) {
        if let Some(p) = ports.get(port as usize) {
            let line = p as *const Port as *const u8;
            let lines = if lanes { size_of::<Port>() / 64 } else { 3 };
            for i in 0..lines {
                prefetch(line.wrapping_add(64 * i));
            }
        }
    }

    /// Add `bytes` to the window where a transmission starting at `start` falls (`window_ps` > 0 only).
    #[inline]
    fn count_window(&mut self, start: u64, window_ps: u64, bytes: u64) {
        if let Some(w) = start.checked_div(window_ps) {
            if w == self.win_cur as u64 {
                self.win_acc += bytes;
            } else {
                self.next_window(w, bytes);
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn next_window(&mut self, w: u64, bytes: u64) {
        self.flush_window();
        if w < MAX_WINDOWS {
            self.win_cur = w as u32;
            self.win_acc = bytes;
        } else {
            self.windows_overflowed = true;
        }
    }

    /// Add the current window's bytes to `window_bytes`.
    fn flush_window(&mut self) {
        if self.win_cur == u32::MAX {
            return;
        }
        let w = self.win_cur as usize;
        let windows = &mut self.window_bytes;
        if windows.len() <= w {
            // Fallible: a run too long for its window width is refused after the run, never aborted.
            if windows.try_reserve(w + 1 - windows.len()).is_err() {
                self.windows_overflowed = true;
            } else {
                windows.resize(w + 1, 0);
            }
        }
        if let Some(slot) = windows.get_mut(w) {
            *slot += self.win_acc;
        }
        self.win_cur = u32::MAX;
        self.win_acc = 0;
    }

    /// Bring in the cache lines an arrival at this port reads (the port's first line; with `lanes`, a run whose
    /// ports have lanes, the second too: an arrival there may start lane packets): call it for the next event's
    /// port while the current event runs.
    #[inline(always)]
    pub fn prefetch_arrival(ports: &[Port], port: u32, lanes: bool) {
        if let Some(p) = ports.get(port as usize) {
            let line = p as *const Port as *const u8;
            prefetch(line);
            if lanes {
                prefetch(line.wrapping_add(64));
            }
        }
    }

    /// Give the port its lanes (headers and control ahead of data; runs with NDP). Call before any offer.
    pub fn add_lanes(&mut self) {
        if !self.laned {
            self.lanes.exact = self.eee.is_none() && !self.has_head && self.busy_until == 0;
        }
        self.laned = true;
    }

    /// Packets the port holds: accepted and not yet fully transmitted.
    fn held(&self) -> usize {
        let in_pipe = self.pipe_len() - self.finished_in_pipe as usize;
        if self.laned {
            in_pipe + self.lanes_queued()
        } else {
            in_pipe
        }
    }

    /// Packets waiting in the lanes. Out of line so that `held` branches on `laned` instead of loading the
    /// lanes' lengths (in the port's last line, which a port without lanes never brings in) for a conditional
    /// move: on a k = 32 fat-tree that load was a cache miss on most offers.
    #[inline(never)]
    fn lanes_queued(&self) -> usize {
        self.lanes.prio.len() + self.lanes.data.len()
    }

    /// Start the lane packets whose turn came by `now` (ports with lanes), then forget the held packets whose
    /// transmission has finished by `now`.
    #[inline]
    fn advance(&mut self, now: u64) {
        if self.laned {
            if self.busy_until <= now {
                self.start_lanes(now);
            }
            if self.lanes.exact && self.busy_until > now {
                // The port holds the pipe's newest entries still on the wire or waiting for it: the tail's
                // priority packets not finished by now, and the packet the serializer took before them if
                // it has not finished either; the others have left the port.
                let (tail, before) = self.lanes.unfinished(self.busy_until - now);
                self.finished_in_pipe = self.pipe_len() as u32 - tail - before as u32;
                self.held_bytes = self.lanes.bytes
                    + tail as u64 * self.lanes.tail_bytes as u64
                    + if before { self.lanes.on_wire as u64 } else { 0 };
                return;
            }
        }
        if self.busy_until <= now {
            // The serializer is idle: every packet in the pipe has finished (none of them is read).
            self.finished_in_pipe = self.pipe_len() as u32;
            // What a port coalescing under EEE keeps back is held too (port/coalesce.rs); an idle offer reads
            // `eee` anyway, so this costs no extra line.
            self.held_bytes = match self.eee.as_deref() {
                Some(e) if e.holding() => e.held.bytes,
                _ => 0,
            };
            return;
        }
        while let Some(e) = self.pipe_get(self.finished_in_pipe as usize) {
            if e.arrival - self.delay_ps > now {
                break;
            }
            self.held_bytes -= e.wire_bytes as u64;
            self.finished_in_pipe += 1;
        }
    }

    /// Move into the pipe, headers first, every lane packet whose start (the end of the previous transmission)
    /// is not after `now`, fixing its departure. Kept out of line so that ports without lanes inline the rest.
    #[inline(never)]
    fn start_lanes(&mut self, now: u64) {
        while self.busy_until <= now {
            let l = &mut self.lanes;
            let (mut e, from_prio) = match l.prio.pop_front() {
                Some(e) => (e, true),
                None => match l.data.pop_front() {
                    Some(e) => (e, false),
                    None => break,
                },
            };
            // The lane's next entry, written when its packet was accepted, is taken at the next start at the
            // earliest (one transmission from now): ask for it now.
            let next = if from_prio {
                l.prio.front()
            } else {
                l.data.front()
            };
            if let Some(n) = next {
                prefetch(n);
            }
            if !from_prio {
                // A data lane is drained a transmission at a time: the entry after the next too.
                if let Some(n) = l.data.get(1) {
                    prefetch(n);
                }
            }
            let start = self.busy_until;
            let ser = self.clock.time_ps(e.wire_bytes as u64);
            l.queued_ps -= ser;
            if from_prio {
                l.prio_ps -= ser;
            }
            l.bytes -= e.wire_bytes as u64;
            l.on_wire = e.wire_bytes;
            l.tail = 0;
            self.busy_until = start + ser;
            e.arrival = self.busy_until + self.delay_ps;
            let window_ps = l.window_ps;
            self.count_window(start, window_ps, e.wire_bytes as u64);
            self.pipe_push(e);
            self.prefetch_pipe_tail();
        }
    }

    /// Ask for the ring slot the pipe's next entry will be written to (a hint).
    #[inline(always)]
    fn prefetch_pipe_tail(&self) {
        if self.ring_len < self.ring_cap {
            let i =
                (self.ring_start as usize + self.ring_len as usize) & (self.ring_cap as usize - 1);
            prefetch(self.ring.wrapping_add(i));
        }
    }

    /// Packets held at `now` (the one on the wire included), and of them the high-priority ones waiting.
    #[inline]
    pub fn occupancy(&mut self, now: u64) -> (u64, u64) {
        self.advance(now);
        let coalesced = self.eee.as_deref().map_or(0, |e| e.held.queue.len());
        let committed = if self.lanes.exact && self.busy_until > now {
            self.lanes.waiting(self.busy_until - now)
        } else {
            0
        };
        (
            (self.held() + coalesced) as u64,
            self.lanes.prio.len() as u64 + committed as u64,
        )
    }

    /// Bytes held at `now` (call `occupancy` first, which brings the books up to `now`).
    pub fn held_bytes(&self) -> u64 {
        self.held_bytes
    }

    /// Offer a high-priority packet (an NDP header or control packet): it waits only for the packet on the
    /// wire and the priority packets before it, goes ahead of all waiting data, and is never dropped (our
    /// choice: the header lane is unbounded). A port without lanes gets them here; data it accepted before
    /// keeps its place.
    pub fn offer_priority(&mut self, now: u64, entry: InFlight, window_ps: u64) -> Admission {
        self.add_lanes();
        let limit = self.limit.take();
        let a = self.offer_to(now, entry, window_ps, true);
        self.limit = limit;
        a
    }

    /// Take every lane packet in turn as if no other packet came, and bring `window_bytes` up to date (the end
    /// of a run: the per-window byte counts then hold every accepted packet, as they do on ports without lanes).
    pub fn drain_lanes(&mut self) {
        if self.laned {
            self.advance(u64::MAX);
        }
        self.flush_window();
    }

    /// Offer a packet at time `now`. `window_ps` > 0 turns on per-window byte counts.
    #[inline]
    pub fn offer(&mut self, now: u64, entry: InFlight, window_ps: u64) -> Admission {
        self.offer_to(now, entry, window_ps, false)
    }

    /// Offer NDP data at a switch (crate::sim, `forward_special`): None, and nothing offered, when the port's
    /// data queue is full by `queue` (the packets it holds but waiting headers and control, or the bytes it
    /// holds): the switch trims the packet then. Else the packet is accepted, NDP's own queue rule on data being
    /// the limit: the drop-tail limit, which counts the waiting headers too, does not apply. One pass over the
    /// port's books for both the test and the offer.
    #[inline]
    pub fn offer_unless_full(
        &mut self,
        now: u64,
        entry: InFlight,
        queue: QueueLimit,
        window_ps: u64,
    ) -> Option<Admission> {
        if self.laned {
            self.lanes.window_ps = window_ps;
        }
        let (held, prio) = self.occupancy(now);
        let full = match queue {
            QueueLimit::Packets(n) => held - prio >= n,
            QueueLimit::Bytes(b) => self.held_bytes + entry.wire_bytes as u64 > b,
        };
        if full {
            return None;
        }
        let limit = self.limit.take();
        let a = self.offer_advanced(now, entry, window_ps, false);
        self.limit = limit;
        Some(a)
    }

    #[inline]
    fn offer_to(&mut self, now: u64, entry: InFlight, window_ps: u64, prio: bool) -> Admission {
        if self.laned {
            self.lanes.window_ps = window_ps;
        }
        self.advance(now);
        self.offer_advanced(now, entry, window_ps, prio)
    }

    /// `offer_to` once the port's books are brought up to `now` (`advance`).
    #[inline(always)]
    fn offer_advanced(
        &mut self,
        now: u64,
        mut entry: InFlight,
        window_ps: u64,
        prio: bool,
    ) -> Admission {
        let wire_bytes = entry.wire_bytes;
        let fits = match self.limit {
            None => true,
            Some(QueueLimit::Packets(n)) => (self.held() as u64) < n,
            Some(QueueLimit::Bytes(b)) => self.held_bytes + wire_bytes as u64 <= b,
        };
        if !fits {
            self.counters.drops += 1;
            self.counters.drop_bytes += wire_bytes as u64;
            return Admission::Dropped;
        }
        let ser = self.clock.time_ps(wire_bytes as u64);
        if self.busy_until > now && self.laned {
            if prio && self.lanes.takes_straight(wire_bytes) {
                return self.commit_priority(entry, ser, window_ps);
            }
            let l = &mut self.lanes;
            // The serializer is busy: wait in a lane; the departure is fixed when the packet starts.
            if prio {
                l.prio.push_back(entry);
                l.prio_ps += ser;
            } else {
                l.data.push_back(entry);
            }
            l.queued_ps += ser;
            l.bytes += wire_bytes as u64;
            // Exact for a priority packet (nothing overtakes it); for data, if nothing overtakes it.
            let arrival =
                self.busy_until + if prio { l.prio_ps } else { l.queued_ps } + self.delay_ps;
            self.charge_sent(wire_bytes, ser);
            let held = self.held() as u64;
            let c = &mut self.counters;
            c.peak_queue_packets = c.peak_queue_packets.max(held);
            return Admission::Accepted {
                arrival,
                pipe_was_empty: false,
            };
        }
        let mut start = self.busy_until.max(now);
        if let Some(eee) = self.eee.as_deref_mut() {
            if now >= self.busy_until {
                // The queue is empty: the port may be asleep and must wake first (crate::eee).
                if eee.coalesce_bytes > 0 {
                    if let Some(a) = self.offer_coalescing(now, entry, window_ps) {
                        return a;
                    }
                } else {
                    start = eee.start_after_idle(self.busy_until, now);
                }
            }
        }
        let finish = start + ser;
        self.busy_until = finish;
        if self.laned {
            self.lanes.on_wire = wire_bytes;
            self.lanes.tail = 0;
        }
        self.charge_sent(wire_bytes, ser);
        self.count_window(start, window_ps, wire_bytes as u64);
        entry.arrival = finish + self.delay_ps;
        let pipe_was_empty = !self.has_head;
        self.pipe_push(entry);
        let held = self.held() as u64;
        let c = &mut self.counters;
        c.peak_queue_packets = c.peak_queue_packets.max(held);
        Admission::Accepted {
            arrival: entry.arrival,
            pipe_was_empty,
        }
    }

    /// A priority packet offered to a busy exact port whose priority lane is empty: its departure is already
    /// fixed (after the packet on the wire and the priority packets before it; later priority packets go after
    /// it, waiting data after all of them), so it enters the pipe at once instead of waiting in its lane, and
    /// the serializer never has to take it (`start_lanes`): one write of its entry instead of three.
    fn commit_priority(&mut self, mut entry: InFlight, ser: u64, window_ps: u64) -> Admission {
        let wire_bytes = entry.wire_bytes;
        let start = self.busy_until;
        self.busy_until = start + ser;
        let l = &mut self.lanes;
        l.tail += 1;
        l.tail_bytes = wire_bytes;
        l.tail_ps = ser;
        self.charge_sent(wire_bytes, ser);
        self.count_window(start, window_ps, wire_bytes as u64);
        entry.arrival = self.busy_until + self.delay_ps;
        self.pipe_push(entry);
        self.prefetch_pipe_tail();
        let held = self.held() as u64;
        let c = &mut self.counters;
        c.peak_queue_packets = c.peak_queue_packets.max(held);
        Admission::Accepted {
            arrival: entry.arrival,
            pipe_was_empty: false,
        }
    }

    /// Count a packet of `wire_bytes` whose transmission (`ser` ps) is fixed: the bytes the port holds and its
    /// sent, busy and peak-bytes counters.
    #[inline(always)]
    fn charge_sent(&mut self, wire_bytes: u32, ser: u64) {
        self.held_bytes += wire_bytes as u64;
        let c = &mut self.counters;
        c.bytes_sent += wire_bytes as u64;
        c.packets_sent += 1;
        c.busy_ps += ser;
        c.peak_queue_bytes = c.peak_queue_bytes.max(self.held_bytes);
    }

    /// When the serializer is free again (the lanes' packets sent too).
    #[inline]
    pub fn free_at(&self) -> u64 {
        let free = self.busy_until + self.lanes.queued_ps;
        self.eee.as_deref().map_or(free, |e| e.free_at(free))
    }

    /// Charge a packet whose transmission ends at `finish` (no earlier than `free_at()` plus its serialisation)
    /// and that does not enter the pipe: its far end takes it on arrival by other means (the circuit engine's
    /// hosts, whose NICs send just in time for their ToR's circuit, `circuit::hostlink`).
    pub fn send_ending_at(&mut self, finish: u64, wire_bytes: u32) {
        let ser = self.clock.time_ps(wire_bytes as u64);
        debug_assert!(finish >= self.busy_until + ser);
        self.busy_until = finish;
        self.lanes.exact = false; // a packet on the wire that is not in the pipe
        self.lanes.tail = 0;
        let c = &mut self.counters;
        c.bytes_sent += wire_bytes as u64;
        c.packets_sent += 1;
        c.busy_ps += ser;
        c.peak_queue_packets = c.peak_queue_packets.max(1);
        c.peak_queue_bytes = c.peak_queue_bytes.max(wire_bytes as u64);
    }

    /// Take the pipe's head (it has reached the far node) and return it with the next head's arrival time.
    #[inline]
    pub fn pop_arrival(&mut self) -> (InFlight, Option<u64>) {
        assert!(
            self.has_head,
            "an arrival event always has a packet in its pipe"
        );
        let head = self.head;
        self.pipe_advance();
        if self.finished_in_pipe > 0 {
            self.finished_in_pipe -= 1;
        } else {
            // It finished transmission long ago; nobody offered a packet since to notice.
            self.held_bytes -= head.wire_bytes as u64;
        }
        if self.laned && !self.has_head {
            // The next lane packet started when the popped one finished, no later than now: commit it.
            self.advance(head.arrival);
        }
        (head, self.pipe_front().map(|e| e.arrival))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(pkt: u32, wire_bytes: u32) -> InFlight {
        InFlight {
            arrival: 0,
            pkt,
            dst_host: 0,
            wire_bytes,
            flow_hash: 0,
        }
    }

    fn arrival(a: Admission) -> Option<u64> {
        match a {
            Admission::Accepted { arrival, .. } => Some(arrival),
            Admission::Dropped | Admission::Held { .. } => None,
        }
    }

    #[test]
    fn back_to_back_packets_serialize_in_turn_and_overflow_drops() {
        // 1 Gbps, 25 us, room for 2 packets (the one on the wire included).
        let mut p = Port::new(
            0,
            1,
            0,
            1_000_000_000,
            25_000_000,
            Some(QueueLimit::Packets(2)),
        );
        assert_eq!(
            arrival(p.offer(0, entry(0, 1500), 0)),
            Some(12_000_000 + 25_000_000)
        );
        assert_eq!(
            arrival(p.offer(0, entry(1, 1500), 0)),
            Some(24_000_000 + 25_000_000)
        );
        assert_eq!(arrival(p.offer(0, entry(2, 1500), 0)), None);
        // Once the first has left the wire there is room again.
        assert_eq!(
            arrival(p.offer(12_000_000, entry(3, 1500), 0)),
            Some(36_000_000 + 25_000_000)
        );
        assert_eq!(p.counters.drops, 1);
        assert_eq!(p.counters.packets_sent, 3);
        assert_eq!(p.counters.busy_ps, 36_000_000);
        assert_eq!(p.counters.peak_queue_packets, 2);
    }

    #[test]
    fn byte_limits_count_bytes_and_popping_keeps_the_books() {
        let mut p = Port::new(0, 1, 0, 1_000_000_000, 0, Some(QueueLimit::Bytes(3000)));
        assert!(arrival(p.offer(0, entry(0, 1500), 0)).is_some());
        assert!(arrival(p.offer(0, entry(1, 1500), 0)).is_some());
        assert!(arrival(p.offer(0, entry(2, 52), 0)).is_none());
        assert_eq!(p.counters.peak_queue_bytes, 3000);
        // Both leave the pipe without any offer in between: the port must forget both.
        let (head, next) = p.pop_arrival();
        assert_eq!((head.pkt, next), (0, Some(24_000_000)));
        p.pop_arrival();
        assert!(arrival(p.offer(30_000_000, entry(3, 3000), 0)).is_some());
    }

    /// Pop the pipe's head like the engine's arrival event, checking that it is due at `at`.
    fn pop_at(p: &mut Port, at: u64) -> (u32, Option<u64>) {
        let (head, next) = p.pop_arrival();
        assert_eq!(head.arrival, at);
        (head.pkt, next)
    }

    #[test]
    fn priority_packets_overtake_waiting_data_in_their_own_order() {
        // 1 Gbps, no delay: 1500 B take 12 us, 64 B take 512 ns.
        let mut p = Port::new(0, 1, 0, 1_000_000_000, 0, Some(QueueLimit::Packets(3)));
        p.add_lanes();
        assert!(matches!(
            p.offer(0, entry(0, 1500), 0),
            Admission::Accepted {
                pipe_was_empty: true,
                ..
            }
        ));
        for i in 1..3 {
            assert!(matches!(
                p.offer(0, entry(i, 1500), 0),
                Admission::Accepted {
                    pipe_was_empty: false,
                    ..
                }
            ));
        }
        assert!(
            arrival(p.offer(0, entry(9, 1500), 0)).is_none(),
            "data queue full"
        );
        // A header's arrival is exact when it is accepted: it waits for the wire and the headers before it.
        assert_eq!(
            arrival(p.offer_priority(0, entry(3, 64), 0)),
            Some(12_000_000 + 512_000)
        );
        assert_eq!(
            arrival(p.offer_priority(5_000_000, entry(4, 64), 0)),
            Some(12_000_000 + 1_024_000)
        );
        assert_eq!(p.occupancy(5_000_000), (5, 2));
        // Once the first data packet and one header have left, one header is on the wire, two data wait.
        assert_eq!(p.occupancy(12_600_000), (3, 0));
        assert_eq!(p.held_bytes(), 64 + 2 * 1500);
        let mut order = Vec::new();
        let mut next = Some(12_000_000);
        while let Some(at) = next {
            let (pkt, n) = pop_at(&mut p, at);
            order.push((pkt, at));
            next = n;
        }
        assert_eq!(
            order,
            vec![
                (0, 12_000_000),
                (3, 12_512_000),
                (4, 13_024_000),
                (1, 25_024_000),
                (2, 37_024_000)
            ]
        );
        assert_eq!(p.counters.busy_ps, 37_024_000);
        assert_eq!(p.counters.peak_queue_packets, 5);
        // A port without lanes gets them at its first header; data accepted before keeps its place.
        let mut q = Port::new(0, 1, 0, 1_000_000_000, 0, None);
        q.offer(0, entry(0, 1500), 0);
        q.offer(0, entry(1, 1500), 0);
        assert_eq!(
            arrival(q.offer_priority(0, entry(2, 64), 0)),
            Some(24_512_000)
        );
        assert_eq!(q.occupancy(1), (3, 1));
        assert_eq!(q.occupancy(24_000_000), (1, 0));
    }

    #[test]
    fn lanes_follow_a_tick_by_tick_serializer_and_keep_the_pipe_in_order() {
        // Headers of one size (NDP's): each goes straight into the pipe when it is accepted.
        drive_lanes_against_a_reference(7, false);
    }

    #[test]
    fn lanes_with_headers_of_two_sizes_follow_the_reference_too() {
        // A header of another size than those sent back to back before it waits in the priority lane.
        drive_lanes_against_a_reference(8, true);
    }

    /// 1 Gbps: a byte takes one tick of 8 ns. Random offers, one header in three (64 bytes, or with `mixed`
    /// 64 or 100); the port is driven like the engine drives it (the pipe's head popped by its one pending
    /// event, before offers at that time). Each packet's arrival, and what the port holds before each offer
    /// (packets, waiting headers, bytes), must be a tick-by-tick serializer's.
    fn drive_lanes_against_a_reference(seed: u64, mixed: bool) {
        let tick = 8_000;
        let delay = 300 * tick;
        let mut rng = crate::rng::Rng::new(seed, 0);
        let mut offers = Vec::new();
        let mut t = 0u64;
        for _ in 0..2_000 {
            t += rng.below(700) as u64;
            let prio = rng.below(3) == 0;
            let bytes = if prio {
                if mixed && rng.below(4) == 0 {
                    100
                } else {
                    64
                }
            } else {
                64 + rng.below(1437) as u64
            };
            offers.push((t, prio, bytes));
        }
        let n = offers.len();
        // The reference: at each tick, a free serializer takes a waiting packet (headers first), then the
        // packets offered at that tick join, one at a time, the first starting at once if the serializer is free.
        let mut expected = vec![0u64; n];
        let (mut free, mut k, mut started) = (0u64, 0usize, 0usize);
        let (mut qp, mut qd) = (VecDeque::new(), VecDeque::new());
        let mut tt = 0u64;
        while started < n {
            let mut take =
                |tt: u64, free: &mut u64, qp: &mut VecDeque<usize>, qd: &mut VecDeque<usize>| {
                    if *free <= tt {
                        if let Some(j) = qp.pop_front().or_else(|| qd.pop_front()) {
                            *free = tt + offers[j].2;
                            expected[j] = *free * tick + delay;
                            started += 1;
                        }
                    }
                };
            take(tt, &mut free, &mut qp, &mut qd);
            while k < n && offers[k].0 == tt {
                if offers[k].1 {
                    qp.push_back(k)
                } else {
                    qd.push_back(k)
                }
                k += 1;
                take(tt, &mut free, &mut qp, &mut qd);
            }
            tt += 1;
        }
        let mut p = Port::new(0, 1, 0, 1_000_000_000, delay, None);
        p.add_lanes();
        let mut got = vec![0u64; n];
        let mut next: Option<u64> = None;
        let mut last = 0;
        let mut pop_due = |p: &mut Port, next: &mut Option<u64>, upto: u64, got: &mut Vec<u64>| {
            while let Some(at) = next.filter(|&a| a <= upto) {
                let (pkt, n) = pop_at(p, at);
                assert!(at >= last, "pipe arrivals never decrease");
                last = at;
                got[pkt as usize] = at;
                *next = n;
            }
        };
        for (i, &(t, prio, bytes)) in offers.iter().enumerate() {
            pop_due(&mut p, &mut next, t * tick, &mut got);
            // The reference's books at t: packets accepted before and not finished, headers not started.
            let (mut held, mut waiting, mut held_bytes) = (0, 0, 0);
            for (j, &(_, prio_j, bytes_j)) in offers[..i].iter().enumerate() {
                let finish = (expected[j] - delay) / tick;
                if finish > t {
                    held += 1;
                    held_bytes += bytes_j;
                    waiting += u64::from(prio_j && finish - bytes_j > t);
                }
            }
            assert_eq!(p.occupancy(t * tick), (held, waiting), "offer {i}");
            assert_eq!(p.held_bytes(), held_bytes, "offer {i}");
            let e = entry(i as u32, bytes as u32);
            let a = if prio {
                p.offer_priority(t * tick, e, 0)
            } else {
                p.offer(t * tick, e, 0)
            };
            let Admission::Accepted {
                arrival,
                pipe_was_empty,
            } = a
            else {
                panic!("no limit, no drop")
            };
            if prio {
                assert_eq!(
                    arrival, expected[i],
                    "a header's arrival is known when it is accepted"
                );
            }
            if pipe_was_empty {
                assert!(next.is_none(), "one pending event per port");
                next = Some(arrival);
            }
        }
        pop_due(&mut p, &mut next, u64::MAX, &mut got);
        assert_eq!(got, expected);
        assert_eq!(p.occupancy(u64::MAX), (0, 0));
        assert_eq!(p.held_bytes(), 0);
    }

    #[test]
    fn the_hot_fields_keep_their_cache_lines() {
        // An arrival reads line 0 only (head inline, the ring's fields); an offer lines 0-2. Reordering the
        // fields undoes that.
        assert_eq!(std::mem::align_of::<Port>(), 64);
        assert!(std::mem::offset_of!(Port, laned) < 64);
        assert!(std::mem::offset_of!(Port, ring_cap) + 2 <= 64);
        assert!(std::mem::offset_of!(Port, ring) + 8 <= 64);
        assert!(std::mem::offset_of!(Port, win_cur) + 4 <= 128);
        assert!(
            std::mem::offset_of!(Port, limit) + std::mem::size_of::<Option<QueueLimit>>() <= 128
        );
        assert!(std::mem::offset_of!(Port, win_acc) + 8 <= 192);
        assert!(std::mem::offset_of!(Port, eee) + 8 <= 192);
    }

    #[test]
    fn window_byte_counts_add_up_per_window_once_flushed() {
        // 1 Gbps: 1500 B take 12 us; windows of 10 us. Starts at 0, 12, 24 us (queued) and 45 us (idle).
        let mut p = Port::new(0, 1, 0, 1_000_000_000, 0, None);
        for (t, b) in [(0, 1500), (0, 1500), (0, 1500), (45_000_000, 100)] {
            p.offer(t, entry(0, b), 10_000_000);
        }
        p.drain_lanes();
        assert_eq!(p.window_bytes, vec![1500, 1500, 1500, 0, 100]);
        assert!(!p.windows_overflowed);
        // A start past the last window allowed is refused, the counts before it kept.
        p.offer(MAX_WINDOWS * 10_000_000, entry(0, 100), 10_000_000);
        p.drain_lanes();
        assert!(p.windows_overflowed);
        assert_eq!(p.window_bytes.len(), 5);
    }

    #[test]
    fn idle_port_starts_at_arrival_time() {
        let mut p = Port::new(0, 1, 0, 10_000_000_000, 1_000, None);
        assert_eq!(
            arrival(p.offer(5_000_000, entry(0, 1500), 0)),
            Some(5_000_000 + 1_200_000 + 1_000)
        );
    }
}
