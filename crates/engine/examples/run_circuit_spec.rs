//! Run one circuit-engine spec (docs/circuit-engine.md) from a JSON file and print the run's summary as JSON:
//! the circuit engine alone, without Python, for counting its work with an outside tool (valgrind's callgrind).
//! `cargo run --release -p greendcn-engine --example run_circuit_spec -- spec.json`

#![allow(clippy::print_stdout)]

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: run_circuit_spec SPEC.json");
    let text = std::fs::read_to_string(&path).expect("spec file readable");
    let out = greendcn_engine::circuit::run_json_watched(&text, &mut |_| false)
        .expect("the run succeeds");
    let v: serde_json::Value = serde_json::from_str(&out).expect("results are JSON");
    println!("{}", v["summary"]);
}
