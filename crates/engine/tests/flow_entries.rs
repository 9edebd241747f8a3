//! Flows that run one after another reuse the entry of the live-flow table a finished flow left
//! (`sim::Flows`): each must come out exactly as it does alone, whatever flow held its entry before.

mod common;
use common::*;
use greendcn_engine::run;
use greendcn_engine::spec::*;

fn flow(i: u32) -> FlowSpec {
    let (src, dst) = (i % 16, (i * 5 + 3) % 16);
    let transport = [Transport::Tcp, Transport::Dctcp, Transport::Udp][i as usize % 3];
    FlowSpec {
        start_ps: i as u64 * 20 * MS,
        transport,
        rate_bps: (transport == Transport::Udp).then_some(100_000_000),
        ..tcp(dst, src, 30_000 + 1_000 * i as u64, 100 + i as u64)
    }
}

#[test]
fn flows_in_turn_come_out_as_they_do_alone() {
    let (nodes, links) = fattree(4, GBPS, 5 * US, Some(QueueLimit::Packets(100)));
    let flows: Vec<FlowSpec> = (0..24).map(flow).collect();
    let all = run(
        &base(nodes.clone(), links.clone(), flows.clone(), Routing::Ecmp),
        &mut || false,
    )
    .expect("valid spec");
    assert_eq!(all.summary.flows_completed, 24);
    for (i, f) in flows.into_iter().enumerate() {
        let alone = run(
            &base(nodes.clone(), links.clone(), vec![f], Routing::Ecmp),
            &mut || false,
        )
        .expect("valid spec");
        assert_eq!(all.flows[i], alone.flows[0], "flow {i}");
    }
}
