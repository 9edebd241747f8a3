//! The last few sightings' keys, as a tag and a slot each. A busy server interleaves a handful of sessions, so a
//! line mostly repeats the user, agent and month of a recent line; found here, it needs neither the hash of the
//! whole key nor a lookup in the big index, and the strings it is compared with were touched moments ago. Only
//! a shortcut: the result is the same without it.

const WAYS: usize = 8;
const UNUSED: u32 = u32::MAX;

/// Warm keys: (tag, slot) by the tag's low bits, the last key seen in each place.
const WARM: usize = 4096;

pub struct Recent {
    /// Tags and slots of the last keys, the oldest replaced first. Apart, so that all tags are compared at once
    /// (a loop over the entries mispredicted a branch on nearly every line).
    tags: [u64; WAYS],
    slots: [u32; WAYS],
    next: usize,
    warm: Box<[(u64, u32)]>,
}

impl Default for Recent {
    fn default() -> Self {
        Recent {
            tags: [0; WAYS],
            slots: [UNUSED; WAYS],
            next: 0,
            warm: vec![(0, UNUSED); WARM].into_boxed_slice(),
        }
    }
}

impl Recent {
    /// The slot of a recent key with this tag for which `is(slot)` holds (the caller compares the keys), and
    /// whether it was found among the warm keys only (then the caller may `remember` it).
    #[inline]
    pub fn find(&self, tag: u64, mut is: impl FnMut(u32) -> bool) -> Option<(u32, bool)> {
        let mut same = self.tags.iter().enumerate().fold(0u32, |m, (i, &t)| m | u32::from(t == tag) << i);
        while same != 0 {
            let slot = self.slots[same.trailing_zeros() as usize];
            if slot != UNUSED && is(slot) {
                return Some((slot, false));
            }
            same &= same - 1;
        }
        let (t, slot) = self.warm[tag as usize % WARM];
        (t == tag && slot != UNUSED && is(slot)).then_some((slot, true))
    }

    /// Remember a key's tag and slot, in place of the oldest.
    pub fn remember(&mut self, tag: u64, slot: u32) {
        (self.tags[self.next], self.slots[self.next]) = (tag, slot);
        self.warm[tag as usize % WARM] = (tag, slot);
        self.next = (self.next + 1) % WAYS;
    }
}
