//! The sightings table: one entry per distinct (user, UA, app device id, client hints, month) with first and
//! last access and hits, so memory grows with distinct keys, not with lines.

use rustc_hash::FxHashMap;

use crate::index::Index;
use crate::intern::{self, Interner};
use crate::recent::Recent;
use crate::sightings::Sightings;
use crate::time::month_label;

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Key {
    user: u32,
    ua: u32,
    app_device_id: u32,
    ch_model: u32,
    ch_platform_version: u32,
    month: i32,
}

/// First and last access and hits of one key.
#[derive(Clone, Copy)]
pub struct Span {
    pub first_s: i64,
    pub last_s: i64,
    pub hits: u64,
}

struct Entry {
    key: Key,
    span: Span,
}

/// The interned strings of the keys.
#[derive(Default)]
struct Strings {
    users: Interner,
    uas: Interner,
    app_device_ids: Interner,
    ch_models: Interner,
    ch_platform_versions: Interner,
}

impl Strings {
    /// Whether `e` is the entry of `s`.
    #[inline]
    fn matches(&self, e: &Entry, s: &Sighting<'_>) -> bool {
        let key = &e.key;
        key.month == s.month
            && self.users.is(key.user, s.user)
            && self.uas.is(key.ua, s.ua)
            && self.app_device_ids.is(key.app_device_id, s.app_device_id)
            && self.ch_models.is(key.ch_model, s.ch_model)
            && self.ch_platform_versions.is(key.ch_platform_version, s.ch_platform_version)
    }

    /// The key of `s`, whose strings have the hashes `h` (`string_hashes`).
    fn key(&mut self, s: &Sighting<'_>, h: &[u64; 5]) -> Key {
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
fn string_hashes(s: &Sighting<'_>) -> [u64; 5] {
    [s.user, s.ua, s.app_device_id, s.ch_model, s.ch_platform_version].map(intern::hash)
}

/// The hash of a key, from its strings' hashes and its month: computed once for a line that misses the recent
/// keys, and the strings' hashes serve again to intern them if the key is new.
fn key_hash(h: &[u64; 5], month: i32) -> u64 {
    h.iter().fold(u64::from(month as u32), |acc, &x| {
        (acc ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29)
    })
}

/// One index of key hashes per month. Logs run mostly in time order, so the keys being looked up are those of
/// the current month: in an index of their own they fit the CPU's caches, where one index for all months made
/// nearly every lookup a trip to main memory. (Out-of-order logs give the same result, more slowly.)
#[derive(Default)]
struct MonthIndexes {
    indexes: Vec<Index>,
    position: FxHashMap<i32, usize>,
    /// The month last asked for and its index's position.
    last: Option<(i32, usize)>,
}

impl MonthIndexes {
    #[inline]
    fn get(&mut self, month: i32) -> &mut Index {
        let k = match self.last {
            Some((m, k)) if m == month => k,
            _ => {
                let next = self.indexes.len();
                let k = *self.position.entry(month).or_insert(next);
                if k == next {
                    self.indexes.push(Index::default());
                }
                self.last = Some((month, k));
                k
            }
        };
        &mut self.indexes[k]
    }
}

/// Keys are found by the hash of their strings as the line gives them, so a key seen before costs one lookup,
/// whatever the number of its parts, and no interning; the strings are interned once, when a key is new.
#[derive(Default)]
pub struct Aggregator {
    strings: Strings,
    /// Slots of `entries` by key hash, per month.
    indexes: MonthIndexes,
    entries: Vec<Entry>,
    /// The key hash of each entry, apart from the entries (only growing an index needs them).
    hashes: Vec<u64>,
    recent: Recent,
}

/// The kept values of one line.
pub struct Sighting<'a> {
    pub user: &'a [u8],
    pub ua: &'a [u8],
    pub app_device_id: &'a [u8],
    pub ch_model: &'a [u8],
    pub ch_platform_version: &'a [u8],
    pub month: i32,
    pub unix_s: i64,
}

/// A cheap fingerprint for the recent keys, from a few words of the user and the agent, their lengths and the
/// month (no hashing of whole strings: most lines stop at the recent keys).
#[inline]
fn recent_tag(s: &Sighting<'_>) -> u64 {
    let ends = |b: &[u8]| -> u64 {
        let n = b.len();
        let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        match n {
            0 => 0,
            1..=7 => b.iter().fold(n as u64, |h, &c| h << 8 | u64::from(c)),
            _ => word(0) ^ word(n - 8).rotate_left(29) ^ n as u64,
        }
    };
    let h = ends(s.user) ^ ends(s.ua).rotate_left(17) ^ u64::from(s.month as u32) << 40;
    // One multiply spreads the bits that differ over the whole tag.
    h.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

impl Aggregator {
    pub fn add(&mut self, s: &Sighting<'_>) {
        let Self {
            strings,
            indexes,
            entries,
            hashes,
            recent,
        } = self;
        let tag = recent_tag(s);
        let found = recent.find(tag, |slot| strings.matches(&entries[slot as usize], s));
        let slot = match found {
            Some((slot, promote)) => {
                if promote {
                    recent.remember(tag, slot);
                }
                slot
            }
            None => {
                let h = string_hashes(s);
                let hash = key_hash(&h, s.month);
                let index = indexes.get(s.month);
                let known = index.find(hash, |slot| strings.matches(&entries[slot as usize], s));
                let slot = match known {
                    Some(slot) => slot,
                    None => {
                        let slot = entries.len() as u32;
                        let key = strings.key(s, &h);
                        entries.push(Entry {
                            key,
                            span: Span {
                                first_s: s.unix_s,
                                last_s: s.unix_s,
                                hits: 0,
                            },
                        });
                        hashes.push(hash);
                        index.insert(hash, slot, |slot| hashes[slot as usize]);
                        slot
                    }
                };
                recent.remember(tag, slot);
                slot
            }
        };
        let span = &mut entries[slot as usize].span;
        span.first_s = span.first_s.min(s.unix_s);
        span.last_s = span.last_s.max(s.unix_s);
        span.hits += 1;
    }

    /// Distinct keys so far (what the memory grows with).
    pub fn keys(&self) -> usize {
        self.entries.len()
    }

    pub fn finish(self) -> Sightings {
        let strings = self.strings;
        let (users, user_rank) = strings.users.into_sorted();
        let (uas, ua_rank) = strings.uas.into_sorted();
        let (app_device_ids, app_rank) = strings.app_device_ids.into_sorted();
        let (ch_models, model_rank) = strings.ch_models.into_sorted();
        let (ch_platform_versions, pv_rank) = strings.ch_platform_versions.into_sorted();
        // Months as indices sort like their "YYYY-MM" labels.
        let mut months: Vec<i32> = self.indexes.position.into_keys().collect();
        months.sort_unstable();
        // Each row's key as codes, in the output's sort order.
        let codes = |k: &Key| -> [u32; 6] {
            [
                user_rank[k.user as usize],
                ua_rank[k.ua as usize],
                app_rank[k.app_device_id as usize],
                model_rank[k.ch_model as usize],
                pv_rank[k.ch_platform_version as usize],
                months.binary_search(&k.month).unwrap_or(0) as u32,
            ]
        };
        let sizes = [users.len(), uas.len(), app_device_ids.len(), ch_models.len(), ch_platform_versions.len(), months.len()];
        let mut out = Sightings {
            users,
            uas,
            app_device_ids,
            ch_models,
            ch_platform_versions,
            months: months.iter().map(|&m| month_label(m)).collect(),
            ..Sightings::with_capacity(self.entries.len())
        };
        let packing = Packing::new(sizes);
        if packing.fits() {
            // The usual case: sorting compares one integer per row.
            let mut rows: Vec<(u64, Span)> = self.entries.iter().map(|e| (packing.pack(codes(&e.key)), e.span)).collect();
            rows.sort_unstable_by_key(|r| r.0);
            rows.into_iter().for_each(|(k, span)| out.push(packing.unpack(k), span));
        } else {
            let mut rows: Vec<([u32; 6], Span)> = self.entries.iter().map(|e| (codes(&e.key), e.span)).collect();
            rows.sort_unstable_by_key(|r| r.0);
            rows.into_iter().for_each(|(k, span)| out.push(k, span));
        }
        out
    }
}

/// Codes of the six key columns packed into one `u64`, the first column in the highest bits, so that the packed
/// values sort like the code tuples.
struct Packing {
    /// Bits per column.
    bits: [u32; 6],
}

impl Packing {
    fn new(sizes: [usize; 6]) -> Packing {
        Packing {
            bits: sizes.map(|n| usize::BITS - n.saturating_sub(1).leading_zeros()),
        }
    }

    fn fits(&self) -> bool {
        self.bits.iter().sum::<u32>() <= 64
    }

    fn pack(&self, codes: [u32; 6]) -> u64 {
        codes
            .iter()
            .zip(self.bits)
            .fold(0u64, |acc, (&c, b)| if b == 0 { acc } else { acc << b | u64::from(c) })
    }

    fn unpack(&self, mut v: u64) -> [u32; 6] {
        let mut codes = [0u32; 6];
        for (c, &b) in codes.iter_mut().zip(&self.bits).rev() {
            if b > 0 {
                *c = (v & ((1u64 << b) - 1)) as u32;
                v >>= b;
            }
        }
        codes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_codes_round_trip_and_sort_like_the_tuples() {
        // 2^20 users, 2^20 agents, one app id, 2^12 models, 3 versions, 2^10 months: 64 bits exactly.
        let p = Packing::new([1 << 20, 1 << 20, 1, 1 << 12, 3, 1 << 10]);
        assert!(p.fits());
        let rows = [
            [0, 0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0, 1023],
            [0, 0, 0, 0, 2, 0],
            [0, 1, 0, 4095, 2, 1023],
            [1 << 19, 0, 0, 0, 0, 0],
            [(1 << 20) - 1, (1 << 20) - 1, 0, 4095, 2, 1023],
        ];
        for w in rows.windows(2) {
            assert!(p.pack(w[0]) < p.pack(w[1]));
        }
        for r in rows {
            assert_eq!(p.unpack(p.pack(r)), r);
        }
        assert!(!Packing::new([1 << 20, 1 << 20, 2, 1 << 12, 3, 1 << 10]).fits());
    }
}
