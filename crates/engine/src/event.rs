//! The event queue, ordered by (time, sequence number), so simultaneous events run in the order they were
//! scheduled, identically on every run.
//!
//! It is a radix heap on the time: the simulation never schedules an event before the one it is running, so
//! times only grow, and an event goes to bucket b = the highest bit in which its time differs from the last
//! time popped; the events at that time wait in scheduling order (`at_last`), put in order by sequence number
//! when a refill brings them there. Push is O(1); each event moves down at most 64 buckets over its life, and
//! in practice a few. Profiles of k=24 fat-trees had the binary heap's pop at 27 % of the run: its log2(n)
//! levels of cache misses per event grew with the number of busy ports. The binary heap remains as the
//! reference the tests compare against.

use std::cmp::Ordering;
#[cfg(test)]
use std::collections::BinaryHeap;
use std::collections::VecDeque;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// The packet at the head of a link direction's pipe reaches the far node. Arg: direction. (Circuit fabrics
    /// with hosts: a host link's, arg 2h towards host h's ToR, 2h + 1 towards host h.)
    PortArrival,
    /// A flow's source starts. Arg: flow index.
    FlowStart,
    /// A flow's retransmission timer may have expired. Arg: flow index.
    RtoTimer,
    /// A flow's receiver may owe a delayed ACK. Arg: flow index.
    DelackTimer,
    /// A UDP constant-bit-rate source sends its next datagram. Arg: flow index. (Circuit fabrics with hosts: a
    /// flow within a rack hands its next datagram to its host's NIC.)
    UdpSend,
    /// NDP: a receiving host's pull pacer may send its next pull. Arg: host index.
    NdpPull,
    /// Energy-Efficient Ethernet: a sleeping port's coalescing delay runs out (stale if its byte count woke it
    /// first). Arg: port.
    EeeWake,
    /// Circuit fabrics (`crate::circuit`): a circuit switch's next slot begins at its senders. Arg: switch.
    SlotStart,
    /// Circuit fabrics: a sender port may hand its next packet to the NIC. Arg: port.
    PortNext,
    /// Circuit fabrics: the packet at the head of a sender port's pipe reaches the far endpoint. Arg: port.
    CircuitArrival,
    /// Circuit fabrics under Opera routing: a new topology slice begins. Arg: unused.
    OperaSlice,
}

#[derive(Debug, Clone, Copy)]
pub struct Event {
    pub time: u64,
    pub seq: u64,
    pub kind: EventKind,
    pub arg: u32,
    /// What the event's pusher knew it will read (`push_hinted`; NO_HINT otherwise): a hint, never a result.
    pub hint: u32,
}

/// The hint of an event pushed by `push`.
pub const NO_HINT: u32 = u32::MAX;

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Event {
    // Reversed so that BinaryHeap (a max-heap) pops the earliest (time, seq) first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    time: u64,
    seq: u64,
    kind: EventKind,
    arg: u32,
    hint: u32,
    /// A second word for the loop's prefetch (`push_hinted_slot`; the packet engine: the pipe slot the event
    /// moves up), in what was padding: the entry stays 32 bytes.
    slot: u32,
}

impl Entry {
    #[inline]
    fn key(&self) -> (u64, u64) {
        (self.time, self.seq)
    }
}

#[derive(Debug)]
pub struct EventQueue {
    /// The entries whose time is `last`, in scheduling order: the next to pop is at the front.
    at_last: VecDeque<Entry>,
    /// Bucket b (1..=64) holds the entries whose time first differs from `last` in bit b - 1. The buckets go by
    /// time alone (64-bit operations, and events at one time never cascade through buckets by their sequence
    /// numbers); ties are put in order when they reach `at_last` (our choice: a radix heap on the 128-bit key
    /// (time, seq) spent about a fifth of a k = 32 run's loop on 128-bit shifts and bucket moves).
    buckets: Vec<Vec<Entry>>,
    /// Bit b - 1 is set when bucket b is not empty: finding the next bucket to refill from is one instruction.
    occupied: u64,
    /// The smallest entry of each bucket by (time, seq) (time u64::MAX when none): a refill takes its time
    /// without a pass over the bucket, and `peek` names the next event in O(1), so the loop can prefetch what
    /// that event will read.
    mins: Vec<Entry>,
    last: u64,
    len: usize,
    next_seq: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            at_last: VecDeque::new(),
            buckets: (0..=64).map(|_| Vec::new()).collect(),
            occupied: 0,
            mins: vec![NO_ENTRY; 65],
            last: 0,
            len: 0,
            next_seq: 0,
        }
    }
}

const NO_ENTRY: Entry = Entry {
    time: u64::MAX,
    seq: u64::MAX,
    kind: EventKind::PortArrival,
    arg: 0,
    hint: NO_HINT,
    slot: NO_HINT,
};

#[inline]
fn bucket_of(time: u64, last: u64) -> usize {
    if time <= last {
        0
    } else {
        64 - (time ^ last).leading_zeros() as usize
    }
}

impl EventQueue {
    #[inline]
    pub fn push(&mut self, time: u64, kind: EventKind, arg: u32) {
        self.push_hinted(time, kind, arg, NO_HINT);
    }

    /// `push`, with a word the loop may read when this event comes next (`peek`), to prefetch what the event
    /// will read one event ahead (the packet engine: the packet, or the port it leaves by). The entry has room
    /// for it (32 bytes either way); the order of events does not depend on it.
    #[inline]
    pub fn push_hinted(&mut self, time: u64, kind: EventKind, arg: u32, hint: u32) {
        self.push_hinted_slot(time, kind, arg, hint, NO_HINT);
    }

    /// `push_hinted`, with a second word for the loop to prefetch by (`peek_slot`); the order of events does
    /// not depend on it either.
    #[inline]
    pub fn push_hinted_slot(&mut self, time: u64, kind: EventKind, arg: u32, hint: u32, slot: u32) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.put(Entry {
            time,
            seq,
            kind,
            arg,
            hint,
            slot,
        });
        self.len += 1;
    }

    #[inline]
    fn put(&mut self, e: Entry) {
        let b = bucket_of(e.time, self.last);
        if b > 0 {
            self.occupied |= 1u64 << (b - 1);
            if e.key() < self.mins[b].key() {
                self.mins[b] = e;
            }
            self.buckets[b].push(e);
        } else if e.time == self.last {
            // Scheduled after every entry already queued: the last of its time.
            self.at_last.push_back(e);
        } else {
            // Before the last one popped (none is, by construction): the minimum, it runs next, as it would
            // from a binary heap.
            self.at_last.push_front(e);
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Event> {
        if self.len == 0 {
            return None;
        }
        if self.at_last.is_empty() {
            debug_assert!(self.occupied != 0, "len > 0 with every bucket empty");
            // `occupied` is kept in a local while the bucket's entries move down: updating the field itself
            // (a write into it, then a read of it) stalled each refill on store forwarding.
            let mut occupied = self.occupied;
            let b = occupied.trailing_zeros() as usize + 1;
            occupied &= !(1u64 << (b - 1));
            let items = std::mem::take(&mut self.buckets[b]);
            let last = std::mem::replace(&mut self.mins[b], NO_ENTRY).time;
            self.last = last;
            for e in &items {
                // Those of the bucket's smallest time go to `at_last`, the others to buckets below b.
                let nb = bucket_of(e.time, last);
                if nb > 0 {
                    occupied |= 1u64 << (nb - 1);
                    if e.key() < self.mins[nb].key() {
                        self.mins[nb] = *e;
                    }
                    self.buckets[nb].push(*e);
                } else {
                    self.at_last.push_back(*e);
                }
            }
            self.occupied = occupied;
            if self.at_last.len() > 1 {
                // A bucket gathers entries from pushes and from refills of higher buckets: not in seq order.
                self.at_last
                    .make_contiguous()
                    .sort_unstable_by_key(|e| e.seq);
            }
            // keep the bucket's allocation for later pushes
            let mut emptied = items;
            emptied.clear();
            self.buckets[b] = emptied;
        }
        let e = self.at_last.pop_front().expect("at_last filled");
        self.len -= 1;
        Some(Event {
            time: e.time,
            seq: e.seq,
            kind: e.kind,
            arg: e.arg,
            hint: e.hint,
        })
    }

    /// The event `pop` would return next if nothing else were pushed before it: its kind, argument and hint.
    #[inline]
    pub fn peek(&self) -> Option<(EventKind, u32, u32)> {
        self.next_entry().map(|e| (e.kind, e.arg, e.hint))
    }

    /// `peek`, with the event's second word (`push_hinted_slot`; NO_HINT when pushed without one).
    #[inline]
    pub fn peek_slot(&self) -> Option<(EventKind, u32, u32, u32)> {
        self.next_entry().map(|e| (e.kind, e.arg, e.hint, e.slot))
    }

    /// The event `pop` would return after the next one, if nothing else were pushed before them, when the queue
    /// knows it without a search: the second of the current time's events, or the smallest entry of the lowest
    /// bucket holding the one after the next one. Else None. A hint for prefetching two events ahead.
    #[inline]
    pub fn peek_second_slot(&self) -> Option<(EventKind, u32, u32, u32)> {
        let lowest = |occupied: u64| {
            (occupied != 0).then(|| &self.mins[occupied.trailing_zeros() as usize + 1])
        };
        let e = match self.at_last.len() {
            0 => {
                // The next one is the lowest bucket's smallest: if it is alone there, the second is the
                // smallest of the bucket above it (a bucket's entries all come before those of higher ones).
                let b = self.occupied.trailing_zeros() as usize + 1;
                if self.occupied == 0 || self.buckets[b].len() != 1 {
                    return None;
                }
                lowest(self.occupied & (self.occupied - 1))
            }
            1 => lowest(self.occupied),
            _ => self.at_last.get(1),
        };
        e.map(|e| (e.kind, e.arg, e.hint, e.slot))
    }

    #[inline]
    fn next_entry(&self) -> Option<&Entry> {
        match self.at_last.front() {
            Some(e) => Some(e),
            None if self.occupied != 0 => {
                Some(&self.mins[self.occupied.trailing_zeros() as usize + 1])
            }
            None => None,
        }
    }

    pub fn peek_time(&self) -> Option<u64> {
        self.at_last
            .iter()
            .chain(self.buckets.iter().flatten())
            .map(|e| e.time)
            .min()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_keeps_to_32_bytes() {
        assert_eq!(std::mem::size_of::<Entry>(), 32);
    }

    #[test]
    fn ties_break_in_scheduling_order() {
        let mut q = EventQueue::default();
        q.push(10, EventKind::FlowStart, 1);
        q.push(5, EventKind::FlowStart, 2);
        q.push(10, EventKind::FlowStart, 3);
        q.push(10, EventKind::FlowStart, 4);
        let order: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|e| e.arg).collect();
        assert_eq!(order, vec![2, 1, 3, 4]);
    }

    #[test]
    fn the_radix_heap_pops_exactly_what_a_binary_heap_pops() {
        // A simulation-like stream: pops interleaved with pushes at or after the current time, many ties.
        let mut q = EventQueue::default();
        let mut reference: BinaryHeap<Event> = BinaryHeap::new();
        let mut seq = 0u64;
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut rand = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut now = 0u64;
        for step in 0..200_000u32 {
            let pushes = if step < 1000 { 2 } else { (rand() % 3) as u32 };
            for _ in 0..pushes {
                let t = now + [0, 1, 7, 1000, 1 << 40][(rand() % 5) as usize] + rand() % 3;
                q.push_hinted_slot(t, EventKind::PortArrival, step, step / 3, step ^ 5);
                reference.push(Event {
                    time: t,
                    seq,
                    kind: EventKind::PortArrival,
                    arg: step,
                    hint: step / 3,
                });
                seq += 1;
            }
            let peeked = q.peek();
            let peeked_slot = q.peek_slot();
            match (q.pop(), reference.pop()) {
                (Some(a), Some(b)) => {
                    assert_eq!(
                        (a.time, a.seq, a.arg, a.hint),
                        (b.time, b.seq, b.arg, b.hint)
                    );
                    assert_eq!(
                        peeked,
                        Some((a.kind, a.arg, a.hint)),
                        "peek names the event pop returns"
                    );
                    assert_eq!(
                        peeked_slot,
                        Some((a.kind, a.arg, a.hint, a.arg ^ 5)),
                        "and its second word"
                    );
                    now = a.time;
                }
                (None, None) => {}
                (a, b) => panic!("{a:?} vs {b:?}"),
            }
            assert_eq!(q.len(), reference.len());
        }
    }
}
