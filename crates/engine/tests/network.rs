//! End-to-end behaviour of the engine on small networks with known answers.

mod common;
use common::*;
use greendcn_engine::spec::*;
use greendcn_engine::{run, SimResults};

fn go(spec: &SimSpec) -> SimResults {
    run(spec, &mut || false).expect("spec is valid")
}

fn conserved(r: &SimResults) {
    let s = &r.summary;
    assert_eq!(
        s.packets_created,
        s.packets_delivered + s.drops + s.packets_in_flight,
        "{s:?}"
    );
    let link_drops: u64 = r.links.iter().map(|l| l.drops).sum();
    assert_eq!(link_drops, s.drops);
    let link_packets: u64 = r.links.iter().map(|l| l.packets_sent).sum();
    assert_eq!(link_packets, s.packet_hops);
    let sent: u64 = r.nodes.iter().map(|n| n.packets_sent).sum();
    let received: u64 = r.nodes.iter().map(|n| n.packets_received).sum();
    assert_eq!(sent, s.packets_created);
    assert_eq!(received, s.packets_delivered);
}

fn pair(rate: u64, delay: u64, queue: Option<QueueLimit>) -> (Vec<NodeSpec>, Vec<LinkSpec>) {
    let nodes = vec![
        node("h0", NodeKind::Host),
        node("h1", NodeKind::Host),
        node("sw", NodeKind::Switch),
    ];
    let links = vec![
        link(0, 2, rate, delay, queue),
        link(1, 2, rate, delay, queue),
    ];
    (nodes, links)
}

#[test]
fn one_flow_on_an_idle_path_reaches_link_rate_less_headers() {
    let (nodes, links) = pair(GBPS, 10 * US, Some(QueueLimit::Packets(1000)));
    let size = 20_000_000;
    let r = go(&base(
        nodes,
        links,
        vec![tcp(1, 0, size, 0)],
        Routing::Single,
    ));
    conserved(&r);
    let f = &r.flows[0];
    assert!(
        f.completed && f.retransmits == 0 && f.ooo_packets == 0,
        "{f:?}"
    );
    let goodput = 8.0 * size as f64 / (f.fct_ps.unwrap() as f64 * 1e-12);
    // The wire carries 1500-byte packets for 1448 payload bytes: the ceiling is 1 Gbps * 1448/1500.
    let ceiling = 1e9 * 1448.0 / 1500.0;
    // Slow start and the last RTT cost a little: within 3 % of the ceiling, never above it.
    assert!(
        goodput <= ceiling && goodput > 0.97 * ceiling,
        "goodput {goodput:.4e} vs {ceiling:.4e}"
    );
}

#[test]
fn two_flows_sharing_a_bottleneck_get_fair_shares() {
    // h0 and h1 send to h2 through one switch; the switch->h2 link is the bottleneck.
    let nodes = vec![
        node("h0", NodeKind::Host),
        node("h1", NodeKind::Host),
        node("h2", NodeKind::Host),
        node("sw", NodeKind::Switch),
    ];
    let q = Some(QueueLimit::Packets(100));
    let links = vec![
        link(0, 3, GBPS, 10 * US, q),
        link(1, 3, GBPS, 10 * US, q),
        link(2, 3, GBPS, 10 * US, q),
    ];
    let size = 1_000_000_000;
    let mut spec = base(
        nodes,
        links,
        vec![tcp(2, 0, size, 0), tcp(2, 1, size, 1)],
        Routing::Single,
    );
    // Both start together, so slow start ends in a burst of losses that may hit one flow harder. Measure the
    // bytes each delivers between 0.5 s and 1.5 s, once the sawtooth has settled (the run is deterministic,
    // so the first 0.5 s of the longer run is the shorter run).
    spec.stop_ps = Some(500 * MS);
    let early = go(&spec);
    spec.stop_ps = Some(1500 * MS);
    let late = go(&spec);
    conserved(&late);
    let delivered =
        |i: usize| (late.flows[i].bytes_received - early.flows[i].bytes_received) as f64;
    let (a, b) = (delivered(0), delivered(1));
    let jain = (a + b).powi(2) / (2.0 * (a * a + b * b));
    // Two NewReno flows with the same RTT share equally on average; over one second (hundreds of
    // sawtooth cycles) we allow a 10 % imbalance.
    assert!(
        (a - b).abs() / (a + b) < 0.1 && jain > 0.99,
        "a={a} b={b} jain={jain}"
    );
    // Together they keep the bottleneck busy: at least 90 % of the header-limited rate.
    let total_bps = 8.0 * (a + b) / 1.0;
    assert!(
        total_bps > 0.9 * 1e9 * 1448.0 / 1500.0,
        "total {total_bps:.3e}"
    );
    assert!(
        late.flows[0].fast_retransmits > 0,
        "a 100-packet queue must overflow: {:?}",
        late.flows[0]
    );
}

#[test]
fn losses_in_a_small_queue_are_recovered_and_the_flow_completes() {
    let (nodes, links) = pair(GBPS, 10 * US, Some(QueueLimit::Packets(8)));
    let mut links = links;
    links[1].rate_bps = GBPS / 10; // bottleneck after the switch
    let r = go(&base(
        nodes,
        links,
        vec![tcp(1, 0, 2_000_000, 0)],
        Routing::Single,
    ));
    conserved(&r);
    let f = &r.flows[0];
    assert!(f.completed);
    assert!(r.summary.drops > 0 && f.retransmits > 0);
    assert_eq!(f.bytes_received, 2_000_000);
    // In-order network: retransmissions are counted apart, never as out-of-order arrivals.
    assert_eq!(f.ooo_packets, 0);
}

#[test]
fn fat_tree_k4_spraying_uses_all_four_paths_and_single_path_one() {
    let (nodes, links) = fattree(4, GBPS, 25 * US, Some(QueueLimit::Packets(1000)));
    let flows = vec![tcp(15, 0, 3_000_000, 0)];
    let single = go(&base(
        nodes.clone(),
        links.clone(),
        flows.clone(),
        Routing::Single,
    ));
    let rps = go(&base(nodes.clone(), links.clone(), flows, Routing::Rps));
    conserved(&single);
    conserved(&rps);
    let core_load = |r: &SimResults| -> Vec<u64> {
        // data packets: those entering each core switch from pod 0's aggregation switches A0, A1
        (0..4)
            .map(|c| {
                let core = (16 + 8 + 8 + c) as u32;
                r.links
                    .iter()
                    .filter(|l| l.to == core && (l.from == 24 || l.from == 25))
                    .map(|l| l.packets_sent)
                    .sum()
            })
            .collect()
    };
    let s = core_load(&single);
    assert_eq!(
        s.iter().filter(|&&x| x > 0).count(),
        1,
        "single path crosses one core: {s:?}"
    );
    let p = core_load(&rps);
    let total: u64 = p.iter().sum();
    for x in &p {
        // data and ACKs both sprayed: each core carries a quarter, within 5 points (about 2,000 packets each).
        let share = *x as f64 / total as f64;
        assert!((share - 0.25).abs() < 0.05, "{p:?}");
    }
    assert_eq!(single.flows[0].ooo_packets, 0);
}

#[test]
fn same_seed_same_results_and_seed_changes_spraying() {
    let (nodes, links) = fattree(4, GBPS, 25 * US, Some(QueueLimit::Packets(30)));
    let flows: Vec<FlowSpec> = (0..5).map(|i| tcp(15, i, 1_000_000, i as u64)).collect();
    let spec = base(nodes, links, flows, Routing::Rps);
    let mut a = go(&spec);
    let mut b = go(&spec);
    a.summary.wall_s = 0.0;
    b.summary.wall_s = 0.0;
    assert_eq!(a, b);
    let mut other = spec.clone();
    other.seed = 2;
    let mut c = go(&other);
    c.summary.wall_s = 0.0;
    assert_ne!(a.links, c.links);
}

#[test]
fn time_limit_leaves_packets_in_flight_and_still_conserves() {
    let (nodes, links) = pair(GBPS, 10 * US, None);
    let mut spec = base(
        nodes,
        links,
        vec![tcp(1, 0, 50_000_000, 0)],
        Routing::Single,
    );
    spec.stop_ps = Some(5 * MS);
    let r = go(&spec);
    conserved(&r);
    assert_eq!(r.summary.stopped_by, "time_limit");
    assert!(r.summary.packets_in_flight > 0 && !r.flows[0].completed);
}

#[test]
fn udp_cbr_source_sends_at_its_rate() {
    let (nodes, links) = pair(GBPS, 10 * US, None);
    let f = FlowSpec {
        id: 0,
        src: 0,
        dst: 1,
        size_bytes: 1_472_000,
        start_ps: 0,
        transport: Transport::Udp,
        rate_bps: Some(100_000_000),
        handshake_ps: 0,
    };
    let r = go(&base(nodes, links, vec![f], Routing::Single));
    conserved(&r);
    let f = &r.flows[0];
    assert!(f.completed && f.data_packets_sent == 1000 && f.packets_received == 1000);
    // 1000 datagrams of 1500 wire bytes at 100 Mbps: 120 us apart, the last sent at 999 * 120 us.
    let expected = 999 * 120 * US + 2 * (12 * US + 10 * US);
    assert_eq!(f.fct_ps, Some(expected));
}

#[test]
fn bad_specs_are_refused_with_the_field_named() {
    let (nodes, links) = pair(GBPS, 10 * US, None);
    let mut spec = base(nodes, links, vec![tcp(2, 0, 1000, 0)], Routing::Single);
    let err = run(&spec, &mut || false).unwrap_err().to_string();
    assert!(
        err.contains("flows[0].dst") && err.contains("switch"),
        "{err}"
    );
    spec.flows[0].dst = 1;
    spec.links[0].rate_bps = 0;
    let err = run(&spec, &mut || false).unwrap_err().to_string();
    assert!(err.contains("links[0].rate_bps"), "{err}");
    let err = greendcn_engine::run_json(
        "{\"routing\": \"single\", \"nodes\": [], \"links\": [], \"bogus\": 1}",
        &mut || false,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("bogus"), "{err}");
}

/// h0 -> sw -> h1 with a 10 Gbps access link and a 0.5 Gbps bottleneck of `queue` packets, 50 us per link.
/// The sender's window is capped at 10 segments, its initial window.
fn burst_into_bottleneck(queue: QueueLimit, size: u64) -> SimSpec {
    let nodes = vec![
        node("h0", NodeKind::Host),
        node("h1", NodeKind::Host),
        node("sw", NodeKind::Switch),
    ];
    let mut links = vec![
        link(0, 2, 10 * GBPS, 50 * US, None),
        link(1, 2, GBPS / 2, 50 * US, None),
    ];
    links[1].queue_b = Some(queue); // sw -> h1
    let mut spec = base(nodes, links, vec![tcp(1, 0, size, 0)], Routing::Single);
    spec.tcp.max_window_bytes = 10 * 1448;
    spec
}

#[test]
fn a_single_loss_triggers_one_fast_retransmit_and_no_timeout() {
    // The initial window of 10 segments reaches the switch within 12 us, before the bottleneck has sent one
    // (24 us each): a 9-packet queue drops exactly the tenth. Afterwards the ACK clock spaces segments at the
    // bottleneck's rate and the window cap (10) is about the path's bandwidth-delay product (~9 packets at a
    // ~226 us RTT), so nothing else is lost. Segments 11-13 produce the three duplicate ACKs.
    let size = 100 * 1448;
    let lossless = go(&burst_into_bottleneck(QueueLimit::Packets(10), size));
    assert_eq!(
        lossless.summary.drops, 0,
        "with room for the whole burst nothing is lost"
    );
    let r = go(&burst_into_bottleneck(QueueLimit::Packets(9), size));
    conserved(&r);
    assert_eq!(r.summary.drops, 1);
    let f = &r.flows[0];
    assert!(f.completed);
    assert_eq!(
        (
            f.fast_retransmits,
            f.retransmits,
            f.timeouts,
            f.spurious_retransmits
        ),
        (1, 1, 0, 0),
        "{f:?}"
    );
    // Recovery costs time (the hole is filled about one RTT after the loss is noticed) but no 10 ms timeout.
    let extra = f.fct_ps.unwrap() - lossless.flows[0].fct_ps.unwrap();
    assert!(
        extra > 200 * US && extra < 10 * MS,
        "one loss cost {extra} ps"
    );
}

#[test]
fn losing_every_segment_of_the_window_fires_the_rto_with_back_off() {
    // A 1000-byte queue limit lets 52-byte ACKs through but never a 1500-byte data packet: the whole initial
    // window is lost, no duplicate ACK ever comes back, so only the retransmission timer can act. It fires at
    // the initial RTO (10 ms), then doubles: 10 ms, 30 ms, 70 ms, each time resending one segment.
    let mut spec = burst_into_bottleneck(QueueLimit::Bytes(1000), 100 * 1448);
    for (stop_ms, timeouts) in [(9, 0u64), (11, 1), (29, 1), (31, 2), (69, 2), (71, 3)] {
        spec.stop_ps = Some(stop_ms * MS);
        let r = go(&spec);
        conserved(&r);
        let f = &r.flows[0];
        assert_eq!(
            (f.timeouts, f.retransmits, f.fast_retransmits),
            (timeouts, timeouts, 0),
            "at {stop_ms} ms: {f:?}"
        );
        assert_eq!(r.summary.drops, 10 + timeouts);
        assert!(!f.completed && f.bytes_received == 0);
    }
}

#[test]
fn a_window_too_narrow_for_the_run_is_an_error_naming_the_field_not_an_abort() {
    // 1 ps windows: a 1 MB flow would need millions of windows per link.
    let (nodes, links) = pair(GBPS, 10 * US, None);
    let mut spec = base(nodes, links, vec![tcp(1, 0, 1_000_000, 0)], Routing::Single);
    spec.stats_window_ps = Some(1);
    let err = run(&spec, &mut || false).unwrap_err();
    assert_eq!(
        err.loc().map(|l| l.to_string()),
        Some("stats_window_ps".to_string())
    );
    assert!(err.to_string().contains("windows"), "{err}");
}

#[test]
fn single_path_first_takes_the_lowest_numbered_equal_cost_port_at_every_switch() {
    // k=4: S0 -> S15 leaves E0 on its first uplink (A0), A0 on its first (C0), C0 reaches pod 3 only via A6;
    // the ACKs climb E7 -> A6 -> C0 the same way. Links are (lower, upper); direction 0 is upward, so the
    // upward directions used are the data's way up and the ACKs' way up, every hop named.
    let (nodes, links) = fattree(4, GBPS, US, None);
    let names: Vec<String> = nodes.iter().map(|n| n.name.clone()).collect();
    let mut spec = base(
        nodes,
        links.clone(),
        vec![tcp(1, 0, 300_000, 0)],
        Routing::Single,
    );
    spec.flows[0].dst = 15;
    spec.single_path = SinglePath::First;
    let r = go(&spec);
    conserved(&r);
    let mut used: Vec<(String, String)> = r
        .links
        .iter()
        .filter(|l| l.packets_sent > 0 && l.dir % 2 == 0)
        .map(|l| {
            let link = &links[(l.dir / 2) as usize];
            (
                names[link.a as usize].clone(),
                names[link.b as usize].clone(),
            )
        })
        .collect();
    used.sort();
    let mut want: Vec<(String, String)> = [
        ("S0", "E0"),
        ("E0", "A0"),
        ("A0", "C0"),
        ("A6", "C0"),
        ("E7", "A6"),
        ("S15", "E7"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    want.sort();
    assert_eq!(used, want);
}

#[test]
fn a_handshake_delays_the_first_data_packet_and_counts_in_the_completion_time() {
    let (nodes, links) = pair(GBPS, 10 * US, None);
    let plain = go(&base(
        nodes.clone(),
        links.clone(),
        vec![tcp(1, 0, 100_000, 0)],
        Routing::Single,
    ));
    let mut flows = vec![tcp(1, 0, 100_000, 0)];
    flows[0].handshake_ps = 41 * US;
    let shaken = go(&base(nodes, links, flows, Routing::Single));
    assert_eq!(
        shaken.flows[0].fct_ps.unwrap(),
        plain.flows[0].fct_ps.unwrap() + 41 * US
    );
}

#[test]
fn host_windows_add_up_to_the_host_counters() {
    let (nodes, links) = fattree(4, GBPS, US, Some(QueueLimit::Packets(100)));
    let flows = vec![
        tcp(15, 0, 400_000, 0),
        tcp(9, 4, 300_000, 1),
        tcp(0, 12, 200_000, 2),
    ];
    let mut spec = base(nodes, links, flows, Routing::Rps);
    spec.stats_window_ps = Some(100 * US);
    let r = go(&spec);
    conserved(&r);
    let s = r.series.as_ref().expect("windows on");
    let hosts: Vec<_> = r.nodes.iter().filter(|n| n.kind == "host").collect();
    assert_eq!(s.host_packets_sent.len(), hosts.len());
    for (i, n) in hosts.iter().enumerate() {
        assert_eq!(
            s.host_packets_sent[i].iter().sum::<u64>(),
            n.packets_sent,
            "{}",
            n.name
        );
        assert_eq!(
            s.host_packets_received[i].iter().sum::<u64>(),
            n.packets_received,
            "{}",
            n.name
        );
        assert_eq!(s.host_packets_sent[i].len(), s.link_bytes[0].len());
    }
    // every byte a host sends is offered to its own uplink: carried, or dropped by the host's queue
    let sent: u64 = s.host_bytes_sent.iter().flatten().sum();
    let up: u64 = r
        .links
        .iter()
        .filter(|l| l.dir % 2 == 0 && (l.dir / 2) < 16)
        .map(|l| l.bytes_sent + l.drop_bytes)
        .sum();
    assert_eq!(sent, up);
    assert!(s.host_packets_sent[0].iter().filter(|&&p| p > 0).count() > 1); // spread over several windows
}
