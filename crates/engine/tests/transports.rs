//! DCTCP and NDP end to end: DCTCP holds a shared bottleneck's queue near K where NewReno fills it; NDP
//! finishes a 32-to-1 incast by trimming, without a timeout, and its control overtakes queued data (the
//! port's header lane); bad transport settings are refused by name.

mod common;
use common::*;
use greendcn_engine::spec::*;
use greendcn_engine::{run, SimResults};

fn go(spec: &SimSpec) -> SimResults {
    run(spec, &mut || false).expect("spec is valid")
}

fn flow(dst: u32, src: u32, size: u64, id: u64, t: Transport) -> FlowSpec {
    FlowSpec {
        transport: t,
        ..tcp(dst, src, size, id)
    }
}

/// h0 and h1 send to h2 through one switch at 10 Gb/s; the switch's port to h2 is the bottleneck.
fn two_to_one(t: Transport, queue: u64, size: u64) -> SimSpec {
    let nodes = vec![
        node("h0", NodeKind::Host),
        node("h1", NodeKind::Host),
        node("h2", NodeKind::Host),
        node("sw", NodeKind::Switch),
    ];
    let q = Some(QueueLimit::Packets(queue));
    let links = (0..3).map(|h| link(h, 3, 10 * GBPS, 5 * US, q)).collect();
    base(
        nodes,
        links,
        vec![flow(2, 0, size, 0, t), flow(2, 1, size, 1, t)],
        Routing::Single,
    )
}

fn bottleneck(r: &SimResults) -> &greendcn_engine::results::LinkDirResult {
    r.links.iter().find(|l| l.from == 3 && l.to == 2).unwrap()
}

#[test]
fn dctcp_holds_the_bottleneck_queue_near_k_while_newreno_fills_it() {
    let size = 50_000_000;
    let tcp = go(&two_to_one(Transport::Tcp, 400, size));
    let dctcp = go(&two_to_one(Transport::Dctcp, 400, size));
    let k = DctcpSpec::default().k_packets;
    let (qt, qd) = (bottleneck(&tcp), bottleneck(&dctcp));
    // NewReno grows until the 400-packet queue overflows.
    assert_eq!(qt.peak_queue_packets, 400, "{qt:?}");
    assert!(qt.drops > 0);
    // DCTCP: marks start when the queue reaches K; the senders learn of it one round trip later. The peak
    // comes from slow start: when marking starts the two windows hold about K + BDP packets (BDP: 20 us
    // unloaded RTT at 10 Gb/s, 17 packets of 1500 B), and before the first cut takes effect they may double
    // (one segment per ACK). So the bound is 2 (K + BDP) - BDP = 2 K + BDP, plus 2 packets of slack for the
    // one-packet granularity of the two windows: far below NewReno's full 400-packet queue, and no drop.
    let bdp = 17;
    assert!(
        qd.peak_queue_packets >= k && qd.peak_queue_packets <= 2 * k + bdp + 2,
        "{qd:?}"
    );
    assert_eq!(qd.drops, 0, "{qd:?}");
    for f in &dctcp.flows {
        assert!(
            f.completed && f.ecn_marks > 0 && f.retransmits == 0,
            "{f:?}"
        );
        assert_eq!(f.transport, "dctcp");
        assert_eq!(
            f.acks_sent, f.packets_received,
            "a DCTCP receiver acknowledges every packet"
        );
    }
    // Both keep the link busy: DCTCP's completion time within 5 % of NewReno's.
    let fct = |r: &SimResults| r.flows.iter().map(|f| f.fct_ps.unwrap()).max().unwrap() as f64;
    assert!(
        fct(&dctcp) < 1.05 * fct(&tcp),
        "{} vs {}",
        fct(&dctcp),
        fct(&tcp)
    );
    assert!(tcp.flows.iter().all(|f| f.ecn_marks == 0 && f.trims == 0));
}

/// 33 hosts on one switch; hosts 1..=32 each send `size` bytes to host 0 at once.
fn incast(t: Transport, size: u64) -> SimSpec {
    let mut nodes: Vec<NodeSpec> = (0..33)
        .map(|h| node(&format!("h{h}"), NodeKind::Host))
        .collect();
    nodes.push(node("sw", NodeKind::Switch));
    let links = (0..33)
        .map(|h| link(h, 33, 10 * GBPS, US, Some(QueueLimit::Packets(100))))
        .collect();
    let flows = (1..33).map(|h| flow(0, h, size, h as u64, t)).collect();
    base(nodes, links, flows, Routing::Single)
}

#[test]
fn ndp_finishes_a_32_to_1_incast_by_trimming_without_a_timeout() {
    let size = 200_000;
    let r = go(&incast(Transport::Ndp, size));
    let trims: u64 = r.flows.iter().map(|f| f.trims).sum();
    assert!(
        trims > 0,
        "32 initial windows of 12 packets meet an 8-packet queue"
    );
    for f in &r.flows {
        assert!(
            f.completed && f.timeouts == 0 && f.bytes_received == size,
            "{f:?}"
        );
        // Each trimmed packet is NACKed and sent again once: retransmissions are exactly the trims.
        assert_eq!(f.retransmits, f.trims, "{f:?}");
        assert_eq!(f.spurious_retransmits, 0, "{f:?}");
    }
    assert_eq!(r.summary.drops, 0);
    // The 8-packet data queue plus waiting headers: the switch's port to h0 never holds more than 8 full
    // packets and a header for every packet of the 32 initial windows.
    let port = r.links.iter().find(|l| l.from == 33 && l.to == 0).unwrap();
    assert!(port.peak_queue_bytes <= 8 * 1500 + 32 * 12 * 64, "{port:?}");
    // The same incast under NewReno with a 100-packet queue loses packets and waits for timeouts.
    let t = go(&incast(Transport::Tcp, size));
    assert!(t.flows.iter().map(|f| f.timeouts).sum::<u64>() > 0);
    // NDP's last flow finishes near the ideal: 32 x size bytes through one 10 Gb/s port (within 25 %:
    // headers, pulls and the first round trip).
    let ideal = 32.0 * size as f64 * 8.0 / 1e10 * 1500.0 / 1448.0;
    let last = r.flows.iter().map(|f| f.fct_ps.unwrap()).max().unwrap() as f64 * 1e-12;
    assert!(last < 1.25 * ideal, "{last} vs {ideal}");
}

#[test]
fn transport_settings_out_of_range_are_refused_by_key() {
    let mut s = two_to_one(Transport::Dctcp, 40, 1000);
    let e = run(&s, &mut || false).unwrap_err().to_string();
    assert!(e.contains("dctcp.k_packets"), "{e}");
    s.flows
        .iter_mut()
        .for_each(|f| f.transport = Transport::Tcp);
    assert!(run(&s, &mut || false).is_ok(), "a TCP run ignores [dctcp]");
    let mut s = incast(Transport::Ndp, 1000);
    s.ndp.queue = QueueLimit::Bytes(40);
    let e = run(&s, &mut || false).unwrap_err().to_string();
    assert!(e.contains("ndp.queue") && e.contains("one header"), "{e}");
    let bad: Result<SimSpec, _> = serde_json::from_str(
        r#"{"routing":"single","nodes":[],"links":[],"flows":[{"id":0,"src":0,"dst":1,"size_bytes":1,"transport":"quic"}]}"#,
    );
    let e = bad.unwrap_err().to_string();
    assert!(e.contains("quic"), "{e}");
}

#[test]
fn ndp_control_overtakes_a_full_window_queued_at_its_hosts_nic() {
    // h0 and h1 send 400 packets to each other at once through one switch, all in their initial windows:
    // each NIC holds about 400 data packets (480 us of wire time) when the other's first packets arrive.
    // Their ACKs go ahead of that data (they wait only for the packet on the wire), so neither sender goes
    // 100 us without hearing from its receiver; behind the data they would wait up to 480 us and both
    // senders' 100 us timers would fire.
    let nodes = vec![
        node("h0", NodeKind::Host),
        node("h1", NodeKind::Host),
        node("sw", NodeKind::Switch),
    ];
    let links = (0..2)
        .map(|h| link(h, 2, 10 * GBPS, US, Some(QueueLimit::Packets(1000))))
        .collect();
    let size = 400 * 1448;
    let flows = vec![
        flow(1, 0, size, 0, Transport::Ndp),
        flow(0, 1, size, 1, Transport::Ndp),
    ];
    let mut s = base(nodes, links, flows, Routing::Single);
    s.ndp.initial_window = 400;
    s.ndp.queue = QueueLimit::Packets(1000); // no trimming: the queues hold whole windows
    s.tcp.min_rto_ps = 100 * US;
    let r = go(&s);
    let wire = 400.0 * 1500.0 * 8.0 / 1e10; // 400 full frames on one 10 Gb/s link: 480 us
    for f in &r.flows {
        assert!(f.completed && f.trims == 0, "{f:?}");
        assert_eq!((f.timeouts, f.retransmits), (0, 0), "{f:?}");
        let fct = f.fct_ps.unwrap() as f64 * 1e-12;
        // the data's wire time plus the other flow's ACKs and pulls sharing the NIC (800 frames of 64 bytes,
        // 41 us), a second hop's store and forward and 2 us of propagation, with 5 us to spare
        assert!(fct < wire + 50e-6, "{fct} vs {wire}");
    }
}

#[test]
fn a_stopped_ndp_run_counts_every_accepted_byte_in_the_link_windows() {
    // Stopped while the switch's port to h0 still holds data and headers in its lanes: the per-window link
    // bytes still add up to each port's bytes sent, as on ports without lanes.
    let mut s = incast(Transport::Ndp, 200_000);
    s.stop_ps = Some(100 * US);
    s.stats_window_ps = Some(10 * US);
    let r = go(&s);
    assert!(r.flows.iter().any(|f| !f.completed));
    let series = r.series.as_ref().expect("windows on");
    for (l, w) in r.links.iter().zip(&series.link_bytes) {
        assert_eq!(w.iter().sum::<u64>(), l.bytes_sent, "{l:?}");
    }
    let port = r.links.iter().find(|l| l.from == 33 && l.to == 0).unwrap();
    assert!(port.bytes_sent > 0);
}

#[test]
fn a_stopped_ndp_run_counts_the_trims_of_headers_still_on_their_way() {
    // The 32 first packets reach the switch together at 2.2 us (1.2 us on the host link, 1 us of delay): 8
    // fill the data queue to h0 and 24 are trimmed. Stopped at 3 us, before any header can reach h0 (it
    // waits for the packet on the wire until 3.4 us), the trims are counted all the same.
    let mut s = incast(Transport::Ndp, 200_000);
    s.stop_ps = Some(3 * US);
    let r = go(&s);
    assert_eq!(r.flows.iter().map(|f| f.trims).sum::<u64>(), 24);
    assert!(r
        .flows
        .iter()
        .all(|f| f.acks_sent == 0 && f.packets_received == 0));
}

#[test]
fn ndp_data_the_trimming_rule_admits_is_never_dropped_by_the_ports_limit() {
    // Five hosts on one switch whose ports drop beyond 8 packets, NDP's data queue 8 packets too. h1 and h2
    // send to h0 while h0 sends to h3 and h4, so the switch's port to h0 carries data and, ahead of it, the
    // ACKs and pulls of h0's own flows. A drop-tail count of everything held would drop data that NDP's rule
    // (data only) admits whenever control waits there, a loss only a timeout repairs. NDP data is trimmed
    // or kept, never dropped.
    let nodes = (0..5)
        .map(|h| node(&format!("h{h}"), NodeKind::Host))
        .chain([node("sw", NodeKind::Switch)]);
    let switch_port = Some(QueueLimit::Packets(8));
    let host_nic = Some(QueueLimit::Packets(1000));
    let links = (0..5)
        .map(|h| LinkSpec {
            queue_a: host_nic,
            ..link(h, 5, 10 * GBPS, US, switch_port)
        })
        .collect();
    let size = 1_000_000;
    let pairs = [(0, 1), (0, 2), (3, 0), (4, 0)];
    let flows = pairs
        .iter()
        .enumerate()
        .map(|(i, &(d, s))| flow(d, s, size, i as u64, Transport::Ndp))
        .collect();
    let mut s = base(nodes.collect(), links, flows, Routing::Single);
    s.ndp.queue = QueueLimit::Packets(8);
    let r = go(&s);
    assert_eq!(r.summary.drops, 0);
    assert!(r.flows.iter().map(|f| f.trims).sum::<u64>() > 0);
    for f in &r.flows {
        assert!(f.completed && f.timeouts == 0, "{f:?}");
        assert_eq!(f.retransmits, f.trims, "{f:?}");
    }
}

#[test]
fn per_flow_pull_pacers_pull_each_flow_at_the_link_rate() {
    // h0 and h1 each send 2 MB to h2, starting with 40 packets each: 80 in flight, far more than the path's
    // bandwidth-delay product (about 17 packets) and the switch's 8-packet data queue. Each packet that
    // arrives, whole or trimmed, earns its flow one pull. One pacer at h2 sends the pulls of both flows one
    // packet time apart: after the first windows the port to h2 is fed as fast as it drains, the excess
    // waits as pulls owed at h2, and trims stop. A pacer per flow (the public Opera simulator's Clos and
    // expander runs) pulls each at the link rate, twice what the port drains, so the port keeps trimming
    // until one flow ends. Both finish without a timeout either way.
    let size = 2_000_000;
    let trims = |pacing: PullPacing| {
        let mut s = two_to_one(Transport::Ndp, 1000, size);
        s.ndp.initial_window = 40;
        s.ndp.pull_pacer = pacing;
        let r = go(&s);
        assert!(
            r.flows.iter().all(|f| f.completed && f.timeouts == 0),
            "{:?}",
            r.flows
        );
        assert_eq!(r.summary.drops, 0);
        r.flows.iter().map(|f| f.trims).sum::<u64>()
    };
    let (host, flow) = (trims(PullPacing::Host), trims(PullPacing::Flow));
    // One pacer: the first windows' excess is trimmed (at most the 80 packets) and little after. Per flow,
    // a large share of the 2 x 1,382 packets is trimmed while both run.
    assert!(host <= 80, "{host}");
    assert!(flow > 5 * host.max(100), "{flow} (host: {host})");
}

/// h0 -> switch -> h1 at 10 Gb/s, 5 us a link: one flow of `size` bytes and nothing else on the wire.
fn one_flow(t: Transport, size: u64) -> SimResults {
    let nodes = vec![
        node("h0", NodeKind::Host),
        node("h1", NodeKind::Host),
        node("sw", NodeKind::Switch),
    ];
    let links = (0..2)
        .map(|h| link(h, 2, 10 * GBPS, 5 * US, None))
        .collect();
    let rate = (t == Transport::Udp).then_some(GBPS); // a datagram flow sends at a set rate
    go(&base(
        nodes,
        links,
        vec![FlowSpec {
            rate_bps: rate,
            ..flow(1, 0, size, 0, t)
        }],
        Routing::Single,
    ))
}

#[test]
fn the_sender_learns_of_completion_one_ack_path_after_the_receiver() {
    // The ACK of the last byte crosses two idle links back: on each, its header's serialisation (800 ps a byte
    // at 10 Gb/s) and 5 us of fibre. TCP's ACK is its 52-byte header, NDP's its 64-byte one.
    let ack_path = |header: u64| 2 * (header * 800 + 5 * US);
    for (t, header) in [
        (Transport::Tcp, 52),
        (Transport::Dctcp, 52),
        (Transport::Ndp, 64),
    ] {
        for size in [1_000, 30_000] {
            let r = one_flow(t, size);
            let f = &r.flows[0];
            assert!(f.completed, "{f:?}");
            assert_eq!(
                f.acked_ps.unwrap(),
                f.finish_ps.unwrap() + ack_path(header),
                "{t:?} {size}: {f:?}"
            );
            assert_eq!(f.fct_ack_ps.unwrap(), f.acked_ps.unwrap() - f.start_ps);
        }
    }
    // datagrams have no ACK: the column is absent
    let f = &one_flow(Transport::Udp, 30_000).flows[0];
    assert!(
        f.completed && f.acked_ps.is_none() && f.fct_ack_ps.is_none(),
        "{f:?}"
    );
}

#[test]
fn finished_ndp_flows_still_count_and_answer_their_late_copies() {
    // An incast with a timeout far below the queueing delay: senders time out and send copies of packets
    // that are still queued, so copies keep arriving after their flow's sender has every packet acknowledged
    // (and the flow is kept as its result row alone). Every copy sent reaches its receiver, whole or trimmed
    // to its header, and is ACKed or NACKed there: the counts must add up whether it came before or after.
    let size = 200_000;
    let mut s = incast(Transport::Ndp, size);
    s.tcp.min_rto_ps = 5 * US;
    let r = go(&s);
    assert_eq!((r.summary.drops, r.summary.packets_in_flight), (0, 0));
    let packets = size.div_ceil(s.tcp.mss as u64);
    for f in &r.flows {
        assert!(f.completed && f.bytes_received == size, "{f:?}");
        assert_eq!(f.packets_received + f.trims, f.data_packets_sent, "{f:?}");
        assert_eq!(f.acks_sent, f.packets_received + f.trims, "{f:?}");
        assert_eq!(
            f.spurious_retransmits,
            f.packets_received - packets,
            "{f:?}"
        );
    }
    let sum =
        |k: fn(&greendcn_engine::results::FlowResult) -> u64| r.flows.iter().map(k).sum::<u64>();
    assert!(sum(|f| f.timeouts) > 0 && sum(|f| f.spurious_retransmits) > 0);
}
