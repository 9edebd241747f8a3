//! The sightings table: one entry per distinct (user, UA, app device id, client hints, month) with first and
//! last access and hits, so memory grows with distinct keys, not with lines.

use rustc_hash::FxHashMap;

use crate::intern::Interner;
use crate::recent::Recent;
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

#[derive(Default)]
pub struct Aggregator {
    users: Interner,
    uas: Interner,
    app_device_ids: Interner,
    ch_models: Interner,
    ch_platform_versions: Interner,
    /// Where each key's span is in `spans`.
    slots: FxHashMap<Key, u32>,
    spans: Vec<(Key, Span)>,
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

/// Columnar sightings sorted by (user, ua, app_device_id, ch_model, ch_platform_version, month): each string
/// column is a code into its dictionary, and each dictionary is sorted, so codes sort like the strings.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Sightings {
    pub users: Vec<String>,
    pub uas: Vec<String>,
    pub app_device_ids: Vec<String>,
    pub ch_models: Vec<String>,
    pub ch_platform_versions: Vec<String>,
    pub months: Vec<String>,
    pub user: Vec<u32>,
    pub ua: Vec<u32>,
    pub app_device_id: Vec<u32>,
    pub ch_model: Vec<u32>,
    pub ch_platform_version: Vec<u32>,
    pub month: Vec<u32>,
    pub first_s: Vec<i64>,
    pub last_s: Vec<i64>,
    pub hits: Vec<i64>,
}

impl Sightings {
    pub fn len(&self) -> usize {
        self.hits.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hits.is_empty()
    }

    /// Row `i` as strings (for tests and small outputs).
    pub fn row(&self, i: usize) -> (&str, &str, &str, &str, &str, &str, i64, i64, i64) {
        (
            &self.users[self.user[i] as usize],
            &self.uas[self.ua[i] as usize],
            &self.app_device_ids[self.app_device_id[i] as usize],
            &self.ch_models[self.ch_model[i] as usize],
            &self.ch_platform_versions[self.ch_platform_version[i] as usize],
            &self.months[self.month[i] as usize],
            self.first_s[i],
            self.last_s[i],
            self.hits[i],
        )
    }
}

impl Aggregator {
    pub fn add(&mut self, s: &Sighting<'_>) {
        let tag = self.recent.tag(s);
        let slot = match self.recent.find(tag, s) {
            Some(slot) => slot,
            None => {
                let key = Key {
                    user: self.users.id(s.user),
                    ua: self.uas.id(s.ua),
                    app_device_id: self.app_device_ids.id(s.app_device_id),
                    ch_model: self.ch_models.id(s.ch_model),
                    ch_platform_version: self.ch_platform_versions.id(s.ch_platform_version),
                    month: s.month,
                };
                let next = self.spans.len() as u32;
                let slot = *self.slots.entry(key).or_insert(next);
                if slot == next {
                    self.spans.push((
                        key,
                        Span {
                            first_s: s.unix_s,
                            last_s: s.unix_s,
                            hits: 0,
                        },
                    ));
                }
                self.recent.remember(tag, s, slot);
                slot
            }
        };
        let span = &mut self.spans[slot as usize].1;
        span.first_s = span.first_s.min(s.unix_s);
        span.last_s = span.last_s.max(s.unix_s);
        span.hits += 1;
    }

    /// Distinct keys so far (what the memory grows with).
    pub fn keys(&self) -> usize {
        self.spans.len()
    }

    pub fn finish(self) -> Sightings {
        let (users, user_rank) = self.users.into_sorted();
        let (uas, ua_rank) = self.uas.into_sorted();
        let (app_device_ids, app_rank) = self.app_device_ids.into_sorted();
        let (ch_models, model_rank) = self.ch_models.into_sorted();
        let (ch_platform_versions, pv_rank) = self.ch_platform_versions.into_sorted();
        let mut rows: Vec<(Key, Span)> = self
            .spans
            .into_iter()
            .map(|(k, v)| {
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
