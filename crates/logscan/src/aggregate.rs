//! The sightings table: one entry per distinct (user, UA, app device id, client hints, month) with first and
//! last access and hits, so memory grows with distinct keys, not with lines.

use crate::keys::{key_hash, recent_tag, string_hashes, Strings};
use crate::month_index::MonthIndexes;
use crate::prefetch::prefetch;
use crate::recent::{Hit, Recent};
use crate::sightings::{Packing, Sightings};
use crate::time::month_label;

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub user: u32,
    pub ua: u32,
    pub app_device_id: u32,
    pub ch_model: u32,
    pub ch_platform_version: u32,
    pub month: i32,
}

/// First and last access and hits of one key.
#[derive(Clone, Copy)]
pub struct Span {
    pub first_s: i64,
    pub last_s: i64,
    pub hits: u64,
}

impl Span {
    /// One access at `unix_s`.
    pub fn at(unix_s: i64) -> Span {
        Span {
            first_s: unix_s,
            last_s: unix_s,
            hits: 1,
        }
    }

    /// Another access.
    #[inline]
    pub fn add(&mut self, unix_s: i64) {
        self.first_s = self.first_s.min(unix_s);
        self.last_s = self.last_s.max(unix_s);
        self.hits += 1;
    }

    /// The accesses of `other` too.
    pub fn merge(&mut self, other: Span) {
        self.first_s = self.first_s.min(other.first_s);
        self.last_s = self.last_s.max(other.last_s);
        self.hits += other.hits;
    }
}

pub struct Entry {
    pub key: Key,
    pub span: Span,
}

/// Keys are found by the hash of their strings as the line gives them, so a key seen before costs one lookup,
/// whatever the number of its parts, and no interning; the strings are interned once, when a key is new.
/// Most lines repeat one of the last few keys and stop at `recent`; a key that does not waits there for its
/// lookup while the memory that lookup reads is prefetched (`make_room`).
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

/// What `fetch_ahead` fetches.
#[derive(Clone, Copy)]
enum Stage {
    Entry,
    Strings,
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

impl Aggregator {
    pub fn add(&mut self, s: &Sighting<'_>) {
        let tag = recent_tag(s);
        let found = {
            let Self {
                strings,
                entries,
                recent,
                ..
            } = &*self;
            recent.find(tag, s, |slot| strings.matches(&entries[slot as usize], s))
        };
        match found {
            Some(Hit::Recent(slot)) => self.entries[slot as usize].span.add(s.unix_s),
            Some(Hit::Waiting(way)) => self.recent.waiting_span(way).add(s.unix_s),
            None => {
                let h = string_hashes(s);
                let hash = key_hash(&h, s.month);
                self.make_room();
                if Recent::copyable(s) {
                    // Looked up when its way is reused; the bucket is fetched meanwhile.
                    self.indexes.get(s.month).prefetch(hash);
                    self.recent.wait(tag, s, hash, h);
                } else {
                    let slot = self.find_or_add(s, &h, hash, Span::at(s.unix_s));
                    self.recent.remember(tag, s, slot);
                }
            }
        }
    }

    /// Before the oldest way is reused: look up its waiting key, and fetch ahead what the lookups of two younger
    /// waiting keys will read (lookups of keys that open a session stalled on three or four dependent cache
    /// misses each; spread over the ways' lifetime, the misses overlap with the scan of other lines). A third
    /// stage, fetching where the strings are before the strings, measured no faster.
    fn make_room(&mut self) {
        self.look_up_waiting(self.recent.oldest());
        self.fetch_ahead(self.recent.aged(3), Stage::Entry);
        self.fetch_ahead(self.recent.aged(5), Stage::Strings);
    }

    /// Fetch what the lookup of the key waiting in `way` will read: first the entry its bucket names (for a
    /// key not in the index, the buckets of its strings), later the strings that entry (or those buckets)
    /// name. Only hints: a wrong guess costs a fetch, never a result.
    fn fetch_ahead(&self, way: usize, stage: Stage) {
        let Some(w) = self.recent.waiting(way) else {
            return;
        };
        let Some(index) = self.indexes.peek(w.sighting.month) else {
            return;
        };
        let (users, uas) = (&self.strings.users, &self.strings.uas);
        match (index.candidate(w.key_hash), stage) {
            (Some(slot), Stage::Entry) => prefetch(&self.entries[slot as usize]),
            (Some(slot), Stage::Strings) => {
                let key = &self.entries[slot as usize].key;
                users.prefetch(key.user);
                uas.prefetch(key.ua);
            }
            (None, Stage::Entry) => {
                users.prefetch_lookup(w.string_hashes[0]);
                uas.prefetch_lookup(w.string_hashes[1]);
            }
            (None, Stage::Strings) => {
                for (interner, hash) in [(users, w.string_hashes[0]), (uas, w.string_hashes[1])] {
                    if let Some(id) = interner.candidate(hash) {
                        interner.prefetch(id);
                    }
                }
            }
        }
    }

    /// Look up the key waiting in `way`, if any, and count its lines.
    fn look_up_waiting(&mut self, way: usize) {
        let Some(w) = self.recent.waiting(way) else {
            return;
        };
        let slot = Self::find_or_add_in(
            &mut self.strings,
            &mut self.indexes,
            &mut self.entries,
            &mut self.hashes,
            &w.sighting,
            w.string_hashes,
            w.key_hash,
            w.span,
        );
        self.recent.found(way, slot);
    }

    fn find_or_add(&mut self, s: &Sighting<'_>, h: &[u64; 5], hash: u64, span: Span) -> u32 {
        Self::find_or_add_in(
            &mut self.strings,
            &mut self.indexes,
            &mut self.entries,
            &mut self.hashes,
            s,
            h,
            hash,
            span,
        )
    }

    /// The slot of the key of `s` (with string hashes `h` and key hash `hash`), made if new, with `span` counted.
    #[allow(clippy::too_many_arguments)]
    fn find_or_add_in(
        strings: &mut Strings,
        indexes: &mut MonthIndexes,
        entries: &mut Vec<Entry>,
        hashes: &mut Vec<u64>,
        s: &Sighting<'_>,
        h: &[u64; 5],
        hash: u64,
        span: Span,
    ) -> u32 {
        let index = indexes.get(s.month);
        if let Some(slot) = index.find(hash, |slot| strings.matches(&entries[slot as usize], s)) {
            entries[slot as usize].span.merge(span);
            return slot;
        }
        let slot = entries.len() as u32;
        entries.push(Entry {
            key: strings.key(s, h),
            span,
        });
        hashes.push(hash);
        index.insert(hash, slot, |slot| hashes[slot as usize]);
        slot
    }

    pub fn finish(mut self) -> Sightings {
        for way in Recent::ways() {
            self.look_up_waiting(way);
        }
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
        let sizes = [
            users.len(),
            uas.len(),
            app_device_ids.len(),
            ch_models.len(),
            ch_platform_versions.len(),
            months.len(),
        ];
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
            let mut rows: Vec<(u64, Span)> = self
                .entries
                .iter()
                .map(|e| (packing.pack(codes(&e.key)), e.span))
                .collect();
            rows.sort_unstable_by_key(|r| r.0);
            rows.into_iter()
                .for_each(|(k, span)| out.push(packing.unpack(k), span));
        } else {
            let mut rows: Vec<([u32; 6], Span)> = self
                .entries
                .iter()
                .map(|e| (codes(&e.key), e.span))
                .collect();
            rows.sort_unstable_by_key(|r| r.0);
            rows.into_iter().for_each(|(k, span)| out.push(k, span));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// A seeded stream over a small alphabet, so keys repeat within the recent ways, wait, come back after
    /// their lookup, and mix with keys too long to copy (a 40-byte user, a 300-byte agent) or with an app id;
    /// months go back and forth. The aggregate must equal a plain map's, row for row.
    #[test]
    fn deferred_lookups_give_the_same_table_as_a_plain_map() {
        let long_user = "u".repeat(40);
        let long_ua = format!("Mozilla/5.0 {}", "x".repeat(300));
        let users: Vec<String> = (0..12)
            .map(|i| format!("user{i}"))
            .chain([long_user])
            .collect();
        let uas: Vec<String> = (0..5)
            .map(|i| format!("Agent/{i}.0"))
            .chain([long_ua])
            .collect();
        let apps = ["", "", "", "app-7"];
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        let mut agg = Aggregator::default();
        type Key = (String, String, String, i32); // user, agent, app id, month
        type Counts = (i64, i64, i64); // first, last, hits
        let mut want: BTreeMap<Key, Counts> = BTreeMap::new();
        for _ in 0..20_000 {
            let (u, a, app, month) = (
                &users[next(users.len())],
                &uas[next(uas.len())],
                apps[next(4)],
                next(3) as i32,
            );
            let unix_s = month as i64 * 2_600_000 + next(1_000_000) as i64;
            agg.add(&Sighting {
                user: u.as_bytes(),
                ua: a.as_bytes(),
                app_device_id: app.as_bytes(),
                ch_model: b"",
                ch_platform_version: b"",
                month,
                unix_s,
            });
            let e = want
                .entry((u.clone(), a.clone(), app.to_string(), month))
                .or_insert((unix_s, unix_s, 0));
            *e = (e.0.min(unix_s), e.1.max(unix_s), e.2 + 1);
        }
        let got = agg.finish();
        assert_eq!(got.len(), want.len());
        for (i, ((u, a, app, month), (first, last, hits))) in want.iter().enumerate() {
            let row = got.row(i);
            assert_eq!(
                (row.0, row.1, row.2),
                (u.as_str(), a.as_str(), app.as_str())
            );
            assert_eq!(row.5, month_label(*month));
            assert_eq!((row.6, row.7, row.8), (*first, *last, *hits));
        }
    }
}
