//! An open-addressing hash index from 64-bit hashes to the `u32` slots of a table kept elsewhere. Each bucket
//! holds a 32-bit tag taken from the hash and the slot, and collisions probe the next buckets, so a lookup
//! mostly reads one cache line and compares keys only for slots whose tag matches. It stores no keys: the
//! caller says whether a slot holds the key it looks for, and gives each slot's hash when the index grows.

use crate::prefetch::prefetch;

pub struct Index {
    /// 0: empty; else the tag in the high half and slot + 1 in the low half.
    buckets: Vec<u64>,
    /// The bucket of a hash is its top bits: `hash >> shift`.
    shift: u32,
    len: usize,
}

const MIN_BUCKETS: usize = 1024;

impl Default for Index {
    fn default() -> Self {
        Index {
            buckets: vec![0; MIN_BUCKETS],
            shift: 64 - MIN_BUCKETS.trailing_zeros(),
            len: 0,
        }
    }
}

/// The tag is the low half of the hash, the bucket its top bits: independent parts of it.
fn tag(hash: u64) -> u64 {
    hash & 0xffff_ffff
}

impl Index {
    /// The slot with this hash for which `is(slot)` holds.
    #[inline]
    pub fn find(&self, hash: u64, mut is: impl FnMut(u32) -> bool) -> Option<u32> {
        let mask = self.buckets.len() - 1;
        let mut i = (hash >> self.shift) as usize;
        loop {
            let b = self.buckets[i];
            if b == 0 {
                return None;
            }
            let slot = (b as u32).wrapping_sub(1);
            if b >> 32 == tag(hash) && is(slot) {
                return Some(slot);
            }
            i = (i + 1) & mask;
        }
    }

    /// Ask the CPU to fetch the bucket where a lookup of `hash` starts, ahead of the lookup.
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        prefetch(&self.buckets[(hash >> self.shift) as usize]);
    }

    /// The first slot whose bucket carries the tag of `hash` (what `find` compares first), without comparing.
    #[inline]
    pub fn candidate(&self, hash: u64) -> Option<u32> {
        self.find(hash, |_| true)
    }

    /// Add `slot` under `hash` (the caller knows no equal key is in). Growing asks `hash_of` for the hash of
    /// each slot already in.
    pub fn insert(&mut self, hash: u64, slot: u32, hash_of: impl Fn(u32) -> u64) {
        assert!(slot < u32::MAX, "at most 2^32 - 1 slots");
        // Linear probing stays short below 5/8 full.
        if (self.len + 1) * 8 > self.buckets.len() * 5 {
            self.grow(hash_of);
        }
        self.place(hash, slot);
        self.len += 1;
    }

    fn place(&mut self, hash: u64, slot: u32) {
        let mask = self.buckets.len() - 1;
        let mut i = (hash >> self.shift) as usize;
        while self.buckets[i] != 0 {
            i = (i + 1) & mask;
        }
        self.buckets[i] = tag(hash) << 32 | u64::from(slot + 1);
    }

    fn grow(&mut self, hash_of: impl Fn(u32) -> u64) {
        let bigger = vec![0; self.buckets.len() * 2];
        let old = std::mem::replace(&mut self.buckets, bigger);
        self.shift -= 1;
        for b in old.into_iter().filter(|&b| b != 0) {
            let slot = (b as u32) - 1;
            self.place(hash_of(slot), slot);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_was_inserted_through_growth_and_collisions() {
        // Hashes that share buckets and tags, so that probing and the caller's check both matter.
        let hash = |k: u32| u64::from(k % 7) << 60 | u64::from(k % 3);
        let mut index = Index::default();
        for k in 0..5000u32 {
            assert_eq!(index.find(hash(k), |s| s == k), None);
            index.insert(hash(k), k, hash);
        }
        assert_eq!(index.len, 5000);
        for k in 0..5000u32 {
            assert_eq!(index.find(hash(k), |s| s == k), Some(k));
        }
        assert_eq!(index.find(hash(5000), |s| s == 5000), None);
    }
}
