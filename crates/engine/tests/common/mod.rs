//! Small networks for the engine's integration tests, built the way the Python front builds them.
#![allow(dead_code)]

use greendcn_engine::spec::*;

pub const GBPS: u64 = 1_000_000_000;
pub const US: u64 = 1_000_000;
pub const MS: u64 = 1_000_000_000;

pub fn node(name: &str, kind: NodeKind) -> NodeSpec {
    NodeSpec {
        name: name.to_string(),
        kind,
    }
}

pub fn link(a: u32, b: u32, rate_bps: u64, delay_ps: u64, queue: Option<QueueLimit>) -> LinkSpec {
    LinkSpec {
        a,
        b,
        rate_bps,
        delay_ps,
        queue_a: queue,
        queue_b: queue,
    }
}

pub fn tcp(dst: u32, src: u32, size: u64, id: u64) -> FlowSpec {
    FlowSpec {
        id,
        src,
        dst,
        size_bytes: size,
        start_ps: 0,
        transport: Transport::Tcp,
        rate_bps: None,
        handshake_ps: 0,
    }
}

pub fn base(
    nodes: Vec<NodeSpec>,
    links: Vec<LinkSpec>,
    flows: Vec<FlowSpec>,
    routing: Routing,
) -> SimSpec {
    SimSpec {
        seed: 1,
        routing,
        single_path: SinglePath::Hashed,
        nodes,
        links,
        flows,
        tcp: TcpSpec {
            min_rto_ps: 10 * MS,
            initial_rto_ps: 10 * MS,
            max_window_bytes: 1 << 20,
            ..TcpSpec::default()
        },
        udp: UdpSpec::default(),
        dctcp: DctcpSpec::default(),
        ndp: NdpSpec::default(),
        frame_overhead_bytes: 0,
        stop_ps: None,
        stats_window_ps: None,
        eee: None,
        link_schedule: None,
        vlb: None,
    }
}

/// k-ary fat-tree with seed 003's names and order: hosts S*, then edges E*, aggregations A*, cores C*.
/// Aggregation switch j of a pod (j = 0..k/2) connects to cores j*k/2 .. j*k/2 + k/2 - 1.
pub fn fattree(
    k: u32,
    rate: u64,
    delay: u64,
    queue: Option<QueueLimit>,
) -> (Vec<NodeSpec>, Vec<LinkSpec>) {
    let half = k / 2;
    let hosts = k * k * k / 4;
    let edges = k * half;
    let aggs = k * half;
    let cores = half * half;
    let mut nodes = Vec::new();
    (0..hosts).for_each(|i| nodes.push(node(&format!("S{i}"), NodeKind::Host)));
    (0..edges).for_each(|i| nodes.push(node(&format!("E{i}"), NodeKind::Switch)));
    (0..aggs).for_each(|i| nodes.push(node(&format!("A{i}"), NodeKind::Switch)));
    (0..cores).for_each(|i| nodes.push(node(&format!("C{i}"), NodeKind::Switch)));
    let e0 = hosts;
    let a0 = hosts + edges;
    let c0 = hosts + edges + aggs;
    let mut links = Vec::new();
    for h in 0..hosts {
        links.push(link(h, e0 + h / half, rate, delay, queue));
    }
    for pod in 0..k {
        for e in 0..half {
            for a in 0..half {
                links.push(link(
                    e0 + pod * half + e,
                    a0 + pod * half + a,
                    rate,
                    delay,
                    queue,
                ));
            }
        }
        for a in 0..half {
            for c in 0..half {
                links.push(link(
                    a0 + pod * half + a,
                    c0 + a * half + c,
                    rate,
                    delay,
                    queue,
                ));
            }
        }
    }
    (nodes, links)
}
