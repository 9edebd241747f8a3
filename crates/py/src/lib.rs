//! PyO3 bindings of the greendcn engine. This crate only converts: a JSON spec in, JSON results out,
//! engine errors to Python exceptions, and panics to `EngineCrash` so that Python never aborts.

use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use greendcn_engine::EngineError;

create_exception!(_engine, EngineInputError, PyValueError);
create_exception!(_engine, EngineCrash, PyRuntimeError);

fn panic_message(panic: Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".to_string())
}

/// Run `work` without the GIL, letting Ctrl-C through and turning errors and panics into exceptions.
fn guarded<F>(py: Python<'_>, work: F) -> PyResult<String>
where
    F: FnOnce(&mut dyn FnMut() -> bool) -> Result<String, EngineError> + Send,
{
    let mut signal: Option<PyErr> = None;
    let outcome = py.detach(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // Now and then take the GIL back to see whether Ctrl-C was pressed.
            let mut interrupted = || match Python::attach(|py| py.check_signals()) {
                Ok(()) => false,
                Err(e) => {
                    signal = Some(e);
                    true
                }
            };
            work(&mut interrupted)
        }))
    });
    match outcome {
        Ok(Ok(text)) => Ok(text),
        Ok(Err(EngineError::Interrupted)) => {
            Err(signal.unwrap_or_else(|| PyKeyboardInterrupt::new_err("simulation interrupted")))
        }
        Ok(Err(e)) => Err(EngineInputError::new_err(e.to_string())),
        Err(panic) => Err(EngineCrash::new_err(format!("engine bug (please report): {}", panic_message(panic)))),
    }
}

/// Run one simulation. `spec_json` follows docs/engine-spec.md; returns the results as JSON text.
/// The GIL is released while the engine runs.
#[pyfunction]
fn run(py: Python<'_>, spec_json: &str) -> PyResult<String> {
    let spec = spec_json.to_owned();
    guarded(py, move |interrupted| greendcn_engine::run_json(&spec, interrupted))
}

/// Panics inside the guarded path on purpose, so tests can check that a panic becomes EngineCrash.
#[pyfunction]
fn _panic_for_tests(py: Python<'_>) -> PyResult<String> {
    guarded(py, |_| panic!("deliberate panic for the binding test"))
}

#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add("EngineInputError", m.py().get_type::<EngineInputError>())?;
    m.add("EngineCrash", m.py().get_type::<EngineCrash>())?;
    Ok(())
}
