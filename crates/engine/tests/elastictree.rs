//! Links and switches turned off and on over time (a link schedule): routing avoids what is off, queues drain,
//! nothing is lost, and an empty schedule changes nothing.

mod common;
use common::*;
use greendcn_engine::linkstate::LinkSchedule;
use greendcn_engine::spec::*;
use greendcn_engine::{run, SimResults};

fn go(spec: &SimSpec) -> SimResults {
    run(spec, &mut || false).expect("spec is valid")
}

/// Index of the link between the nodes named `a` and `b`.
fn link_id(nodes: &[NodeSpec], links: &[LinkSpec], a: &str, b: &str) -> u32 {
    let name = |i: u32| nodes[i as usize].name.as_str();
    links
        .iter()
        .position(|l| (name(l.a) == a && name(l.b) == b) || (name(l.a) == b && name(l.b) == a))
        .expect("link exists") as u32
}

/// Every link touching an aggregation switch other than A(pod*2) or a core other than C0, in a k=4 fat-tree:
/// one aggregation switch per pod and one core stay on.
fn minimal_subnet(nodes: &[NodeSpec], links: &[LinkSpec]) -> Vec<u32> {
    let name = |i: u32| nodes[i as usize].name.as_str();
    let keep = |n: &str| {
        !(n.starts_with('A') || n.starts_with('C'))
            || n == "C0"
            || n.trim_start_matches('A')
                .parse::<u32>()
                .is_ok_and(|i| i % 2 == 0)
    };
    (0..links.len() as u32)
        .filter(|&l| !(keep(name(links[l as usize].a)) && keep(name(links[l as usize].b))))
        .collect()
}

/// All-to-all traffic between pods of a k=4 fat-tree: every host sends to the host 4 further on.
fn cross_pod_flows(size: u64) -> Vec<FlowSpec> {
    (0..16u32)
        .map(|s| tcp((s + 4) % 16, s, size, s as u64))
        .collect()
}

#[test]
fn turning_switches_off_mid_run_loses_nothing_and_off_links_fall_silent_once_drained() {
    let (nodes, links) = fattree(4, GBPS, US, None);
    let off = minimal_subnet(&nodes, &links);
    assert!(off.len() > 10, "most aggregation and core links go off");
    let mut spec = base(
        nodes.clone(),
        links.clone(),
        cross_pod_flows(2_000_000),
        Routing::Ecmp,
    );
    let t_off = 2 * MS; // the flows last tens of ms on a shared 1 Gbps core: traffic is in flight then
    spec.link_schedule = Some(LinkSchedule {
        times_ps: vec![t_off],
        off_links: vec![off.clone()],
    });
    let window = 100 * US;
    spec.stats_window_ps = Some(window);
    let r = go(&spec);
    let s = &r.summary;
    assert_eq!(
        s.drops, 0,
        "no queue limit and no packet lost to a switch turning off"
    );
    assert_eq!(s.packets_created, s.packets_delivered + s.packets_in_flight);
    assert!(
        r.flows.iter().all(|f| f.completed),
        "every flow finishes over what stays on"
    );
    let drained = &r
        .schedule
        .as_ref()
        .expect("a schedule gives drain times")
        .drained_ps[0];
    assert_eq!(drained.len(), off.len());
    let series = r.series.as_ref().unwrap();
    let mut draining = 0;
    for (j, &l) in off.iter().enumerate() {
        assert!(drained[j] >= t_off);
        if drained[j] > t_off {
            draining += 1;
        }
        // No transmission starts on an off link after it drained.
        let first_quiet = drained[j].div_ceil(window) as usize;
        for dir in [2 * l, 2 * l + 1] {
            let late: u64 = series.link_bytes[dir as usize]
                .iter()
                .skip(first_quiet)
                .sum();
            assert_eq!(
                late, 0,
                "link {l} dir {dir} sent after it drained at {}",
                drained[j]
            );
        }
    }
    assert!(
        draining > 0,
        "some off links still held packets when the epoch began, and drained them"
    );
    // Before the switch traffic used the links that went off, afterwards the ones left on carry it all.
    let before: u64 = off
        .iter()
        .map(|&l| {
            series.link_bytes[2 * l as usize][..(t_off / window) as usize]
                .iter()
                .sum::<u64>()
        })
        .sum();
    assert!(before > 0);
}

#[test]
fn switches_turned_back_on_carry_traffic_again() {
    let (nodes, links) = fattree(4, GBPS, US, None);
    let off = minimal_subnet(&nodes, &links);
    let mut spec = base(
        nodes.clone(),
        links.clone(),
        cross_pod_flows(4_000_000),
        Routing::Ecmp,
    );
    spec.link_schedule = Some(LinkSchedule {
        times_ps: vec![0, 5 * MS],
        off_links: vec![off.clone(), vec![]],
    });
    spec.stats_window_ps = Some(MS);
    let r = go(&spec);
    assert_eq!(r.summary.drops, 0);
    assert!(r.flows.iter().all(|f| f.completed));
    let series = r.series.as_ref().unwrap();
    let used = |from: usize, to: usize| -> u64 {
        off.iter()
            .map(|&l| {
                series.link_bytes[2 * l as usize][from..to]
                    .iter()
                    .sum::<u64>()
            })
            .sum()
    };
    assert_eq!(
        used(0, 5),
        0,
        "off from the start: nothing to drain, nothing sent"
    );
    assert!(
        series.link_bytes[0].len() > 5,
        "traffic lasts past the second epoch's start"
    );
    assert!(
        used(5, series.link_bytes[0].len()) > 0,
        "back on: ECMP spreads over them again"
    );
}

#[test]
fn an_empty_schedule_changes_nothing() {
    let (nodes, links) = fattree(4, GBPS, US, Some(QueueLimit::Packets(20)));
    let plain = base(
        nodes.clone(),
        links.clone(),
        cross_pod_flows(500_000),
        Routing::Ecmp,
    );
    let mut scheduled = plain.clone();
    scheduled.link_schedule = Some(LinkSchedule {
        times_ps: vec![MS, 2 * MS],
        off_links: vec![vec![], vec![]],
    });
    let (a, b) = (go(&plain), go(&scheduled));
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.links, b.links);
    assert_eq!(a.summary.events, b.summary.events);
    assert!(a.schedule.is_none() && b.schedule.is_some());
}

#[test]
fn a_schedule_that_cuts_a_host_off_is_refused() {
    let (nodes, links) = fattree(4, GBPS, US, None);
    let cut = link_id(&nodes, &links, "S0", "E0");
    let mut spec = base(
        nodes.clone(),
        links.clone(),
        cross_pod_flows(1000),
        Routing::Ecmp,
    );
    spec.link_schedule = Some(LinkSchedule {
        times_ps: vec![MS],
        off_links: vec![vec![cut]],
    });
    let err = run(&spec, &mut || false).unwrap_err().to_string();
    assert!(
        err.contains("link_schedule.off_links[0]") && err.contains("S0"),
        "{err}"
    );
    // Turning off every core also splits the pods.
    let cores: Vec<u32> = (0..links.len() as u32)
        .filter(|&l| nodes[links[l as usize].b as usize].name.starts_with('C'))
        .collect();
    spec.link_schedule = Some(LinkSchedule {
        times_ps: vec![MS],
        off_links: vec![cores],
    });
    assert!(run(&spec, &mut || false).is_err());
    spec.link_schedule = Some(LinkSchedule {
        times_ps: vec![MS, MS],
        off_links: vec![vec![], vec![]],
    });
    let err = run(&spec, &mut || false).unwrap_err().to_string();
    assert!(err.contains("link_schedule.times_ps[1]"), "{err}");
}
