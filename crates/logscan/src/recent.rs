//! The keys of the last few sightings and where their spans are. A busy server interleaves a handful of
//! sessions, so a line mostly repeats the user, agent and month of a recent line; found here, it needs no
//! hashing of the agent and no lookup in the big tables. Only a shortcut: the result is the same without it.

use std::hash::BuildHasher;

use crate::aggregate::Sighting;

const WAYS: usize = 8;

/// Slice equality that never calls memcmp for empty slices: an empty Vec's pointer is dangling, and this
/// machine's AVX-512 memcmp pays hundreds of nanoseconds for its masked load even at length 0.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && (a.is_empty() || a == b)
}

#[derive(Default)]
struct Entry {
    tag: u64,
    month: i32,
    slot: u32,
    used: bool,
    user: Vec<u8>,
    ua: Vec<u8>,
    app_device_id: Vec<u8>,
    ch_model: Vec<u8>,
    ch_platform_version: Vec<u8>,
}

#[derive(Default)]
pub struct Recent {
    entries: [Entry; WAYS],
    next: usize,
    hasher: foldhash::fast::FixedState,
}

impl Recent {
    /// A cheap fingerprint: the user's hash, the month and the agent's length.
    pub fn tag(&self, s: &Sighting<'_>) -> u64 {
        self.hasher.hash_one(s.user) ^ (u64::from(s.month as u32) << 20) ^ s.ua.len() as u64
    }

    /// The span slot of a recent sighting with exactly this key.
    pub fn find(&self, tag: u64, s: &Sighting<'_>) -> Option<u32> {
        self.entries
            .iter()
            .find(|e| {
                e.used
                    && e.tag == tag
                    && e.month == s.month
                    && same(&e.user, s.user)
                    && same(&e.ua, s.ua)
                    && same(&e.app_device_id, s.app_device_id)
                    && same(&e.ch_model, s.ch_model)
                    && same(&e.ch_platform_version, s.ch_platform_version)
            })
            .map(|e| e.slot)
    }

    /// Remember a key (replacing the oldest entry; the buffers keep their capacity, so no allocation).
    pub fn remember(&mut self, tag: u64, s: &Sighting<'_>, slot: u32) {
        let e = &mut self.entries[self.next];
        self.next = (self.next + 1) % WAYS;
        e.tag = tag;
        e.month = s.month;
        e.slot = slot;
        e.used = true;
        for (buf, v) in [
            (&mut e.user, s.user),
            (&mut e.ua, s.ua),
            (&mut e.app_device_id, s.app_device_id),
            (&mut e.ch_model, s.ch_model),
            (&mut e.ch_platform_version, s.ch_platform_version),
        ] {
            buf.clear();
            buf.extend_from_slice(v);
        }
    }
}
