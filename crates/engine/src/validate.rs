//! Checks a spec before a run: every refusal names the field, so a user can find it in their scenario.

use std::collections::HashMap;

use crate::error::EngineError;
use crate::spec::{NodeKind, QueueLimit, SimSpec, Transport};

/// Refuse the spec, blaming the field at `path` (`links[3].rate_bps`; "" for the spec as a whole).
fn bad(path: &str, msg: impl Into<String>) -> Result<(), EngineError> {
    Err(EngineError::invalid(path, msg))
}

pub fn check(spec: &SimSpec) -> Result<(), EngineError> {
    let n = spec.nodes.len();
    if n == 0 {
        return bad("nodes", "the network has no nodes");
    }
    if n >= u32::MAX as usize / 2 {
        return bad("nodes", format!("{n} nodes is more than the engine supports"));
    }
    for (i, l) in spec.links.iter().enumerate() {
        for (name, end) in [("a", l.a), ("b", l.b)] {
            if end as usize >= n {
                return bad(&format!("links[{i}].{name}"), format!("node {end} does not exist ({n} nodes)"));
            }
        }
        if l.a == l.b {
            return bad(&format!("links[{i}]"), format!("a link must join two different nodes, both ends are {}", l.a));
        }
        if l.rate_bps == 0 {
            return bad(&format!("links[{i}].rate_bps"), "must be positive");
        }
        for (name, q) in [("queue_a", l.queue_a), ("queue_b", l.queue_b)] {
            match q {
                Some(QueueLimit::Packets(0)) | Some(QueueLimit::Bytes(0)) => {
                    return bad(&format!("links[{i}].{name}"), "a queue limit must be positive");
                }
                _ => {}
            }
        }
    }
    let t = &spec.tcp;
    if t.mss == 0 {
        return bad("tcp.mss", "must be positive");
    }
    if t.initial_window == 0 {
        return bad("tcp.initial_window", "must be at least 1 segment");
    }
    if t.slow_start_segments_per_ack == 0 {
        return bad("tcp.slow_start_segments_per_ack", "must be at least 1");
    }
    if t.dupack_threshold == 0 {
        return bad("tcp.dupack_threshold", "must be at least 1");
    }
    if t.max_window_bytes < t.mss as u64 {
        return bad("tcp.max_window_bytes", format!("{} must hold at least one MSS ({})", t.max_window_bytes, t.mss));
    }
    if t.min_rto_ps == 0 || t.initial_rto_ps == 0 || t.max_rto_ps < t.min_rto_ps {
        return bad("tcp", "min_rto_ps and initial_rto_ps must be positive and max_rto_ps >= min_rto_ps");
    }
    if t.delayed_ack && t.delayed_ack_timeout_ps == 0 {
        return bad("tcp.delayed_ack_timeout_ps", "must be positive when delayed ACKs are on");
    }
    if spec.udp.payload_bytes == 0 {
        return bad("udp.payload_bytes", "must be positive");
    }
    if spec.stats_window_ps == Some(0) {
        return bad("stats_window_ps", "must be positive");
    }
    let mut ids: HashMap<u64, usize> = HashMap::new();
    for (i, f) in spec.flows.iter().enumerate() {
        for (name, end) in [("src", f.src), ("dst", f.dst)] {
            let Some(node) = spec.nodes.get(end as usize) else {
                return bad(&format!("flows[{i}].{name}"), format!("node {end} does not exist ({n} nodes)"));
            };
            if node.kind != NodeKind::Host {
                return bad(&format!("flows[{i}].{name}"), format!("node {end} ({}) is a switch, not a host", node.name));
            }
        }
        if f.src == f.dst {
            return bad(&format!("flows[{i}]"), format!("source and destination are the same host ({})", f.src));
        }
        if f.size_bytes == 0 {
            return bad(&format!("flows[{i}].size_bytes"), "must be positive");
        }
        if f.transport == Transport::Udp && f.rate_bps.is_none_or(|r| r == 0) {
            return bad(&format!("flows[{i}].rate_bps"), "a UDP flow needs a positive sending rate");
        }
        if let Some(j) = ids.insert(f.id, i) {
            return bad(&format!("flows[{i}].id"), format!("{} is also the id of flows[{j}]", f.id));
        }
    }
    Ok(())
}
