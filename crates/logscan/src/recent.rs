//! The last few sightings' keys. A busy server interleaves a handful of sessions, so a line mostly repeats the
//! user, agent and month of a recent line; found here, it needs neither the hash of the whole key nor a lookup
//! in the big tables. The last eight keys keep copies of their user and agent, compared without leaving the
//! CPU's nearest cache. Only a shortcut: the result is the same without it.
//!
//! A key that is not recent need not be looked up at once: it waits in its way, counting its own lines, until
//! the way is reused eight new keys later. By then the index bucket its hash names, prefetched when it
//! arrived, is in the cache, so the lookup does not stall on it (the lookups of keys that open a session
//! were the scan's largest cost). Spans merge by min, max and sum, so the delay changes nothing.

use crate::aggregate::{Sighting, Span};
use crate::intern::same;

const WAYS: usize = 8;
const UNUSED: u32 = u32::MAX;
/// Longest user and agent copied; a key with a longer one is compared through its entry.
const USER_MAX: usize = 32;
const UA_MAX: usize = 256;

/// A recent key: its month and copies of its user and agent, when they fit and its other strings are empty
/// (what a combined log gives); else `copied` is false. A copied key may still wait for its lookup
/// (`waiting`): then it has no slot yet, and its lines so far are in `span`.
struct Way {
    copied: bool,
    waiting: bool,
    month: i32,
    user_len: u8,
    ua_len: u16,
    user: [u8; USER_MAX],
    ua: [u8; UA_MAX],
    key_hash: u64,
    string_hashes: [u64; 5],
    span: Span,
}

/// Where a line's key was found.
pub enum Hit {
    /// Among the last keys, with this slot.
    Recent(u32),
    /// Among the last keys, still waiting for its lookup: its lines go to `waiting_span(way)`.
    Waiting(usize),
}

/// A waiting key handed out for its lookup.
pub struct Waiting<'a> {
    pub sighting: Sighting<'a>,
    pub key_hash: u64,
    pub string_hashes: &'a [u64; 5],
    pub span: Span,
}

pub struct Recent {
    /// Tags and slots of the last keys, the oldest replaced first. Apart from the copies, so that all tags are
    /// compared at once (a loop over the entries mispredicted a branch on nearly every line).
    tags: [u64; WAYS],
    slots: [u32; WAYS],
    ways: Box<[Way; WAYS]>,
    next: usize,
}

impl Default for Recent {
    fn default() -> Self {
        let way = || Way {
            copied: false,
            waiting: false,
            month: 0,
            user_len: 0,
            ua_len: 0,
            user: [0; USER_MAX],
            ua: [0; UA_MAX],
            key_hash: 0,
            string_hashes: [0; 5],
            span: Span::at(0),
        };
        Recent {
            tags: [0; WAYS],
            slots: [UNUSED; WAYS],
            ways: Box::new(std::array::from_fn(|_| way())),
            next: 0,
        }
    }
}

impl Recent {
    /// Whether the key of `s` can be held as copies (and so wait for its lookup).
    #[inline]
    pub fn copyable(s: &Sighting<'_>) -> bool {
        s.user.len() <= USER_MAX
            && s.ua.len() <= UA_MAX
            && s.app_device_id.is_empty()
            && s.ch_model.is_empty()
            && s.ch_platform_version.is_empty()
    }

    /// Where the key of `s`, with this tag, is among the recent keys. `is(slot)` compares through the
    /// entry, where no copy does.
    #[inline]
    pub fn find(&self, tag: u64, s: &Sighting<'_>, mut is: impl FnMut(u32) -> bool) -> Option<Hit> {
        let mut same_tag = self
            .tags
            .iter()
            .enumerate()
            .fold(0u32, |m, (i, &t)| m | u32::from(t == tag) << i);
        while same_tag != 0 {
            let i = same_tag.trailing_zeros() as usize;
            let (slot, w) = (self.slots[i], &self.ways[i]);
            if w.copied {
                if w.month == s.month
                    && same(&w.user[..usize::from(w.user_len)], s.user)
                    && same(&w.ua[..usize::from(w.ua_len)], s.ua)
                    && s.app_device_id.is_empty()
                    && s.ch_model.is_empty()
                    && s.ch_platform_version.is_empty()
                {
                    return Some(if w.waiting {
                        Hit::Waiting(i)
                    } else {
                        Hit::Recent(slot)
                    });
                }
            } else if slot != UNUSED && is(slot) {
                return Some(Hit::Recent(slot));
            }
            same_tag &= same_tag - 1;
        }
        None
    }

    /// The span of a waiting key's lines.
    #[inline]
    pub fn waiting_span(&mut self, way: usize) -> &mut Span {
        &mut self.ways[way].span
    }

    /// The way that `remember` or `wait` replaces next.
    pub fn oldest(&self) -> usize {
        self.next
    }

    /// The way filled `age` replacements before the last one (0: the last filled; `WAYS - 1`: the oldest).
    #[inline]
    pub fn aged(&self, age: usize) -> usize {
        (self.next + 2 * WAYS - 1 - age) % WAYS
    }

    /// The key in `way`, if it waits for its lookup.
    pub fn waiting(&self, way: usize) -> Option<Waiting<'_>> {
        let w = &self.ways[way];
        w.waiting.then(|| Waiting {
            sighting: Sighting {
                user: &w.user[..usize::from(w.user_len)],
                ua: &w.ua[..usize::from(w.ua_len)],
                app_device_id: b"",
                ch_model: b"",
                ch_platform_version: b"",
                month: w.month,
                unix_s: w.span.first_s,
            },
            key_hash: w.key_hash,
            string_hashes: &w.string_hashes,
            span: w.span,
        })
    }

    /// The waiting key in `way` was looked up: its entry is `slot`.
    pub fn found(&mut self, way: usize, slot: u32) {
        self.ways[way].waiting = false;
        self.slots[way] = slot;
    }

    /// Remember the key of `s`, found or made at `slot`, in place of the oldest (which must not be waiting).
    pub fn remember(&mut self, tag: u64, s: &Sighting<'_>, slot: u32) {
        self.replace(tag, s, slot);
    }

    /// Hold the key of `s` (`copyable`) in place of the oldest (which must not be waiting) until its lookup.
    pub fn wait(&mut self, tag: u64, s: &Sighting<'_>, key_hash: u64, string_hashes: [u64; 5]) {
        let way = self.next;
        self.replace(tag, s, UNUSED);
        let w = &mut self.ways[way];
        debug_assert!(w.copied);
        w.waiting = true;
        w.key_hash = key_hash;
        w.string_hashes = string_hashes;
        w.span = Span::at(s.unix_s);
    }

    fn replace(&mut self, tag: u64, s: &Sighting<'_>, slot: u32) {
        let w = &mut self.ways[self.next];
        debug_assert!(
            !w.waiting,
            "a waiting key is looked up before its way is reused"
        );
        w.copied = Self::copyable(s);
        if w.copied {
            w.month = s.month;
            (w.user_len, w.ua_len) = (s.user.len() as u8, s.ua.len() as u16);
            w.user[..s.user.len()].copy_from_slice(s.user);
            w.ua[..s.ua.len()].copy_from_slice(s.ua);
        }
        (self.tags[self.next], self.slots[self.next]) = (tag, slot);
        self.next = (self.next + 1) % WAYS;
    }

    /// The ways, for looking up every waiting key at the end.
    pub fn ways() -> std::ops::Range<usize> {
        0..WAYS
    }
}
