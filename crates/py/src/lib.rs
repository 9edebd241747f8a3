//! PyO3 bindings of the greendcn engine. This crate only converts: a JSON spec in, JSON results out,
//! engine errors to Python exceptions, and panics to `EngineCrash` so that Python never aborts.

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

create_exception!(_engine, EngineInputError, PyValueError);
create_exception!(_engine, EngineCrash, PyRuntimeError);

/// Run one simulation. `spec_json` follows docs/engine-spec.md; returns the results as JSON text.
/// The GIL is released while the engine runs.
#[pyfunction]
fn run(py: Python<'_>, spec_json: &str) -> PyResult<String> {
    let spec = spec_json.to_owned();
    let mut signal: Option<PyErr> = None;
    let outcome = py.detach(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // Now and then take the GIL back to let Ctrl-C through.
            let mut interrupted = || match Python::attach(|py| py.check_signals()) {
                Ok(()) => false,
                Err(e) => {
                    signal = Some(e);
                    true
                }
            };
            greendcn_engine::run_json(&spec, &mut interrupted)
        }))
    });
    match outcome {
        Ok(Ok(text)) => Ok(text),
        Ok(Err(greendcn_engine::EngineError::Interrupted)) => {
            Err(signal.unwrap_or_else(|| pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted")))
        }
        Ok(Err(e)) => Err(EngineInputError::new_err(e.to_string())),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(EngineCrash::new_err(format!("engine bug (please report): {msg}")))
        }
    }
}

#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add("EngineInputError", m.py().get_type::<EngineInputError>())?;
    m.add("EngineCrash", m.py().get_type::<EngineCrash>())?;
    Ok(())
}
