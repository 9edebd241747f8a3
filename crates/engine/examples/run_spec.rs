//! Run one engine spec (docs/engine-spec.md) from a JSON file and print the run's summary as JSON: the engine
//! alone, without Python, for timing it with an outside tool (`/usr/bin/time -v`).
//! `cargo run --release -p greendcn-engine --example run_spec -- spec.json`

#![allow(clippy::print_stdout)]

fn main() {
    let path = std::env::args().nth(1).expect("usage: run_spec SPEC.json");
    let text = std::fs::read_to_string(&path).expect("spec file readable");
    let spec: greendcn_engine::spec::SimSpec = serde_json::from_str(&text).expect("a valid spec");
    let r = greendcn_engine::run(&spec, &mut || false).expect("the run succeeds");
    let s = &r.summary;
    println!(
        "{{\"events\": {}, \"packet_hops\": {}, \"wall_s\": {}, \"flows_completed\": {}, \"hops_per_s\": {:.0}}}",
        s.events,
        s.packet_hops,
        s.wall_s,
        s.flows_completed,
        s.packet_hops as f64 / s.wall_s
    );
}
