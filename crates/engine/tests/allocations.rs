//! The hot loop allocates nothing per packet: a run that moves four times as many packets makes about as
//! many heap allocations as the short one (only pools, queues and the event heap growing to their peaks).
//! Its own test binary, because it installs a counting global allocator.

mod common;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use common::*;
use greendcn_engine::run;
use greendcn_engine::spec::*;

struct Counting;

thread_local! {
    // Per thread, so tests running in parallel do not count each other's allocations.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made by one run, and the packet hops it simulated.
fn allocations(routing: Routing, size: u64) -> (u64, u64) {
    let (nodes, links) = fattree(4, GBPS, 25 * US, Some(QueueLimit::Packets(100)));
    // Seed 003's static pattern: five long flows into S15, so queues build, packets are dropped and, under
    // spraying, arrive out of order (the receiver's out-of-order list is on the hot path then).
    let flows: Vec<FlowSpec> = (0..5).map(|i| tcp(15, i, size, i as u64)).collect();
    let spec = base(nodes, links, flows, routing);
    let before = ALLOCATIONS.with(|c| c.get());
    let r = run(&spec, &mut || false).expect("valid spec");
    let after = ALLOCATIONS.with(|c| c.get());
    assert_eq!(r.summary.flows_completed, 5);
    if routing == Routing::Rps {
        assert!(
            r.flows.iter().map(|f| f.ooo_packets).sum::<u64>() > 100,
            "{:?}",
            r.flows
        );
    }
    (after - before, r.summary.packet_hops)
}

#[test]
fn allocations_do_not_grow_with_the_number_of_packets() {
    for routing in [Routing::Single, Routing::Rps] {
        let (small, small_hops) = allocations(routing, 1_000_000);
        let (large, large_hops) = allocations(routing, 4_000_000);
        assert!(large_hops > 3 * small_hops);
        // Containers double as they grow, so a longer run may add a few dozen allocations; one per packet
        // (or per out-of-order packet) would add tens of thousands.
        let msg = format!(
            "{routing:?}: {small} allocations for {small_hops} hops, {large} for {large_hops}"
        );
        assert!(large < small + 200, "{msg}");
    }
}
