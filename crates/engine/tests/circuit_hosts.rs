//! Hosts behind a circuit fabric's ToRs (the spec's `hosts`): flows name hosts, each host's link to its ToR
//! (NIC queue, serialisation, delay, the ToR's port down to it) bounds what it sends and receives, flows within
//! a rack never touch a circuit, drops on host links are counted and conserved.

use greendcn_engine::circuit::{CircuitSim, CircuitSpec};
use greendcn_engine::EngineError;
use serde_json::{json, Value};

mod circuit_common;

const GBPS10: u64 = 10_000_000_000;

/// n - 1 symmetric matchings of n (even) endpoints meeting every pair once (the circle method).
fn round_robin(n: u32) -> Vec<Vec<u32>> {
    (0..n - 1)
        .map(|r| {
            let mut m = vec![0u32; n as usize];
            for i in 0..n / 2 {
                let a = if i == 0 { n - 1 } else { (r + i) % (n - 1) };
                let b = (r + n - 1 - i) % (n - 1);
                m[a as usize] = b;
                m[b as usize] = a;
            }
            m
        })
        .collect()
}

/// `n` racks on `s` rotor switches (each cycling all n - 1 matchings, switch i starting i further on), 4 hosts
/// per rack, links 10 Gb/s, host links at `host_rate`.
fn spec(n: u32, s: u32, routing: &str, host_rate: u64, flows: Value) -> Value {
    let ms = round_robin(n);
    let switches: Vec<Value> = (0..s)
        .map(|i| {
            let slots: Vec<Value> = (0..ms.len())
                .map(|k| json!({"matching": (k + i as usize) % ms.len(), "uptime_ps": 50_000_000u64, "reconfig_ps": 5_000_000u64}))
                .collect();
            json!({"kind": "rotor", "matchings": ms, "slots": slots})
        })
        .collect();
    json!({
        "seed": 1, "endpoints": n, "link_rate_bps": GBPS10, "delay_ps": 500_000,
        "switches": switches, "routing": routing, "flows": flows, "tdma": {"guard_ps": 200_000},
        "hosts": {"per_endpoint": 4, "rate_bps": host_rate, "delay_ps": 500_000,
                  "nic_queue": {"packets": 1000}, "tor_queue": {"packets": 1000}},
    })
}

fn run(v: &Value) -> Result<Value, EngineError> {
    let spec: CircuitSpec = serde_json::from_value(v.clone()).expect("spec parses");
    let res = CircuitSim::new(&spec)?.run(&mut |_| false)?;
    Ok(serde_json::to_value(&res).unwrap())
}

fn u(v: &Value, path: &[&str]) -> u64 {
    path.iter()
        .fold(v, |x, k| &x[*k])
        .as_u64()
        .unwrap_or_else(|| panic!("{path:?} in {v}"))
}

fn conserved(r: &Value) {
    let s = &r["summary"];
    assert_eq!(
        u(s, &["packets_created"]),
        u(s, &["packets_delivered"])
            + u(s, &["control_packets_received"])
            + u(s, &["no_circuit_drops"])
            + u(s, &["no_path_drops"])
            + u(s, &["host_link_drops"])
            + u(s, &["packets_in_flight"]),
        "{s}"
    );
}

/// Wire bytes of `size` payload bytes in 1472-byte datagrams with 28 header and 24 framing bytes.
fn wire(size: u64) -> u64 {
    size + size.div_ceil(1472) * 52
}

#[test]
fn a_flow_within_a_rack_crosses_its_tor_only() {
    // hosts 0 and 3 share rack 0
    let r = run(&spec(
        8,
        1,
        "rotorlb",
        GBPS10,
        json!([{"id": 1, "src": 0, "dst": 3, "size_bytes": 1_000_000}]),
    ))
    .unwrap();
    conserved(&r);
    let s = &r["summary"];
    assert_eq!(u(s, &["packet_hops"]), 0, "{s}");
    assert!(r["ports"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| u(p, &["bytes_sent"]) == 0));
    let f = &r["flows"][0];
    assert_eq!((u(f, &["src"]), u(f, &["dst"])), (0, 3));
    assert_eq!(u(f, &["bytes_received"]), 1_000_000);
    // back to back on the NIC (800 ps a byte at 10 Gb/s), then the ToR's port down, store and forward: the
    // short last packet (512 + 52 bytes) waits there for the full one before it (1524 bytes), so the flow ends
    // one full packet's serialisation and two 500 ns fibres after its last byte left the NIC
    assert_eq!(
        u(f, &["fct_ps"]),
        wire(1_000_000) * 800 + 1524 * 800 + 2 * 500_000
    );
    let h = &r["hosts"];
    assert_eq!(u(&h[0], &["bytes_sent"]), wire(1_000_000));
    assert_eq!(u(&h[3], &["bytes_received"]), wire(1_000_000));
    assert_eq!(u(&h[3], &["payload_bytes_received"]), 1_000_000);
    assert_eq!(u(&h[3], &["rx_busy_ps"]), wire(1_000_000) * 800);
    assert_eq!(
        u(&h[1], &["packets_sent"]) + u(&h[1], &["packets_received"]),
        0
    );
}

#[test]
fn a_host_link_bounds_its_flows_rate() {
    // 3 switches give rack 0 three uplinks at 10 Gb/s: without hosts one flow may use all of them (RotorLB);
    // behind a host at 1 Gb/s, the flow cannot finish before its bytes crossed that link.
    let flows = json!([{"id": 1, "src": 1, "dst": 9, "size_bytes": 2_000_000}]);
    let slow = run(&spec(8, 3, "rotorlb", 1_000_000_000, flows.clone())).unwrap();
    let fast = run(&spec(8, 3, "rotorlb", GBPS10, flows.clone())).unwrap();
    conserved(&slow);
    let fct = |r: &Value| u(&r["flows"][0], &["fct_ps"]);
    let link = wire(2_000_000) * 8_000;
    assert!(fct(&slow) >= link, "{} ps", fct(&slow));
    // The host sends only while one of its ToR's uplinks has a window to forward it (the ToR keeps no host
    // traffic for later circuits): the three switches reconfigure together, so (50 - 0.2) us of every 55 us.
    // Within 5 % of that: the host's link, not the circuits' capacity, limits the flow.
    assert!(
        fct(&slow) * 498 < link * 550 * 105 / 100,
        "{} ps",
        fct(&slow)
    );
    assert!(
        fct(&fast) * 5 < fct(&slow),
        "{} vs {}",
        fct(&fast),
        fct(&slow)
    );
    let h = &slow["hosts"][1];
    assert_eq!(u(h, &["bytes_sent"]), wire(2_000_000));
    assert!(u(h, &["busy_ps"]) == wire(2_000_000) * 8_000);
    // the endpoints of the flow rows are hosts
    assert_eq!(
        (
            u(&slow["flows"][0], &["src"]),
            u(&slow["flows"][0], &["dst"])
        ),
        (1, 9)
    );
}

#[test]
fn a_full_tor_port_drops_and_the_books_balance() {
    // seven hosts of other racks send to host 0 at once: the ToR's port down to it (10 Gb/s) receives up to
    // several circuits' worth at once and holds 8 packets; the excess is dropped, counted, and conserved
    let flows: Vec<Value> = (1..8)
        .map(|r| json!({"id": r, "src": 4 * r + 1, "dst": 0, "size_bytes": 500_000}))
        .collect();
    let mut v = spec(8, 3, "direct", GBPS10, json!(flows));
    v["hosts"]["tor_queue"] = json!({"packets": 8});
    let r = run(&v).unwrap();
    conserved(&r);
    let drops = u(&r, &["summary", "host_link_drops"]);
    assert!(drops > 0, "{}", r["summary"]);
    assert_eq!(u(&r["hosts"][0], &["tor_drops"]), drops);
    assert_eq!(u(&r["hosts"][0], &["peak_tor_queue_packets"]), 8);
    let got: u64 = r["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| u(f, &["bytes_received"]))
        .sum();
    assert_eq!(u(&r["hosts"][0], &["payload_bytes_received"]), got);
    assert!(got < 7 * 500_000);
    // cut short: packets on host links count as in flight
    v["stop_ps"] = json!(300_000_000u64);
    let r = run(&v).unwrap();
    conserved(&r);
    assert!(u(&r, &["summary", "packets_in_flight"]) > 0);
}

#[test]
fn tcp_over_opera_reaches_hosts_and_acks_cross_host_links() {
    // Opera with every pair on a circuit of its own (4 racks, 3 switches, one matching each); two TCP flows,
    // one between racks and one within rack 1, both low-latency
    let ms = round_robin(4);
    let switches: Vec<Value> = ms
        .iter()
        .map(|m| json!({"kind": "rotor", "matchings": [m], "slots": [{"matching": 0, "uptime_ps": 1u64 << 50, "reconfig_ps": 0}]}))
        .collect();
    let mut table = Vec::new();
    for a in 0..4usize {
        for d in 0..4usize {
            table.push(if a == d {
                255
            } else {
                ms.iter().position(|m| m[a] as usize == d).unwrap() as u8
            });
        }
    }
    let v = json!({
        "seed": 1, "endpoints": 4, "link_rate_bps": GBPS10, "delay_ps": 500_000,
        "switches": switches, "routing": "opera",
        "opera": {"slice_ps": 1_000_000_000u64, "slices": 1, "cutoff_bytes": 15_000_000, "next_switch": table},
        "hosts": {"per_endpoint": 2, "rate_bps": GBPS10, "delay_ps": 500_000},
        "flows": [{"id": 1, "src": 0, "dst": 7, "size_bytes": 300_000, "transport": "tcp"},
                  {"id": 2, "src": 2, "dst": 3, "size_bytes": 300_000, "transport": "tcp"}],
    });
    let r = run(&v).unwrap();
    conserved(&r);
    for f in r["flows"].as_array().unwrap() {
        assert!(f["completed"].as_bool().unwrap(), "{f}");
        assert_eq!(f["transport"], "tcp");
    }
    let h = &r["hosts"];
    // every segment acknowledged: the receivers' NICs sent one ACK per data packet they got
    assert_eq!(
        u(&h[7], &["packets_sent"]),
        u(&r["flows"][0], &["packets_received"])
    );
    assert_eq!(u(&h[0], &["packets_received"]), u(&h[7], &["packets_sent"]));
    // the flow within rack 1 added nothing to the circuits: all uplink packets belong to flow 1 and its ACKs
    let hops = u(&r, &["summary", "packet_hops"]);
    assert_eq!(
        hops,
        u(&r["flows"][0], &["data_packets_sent"]) + u(&h[7], &["packets_sent"])
    );
}

/// Opera with every pair on a circuit of its own (4 racks, 3 switches, one matching each), 2 hosts per rack.
fn opera_pairs(flows: Value) -> Value {
    let ms = round_robin(4);
    let switches: Vec<Value> = ms
        .iter()
        .map(|m| json!({"kind": "rotor", "matchings": [m], "slots": [{"matching": 0, "uptime_ps": 1u64 << 50, "reconfig_ps": 0}]}))
        .collect();
    let mut table = Vec::new();
    for a in 0..4usize {
        for d in 0..4usize {
            table.push(if a == d {
                255
            } else {
                ms.iter().position(|m| m[a] as usize == d).unwrap() as u8
            });
        }
    }
    json!({
        "seed": 1, "endpoints": 4, "link_rate_bps": GBPS10, "delay_ps": 500_000,
        "switches": switches, "routing": "opera",
        "opera": {"slice_ps": 1_000_000_000u64, "slices": 1, "cutoff_bytes": 15_000_000, "next_switch": table},
        "hosts": {"per_endpoint": 2, "rate_bps": GBPS10, "delay_ps": 500_000},
        "flows": flows,
    })
}

#[test]
fn the_sender_learns_of_completion_one_ack_path_after_the_receiver() {
    // One flow between the two hosts of rack 1 (host -> ToR -> host), nothing else on the wire: the ACK of the
    // last byte crosses the two host links back, each its serialisation (800 ps a byte at 10 Gb/s) and 500 ns.
    // On the wire an ACK is its header (TCP 52 bytes, NDP 64) and the default 24 bytes of framing.
    let ack_path = |header: u64| 2 * ((header + 24) * 800 + 500_000);
    for (t, header) in [("tcp", 52), ("dctcp", 52), ("ndp", 64)] {
        for size in [1_000, 30_000] {
            let v = opera_pairs(
                json!([{"id": 1, "src": 2, "dst": 3, "size_bytes": size, "transport": t}]),
            );
            let r = run(&v).unwrap();
            let f = &r["flows"][0];
            assert!(f["completed"].as_bool().unwrap(), "{f}");
            assert_eq!(
                u(f, &["acked_ps"]),
                u(f, &["finish_ps"]) + ack_path(header),
                "{t} {size}: {f}"
            );
            assert_eq!(
                u(f, &["fct_ack_ps"]),
                u(f, &["acked_ps"]) - u(f, &["start_ps"])
            );
        }
    }
    // a datagram flow has no ACK: null
    let r = run(&opera_pairs(
        json!([{"id": 1, "src": 2, "dst": 3, "size_bytes": 30_000}]),
    ))
    .unwrap();
    let f = &r["flows"][0];
    assert!(
        f["completed"].as_bool().unwrap() && f["acked_ps"].is_null() && f["fct_ack_ps"].is_null(),
        "{f}"
    );
}

/// Bulk NDP between hosts over RotorLB: the data crosses the destination host's link, and the receiver's ACKs
/// and pulls leave that host's NIC and come down the source host's link (to the sender, not to the receiver).
#[test]
fn bulk_ndp_between_hosts_pulls_down_to_the_source_host() {
    let flows = json!([{"id": 1, "src": 0, "dst": 13, "size_bytes": 300_000, "transport": "ndp"}]);
    let r = run(&spec(8, 2, "rotorlb", GBPS10, flows)).unwrap();
    conserved(&r);
    let f = &r["flows"][0];
    assert!(f["completed"].as_bool().unwrap(), "{f} {}", r["summary"]);
    assert_eq!((u(f, &["retransmits"]), u(f, &["trims"])), (0, 0), "{f}");
    let h = &r["hosts"];
    assert_eq!(
        u(&h[13], &["packets_received"]),
        u(f, &["packets_received"])
    );
    // one ACK per packet received and one pull per ACK owed while bytes were missing, all down to host 0
    assert!(
        u(&h[13], &["packets_sent"]) > u(f, &["acks_sent"]),
        "{}",
        h[13]
    );
    assert_eq!(
        u(&h[0], &["packets_received"]),
        u(&h[13], &["packets_sent"])
    );
}

#[test]
fn the_fast_path_matches_the_reference_path_with_hosts() {
    let flows: Vec<Value> = (0..32u32)
        .map(|h| json!({"id": h, "src": h, "dst": (h * 5 + 3) % 32, "size_bytes": 150_000 + 10_000 * h as u64,
                        "start_ps": (h as u64 % 3) * 2_000_000_000u64}))
        .filter(|f| f["src"] != f["dst"])
        .collect();
    for routing in ["rotorlb", "direct"] {
        let spec: CircuitSpec =
            serde_json::from_value(spec(8, 2, routing, GBPS10, json!(flows))).unwrap();
        let (a, b) = circuit_common::fast_and_reference(&spec);
        conserved(&a);
        assert_eq!(
            u(&a, &["summary", "flows_completed"]),
            flows.len() as u64,
            "{routing}"
        );
        circuit_common::assert_same_results(a, b, routing);
    }
}

#[test]
fn flows_must_name_existing_hosts() {
    let bad = |flows: Value, edit: &dyn Fn(&mut Value)| {
        let mut v = spec(8, 1, "rotorlb", GBPS10, flows);
        edit(&mut v);
        match run(&v) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("accepted"),
        }
    };
    let one = json!([{"id": 1, "src": 0, "dst": 32, "size_bytes": 1000}]);
    assert!(bad(one, &|_| {}).contains("flows[0].dst"));
    let same = json!([{"id": 1, "src": 5, "dst": 5, "size_bytes": 1000}]);
    assert!(bad(same, &|_| {}).contains("same host"));
    let ok = json!([{"id": 1, "src": 0, "dst": 5, "size_bytes": 1000}]);
    assert!(bad(ok.clone(), &|v| v["hosts"]["rate_bps"] = json!(0)).contains("hosts.rate_bps"));
    assert!(bad(ok, &|v| v["hosts"]["per_endpoint"] = json!(0)).contains("hosts.per_endpoint"));
}

/// Many small flows per rack pair (as a fabric comparison's flow file makes them), some rate-capped, starting
/// in order or not: the fast path walks only the flows that may still send and stops at the first that
/// starts too late to matter (`first_ready`), the reference path asks every flow; the results must agree.
#[test]
fn many_small_flows_match_the_reference_path() {
    let mut rand = circuit_common::draws(0x9E37_79B9_7F4A_7C15);
    for (routing, shuffled) in [("rotorlb", false), ("rotorlb", true), ("direct", false)] {
        let flows: Vec<Value> = (0..600u64)
            .map(|i| {
                let src = rand(32);
                let dst = (src + 1 + rand(31)) % 32;
                let start = if shuffled && rand(3) == 0 {
                    rand(600) * 300_000
                } else {
                    i * 300_000
                };
                let mut f = json!({"id": i, "src": src, "dst": dst, "size_bytes": 500 + rand(6_000),
                                   "start_ps": start});
                if rand(5) == 0 {
                    f["rate_bps"] = json!(2_000_000_000u64);
                }
                f
            })
            .collect();
        let spec: CircuitSpec =
            serde_json::from_value(spec(8, 2, routing, GBPS10, json!(flows))).unwrap();
        let (a, b) = circuit_common::fast_and_reference(&spec);
        conserved(&a);
        assert_eq!(u(&a, &["summary", "flows_completed"]), 600, "{routing}");
        circuit_common::assert_same_results(a, b, &format!("{routing} shuffled {shuffled}"));
    }
}
