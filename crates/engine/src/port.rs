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

#[derive(Debug)]
pub struct Port {
    pub from: u32,
    pub to: u32,
    pub link: u32,
    pub delay_ps: u64,
    clock: SerClock,
    limit: Option<QueueLimit>,
    /// When the serializer is free again.
    busy_until: u64,
    /// Packets accepted, in arrival order; the newest `held` of them are still being sent.
    pub pipe: VecDeque<InFlight>,
    /// How many of the pipe's entries, counted from its front, have finished transmission.
    finished_in_pipe: usize,
    /// High-priority packets (NDP headers and control) waiting right behind the one being sent: the held
    /// entries at positions finished_in_pipe + 1 .. finished_in_pipe + 1 + prio_waiting.
    prio_waiting: usize,
    held_bytes: u64,
    pub counters: PortCounters,
    /// Bytes whose transmission starts in each window (only when windows are on).
    pub window_bytes: Vec<u64>,
    /// Set when a transmission started past MAX_WINDOWS windows (or their memory could not be had).
    pub windows_overflowed: bool,
    /// Energy-Efficient Ethernet (None: the port is always active).
    pub eee: Option<Box<Eee>>,
}

/// What happened to a packet offered to a port.
pub enum Admission {
    Dropped,
    /// Accepted; `pipe_was_empty` tells the caller to schedule the pipe's head event at `arrival`.
    Accepted { arrival: u64, pipe_was_empty: bool },
}

impl Port {
    pub fn new(from: u32, to: u32, link: u32, rate_bps: u64, delay_ps: u64, limit: Option<QueueLimit>) -> Self {
        Port {
            from,
            to,
            link,
            delay_ps,
            clock: SerClock::new(rate_bps),
            limit,
            busy_until: 0,
            pipe: VecDeque::new(),
            finished_in_pipe: 0,
            prio_waiting: 0,
            held_bytes: 0,
            counters: PortCounters::default(),
            window_bytes: Vec::new(),
            windows_overflowed: false,
            eee: None,
        }
    }

    /// Packets the port holds: accepted and not yet fully transmitted.
    fn held(&self) -> usize {
        self.pipe.len() - self.finished_in_pipe
    }

    /// Forget the held packets whose transmission has finished by `now`.
    #[inline]
    fn advance(&mut self, now: u64) {
        while let Some(e) = self.pipe.get(self.finished_in_pipe) {
            if e.arrival - self.delay_ps > now {
                break;
            }
            self.held_bytes -= e.wire_bytes as u64;
            self.finished_in_pipe += 1;
            // The next held packet (if a priority one) is now on the wire, no longer waiting.
            self.prio_waiting = self.prio_waiting.saturating_sub(1);
        }
    }

    /// Packets held at `now` (the one on the wire included), and of them the high-priority ones waiting.
    #[inline]
    pub fn occupancy(&mut self, now: u64) -> (u64, u64) {
        self.advance(now);
        (self.held() as u64, self.prio_waiting as u64)
    }

    /// Bytes held at `now` (call `occupancy` first, which brings the books up to `now`).
    pub fn held_bytes(&self) -> u64 {
        self.held_bytes
    }

    /// Offer a high-priority packet (an NDP header or control packet): it goes behind the packet on the wire
    /// and the priority packets already waiting, ahead of all waiting data, and is never dropped (our
    /// choice: the header queue is unbounded). The data behind it leave one serialization later.
    pub fn offer_priority(&mut self, now: u64, mut entry: InFlight, window_ps: u64) -> Admission {
        self.advance(now);
        let waiting_data = self.held().saturating_sub(1 + self.prio_waiting);
        if waiting_data == 0 {
            // Nothing to overtake: an ordinary FIFO admission (with no limit), then counted as waiting.
            let limit = self.limit.take();
            let a = self.offer(now, entry, window_ps);
            self.limit = limit;
            if self.held() > 1 {
                self.prio_waiting += 1;
            }
            return a;
        }
        let at = self.finished_in_pipe + 1 + self.prio_waiting;
        let wire_bytes = entry.wire_bytes;
        let ser = self.clock.time_ps(wire_bytes as u64);
        let start = self.pipe[at - 1].arrival - self.delay_ps;
        entry.arrival = start + ser + self.delay_ps;
        for e in self.pipe.range_mut(at..) {
            e.arrival += ser;
        }
        self.pipe.insert(at, entry);
        self.prio_waiting += 1;
        self.busy_until += ser;
        self.held_bytes += wire_bytes as u64;
        let held = self.held() as u64;
        let c = &mut self.counters;
        c.bytes_sent += wire_bytes as u64;
        c.packets_sent += 1;
        c.busy_ps += ser;
        c.peak_queue_bytes = c.peak_queue_bytes.max(self.held_bytes);
        c.peak_queue_packets = c.peak_queue_packets.max(held);
        // Per-window bytes: counted in the window where it starts; the data it delays keep their windows
        // (our approximation, off by at most one header's serialization per overtaken packet).
        if let Some(w) = start.checked_div(window_ps) {
            match self.window_bytes.get_mut(w as usize) {
                Some(slot) => *slot += wire_bytes as u64,
                None if w < MAX_WINDOWS => {
                    self.window_bytes.resize(w as usize + 1, 0);
                    self.window_bytes[w as usize] += wire_bytes as u64;
                }
                None => self.windows_overflowed = true,
            }
        }
        Admission::Accepted { arrival: entry.arrival, pipe_was_empty: false }
    }

    /// Offer a packet at time `now`. `window_ps` > 0 turns on per-window byte counts.
    #[inline]
    pub fn offer(&mut self, now: u64, mut entry: InFlight, window_ps: u64) -> Admission {
        self.advance(now);
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
        let mut start = self.busy_until.max(now);
        if let Some(eee) = self.eee.as_deref_mut() {
            if now >= self.busy_until {
                // The queue is empty: the port may be asleep and must wake first (crate::eee).
                start = eee.start_after_idle(self.busy_until, now);
            }
        }
        let ser = self.clock.time_ps(wire_bytes as u64);
        let finish = start + ser;
        self.busy_until = finish;
        self.held_bytes += wire_bytes as u64;
        let c = &mut self.counters;
        c.bytes_sent += wire_bytes as u64;
        c.packets_sent += 1;
        c.busy_ps += ser;
        c.peak_queue_bytes = c.peak_queue_bytes.max(self.held_bytes);
        if let Some(w) = start.checked_div(window_ps) {
            if w < MAX_WINDOWS {
                let w = w as usize;
                if self.window_bytes.len() <= w {
                    // Fallible: a run too long for its window width is refused after the run, never aborted.
                    if self.window_bytes.try_reserve(w + 1 - self.window_bytes.len()).is_err() {
                        self.windows_overflowed = true;
                    } else {
                        self.window_bytes.resize(w + 1, 0);
                    }
                }
                if let Some(slot) = self.window_bytes.get_mut(w) {
                    *slot += wire_bytes as u64;
                }
            } else {
                self.windows_overflowed = true;
            }
        }
        entry.arrival = finish + self.delay_ps;
        let pipe_was_empty = self.pipe.is_empty();
        self.pipe.push_back(entry);
        let held = self.held() as u64;
        let c = &mut self.counters;
        c.peak_queue_packets = c.peak_queue_packets.max(held);
        Admission::Accepted { arrival: entry.arrival, pipe_was_empty }
    }

    /// When the serializer is free again.
    #[inline]
    pub fn free_at(&self) -> u64 {
        self.busy_until
    }

    /// Charge a packet whose transmission ends at `finish` (no earlier than `free_at()` plus its serialisation)
    /// and that does not enter the pipe: its far end takes it on arrival by other means (the circuit engine's
    /// hosts, whose NICs send just in time for their ToR's circuit, `circuit::hostlink`).
    pub fn send_ending_at(&mut self, finish: u64, wire_bytes: u32) {
        let ser = self.clock.time_ps(wire_bytes as u64);
        debug_assert!(finish >= self.busy_until + ser);
        self.busy_until = finish;
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
        let head = self.pipe.pop_front().expect("an arrival event always has a packet in its pipe");
        if self.finished_in_pipe > 0 {
            self.finished_in_pipe -= 1;
        } else {
            // It finished transmission long ago; nobody offered a packet since to notice.
            self.held_bytes -= head.wire_bytes as u64;
            self.prio_waiting = self.prio_waiting.saturating_sub(1);
        }
        (head, self.pipe.front().map(|e| e.arrival))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(pkt: u32, wire_bytes: u32) -> InFlight {
        InFlight { arrival: 0, pkt, dst_host: 0, wire_bytes, flow_hash: 0 }
    }

    fn arrival(a: Admission) -> Option<u64> {
        match a {
            Admission::Accepted { arrival, .. } => Some(arrival),
            Admission::Dropped => None,
        }
    }

    #[test]
    fn back_to_back_packets_serialize_in_turn_and_overflow_drops() {
        // 1 Gbps, 25 us, room for 2 packets (the one on the wire included).
        let mut p = Port::new(0, 1, 0, 1_000_000_000, 25_000_000, Some(QueueLimit::Packets(2)));
        assert_eq!(arrival(p.offer(0, entry(0, 1500), 0)), Some(12_000_000 + 25_000_000));
        assert_eq!(arrival(p.offer(0, entry(1, 1500), 0)), Some(24_000_000 + 25_000_000));
        assert_eq!(arrival(p.offer(0, entry(2, 1500), 0)), None);
        // Once the first has left the wire there is room again.
        assert_eq!(arrival(p.offer(12_000_000, entry(3, 1500), 0)), Some(36_000_000 + 25_000_000));
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

    #[test]
    fn priority_packets_overtake_waiting_data_in_their_own_order() {
        // 1 Gbps, no delay: 1500 B take 12 us, 64 B take 512 ns.
        let mut p = Port::new(0, 1, 0, 1_000_000_000, 0, Some(QueueLimit::Packets(3)));
        for i in 0..3 {
            p.offer(0, entry(i, 1500), 0);
        }
        assert!(arrival(p.offer(0, entry(9, 1500), 0)).is_none(), "data queue full");
        assert_eq!(arrival(p.offer_priority(0, entry(3, 64), 0)), Some(12_000_000 + 512_000));
        assert_eq!(arrival(p.offer_priority(0, entry(4, 64), 0)), Some(12_000_000 + 1_024_000));
        let order: Vec<(u32, u64)> = p.pipe.iter().map(|e| (e.pkt, e.arrival)).collect();
        assert_eq!(
            order,
            vec![(0, 12_000_000), (3, 12_512_000), (4, 13_024_000), (1, 25_024_000), (2, 37_024_000)]
        );
        assert_eq!(p.occupancy(0), (5, 2));
        // Once the first data packet and one header have left, one header waits (the other is on the wire).
        assert_eq!(p.occupancy(12_600_000), (3, 0));
        let mut q = Port::new(0, 1, 0, 1_000_000_000, 0, None);
        q.offer(0, entry(0, 1500), 0);
        q.offer_priority(0, entry(1, 64), 0);
        assert_eq!(q.occupancy(1), (2, 1));
        assert_eq!(q.occupancy(12_000_000), (1, 0));
    }

    #[test]
    fn idle_port_starts_at_arrival_time() {
        let mut p = Port::new(0, 1, 0, 10_000_000_000, 1_000, None);
        assert_eq!(arrival(p.offer(5_000_000, entry(0, 1500), 0)), Some(5_000_000 + 1_200_000 + 1_000));
    }
}
