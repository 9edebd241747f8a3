//! One-pass access-log scanner for greendcn.lifetime (docs/lifetime.md, "Input formats and malformed lines").
//!
//! Reads Apache/nginx `combined` logs, CSV and JSON lines, plain or gzip; counts malformed lines by reason;
//! applies event and status filters; and aggregates the kept lines to one sighting per distinct (user, UA, app
//! device id, client hints, UTC month). No Python here: the binding (crates/py) only converts.

pub mod aggregate;
pub mod classify;
pub mod combined;
pub mod config;
pub mod csv;
pub mod error;
mod index;
pub mod input;
pub mod intern;
pub mod jsonl;
mod keys;
pub mod lines;
mod month_index;
mod prefetch;
mod recent;
pub mod record;
pub mod scanner;
pub mod sightings;
pub mod stats;
pub mod time;

pub use config::{Format, ScanConfig};
pub use error::ScanError;
pub use record::{Reason, REASONS};
pub use scanner::Scanner;
pub use sightings::Sightings;
pub use stats::{GzipError, Stats};

/// Scan `paths` in order into one table. `progress(bytes)` is called now and then with the bytes read so far
/// (all files); returning `false` stops the scan with `ScanError::Interrupted`.
pub fn scan_paths(
    config: &ScanConfig,
    paths: &[String],
    progress: &mut dyn FnMut(u64) -> bool,
) -> Result<(Sightings, Stats), ScanError> {
    let mut scanner = Scanner::new(config);
    for path in paths {
        scanner.scan_path(path, progress)?;
    }
    Ok(scanner.finish())
}
