//! When a run ends: at its last flow's completion, or at the stop time if that comes first; timers still
//! queued (a cancelled retransmission timer past the stop time) neither stop nor extend it.

mod common;
use common::*;
use greendcn_engine::spec::*;
use greendcn_engine::{run, SimResults};

fn go(spec: &SimSpec) -> SimResults {
    let mut r = run(spec, &mut || false).expect("spec is valid");
    r.summary.wall_s = 0.0;
    r
}

fn pair() -> (Vec<NodeSpec>, Vec<LinkSpec>) {
    let nodes = vec![
        node("h0", NodeKind::Host),
        node("h1", NodeKind::Host),
        node("sw", NodeKind::Switch),
    ];
    let q = Some(QueueLimit::Packets(1000));
    (
        nodes,
        vec![link(0, 2, GBPS, 10 * US, q), link(1, 2, GBPS, 10 * US, q)],
    )
}

#[test]
fn a_cancelled_retransmission_timer_past_the_stop_time_does_not_end_the_run() {
    // 100 kB at 1 Gbps: done in about a millisecond. Every ACK re-arms the sender's retransmission timer
    // 10 ms ahead (base(): min_rto = initial_rto = 10 ms); the last ACK disarms it, leaving its event queued
    // at about 11 ms. A stop time of 5 ms lies between the completion and that cancelled timer.
    let (nodes, links) = pair();
    let free = go(&base(
        nodes.clone(),
        links.clone(),
        vec![tcp(1, 0, 100_000, 0)],
        Routing::Single,
    ));
    let f = &free.flows[0];
    assert!(
        f.completed && f.timeouts == 0 && f.retransmits == 0,
        "{f:?}"
    );
    assert_eq!(free.summary.stopped_by, "completion");
    let end = free.summary.sim_time_ps;
    // The run ends with its traffic: the last data packet, then its ACK back to the sender (one way).
    assert!(
        end >= f.finish_ps.unwrap() && end < f.finish_ps.unwrap() + 100 * US,
        "{end}"
    );
    assert!(
        end < 5 * MS && end + 5 * MS < 10 * MS,
        "the timer must lie past the stop time: {end}"
    );
    for stop in [5 * MS, 100 * MS, 1000 * MS] {
        let mut spec = base(
            nodes.clone(),
            links.clone(),
            vec![tcp(1, 0, 100_000, 0)],
            Routing::Single,
        );
        spec.stop_ps = Some(stop);
        let r = go(&spec);
        assert_eq!(r.summary.stopped_by, "completion", "stop {stop}");
        assert_eq!(r.summary.sim_time_ps, end, "stop {stop}");
        assert_eq!(r.summary, free.summary, "stop {stop}");
        assert_eq!(r.links, free.links, "stop {stop}");
    }
}

#[test]
fn a_stop_time_before_the_last_completion_still_cuts_the_run_there() {
    let (nodes, links) = pair();
    let flows = vec![tcp(1, 0, 100_000, 0), tcp(0, 1, 5_000_000, 1)];
    let free = go(&base(
        nodes.clone(),
        links.clone(),
        flows.clone(),
        Routing::Single,
    ));
    let first = free.flows[0].finish_ps.unwrap();
    let last = free.flows[1].finish_ps.unwrap();
    assert!(first < last);
    let mut spec = base(nodes, links, flows, Routing::Single);
    let stop = (first + last) / 2;
    spec.stop_ps = Some(stop);
    let r = go(&spec);
    assert_eq!(r.summary.stopped_by, "time_limit");
    assert_eq!(r.summary.sim_time_ps, stop);
    assert!(r.flows[0].completed && !r.flows[1].completed);
}

#[test]
fn many_flows_end_at_the_same_time_with_or_without_a_distant_stop_time() {
    // A k = 4 fat-tree, every host sending 200 kB to the host half the tree away, with delayed ACKs on.
    let (nodes, links) = fattree(4, GBPS, US, Some(QueueLimit::Packets(100)));
    let flows: Vec<FlowSpec> = (0..16)
        .map(|i| tcp((i + 8) % 16, i, 200_000, i as u64))
        .collect();
    let mut spec = base(nodes, links, flows, Routing::Ecmp);
    spec.tcp.delayed_ack = true;
    let free = go(&spec);
    assert!(free.flows.iter().all(|f| f.completed));
    let last = free.flows.iter().filter_map(|f| f.finish_ps).max().unwrap();
    assert!(free.summary.sim_time_ps >= last && free.summary.sim_time_ps < last + 100 * US);
    for stop in [free.summary.sim_time_ps, 50 * MS, 2000 * MS] {
        let mut s = spec.clone();
        s.stop_ps = Some(stop);
        let r = go(&s);
        assert_eq!(r.summary, free.summary, "stop {stop}");
    }
}
