//! greendcn-engine: a packet-level datacenter network simulator with exact counters for energy accounting.
//! Pure Rust, no Python: `run` moves packets through links, queues and switches and returns per-flow,
//! per-link and per-node counters. Python prices those counters in watts and joules.

pub mod circuit;
pub mod dctcp;
pub mod eee;
pub mod error;
pub mod event;
pub mod hugevec;
pub mod linkstate;
pub mod ndp;
pub mod packet;
pub mod port;
pub mod results;
pub mod rng;
pub mod routing;
pub mod sim;
pub mod spec;
pub mod tcp;
pub mod units;
mod validate;
pub mod vlb;

pub use error::{EngineError, Loc, LocItem};
pub use results::SimResults;
pub use sim::Sim;
pub use spec::SimSpec;

/// How far a run has come, handed to the watcher of `run_watched` every 2^20 events.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub now_ps: u64,
    pub stop_ps: Option<u64>,
    pub events: u64,
    pub flows_done: u64,
    pub flows: u64,
}

/// How often (in events) a run hands its progress to its watcher and asks whether to stop (Ctrl-C).
pub(crate) const WATCH_EVERY: u64 = 1 << 20;

/// Every `WATCH_EVERY` events, hand the watcher the run's progress; true: the watcher asks the run to stop.
/// `flows_done` is counted only then (it walks the flows).
pub(crate) fn check_in(
    watch: &mut dyn FnMut(&Progress) -> bool,
    events: u64,
    now_ps: u64,
    stop_ps: Option<u64>,
    flows: u64,
    flows_done: impl FnOnce() -> u64,
) -> bool {
    events.is_multiple_of(WATCH_EVERY)
        && watch(&Progress {
            now_ps,
            stop_ps,
            events,
            flows_done: flows_done(),
            flows,
        })
}

/// Run one spec to completion (or its time limit). `interrupted` returning true stops the run: the results so
/// far come back with `stopped_by = "interrupted"`.
pub fn run(
    spec: &SimSpec,
    interrupted: &mut dyn FnMut() -> bool,
) -> Result<SimResults, EngineError> {
    Sim::new(spec)?.run(&mut |_: &Progress| interrupted())
}

/// `run` with a watcher that sees the progress now and then and may stop the run (returning true).
pub fn run_watched(
    spec: &SimSpec,
    watch: &mut dyn FnMut(&Progress) -> bool,
) -> Result<SimResults, EngineError> {
    Sim::new(spec)?.run(watch)
}

/// `run_watched`, with the results' `flows` empty and the flows' result rows beside them, in the spec's order
/// (`results::FlowRow::result` joins a row with its flow's spec).
pub fn run_watched_rows(
    spec: &SimSpec,
    watch: &mut dyn FnMut(&Progress) -> bool,
) -> Result<(SimResults, Vec<results::FlowRow>), EngineError> {
    Sim::new(spec)?.run_rows(watch)
}

/// Parse a JSON spec, run it, and return the JSON results.
pub fn run_json(
    spec_json: &str,
    interrupted: &mut dyn FnMut() -> bool,
) -> Result<String, EngineError> {
    run_json_watched(spec_json, &mut |_: &Progress| interrupted())
}

/// `run_json` with a watcher (see `run_watched`).
pub fn run_json_watched(
    spec_json: &str,
    watch: &mut dyn FnMut(&Progress) -> bool,
) -> Result<String, EngineError> {
    let results = run_watched(&parse_spec(spec_json)?, watch)?;
    Ok(serde_json::to_string(&results).expect("results always serialize"))
}

/// Parse a JSON spec; an error names the field it found wrong.
pub fn parse_spec(spec_json: &str) -> Result<SimSpec, EngineError> {
    let de = &mut serde_json::Deserializer::from_str(spec_json);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let loc = error::Loc::parse(&e.path().to_string());
        EngineError::Parse {
            loc,
            msg: e.into_inner().to_string(),
        }
    })
}
