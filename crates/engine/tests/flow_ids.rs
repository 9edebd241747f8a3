//! Flow ids must be unique: refused wherever a repeat sits, with or without ids in increasing order.

mod common;
use common::*;
use greendcn_engine::spec::*;
use greendcn_engine::{run, EngineError};

fn two_hosts(ids: &[u64]) -> SimSpec {
    let nodes = vec![node("S0", NodeKind::Host), node("S1", NodeKind::Host)];
    let links = vec![link(0, 1, GBPS, US, None)];
    let flows = ids.iter().map(|&id| tcp(1, 0, 1000, id)).collect();
    base(nodes, links, flows, Routing::Ecmp)
}

fn refusal(ids: &[u64]) -> Option<String> {
    match run(&two_hosts(ids), &mut || false) {
        Err(e @ EngineError::Invalid { .. }) => Some(e.to_string()),
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => None,
    }
}

#[test]
fn repeated_ids_are_refused_naming_both_flows() {
    // increasing ids (the check's fast path), then shuffled ones and a repeat that is not adjacent
    assert_eq!(refusal(&[0, 1, 2, 5]), None);
    assert_eq!(refusal(&[5, 2, 7, 0]), None);
    let e = refusal(&[3, 1, 4, 1]).expect("refused");
    assert!(
        e.contains("flows[3].id") && e.contains("1 is also the id of flows[1]"),
        "{e}"
    );
    let e = refusal(&[0, 1, 1, 2]).expect("refused");
    assert!(
        e.contains("flows[2].id") && e.contains("of flows[1]"),
        "{e}"
    );
}
