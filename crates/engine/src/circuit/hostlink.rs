//! Hosts on a circuit fabric: each host's full-duplex link to its endpoint's ToR, both directions the packet
//! engine's ports (`crate::port::Port`: a drop-tail FIFO, a serialiser and a pipe), plus the per-host
//! counters and windows a host power model prices (the packet engine's `host_*` series).
//!
//! Two ways onto a host's NIC (docs/circuit-engine.md, "Hosts"):
//! - pushed: TCP segments and ACKs, and flows between hosts of one rack, are offered to the NIC when the host
//!   makes them; they queue (drop-tail, `nic_queue`), serialise and cross the link to the ToR by event.
//! - pulled: a datagram that a ToR uplink sends over a circuit leaves its host's NIC just in time to reach the
//!   ToR when the uplink hands it over (hosts know the schedule and send into it, seed 001 lines 600-602:
//!   endhosts cannot "fire and forget" into a circuit fabric, they must know when and where to send). The NIC
//!   still serialises one packet at a time: a host's packet can be handed over at `now` only if its NIC was
//!   free to send it by `now - delay - serialisation` (`ready_at`), so a host never sends above its link rate.
//!   Pulled packets are never queued on the NIC (nothing is sent that the ToR cannot forward at once).
//!
//! The ToR's port down to a host is pushed by every packet arriving for the host: from a circuit, or from
//! another host of the rack. Its queue is `tor_queue`; an overflow is a drop, counted per host and in the
//! summary (`host_link_drops`), and conserved like every other drop. NDP's packets take the packet engine's
//! lanes on both directions: headers, ACKs, NACKs and pulls ahead of data, and at the ToR's port (a switch's)
//! NDP data meeting `ndp.queue` of data is trimmed to its header (`down_full`, counted per host).

use crate::port::{Admission, InFlight, Port, MAX_WINDOWS};
use crate::spec::QueueLimit;
use crate::units::SerClock;

use super::results::CircuitHostResult;
use super::spec::HostsSpec;

pub(crate) struct HostLinks {
    pub per: u32,
    pub delay_ps: u64,
    clock: SerClock,
    /// Host h's NIC towards its ToR.
    pub up: Vec<Port>,
    /// The ToR's port down to host h.
    pub down: Vec<Port>,
    /// Per host: data payload bytes and packets (data and ACKs) delivered to it.
    rx_payload: Vec<u64>,
    rx_packets: Vec<u64>,
    rx_bytes: Vec<u64>,
    /// Per host: NDP data packets trimmed at the ToR's port down to it.
    tor_trims: Vec<u64>,
    /// Per host and window: [packets sent, bytes sent, packets received, bytes received] (wire bytes).
    windows: Vec<Vec<[u64; 4]>>,
    pub window_ps: u64,
    pub windows_overflowed: bool,
}

impl HostLinks {
    pub fn new(spec: &HostsSpec, endpoints: u32, window_ps: u64) -> Self {
        let count = endpoints * spec.per_endpoint;
        let port = |limit: Option<QueueLimit>, h: u32| {
            Port::new(
                h,
                h / spec.per_endpoint,
                h,
                spec.rate_bps,
                spec.delay_ps,
                limit,
            )
        };
        HostLinks {
            per: spec.per_endpoint,
            delay_ps: spec.delay_ps,
            clock: SerClock::new(spec.rate_bps),
            up: (0..count).map(|h| port(spec.nic_queue, h)).collect(),
            down: (0..count).map(|h| port(spec.tor_queue, h)).collect(),
            rx_payload: vec![0; count as usize],
            rx_packets: vec![0; count as usize],
            rx_bytes: vec![0; count as usize],
            tor_trims: vec![0; count as usize],
            windows: vec![Vec::new(); if window_ps > 0 { count as usize } else { 0 }],
            window_ps,
            windows_overflowed: false,
        }
    }

    /// The endpoint (rack, ToR) of host `h`.
    #[inline]
    pub fn rack(&self, h: u32) -> u32 {
        h / self.per
    }

    /// Serialisation time of `wire` bytes on a host link.
    #[inline]
    pub fn ser(&self, wire: u32) -> u64 {
        self.clock.time_ps(wire as u64)
    }

    /// The earliest time a pulled packet of `wire` bytes from host `h` can be at its ToR: the NIC's next free
    /// moment, plus the packet's serialisation and the link's delay.
    #[inline]
    pub fn ready_at(&self, h: u32, wire: u32) -> u64 {
        self.up[h as usize].free_at() + self.ser(wire) + self.delay_ps
    }

    /// Send a pulled packet of host `h` so that it reaches the ToR at `now` (the caller checked `ready_at`).
    pub fn pull(&mut self, h: u32, wire: u32, now: u64) {
        let ser = self.ser(wire);
        let finish = now - self.delay_ps;
        self.up[h as usize].send_ending_at(finish, wire);
        self.count(h, 0, finish - ser, wire);
    }

    /// Offer a packet made by host `h` at `now` to its NIC: its arrival at the ToR, or None (dropped). A
    /// `prio` packet (NDP's headers, ACKs, NACKs and pulls) goes ahead of waiting data and is never dropped,
    /// as at the packet engine's ports (`Port::offer_priority`).
    pub fn push_up(
        &mut self,
        h: u32,
        pkt: u32,
        wire: u32,
        now: u64,
        prio: bool,
    ) -> Option<(u64, bool)> {
        let admitted = Self::offer(&mut self.up[h as usize], h, pkt, wire, now, prio);
        if admitted.is_some() {
            self.count(h, 0, now, wire);
        }
        admitted
    }

    /// Offer a packet that reached host `h`'s ToR at `now` to the ToR's port down to the host: its arrival
    /// at the host (it enters the port's pipe and arrives by event), or None (dropped). `prio` as `push_up`.
    pub fn push_down(
        &mut self,
        h: u32,
        pkt: u32,
        wire: u32,
        now: u64,
        prio: bool,
    ) -> Option<(u64, bool)> {
        Self::offer(&mut self.down[h as usize], h, pkt, wire, now, prio)
    }

    /// One host link's port (either direction) offered a packet for host `h`: (arrival, pipe was empty), or
    /// None when dropped.
    fn offer(
        port: &mut Port,
        h: u32,
        pkt: u32,
        wire: u32,
        now: u64,
        prio: bool,
    ) -> Option<(u64, bool)> {
        let entry = InFlight {
            arrival: 0,
            pkt,
            dst_host: h,
            wire_bytes: wire,
            flow_hash: 0,
        };
        let a = if prio {
            port.offer_priority(now, entry, 0)
        } else {
            port.offer(now, entry, 0)
        };
        match a {
            Admission::Dropped => None,
            Admission::Accepted {
                arrival,
                pipe_was_empty,
            } => Some((arrival, pipe_was_empty)),
            Admission::Held { .. } => unreachable!("EEE is refused on circuit fabrics"),
        }
    }

    /// Does the ToR's port down to host `h` hold `limit` of data at `now` (NDP's trimming threshold, data
    /// only: waiting headers and control do not count), so that NDP data of `wire` bytes must be trimmed?
    /// As the packet engine's switches decide (`sim.rs`, `forward_special`).
    pub fn down_full(&mut self, h: u32, now: u64, limit: QueueLimit, wire: u32) -> bool {
        let port = &mut self.down[h as usize];
        let (held, prio) = port.occupancy(now);
        match limit {
            QueueLimit::Packets(n) => held - prio >= n,
            QueueLimit::Bytes(b) => port.held_bytes() + wire as u64 > b,
        }
    }

    /// NDP data trimmed at the ToR's port down to host `h`.
    pub fn trimmed(&mut self, h: u32) {
        self.tor_trims[h as usize] += 1;
    }

    /// A packet of `wire` bytes (`payload` of them data) reached host `h` at `at`.
    pub fn received(&mut self, h: u32, wire: u32, payload: u32, at: u64) {
        self.rx_payload[h as usize] += payload as u64;
        self.rx_packets[h as usize] += 1;
        self.rx_bytes[h as usize] += wire as u64;
        self.count(h, 2, at, wire);
    }

    /// Packets dropped on host links (NIC queues and ToR down ports).
    pub fn drops(&self) -> u64 {
        self.up
            .iter()
            .chain(&self.down)
            .map(|p| p.counters.drops)
            .sum()
    }

    /// Packets on a host link (in a pipe: they arrive by event) and the earliest such arrival.
    pub fn in_pipes(&self) -> (u64, Option<u64>) {
        let ports = self.up.iter().chain(&self.down);
        let n = ports.clone().map(|p| p.pipe_len() as u64).sum();
        (
            n,
            ports
                .filter_map(|p| p.pipe_front().map(|e| e.arrival))
                .min(),
        )
    }

    fn count(&mut self, h: u32, at: usize, time: u64, wire: u32) {
        let Some(w) = time.checked_div(self.window_ps) else {
            return;
        };
        if w >= MAX_WINDOWS {
            self.windows_overflowed = true;
            return;
        }
        let row = &mut self.windows[h as usize];
        if row.len() <= w as usize {
            row.resize(w as usize + 1, [0; 4]);
        }
        row[w as usize][at] += 1;
        row[w as usize][at + 1] += wire as u64;
    }

    /// Windows per host, padded to `width`: (packets sent, bytes sent, packets received, bytes received).
    pub fn series(&self, width: usize) -> [Vec<Vec<u64>>; 4] {
        let col = |at: usize| -> Vec<Vec<u64>> {
            self.windows
                .iter()
                .map(|r| (0..width).map(|w| r.get(w).map_or(0, |c| c[at])).collect())
                .collect()
        };
        [col(0), col(1), col(2), col(3)]
    }

    pub fn width(&self) -> usize {
        self.windows.iter().map(|r| r.len()).max().unwrap_or(0)
    }

    pub fn results(&self) -> Vec<CircuitHostResult> {
        (0..self.up.len())
            .map(|h| {
                let (u, d) = (&self.up[h].counters, &self.down[h].counters);
                CircuitHostResult {
                    host: h as u32,
                    endpoint: h as u32 / self.per,
                    bytes_sent: u.bytes_sent,
                    packets_sent: u.packets_sent,
                    busy_ps: u.busy_ps,
                    nic_drops: u.drops,
                    peak_nic_queue_packets: u.peak_queue_packets,
                    bytes_received: self.rx_bytes[h],
                    packets_received: self.rx_packets[h],
                    payload_bytes_received: self.rx_payload[h],
                    rx_busy_ps: d.busy_ps,
                    tor_drops: d.drops,
                    tor_trims: self.tor_trims[h],
                    peak_tor_queue_packets: d.peak_queue_packets,
                }
            })
            .collect()
    }
}
