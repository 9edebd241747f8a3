//! Helpers shared by the scanner's tests: scan bytes in memory, gzip them, read rows back as strings.
#![allow(dead_code)]

use std::io::{Cursor, Write};

use flate2::write::GzEncoder;
use flate2::Compression;
use logscan::input::Input;
use logscan::{ScanConfig, Scanner, Sightings, Stats};

pub type Row = (
    String,
    String,
    String,
    String,
    String,
    String,
    i64,
    i64,
    i64,
);

pub fn scan_many(config: &ScanConfig, files: &[&[u8]]) -> (Sightings, Stats) {
    let mut scanner = Scanner::new(config);
    for (i, data) in files.iter().enumerate() {
        let input = Input::new(Cursor::new(data.to_vec())).expect("in-memory read");
        scanner
            .scan_input(&format!("file{i}"), input, &mut |_| true)
            .expect("scan");
    }
    scanner.finish()
}

pub fn scan(config: &ScanConfig, data: &[u8]) -> (Sightings, Stats) {
    scan_many(config, &[data])
}

pub fn rows(s: &Sightings) -> Vec<Row> {
    (0..s.len())
        .map(|i| {
            let r = s.row(i);
            (
                r.0.into(),
                r.1.into(),
                r.2.into(),
                r.3.into(),
                r.4.into(),
                r.5.into(),
                r.6,
                r.7,
                r.8,
            )
        })
        .collect()
}

pub fn malformed(stats: &Stats, reason: &str) -> u64 {
    stats
        .malformed_by_name()
        .find(|(n, _)| *n == reason)
        .map(|(_, c)| c)
        .expect("known reason")
}

/// Checks the two invariants every scan must keep.
pub fn check_invariants(stats: &Stats) {
    assert_eq!(
        stats.parsed + stats.malformed_total(),
        stats.lines_read,
        "{stats:?}"
    );
    assert_eq!(
        stats.kept + stats.filtered_event + stats.filtered_status + stats.filtered_user,
        stats.parsed,
        "{stats:?}"
    );
}

pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

pub fn config(fmt: &str) -> ScanConfig {
    ScanConfig::new(fmt, &[], None, None, 65536).unwrap()
}

pub const UA: &str =
    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";

/// One combined line.
pub fn combined(user: &str, time: &str, request: &str, status: u16, ua: &str) -> String {
    format!("10.0.0.1 - {user} [{time}] \"{request}\" {status} 512 \"-\" \"{ua}\"\n")
}

/// The combined log's time of a Unix second written at a UTC offset (`DD/Mon/YYYY:HH:MM:SS +HHMM`).
pub fn clf_time(unix_s: i64, offset_s: i64) -> String {
    let local = unix_s + offset_s;
    let days = local.div_euclid(86_400);
    let (y, m) = logscan::time::civil_month(days);
    let d = days - logscan::time::days_from_civil(y, m, 1) + 1;
    let s = local.rem_euclid(86_400);
    let mon = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ][m as usize - 1];
    let sign = if offset_s < 0 { '-' } else { '+' };
    let off = offset_s.abs();
    format!(
        "{d:02}/{mon}/{y}:{:02}:{:02}:{:02} {sign}{:02}{:02}",
        s / 3600,
        s / 60 % 60,
        s % 60,
        off / 3600,
        off / 60 % 60
    )
}
