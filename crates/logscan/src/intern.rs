//! Interning: each distinct string stored once, in one arena, named by a dense `u32` id; id 0 is the empty
//! string. Looking up a string that is already in allocates nothing.

use std::hash::BuildHasher;

use crate::index::Index;
use crate::prefetch::prefetch;

/// The hash of a string (0 for the empty one, which needs none). foldhash, not FxHash: user agents differ in a
/// few digits deep inside long strings, and FxHash's byte hash collided on them so often that key comparisons
/// took half the scan time. A fixed seed: the same input gives the same tables on every run.
#[inline]
pub fn hash(s: &[u8]) -> u64 {
    if s.is_empty() {
        return 0;
    }
    foldhash::fast::FixedState::default().hash_one(s)
}

/// Slice equality without a call to memcmp: an inline comparison 16 bytes at a time (the last block overlapping).
/// The comparisons here are short (users) or a user agent against its copy, and libc's memcmp cost more in the
/// call than in the compare; it also never sees an empty slice's dangling pointer, for which this machine's
/// AVX-512 memcmp paid hundreds of nanoseconds in a masked load.
#[inline(always)]
pub fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    // Fixed-size compares (words, or 16-byte blocks that compile to one vector compare); the last one overlaps
    // the others.
    fn at<const K: usize>(s: &[u8], i: usize) -> [u8; K] {
        s[i..i + K].try_into().unwrap()
    }
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => at::<4>(a, 0) == at::<4>(b, 0) && at::<4>(a, n - 4) == at::<4>(b, n - 4),
        8..=15 => at::<8>(a, 0) == at::<8>(b, 0) && at::<8>(a, n - 8) == at::<8>(b, n - 8),
        _ => {
            let mut i = 0;
            while i + 16 < n {
                if at::<16>(a, i) != at::<16>(b, i) {
                    return false;
                }
                i += 16;
            }
            at::<16>(a, n - 16) == at::<16>(b, n - 16)
        }
    }
}

pub struct Interner {
    bytes: Vec<u8>,
    /// String `id` is `bytes[ends[id - 1]..ends[id]]` (`ends[0]` is 0: the empty string).
    ends: Vec<usize>,
    /// The hash of each string, for growing the index.
    hashes: Vec<u64>,
    index: Index,
}

impl Default for Interner {
    fn default() -> Self {
        // The empty string is id 0 without being looked up, so it is not in the index.
        Interner {
            bytes: Vec::new(),
            ends: vec![0],
            hashes: vec![0],
            index: Index::default(),
        }
    }
}

impl Interner {
    /// The string of `id`.
    #[inline]
    pub fn get(&self, id: u32) -> &[u8] {
        let id = id as usize;
        match id {
            0 => b"",
            _ => &self.bytes[self.ends[id - 1]..self.ends[id]],
        }
    }

    /// Fetch the bytes of `id` ahead of a comparison.
    #[inline]
    pub fn prefetch(&self, id: u32) {
        let id = id as usize;
        if id != 0 && id < self.ends.len() {
            prefetch(self.bytes[self.ends[id - 1]..].as_ptr());
        }
    }

    /// Fetch the start of a lookup of the string with this hash; once fetched, `candidate` names the string
    /// that lookup compares first.
    #[inline]
    pub fn prefetch_lookup(&self, hash: u64) {
        if hash != 0 {
            self.index.prefetch(hash);
        }
    }

    #[inline]
    pub fn candidate(&self, hash: u64) -> Option<u32> {
        if hash == 0 {
            return None;
        }
        self.index.candidate(hash)
    }

    /// Whether `id` names `s`.
    #[inline]
    pub fn is(&self, id: u32, s: &[u8]) -> bool {
        same(self.get(id), s)
    }

    /// The id of `s`, whose `hash(s)` the caller has; stores it the first time it is seen.
    pub fn id(&mut self, s: &[u8], hash: u64) -> u32 {
        if s.is_empty() {
            return 0;
        }
        // The index compares part of the hash already; the bytes decide.
        if let Some(id) = self.index.find(hash, |id| self.is(id, s)) {
            return id;
        }
        let id = self.ends.len() as u32;
        self.bytes.extend_from_slice(s);
        self.ends.push(self.bytes.len());
        self.hashes.push(hash);
        let hashes = &self.hashes;
        self.index.insert(hash, id, |id| hashes[id as usize]);
        id
    }

    /// Strings stored, the empty one included.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    /// The strings in byte order (which is also Unicode code point order, Python's `str` order), and for each
    /// id its rank in that order.
    pub fn into_sorted(self) -> (Vec<String>, Vec<u32>) {
        let mut order: Vec<u32> = (0..self.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| self.get(a).cmp(self.get(b)));
        let mut rank = vec![0u32; order.len()];
        for (r, &id) in order.iter().enumerate() {
            rank[id as usize] = r as u32;
        }
        let strings = order
            .iter()
            .map(|&id| {
                // Every interned value was checked to be UTF-8; lossy conversion only guards that invariant.
                String::from_utf8_lossy(self.get(id)).into_owned()
            })
            .collect();
        (strings, rank)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_dense_stable_and_sorted_by_bytes() {
        let mut i = Interner::default();
        let words: Vec<Vec<u8>> = (0..3000)
            .map(|k| format!("w{}", (k * 7919) % 3000).into_bytes())
            .collect();
        let ids: Vec<u32> = words.iter().map(|w| i.id(w, hash(w))).collect();
        assert_eq!(i.id(b"", 0), 0);
        for (w, &id) in words.iter().zip(&ids) {
            assert_eq!(i.id(w, hash(w)), id);
            assert_eq!(i.get(id), &w[..]);
        }
        assert_eq!(i.len(), 3001);
        let (strings, rank) = i.into_sorted();
        assert!(strings.windows(2).all(|p| p[0] < p[1]));
        assert_eq!(
            strings[rank[ids[5] as usize] as usize].as_bytes(),
            &words[5][..]
        );
    }
}
