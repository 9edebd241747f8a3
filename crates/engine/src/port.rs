//! A port is one direction of a full-duplex link: a drop-tail FIFO output queue feeding a serializer, then a
//! pipe (propagation delay) to the far node.
//!
//! Because the queue is FIFO and work-conserving, a packet's departure time is fixed the moment the port
//! accepts it: start = max(now, end of the previous packet), finish = start + serialization. So the port
//! needs no "transmission done" event: it records finish times, forgets the ones already past when the
//! next packet comes, and puts the packet straight into the pipe with its arrival time (finish + delay).
//! Arrival times in the pipe are non-decreasing, so one pending event per port (for the pipe's head) suffices.

use std::collections::VecDeque;

use crate::spec::QueueLimit;
use crate::units::SerClock;

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
    /// (finish time, wire bytes) of packets the port still holds, oldest first.
    held: VecDeque<(u64, u32)>,
    held_bytes: u64,
    /// (arrival time at the far node, packet id), in arrival order.
    pub pipe: VecDeque<(u64, u32)>,
    pub counters: PortCounters,
    /// Bytes whose transmission starts in each window (only when windows are on).
    pub window_bytes: Vec<u64>,
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
            held: VecDeque::new(),
            held_bytes: 0,
            pipe: VecDeque::new(),
            counters: PortCounters::default(),
            window_bytes: Vec::new(),
        }
    }

    /// Offer a packet of `wire_bytes` at time `now`. `window_ps` > 0 turns on per-window byte counts.
    #[inline]
    pub fn offer(&mut self, now: u64, pkt: u32, wire_bytes: u32, window_ps: u64) -> Admission {
        while let Some(&(finish, bytes)) = self.held.front() {
            if finish > now {
                break;
            }
            self.held.pop_front();
            self.held_bytes -= bytes as u64;
        }
        let fits = match self.limit {
            None => true,
            Some(QueueLimit::Packets(n)) => (self.held.len() as u64) < n,
            Some(QueueLimit::Bytes(b)) => self.held_bytes + wire_bytes as u64 <= b,
        };
        if !fits {
            self.counters.drops += 1;
            self.counters.drop_bytes += wire_bytes as u64;
            return Admission::Dropped;
        }
        let start = self.busy_until.max(now);
        let ser = self.clock.time_ps(wire_bytes as u64);
        let finish = start + ser;
        self.busy_until = finish;
        self.held.push_back((finish, wire_bytes));
        self.held_bytes += wire_bytes as u64;
        let c = &mut self.counters;
        c.bytes_sent += wire_bytes as u64;
        c.packets_sent += 1;
        c.busy_ps += ser;
        c.peak_queue_packets = c.peak_queue_packets.max(self.held.len() as u64);
        c.peak_queue_bytes = c.peak_queue_bytes.max(self.held_bytes);
        if let Some(w) = start.checked_div(window_ps) {
            let w = w as usize;
            if self.window_bytes.len() <= w {
                self.window_bytes.resize(w + 1, 0);
            }
            self.window_bytes[w] += wire_bytes as u64;
        }
        let arrival = finish + self.delay_ps;
        let pipe_was_empty = self.pipe.is_empty();
        self.pipe.push_back((arrival, pkt));
        Admission::Accepted { arrival, pipe_was_empty }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(arrival(p.offer(0, 0, 1500, 0)), Some(12_000_000 + 25_000_000));
        assert_eq!(arrival(p.offer(0, 1, 1500, 0)), Some(24_000_000 + 25_000_000));
        assert_eq!(arrival(p.offer(0, 2, 1500, 0)), None);
        // Once the first has left the wire there is room again.
        assert_eq!(arrival(p.offer(12_000_000, 3, 1500, 0)), Some(36_000_000 + 25_000_000));
        assert_eq!(p.counters.drops, 1);
        assert_eq!(p.counters.packets_sent, 3);
        assert_eq!(p.counters.busy_ps, 36_000_000);
        assert_eq!(p.counters.peak_queue_packets, 2);
    }

    #[test]
    fn byte_limits_count_bytes() {
        let mut p = Port::new(0, 1, 0, 1_000_000_000, 0, Some(QueueLimit::Bytes(3000)));
        assert!(arrival(p.offer(0, 0, 1500, 0)).is_some());
        assert!(arrival(p.offer(0, 1, 1500, 0)).is_some());
        assert!(arrival(p.offer(0, 2, 52, 0)).is_none());
        assert_eq!(p.counters.peak_queue_bytes, 3000);
    }

    #[test]
    fn idle_port_starts_at_arrival_time() {
        let mut p = Port::new(0, 1, 0, 10_000_000_000, 1_000, None);
        assert_eq!(arrival(p.offer(5_000_000, 0, 1500, 0)), Some(5_000_000 + 1_200_000 + 1_000));
    }
}
