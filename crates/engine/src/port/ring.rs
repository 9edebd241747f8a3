//! The pipes' rings: every port's pipe entries after its head live in a fixed block of `RING` entries, and
//! all the blocks in one allocation on 2 MB pages (`PipeArena`); a pipe longer than its head and ring keeps
//! its newest entries in the port's own `VecDeque` until the ring has room again.
//!
//! Profiles of a k = 32 fat-tree had the read of the pipe's next entry as the largest stall of the loop: it
//! sat in the port's own `VecDeque` buffer, at an address known only once the port's line was in, on 4 kB
//! pages. A ring block's place is fixed by the port's index, so the entry that becomes the head at a port's
//! next arrival has an address known when that arrival event is pushed: the event carries it (`slot`), and
//! the loop asks for it one event ahead together with the port. Only where entries sit changes, never their
//! order: results are the same bit for bit.

use super::{InFlight, Port};
use crate::hugevec::HugeVec;

/// Entries a port's ring holds (a power of two; our choice: 32 x 24 bytes, 12 cache lines per port, 37.7 MB
/// for the 49,152 ports of a k = 32 fat-tree; deeper queues spill to the port's `VecDeque`). 32 ran a k = 32
/// permutation in about 0.9 of 16's CPU time (BENCHMARKS.md): a ring of 16 spilled often enough that moving
/// spilled entries back was a tenth of the loop.
pub const RING: usize = 32;

/// Entries a port's ring holds in runs whose ports have lanes (NDP; a power of two, our choice). NDP's headers,
/// ACKs, NACKs and pulls are 64-byte packets: a 25 us, 10 Gb/s pipe holds hundreds of them, and a 32-entry ring
/// spilled on most pops, each spill a cache miss on the port's `VecDeque` (about a tenth of a k = 8 NDP run's
/// time, BENCHMARKS.md). 128 x 24 bytes is 3 kB per port; the arena's size caps it (`ring_for`).
pub const LANED_RING: usize = 128;

/// Largest arena `ring_for` gives larger rings for (our choice: 64 MB, a k = 24 fat-tree's ports at 128 entries).
const LANED_ARENA_BYTES: usize = 64 << 20;

/// No ring slot (a port without a ring).
pub const NO_SLOT: u32 = u32::MAX;

/// Set in a slot `next_slot` names when the port's ring was full then: its next arrival will likely move the
/// oldest spilled entry into the ring, so the loop asks for the spill's cache lines too (`Port::prefetch_spill`).
/// A hint: whether the ring is still full when the arrival comes is checked then.
pub const SLOT_SPILL: u32 = 1 << 31;

const EMPTY: InFlight = InFlight {
    arrival: 0,
    pkt: 0,
    dst_host: 0,
    wire_bytes: 0,
    flow_hash: 0,
};

/// One block of `RING` entries per port, in one buffer. It must outlive the ports given blocks (`attach`):
/// they keep a pointer into it (the packet engine keeps both in its `Sim`).
pub struct PipeArena {
    slots: HugeVec<InFlight>,
}

impl PipeArena {
    /// Rings for `ports`: port i gets block i (slots i x RING to (i + 1) x RING - 1). Returns None (the ports
    /// keep their `VecDeque`s alone) when the slots would not fit a u32 index.
    pub fn attach(ports: &mut [Port]) -> Option<PipeArena> {
        Self::attach_sized(ports, RING)
    }

    /// The ring size for `ports` ports: `LANED_RING` when the ports have lanes and the arena stays within
    /// `LANED_ARENA_BYTES`, else `RING`.
    pub fn ring_for(ports: usize, lanes: bool) -> usize {
        let bytes = ports.saturating_mul(LANED_RING * size_of::<InFlight>());
        if lanes && bytes <= LANED_ARENA_BYTES {
            LANED_RING
        } else {
            RING
        }
    }

    /// `attach` with rings of `ring` entries (a power of two up to 2^15) instead of `RING`.
    pub fn attach_sized(ports: &mut [Port], ring: usize) -> Option<PipeArena> {
        assert!(ring.is_power_of_two() && ring < 1 << 15);
        let n = ports
            .len()
            .checked_mul(ring)
            .filter(|&n| n < SLOT_SPILL as usize)?;
        let mut slots = HugeVec::with_capacity(n);
        for _ in 0..n {
            slots.push(EMPTY);
        }
        let base = slots.as_mut_ptr();
        for (i, p) in ports.iter_mut().enumerate() {
            debug_assert!(p.pipe_len() == 0, "rings are given before any packet");
            // SAFETY: block i lies inside the buffer (n = ports x ring slots).
            p.ring = unsafe { base.add(i * ring) };
            p.ring_cap = ring as u16;
        }
        Some(PipeArena { slots })
    }

    /// The slot the next arrival of port `port` moves up to the pipe's head (NO_SLOT: none), with SLOT_SPILL
    /// set when the port's ring is full.
    #[inline]
    pub fn next_slot(ports: &[Port], port: u32) -> u32 {
        let p = &ports[port as usize];
        if p.ring_cap == 0 {
            NO_SLOT
        } else {
            let full = if p.ring_len == p.ring_cap {
                SLOT_SPILL
            } else {
                0
            };
            (port * p.ring_cap as u32 + p.ring_start as u32) | full
        }
    }

    /// Ask for the cache line of slot `slot` (a hint: NO_SLOT or out of range does nothing; SLOT_SPILL ignored).
    #[inline(always)]
    pub fn prefetch(&self, slot: u32) {
        if let Some(e) = self.slots.get((slot & !SLOT_SPILL) as usize) {
            super::prefetch(e);
        }
    }
}

impl Port {
    /// Packets in the pipe (accepted, started, not yet arrived).
    #[inline]
    pub fn pipe_len(&self) -> usize {
        // The spill holds entries only while the ring is full: its (cold) line is read only then.
        let spilled = if self.ring_len == self.ring_cap {
            self.rest.len()
        } else {
            0
        };
        self.has_head as usize + self.ring_len as usize + spilled
    }

    /// The pipe's oldest packet: the next to arrive.
    #[inline]
    pub fn pipe_front(&self) -> Option<&InFlight> {
        self.has_head.then_some(&self.head)
    }

    #[inline]
    fn ring_slot(&self, i: usize) -> *mut InFlight {
        // SAFETY (of the callers' reads and writes): ring_cap > 0 only with a block of ring_cap entries attached,
        // and the index is taken modulo ring_cap (a power of two).
        self.ring
            .wrapping_add((self.ring_start as usize + i) & (self.ring_cap as usize).wrapping_sub(1))
    }

    #[inline]
    pub(super) fn pipe_get(&self, i: usize) -> Option<&InFlight> {
        if i == 0 {
            return self.pipe_front();
        }
        let r = i - 1;
        if r < self.ring_len as usize {
            // SAFETY: see ring_slot; the entry was written by pipe_push.
            Some(unsafe { &*self.ring_slot(r) })
        } else {
            self.rest.get(r - self.ring_len as usize)
        }
    }

    #[inline]
    pub(super) fn pipe_push(&mut self, e: InFlight) {
        if !self.has_head {
            self.head = e;
            self.has_head = true;
        } else if self.ring_len < self.ring_cap {
            // SAFETY: see ring_slot.
            unsafe { self.ring_slot(self.ring_len as usize).write(e) };
            self.ring_len += 1;
        } else {
            self.rest.push_back(e);
        }
    }

    /// Move the pipe's next entry up to its head (the head has arrived); false when the pipe is now empty.
    #[inline]
    pub(super) fn pipe_advance(&mut self) -> bool {
        if self.ring_len > 0 {
            let was_full = self.ring_len == self.ring_cap;
            // SAFETY: see ring_slot; the entry was written by pipe_push.
            self.head = unsafe { self.ring_slot(0).read() };
            self.ring_start = (self.ring_start + 1) & (self.ring_cap - 1);
            self.ring_len -= 1;
            if was_full {
                if let Some(e) = self.rest.pop_front() {
                    // SAFETY: see ring_slot.
                    unsafe { self.ring_slot(self.ring_len as usize).write(e) };
                    self.ring_len += 1;
                }
            }
            true
        } else if self.ring_cap == 0 {
            match self.rest.pop_front() {
                Some(e) => {
                    self.head = e;
                    true
                }
                None => {
                    self.has_head = false;
                    false
                }
            }
        } else {
            self.has_head = false;
            false
        }
    }

    /// Bring in the ring slots an offer to this port reads and writes: the pipe's oldest entry not known to
    /// have finished (which `advance` reads when the serializer is busy) and the slot the offered packet is
    /// written to. Call it once the port's first line is in (it reads where the ring stands): the loop asks
    /// for a forwarding's port one event ahead, then for these at the top of the arrival's event. Profiles of
    /// k = 32 had the write of the new entry as the largest source of cache misses on writes and the read of
    /// the oldest unfinished entry as most of `advance`'s time.
    #[inline(always)]
    pub fn prefetch_offer_slots(&self) {
        if self.ring_cap == 0 {
            return;
        }
        let f = self.finished_in_pipe as usize;
        if f >= 1 && f - 1 < self.ring_len as usize {
            super::prefetch(self.ring_slot(f - 1));
        }
        if self.ring_len < self.ring_cap {
            super::prefetch(self.ring_slot(self.ring_len as usize));
        }
    }

    /// Bring in the cache lines of the port's spill (`rest`'s header), which an arrival at a port whose ring is
    /// full reads to move the oldest spilled entry into the ring (`slot`: the arrival event's, `next_slot`).
    #[inline(always)]
    pub fn prefetch_spill(ports: &[Port], port: u32, slot: u32) {
        if slot & SLOT_SPILL != 0 && slot != NO_SLOT {
            if let Some(p) = ports.get(port as usize) {
                let rest = &p.rest as *const _ as *const u8;
                super::prefetch(rest);
                super::prefetch(rest.wrapping_add(size_of_val(&p.rest) - 1));
            }
        }
    }

    /// The spilled entry the next arrival moves into the ring, if the ring is full (call it once
    /// `prefetch_spill`'s lines have had time to come in).
    #[inline(always)]
    pub(super) fn spill_next(&self) -> Option<&InFlight> {
        if self.ring_len == self.ring_cap {
            self.rest.front()
        } else {
            None
        }
    }

    /// The entry that becomes the pipe's head at the next arrival, if the pipe has one.
    #[inline]
    pub(super) fn pipe_next(&self) -> Option<&InFlight> {
        self.pipe_get(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(pkt: u32) -> InFlight {
        InFlight {
            arrival: pkt as u64,
            pkt,
            dst_host: 0,
            wire_bytes: 100,
            flow_hash: 0,
        }
    }

    #[test]
    fn a_pipe_keeps_its_order_through_ring_and_spill() {
        // Three ports, one without a ring: each gets pushes and pops in an order that fills the ring, spills,
        // and drains again; every pipe must give back its packets in the order they came.
        let mut ports: Vec<Port> = (0..3)
            .map(|i| Port::new(0, 1, i, 1_000_000_000, 0, None))
            .collect();
        let arena = PipeArena::attach(&mut ports[..2]).expect("fits");
        assert_eq!(PipeArena::next_slot(&ports, 1), RING as u32);
        assert_eq!(PipeArena::next_slot(&ports, 2), NO_SLOT);
        let mut rng = crate::rng::Rng::new(3, 0);
        for k in 0..ports.len() {
            let (mut next_in, mut next_out) = (0u32, 0u32);
            for _ in 0..5_000 {
                let p = &mut ports[k];
                if rng.below(100) < 52 || next_in == next_out {
                    p.pipe_push(entry(next_in));
                    next_in += 1;
                } else {
                    assert_eq!(p.pipe_front().map(|e| e.pkt), Some(next_out));
                    p.pipe_advance();
                    next_out += 1;
                }
                assert_eq!(p.pipe_len(), (next_in - next_out) as usize);
                let all: Vec<u32> = (0..p.pipe_len())
                    .map(|i| p.pipe_get(i).unwrap().pkt)
                    .collect();
                assert_eq!(all, (next_out..next_in).collect::<Vec<_>>());
                if k < 2 {
                    // The slot says whether the ring is full; the spill's next entry is the pipe's after the ring.
                    let full = p.ring_len as usize == RING;
                    let spilled = (p.pipe_len() > RING + 1).then_some(next_out + 1 + RING as u32);
                    let slot = PipeArena::next_slot(&ports, k as u32);
                    assert_eq!(slot & SLOT_SPILL != 0, full);
                    let p = &ports[k];
                    assert_eq!(p.spill_next().map(|e| e.pkt), spilled.filter(|_| full));
                }
            }
        }
        drop(ports);
        drop(arena);
    }

    #[test]
    fn larger_rings_keep_the_order_and_name_their_slots() {
        let mut ports: Vec<Port> = (0..2)
            .map(|i| Port::new(0, 1, i, 1_000_000_000, 0, None))
            .collect();
        assert_eq!(PipeArena::ring_for(ports.len(), true), LANED_RING);
        assert_eq!(PipeArena::ring_for(ports.len(), false), RING);
        assert_eq!(PipeArena::ring_for(1 << 20, true), RING, "the arena's cap");
        let arena = PipeArena::attach_sized(&mut ports, LANED_RING).expect("fits");
        let p = &mut ports[1];
        for i in 0..(LANED_RING as u32 + 10) {
            p.pipe_push(entry(i));
        }
        for i in 0..300u32 {
            // The slot named is where the entry that becomes the head at the next pop sits (the ring's front).
            let slot = (PipeArena::next_slot(&ports, 1) & !SLOT_SPILL) as usize;
            let p = &mut ports[1];
            let next = p.pipe_get(1).map(|e| e as *const InFlight);
            if p.pipe_len() > 1 {
                assert_eq!(next, Some(&arena.slots[slot] as *const InFlight));
            }
            assert_eq!(p.pipe_front().map(|e| e.pkt), Some(i));
            p.pipe_advance();
            p.pipe_push(entry(i + LANED_RING as u32 + 10));
        }
        drop(ports);
        drop(arena);
    }
}
