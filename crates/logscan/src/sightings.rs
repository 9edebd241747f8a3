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

/// Codes of the six key columns packed into one `u64`, the first column in the highest bits, so that the packed
/// values sort like the code tuples.
pub(crate) struct Packing {
    /// Bits per column.
    bits: [u32; 6],
}

impl Packing {
    pub(crate) fn new(sizes: [usize; 6]) -> Packing {
        Packing {
            bits: sizes.map(|n| usize::BITS - n.saturating_sub(1).leading_zeros()),
        }
    }

    pub(crate) fn fits(&self) -> bool {
        self.bits.iter().sum::<u32>() <= 64
    }

    pub(crate) fn pack(&self, codes: [u32; 6]) -> u64 {
        codes.iter().zip(self.bits).fold(
            0u64,
            |acc, (&c, b)| if b == 0 { acc } else { acc << b | u64::from(c) },
        )
    }

    pub(crate) fn unpack(&self, mut v: u64) -> [u32; 6] {
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
