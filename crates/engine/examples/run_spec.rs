//! Run one engine spec (docs/engine-spec.md) from a JSON file and print the run's summary as JSON: the engine
//! alone, without Python, for timing it with an outside tool (`/usr/bin/time -v`). `cpu_s` is the CPU time of
//! the run alone (spec parsing and setup excluded; Linux, from /proc/self/schedstat, else null): on a shared
//! machine it moves far less than `wall_s`. `peak_rss_mb` is the process's peak resident memory (Linux, VmHWM).
//! With a second path, the whole results are written there as JSON too (to compare two builds' results).
//! `cargo run --release -p greendcn-engine --example run_spec -- spec.json [results.json]`

#![allow(clippy::print_stdout)]

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: run_spec SPEC.json [RESULTS.json]");
    let text = std::fs::read_to_string(&path).expect("spec file readable");
    let spec: greendcn_engine::spec::SimSpec = serde_json::from_str(&text).expect("a valid spec");
    let cpu0 = cpu_ns();
    let r = greendcn_engine::run(&spec, &mut || false).expect("the run succeeds");
    let cpu_s = cpu_ns().zip(cpu0).map_or("null".to_string(), |(b, a)| {
        format!("{:.3}", (b - a) as f64 / 1e9)
    });
    if let Some(out) = std::env::args().nth(2) {
        std::fs::write(out, serde_json::to_string(&r).expect("results serialize"))
            .expect("results file writable");
    }
    let s = &r.summary;
    println!(
        "{{\"events\": {}, \"packet_hops\": {}, \"wall_s\": {}, \"flows_completed\": {}, \"hops_per_s\": {:.0}, \"cpu_s\": {}, \"peak_rss_mb\": {}}}",
        s.events,
        s.packet_hops,
        s.wall_s,
        s.flows_completed,
        s.packet_hops as f64 / s.wall_s,
        cpu_s,
        peak_rss_kb().map_or("null".to_string(), |kb| format!("{:.1}", kb as f64 / 1024.0))
    );
}

/// Nanoseconds this thread has run on a CPU (the first field of /proc/self/schedstat).
fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The process's peak resident set in kB (VmHWM in /proc/self/status).
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
