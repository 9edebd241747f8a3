//! How a line's key meets the stored keys: compared with their interned strings, hashed, interned when new,
//! and fingerprinted for the recent keys.

use crate::aggregate::{Entry, Key, Sighting};
use crate::intern::{self, Interner};

/// The interned strings of the keys.
#[derive(Default)]
pub struct Strings {
    pub users: Interner,
    pub uas: Interner,
    pub app_device_ids: Interner,
    pub ch_models: Interner,
    pub ch_platform_versions: Interner,
}

impl Strings {
    /// Whether `e` is the entry of `s`.
    #[inline]
    pub fn matches(&self, e: &Entry, s: &Sighting<'_>) -> bool {
        let key = &e.key;
        key.month == s.month
            && self.users.is(key.user, s.user)
            && self.uas.is(key.ua, s.ua)
            && self.app_device_ids.is(key.app_device_id, s.app_device_id)
            && self.ch_models.is(key.ch_model, s.ch_model)
            && self
                .ch_platform_versions
                .is(key.ch_platform_version, s.ch_platform_version)
    }

    /// The key of `s`, whose strings have the hashes `h` (`string_hashes`).
    pub fn key(&mut self, s: &Sighting<'_>, h: &[u64; 5]) -> Key {
        Key {
            user: self.users.id(s.user, h[0]),
            ua: self.uas.id(s.ua, h[1]),
            app_device_id: self.app_device_ids.id(s.app_device_id, h[2]),
            ch_model: self.ch_models.id(s.ch_model, h[3]),
            ch_platform_version: self.ch_platform_versions.id(s.ch_platform_version, h[4]),
            month: s.month,
        }
    }
}

/// The hashes of a sighting's strings.
pub fn string_hashes(s: &Sighting<'_>) -> [u64; 5] {
    [
        s.user,
        s.ua,
        s.app_device_id,
        s.ch_model,
        s.ch_platform_version,
    ]
    .map(intern::hash)
}

/// The hash of a key, from its strings' hashes and its month: computed once for a line that misses the recent
/// keys, and the strings' hashes serve again to intern them if the key is new.
pub fn key_hash(h: &[u64; 5], month: i32) -> u64 {
    h.iter().fold(u64::from(month as u32), |acc, &x| {
        (acc ^ x)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(29)
    })
}

/// A cheap fingerprint for the recent keys, from a few words of the user and the agent, their lengths and the
/// month (no hashing of whole strings: most lines stop at the recent keys).
#[inline]
pub fn recent_tag(s: &Sighting<'_>) -> u64 {
    // The first and last bytes of a string (overlapping words, no loop) and its length.
    let ends = |b: &[u8]| -> u64 {
        let n = b.len();
        let w8 = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        let w4 = |i: usize| u64::from(u32::from_le_bytes(b[i..i + 4].try_into().unwrap()));
        let ends = match n {
            0 => 0,
            1..=3 => u64::from(b[0]) | u64::from(b[n / 2]) << 8 | u64::from(b[n - 1]) << 16,
            4..=7 => w4(0) | w4(n - 4) << 32,
            _ => w8(0) ^ w8(n - 8).rotate_left(29),
        };
        ends ^ n as u64
    };
    let h = ends(s.user) ^ ends(s.ua).rotate_left(17) ^ u64::from(s.month as u32) << 40;
    // One multiply spreads the bits that differ over the whole tag.
    h.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}
