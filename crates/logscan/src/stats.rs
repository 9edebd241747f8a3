//! Counts of a scan. Invariants: `parsed + sum(malformed) == lines_read` and
//! `kept + filtered_event + filtered_status + filtered_user == parsed`.

use crate::record::{Reason, REASONS};

/// A gzip stream that ended early or was corrupt: the lines before the break were scanned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GzipError {
    pub file: String,
    /// `truncated` (the stream stops before its end) or `corrupt`.
    pub error: &'static str,
    pub detail: String,
    /// Bytes of the incomplete last line that were dropped.
    pub dropped_bytes: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Lines seen, blank ones excluded.
    pub lines_read: u64,
    /// Lines with the format's structure, a user agent and a valid time (kept or filtered).
    pub parsed: u64,
    pub kept: u64,
    pub filtered_event: u64,
    pub filtered_status: u64,
    /// Well-formed lines without a user (`-` or empty): nothing to attribute them to.
    pub filtered_user: u64,
    /// Indexed by `Reason`.
    pub malformed: [u64; 6],
    /// Empty or whitespace-only lines (and CSV header rows are not counted anywhere).
    pub blank_lines: u64,
    /// Bytes read from the files (compressed bytes for gzip).
    pub bytes_read: u64,
    pub files: u64,
    /// The format used for each file, in order (`empty` if `auto` found no line to decide on).
    pub formats: Vec<(String, &'static str)>,
    pub gzip_errors: Vec<GzipError>,
}

impl Stats {
    pub fn malformed_total(&self) -> u64 {
        self.malformed.iter().sum()
    }

    pub fn malformed_by_name(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        REASONS
            .iter()
            .map(|&r| (r.name(), self.malformed[r as usize]))
    }

    pub fn count(&mut self, reason: Reason) {
        self.malformed[reason as usize] += 1;
    }
}
