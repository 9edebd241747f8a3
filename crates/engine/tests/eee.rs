//! Energy-Efficient Ethernet end to end: wake delays that packets see, time in each state, neutrality when off.

mod common;
use common::*;
use greendcn_engine::spec::*;
use greendcn_engine::{run, SimResults};

const G10: u64 = 10 * GBPS;
const TS: u64 = 2_880_000; // 10GBASE-T's Ts and Tw (docs/energy-saving.md)
const TW: u64 = 4_480_000;

fn go(spec: &SimSpec) -> SimResults {
    run(spec, &mut || false).expect("spec is valid")
}

fn eee(hold_off_ps: u64, coalesce_ps: u64) -> Option<EeeSpec> {
    Some(EeeSpec {
        hold_off_ps,
        coalesce_ps,
        coalesce_bytes: 0,
        phys: vec![EeePhy {
            rate_bps: G10,
            sleep_ps: TS,
            wake_ps: TW,
        }],
    })
}

/// h0 -(10G, EEE)- sw -(20G, no EEE PHY for that rate)- h1, one single-datagram UDP flow at `start`.
fn one_packet(start: u64) -> SimSpec {
    let nodes = vec![
        node("h0", NodeKind::Host),
        node("h1", NodeKind::Host),
        node("sw", NodeKind::Switch),
    ];
    let links = vec![link(0, 2, G10, US, None), link(1, 2, 2 * G10, US, None)];
    let mut f = tcp(1, 0, 1000, 0);
    f.transport = Transport::Udp;
    f.rate_bps = Some(GBPS);
    f.start_ps = start;
    base(nodes, links, vec![f], Routing::Single)
}

#[test]
fn one_packet_after_a_long_idle_is_late_by_exactly_the_wake_time() {
    let mut spec = one_packet(MS);
    let off = go(&spec);
    spec.eee = eee(0, 0);
    let on = go(&spec);
    assert_eq!(
        on.flows[0].fct_ps.unwrap(),
        off.flows[0].fct_ps.unwrap() + TW
    );
    // The sending port slept once at time 0, lay in LPI until the packet came, and woke once.
    let p = &on.links[0];
    let c = p.eee.expect("EEE counters on a 10G port");
    // After sending it went to sleep again for the run's last `tail` picoseconds (cut at the run's end).
    let tail = on.summary.sim_time_ps - (MS + TW + p.busy_ps);
    assert_eq!((c.sleeps, c.wake_ps), (2, TW), "{c:?}");
    assert_eq!(
        (c.sleep_ps, c.lpi_ps),
        (TS + tail.min(TS), MS - TS + tail.saturating_sub(TS)),
        "{c:?}"
    );
    assert!(on.links[2].eee.is_none(), "the 20G link has no EEE PHY");
}

#[test]
fn an_idle_port_spends_the_run_in_lpi_after_one_sleep() {
    let mut spec = one_packet(10 * MS);
    spec.stop_ps = Some(5 * MS);
    spec.eee = eee(0, 0);
    let r = go(&spec);
    assert_eq!(r.summary.sim_time_ps, 5 * MS);
    for l in &r.links[..2] {
        let c = l.eee.unwrap();
        assert_eq!(
            (c.sleeps, c.sleep_ps, c.lpi_ps, c.wake_ps),
            (1, TS, 5 * MS - TS, 0),
            "{l:?}"
        );
    }
}

#[test]
fn hold_off_and_coalescing_shift_the_wake() {
    // A hold-off longer than the idle gap: no sleep, no delay.
    let mut spec = one_packet(MS);
    let off = go(&spec).flows[0].fct_ps.unwrap();
    spec.eee = eee(2 * MS, 0);
    assert_eq!(go(&spec).flows[0].fct_ps.unwrap(), off);
    // Coalescing waits its delay before waking.
    spec.eee = eee(0, 50 * US);
    assert_eq!(go(&spec).flows[0].fct_ps.unwrap(), off + 50 * US + TW);
}

#[test]
fn zero_times_change_no_packet_and_an_unmatched_rate_changes_nothing() {
    // Unlimited queues: no losses, so the wake delays can only make flows slower.
    let (nodes, links) = fattree(4, G10, US, None);
    let flows = (0..8)
        .map(|i| tcp((i * 5 + 3) % 16, i, 200_000, i as u64))
        .collect();
    let mut spec = base(nodes, links, flows, Routing::Ecmp);
    let off = go(&spec);
    spec.eee = Some(EeeSpec {
        hold_off_ps: 0,
        coalesce_ps: 0,
        coalesce_bytes: 0,
        phys: vec![EeePhy {
            rate_bps: G10,
            sleep_ps: 0,
            wake_ps: 0,
        }],
    });
    let zero = go(&spec);
    assert_eq!(zero.flows, off.flows);
    spec.eee = Some(EeeSpec {
        hold_off_ps: 0,
        coalesce_ps: 0,
        coalesce_bytes: 0,
        phys: vec![EeePhy {
            rate_bps: 1,
            sleep_ps: TS,
            wake_ps: TW,
        }],
    });
    let unmatched = go(&spec);
    assert_eq!(unmatched.flows, off.flows);
    assert_eq!(unmatched.links, off.links);
    // With real times every flow still completes, later, and state times never exceed the run.
    spec.eee = eee(0, 0);
    let on = go(&spec);
    assert!(on.flows.iter().all(|f| f.completed));
    let t = on.summary.sim_time_ps;
    for l in &on.links {
        let c = l.eee.unwrap();
        assert!(c.sleep_ps + c.lpi_ps + c.wake_ps + l.busy_ps <= t, "{l:?}");
    }
    let total = |r: &SimResults| r.flows.iter().map(|f| f.fct_ps.unwrap()).sum::<u64>();
    assert!(total(&on) > total(&off), "{} {}", total(&on), total(&off));
}

#[test]
fn bad_eee_times_name_the_field() {
    let mut spec = one_packet(MS);
    spec.eee = Some(EeeSpec {
        hold_off_ps: 0,
        coalesce_ps: 0,
        coalesce_bytes: 0,
        phys: vec![EeePhy {
            rate_bps: G10,
            sleep_ps: 0,
            wake_ps: 2_000_000_000_000,
        }],
    });
    let e = run(&spec, &mut || false).unwrap_err();
    assert!(e.to_string().contains("eee.phys[0].wake_ps"), "{e}");
}

fn eee_bytes(coalesce_ps: u64, coalesce_bytes: u64) -> Option<EeeSpec> {
    Some(EeeSpec {
        hold_off_ps: 0,
        coalesce_ps,
        coalesce_bytes,
        phys: vec![EeePhy {
            rate_bps: G10,
            sleep_ps: TS,
            wake_ps: TW,
        }],
    })
}

#[test]
fn a_burst_reaching_the_byte_count_wakes_at_once_and_fewer_bytes_wait_for_the_delay() {
    // Three datagrams back to back at the line rate, 1 ms into the run (the host's port has slept since 0).
    let mut spec = one_packet(MS);
    spec.flows[0].size_bytes = 3 * spec.udp.payload_bytes as u64;
    spec.flows[0].rate_bps = Some(G10);
    let off = go(&spec);
    let fct_off = off.flows[0].fct_ps.unwrap();
    let l = &off.links[0];
    assert_eq!(l.packets_sent, 3);
    let wire = l.bytes_sent / 3;
    let ser = wire * 800; // picoseconds per datagram at 10 Gb/s
    let late = |eee: Option<EeeSpec>, spec: &mut SimSpec| {
        spec.eee = eee;
        let r = go(spec);
        (r.flows[0].fct_ps.unwrap() - fct_off, r)
    };
    // The delay alone: the first datagram waits 50 us, then the wake.
    assert_eq!(late(eee(0, 50 * US), &mut spec).0, 50 * US + TW);
    // A count of two datagrams: the second, one serialization later, wakes the port at once.
    let (d, r) = late(eee_bytes(50 * US, 2 * wire), &mut spec);
    assert_eq!(d, ser + TW);
    // In LPI from Ts until the wake at 1 ms + one serialization, then again after the burst to the run's end.
    let c = r.links[0].eee.unwrap();
    let tail = r.summary.sim_time_ps - (MS + ser + TW + 3 * ser);
    assert_eq!((c.sleeps, c.wake_ps), (2, TW), "{c:?}");
    assert_eq!(c.lpi_ps, MS + ser - TS + tail.saturating_sub(TS), "{c:?}");
    // A count one byte short of two datagrams is reached by the second too; one byte more is not.
    assert_eq!(
        late(eee_bytes(50 * US, 2 * wire - 1), &mut spec).0,
        ser + TW
    );
    // Fewer bytes than the count (three datagrams, a count of four): they wait for the delay.
    assert_eq!(
        late(eee_bytes(50 * US, 4 * wire), &mut spec).0,
        50 * US + TW
    );
    assert_eq!(
        late(eee_bytes(50 * US, 3 * wire + 1), &mut spec).0,
        50 * US + TW
    );
    // A count of one datagram or less: no coalescing, the wake alone.
    assert_eq!(late(eee_bytes(50 * US, wire), &mut spec).0, TW);
}

#[test]
fn a_byte_count_never_reached_is_the_delay_alone_bit_for_bit() {
    // A fat-tree with short queues (drops count the held packets) under many flows: holding packets until
    // the delay runs out gives every departure, drop and state time of the delay-only model.
    let (nodes, links) = fattree(4, G10, US, Some(QueueLimit::Packets(8)));
    let flows = (0..24)
        .map(|i| {
            tcp(
                (i * 5 + 3) % 16,
                i % 16,
                60_000 + 7_000 * i as u64,
                i as u64,
            )
        })
        .collect();
    let mut spec = base(nodes, links, flows, Routing::Ecmp);
    for (i, f) in spec.flows.iter_mut().enumerate() {
        f.start_ps = i as u64 * 13 * US;
    }
    spec.eee = eee(0, 20 * US);
    let delay = go(&spec);
    spec.eee = eee_bytes(20 * US, u64::MAX);
    let held = go(&spec);
    assert!(delay.flows.iter().all(|f| f.completed));
    assert!(delay.summary.drops > 0, "the queues overflow");
    assert_eq!(held.flows, delay.flows);
    assert_eq!(held.links, delay.links);
    assert_eq!(held.summary.sim_time_ps, delay.summary.sim_time_ps);
}
