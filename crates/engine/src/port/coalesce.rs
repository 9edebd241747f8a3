//! Energy-Efficient Ethernet's packet coalescing up to a byte count on a port (crate::eee): a sleeping port
//! holds its packets until their bytes reach the count or the coalescing delay runs out, then fixes their
//! departures from the end of its wake, in arrival order. Kept apart from the port's hot path: a port comes
//! here only when EEE with a byte count is on and its serializer is free.

use super::{Admission, Port};
use crate::eee::Hold;
use crate::port::InFlight;
use crate::spec::QueueLimit;

impl Port {
    /// Offer a packet to a free port that coalesces up to a byte count (the packet fits the byte limit: the
    /// caller checked it, held bytes included). Returns `None` when the port is awake and sends it as usual.
    #[inline(never)]
    pub(super) fn offer_coalescing(
        &mut self,
        now: u64,
        entry: InFlight,
        window_ps: u64,
    ) -> Option<Admission> {
        let wire = entry.wire_bytes as u64;
        let eee = self.eee.as_deref_mut().expect("coalescing needs EEE");
        if let Some(QueueLimit::Packets(n)) = self.limit {
            // held() does not count the held packets: the generic check saw an empty queue.
            if eee.held.queue.len() as u64 >= n {
                self.counters.drops += 1;
                self.counters.drop_bytes += wire;
                return Some(Admission::Dropped);
            }
        }
        let decision = eee.hold(self.busy_until, now, wire);
        if decision == Hold::Send {
            return None;
        }
        let ser = self.clock.time_ps(wire);
        eee.held.queue.push_back(entry);
        eee.held.ser_ps += ser;
        let waiting = eee.held.queue.len() as u64 + self.held() as u64;
        self.held_bytes += wire;
        let c = &mut self.counters;
        c.bytes_sent += wire;
        c.packets_sent += 1;
        c.busy_ps += ser;
        c.peak_queue_bytes = c.peak_queue_bytes.max(self.held_bytes);
        c.peak_queue_packets = c.peak_queue_packets.max(waiting);
        Some(match decision {
            Hold::Hold(timer) => Admission::Held { timer },
            _ => {
                let Hold::Wake(w) = decision else {
                    unreachable!()
                };
                let (arrival, pipe_was_empty) = self.release(w, window_ps);
                Admission::Accepted {
                    arrival,
                    pipe_was_empty,
                }
            }
        })
    }

    /// The coalescing delay of a holding port runs out at `now` (the `EeeWake` event): wake and send what it
    /// holds. Returns the pipe head's arrival when the pipe was empty (schedule it), else None.
    pub fn coalesce_deadline(&mut self, now: u64, window_ps: u64) -> Option<u64> {
        if !self.wake_due(now) {
            return None;
        }
        let (arrival, pipe_was_empty) = self.release(now, window_ps);
        pipe_was_empty.then_some(arrival)
    }

    /// Whether `now` is the holding port's deadline (an `EeeWake` event at another time, or for a port that
    /// woke at its byte count, is stale).
    pub fn wake_due(&self, now: u64) -> bool {
        self.eee
            .as_deref()
            .is_some_and(|e| e.holding() && e.held.deadline == now)
    }

    /// Wake at `w` and move every held packet into the pipe, back to back from the wake's end: the head's
    /// arrival, and whether the pipe was empty before.
    fn release(&mut self, w: u64, window_ps: u64) -> (u64, bool) {
        let eee = self.eee.as_deref_mut().expect("coalescing needs EEE");
        let mut start = eee.wake_at(w);
        // Taken out while the packets move (counting a window borrows the whole port), put back empty after,
        // so the queue keeps its allocation.
        let mut held = std::mem::take(&mut eee.held.queue);
        eee.held.ser_ps = 0;
        eee.held.bytes = 0;
        let pipe_was_empty = self.pipe_len() == 0;
        for mut e in held.drain(..) {
            let finish = start + self.clock.time_ps(e.wire_bytes as u64);
            self.count_window(start, window_ps, e.wire_bytes as u64);
            e.arrival = finish + self.delay_ps;
            self.pipe_push(e);
            start = finish;
        }
        if let Some(eee) = self.eee.as_deref_mut() {
            eee.held.queue = held;
        }
        self.busy_until = start;
        (
            self.pipe_front().expect("a wake releases packets").arrival,
            pipe_was_empty,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eee::Eee;
    use crate::spec::{EeePhy, EeeSpec};

    const TS: u64 = 2_880_000;
    const TW: u64 = 4_480_000;
    const MS: u64 = 1_000_000_000;
    const US: u64 = 1_000_000;
    const SER: u64 = 1_200_000; // 1500 B at 10 Gb/s

    /// A 10 Gb/s port with no propagation delay, coalescing for `delay` or 4,000 bytes.
    fn port(limit: Option<QueueLimit>) -> Port {
        let spec = EeeSpec {
            hold_off_ps: 0,
            coalesce_ps: 50 * US,
            coalesce_bytes: 4_000,
            phys: vec![EeePhy {
                rate_bps: 10_000_000_000,
                sleep_ps: TS,
                wake_ps: TW,
            }],
        };
        let mut p = Port::new(0, 1, 0, 10_000_000_000, 0, limit);
        p.eee = Eee::for_rate(&spec, 10_000_000_000).map(Box::new);
        p
    }

    fn entry(pkt: u32) -> InFlight {
        InFlight {
            arrival: 0,
            pkt,
            dst_host: 0,
            wire_bytes: 1500,
            flow_hash: 0,
        }
    }

    fn arrivals(p: &mut Port) -> Vec<u64> {
        std::iter::from_fn(|| (p.pipe_len() > 0).then(|| p.pop_arrival().0.arrival)).collect()
    }

    #[test]
    fn the_byte_count_wakes_at_once_and_the_delay_event_goes_stale() {
        let mut p = port(None);
        assert!(
            matches!(p.offer(MS, entry(0), 0), Admission::Held { timer: Some(t) } if t == MS + 50 * US)
        );
        assert!(matches!(
            p.offer(MS + US, entry(1), 0),
            Admission::Held { timer: None }
        ));
        assert_eq!(p.occupancy(MS + US).0, 2);
        // The third packet brings 4,500 bytes: the wake starts now, the held packets leave back to back after it.
        let woke = MS + 2 * US;
        let Admission::Accepted {
            arrival,
            pipe_was_empty: true,
        } = p.offer(woke, entry(2), 0)
        else {
            panic!()
        };
        assert_eq!(arrival, woke + TW + SER);
        assert!(!p.wake_due(MS + 50 * US), "the delay's event is stale");
        assert_eq!(p.free_at(), woke + TW + 3 * SER);
        assert_eq!(
            arrivals(&mut p),
            vec![woke + TW + SER, woke + TW + 2 * SER, woke + TW + 3 * SER]
        );
        let c = p.eee.as_ref().unwrap().counters;
        assert_eq!(
            (c.sleep_ps, c.lpi_ps, c.wake_ps, c.sleeps),
            (TS, woke - TS, TW, 1)
        );
    }

    #[test]
    fn fewer_bytes_wait_for_the_delay_and_the_packet_limit_counts_held_packets() {
        let mut p = port(Some(QueueLimit::Packets(2)));
        p.offer(MS, entry(0), 0);
        p.offer(MS + US, entry(1), 0);
        assert!(matches!(
            p.offer(MS + 2 * US, entry(2), 0),
            Admission::Dropped
        ));
        assert_eq!(p.counters.drops, 1);
        // While it holds, the port will be free after the wake at the deadline and the held packets.
        let deadline = MS + 50 * US;
        assert_eq!(p.free_at(), deadline + TW + 2 * SER);
        assert!(!p.wake_due(deadline - 1));
        assert_eq!(p.coalesce_deadline(deadline, 0), Some(deadline + TW + SER));
        assert!(!p.wake_due(deadline), "woken once");
        assert_eq!(
            arrivals(&mut p),
            vec![deadline + TW + SER, deadline + TW + 2 * SER]
        );
        assert_eq!(p.eee.as_ref().unwrap().counters.lpi_ps, deadline - TS);
    }
}
