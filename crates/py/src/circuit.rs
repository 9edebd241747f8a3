//! Circuit-fabric runs with their flows as columns (docs/circuit-engine.md, "Flows as columns"): the spec's flows
//! come in as column buffers and the per-flow results go out as column buffers, so a million generated flows cost
//! their bytes, not a JSON object each way; everything else stays JSON.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use greendcn_engine::circuit::results::CircuitFlowResult;
use greendcn_engine::circuit::spec::{CircuitFlowSpec, CircuitTransport};
use greendcn_engine::circuit::{CircuitSim, CircuitSpec};
use greendcn_engine::{EngineError, Loc};

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

/// `run_circuit` with the flows as columns both ways: `flows` the spec's flows as (name, little-endian bytes)
/// (the spec's own `flows` then empty); returns (the results JSON with empty `flows`, the per-flow results as a
/// list of (column name, numpy type code, bytes) in the JSON's field order).
#[pyfunction]
#[pyo3(signature = (spec_json, flows, progress=None))]
pub(crate) fn run_circuit_columns(
    py: Python<'_>,
    spec_json: &str,
    flows: Vec<(String, Py<PyBytes>)>,
    progress: Option<Py<PyAny>>,
) -> PyResult<(String, Py<PyList>)> {
    let spec = spec_json.to_owned();
    // The flows are read from the Python buffers in place, before the run (and its release of the GIL).
    let views: Vec<(String, &[u8])> = flows
        .iter()
        .map(|(n, b)| (n.clone(), b.as_bytes(py)))
        .collect();
    let flow_specs = circuit_flows_from_columns(&views).map_err(|e| spec_error(&e))?;
    drop(views);
    drop(flows);
    let (text, rows) = guarded(py, move |interrupted| {
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
        let rows = std::mem::take(&mut results.flows);
        let text = serde_json::to_string(&results).expect("results always serialize");
        Ok((text, rows))
    })?;
    Ok((text, flow_columns(py, &rows)?))
}
