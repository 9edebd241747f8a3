//! Circuit-switched fabrics (seed 001 chapter 2): rotor and selector switches with cyclic schedules, TDMA
//! senders, direct, RotorLB and SelectorNet multi-hop routing. A run is its own spec and result
//! (`CircuitSpec`, `CircuitResults`), sharing the packet engine's event queue, units, RNG and error type.

mod hostlink;
mod pairlists;
pub mod results;
pub mod rotorlb;
mod roundlists;
pub mod schedule;
pub mod sim;
pub mod spec;
mod validate;

pub use results::CircuitResults;
pub use sim::CircuitSim;
pub use spec::CircuitSpec;

use crate::error::{EngineError, Loc};

/// Parse a JSON circuit spec, run it with a watcher (see `crate::run_watched`), return the JSON results.
pub fn run_json_watched(
    spec_json: &str,
    watch: &mut dyn FnMut(&crate::Progress) -> bool,
) -> Result<String, EngineError> {
    let de = &mut serde_json::Deserializer::from_str(spec_json);
    let spec: CircuitSpec = serde_path_to_error::deserialize(de).map_err(|e| {
        let loc = Loc::parse(&e.path().to_string());
        EngineError::Parse {
            loc,
            msg: e.into_inner().to_string(),
        }
    })?;
    let results = CircuitSim::new(&spec)?.run(watch)?;
    Ok(serde_json::to_string(&results).expect("results always serialize"))
}
