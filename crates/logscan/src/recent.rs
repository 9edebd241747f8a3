//! The last few sightings' keys. A busy server interleaves a handful of sessions, so a line mostly repeats the
//! user, agent and month of a recent line; found here, it needs neither the hash of the whole key nor a lookup
//! in the big tables. The last eight keys keep copies of their user and agent, compared without leaving the
//! CPU's nearest cache; a larger table of warm keys keeps only slots. Only a shortcut: the result is the same
//! without it.

use crate::aggregate::Sighting;
use crate::intern::same;

const WAYS: usize = 8;
const UNUSED: u32 = u32::MAX;
/// Longest user and agent copied; a key with a longer one is compared through its entry.
const USER_MAX: usize = 32;
const UA_MAX: usize = 256;

/// Warm keys: (tag, slot) by the tag's low bits, the last key seen in each place.
const WARM: usize = 4096;

/// A recent key: its month and copies of its user and agent, when they fit and its other strings are empty
/// (what a combined log gives); else `copied` is false.
struct Way {
    copied: bool,
    month: i32,
    user_len: u8,
    ua_len: u16,
    user: [u8; USER_MAX],
    ua: [u8; UA_MAX],
}

pub struct Recent {
    /// Tags and slots of the last keys, the oldest replaced first. Apart from the copies, so that all tags are
    /// compared at once (a loop over the entries mispredicted a branch on nearly every line).
    tags: [u64; WAYS],
    slots: [u32; WAYS],
    ways: Box<[Way; WAYS]>,
    next: usize,
    warm: Box<[(u64, u32)]>,
}

impl Default for Recent {
    fn default() -> Self {
        let way = || Way {
            copied: false,
            month: 0,
            user_len: 0,
            ua_len: 0,
            user: [0; USER_MAX],
            ua: [0; UA_MAX],
        };
        Recent {
            tags: [0; WAYS],
            slots: [UNUSED; WAYS],
            ways: Box::new(std::array::from_fn(|_| way())),
            next: 0,
            warm: vec![(0, UNUSED); WARM].into_boxed_slice(),
        }
    }
}

impl Recent {
    /// The slot of a recent key with this tag that is the key of `s`, and whether it was found among the warm
    /// keys only (then the caller may `remember` it). `is(slot)` compares through the entry, where no copy does.
    #[inline]
    pub fn find(&self, tag: u64, s: &Sighting<'_>, mut is: impl FnMut(u32) -> bool) -> Option<(u32, bool)> {
        let mut same_tag = self.tags.iter().enumerate().fold(0u32, |m, (i, &t)| m | u32::from(t == tag) << i);
        while same_tag != 0 {
            let i = same_tag.trailing_zeros() as usize;
            let (slot, w) = (self.slots[i], &self.ways[i]);
            let found = if w.copied {
                w.month == s.month
                    && same(&w.user[..usize::from(w.user_len)], s.user)
                    && same(&w.ua[..usize::from(w.ua_len)], s.ua)
                    && s.app_device_id.is_empty()
                    && s.ch_model.is_empty()
                    && s.ch_platform_version.is_empty()
            } else {
                slot != UNUSED && is(slot)
            };
            if found {
                return Some((slot, false));
            }
            same_tag &= same_tag - 1;
        }
        let (t, slot) = self.warm[tag as usize % WARM];
        (t == tag && slot != UNUSED && is(slot)).then_some((slot, true))
    }

    /// Remember the key of `s`, found or made at `slot`, in place of the oldest.
    pub fn remember(&mut self, tag: u64, s: &Sighting<'_>, slot: u32) {
        let w = &mut self.ways[self.next];
        w.copied = s.user.len() <= USER_MAX
            && s.ua.len() <= UA_MAX
            && s.app_device_id.is_empty()
            && s.ch_model.is_empty()
            && s.ch_platform_version.is_empty();
        if w.copied {
            w.month = s.month;
            (w.user_len, w.ua_len) = (s.user.len() as u8, s.ua.len() as u16);
            w.user[..s.user.len()].copy_from_slice(s.user);
            w.ua[..s.ua.len()].copy_from_slice(s.ua);
        }
        (self.tags[self.next], self.slots[self.next]) = (tag, slot);
        self.warm[tag as usize % WARM] = (tag, slot);
        self.next = (self.next + 1) % WAYS;
    }
}
