//! TCP on the circuit simulator's low-latency class: a flow's start, segments queued at the source, ACKs sent
//! at once and acted on at the source, the retransmission timer. The sender and receiver are the packet
//! engine's (`crate::tcp`).

use super::{CPacket, CircuitSim, Kind};
use crate::event::EventKind;
use crate::tcp::Segment;

impl CircuitSim<'_> {
    /// A TCP flow starts: its first window of segments onto the low-latency path.
    pub(super) fn tcp_start(&mut self, f: u32) {
        let now = self.now;
        let mut segs = Vec::new();
        let tcp = self.tcp.clone();
        self.flows[f as usize].sender.as_mut().expect("tcp").fill_window(now, &tcp, &mut segs);
        self.send_segments(f, &segs);
    }

    /// Flow `f`'s receiver acknowledges at once (our choice: no delayed ACKs on circuits); the ACK travels the
    /// low-latency class back to the source.
    pub(super) fn acknowledge(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        let (ack, echo) = fl.receiver.take_ack();
        let wire = self.tcp.header_bytes + self.spec.packet.frame_overhead_bytes;
        let src = self.ends[f as usize].0;
        let ack_id = self.alloc(CPacket {
            kind: Kind::Ack,
            flow: f,
            dst: src,
            wire_bytes: wire,
            payload: 0,
            seq: ack,
            ts: echo,
            msg: 0,
            relayed: false,
            hop: 1,
            ll: true,
            retx: false,
        });
        self.emit(self.spec.flows[f as usize].dst, ack_id);
    }

    /// A TCP ACK reached its flow's source (endpoint or host).
    pub(super) fn ack_at_source(&mut self, id: u32) {
        let pk = self.pkts[id as usize];
        self.release(id);
        self.control_received += 1;
        let now = self.now;
        let tcp = self.tcp.clone();
        let mut segs = Vec::new();
        if let Some(s) = self.flows[pk.flow as usize].sender.as_mut() {
            let was_done = s.done();
            s.on_ack(now, pk.seq, pk.ts, &tcp, &mut segs);
            if s.done() && !was_done {
                self.unsent -= 1;
            }
        }
        self.send_segments(pk.flow, &segs);
    }

    /// Queue a TCP flow's segments at its source on the current slice's paths and keep its timer armed.
    pub(super) fn send_segments(&mut self, f: u32, segs: &[Segment]) {
        let src = self.spec.flows[f as usize].src;
        let dst = self.ends[f as usize].1;
        let hdr = self.tcp.header_bytes + self.spec.packet.frame_overhead_bytes;
        for seg in segs {
            let h = &mut self.hot[f as usize];
            h.packets_sent += 1;
            h.sent = h.sent.max(seg.seq + seg.len as u64);
            let id = self.alloc(CPacket {
                kind: Kind::Data,
                flow: f,
                dst,
                wire_bytes: seg.len + hdr,
                payload: seg.len,
                seq: seg.seq,
                ts: self.now,
                msg: 0,
                relayed: false,
                hop: 1,
                ll: true,
                retx: seg.retx,
            });
            self.emit(src, id);
        }
        let fl = &mut self.flows[f as usize];
        if let Some(d) = fl.sender.as_ref().and_then(|s| s.rto_deadline) {
            if fl.rto_pending.is_none_or(|p| p > d) {
                fl.rto_pending = Some(d);
                self.events.push(d, EventKind::RtoTimer, f);
            }
        }
    }

    pub(super) fn rto_timer(&mut self, f: u32) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        fl.rto_pending = None;
        let Some(sender) = fl.sender.as_mut() else { return };
        let mut segs = Vec::new();
        match sender.rto_deadline {
            Some(d) if d <= now => {
                let tcp = self.tcp.clone();
                sender.on_timeout(now, &tcp, &mut segs);
                self.send_segments(f, &segs);
            }
            Some(_) => self.send_segments(f, &segs), // moved later: re-arm
            None => {}
        }
    }
}
