//! Interning: each distinct string stored once, named by a dense `u32` id; id 0 is the empty string.

use std::collections::HashMap;

/// foldhash, not FxHash: user agents differ in a few digits deep inside long strings, and FxHash's byte hash
/// collided on them so often that key comparisons took half the scan time.
type Map = HashMap<Box<[u8]>, u32, foldhash::fast::RandomState>;

pub struct Interner {
    ids: Map,
}

impl Default for Interner {
    fn default() -> Self {
        let mut ids = Map::default();
        ids.insert(Box::from(&b""[..]), 0);
        Interner { ids }
    }
}

impl Interner {
    /// The id of `s`; allocates only the first time `s` is seen.
    pub fn id(&mut self, s: &[u8]) -> u32 {
        // Not only a shortcut: comparing two empty slices still calls memcmp with the empty Box's dangling
        // pointer, and on this machine's AVX-512 memcmp that masked load costs hundreds of nanoseconds.
        if s.is_empty() {
            return 0;
        }
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.ids.len() as u32;
        self.ids.insert(Box::from(s), id);
        id
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The strings in byte order (which is also Unicode code point order, Python's `str` order), and for each
    /// old id its rank in that order.
    pub fn into_sorted(self) -> (Vec<String>, Vec<u32>) {
        let mut by_id: Vec<Box<[u8]>> = vec![Box::default(); self.ids.len()];
        for (s, id) in self.ids {
            by_id[id as usize] = s;
        }
        let mut order: Vec<u32> = (0..by_id.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| by_id[a as usize].cmp(&by_id[b as usize]));
        let mut rank = vec![0u32; by_id.len()];
        for (r, &id) in order.iter().enumerate() {
            rank[id as usize] = r as u32;
        }
        let strings = order
            .iter()
            .map(|&id| {
                let s = std::mem::take(&mut by_id[id as usize]);
                // Every interned value was checked to be UTF-8; lossy conversion only guards that invariant.
                String::from_utf8(s.into_vec()).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
            })
            .collect();
        (strings, rank)
    }
}
