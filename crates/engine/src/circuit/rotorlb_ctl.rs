//! RotorLB's negotiation in the circuit simulator (seed 001 Algorithm 1): an uplink's offer at a slot's start,
//! the relay's accept once every offer of the slot is in (the sharing itself is `circuit::rotorlb::accept`),
//! and the relay budget an accept gives the offering uplink.

use super::{CPacket, CircuitSim, Kind, Msg};
use crate::circuit::rotorlb::{accept, Offer};
use crate::circuit::spec::CircuitRouting;

impl CircuitSim<'_> {
    pub(super) fn send_offer(&mut self, port: u32) {
        let Some(peer) = self.ports[port as usize].peer else {
            return;
        };
        let e = port / self.s;
        let (ws, we) = (
            self.ports[port as usize].win_start,
            self.ports[port as usize].win_end,
        );
        let cap = self.window_payload(we - ws);
        let stored = self.held[(e * self.n + peer) as usize];
        let direct = self.pair_available(e, peer);
        let capacity = cap.saturating_sub(stored).saturating_sub(direct);
        let mut bytes = vec![0u64; self.n as usize];
        for d in 0..self.n {
            if d != e && d != peer {
                let avail = self.pair_available(e, d);
                bytes[d as usize] = avail.min(cap);
            }
        }
        if capacity == 0 || bytes.iter().all(|&b| b == 0) {
            return; // nothing to offer: the peer expects no offer from an uplink that sends none (see below)
        }
        let slot_start = self.ports[port as usize].slot_start;
        let msg = self.new_msg(Msg {
            slot_start,
            offer: Offer { bytes, capacity },
            accepted: Vec::new(),
        });
        self.push_control(port, Kind::Offer, peer, msg);
    }

    pub(super) fn push_control(&mut self, port: u32, kind: Kind, to: u32, msg: u32) {
        let p = &self.spec.packet;
        let wire = p.control_bytes + p.frame_overhead_bytes;
        let id = self.alloc(CPacket {
            msg,
            hop: 0,
            ..CPacket::of_flow(kind, u32::MAX, to, wire, 0, 0, self.now)
        });
        self.ports[port as usize].control.push_back(id);
        self.wake(port);
    }

    /// Phase 2 at relay `r`: once every neighbour that will offer in this slot has, accept for all of them.
    pub(super) fn maybe_accept(&mut self, r: u32, msg: u32) {
        let slot_start = self.msgs[msg as usize].as_ref().expect("alive").slot_start;
        let mine: Vec<(u32, u32)> = self.mailbox[r as usize]
            .iter()
            .copied()
            .filter(|(m, _)| {
                self.msgs[*m as usize]
                    .as_ref()
                    .is_some_and(|x| x.slot_start == slot_start)
            })
            .collect();
        // Neighbours that will offer: the peers of r's uplinks in this slot whose own offer was non-empty. We
        // cannot know the latter at r without a message, so every uplink of a peer offers or is silent, and
        // r waits for the offers of the peers it can see; silent peers are learnt from the other offers' time:
        // all offers of one slot are sent at its start and travel the same delay, so they arrive together.
        let expected = (0..self.s)
            .filter(|&sw| {
                let ps = &self.ports[(r * self.s + sw) as usize];
                ps.peer.is_some() && ps.slot_start == slot_start
            })
            .count();
        let pending_same_time = mine.len() < expected && self.events_pending_offer(r, slot_start);
        if pending_same_time {
            return;
        }
        self.mailbox[r as usize].retain(|(m, _)| !mine.iter().any(|(x, _)| x == m));
        let ws = self.ports[mine[0].1 as usize].win_start;
        let we = self.ports[mine[0].1 as usize].win_end;
        let slot_bytes = self.window_payload(we - ws);
        // Room per destination: one window's worth less what r already queues for it, relayed and its own
        // (seed 001 Algorithm 1: a relay never takes on more for d than one slot to d can carry).
        let room: Vec<u64> = (0..self.n)
            .map(|d| {
                let queued = self.held[(r * self.n + d) as usize] + self.pair_available(r, d);
                slot_bytes.saturating_sub(queued)
            })
            .collect();
        let offers: Vec<Offer> = mine
            .iter()
            .map(|(m, _)| {
                self.msgs[*m as usize]
                    .as_ref()
                    .expect("alive")
                    .offer
                    .clone()
            })
            .collect();
        let acc = accept(&room, &offers);
        for ((m, port), accepted) in mine.into_iter().zip(acc) {
            let sender = self.ports[port as usize]
                .peer
                .expect("an uplink that got an offer is up");
            let msg = self.msgs[m as usize].as_mut().expect("alive");
            msg.accepted = accepted;
            self.push_control(port, Kind::Accept, sender, m);
        }
    }

    /// Is another offer for relay `r` of the slot starting at `slot_start` still on its way?
    pub(super) fn events_pending_offer(&self, r: u32, slot_start: i128) -> bool {
        (0..self.s).any(|sw| {
            let peer_port = |p: u32| p * self.s + sw;
            let ps = &self.ports[(r * self.s + sw) as usize];
            let Some(peer) = ps.peer else { return false };
            if ps.slot_start != slot_start {
                return false;
            }
            let pp = &self.ports[peer_port(peer) as usize];
            pp.control
                .iter()
                .any(|&c| self.pkts[c as usize].kind == Kind::Offer)
                || pp
                    .pipe
                    .iter()
                    .any(|&(_, id, _)| self.pkts[id as usize].kind == Kind::Offer)
        })
    }

    /// RotorLB negotiates on this run (RotorLB itself, or Opera's bulk traffic).
    #[inline]
    pub(super) fn balances(&self) -> bool {
        matches!(
            self.spec.routing,
            CircuitRouting::Rotorlb | CircuitRouting::Opera
        )
    }

    /// An offer reached relay `to` over its uplink on switch `sw`: kept until every offer of its slot is in.
    pub(super) fn offer_arrived(&mut self, id: u32, to: u32, sw: u32) {
        let pk = self.pkts[id as usize];
        self.release(id);
        self.control_received += 1;
        self.mailbox[to as usize].push((pk.msg, to * self.s + sw));
        self.maybe_accept(to, pk.msg);
    }

    /// An accept came back to `to` over its uplink on switch `sw`: that uplink's relay budget for this slot.
    pub(super) fn accept_arrived(&mut self, id: u32, to: u32, sw: u32) {
        let pk = self.pkts[id as usize];
        self.release(id);
        self.control_received += 1;
        let m = self.take_msg(pk.msg);
        let my_port = to * self.s + sw;
        let ps = &mut self.ports[my_port as usize];
        if ps.slot_start == m.slot_start && ps.peer.is_some() {
            ps.relay_budget = m
                .accepted
                .iter()
                .enumerate()
                .filter(|(_, &b)| b > 0)
                .map(|(d, &b)| (d as u32, b))
                .collect();
            self.wake(my_port);
        }
    }
}
