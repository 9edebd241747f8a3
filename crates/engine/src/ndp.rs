//! NDP's sender (Handley et al., SIGCOMM 2017, section 3): a full initial window at the start, then one packet
//! per pull from the receiver, a NACKed packet (its header came back trimmed) before any new one. A timer is
//! the last resort when neither ACK, NACK nor pull arrives. The receiver's pull pacer (`PullPacer`) is here too,
//! shared by both engines; switch trimming lives in `sim.rs` (packet engine) and `circuit/opera.rs`; the
//! receiver's byte accounting is `tcp::TcpReceiver`'s.

use std::collections::VecDeque;

use crate::tcp::{Segment, SenderStats};

#[derive(Debug, Clone)]
pub struct NdpSender {
    size: u64,
    mss: u64,
    packets: u64,
    /// Index of the next packet never sent.
    next_new: u64,
    /// One bit per packet: acknowledged.
    acked: Vec<u64>,
    acked_count: u64,
    /// NACKed packets waiting for a pull, oldest first (may hold packets acknowledged since: skipped).
    rtx: VecDeque<u64>,
    /// The timeout now: `base_rto`, doubled at each timeout, back to `base_rto` when a packet is acknowledged.
    rto: u64,
    base_rto: u64,
    /// Deadline of the last-resort timer, if armed.
    pub rto_deadline: Option<u64>,
    pub stats: SenderStats,
}

impl NdpSender {
    pub fn new(size: u64, mss: u32, rto_ps: u64) -> Self {
        let mss = mss as u64;
        let packets = size.div_ceil(mss);
        NdpSender {
            size,
            mss,
            packets,
            next_new: 0,
            acked: vec![0; packets.div_ceil(64) as usize],
            acked_count: 0,
            rtx: VecDeque::new(),
            rto: rto_ps,
            base_rto: rto_ps,
            rto_deadline: None,
            stats: SenderStats::default(),
        }
    }

    pub fn done(&self) -> bool {
        self.acked_count >= self.packets
    }

    /// Every packet has been sent at least once (nothing new is left for a pull to release).
    pub fn all_sent(&self) -> bool {
        self.next_new >= self.packets
    }

    fn is_acked(&self, i: u64) -> bool {
        self.acked[(i / 64) as usize] >> (i % 64) & 1 == 1
    }

    fn segment(&mut self, i: u64, retx: bool) -> Segment {
        let seq = i * self.mss;
        self.stats.data_packets_sent += 1;
        self.stats.retransmits += retx as u64;
        Segment {
            seq,
            len: self.mss.min(self.size - seq) as u32,
            retx,
        }
    }

    fn rearm(&mut self, now: u64) {
        self.rto_deadline = (!self.done()).then_some(now + self.rto);
    }

    /// The flow starts: up to `initial_window` packets at once.
    pub fn start(&mut self, now: u64, initial_window: u32, out: &mut Vec<Segment>) {
        while self.next_new < self.packets.min(initial_window as u64) {
            let i = self.next_new;
            self.next_new += 1;
            out.push(self.segment(i, false));
        }
        self.rearm(now);
    }

    /// The packet starting at byte `seq` arrived whole.
    pub fn on_ack(&mut self, now: u64, seq: u64) {
        let i = seq / self.mss;
        if !self.is_acked(i) {
            self.acked[(i / 64) as usize] |= 1 << (i % 64);
            self.acked_count += 1;
            // Progress: the back-off of earlier timeouts ends (as TCP's does, RFC 6298 section 5.7).
            self.rto = self.base_rto;
        }
        self.rearm(now);
    }

    /// The packet starting at byte `seq` was trimmed: send it again at the next pull.
    pub fn on_nack(&mut self, now: u64, seq: u64) {
        let i = seq / self.mss;
        if !self.is_acked(i) {
            self.rtx.push_back(i);
        }
        self.rearm(now);
    }

    /// A pull: one packet, a NACKed one first, else the next new one, else nothing.
    pub fn on_pull(&mut self, now: u64, out: &mut Vec<Segment>) {
        while let Some(i) = self.rtx.pop_front() {
            if !self.is_acked(i) {
                self.stats.fast_retransmits += 1;
                out.push(self.segment(i, true));
                self.rearm(now);
                return;
            }
        }
        if self.next_new < self.packets {
            let i = self.next_new;
            self.next_new += 1;
            out.push(self.segment(i, false));
        }
        self.rearm(now);
    }

    /// The timer fired with packets unacknowledged and nothing heard for a timeout: send every sent and
    /// unacknowledged packet again, up to `initial_window` of them (the rest wait for pulls).
    pub fn on_timeout(&mut self, now: u64, initial_window: u32, out: &mut Vec<Segment>) {
        self.rto_deadline = None;
        if self.done() {
            return;
        }
        self.stats.timeouts += 1;
        self.rtx.clear();
        let mut sent = 0;
        for i in 0..self.next_new {
            if !self.is_acked(i) {
                if sent < initial_window {
                    out.push(self.segment(i, true));
                    sent += 1;
                } else {
                    self.rtx.push_back(i);
                }
            }
        }
        if sent == 0 {
            self.on_pull(now, out);
        }
        self.rto = self.rto.saturating_mul(2);
        self.rearm(now);
    }
}

/// A receiver's pull pacer (Handley et al. 2017, section 3.2): the flows owed a pull, in order, sent one at a
/// time with a gap of one full packet at the receiver's link rate. The run owns the event; the pacer says when.
#[derive(Debug, Clone, Default)]
pub struct PullPacer {
    owed: VecDeque<u32>,
    next: u64,
    pending: bool,
    gap: u64,
}

impl PullPacer {
    pub fn new(gap_ps: u64) -> Self {
        PullPacer {
            gap: gap_ps.max(1),
            ..Default::default()
        }
    }

    /// Flow `f` is owed a pull: returns when the pacer's event must fire, if none is pending.
    pub fn owe(&mut self, f: u32, now: u64) -> Option<u64> {
        self.owed.push_back(f);
        if self.pending {
            return None;
        }
        self.pending = true;
        Some(now.max(self.next))
    }

    /// Flow `f` needs no more pulls (its receiver has every byte): forget those still owed to it.
    pub fn release(&mut self, f: u32) {
        self.owed.retain(|&x| x != f);
    }

    /// The pacer serves one flow, which needs no more pulls: give its queue's memory back (it was released).
    pub fn free(&mut self) {
        self.owed = VecDeque::new();
    }

    /// The pacer's event fired: the flow to pull now, and when the next event must fire (more are owed).
    pub fn fire(&mut self, now: u64) -> (Option<u32>, Option<u64>) {
        self.pending = false;
        let Some(f) = self.owed.pop_front() else {
            return (None, None);
        };
        self.next = now + self.gap;
        if self.owed.is_empty() {
            return (Some(f), None);
        }
        self.pending = true;
        (Some(f), Some(self.next))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_then_one_packet_per_pull_nacked_first() {
        let mut s = NdpSender::new(10_000, 1000, 1_000_000);
        let mut out = Vec::new();
        s.start(0, 3, &mut out);
        assert_eq!(
            out.iter().map(|x| x.seq).collect::<Vec<_>>(),
            vec![0, 1000, 2000]
        );
        out.clear();
        s.on_ack(5, 0);
        s.on_nack(6, 1000);
        s.on_pull(7, &mut out);
        assert_eq!(
            out,
            vec![Segment {
                seq: 1000,
                len: 1000,
                retx: true
            }]
        );
        s.on_pull(8, &mut out);
        assert_eq!(
            out[1],
            Segment {
                seq: 3000,
                len: 1000,
                retx: false
            }
        );
        assert_eq!(
            (
                s.stats.retransmits,
                s.stats.fast_retransmits,
                s.stats.data_packets_sent
            ),
            (1, 1, 5)
        );
        assert!(!s.done());
        for i in 1..10 {
            s.on_ack(9, i * 1000);
        }
        assert!(s.done() && s.rto_deadline.is_none());
    }

    #[test]
    fn timeouts_back_off_and_an_ack_ends_the_back_off() {
        let mut s = NdpSender::new(5_000, 1000, 1_000);
        let mut out = Vec::new();
        s.start(0, 2, &mut out);
        assert_eq!(s.rto_deadline, Some(1_000));
        s.on_timeout(1_000, 2, &mut out);
        assert_eq!(s.rto_deadline, Some(3_000), "doubled after one timeout");
        s.on_timeout(3_000, 2, &mut out);
        assert_eq!(s.rto_deadline, Some(7_000), "doubled again");
        s.on_ack(7_500, 1000); // a retransmitted packet arrived: progress
        assert_eq!(s.rto_deadline, Some(8_500), "back to the base timeout");
        s.on_ack(7_600, 1000); // a duplicate ACK is no progress and leaves the timeout as it is
        assert_eq!(s.rto_deadline, Some(8_600));
        s.on_timeout(8_600, 2, &mut out);
        assert_eq!(
            s.rto_deadline,
            Some(10_600),
            "the back-off starts again from the base"
        );
    }

    #[test]
    fn pacer_spaces_pulls_by_the_gap() {
        let mut p = PullPacer::new(100);
        assert_eq!(p.owe(1, 10), Some(10));
        assert_eq!(p.owe(2, 12), None);
        assert_eq!(p.fire(10), (Some(1), Some(110)));
        assert_eq!(p.fire(110), (Some(2), None));
        assert_eq!(p.owe(3, 150), Some(210));
    }

    #[test]
    fn released_pulls_leave_their_slots_to_the_other_flows() {
        let mut p = PullPacer::new(100);
        assert_eq!(p.owe(1, 0), Some(0));
        p.owe(1, 1);
        p.owe(2, 2);
        assert_eq!(p.fire(0), (Some(1), Some(100)));
        p.release(1);
        assert_eq!(p.fire(100), (Some(2), None), "flow 1's second pull is gone");
        p.release(2);
        assert_eq!(p.owe(3, 150), Some(200));
        p.release(3);
        assert_eq!(
            p.fire(200),
            (None, None),
            "an event with nothing owed sends nothing"
        );
    }
}
