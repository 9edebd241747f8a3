//! The scan's result: the sightings as columns, string columns coded into sorted dictionaries.

use crate::aggregate::Span;

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
    /// No rows yet, room for `n`.
    pub(crate) fn with_capacity(n: usize) -> Sightings {
        Sightings {
            user: Vec::with_capacity(n),
            ua: Vec::with_capacity(n),
            app_device_id: Vec::with_capacity(n),
            ch_model: Vec::with_capacity(n),
            ch_platform_version: Vec::with_capacity(n),
            month: Vec::with_capacity(n),
            first_s: Vec::with_capacity(n),
            last_s: Vec::with_capacity(n),
            hits: Vec::with_capacity(n),
            ..Sightings::default()
        }
    }

    /// Append a row: the six key codes and the span.
    pub(crate) fn push(&mut self, codes: [u32; 6], span: Span) {
        let [user, ua, app_device_id, ch_model, ch_platform_version, month] = codes;
        self.user.push(user);
        self.ua.push(ua);
        self.app_device_id.push(app_device_id);
        self.ch_model.push(ch_model);
        self.ch_platform_version.push(ch_platform_version);
        self.month.push(month);
        self.first_s.push(span.first_s);
        self.last_s.push(span.last_s);
        self.hits.push(span.hits as i64);
    }

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
