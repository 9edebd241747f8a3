//! The engine's result tables as column buffers for Python (docs/engine-spec.md, "Results as columns"): per flow,
//! per link direction and per node a list of (name, numpy type code, bytes), little endian, and the per-window
//! series as row-major 2-D arrays; each column written straight into its bytes object.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use greendcn_engine::results::{FlowRow, LinkDirResult, NodeResult, Series};
use greendcn_engine::spec::{FlowSpec, Transport};

/// The transports in the order of their one-byte codes in flow columns, both ways (`sim.engine.TRANSPORTS`).
pub(crate) const TRANSPORTS: [Transport; 4] = [
    Transport::Tcp,
    Transport::Udp,
    Transport::Dctcp,
    Transport::Ndp,
];

fn transport_code(t: Transport) -> u64 {
    TRANSPORTS
        .iter()
        .position(|x| *x == t)
        .map_or(u64::MAX, |i| i as u64)
}

/// One column of `items`: `width` bytes (8 or 1) per value, the low bytes of `get`'s u64, little endian.
fn column<'py, T>(
    py: Python<'py>,
    items: &[T],
    width: usize,
    get: impl Fn(&T) -> u64,
) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, width * items.len(), |buf| {
        for (out, x) in buf.chunks_exact_mut(width).zip(items) {
            out.copy_from_slice(&get(x).to_le_bytes()[..width]);
        }
        Ok(())
    })
}

/// A per-flow result column: name, numpy type code, bytes per value and the value of one flow.
type FlowColumn = (
    &'static str,
    &'static str,
    usize,
    fn(&(&FlowSpec, &FlowRow)) -> u64,
);

/// The per-flow results as columns, in the order of docs/engine-spec.md. `fct_ps` and `finish_ps` of a flow that
/// never finished are `u64::MAX`, and so are `acked_ps` and `fct_ack_ps` where the sender never learnt it did
/// (or a datagram flow); `transport` is a code into `TRANSPORTS` (0 tcp, 1 udp, 2 dctcp, 3 ndp).
const FLOW_COLUMNS: [FlowColumn; 22] = [
    ("id", "<u8", 8, |(f, _)| f.id),
    ("src", "<u8", 8, |(f, _)| u64::from(f.src)),
    ("dst", "<u8", 8, |(f, _)| u64::from(f.dst)),
    ("size_bytes", "<u8", 8, |(f, _)| f.size_bytes),
    ("start_ps", "<u8", 8, |(f, _)| f.start_ps),
    ("transport", "u1", 1, |(f, _)| transport_code(f.transport)),
    ("completed", "?", 1, |(_, r)| {
        u64::from(r.finish().is_some())
    }),
    ("finish_ps", "<u8", 8, |(_, r)| r.finish_ps),
    ("fct_ps", "<u8", 8, |(f, r)| {
        r.finish().map_or(u64::MAX, |t| t - f.start_ps)
    }),
    ("bytes_received", "<u8", 8, |(_, r)| r.bytes_received),
    ("packets_received", "<u8", 8, |(_, r)| r.packets_received),
    ("data_packets_sent", "<u8", 8, |(_, r)| r.data_packets_sent),
    ("retransmits", "<u8", 8, |(_, r)| r.retransmits),
    ("spurious_retransmits", "<u8", 8, |(_, r)| {
        r.spurious_retransmits
    }),
    ("ooo_packets", "<u8", 8, |(_, r)| r.ooo_packets),
    ("fast_retransmits", "<u8", 8, |(_, r)| r.fast_retransmits),
    ("timeouts", "<u8", 8, |(_, r)| r.timeouts),
    ("acks_sent", "<u8", 8, |(_, r)| r.acks_sent),
    ("ecn_marks", "<u8", 8, |(_, r)| r.ecn_marks),
    ("trims", "<u8", 8, |(_, r)| r.trims),
    ("acked_ps", "<u8", 8, |(_, r)| r.acked_ps),
    ("fct_ack_ps", "<u8", 8, |(f, r)| {
        r.acked().map_or(u64::MAX, |t| t - f.start_ps)
    }),
];

/// A new bytes object of `len` bytes and its buffer, for the caller to fill completely before Python sees it.
fn new_bytes<'py>(py: Python<'py>, len: usize) -> PyResult<(Bound<'py, PyBytes>, &'py mut [u8])> {
    // SAFETY: a null source asks CPython for an uninitialised bytes object of `len` bytes; it is new, so nothing
    // else reads or writes its buffer (which lives as long as the object) until the caller hands it on.
    unsafe {
        let obj =
            pyo3::ffi::PyBytes_FromStringAndSize(std::ptr::null(), len as pyo3::ffi::Py_ssize_t);
        let bytes = Bound::from_owned_ptr_or_err(py, obj)?.cast_into_unchecked::<PyBytes>();
        let buf = pyo3::ffi::PyBytes_AsString(obj).cast::<u8>();
        Ok((bytes, std::slice::from_raw_parts_mut(buf, len)))
    }
}

/// Flows per block of the one pass that writes every flow column: a block's specs and rows stay in cache while
/// the 22 columns take their values from them (our choice: 512 flows are about 90 KB).
const FLOW_BLOCK: usize = 512;

/// The flow columns the spec's flows came in that come back unchanged: the same name, values and bytes (flows read
/// from columns keep each value, and a transport its code).
const GIVEN_COLUMNS: [&str; 6] = ["id", "src", "dst", "size_bytes", "start_ps", "transport"];

/// The per-flow results (the spec's flows and their result rows, in the same order) as columns, written in one
/// pass over the flows, a block at a time, rather than one pass per column. `given` are the column buffers the
/// flows were read from (empty if none): those of `GIVEN_COLUMNS` are handed back as they are, not copied.
pub(crate) fn flow_columns<'py>(
    py: Python<'py>,
    specs: &[FlowSpec],
    rows: &[FlowRow],
    given: &[(String, Py<PyBytes>)],
) -> PyResult<Py<PyList>> {
    let n = specs.len().min(rows.len());
    let mut objects: Vec<Bound<'py, PyBytes>> = Vec::with_capacity(FLOW_COLUMNS.len());
    let mut bufs: Vec<Option<&mut [u8]>> = Vec::with_capacity(FLOW_COLUMNS.len());
    for (name, _, width, _) in FLOW_COLUMNS {
        let same = given.iter().find(|(g, b)| {
            g == name && GIVEN_COLUMNS.contains(&name) && b.bind(py).as_bytes().len() == width * n
        });
        if let Some((_, b)) = same {
            objects.push(b.bind(py).clone());
            bufs.push(None);
        } else {
            let (obj, buf) = new_bytes(py, width * n)?;
            objects.push(obj);
            bufs.push(Some(buf));
        }
    }
    for start in (0..n).step_by(FLOW_BLOCK) {
        let end = (start + FLOW_BLOCK).min(n);
        for ((_, _, width, get), buf) in FLOW_COLUMNS.iter().zip(bufs.iter_mut()) {
            let Some(buf) = buf else { continue };
            let out = &mut buf[width * start..width * end];
            for (o, i) in out.chunks_exact_mut(*width).zip(start..end) {
                o.copy_from_slice(&get(&(&specs[i], &rows[i])).to_le_bytes()[..*width]);
            }
        }
    }
    let list = PyList::empty(py);
    for ((name, dtype, _, _), obj) in FLOW_COLUMNS.iter().zip(objects) {
        list.append((*name, *dtype, obj))?;
    }
    Ok(list.unbind())
}

/// A per-direction link column: name and the value of one direction (all `<u8`).
type LinkColumn = (&'static str, fn(&LinkDirResult) -> u64);

const LINK_COLUMNS: [LinkColumn; 11] = [
    ("link", |l| u64::from(l.link)),
    ("dir", |l| u64::from(l.dir)),
    ("from", |l| u64::from(l.from)),
    ("to", |l| u64::from(l.to)),
    ("bytes_sent", |l| l.bytes_sent),
    ("packets_sent", |l| l.packets_sent),
    ("busy_ps", |l| l.busy_ps),
    ("drops", |l| l.drops),
    ("drop_bytes", |l| l.drop_bytes),
    ("peak_queue_packets", |l| l.peak_queue_packets),
    ("peak_queue_bytes", |l| l.peak_queue_bytes),
];

/// EEE's counters, on directions with EEE on (0 on the others, which `eee` marks false).
const EEE_COLUMNS: [LinkColumn; 4] = [
    ("sleep_ps", |l| l.eee.as_ref().map_or(0, |e| e.sleep_ps)),
    ("lpi_ps", |l| l.eee.as_ref().map_or(0, |e| e.lpi_ps)),
    ("wake_ps", |l| l.eee.as_ref().map_or(0, |e| e.wake_ps)),
    ("sleeps", |l| l.eee.as_ref().map_or(0, |e| e.sleeps)),
];

/// The link directions' results as columns, in the order of docs/engine-spec.md; when any direction has EEE
/// on, then `eee` (bool: this direction has it) and its four counters.
pub(crate) fn link_columns(py: Python<'_>, links: &[LinkDirResult]) -> PyResult<Py<PyList>> {
    let list = PyList::empty(py);
    for (name, get) in LINK_COLUMNS {
        list.append((name, "<u8", column(py, links, 8, get)?))?;
    }
    if links.iter().any(|l| l.eee.is_some()) {
        list.append((
            "eee",
            "?",
            column(py, links, 1, |l| u64::from(l.eee.is_some()))?,
        ))?;
        for (name, get) in EEE_COLUMNS {
            list.append((name, "<u8", column(py, links, 8, get)?))?;
        }
    }
    Ok(list.unbind())
}

/// The nodes' results as columns: `name` (a list of str), `kind` (u1: 0 host, 1 switch) and the counters.
pub(crate) fn node_columns(py: Python<'_>, nodes: &[NodeResult]) -> PyResult<Py<PyList>> {
    let list = PyList::empty(py);
    let names = PyList::new(py, nodes.iter().map(|n| n.name.as_str()))?;
    list.append(("name", "str", names))?;
    let kind = |n: &NodeResult| u64::from(n.kind != "host");
    list.append(("kind", "u1", column(py, nodes, 1, kind)?))?;
    list.append((
        "packets_sent",
        "<u8",
        column(py, nodes, 8, |n| n.packets_sent)?,
    ))?;
    list.append((
        "packets_received",
        "<u8",
        column(py, nodes, 8, |n| n.packets_received)?,
    ))?;
    list.append((
        "packets_forwarded",
        "<u8",
        column(py, nodes, 8, |n| n.packets_forwarded)?,
    ))?;
    Ok(list.unbind())
}

/// A series of per-row (link direction or host) and per-window counts as (rows, row-major `<u8` bytes).
pub(crate) fn matrix<'py>(
    py: Python<'py>,
    rows: &[Vec<u64>],
) -> PyResult<(usize, Bound<'py, PyBytes>)> {
    let width = rows.first().map_or(0, Vec::len);
    let bytes = PyBytes::new_with(py, 8 * width * rows.len(), |buf| {
        for (out, row) in buf.chunks_exact_mut(8 * width).zip(rows) {
            for (o, v) in out.chunks_exact_mut(8).zip(row) {
                o.copy_from_slice(&v.to_le_bytes());
            }
        }
        Ok(())
    })?;
    Ok((rows.len(), bytes))
}

/// The per-window series: `window_ps` and, per name of docs/engine-spec.md's `series`, (rows, bytes) of a
/// rows x windows matrix of `<u8` (every row as long: the engine pads them to the run's windows).
pub(crate) fn series_dict(py: Python<'_>, s: &Series) -> PyResult<Py<PyDict>> {
    let d = PyDict::new(py);
    d.set_item("window_ps", s.window_ps)?;
    d.set_item("link_bytes", matrix(py, &s.link_bytes)?)?;
    d.set_item("host_packets_sent", matrix(py, &s.host_packets_sent)?)?;
    d.set_item("host_bytes_sent", matrix(py, &s.host_bytes_sent)?)?;
    d.set_item(
        "host_packets_received",
        matrix(py, &s.host_packets_received)?,
    )?;
    d.set_item("host_bytes_received", matrix(py, &s.host_bytes_received)?)?;
    Ok(d.unbind())
}
