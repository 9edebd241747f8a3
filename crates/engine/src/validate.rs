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
        return bad(
            "nodes",
            format!("{n} nodes is more than the engine supports"),
        );
    }
    for (i, l) in spec.links.iter().enumerate() {
        for (name, end) in [("a", l.a), ("b", l.b)] {
            if end as usize >= n {
                return bad(
                    &format!("links[{i}].{name}"),
                    format!("node {end} does not exist ({n} nodes)"),
                );
            }
        }
        if l.a == l.b {
            return bad(
                &format!("links[{i}]"),
                format!(
                    "a link must join two different nodes, both ends are {}",
                    l.a
                ),
            );
        }
        if l.rate_bps == 0 {
            return bad(&format!("links[{i}].rate_bps"), "must be positive");
        }
        for (name, q) in [("queue_a", l.queue_a), ("queue_b", l.queue_b)] {
            match q {
                Some(QueueLimit::Packets(0)) | Some(QueueLimit::Bytes(0)) => {
                    return bad(
                        &format!("links[{i}].{name}"),
                        "a queue limit must be positive",
                    );
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
        return bad(
            "tcp.max_window_bytes",
            format!(
                "{} must hold at least one MSS ({})",
                t.max_window_bytes, t.mss
            ),
        );
    }
    if t.min_rto_ps == 0 || t.initial_rto_ps == 0 || t.max_rto_ps < t.min_rto_ps {
        return bad(
            "tcp",
            "min_rto_ps and initial_rto_ps must be positive and max_rto_ps >= min_rto_ps",
        );
    }
    if t.delayed_ack && t.delayed_ack_timeout_ps == 0 {
        return bad(
            "tcp.delayed_ack_timeout_ps",
            "must be positive when delayed ACKs are on",
        );
    }
    if spec.udp.payload_bytes == 0 {
        return bad("udp.payload_bytes", "must be positive");
    }
    check_transports(spec)?;
    check_eee(spec)?;
    if spec.stats_window_ps == Some(0) {
        return bad("stats_window_ps", "must be positive");
    }
    // Ids in increasing order (as flow files and generated workloads give them) cannot repeat: a million flows
    // then skip a million hash-table inserts.
    let increasing = spec.flows.windows(2).all(|w| w[0].id < w[1].id);
    let mut ids: HashMap<u64, usize> = HashMap::new();
    for (i, f) in spec.flows.iter().enumerate() {
        for (name, end) in [("src", f.src), ("dst", f.dst)] {
            let Some(node) = spec.nodes.get(end as usize) else {
                return bad(
                    &format!("flows[{i}].{name}"),
                    format!("node {end} does not exist ({n} nodes)"),
                );
            };
            if node.kind != NodeKind::Host {
                return bad(
                    &format!("flows[{i}].{name}"),
                    format!("node {end} ({}) is a switch, not a host", node.name),
                );
            }
        }
        if f.src == f.dst {
            return bad(
                &format!("flows[{i}]"),
                format!("source and destination are the same host ({})", f.src),
            );
        }
        if f.size_bytes == 0 {
            return bad(&format!("flows[{i}].size_bytes"), "must be positive");
        }
        if f.transport == Transport::Udp && f.rate_bps.is_none_or(|r| r == 0) {
            return bad(
                &format!("flows[{i}].rate_bps"),
                "a UDP flow needs a positive sending rate",
            );
        }
        if increasing {
            continue;
        }
        if let Some(j) = ids.insert(f.id, i) {
            return bad(
                &format!("flows[{i}].id"),
                format!("{} is also the id of flows[{j}]", f.id),
            );
        }
    }
    Ok(())
}

/// DCTCP's and NDP's settings, checked only when a flow uses them (so TCP runs never see these errors).
fn check_transports(spec: &SimSpec) -> Result<(), EngineError> {
    // Which transports the flows use, from one pass over them (a million flows are 64 MB to walk).
    let used = spec
        .flows
        .iter()
        .fold(0u8, |m, f| m | 1 << (f.transport as u8));
    let uses = |t: Transport| used & 1 << (t as u8) != 0;
    let full = (spec.tcp.mss + spec.tcp.header_bytes + spec.frame_overhead_bytes) as u64;
    let switch_queues = || {
        spec.links.iter().enumerate().flat_map(move |(i, l)| {
            [(l.a, l.queue_a, "queue_a"), (l.b, l.queue_b, "queue_b")]
                .into_iter()
                .filter(move |(n, _, _)| spec.nodes[*n as usize].kind == NodeKind::Switch)
                .filter_map(move |(_, q, name)| q.map(|q| (format!("links[{i}].{name}"), q)))
        })
    };
    if (uses(Transport::Dctcp) || uses(Transport::Ndp) || spec.vlb.is_some())
        && spec
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Host)
            .count()
            >= 1 << 29
    {
        return bad(
            "nodes",
            "DCTCP, NDP and VLB runs support fewer than 2^29 hosts",
        );
    }
    if let Some(v) = &spec.vlb {
        if v.intermediates == 0 {
            return bad("vlb.intermediates", "must be at least 1");
        }
        if spec.link_schedule.is_some() {
            return bad("vlb", "VLB does not run with a link schedule");
        }
    }
    if uses(Transport::Dctcp) {
        let d = &spec.dctcp;
        if d.k_packets == 0 {
            return bad("dctcp.k_packets", "must be at least 1 packet");
        }
        if !(d.g > 0.0 && d.g <= 1.0) {
            return bad("dctcp.g", format!("must be in (0, 1], got {}", d.g));
        }
        if !(0.0..=1.0).contains(&d.initial_alpha) {
            return bad(
                "dctcp.initial_alpha",
                format!("must be in [0, 1], got {}", d.initial_alpha),
            );
        }
        for (at, q) in switch_queues() {
            let room = match q {
                QueueLimit::Packets(n) => n,
                QueueLimit::Bytes(b) => b / full,
            };
            if d.k_packets >= room {
                return bad(
                    "dctcp.k_packets",
                    format!("{} packets is not below the queue of {at} ({room} full-size packets): nothing would be marked", d.k_packets),
                );
            }
        }
    }
    if uses(Transport::Ndp) {
        let n = &spec.ndp;
        let header = (n.header_bytes + spec.frame_overhead_bytes) as u64;
        if n.header_bytes == 0 || n.header_bytes > spec.tcp.header_bytes + spec.tcp.mss {
            return bad(
                "ndp.header_bytes",
                format!(
                    "must be positive and at most a full packet, got {}",
                    n.header_bytes
                ),
            );
        }
        if n.initial_window == 0 {
            return bad("ndp.initial_window", "must be at least 1 packet");
        }
        match n.queue {
            QueueLimit::Packets(0) => return bad("ndp.queue", "must hold at least 1 packet"),
            QueueLimit::Bytes(b) if b < full => {
                let what = if b < header {
                    "one header"
                } else {
                    "one full-size packet"
                };
                return bad(
                    "ndp.queue",
                    format!("{b} bytes cannot hold {what} ({} bytes): every data packet would be trimmed", if b < header { header } else { full }),
                );
            }
            _ => {}
        }
    }
    Ok(())
}

/// Longest EEE time the engine takes (sleep, wake, hold-off, coalescing): 1 s, our bound, far above the
/// standard's (microseconds) so that only a unit mistake is refused.
const MAX_EEE_PS: u64 = 1_000_000_000_000;

fn check_eee(spec: &SimSpec) -> Result<(), EngineError> {
    let Some(e) = &spec.eee else { return Ok(()) };
    for (name, v) in [
        ("hold_off_ps", e.hold_off_ps),
        ("coalesce_ps", e.coalesce_ps),
    ] {
        if v > MAX_EEE_PS {
            return bad(
                &format!("eee.{name}"),
                format!("{v} ps is longer than the engine's bound of 1 s"),
            );
        }
    }
    for (i, p) in e.phys.iter().enumerate() {
        if p.rate_bps == 0 {
            return bad(&format!("eee.phys[{i}].rate_bps"), "must be positive");
        }
        if e.phys[..i].iter().any(|q| q.rate_bps == p.rate_bps) {
            return bad(
                &format!("eee.phys[{i}].rate_bps"),
                format!("{} bps appears twice", p.rate_bps),
            );
        }
        for (name, v) in [("sleep_ps", p.sleep_ps), ("wake_ps", p.wake_ps)] {
            if v > MAX_EEE_PS {
                return bad(
                    &format!("eee.phys[{i}].{name}"),
                    format!("{v} ps is longer than the engine's bound of 1 s"),
                );
            }
        }
    }
    Ok(())
}
