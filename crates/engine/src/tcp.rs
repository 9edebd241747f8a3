//! TCP NewReno as two pure state machines, a sender and a receiver, that the simulator feeds with ACKs and
//! data and whose requests (segments to send, timers to arm) it carries out. Byte sequence numbers start at 0;
//! there is no handshake: a flow starts sending its initial window at its start time.
//!
//! Sender: slow start with appropriate byte counting (at most L MSS per ACK, RFC 3465; L = 2 by default, 1 for
//! ns-3's one segment per ACK), congestion avoidance
//! of one MSS per window of acknowledged bytes, fast retransmit on `dupack_threshold` duplicate ACKs, NewReno
//! fast recovery with partial ACKs (RFC 6582, "careful" entry: not again until the ACK passes `recover`),
//! RFC 6298 retransmission timer with exponential back-off, go-back-N after a timeout.
//! Receiver: cumulative ACKs, out-of-order segments kept, delayed ACKs (every second segment or on timer,
//! immediately when data is out of order, fills a hole, or completes the flow).

use crate::dctcp::Dctcp;
use crate::results::FlowRow;
use crate::spec::{DctcpSpec, LossDetection, TcpSpec};

/// One segment the sender asks to transmit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    pub len: u32,
    pub retx: bool,
}

#[derive(Debug, Clone, Default)]
pub struct SenderStats {
    pub data_packets_sent: u64,
    pub retransmits: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    /// Fast retransmissions the sender itself found spurious (adaptive loss detection only).
    pub undone_retransmits: u64,
}

#[derive(Debug, Clone)]
pub struct TcpSender {
    size: u64,
    mss: u64,
    snd_una: u64,
    snd_nxt: u64,
    /// One past the highest byte ever sent: anything below it that is sent again is a retransmission.
    high_tx: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Acknowledged bytes counted towards the next congestion-avoidance increase.
    ca_acked: u64,
    dupacks: u32,
    in_recovery: bool,
    /// Partial ACKs seen in the current recovery.
    partial_acks: u32,
    recover: Option<u64>,
    srtt: Option<u64>,
    rttvar: u64,
    rto: u64,
    /// Deadline of the retransmission timer, if armed.
    pub rto_deadline: Option<u64>,
    pub stats: SenderStats,
    /// DCTCP's ECN response (a DCTCP flow), or none (NewReno ignores ECN-Echo).
    pub dctcp: Option<Box<Dctcp>>,
    /// Duplicate ACKs that trigger a fast retransmit (fixed unless loss detection is adaptive).
    dupthresh: u32,
    /// The last fast retransmission: its send time and the window and threshold before it (for undo).
    last_fast_retx: Option<(u64, u64, u64)>,
}

impl TcpSender {
    pub fn new(size: u64, cfg: &TcpSpec) -> Self {
        let mss = cfg.mss as u64;
        TcpSender {
            size,
            mss,
            snd_una: 0,
            snd_nxt: 0,
            high_tx: 0,
            cwnd: cfg.initial_window as u64 * mss,
            ssthresh: u64::MAX,
            ca_acked: 0,
            dupacks: 0,
            in_recovery: false,
            partial_acks: 0,
            recover: None,
            srtt: None,
            rttvar: 0,
            rto: cfg.initial_rto_ps.max(cfg.min_rto_ps),
            rto_deadline: None,
            stats: SenderStats::default(),
            dctcp: None,
            dupthresh: cfg.dupack_threshold,
            last_fast_retx: None,
        }
    }

    pub fn done(&self) -> bool {
        self.snd_una >= self.size
    }

    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }

    pub fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    pub fn rto(&self) -> u64 {
        self.rto
    }

    pub fn dupthresh(&self) -> u32 {
        self.dupthresh
    }

    /// Adaptive loss detection: the first ACK past a fast retransmission echoes the send time of the data
    /// that filled the hole. Older than the retransmission means the original arrived (it was reordered, not
    /// lost): raise the threshold above the duplicate ACKs it took (Linux's reordering degree, capped) and
    /// restore the window (RFC 4015's response).
    fn check_spurious(&mut self, echo_ts: u64, cfg: &TcpSpec) {
        let Some((sent_at, cwnd, ssthresh)) = self.last_fast_retx.take() else {
            return;
        };
        if echo_ts < sent_at {
            self.stats.undone_retransmits += 1;
            self.dupthresh = (self.dupacks + 1)
                .clamp(self.dupthresh, cfg.max_reordering.max(cfg.dupack_threshold));
            self.in_recovery = false;
            self.cwnd = cwnd;
            self.ssthresh = ssthresh;
        }
    }

    fn flight(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }

    fn segment_at(&mut self, seq: u64) -> Segment {
        let len = self.mss.min(self.size - seq) as u32;
        let retx = seq < self.high_tx;
        self.stats.data_packets_sent += 1;
        if retx {
            self.stats.retransmits += 1;
        }
        self.high_tx = self.high_tx.max(seq + len as u64);
        Segment { seq, len, retx }
    }

    fn arm_if_idle(&mut self, now: u64) {
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rto);
        }
    }

    /// Send whatever the window allows.
    pub fn fill_window(&mut self, now: u64, cfg: &TcpSpec, out: &mut Vec<Segment>) {
        let wnd = self.cwnd.min(cfg.max_window_bytes);
        while self.snd_nxt < self.size {
            let len = self.mss.min(self.size - self.snd_nxt);
            if self.flight() + len > wnd {
                break;
            }
            let seg = self.segment_at(self.snd_nxt);
            self.snd_nxt += seg.len as u64;
            out.push(seg);
        }
        if self.snd_nxt > self.snd_una {
            self.arm_if_idle(now);
        }
    }

    fn retransmit_head(&mut self, out: &mut Vec<Segment>) {
        let seg = self.segment_at(self.snd_una);
        self.snd_nxt = self.snd_nxt.max(self.snd_una + seg.len as u64);
        out.push(seg);
    }

    fn take_rtt_sample(&mut self, sample: u64, cfg: &TcpSpec) {
        match self.srtt {
            None => {
                self.srtt = Some(sample);
                self.rttvar = sample / 2;
            }
            Some(srtt) => {
                self.rttvar = (3 * self.rttvar + srtt.abs_diff(sample)) / 4;
                self.srtt = Some((7 * srtt + sample) / 8);
            }
        }
        self.rto = (self.srtt.unwrap() + 4 * self.rttvar).clamp(cfg.min_rto_ps, cfg.max_rto_ps);
    }

    /// A cumulative ACK for `ack` arrived, echoing the send time `echo_ts` of the data that caused it.
    pub fn on_ack(
        &mut self,
        now: u64,
        ack: u64,
        echo_ts: u64,
        cfg: &TcpSpec,
        out: &mut Vec<Segment>,
    ) {
        self.on_ack_inner(now, ack, echo_ts, cfg, out);
    }

    /// An ACK with its ECN-Echo flag, for a DCTCP sender: DCTCP's window cut first (outside loss recovery,
    /// where NewReno's halving already applies), then NewReno's processing of the ACK.
    #[allow(clippy::too_many_arguments)]
    pub fn on_ack_ecn(
        &mut self,
        now: u64,
        ack: u64,
        echo_ts: u64,
        ece: bool,
        cfg: &TcpSpec,
        dcfg: &DctcpSpec,
        out: &mut Vec<Segment>,
    ) {
        if let Some(d) = self.dctcp.as_mut() {
            let acked = ack.saturating_sub(self.snd_una);
            let una = self.snd_una.max(ack);
            if let Some(w) = d.on_ack(
                acked,
                ece,
                una,
                self.snd_nxt.max(una),
                self.cwnd,
                self.mss,
                dcfg,
            ) {
                if !self.in_recovery {
                    self.cwnd = w;
                    self.ssthresh = w;
                    self.ca_acked = 0;
                }
            }
        }
        self.on_ack_inner(now, ack, echo_ts, cfg, out);
    }

    fn on_ack_inner(
        &mut self,
        now: u64,
        ack: u64,
        echo_ts: u64,
        cfg: &TcpSpec,
        out: &mut Vec<Segment>,
    ) {
        let mss = self.mss;
        if ack > self.snd_una {
            if self.last_fast_retx.is_some() {
                self.check_spurious(echo_ts, cfg);
            }
            let acked = ack - self.snd_una;
            self.snd_una = ack;
            self.snd_nxt = self.snd_nxt.max(ack);
            // Timestamps make samples from retransmitted data safe (RFC 7323), so no Karn exclusion here.
            self.take_rtt_sample(now.saturating_sub(echo_ts), cfg);
            if self.in_recovery {
                if ack >= self.recover.unwrap_or(0) {
                    self.in_recovery = false;
                    self.cwnd = self.ssthresh;
                } else {
                    // Partial ACK: the next hole is lost too; resend it and deflate by what was acked.
                    self.retransmit_head(out);
                    self.cwnd = self.cwnd.saturating_sub(acked) + mss;
                    self.partial_acks += 1;
                }
            } else if self.cwnd < self.ssthresh {
                self.cwnd += acked.min(cfg.slow_start_segments_per_ack as u64 * mss);
            } else {
                self.ca_acked += acked;
                if self.ca_acked >= self.cwnd {
                    self.ca_acked -= self.cwnd;
                    self.cwnd += mss;
                }
            }
            self.dupacks = 0;
            // "Impatient" NewReno (RFC 6582 3.2): during recovery only the first partial ACK restarts the
            // timer, so a window with many losses ends in a timeout instead of one hole per round trip.
            let restart = !self.in_recovery || self.partial_acks <= 1;
            if self.done() || self.snd_nxt == self.snd_una {
                self.rto_deadline = None;
            } else if restart {
                self.rto_deadline = Some(now + self.rto);
            }
        } else if ack == self.snd_una && self.snd_nxt > self.snd_una {
            self.dupacks += 1;
            if !self.in_recovery && self.dupacks == self.dupthresh {
                let may_enter = self.recover.is_none_or(|r| self.snd_una > r);
                if may_enter {
                    self.stats.fast_retransmits += 1;
                    if cfg.loss_detection == LossDetection::Adaptive {
                        self.last_fast_retx = Some((now, self.cwnd, self.ssthresh));
                    }
                    self.ssthresh = (self.flight() / 2).max(2 * mss);
                    self.recover = Some(self.high_tx);
                    self.in_recovery = true;
                    self.partial_acks = 0;
                    self.retransmit_head(out);
                    self.cwnd = self.ssthresh + self.dupthresh as u64 * mss;
                    self.rto_deadline = Some(now + self.rto);
                }
            } else if self.in_recovery {
                self.cwnd += mss;
            }
        }
        if !self.done() {
            self.fill_window(now, cfg, out);
        }
    }

    /// The retransmission timer fired (the simulator checked the deadline has passed).
    pub fn on_timeout(&mut self, now: u64, cfg: &TcpSpec, out: &mut Vec<Segment>) {
        self.rto_deadline = None;
        if self.done() {
            return;
        }
        self.stats.timeouts += 1;
        self.last_fast_retx = None;
        self.ssthresh = (self.flight() / 2).max(2 * self.mss);
        self.cwnd = self.mss;
        self.ca_acked = 0;
        self.dupacks = 0;
        self.in_recovery = false;
        self.recover = Some(self.high_tx);
        self.snd_nxt = self.snd_una; // go back N
        self.rto = (self.rto * 2).min(cfg.max_rto_ps);
        self.fill_window(now, cfg, out);
    }
}

impl SenderStats {
    /// Add the sender's counters to a flow's result row.
    pub fn fold_into(&self, row: &mut FlowRow) {
        row.data_packets_sent = self.data_packets_sent;
        row.retransmits = self.retransmits;
        row.fast_retransmits = self.fast_retransmits;
        row.timeouts = self.timeouts;
    }
}

#[derive(Debug, Clone, Default)]
pub struct ReceiverStats {
    pub packets_received: u64,
    pub ooo_packets: u64,
    pub spurious_retransmits: u64,
    pub acks_sent: u64,
    /// Data packets that arrived with ECN's Congestion Experienced mark.
    pub ecn_marks: u64,
}

/// What the receiver wants after a data packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckAction {
    /// Send a cumulative ACK now.
    Now,
    /// Hold it; make sure a delayed-ACK timer fires by this time.
    Delay(u64),
}

#[derive(Debug, Clone)]
pub struct TcpReceiver {
    size: u64,
    /// Next byte expected: everything below it has arrived.
    pub rcv_nxt: u64,
    /// Received byte ranges above rcv_nxt, sorted and disjoint. A receiver of whole packets (`unit` > 0) keeps
    /// one bit per packet of the flow here instead, 128 to an element (`packet_held`).
    ooo: Vec<(u64, u64)>,
    /// 0, or the packet size of a receiver of whole packets (`for_packets`; 16 bits keep the receiver's size).
    unit: u16,
    /// Highest sequence number received so far, if any.
    highest_seq: Option<u64>,
    unacked_segments: u32,
    /// Send time of the first data packet not yet acknowledged (echoed in the next ACK).
    pub echo_ts: u64,
    pub delack_deadline: Option<u64>,
    pub finish: Option<u64>,
    pub stats: ReceiverStats,
    /// The CE mark of the last data packet, echoed as ECN-Echo in the next ACK (DCTCP flows ACK every packet,
    /// so each ACK echoes exactly the packet that caused it).
    pub ece: bool,
}

impl TcpReceiver {
    pub fn new(size: u64) -> Self {
        TcpReceiver {
            size,
            rcv_nxt: 0,
            ooo: Vec::new(),
            highest_seq: None,
            unacked_segments: 0,
            echo_ts: 0,
            delack_deadline: None,
            finish: None,
            stats: ReceiverStats::default(),
            ece: false,
            unit: 0,
        }
    }

    /// A receiver whose every segment is one whole packet (NDP's): packet i holds bytes [i x `unit`, min((i + 1)
    /// x `unit`, size)). It counts and acknowledges as `new`'s, but keeps the packets held above the first hole
    /// as one bit each, so a packet filling a hole costs one read instead of a search through the ranges
    /// (NDP's trims leave hundreds of holes).
    /// Packets larger than 65,535 bytes keep byte ranges.
    pub fn for_packets(size: u64, unit: u32) -> Self {
        TcpReceiver {
            unit: u16::try_from(unit).unwrap_or(0),
            ..Self::new(size)
        }
    }

    /// Whether packet `i` arrived (receivers of whole packets; meaningful at or above rcv_nxt only).
    #[inline]
    fn packet_held(&self, i: u64) -> bool {
        self.ooo.get((i / 128) as usize).is_some_and(|&(lo, hi)| {
            let b = i % 128;
            (if b < 64 { lo >> b } else { hi >> (b - 64) }) & 1 == 1
        })
    }

    fn hold_packet(&mut self, i: u64) {
        if self.ooo.is_empty() {
            let packets = self.size.div_ceil(self.unit as u64);
            self.ooo = vec![(0, 0); packets.div_ceil(128) as usize];
        }
        let (lo, hi) = &mut self.ooo[(i / 128) as usize];
        let b = i % 128;
        if b < 64 {
            *lo |= 1 << b;
        } else {
            *hi |= 1 << (b - 64);
        }
    }

    /// The first packet from `i` on that has not arrived (receivers of whole packets).
    fn first_missing(&self, mut i: u64) -> u64 {
        while let Some(&(lo, hi)) = self.ooo.get((i / 128) as usize) {
            let b = i % 128;
            let run = (((hi as u128) << 64 | lo as u128) >> b).trailing_ones() as u64;
            i += run;
            if b + run < 128 {
                break;
            }
        }
        i
    }

    fn holds(&self, seq: u64, end: u64) -> bool {
        // The ranges are sorted and disjoint, so the first ending at or after `end` starts before any later
        // one: [seq, end) is held if that range covers it (a binary search; NDP's trimmed packets leave
        // hundreds of holes, where a scan of the list was a cost per packet).
        end <= self.rcv_nxt || {
            // Most segments arrive above every range: the last range (one line) tells, before any search.
            if self.ooo.last().is_none_or(|&(_, e)| e < end) {
                return false;
            }
            let i = self.ooo.partition_point(|&(_, e)| e < end);
            self.ooo
                .get(i)
                .is_some_and(|&(s, _)| s <= seq.max(self.rcv_nxt))
        }
    }

    /// Add [seq, end) to the ranges held above the first hole, merging in place: this runs for every
    /// out-of-order or post-loss segment, so it must not allocate once the list has reached its peak size.
    fn insert_ooo(&mut self, seq: u64, end: u64) {
        // Most segments land beyond the last range or join it alone (the ranges before it end before its
        // start): no search then.
        if let Some(last) = self.ooo.last_mut() {
            if last.1 < seq {
                self.ooo.push((seq, end));
                return;
            }
            if last.0 <= seq {
                last.1 = last.1.max(end);
                return;
            }
        }
        // The ranges are sorted and disjoint, so their ends are sorted too: the first that can touch the new
        // one is the first ending at or after `seq`; every following one starting at or before `end` joins.
        let first = self.ooo.partition_point(|&(_, e)| e < seq);
        let (mut s, mut e) = (seq, end);
        let mut last = first;
        while let Some(&(rs, re)) = self.ooo.get(last) {
            if rs > end {
                break;
            }
            s = s.min(rs);
            e = e.max(re);
            last += 1;
        }
        if last == first {
            self.ooo.insert(first, (s, e));
        } else {
            self.ooo[first] = (s, e);
            self.ooo.drain(first + 1..last);
        }
    }

    /// A data packet arrived. Returns whether and when to acknowledge.
    pub fn on_data(
        &mut self,
        now: u64,
        seq: u64,
        len: u32,
        retx: bool,
        ts: u64,
        cfg: &TcpSpec,
    ) -> AckAction {
        let end = seq + len as u64;
        self.stats.packets_received += 1;
        // Out-of-order: a first transmission below the highest sequence number already seen on this flow.
        if !retx && self.highest_seq.is_some_and(|h| seq < h) {
            self.stats.ooo_packets += 1;
        }
        let unit = self.unit as u64;
        // Bytes held above the first hole: for whole packets, the highest packet seen is above it exactly then.
        let had_gap = if unit > 0 {
            self.highest_seq.is_some_and(|h| h >= self.rcv_nxt)
        } else {
            !self.ooo.is_empty()
        };
        self.highest_seq = Some(self.highest_seq.map_or(seq, |h| h.max(seq)));
        let duplicate = if unit > 0 {
            debug_assert!(seq.is_multiple_of(unit) && len as u64 == unit.min(self.size - seq));
            end <= self.rcv_nxt || self.packet_held(seq / unit)
        } else {
            self.holds(seq, end)
        };
        // A segment that arrives when its bytes are already held was sent twice: one of the copies is a
        // retransmission the receiver did not need. Counted whichever copy comes second, so an early
        // retransmission that overtakes its late original counts as well as a late retransmission.
        if duplicate {
            self.stats.spurious_retransmits += 1;
        }
        let in_order = seq <= self.rcv_nxt;
        if !duplicate && unit > 0 {
            if in_order {
                // The packets that arrived above it join it.
                let next = self.first_missing(seq / unit + 1);
                self.rcv_nxt = (next * unit).min(self.size);
            } else {
                self.hold_packet(seq / unit);
            }
        } else if !duplicate {
            if in_order {
                self.rcv_nxt = self.rcv_nxt.max(end);
                // The ranges the new in-order bytes reach join them, removed at once.
                let mut joined = 0;
                while let Some(&(s, e)) = self.ooo.get(joined) {
                    if s > self.rcv_nxt {
                        break;
                    }
                    self.rcv_nxt = self.rcv_nxt.max(e);
                    joined += 1;
                }
                if joined > 0 {
                    self.ooo.drain(..joined);
                }
            } else {
                self.insert_ooo(seq, end);
            }
        }
        if self.unacked_segments == 0 {
            self.echo_ts = ts;
        }
        self.unacked_segments += 1;
        if self.rcv_nxt >= self.size && self.finish.is_none() {
            self.finish = Some(now);
            return AckAction::Now;
        }
        if !cfg.delayed_ack || duplicate || !in_order || had_gap || self.unacked_segments >= 2 {
            return AckAction::Now;
        }
        let deadline = *self
            .delack_deadline
            .get_or_insert(now + cfg.delayed_ack_timeout_ps);
        AckAction::Delay(deadline)
    }

    /// Note the CE mark of a data packet before `on_data` (ECN-capable flows only).
    pub fn note_ce(&mut self, ce: bool) {
        self.ece = ce;
        self.stats.ecn_marks += ce as u64;
    }

    /// The ACK is being sent: returns (cumulative ack, echoed timestamp).
    pub fn take_ack(&mut self) -> (u64, u64) {
        self.unacked_segments = 0;
        self.delack_deadline = None;
        self.stats.acks_sent += 1;
        (self.rcv_nxt, self.echo_ts)
    }

    /// Distinct payload bytes received (in order and above the first hole).
    pub fn bytes_received(&self) -> u64 {
        let unit = self.unit as u64;
        if unit > 0 {
            let above = (self.rcv_nxt.div_ceil(unit)..self.size.div_ceil(unit))
                .filter(|&i| self.packet_held(i))
                .map(|i| unit.min(self.size - i * unit))
                .sum::<u64>();
            return self.rcv_nxt + above;
        }
        self.rcv_nxt + self.ooo.iter().map(|&(s, e)| e - s).sum::<u64>()
    }

    /// The receiver's counters as a flow's result row (the sender's counters and trims are the caller's).
    pub fn row(&self) -> FlowRow {
        let s = &self.stats;
        FlowRow {
            finish_ps: self.finish.unwrap_or(u64::MAX),
            bytes_received: self.bytes_received(),
            packets_received: s.packets_received,
            data_packets_sent: 0,
            retransmits: 0,
            spurious_retransmits: s.spurious_retransmits,
            ooo_packets: s.ooo_packets,
            fast_retransmits: 0,
            timeouts: 0,
            acks_sent: s.acks_sent,
            ecn_marks: s.ecn_marks,
            trims: 0,
            highest_seq: self.highest_seq.unwrap_or(0),
            acked_ps: u64::MAX,
        }
    }
}

/// A data packet for a flow already folded into its row, whose receiver held every byte (and had acknowledged
/// them): counted as `TcpReceiver::on_data` counts a segment it already holds (a spurious copy, out of order if
/// a first transmission below the highest sequence number seen), which it acknowledges at once. Returns the
/// ACK's cumulative sequence number; the ACK echoes the packet's own send time and CE mark, and counts in
/// `acks_sent` when the caller sends it.
pub fn on_held_data(row: &mut FlowRow, seq: u64, retx: bool) -> u64 {
    row.packets_received += 1;
    if !retx && seq < row.highest_seq {
        row.ooo_packets += 1;
    }
    row.highest_seq = row.highest_seq.max(seq);
    row.spurious_retransmits += 1;
    row.bytes_received
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> TcpSpec {
        TcpSpec {
            mss: 1000,
            initial_window: 4,
            max_window_bytes: 1 << 20,
            ..TcpSpec::default()
        }
    }

    #[test]
    fn a_single_loss_triggers_fast_retransmit_then_recovery_ends() {
        let c = cfg();
        let mut s = TcpSender::new(100_000, &c);
        let mut out = Vec::new();
        s.fill_window(0, &c, &mut out);
        assert_eq!(out.len(), 4);
        // Segment 0 is lost; segments 1..3 each produce a duplicate ACK for 0.
        out.clear();
        s.on_ack(10, 0, 0, &c, &mut out);
        s.on_ack(11, 0, 0, &c, &mut out);
        assert!(out.is_empty() && !s.in_recovery());
        s.on_ack(12, 0, 0, &c, &mut out);
        assert_eq!(
            out[0],
            Segment {
                seq: 0,
                len: 1000,
                retx: true
            }
        );
        assert!(s.in_recovery());
        assert_eq!(s.stats.fast_retransmits, 1);
        assert_eq!(s.ssthresh(), 2000); // max(flight / 2, 2 MSS) with 4 segments in flight
                                        // The retransmission fills the hole: the ACK covers everything sent before recovery began.
        out.clear();
        s.on_ack(20, 4000, 12, &c, &mut out);
        assert!(!s.in_recovery());
        assert_eq!(s.cwnd(), 2000);
        assert_eq!(s.stats.timeouts, 0);
    }

    #[test]
    fn adaptive_detection_undoes_a_spurious_fast_retransmit_and_raises_the_threshold() {
        for mode in [LossDetection::Dupack, LossDetection::Adaptive] {
            let c = TcpSpec {
                loss_detection: mode,
                ..cfg()
            };
            let mut s = TcpSender::new(100_000, &c);
            let mut out = Vec::new();
            s.fill_window(0, &c, &mut out); // 4 segments sent at t = 0
            let cwnd = s.cwnd();
            // Segment 0 is reordered behind 1..3: three duplicate ACKs, a fast retransmission at t = 12.
            for t in 10..13 {
                s.on_ack(t, 0, 0, &c, &mut out);
            }
            assert_eq!(s.stats.fast_retransmits, 1);
            // The original arrives before the retransmission: the ACK echoes its send time 0 < 12.
            s.on_ack(20, 4000, 0, &c, &mut out);
            if mode == LossDetection::Adaptive {
                assert_eq!(s.stats.undone_retransmits, 1);
                assert_eq!(
                    s.dupthresh(),
                    4,
                    "three duplicate ACKs were reordering: wait for four"
                );
                assert!(s.cwnd() >= cwnd, "the reduction is undone");
            } else {
                assert_eq!((s.stats.undone_retransmits, s.dupthresh()), (0, 3));
                assert_eq!(s.cwnd(), 2000);
            }
        }
        // A real loss: the ACK echoes the retransmission's own send time; nothing is undone.
        let c = TcpSpec {
            loss_detection: LossDetection::Adaptive,
            ..cfg()
        };
        let mut s = TcpSender::new(100_000, &c);
        let mut out = Vec::new();
        s.fill_window(0, &c, &mut out);
        for t in 10..13 {
            s.on_ack(t, 0, 0, &c, &mut out);
        }
        s.on_ack(20, 4000, 12, &c, &mut out);
        assert_eq!(
            (s.stats.undone_retransmits, s.dupthresh(), s.cwnd()),
            (0, 3, 2000)
        );
    }

    #[test]
    fn losing_a_whole_window_ends_in_a_timeout_and_go_back_n() {
        let c = cfg();
        let mut s = TcpSender::new(100_000, &c);
        let mut out = Vec::new();
        s.fill_window(0, &c, &mut out);
        let deadline = s.rto_deadline.expect("timer armed with data in flight");
        assert_eq!(deadline, c.initial_rto_ps);
        out.clear();
        s.on_timeout(deadline, &c, &mut out);
        assert_eq!(s.stats.timeouts, 1);
        assert_eq!(s.cwnd(), 1000);
        assert_eq!(
            out,
            vec![Segment {
                seq: 0,
                len: 1000,
                retx: true
            }]
        );
        // Back-off doubles the timeout.
        assert_eq!(s.rto_deadline, Some(deadline + 2 * c.initial_rto_ps));
    }

    #[test]
    fn out_of_order_ranges_merge_like_a_set_of_bytes() {
        // Segments of varied lengths at varied offsets, some overlapping, touching or spanning several held
        // ranges; after each, the receiver's ranges must be exactly the maximal runs of bytes held.
        let size = 400u64;
        let mut r = TcpReceiver::new(size);
        let mut held = vec![false; size as usize];
        let mut x = 12345u64;
        for _ in 0..300 {
            x = crate::rng::mix64(x);
            let seq = 10 + x % 380; // byte 0..10 never arrives: everything stays above the first hole
            let len = 1 + (x >> 32) % 25;
            let end = (seq + len).min(size);
            r.insert_ooo(seq, end);
            held[seq as usize..end as usize]
                .iter_mut()
                .for_each(|b| *b = true);
            let mut runs = Vec::new();
            let mut i = 0;
            while i < held.len() {
                if held[i] {
                    let s = i;
                    while i < held.len() && held[i] {
                        i += 1;
                    }
                    runs.push((s as u64, i as u64));
                }
                i += 1;
            }
            assert_eq!(r.ooo, runs);
            // `holds` (a binary search over the ranges) says whether every byte of a segment is held.
            let q = 10 + (x >> 16) % 380;
            let q_end = (q + 1 + (x >> 48) % 30).min(size);
            assert_eq!(
                r.holds(q, q_end),
                held[q as usize..q_end as usize].iter().all(|&b| b),
                "[{q}, {q_end})"
            );
        }
    }

    #[test]
    fn a_receiver_of_whole_packets_counts_as_one_of_byte_ranges() {
        // Packets of 100 bytes (the last 37) arriving in random order, with copies, retransmissions and runs
        // that fill several holes at once: after each, the packet receiver's books, ACK and answer must be the
        // byte-range receiver's.
        for (seed, delayed_ack) in [(1u64, false), (2, true), (3, false)] {
            let c = TcpSpec {
                delayed_ack,
                ..cfg()
            };
            let size = 100 * 299 + 37;
            let mut bytes = TcpReceiver::new(size);
            let mut packets = TcpReceiver::for_packets(size, 100);
            let mut x = seed;
            let mut t = 0;
            while packets.finish.is_none() {
                x = crate::rng::mix64(x);
                // Mostly near the first hole, sometimes anywhere: holes open and close.
                let first = packets.rcv_nxt / 100;
                let i = if x % 4 == 0 {
                    (x >> 8) % 300
                } else {
                    (first + (x >> 8) % 20).min(299)
                };
                let (seq, len) = (i * 100, 100.min(size - i * 100) as u32);
                let retx = (x >> 40) % 5 == 0;
                t += 1;
                let a = bytes.on_data(t, seq, len, retx, t, &c);
                assert_eq!(packets.on_data(t, seq, len, retx, t, &c), a, "packet {i}");
                assert_eq!(packets.rcv_nxt, bytes.rcv_nxt, "packet {i}");
                assert_eq!(packets.bytes_received(), bytes.bytes_received());
                assert_eq!(packets.row(), bytes.row());
                if a == AckAction::Now {
                    assert_eq!(packets.take_ack(), bytes.take_ack());
                }
            }
            assert_eq!(bytes.finish, packets.finish);
            assert!(packets.stats.spurious_retransmits > 0 && packets.stats.ooo_packets > 0);
        }
    }

    #[test]
    fn receiver_counts_reordering_and_spurious_retransmissions_apart() {
        let c = TcpSpec {
            delayed_ack: true,
            ..cfg()
        };
        let mut r = TcpReceiver::new(4000);
        assert_eq!(
            r.on_data(0, 0, 1000, false, 0, &c),
            AckAction::Delay(c.delayed_ack_timeout_ps)
        );
        assert_eq!(r.on_data(1, 2000, 1000, false, 0, &c), AckAction::Now); // a gap: ACK at once
        assert_eq!(r.on_data(2, 1000, 1000, false, 0, &c), AckAction::Now); // first transmission, late
        assert_eq!(r.stats.ooo_packets, 1);
        assert_eq!(r.rcv_nxt, 3000);
        r.on_data(3, 1000, 1000, true, 0, &c); // a retransmission of data already held
        assert_eq!(r.stats.spurious_retransmits, 1);
        assert_eq!(
            r.stats.ooo_packets, 1,
            "retransmissions are never counted as out-of-order"
        );
        assert_eq!(r.on_data(4, 3000, 1000, false, 0, &c), AckAction::Now);
        assert_eq!(r.finish, Some(4));
        assert_eq!(r.bytes_received(), 4000);
    }

    #[test]
    fn a_folded_receiver_counts_late_copies_as_the_receiver_would() {
        // A flow whose receiver holds every byte is folded into its row; copies that arrive after that (late
        // originals, late retransmissions) must change the row exactly as the receiver itself would have.
        for delayed_ack in [false, true] {
            let c = TcpSpec {
                delayed_ack,
                ..cfg()
            };
            let mut r = TcpReceiver::new(4000);
            for (t, seq) in [(0, 0), (1, 2000), (2, 1000), (3, 3000)] {
                if r.on_data(t, seq, 1000, seq == 1000, t, &c) == AckAction::Now {
                    r.take_ack();
                }
            }
            assert_eq!(r.finish, Some(3));
            let mut row = r.row();
            for (t, seq, retx) in [
                (4, 1000, false),
                (5, 0, true),
                (6, 3000, false),
                (7, 2000, false),
            ] {
                assert_eq!(r.on_data(t, seq, 1000, retx, t, &c), AckAction::Now);
                let (ack, echo) = r.take_ack();
                assert_eq!((on_held_data(&mut row, seq, retx), echo), (ack, t));
                row.acks_sent += 1;
                assert_eq!(row, r.row());
            }
            assert!(row.ooo_packets >= 2 && row.spurious_retransmits == 4);
        }
    }

    #[test]
    fn an_early_retransmission_counts_as_spurious_when_its_late_original_arrives() {
        // The sender retransmits segment 1000 early; the retransmission arrives first and fills the hole,
        // then the original (delayed on a longer path) arrives: the segment came twice, one copy unneeded.
        let c = cfg();
        let mut r = TcpReceiver::new(3000);
        r.on_data(0, 0, 1000, false, 0, &c);
        r.on_data(1, 2000, 1000, false, 0, &c);
        r.on_data(2, 1000, 1000, true, 5, &c);
        assert_eq!(
            r.stats.spurious_retransmits, 0,
            "not known yet: the original may have been lost"
        );
        r.on_data(3, 1000, 1000, false, 0, &c);
        assert_eq!(r.stats.spurious_retransmits, 1);
        assert_eq!(
            r.stats.ooo_packets, 1,
            "the late original is also out of order"
        );
        assert_eq!(r.bytes_received(), 3000);
    }
}
