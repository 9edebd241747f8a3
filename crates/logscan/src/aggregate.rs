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

#[derive(Clone, Copy)]
struct Span {
    first_s: i64,
    last_s: i64,
    hits: u64,
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
        let mut rows: Vec<(Key, Span)> = self
            .entries
            .into_iter()
            .map(|Entry { key: k, span: v, .. }| {
                let key = Key {
                    user: user_rank[k.user as usize],
                    ua: ua_rank[k.ua as usize],
                    app_device_id: app_rank[k.app_device_id as usize],
                    ch_model: model_rank[k.ch_model as usize],
                    ch_platform_version: pv_rank[k.ch_platform_version as usize],
                    month: k.month,
                };
                (key, v)
            })
            .collect();
        // Field order of Key is the sort order; months as indices sort like their "YYYY-MM" labels.
        rows.sort_unstable_by_key(|r| r.0);
        let mut month_ids: Vec<i32> = rows.iter().map(|r| r.0.month).collect();
        month_ids.sort_unstable();
        month_ids.dedup();
        let mut out = Sightings {
            users,
            uas,
            app_device_ids,
            ch_models,
            ch_platform_versions,
            months: month_ids.iter().map(|&m| month_label(m)).collect(),
            ..Sightings::default()
        };
        for (k, v) in rows {
            out.user.push(k.user);
            out.ua.push(k.ua);
            out.app_device_id.push(k.app_device_id);
            out.ch_model.push(k.ch_model);
            out.ch_platform_version.push(k.ch_platform_version);
            out.month.push(month_ids.binary_search(&k.month).unwrap_or(0) as u32);
            out.first_s.push(v.first_s);
            out.last_s.push(v.last_s);
            out.hits.push(v.hits as i64);
        }
        out
    }
}
