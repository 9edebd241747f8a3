//! Valiant load balancing in the engine: on a ring of racks, data of a flow between neighbours goes the long way
//! round through its intermediate and its ACKs the short way; a network whose hosts are not in racks is refused.

mod common;

use common::*;
use greendcn_engine::spec::*;
use greendcn_engine::{run, SimResults};

/// A ring of `n` switches R0..R(n-1), one host S_i under each: hosts are nodes 0..n, switches n..2n.
fn ring(n: u32) -> (Vec<NodeSpec>, Vec<LinkSpec>) {
    let mut nodes: Vec<NodeSpec> = (0..n)
        .map(|i| node(&format!("S{i}"), NodeKind::Host))
        .collect();
    nodes.extend((0..n).map(|i| node(&format!("R{i}"), NodeKind::Switch)));
    let mut links: Vec<LinkSpec> = (0..n)
        .map(|i| link(i, n + i, 10 * GBPS, US, None))
        .collect();
    links.extend((0..n).map(|i| link(n + i, n + (i + 1) % n, 10 * GBPS, US, None)));
    (nodes, links)
}

fn spec(n: u32, routing: Routing, vlb: Option<VlbSpec>) -> SimSpec {
    let (nodes, links) = ring(n);
    let mut s = base(nodes, links, vec![tcp(1, 0, 1_000_000, 0)], routing);
    s.vlb = vlb;
    s
}

/// Data packets on switch-to-switch links, and ACKs on them (by direction: clockwise carries the data's way).
fn ring_packets(r: &SimResults, n: u32) -> u64 {
    r.links
        .iter()
        .filter(|l| l.from >= n && l.to >= n)
        .map(|l| l.packets_sent)
        .sum()
}

#[test]
fn data_goes_round_through_the_intermediate_and_acks_take_the_short_way() {
    let n = 5;
    let plain = run(&spec(n, Routing::Ecmp, None), &mut || false).unwrap();
    // 20 draws, of which ecmp's flow hash picks one for every packet (a single draw would land on the flow's
    // own two racks, and be dropped, 2 times in 5)
    let vlb = Some(VlbSpec {
        intermediates: 20,
        min_size_bytes: 0,
    });
    let r = run(&spec(n, Routing::Ecmp, vlb), &mut || false).unwrap();
    assert!(r.flows[0].completed && plain.flows[0].completed);
    let (data, acks) = (r.flows[0].data_packets_sent, r.flows[0].acks_sent);
    // Shortest: R0 -> R1 for data, R1 -> R0 for ACKs, one ring link each.
    assert_eq!(
        ring_packets(&plain, n),
        plain.flows[0].data_packets_sent + plain.flows[0].acks_sent
    );
    // Through an intermediate R2, R3 or R4 (the flow's own racks R0 and R1 are never drawn): the intermediate
    // is 2, 2 or 1 links from R0 and 1, 2 or 2 from R1, so every data packet crosses 3 or 4 ring links.
    let ring_hops = ring_packets(&r, n) - acks;
    assert!(
        ring_hops == 3 * data || ring_hops == 4 * data,
        "{ring_hops} ring hops for {data} data packets"
    );
    // the ACKs came back on the one-link path: the R1 -> R0 direction carried them and nothing else
    let back = r
        .links
        .iter()
        .find(|l| l.from == n + 1 && l.to == n)
        .unwrap();
    assert_eq!(back.packets_sent, acks);
}

#[test]
fn hosts_outside_racks_are_refused_naming_vlb() {
    let mut s = spec(
        4,
        Routing::Rps,
        Some(VlbSpec {
            intermediates: 3,
            min_size_bytes: 0,
        }),
    );
    s.links.push(link(2, 5, 10 * GBPS, US, None)); // S2 gets a second switch
    let err = run(&s, &mut || false).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("vlb") && msg.contains("S2"), "{msg}");
    s.vlb = Some(VlbSpec {
        intermediates: 0,
        min_size_bytes: 0,
    });
    assert!(run(&s, &mut || false)
        .unwrap_err()
        .to_string()
        .contains("vlb.intermediates"));
}
