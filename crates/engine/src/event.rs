//! The event queue: a binary min-heap ordered by (time, sequence number), so simultaneous events run in the
//! order they were scheduled, identically on every run.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// The packet at the head of a link direction's pipe reaches the far node. Arg: direction.
    PortArrival,
    /// A flow's source starts. Arg: flow index.
    FlowStart,
    /// A flow's retransmission timer may have expired. Arg: flow index.
    RtoTimer,
    /// A flow's receiver may owe a delayed ACK. Arg: flow index.
    DelackTimer,
    /// A UDP constant-bit-rate source sends its next datagram. Arg: flow index.
    UdpSend,
}

#[derive(Debug, Clone, Copy)]
pub struct Event {
    pub time: u64,
    pub seq: u64,
    pub kind: EventKind,
    pub arg: u32,
}

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

#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Event>,
    next_seq: u64,
}

impl EventQueue {
    #[inline]
    pub fn push(&mut self, time: u64, kind: EventKind, arg: u32) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Event { time, seq, kind, arg });
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Event> {
        self.heap.pop()
    }

    pub fn peek_time(&self) -> Option<u64> {
        self.heap.peek().map(|e| e.time)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
