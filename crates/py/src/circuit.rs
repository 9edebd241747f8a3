//! Circuit-fabric runs with their flows as columns (docs/circuit-engine.md, "Flows as columns"): the spec's flows
//! come in as column buffers and the results' tables (per flow, per uplink, per host, the per-window series) go
//! out as column buffers, so a million generated flows or a run of thousands of windows cost their bytes, not a
//! JSON value each; only the summary stays JSON.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use greendcn_engine::circuit::results::{
    CircuitFlowResult, CircuitHostResult, CircuitPortResult, CircuitSeries,
};
use greendcn_engine::circuit::spec::{CircuitFlowSpec, CircuitTransport};
use greendcn_engine::circuit::{CircuitSim, CircuitSpec};
use greendcn_engine::{EngineError, Loc};

use crate::columns::matrix;
use crate::{guarded, spec_error, u64_column, watcher};

/// The circuit transports by their one-byte code: the packet engine's order (`TRANSPORTS`, tcp udp dctcp ndp)
/// with the datagram in UDP's place (`sim.engine.CIRCUIT_TRANSPORTS`).
const CIRCUIT_TRANSPORTS: [CircuitTransport; 4] = [
    CircuitTransport::Tcp,
    CircuitTransport::Datagram,
    CircuitTransport::Dctcp,
    CircuitTransport::Ndp,
];
const CIRCUIT_TRANSPORT_NAMES: [&str; 4] = ["tcp", "datagram", "dctcp", "ndp"];

/// The spec's flows from columns: `id`, `src`, `dst`, `size_bytes`, `start_ps` (u64 each) and `transport` (one
/// byte, a code into `CIRCUIT_TRANSPORTS`). No rate caps or route offsets: flows that need them go as JSON.
fn circuit_flows_from_columns(
    cols: &[(String, &[u8])],
) -> Result<Vec<CircuitFlowSpec>, EngineError> {
    let n = cols
        .iter()
        .find(|(name, _)| name == "id")
        .map_or(0, |(_, b)| b.len() / 8);
    let (id, src, dst, size, start) = (
        u64_column(cols, "id", n)?,
        u64_column(cols, "src", n)?,
        u64_column(cols, "dst", n)?,
        u64_column(cols, "size_bytes", n)?,
        u64_column(cols, "start_ps", n)?,
    );
    let codes = cols
        .iter()
        .find(|(name, b)| name == "transport" && b.len() == n)
        .map(|(_, b)| *b)
        .ok_or_else(|| EngineError::invalid("flows", "column transport"))?;
    let endpoint = |v: u64, i: usize, field: &str| {
        u32::try_from(v)
            .map_err(|_| EngineError::invalid(&format!("flows[{i}].{field}"), "no such endpoint"))
    };
    (0..n)
        .map(|i| {
            let transport = *CIRCUIT_TRANSPORTS
                .get(usize::from(codes[i]))
                .ok_or_else(|| {
                    EngineError::invalid(&format!("flows[{i}].transport"), "unknown transport code")
                })?;
            Ok(CircuitFlowSpec {
                id: id[i],
                src: endpoint(src[i], i, "src")?,
                dst: endpoint(dst[i], i, "dst")?,
                size_bytes: size[i],
                start_ps: start[i],
                rate_bps: None,
                transport,
                route_offsets: None,
            })
        })
        .collect()
}

/// A per-flow result column: name, numpy type code, bytes per value and the value of one flow.
type FlowColumn = (
    &'static str,
    &'static str,
    usize,
    fn(&CircuitFlowResult) -> u64,
);

fn code_of(name: &str) -> u64 {
    CIRCUIT_TRANSPORT_NAMES
        .iter()
        .position(|n| *n == name)
        .map_or(u64::MAX, |i| i as u64)
}

/// The per-flow results as columns, in the order of the JSON's fields; a missing time (`finish_ps`, `fct_ps`,
/// `acked_ps`, `fct_ack_ps`) is `u64::MAX`; `transport` a code into `CIRCUIT_TRANSPORTS`.
const FLOW_COLUMNS: [FlowColumn; 23] = [
    ("id", "<u8", 8, |r| r.id),
    ("src", "<u8", 8, |r| u64::from(r.src)),
    ("dst", "<u8", 8, |r| u64::from(r.dst)),
    ("size_bytes", "<u8", 8, |r| r.size_bytes),
    ("start_ps", "<u8", 8, |r| r.start_ps),
    ("completed", "?", 1, |r| u64::from(r.completed)),
    ("finish_ps", "<u8", 8, |r| r.finish_ps.unwrap_or(u64::MAX)),
    ("fct_ps", "<u8", 8, |r| r.fct_ps.unwrap_or(u64::MAX)),
    ("bytes_sent", "<u8", 8, |r| r.bytes_sent),
    ("data_packets_sent", "<u8", 8, |r| r.data_packets_sent),
    ("bytes_received", "<u8", 8, |r| r.bytes_received),
    ("packets_received", "<u8", 8, |r| r.packets_received),
    ("ooo_packets", "<u8", 8, |r| r.ooo_packets),
    ("transport", "u1", 1, |r| code_of(r.transport)),
    ("retransmits", "<u8", 8, |r| r.retransmits),
    ("timeouts", "<u8", 8, |r| r.timeouts),
    ("fast_retransmits", "<u8", 8, |r| r.fast_retransmits),
    ("spurious_retransmits", "<u8", 8, |r| r.spurious_retransmits),
    ("acks_sent", "<u8", 8, |r| r.acks_sent),
    ("ecn_marks", "<u8", 8, |r| r.ecn_marks),
    ("trims", "<u8", 8, |r| r.trims),
    ("acked_ps", "<u8", 8, |r| r.acked_ps.unwrap_or(u64::MAX)),
    ("fct_ack_ps", "<u8", 8, |r| r.fct_ack_ps.unwrap_or(u64::MAX)),
];

fn flow_columns(py: Python<'_>, flows: &[CircuitFlowResult]) -> PyResult<Py<PyList>> {
    let list = PyList::empty(py);
    for (name, dtype, width, get) in FLOW_COLUMNS {
        let bytes = PyBytes::new_with(py, width * flows.len(), |buf| {
            for (out, r) in buf.chunks_exact_mut(width).zip(flows) {
                out.copy_from_slice(&get(r).to_le_bytes()[..width]);
            }
            Ok(())
        })?;
        list.append((name, dtype, bytes))?;
    }
    Ok(list.unbind())
}

/// A table's `<u8` column: name and the value of one row.
type U64Column<T> = (&'static str, fn(&T) -> u64);

/// The uplinks' results as columns, in the order of the JSON's fields.
const PORT_COLUMNS: [U64Column<CircuitPortResult>; 6] = [
    ("endpoint", |p| u64::from(p.endpoint)),
    ("switch", |p| u64::from(p.switch)),
    ("bytes_sent", |p| p.bytes_sent),
    ("packets_sent", |p| p.packets_sent),
    ("busy_ps", |p| p.busy_ps),
    ("no_circuit_drops", |p| p.no_circuit_drops),
];

/// The hosts' results as columns, in the order of the JSON's fields.
const HOST_COLUMNS: [U64Column<CircuitHostResult>; 14] = [
    ("host", |h| u64::from(h.host)),
    ("endpoint", |h| u64::from(h.endpoint)),
    ("bytes_sent", |h| h.bytes_sent),
    ("packets_sent", |h| h.packets_sent),
    ("busy_ps", |h| h.busy_ps),
    ("nic_drops", |h| h.nic_drops),
    ("peak_nic_queue_packets", |h| h.peak_nic_queue_packets),
    ("bytes_received", |h| h.bytes_received),
    ("packets_received", |h| h.packets_received),
    ("payload_bytes_received", |h| h.payload_bytes_received),
    ("rx_busy_ps", |h| h.rx_busy_ps),
    ("tor_drops", |h| h.tor_drops),
    ("tor_trims", |h| h.tor_trims),
    ("peak_tor_queue_packets", |h| h.peak_tor_queue_packets),
];

/// Rows of a table as a list of (column name, "<u8", bytes).
fn u64_table<T>(py: Python<'_>, rows: &[T], columns: &[U64Column<T>]) -> PyResult<Py<PyList>> {
    let list = PyList::empty(py);
    for (name, get) in columns {
        let bytes = PyBytes::new_with(py, 8 * rows.len(), |buf| {
            for (out, r) in buf.chunks_exact_mut(8).zip(rows) {
                out.copy_from_slice(&get(r).to_le_bytes());
            }
            Ok(())
        })?;
        list.append((*name, "<u8", bytes))?;
    }
    Ok(list.unbind())
}

/// The per-window series: `window_ps` and, per series the JSON has, (rows, row-major `<u8` bytes) of a rows x
/// windows matrix (the engine pads every row to the run's windows).
fn series_dict(py: Python<'_>, s: &CircuitSeries) -> PyResult<Py<PyDict>> {
    let d = PyDict::new(py);
    d.set_item("window_ps", s.window_ps)?;
    d.set_item(
        "endpoint_payload_bytes_received",
        matrix(py, &s.endpoint_payload_bytes_received)?,
    )?;
    d.set_item(
        "endpoint_wire_bytes_sent",
        matrix(py, &s.endpoint_wire_bytes_sent)?,
    )?;
    let hosts = [
        ("host_packets_sent", &s.host_packets_sent),
        ("host_bytes_sent", &s.host_bytes_sent),
        ("host_packets_received", &s.host_packets_received),
        ("host_bytes_received", &s.host_bytes_received),
    ];
    for (name, rows) in hosts {
        if let Some(rows) = rows {
            d.set_item(name, matrix(py, rows)?)?;
        }
    }
    Ok(d.unbind())
}

/// `run_circuit` with the flows as columns both ways and the other tables as columns too: `flows` the spec's
/// flows as (name, little-endian bytes) (the spec's own `flows` then empty); returns (the results JSON with
/// empty `flows` and `ports` and without `hosts` and `series`, the per-flow results as a list of (column name,
/// numpy type code, bytes) in the JSON's field order, and a dict of the other tables: `ports` and `hosts` (None
/// without hosts) as lists of (name, "<u8", bytes), `series` None or `series_dict`'s).
#[pyfunction]
#[pyo3(signature = (spec_json, flows, progress=None))]
pub(crate) fn run_circuit_columns(
    py: Python<'_>,
    spec_json: &str,
    flows: Vec<(String, Py<PyBytes>)>,
    progress: Option<Py<PyAny>>,
) -> PyResult<(String, Py<PyList>, Py<PyDict>)> {
    let spec = spec_json.to_owned();
    // The flows are read from the Python buffers in place, before the run (and its release of the GIL).
    let views: Vec<(String, &[u8])> = flows
        .iter()
        .map(|(n, b)| (n.clone(), b.as_bytes(py)))
        .collect();
    let flow_specs = circuit_flows_from_columns(&views).map_err(|e| spec_error(&e))?;
    drop(views);
    drop(flows);
    let (text, mut results) = guarded(py, move |interrupted| {
        let mut watch = watcher(&progress, interrupted);
        let de = &mut serde_json::Deserializer::from_str(&spec);
        let mut parsed: CircuitSpec = serde_path_to_error::deserialize(de).map_err(|e| {
            let loc = Loc::parse(&e.path().to_string());
            EngineError::Parse {
                loc,
                msg: e.into_inner().to_string(),
            }
        })?;
        parsed.flows = flow_specs;
        let mut results = CircuitSim::new(&parsed)?.run(&mut watch)?;
        let rest = greendcn_engine::circuit::CircuitResults {
            flows: std::mem::take(&mut results.flows),
            ports: std::mem::take(&mut results.ports),
            hosts: results.hosts.take(),
            series: results.series.take(),
            summary: results.summary.clone(),
        };
        let text = serde_json::to_string(&results).expect("results always serialize");
        Ok((text, rest))
    })?;
    let tables = PyDict::new(py);
    tables.set_item("ports", u64_table(py, &results.ports, &PORT_COLUMNS)?)?;
    match &results.hosts {
        Some(h) => tables.set_item("hosts", u64_table(py, h, &HOST_COLUMNS)?)?,
        None => tables.set_item("hosts", py.None())?,
    }
    match &results.series {
        Some(s) => tables.set_item("series", series_dict(py, s)?)?,
        None => tables.set_item("series", py.None())?,
    }
    let flows = flow_columns(py, &std::mem::take(&mut results.flows))?;
    Ok((text, flows, tables.unbind()))
}
