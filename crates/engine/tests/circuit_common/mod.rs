//! Helpers shared by the circuit engine's integration tests: a spec run on its fast path and on the reference
//! path (every flow asked at every step), and the comparison of the two whole results.
#![allow(dead_code)]

use greendcn_engine::circuit::{CircuitSim, CircuitSpec};
use serde_json::{json, Value};

/// The whole results of `spec` on the fast path and on the reference path, as JSON.
pub fn fast_and_reference(spec: &CircuitSpec) -> (Value, Value) {
    let fast = CircuitSim::new(spec).unwrap().run(&mut |_| false).unwrap();
    let reference = CircuitSim::new(spec)
        .unwrap()
        .reference_path()
        .run(&mut |_| false)
        .unwrap();
    (
        serde_json::to_value(&fast).unwrap(),
        serde_json::to_value(&reference).unwrap(),
    )
}

/// The two results are the same but for the figures the paths are allowed to differ in: the event count (the
/// fast path skips events), the wall time and the peak of packets alive.
pub fn assert_same_results(mut a: Value, mut b: Value, what: &str) {
    for v in [&mut a, &mut b] {
        for k in ["events", "wall_s", "peak_packets_alive"] {
            v["summary"][k] = json!(0);
        }
    }
    assert_eq!(a, b, "{what}");
}

/// A seeded xorshift draw below `m`, for the tests' random flow sets (the same seed, the same flows).
pub fn draws(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut x = seed;
    move |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    }
}
