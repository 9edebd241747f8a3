//! PyO3 bindings of the greendcn engine and the access-log scanner. This crate only converts: a JSON spec in,
//! JSON results out (logscan.rs: options in, columns out), errors to Python exceptions (a spec error carries its
//! field's location as data), and panics to `NativePanic` so that Python never aborts.

use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};

use greendcn_engine::spec::{FlowSpec, Transport};
use greendcn_engine::{EngineError, Loc, LocItem};

use columns::TRANSPORTS;

mod circuit;
mod columns;
mod logscan;

// The binding's own exception types; greendcn.sim.engine turns them into the package's one exception tree
// (greendcn.core.errors.EngineInputError, EngineCrash), so their names differ from those on purpose.
create_exception!(_native, SpecError, PyValueError);
create_exception!(_native, NativePanic, PyRuntimeError);

fn panic_message(panic: Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".to_string())
}

/// Why guarded work stopped early: Ctrl-C (or a callback that asked to stop), or an exception to raise.
pub(crate) enum Stop {
    Interrupted,
    Raise(PyErr),
}

/// A spec error as a Python `SpecError(message, loc, msg)`: `loc` is a tuple of keys (str) and indices (int),
/// pydantic-core style, and `msg` the message without its location.
pub(crate) fn spec_error(e: &EngineError) -> PyErr {
    let message = e.to_string();
    let (loc, msg) = match e {
        EngineError::Parse { loc, msg } | EngineError::Invalid { loc, msg } => {
            (loc.clone(), msg.clone())
        }
        EngineError::Interrupted => (Loc::default(), message.clone()),
    };
    Python::attach(|py| {
        let items: Vec<Py<PyAny>> = loc
            .0
            .iter()
            .map(|item| match item {
                LocItem::Key(k) => k
                    .clone()
                    .into_pyobject(py)
                    .map(|o| o.into_any().unbind())
                    .map_err(PyErr::from),
                LocItem::Index(i) => i
                    .into_pyobject(py)
                    .map(|o| o.into_any().unbind())
                    .map_err(PyErr::from),
            })
            .collect::<PyResult<_>>()?;
        let loc_tuple = PyTuple::new(py, items)?;
        Ok::<PyErr, PyErr>(SpecError::new_err((
            message.clone(),
            loc_tuple.unbind(),
            msg.clone(),
        )))
    })
    .unwrap_or_else(|err| err)
}

impl From<EngineError> for Stop {
    fn from(e: EngineError) -> Self {
        match e {
            EngineError::Interrupted => Stop::Interrupted,
            e => Stop::Raise(spec_error(&e)),
        }
    }
}

/// Run `work` without the GIL, letting Ctrl-C through and turning errors and panics into exceptions.
pub(crate) fn guarded<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce(&mut dyn FnMut() -> bool) -> Result<T, Stop> + Send,
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
        Ok(Ok(value)) => Ok(value),
        Ok(Err(Stop::Interrupted)) => {
            Err(signal.unwrap_or_else(|| PyKeyboardInterrupt::new_err("interrupted")))
        }
        Ok(Err(Stop::Raise(e))) => Err(e),
        Err(panic) => Err(NativePanic::new_err(format!(
            "engine bug (please report): {}",
            panic_message(panic)
        ))),
    }
}

/// A watcher for the engine: calls `progress` about once a second and stops the run on Ctrl-C. A Ctrl-C that
/// lands while the progress callback runs surfaces as the callback's KeyboardInterrupt: it stops the run too
/// (before, the callback's error was dropped and with it the user's Ctrl-C).
pub(crate) fn watcher<'a>(
    progress: &'a Option<Py<PyAny>>,
    interrupted: &'a mut dyn FnMut() -> bool,
) -> impl FnMut(&greendcn_engine::Progress) -> bool + 'a {
    let mut last = std::time::Instant::now();
    move |p: &greendcn_engine::Progress| {
        if let Some(cb) = progress {
            if last.elapsed() >= std::time::Duration::from_secs(1) {
                last = std::time::Instant::now();
                // A progress callback that fails otherwise must not stop the run: the report is a courtesy.
                let stop = Python::attach(|py| {
                    let res = cb.call1(py, (p.now_ps, p.stop_ps, p.events, p.flows_done, p.flows));
                    matches!(res, Err(e) if e.is_instance_of::<PyKeyboardInterrupt>(py))
                });
                if stop {
                    return true;
                }
            }
        }
        interrupted()
    }
}

/// Run one simulation. `spec_json` follows docs/engine-spec.md; returns the results as JSON text.
/// The GIL is released while the engine runs. `progress`, if given, is called about once a second with
/// (simulated ps, stop ps or None, events, flows done, flows). Ctrl-C stops the run and returns the results
/// so far, with `summary.stopped_by = "interrupted"`: the caller decides whether to keep them.
#[pyfunction]
#[pyo3(signature = (spec_json, progress=None))]
fn run(py: Python<'_>, spec_json: &str, progress: Option<Py<PyAny>>) -> PyResult<String> {
    let spec = spec_json.to_owned();
    guarded(py, move |interrupted| {
        let mut watch = watcher(&progress, interrupted);
        Ok(greendcn_engine::run_json_watched(&spec, &mut watch)?)
    })
}

/// Column `name` of `cols` (name, little-endian bytes) as the bytes of `n` u64 values.
fn u64_bytes<'a>(
    cols: &[(String, &'a [u8])],
    name: &str,
    n: usize,
) -> Result<&'a [u8], EngineError> {
    let b = cols
        .iter()
        .find(|(c, _)| c == name)
        .map(|(_, b)| *b)
        .ok_or_else(|| EngineError::invalid("flows", format!("column {name} is missing")))?;
    if b.len() != 8 * n {
        return Err(EngineError::invalid(
            "flows",
            format!("column {name} has {} bytes, not {}", b.len(), 8 * n),
        ));
    }
    Ok(b)
}

/// Column `name` of `cols` (name, little-endian bytes) as `n` u64 values.
pub(crate) fn u64_column(
    cols: &[(String, &[u8])],
    name: &str,
    n: usize,
) -> Result<Vec<u64>, EngineError> {
    Ok(u64_bytes(cols, name, n)?
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect())
}

/// The spec's flows from columns: (name, little-endian bytes) for `id`, `src`, `dst`, `size_bytes`, `start_ps`,
/// `rate_bps` and `handshake_ps` (u64 each) and `transport` (one byte, a code into `TRANSPORTS`); `rate_bps`
/// counts for UDP flows only. Each flow is read straight from the buffers, with no copy of a column between.
fn flows_from_columns(cols: &[(String, &[u8])]) -> Result<Vec<FlowSpec>, EngineError> {
    let find = |name: &str| cols.iter().find(|(n, _)| n == name).map(|(_, b)| *b);
    let n = find("id").map_or(0, |b| b.len() / 8);
    let u64s = |name: &str| {
        u64_bytes(cols, name, n).map(|b| {
            move |i: usize| u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().expect("8 bytes"))
        })
    };
    let (id, src, dst, size, start, rate, hs) = (
        u64s("id")?,
        u64s("src")?,
        u64s("dst")?,
        u64s("size_bytes")?,
        u64s("start_ps")?,
        u64s("rate_bps")?,
        u64s("handshake_ps")?,
    );
    let codes = find("transport")
        .filter(|b| b.len() == n)
        .ok_or_else(|| EngineError::invalid("flows", "column transport"))?;
    let node = |v: u64, i: usize, field: &str| {
        u32::try_from(v)
            .map_err(|_| EngineError::invalid(&format!("flows[{i}].{field}"), "no such node"))
    };
    (0..n)
        .map(|i| {
            let transport = *TRANSPORTS.get(usize::from(codes[i])).ok_or_else(|| {
                EngineError::invalid(&format!("flows[{i}].transport"), "unknown transport code")
            })?;
            let udp = transport == Transport::Udp;
            Ok(FlowSpec {
                id: id(i),
                src: node(src(i), i, "src")?,
                dst: node(dst(i), i, "dst")?,
                size_bytes: size(i),
                start_ps: start(i),
                transport,
                rate_bps: udp.then_some(rate(i)),
                handshake_ps: hs(i),
            })
        })
        .collect()
}

/// `run`, with the result tables handed back as columns instead of JSON: returns (the results JSON with empty
/// `flows`, `links` and `nodes` and a null `series`, a dict of the tables: `flows`, `links` and `nodes` each a
/// list of (column name, numpy type code, bytes) in the order of docs/engine-spec.md, `series` None or a dict
/// of `window_ps` and (rows, row-major bytes) per series). A million flows then cost their bytes, not a Python
/// object each. `flows`, if given, are the spec's flows as columns (the spec's own `flows` then empty).
#[pyfunction]
#[pyo3(signature = (spec_json, progress=None, flows=None))]
fn run_columns(
    py: Python<'_>,
    spec_json: &str,
    progress: Option<Py<PyAny>>,
    flows: Option<Vec<(String, Py<PyBytes>)>>,
) -> PyResult<(String, Py<PyDict>)> {
    let spec = spec_json.to_owned();
    // The flows are read from the Python buffers in place, before the run (and its release of the GIL).
    let flow_specs = match &flows {
        Some(cols) => {
            let views: Vec<(String, &[u8])> = cols
                .iter()
                .map(|(n, b)| (n.clone(), b.as_bytes(py)))
                .collect();
            Some(flows_from_columns(&views).map_err(|e| spec_error(&e))?)
        }
        None => None,
    };
    let (text, specs, rows, results) = guarded(py, move |interrupted| {
        let mut watch = watcher(&progress, interrupted);
        let mut parsed = greendcn_engine::parse_spec(&spec)?;
        if let Some(f) = flow_specs {
            parsed.flows = f;
        }
        let (mut results, rows) = greendcn_engine::run_watched_rows(&parsed, &mut watch)?;
        let specs = std::mem::take(&mut parsed.flows);
        drop(parsed);
        let tables = (
            std::mem::take(&mut results.links),
            std::mem::take(&mut results.nodes),
            results.series.take(),
        );
        let text = serde_json::to_string(&results).expect("results always serialize");
        Ok((text, specs, rows, tables))
    })?;
    let (links, nodes, series) = results;
    let tables = PyDict::new(py);
    let given = flows.as_deref().unwrap_or_default();
    tables.set_item("flows", columns::flow_columns(py, &specs, &rows, given)?)?;
    drop(flows);
    drop((specs, rows));
    tables.set_item("links", columns::link_columns(py, &links)?)?;
    tables.set_item("nodes", columns::node_columns(py, &nodes)?)?;
    match &series {
        Some(s) => tables.set_item("series", columns::series_dict(py, s)?)?,
        None => tables.set_item("series", py.None())?,
    }
    Ok((text, tables.unbind()))
}

/// Run one circuit-fabric simulation (docs/circuit-engine.md): the same contract as `run`, with a
/// circuit spec in and circuit results out.
#[pyfunction]
#[pyo3(signature = (spec_json, progress=None))]
fn run_circuit(py: Python<'_>, spec_json: &str, progress: Option<Py<PyAny>>) -> PyResult<String> {
    let spec = spec_json.to_owned();
    guarded(py, move |interrupted| {
        let mut watch = watcher(&progress, interrupted);
        Ok(greendcn_engine::circuit::run_json_watched(
            &spec, &mut watch,
        )?)
    })
}

/// Opera's listed paths of one slice as the circuit engine computes them (`routing.opera_paths`), for
/// cross-checks: per `src * racks + dst`, up to `k` paths, each the switches it leaves by.
#[pyfunction]
fn _opera_listed_paths(
    k: u8,
    racks: u32,
    switches: u32,
    circuits: Vec<u32>,
) -> PyResult<Vec<Vec<Vec<u32>>>> {
    if circuits.len() != (racks * switches) as usize {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "circuits must hold racks x switches entries",
        ));
    }
    Ok(greendcn_engine::circuit::sim::listed_switch_paths(
        k, racks, switches, &circuits,
    ))
}

/// Panics inside the guarded path on purpose, so tests can check that a panic becomes NativePanic.
#[pyfunction]
fn _panic_for_tests(py: Python<'_>) -> PyResult<String> {
    guarded(py, |_| -> Result<String, Stop> {
        panic!("deliberate panic for the binding test")
    })
}

#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(run_columns, m)?)?;
    m.add_function(wrap_pyfunction!(run_circuit, m)?)?;
    m.add_function(wrap_pyfunction!(circuit::run_circuit_columns, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(_opera_listed_paths, m)?)?;
    m.add("SpecError", m.py().get_type::<SpecError>())?;
    m.add("NativePanic", m.py().get_type::<NativePanic>())?;
    logscan::register(m)?;
    Ok(())
}
