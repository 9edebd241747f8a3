//! A packet is a plain struct kept in a pool and passed around as a u32 index: no allocation per packet once
//! the pool has grown to the number of packets alive at once.

use crate::hugevec::HugeVec;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketKind {
    TcpData,
    TcpAck,
    Udp,
    /// NDP (crate::ndp): a full data packet, a data packet trimmed to its header by a switch, and the
    /// receiver's control packets. All but full data go at high priority.
    NdpData,
    NdpHeader,
    NdpAck,
    NdpNack,
    NdpPull,
}

#[derive(Debug, Clone, Copy)]
pub struct Packet {
    pub kind: PacketKind,
    /// Index of the flow this packet belongs to (data and ACKs alike).
    pub flow: u32,
    /// Destination host as an index into the host table (routing key).
    pub dst_host: u32,
    /// Bytes on the wire (payload + headers + frame overhead).
    pub wire_bytes: u32,
    /// Payload bytes (0 for a pure ACK).
    pub payload: u32,
    /// First payload byte's sequence number (data), or cumulative ACK (ACK).
    pub seq: u64,
    /// Data: send time; ACK: the echoed send time of the data packet that caused it.
    pub ts: u64,
    /// Per-flow, per-direction hash for ECMP.
    pub flow_hash: u64,
    /// A data packet sent again (not its first transmission).
    pub retx: bool,
    /// ECN-capable transport (DCTCP data): a switch may mark it instead of queueing it deeper.
    pub ect: bool,
    /// Data: Congestion Experienced (marked by a switch); ACK: ECN-Echo.
    pub ce: bool,
}

#[derive(Debug, Default)]
pub struct PacketPool {
    /// On 2 MB pages when large (crate::hugevec): a delivery reads a packet at a random place in it.
    slots: HugeVec<Packet>,
    free: Vec<u32>,
    live: u64,
}

impl PacketPool {
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> u32 {
        self.live += 1;
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = p;
            i
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as u32
        }
    }

    #[inline]
    pub fn get(&self, i: u32) -> &Packet {
        &self.slots[i as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, i: u32) -> &mut Packet {
        &mut self.slots[i as usize]
    }

    /// Ask for packet `i`'s cache line ahead of its use (a hint; an index past the pool is ignored).
    #[inline(always)]
    pub fn prefetch(&self, i: u32) {
        if let Some(p) = self.slots.get(i as usize) {
            crate::port::prefetch(p);
        }
    }

    #[inline]
    pub fn release(&mut self, i: u32) {
        self.live -= 1;
        self.free.push(i);
    }

    /// Packets allocated and not yet released.
    pub fn live(&self) -> u64 {
        self.live
    }

    /// Most packets ever alive at once.
    pub fn capacity_used(&self) -> usize {
        self.slots.len()
    }
}
