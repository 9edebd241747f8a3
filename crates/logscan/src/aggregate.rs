//! The sightings table: one entry per distinct (user, UA, app device id, client hints, month) with first and
//! last access and hits, so memory grows with distinct keys, not with lines.

use crate::keys::{key_hash, recent_tag, string_hashes, Strings};
use crate::month_index::MonthIndexes;
use crate::recent::Recent;
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

pub struct Entry {
    pub key: Key,
    pub span: Span,
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
        let found = recent.find(tag, s, |slot| strings.matches(&entries[slot as usize], s));
        let slot = match found {
            Some((slot, promote)) => {
                if promote {
                    recent.remember(tag, s, slot);
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
                        entries.push(Entry {
                            key: strings.key(s, &h),
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
                recent.remember(tag, s, slot);
                slot
            }
        };
        let span = &mut entries[slot as usize].span;
        span.first_s = span.first_s.min(s.unix_s);
        span.last_s = span.last_s.max(s.unix_s);
        span.hits += 1;
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

