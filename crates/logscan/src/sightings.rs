//! The scan's result: the sightings as columns, string columns coded into sorted dictionaries.

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
