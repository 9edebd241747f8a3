//! greendcn-engine: a packet-level datacenter network simulator with exact counters for energy accounting.
//! Pure Rust, no Python: `run(&SimSpec)` moves packets through links, queues and switches and returns
//! per-flow, per-link and per-node counters. Python prices those counters in watts and joules.

pub mod error;
pub mod spec;

pub use error::EngineError;
pub use spec::SimSpec;

/// Parse a JSON spec, run it, and return the JSON results.
pub fn run_json(spec_json: &str) -> Result<String, EngineError> {
    let spec: SimSpec = serde_json::from_str(spec_json).map_err(|e| EngineError::Parse(e.to_string()))?;
    Err(EngineError::Invalid(format!("engine not built yet ({} nodes)", spec.nodes.len())))
}
