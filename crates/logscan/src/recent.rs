//! The last few sightings' keys, as a tag and a slot each. A busy server interleaves a handful of sessions, so a
//! line mostly repeats the user, agent and month of a recent line; found here, it needs neither the hash of the
//! whole key nor a lookup in the big index, and the strings it is compared with were touched moments ago. Only
//! a shortcut: the result is the same without it.

const WAYS: usize = 8;
const UNUSED: u32 = u32::MAX;

pub struct Recent {
    /// (tag, slot) of the last keys, the oldest replaced first.
    entries: [(u64, u32); WAYS],
    next: usize,
}

impl Default for Recent {
    fn default() -> Self {
        Recent {
            entries: [(0, UNUSED); WAYS],
            next: 0,
        }
    }
}

impl Recent {
    /// The slot of a recent key with this tag for which `is(slot)` holds (the caller compares the keys).
    #[inline]
    pub fn find(&self, tag: u64, mut is: impl FnMut(u32) -> bool) -> Option<u32> {
        self.entries
            .iter()
            .find(|&&(t, slot)| t == tag && slot != UNUSED && is(slot))
            .map(|&(_, slot)| slot)
    }

    /// Remember a key's tag and slot, in place of the oldest.
    pub fn remember(&mut self, tag: u64, slot: u32) {
        self.entries[self.next] = (tag, slot);
        self.next = (self.next + 1) % WAYS;
    }
}
