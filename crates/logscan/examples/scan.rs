//! Scan the files named on the command line and print the counts and timing (for profiling the scanner).
// An example program: it prints what it found.
#![allow(clippy::print_stdout)]

use std::time::Instant;

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    let config = logscan::ScanConfig::default();
    let t = Instant::now();
    let mut scanner = logscan::Scanner::new(&config);
    for path in &paths {
        if let Err(e) = scanner.scan_path(path, &mut |_| true) {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
    let scanned = t.elapsed().as_secs_f64();
    let (sightings, stats) = scanner.finish();
    let s = t.elapsed().as_secs_f64();
    println!(
        "{} lines, {} kept, {} sightings, {} malformed, {:.2} s ({:.2} s scanning, {:.2} s finishing), \
         {:.2} M lines/s",
        stats.lines_read,
        stats.kept,
        sightings.len(),
        stats.malformed_total(),
        s,
        scanned,
        s - scanned,
        stats.lines_read as f64 / s / 1e6
    );
}
