//! Checks a circuit spec before a run; every refusal names the field (`switches[0].slots[3].matching`).

use std::collections::HashMap;

use super::spec::{CircuitRouting, CircuitSpec, CircuitTransport, Selection, SwitchKind};
use crate::error::EngineError;

/// The largest time (or cycle) a circuit spec may give, in ps.
pub const MAX_TIME_PS: u64 = 1 << 62;

fn bad(path: &str, msg: impl Into<String>) -> Result<(), EngineError> {
    Err(EngineError::invalid(path, msg))
}

fn is_permutation(v: &[u32], n: u32) -> bool {
    let mut seen = vec![false; n as usize];
    v.len() == n as usize
        && v.iter()
            .all(|&x| x < n && !std::mem::replace(&mut seen[x as usize], true))
}

pub fn check(spec: &CircuitSpec) -> Result<(), EngineError> {
    let n = spec.endpoints;
    if n < 2 {
        return bad(
            "endpoints",
            format!("a fabric needs at least 2 endpoints, got {n}"),
        );
    }
    if n > 1 << 20 {
        return bad(
            "endpoints",
            format!("{n} endpoints is more than the circuit engine supports (2^20)"),
        );
    }
    if spec.link_rate_bps == 0 {
        return bad("link_rate_bps", "must be positive");
    }
    if spec.switches.is_empty() {
        return bad("switches", "the fabric has no circuit switch");
    }
    let t = &spec.tdma;
    // Times add up (hand-over + lag + fibre + serialisation, a cycle of many slots): each one bounded by 2^62 ps
    // (53 days, the bound the scenario layer puts on any quantity) keeps every sum inside 64 bits.
    let mut times: Vec<(String, u64)> = vec![
        ("delay_ps".into(), spec.delay_ps),
        ("tdma.guard_ps".into(), t.guard_ps),
        ("tdma.prealloc_ps".into(), t.prealloc_ps),
        ("tdma.lag_ps".into(), t.lag_ps),
        ("tdma.jitter_mean_ps".into(), t.jitter_mean_ps),
        ("tdma.stall_ps".into(), t.stall_ps),
        ("stop_ps".into(), spec.stop_ps.unwrap_or(0)),
        ("stats_window_ps".into(), spec.stats_window_ps.unwrap_or(0)),
    ];
    for (i, sw) in spec.switches.iter().enumerate() {
        times.push((format!("switches[{i}].phase_ps"), sw.phase_ps));
        let cycle = sw.slots.iter().fold(0u64, |c, s| {
            c.saturating_add(s.uptime_ps).saturating_add(s.reconfig_ps)
        });
        times.push((format!("switches[{i}].slots"), cycle));
    }
    for (i, f) in spec.flows.iter().enumerate() {
        times.push((format!("flows[{i}].start_ps"), f.start_ps));
    }
    if let Some(h) = &spec.hosts {
        times.push(("hosts.delay_ps".into(), h.delay_ps));
    }
    if let Some(o) = &spec.opera {
        times.push(("opera.slice_ps".into(), o.slice_ps));
        times.push(("opera.origin_ps".into(), o.origin_ps));
    }
    if let Some((at, v)) = times.iter().find(|(_, v)| *v > MAX_TIME_PS) {
        return bad(
            at,
            format!("{v} ps is beyond what the engine can count ({MAX_TIME_PS} ps, about 53 days)"),
        );
    }
    for (i, sw) in spec.switches.iter().enumerate() {
        let at = format!("switches[{i}]");
        if sw.matchings.is_empty() {
            return bad(
                &format!("{at}.matchings"),
                "a circuit switch needs at least one matching",
            );
        }
        for (j, m) in sw.matchings.iter().enumerate() {
            if !is_permutation(m, n) {
                return bad(
                    &format!("{at}.matchings[{j}]"),
                    format!(
                        "is not a permutation of the {n} endpoints 0..{}: {m:?}",
                        n - 1
                    ),
                );
            }
        }
        if sw.slots.is_empty() {
            return bad(&format!("{at}.slots"), "the schedule has no slots");
        }
        let count = sw.matchings.len() as u32;
        for (k, slot) in sw.slots.iter().enumerate() {
            let sat = format!("{at}.slots[{k}]");
            match &slot.matching {
                Selection::All(m) if *m >= count => {
                    return bad(
                        &format!("{sat}.matching"),
                        format!("the switch has no matching {m} (it has {count})"),
                    );
                }
                Selection::All(_) => {}
                Selection::PerPort(v) => {
                    if sw.kind == SwitchKind::Rotor {
                        return bad(
                            &format!("{sat}.matching"),
                            "a rotor switch moves all ports together: give one index",
                        );
                    }
                    if v.len() != n as usize {
                        return bad(
                            &format!("{sat}.matching"),
                            format!("{} per-port choices for {n} ports", v.len()),
                        );
                    }
                    if let Some((p, m)) = v.iter().enumerate().find(|(_, m)| **m >= count) {
                        return bad(
                            &format!("{sat}.matching[{p}]"),
                            format!("the switch has no matching {m} (it has {count})"),
                        );
                    }
                    let map: Vec<u32> = (0..n as usize)
                        .map(|p| sw.matchings[v[p] as usize][p])
                        .collect();
                    if !is_permutation(&map, n) {
                        return bad(
                            &format!("{sat}.matching"),
                            "the ports' choices together are not a permutation: two inputs would reach one output",
                        );
                    }
                }
            }
            if slot.uptime_ps == 0 {
                return bad(&format!("{sat}.uptime_ps"), "must be positive");
            }
            if t.guard_ps >= slot.uptime_ps {
                return bad(
                    "tdma.guard_ps",
                    format!(
                        "the guard ({} ps) is not shorter than the uptime of {sat} ({} ps)",
                        t.guard_ps, slot.uptime_ps
                    ),
                );
            }
            if spec.routing == CircuitRouting::Selector {
                // A selector route needs every circuit to join an endpoint to the one 2^i further on.
                let resolved = |p: usize| match &slot.matching {
                    Selection::All(m) => sw.matchings[*m as usize][p],
                    Selection::PerPort(v) => sw.matchings[v[p] as usize][p],
                };
                if !n.is_power_of_two()
                    || (0..n).any(|p| !((resolved(p as usize) + n - p) % n).is_power_of_two())
                {
                    return bad(
                        &format!("{sat}.matching"),
                        "selector routing needs N = 2^k endpoints and circuits from each endpoint p to p + 2^i mod N",
                    );
                }
            }
        }
        if sw
            .slots
            .iter()
            .map(|s| s.uptime_ps + s.reconfig_ps)
            .sum::<u64>()
            >= 1 << 60
        {
            return bad(&format!("{at}.slots"), "the cycle is longer than 2^60 ps");
        }
    }
    if !(0.0..=1.0).contains(&t.stall_prob) {
        return bad(
            "tdma.stall_prob",
            format!("must lie in [0, 1], got {}", t.stall_prob),
        );
    }
    if t.stall_law != "exponential" && t.stall_law != "fixed" {
        return bad(
            "tdma.stall_law",
            format!("{:?} is not \"exponential\" or \"fixed\"", t.stall_law),
        );
    }
    let p = &spec.packet;
    if p.payload_bytes == 0 {
        return bad("packet.payload_bytes", "must be positive");
    }
    if p.control_bytes == 0 {
        return bad("packet.control_bytes", "must be positive");
    }
    if spec.stats_window_ps == Some(0) {
        return bad("stats_window_ps", "must be positive");
    }
    // A window that cannot carry one full packet carries nothing but the last bytes of a flow: if no window of
    // any switch can, backlogged flows never finish and a run without a time limit would never end.
    let full = (p.payload_bytes + p.header_bytes + p.frame_overhead_bytes) as u64;
    let ser = crate::units::ser_time_ps(full, spec.link_rate_bps);
    let widest = spec
        .switches
        .iter()
        .flat_map(|sw| &sw.slots)
        .map(|s| s.uptime_ps - t.guard_ps)
        .max()
        .unwrap_or(0);
    if ser > widest {
        return bad(
            "link_rate_bps",
            format!(
                "a full packet ({full} bytes) takes {ser} ps at {} b/s, longer than the widest sending window \
                 (uptime - guard = {widest} ps): nothing could ever be sent",
                spec.link_rate_bps
            ),
        );
    }
    if spec.routing == CircuitRouting::Opera {
        let Some(o) = &spec.opera else {
            return bad(
                "opera",
                "routing \"opera\" needs the opera table (slices and next switches)",
            );
        };
        if o.slice_ps == 0 {
            return bad("opera.slice_ps", "must be positive");
        }
        if o.slices == 0 {
            return bad("opera.slices", "must be at least 1");
        }
        let want = o.slices as u64 * n as u64 * n as u64;
        if o.next_switch.len() as u64 != want {
            return bad(
                "opera.next_switch",
                format!(
                    "has {} entries, want slices x N x N = {want}",
                    o.next_switch.len()
                ),
            );
        }
        let s = spec.switches.len();
        if let Some(i) = o
            .next_switch
            .iter()
            .position(|&x| x != 255 && x as usize >= s)
        {
            return bad(
                &format!("opera.next_switch[{i}]"),
                format!("switch {} does not exist ({s} switches)", o.next_switch[i]),
            );
        }
        if let Some(spray) = &o.spray {
            if spray.len() as u64 != want {
                return bad(
                    "opera.spray",
                    format!("has {} entries, want slices x N x N = {want}", spray.len()),
                );
            }
            if s > 64 {
                return bad(
                    "opera.spray",
                    format!("spraying covers at most 64 circuit switches, the fabric has {s}"),
                );
            }
            let beyond = if s == 64 { 0 } else { u64::MAX << s };
            let wrong = spray.iter().zip(&o.next_switch).position(|(&m, &x)| {
                m & beyond != 0 || (x == 255) != (m == 0) || (x != 255 && m >> x & 1 == 0)
            });
            if let Some(i) = wrong {
                return bad(
                    &format!("opera.spray[{i}]"),
                    format!(
                        "switches {:#b} do not match next_switch {} ({s} switches; 0 exactly where there is no path, \
                         and next_switch among them)",
                        spray[i], o.next_switch[i]
                    ),
                );
            }
        }
        if o.paths > 0 {
            let Some(c) = &o.circuits else {
                return bad(
                    "opera.circuits",
                    "listed paths (opera.paths > 0) need the slices' circuits",
                );
            };
            let want = o.slices as u64 * n as u64 * s as u64;
            if c.len() as u64 != want {
                return bad(
                    "opera.circuits",
                    format!(
                        "has {} entries, want slices x N x switches = {want}",
                        c.len()
                    ),
                );
            }
            if s > 255 {
                return bad(
                    "opera.paths",
                    format!("listed paths cover at most 255 circuit switches, the fabric has {s}"),
                );
            }
            if let Some(i) = c.iter().position(|&x| x != u32::MAX && x >= n) {
                return bad(
                    &format!("opera.circuits[{i}]"),
                    format!("endpoint {} does not exist ({n} endpoints)", c[i]),
                );
            }
        }
    } else if spec.opera.is_some() {
        return bad(
            "opera",
            "the opera table is used only with routing = \"opera\"",
        );
    }
    // With hosts, flows name hosts (host h under endpoint h / per_endpoint); routes and offsets are the racks'.
    let (per, what) = match &spec.hosts {
        Some(h) => (h.per_endpoint, "host"),
        None => (1, "endpoint"),
    };
    if let Some(h) = &spec.hosts {
        if h.per_endpoint == 0 {
            return bad("hosts.per_endpoint", "must be at least 1");
        }
        if n as u64 * h.per_endpoint as u64 > 1 << 24 {
            return bad(
                "hosts.per_endpoint",
                format!(
                    "{n} x {} hosts is more than the engine supports (2^24)",
                    h.per_endpoint
                ),
            );
        }
        if h.rate_bps == 0 {
            return bad("hosts.rate_bps", "must be positive");
        }
        for (name, q) in [
            ("hosts.nic_queue", h.nic_queue),
            ("hosts.tor_queue", h.tor_queue),
        ] {
            if matches!(
                q,
                Some(crate::spec::QueueLimit::Packets(0) | crate::spec::QueueLimit::Bytes(0))
            ) {
                return bad(name, "a queue must hold at least one packet");
            }
        }
    }
    let count = n * per;
    let mut ids: HashMap<u64, usize> = HashMap::new();
    for (i, f) in spec.flows.iter().enumerate() {
        for (name, end) in [("src", f.src), ("dst", f.dst)] {
            if end >= count {
                return bad(
                    &format!("flows[{i}].{name}"),
                    format!("{what} {end} does not exist ({count} {what}s)"),
                );
            }
        }
        if f.src == f.dst {
            return bad(
                &format!("flows[{i}]"),
                format!("source and destination are the same {what} ({})", f.src),
            );
        }
        let (src, dst) = (f.src / per, f.dst / per);
        if f.size_bytes == 0 {
            return bad(&format!("flows[{i}].size_bytes"), "must be positive");
        }
        if f.rate_bps == Some(0) {
            return bad(
                &format!("flows[{i}].rate_bps"),
                "must be positive (leave it out for a backlogged flow)",
            );
        }
        if f.transport != CircuitTransport::Datagram && f.rate_bps.is_some() {
            return bad(
                &format!("flows[{i}].rate_bps"),
                "a rate cap applies to datagram flows only (TCP's window paces the others)",
            );
        }
        if let Some(r) = &f.route_offsets {
            let at = format!("flows[{i}].route_offsets");
            if spec.routing != CircuitRouting::Selector {
                return bad(&at, "routes are given only under selector routing");
            }
            let mut seen = 0u64;
            for &o in r {
                if !o.is_power_of_two() || o >= n || seen & o as u64 != 0 {
                    return bad(
                        &at,
                        format!("{r:?}: each hop must be a distinct power of two below {n}"),
                    );
                }
                seen |= o as u64;
            }
            if r.is_empty() || (seen as u32) != (dst + n - src) % n {
                return bad(
                    &at,
                    format!(
                        "{r:?} does not lead from {src} to {dst} (offset {})",
                        (dst + n - src) % n
                    ),
                );
            }
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
