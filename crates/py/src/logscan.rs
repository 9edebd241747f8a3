//! Binding of the access-log scanner (crates/logscan) for greendcn.lifetime.scan: paths and options in, the
//! sightings out as columns (little-endian code arrays in `bytes`, plus sorted string dictionaries) so that
//! Python builds its DataFrame without a loop over rows.

use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use ::logscan::{scan_paths, ScanConfig, ScanError, Sightings, Stats};

use crate::{guarded, Stop};

// args: (kind, where, message); kind is "io", "header" or "config", where a path or a field name.
create_exception!(_native, LogScanError, PyValueError);

/// The exception for a whole-scan failure.
fn scan_exception(e: ScanError) -> PyErr {
    match e {
        ScanError::Io { path, message } => LogScanError::new_err(("io", path, message)),
        ScanError::Header { path, message } => LogScanError::new_err(("header", path, message)),
        ScanError::Config { field, message } => LogScanError::new_err(("config", field, message)),
        ScanError::Interrupted => PyKeyboardInterrupt::new_err("scan interrupted"),
    }
}

fn le_bytes<T: Copy, const N: usize>(values: &[T], to: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    values.iter().flat_map(|&v| to(v)).collect()
}

fn stats_dict<'py>(py: Python<'py>, stats: &Stats) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (key, value) in [
        ("lines_read", stats.lines_read),
        ("parsed", stats.parsed),
        ("kept", stats.kept),
        ("filtered_event", stats.filtered_event),
        ("filtered_status", stats.filtered_status),
        ("filtered_user", stats.filtered_user),
        ("blank_lines", stats.blank_lines),
        ("bytes_read", stats.bytes_read),
        ("files", stats.files),
    ] {
        d.set_item(key, value)?;
    }
    let malformed = PyDict::new(py);
    for (reason, count) in stats.malformed_by_name() {
        malformed.set_item(reason, count)?;
    }
    d.set_item("malformed", malformed)?;
    d.set_item(
        "formats",
        stats
            .formats
            .iter()
            .map(|(f, fmt)| (f.as_str(), *fmt))
            .collect::<Vec<_>>(),
    )?;
    let errors = PyList::empty(py);
    for e in &stats.gzip_errors {
        let item = PyDict::new(py);
        item.set_item("file", &e.file)?;
        item.set_item("error", e.error)?;
        item.set_item("detail", &e.detail)?;
        item.set_item("dropped_bytes", e.dropped_bytes)?;
        errors.append(item)?;
    }
    d.set_item("gzip_errors", errors)?;
    Ok(d)
}

fn sightings_dict<'py>(py: Python<'py>, s: &Sightings) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (key, dict) in [
        ("users", &s.users),
        ("uas", &s.uas),
        ("app_device_ids", &s.app_device_ids),
        ("ch_models", &s.ch_models),
        ("ch_platform_versions", &s.ch_platform_versions),
        ("months", &s.months),
    ] {
        d.set_item(key, PyList::new(py, dict)?)?;
    }
    for (key, codes) in [
        ("user", &s.user),
        ("ua", &s.ua),
        ("app_device_id", &s.app_device_id),
        ("ch_model", &s.ch_model),
        ("ch_platform_version", &s.ch_platform_version),
        ("month", &s.month),
    ] {
        d.set_item(key, PyBytes::new(py, &le_bytes(codes, u32::to_le_bytes)))?;
    }
    for (key, values) in [
        ("first_s", &s.first_s),
        ("last_s", &s.last_s),
        ("hits", &s.hits),
    ] {
        d.set_item(key, PyBytes::new(py, &le_bytes(values, i64::to_le_bytes)))?;
    }
    Ok(d)
}

/// Scan access logs (docs/lifetime.md, "Scanner -> analyses"). Returns a dict: string dictionaries (`users`,
/// `uas`, ...), `<u4` code arrays as bytes (`user`, `ua`, ..., `month`), `<i8` arrays (`first_s`, `last_s`,
/// `hits`) and `stats`. `progress(bytes_read)` is called now and then. The GIL is released while scanning.
#[pyfunction]
#[pyo3(signature = (paths, fmt="auto", columns=Vec::new(), events=None, statuses=None, max_line_bytes=65536, progress=None))]
#[allow(clippy::too_many_arguments)]
fn scan_logs<'py>(
    py: Python<'py>,
    paths: Vec<String>,
    fmt: &str,
    columns: Vec<(String, String)>,
    events: Option<Vec<String>>,
    statuses: Option<Vec<String>>,
    max_line_bytes: usize,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let config = ScanConfig::new(
        fmt,
        &columns,
        events.as_deref(),
        statuses.as_deref(),
        max_line_bytes,
    )
    .map_err(scan_exception)?;
    let (sightings, stats) = guarded(py, |interrupted| {
        let mut callback_error: Option<PyErr> = None;
        let mut report = |bytes: u64| {
            if interrupted() {
                return false;
            }
            let Some(cb) = &progress else { return true };
            Python::attach(|py| match cb.call1(py, (bytes,)) {
                Ok(_) => true,
                Err(e) => {
                    callback_error = Some(e);
                    false
                }
            })
        };
        let result = scan_paths(&config, &paths, &mut report);
        result.map_err(|e| match (e, callback_error) {
            // A stop asked by the progress callback re-raises the callback's exception.
            (ScanError::Interrupted, Some(err)) => Stop::Raise(err),
            (ScanError::Interrupted, None) => Stop::Interrupted,
            (e, _) => Stop::Raise(scan_exception(e)),
        })
    })?;
    let out = sightings_dict(py, &sightings)?;
    out.set_item("stats", stats_dict(py, &stats)?)?;
    Ok(out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(scan_logs, m)?)?;
    m.add("LogScanError", m.py().get_type::<LogScanError>())?;
    Ok(())
}
