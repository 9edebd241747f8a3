//! Scan the files named on the command line and print the counts and timing (for profiling the scanner).

use std::time::Instant;

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    let config = logscan::ScanConfig::default();
    let t = Instant::now();
    match logscan::scan_paths(&config, &paths, &mut |_| true) {
        Ok((sightings, stats)) => {
            let s = t.elapsed().as_secs_f64();
            println!(
                "{} lines, {} kept, {} sightings, {} malformed, {:.2} s, {:.2} M lines/s",
                stats.lines_read,
                stats.kept,
                sightings.len(),
                stats.malformed_total(),
                s,
                stats.lines_read as f64 / s / 1e6
            );
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
