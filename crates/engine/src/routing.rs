//! Routing tables: for every node and destination host, the group of equal-cost next-hop ports on hop-count
//! shortest paths; hosts never forward, so no path passes through a host. Identical groups are stored once.
//!
//! `build` runs one breadth-first search per *attachment switch* (the one switch a single-homed host hangs
//! from), not per host: every host behind a switch is reached through it, so a switch's next hops towards
//! any of them are its next hops towards that switch, and only the attachment switch itself (a port per host)
//! and hosts (their one uplink) differ. In a k-ary fat-tree that is k^2/2 searches instead of k^3/4, and the
//! temporary table is switches x attachment switches instead of nodes x hosts. Hosts with several links (a
//! general graph) get a search of their own, as `build_per_host` does for every host; tests check that both
//! give the same groups.
//!
//! Each node's row (group id per destination host) is stored run-length encoded over the host index: hosts
//! are numbered rack by rack, so a fat-tree switch's row is a handful of runs (a core switch: one per pod).
//! A full node x host table was the engine's largest source of cache misses at k=16; the runs fit in cache.

mod lines;

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

pub use lines::Hops;

use crate::spec::NodeKind;

pub const NO_ROUTE: u32 = u32::MAX;

#[derive(Debug)]
pub struct Routes {
    /// Node n's runs are `runs[run_offsets[n]..run_offsets[n + 1]]`: (first host of the run, where its group
    /// starts in `groups`). A lookup counts the row's runs that start at or before the host (the row's few
    /// cache lines read at once, not a binary search's chain of dependent reads), and the run names its group
    /// in `groups` directly, not through a table of group offsets: in a k = 32 fat-tree the lookup was a tenth
    /// of the run, most of it waiting on those reads.
    run_offsets: Vec<u32>,
    runs: Vec<(u32, u32)>,
    /// Each group as its length then its ports, in one line or two (`groups[0]` = 0: the empty group, no route).
    groups: Vec<u32>,
    group_count: usize,
    /// Each node's routes in one cache line (routing/lines.rs; empty until `index_lines`).
    lines: Vec<lines::RouteLine>,
}

/// Rows of up to this many runs are counted in full; longer ones (general graphs) binary-searched (our
/// choice: a k-ary fat-tree switch's row has at most k runs, k/2 + 2 below the core).
const COUNT_UP_TO: usize = 64;

impl Routes {
    /// Routes of the network, with one search per attachment switch (see the module comment).
    pub fn build(kinds: &[NodeKind], out_ports: &[Vec<(u32, u32)>], hosts: &[u32]) -> Routes {
        let n = kinds.len();
        let attach = attachments(kinds, out_ports, hosts);
        let mut groups = GroupStore::default();
        let mut host_index = vec![u32::MAX; n];
        for (h, &node) in hosts.iter().enumerate() {
            host_index[node as usize] = h as u32;
        }
        // A single-homed host's entry towards an attachment switch t is its uplink when its own switch reaches
        // t, and none otherwise: it is not kept in the rows below but read off its switch's entry (`entry`).
        // The rows keep the other nodes (switches, and hosts with several links or none), by `slot`.
        let mut slot = vec![u32::MAX; n];
        let mut kept = 0usize;
        for node in 0..n {
            let hi = host_index[node] as usize;
            if kinds[node] == NodeKind::Host && attach[hi].is_some() {
                continue;
            }
            slot[node] = kept as u32;
            kept += 1;
        }
        // Each switch's links to other switches, in port order (the groups list their ports in that order):
        // the searches from attachment switches never pass through a host, so they walk these alone.
        let switches: Vec<u32> = (0..n as u32)
            .filter(|&v| kinds[v as usize] == NodeKind::Switch)
            .collect();
        let mut links_at = vec![0u32; n + 1];
        let mut links: Vec<(u32, u32)> = Vec::new();
        for node in 0..n {
            if kinds[node] == NodeKind::Switch {
                links.extend(
                    out_ports[node]
                        .iter()
                        .filter(|&&(_, v)| kinds[v as usize] == NodeKind::Switch),
                );
            }
            links_at[node + 1] = links.len() as u32;
        }
        let switch_links = |v: usize| &links[links_at[v] as usize..links_at[v + 1] as usize];
        // The search's queue (each node enters it once, plus one slot written past its end) and one switch's
        // group before it is copied.
        let mut queue = vec![0u32; n + 1];
        let widest = (0..n).map(|v| switch_links(v).len()).max().unwrap_or(0);
        let mut buf = vec![0u32; widest + 1];
        // Per attachment switch: group id of every kept node towards it (NO_ROUTE: unreachable or itself).
        // Per node: its row in `toward_tor` (usize::MAX: not an attachment switch), and the switch of each row.
        let mut tor_index = vec![usize::MAX; n];
        let mut tors: Vec<u32> = Vec::new();
        let mut toward_tor: Vec<Vec<u32>> = Vec::new();
        let mut dist = vec![u32::MAX; n];
        let (mut frontier, mut next, mut group) = (Vec::new(), Vec::new(), Vec::new());
        // Each switch's group in the search before: a switch's group is mostly the same from one attachment
        // switch to the next (all its up-links, in a fat-tree), and comparing it costs less than hashing it.
        let mut last_group = vec![NO_ROUTE; n];
        let uplink: Vec<u32> = hosts
            .iter()
            .zip(&attach)
            .map(|(&hn, a)| a.map_or(NO_ROUTE, |_| out_ports[hn as usize][0].0))
            .collect();
        for &t in attach.iter().flatten() {
            if tor_index[t as usize] != usize::MAX {
                continue;
            }
            // Hop counts from t over switches only (hosts never carry transit traffic).
            // Written without branches on the hop counts (which way they go is a coin flip per link):
            // every link's far end is written to the next frontier, and kept by counting it when first seen.
            dist.iter_mut().for_each(|d| *d = u32::MAX);
            dist[t as usize] = 0;
            let (mut at, mut len) = (0usize, 1usize);
            queue[0] = t;
            let mut level = 0;
            while at < len {
                level += 1;
                let end = len;
                for i in at..end {
                    for &(_, v) in switch_links(queue[i] as usize) {
                        let d = &mut dist[v as usize];
                        let unseen = *d == u32::MAX;
                        *d = if unseen { level } else { *d };
                        queue[len] = v;
                        len += unseen as usize;
                    }
                }
                at = end;
            }
            let mut row = vec![NO_ROUTE; kept];
            for &node in &switches {
                let node = node as usize;
                if node == t as usize || dist[node] == u32::MAX {
                    continue;
                }
                let (below, mut len) = (dist[node] - 1, 0);
                for &(port, v) in switch_links(node) {
                    buf[len] = port;
                    len += (dist[v as usize] == below) as usize;
                }
                group.clear();
                group.extend_from_slice(&buf[..len]);
                if !group.is_empty() {
                    let last = last_group[node];
                    let g = if last != NO_ROUTE && groups.ports_of(last) == group.as_slice() {
                        last
                    } else {
                        groups.id(&group)
                    };
                    last_group[node] = g;
                    row[slot[node] as usize] = g;
                }
            }
            // A host with several links (as a source) goes up the links to its nearest switches towards t.
            for (hi, &hn) in hosts.iter().enumerate() {
                if attach[hi].is_some() {
                    continue;
                }
                let best = out_ports[hn as usize]
                    .iter()
                    .filter(|&&(_, v)| kinds[v as usize] == NodeKind::Switch)
                    .map(|&(_, v)| dist[v as usize])
                    .min()
                    .unwrap_or(u32::MAX);
                if best == u32::MAX {
                    continue;
                }
                group.clear();
                for &(port, v) in &out_ports[hn as usize] {
                    if kinds[v as usize] == NodeKind::Switch && dist[v as usize] == best {
                        group.push(port);
                    }
                }
                row[slot[hn as usize] as usize] = groups.id(&group);
            }
            tor_index[t as usize] = toward_tor.len();
            tors.push(t);
            toward_tor.push(row);
        }
        // Node `node`'s group towards the attachment switch of row `row` (see `slot` above).
        let single_uplink: Vec<u32> = uplink
            .iter()
            .map(|&p| {
                if p == NO_ROUTE {
                    NO_ROUTE
                } else {
                    groups.id(&[p])
                }
            })
            .collect();
        let entry = |row: usize, node: usize| -> u32 {
            let hi = host_index[node] as usize;
            match attach.get(hi).copied().flatten() {
                Some(s) => {
                    let reaches =
                        s == tors[row] || toward_tor[row][slot[s as usize] as usize] != NO_ROUTE;
                    if reaches {
                        single_uplink[hi]
                    } else {
                        NO_ROUTE
                    }
                }
                None => toward_tor[row][slot[node] as usize],
            }
        };
        // Multi-homed (or unattached) destination hosts: a search of their own, as the reference does.
        let mut own: HashMap<usize, Vec<u32>> = HashMap::new();
        for (h, &dst) in hosts.iter().enumerate() {
            if attach[h].is_some() {
                continue;
            }
            bfs(kinds, out_ports, dst, &mut dist, &mut frontier, &mut next);
            own.insert(
                h,
                groups_toward_host(kinds, out_ports, dst, &dist, &mut groups, &mut group),
            );
        }
        // Each node's row over destination hosts, run-length encoded as the reference stores it. Hosts come in
        // blocks of consecutive indices behind one attachment switch (a rack); a node other than that switch
        // and those hosts has one group for the whole block, so the work is nodes x blocks, not nodes x hosts.
        let mut blocks: Vec<(u32, u32, Option<u32>)> = Vec::new(); // (first host, end, attachment switch)
        for (h, a) in attach.iter().enumerate() {
            match blocks.last_mut() {
                Some(b) if a.is_some() && b.2 == *a && b.1 == h as u32 => b.1 += 1,
                _ => blocks.push((h as u32, h as u32 + 1, *a)),
            }
        }
        // Each block's row in `toward_tor`, found once, not hashed again for every node.
        let block_rows: Vec<usize> = blocks
            .iter()
            .map(|b| b.2.map_or(usize::MAX, |t| tor_index[t as usize]))
            .collect();
        // A single-homed host's entry towards an attachment switch is its uplink whenever its own switch s
        // reaches that switch (s is the switch itself, or has a group towards it): when s reaches every one,
        // the host's row needs no read of `toward_tor` (one per block, each in another row: a cache miss each).
        let reaches_all = |s: u32| {
            tors.iter()
                .zip(&toward_tor)
                .all(|(&t, row)| t == s || row[slot[s as usize] as usize] != NO_ROUTE)
        };
        let mut reach_memo: Vec<Option<bool>> = vec![None; n];
        let mut run_offsets = Vec::with_capacity(n + 1);
        let mut runs: Vec<(u32, u32)> = Vec::new();
        run_offsets.push(0);
        let push = |runs: &mut Vec<(u32, u32)>, start: usize, h: u32, g: u32| {
            if runs.len() == start || runs.last().is_some_and(|r| r.1 != g) {
                runs.push((h, g));
            }
        };
        for node in 0..n {
            let start = runs.len();
            let hi = host_index[node] as usize;
            let up_everywhere = match attach.get(hi).copied().flatten() {
                Some(s) if *reach_memo[s as usize].get_or_insert_with(|| reaches_all(s)) => {
                    Some(single_uplink[hi])
                }
                _ => None,
            };
            for (&(first, end, a), &row) in blocks.iter().zip(&block_rows) {
                match a {
                    Some(t) if node != t as usize && !(first..end).contains(&host_index[node]) => {
                        let g = up_everywhere.unwrap_or_else(|| entry(row, node));
                        push(&mut runs, start, first, g);
                    }
                    Some(t) => {
                        for h in first..end {
                            let dst = hosts[h as usize] as usize;
                            let g = if node == dst {
                                NO_ROUTE
                            } else if node == t as usize {
                                // the attachment switch: its port to this host
                                let port = out_ports[node]
                                    .iter()
                                    .find(|&&(_, v)| v as usize == dst)
                                    .map(|&(p, _)| p);
                                port.map_or(NO_ROUTE, |p| groups.id(&[p]))
                            } else {
                                entry(row, node)
                            };
                            push(&mut runs, start, h, g);
                        }
                    }
                    None => {
                        for h in first..end {
                            let g = if node == hosts[h as usize] as usize {
                                NO_ROUTE
                            } else {
                                own[&(h as usize)][node]
                            };
                            push(&mut runs, start, h, g);
                        }
                    }
                }
            }
            run_offsets.push(runs.len() as u32);
        }
        let (offsets, ports) = groups.into_parts();
        Routes::from_runs(run_offsets, runs, offsets, ports)
    }

    /// The reference builder: one breadth-first search per destination host. `out_ports[n]` lists (port, far
    /// node) for node n; `hosts` maps host index -> node id. Quadratic in the network; kept for the tests.
    pub fn build_per_host(
        kinds: &[NodeKind],
        out_ports: &[Vec<(u32, u32)>],
        hosts: &[u32],
    ) -> Routes {
        let n = kinds.len();
        let mut table = vec![NO_ROUTE; n * hosts.len()]; // node-major, compressed into runs below
        let mut groups = GroupStore::default();
        let mut dist = vec![u32::MAX; n];
        let (mut frontier, mut next, mut group) = (Vec::new(), Vec::new(), Vec::new());
        for (h, &dst) in hosts.iter().enumerate() {
            bfs(kinds, out_ports, dst, &mut dist, &mut frontier, &mut next);
            let row = groups_toward_host(kinds, out_ports, dst, &dist, &mut groups, &mut group);
            for (node, &g) in row.iter().enumerate() {
                table[node * hosts.len() + h] = g;
            }
        }
        let (offsets, ports) = groups.into_parts();
        let mut run_offsets = Vec::with_capacity(n + 1);
        let mut runs = Vec::new();
        run_offsets.push(0);
        for row in table.chunks(hosts.len().max(1)).take(n) {
            for (h, &g) in row.iter().enumerate() {
                if runs.len() == *run_offsets.last().unwrap() as usize
                    || runs.last().is_some_and(|r: &(u32, u32)| r.1 != g)
                {
                    runs.push((h as u32, g));
                }
            }
            run_offsets.push(runs.len() as u32);
        }
        if hosts.is_empty() {
            run_offsets.resize(n + 1, 0);
        }
        Routes::from_runs(run_offsets, runs, offsets, ports)
    }

    /// The lookup tables from runs of (first host, group id) per node, and the groups' ports (`ports[offsets[g]..
    /// offsets[g + 1]]`).
    fn from_runs(
        run_offsets: Vec<u32>,
        mut runs: Vec<(u32, u32)>,
        offsets: Vec<u32>,
        ports: Vec<u32>,
    ) -> Routes {
        let group_count = offsets.len() - 1;
        let mut groups = Vec::with_capacity(1 + group_count + ports.len());
        groups.push(0);
        let mut at = Vec::with_capacity(group_count);
        for g in offsets.windows(2) {
            at.push(groups.len() as u32);
            groups.push(g[1] - g[0]);
            groups.extend_from_slice(&ports[g[0] as usize..g[1] as usize]);
        }
        for r in runs.iter_mut() {
            r.1 = if r.1 == NO_ROUTE { 0 } else { at[r.1 as usize] };
        }
        Routes {
            run_offsets,
            runs,
            groups,
            group_count,
            lines: Vec::new(),
        }
    }

    /// Equal-cost next-hop ports from `node` towards host index `dst_host` (empty: unreachable).
    #[inline]
    pub fn next_hops(&self, node: u32, dst_host: u32) -> &[u32] {
        let row = &self.runs[self.run_offsets[node as usize] as usize
            ..self.run_offsets[node as usize + 1] as usize];
        // Runs start at increasing hosts: those starting at or before dst_host are a prefix of the row.
        let i: usize = if row.len() <= COUNT_UP_TO {
            row.iter()
                .map(|&(first, _)| (first <= dst_host) as usize)
                .sum()
        } else {
            row.partition_point(|&(first, _)| first <= dst_host)
        };
        if i == 0 {
            return &[];
        }
        let at = row[i - 1].1 as usize;
        let len = self.groups[at] as usize;
        &self.groups[at + 1..at + 1 + len]
    }

    /// The one port `node` takes towards every host but host index `except`, when its row names the same
    /// one-port group for all of them (`hosts`: the number of hosts); None otherwise. A single-homed host's
    /// row is its uplink everywhere but towards itself: the engine sends from hosts by it without a lookup.
    pub fn one_port_except(&self, node: u32, except: u32, hosts: u32) -> Option<u32> {
        let row = &self.runs[self.run_offsets[node as usize] as usize
            ..self.run_offsets[node as usize + 1] as usize];
        let mut port = None;
        for (i, &(first, at)) in row.iter().enumerate() {
            let end = row.get(i + 1).map_or(hosts, |r| r.0);
            if first >= end || (first == except && end == except + 1) {
                continue; // no host, or `except` alone
            }
            let at = at as usize;
            if self.groups[at] != 1 || port.is_some_and(|p| p != self.groups[at + 1]) {
                return None;
            }
            port = Some(self.groups[at + 1]);
        }
        port
    }

    pub fn group_count(&self) -> usize {
        self.group_count
    }

    /// Runs stored over all nodes (a measure of the table's size).
    pub fn run_count(&self) -> usize {
        self.runs.len()
    }
}

/// The switch each single-homed host hangs from, per host index (None: several links, or none, or a host
/// neighbour). A rack, for crate::vlb.
pub fn attachments(
    kinds: &[NodeKind],
    out_ports: &[Vec<(u32, u32)>],
    hosts: &[u32],
) -> Vec<Option<u32>> {
    hosts
        .iter()
        .map(|&h| match out_ports[h as usize].as_slice() {
            [(_, v)] if kinds[*v as usize] == NodeKind::Switch => Some(*v),
            _ => None,
        })
        .collect()
}

/// A multiply-rotate hash of a group's ports for `GroupStore` (our choice: std's default SipHash of a Vec per
/// switch per search was a fifth of building a k = 32 fat-tree's routes; which id a group gets depends only on
/// the order groups first appear, never on the hash).
#[derive(Default)]
struct GroupHash(u64);

impl Hasher for GroupHash {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(23) ^ u64::from_le_bytes(word))
                .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
}

/// Distinct groups of ports, each stored once, numbered in order of first appearance.
#[derive(Default)]
struct GroupStore {
    ids: HashMap<Vec<u32>, u32, BuildHasherDefault<GroupHash>>,
    /// The id of each one-port group, by port (NO_ROUTE: none yet): most lookups are of one port (a host's
    /// uplink, asked once per attachment switch: k^5/8 times in a k-ary fat-tree), and hashing a Vec for
    /// each was the larger part of building a k = 32 fat-tree's routes.
    single: Vec<u32>,
    offsets: Vec<u32>,
    ports: Vec<u32>,
}

impl GroupStore {
    fn id(&mut self, group: &[u32]) -> u32 {
        if let [port] = group {
            if let Some(&g) = self.single.get(*port as usize).filter(|&&g| g != NO_ROUTE) {
                return g;
            }
        }
        if let Some(&g) = self.ids.get(group) {
            return g;
        }
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        self.ports.extend_from_slice(group);
        self.offsets.push(self.ports.len() as u32);
        let g = (self.offsets.len() - 2) as u32;
        if let [port] = group {
            let p = *port as usize;
            if self.single.len() <= p {
                self.single.resize(p + 1, NO_ROUTE);
            }
            self.single[p] = g;
        }
        self.ids.insert(group.to_vec(), g);
        g
    }

    /// The ports of group `g`.
    fn ports_of(&self, g: u32) -> &[u32] {
        &self.ports[self.offsets[g as usize] as usize..self.offsets[g as usize + 1] as usize]
    }

    fn into_parts(mut self) -> (Vec<u32>, Vec<u32>) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        (self.offsets, self.ports)
    }
}

/// Hop counts from `src` to every node (u32::MAX: unreachable); hosts other than `src` are reached but never
/// expanded, since they do not carry transit traffic.
fn bfs(
    kinds: &[NodeKind],
    out_ports: &[Vec<(u32, u32)>],
    src: u32,
    dist: &mut [u32],
    frontier: &mut Vec<u32>,
    next: &mut Vec<u32>,
) {
    dist.iter_mut().for_each(|d| *d = u32::MAX);
    dist[src as usize] = 0;
    frontier.clear();
    frontier.push(src);
    let mut level = 0;
    while !frontier.is_empty() {
        level += 1;
        next.clear();
        for &u in frontier.iter() {
            if u != src && kinds[u as usize] == NodeKind::Host {
                continue;
            }
            for &(_, v) in &out_ports[u as usize] {
                if dist[v as usize] == u32::MAX {
                    dist[v as usize] = level;
                    next.push(v);
                }
            }
        }
        std::mem::swap(frontier, next);
    }
}

/// Every node's group of next-hop ports towards host `dst`, from hop counts `dist` measured from it: the ports
/// to neighbours one hop nearer that may carry the packet (a switch, or `dst` itself). NO_ROUTE where none.
fn groups_toward_host(
    kinds: &[NodeKind],
    out_ports: &[Vec<(u32, u32)>],
    dst: u32,
    dist: &[u32],
    groups: &mut GroupStore,
    group: &mut Vec<u32>,
) -> Vec<u32> {
    let mut row = vec![NO_ROUTE; kinds.len()];
    for node in 0..kinds.len() {
        if node == dst as usize || dist[node] == u32::MAX {
            continue;
        }
        group.clear();
        for &(port, v) in &out_ports[node] {
            let transit_ok = v == dst || kinds[v as usize] == NodeKind::Switch;
            if transit_ok && dist[v as usize] + 1 == dist[node] {
                group.push(port);
            }
        }
        if !group.is_empty() {
            row[node] = groups.id(group);
        }
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (node kinds, each node's (port, far node) list, host node ids)
    type Network = (Vec<NodeKind>, Vec<Vec<(u32, u32)>>, Vec<u32>);

    /// k-ary fat-tree, links in the order the Python generator makes them.
    fn fat_tree(k: u32) -> Network {
        let half = k / 2;
        let hosts_n = k * half * half;
        let edges = k * half;
        let aggs = k * half;
        let cores = half * half;
        let n = (hosts_n + edges + aggs + cores) as usize;
        let mut kinds = vec![NodeKind::Switch; n];
        kinds[..hosts_n as usize]
            .iter_mut()
            .for_each(|x| *x = NodeKind::Host);
        let mut links = Vec::new();
        let e0 = hosts_n;
        let a0 = e0 + edges;
        let c0 = a0 + aggs;
        for h in 0..hosts_n {
            links.push((h, e0 + h / half));
        }
        for p in 0..k {
            for e in 0..half {
                for a in 0..half {
                    links.push((e0 + p * half + e, a0 + p * half + a));
                }
            }
        }
        for p in 0..k {
            for a in 0..half {
                for c in 0..half {
                    links.push((a0 + p * half + a, c0 + a * half + c));
                }
            }
        }
        let mut out_ports = vec![Vec::new(); n];
        for (i, &(a, b)) in links.iter().enumerate() {
            out_ports[a as usize].push((2 * i as u32, b));
            out_ports[b as usize].push((2 * i as u32 + 1, a));
        }
        (kinds, out_ports, (0..hosts_n).collect())
    }

    fn same(a: &Routes, b: &Routes, nodes: usize, hosts: usize) {
        for node in 0..nodes as u32 {
            for h in 0..hosts as u32 {
                assert_eq!(
                    a.next_hops(node, h),
                    b.next_hops(node, h),
                    "node {node} host {h}"
                );
            }
        }
    }

    /// Every lookup through the nodes' lines gives the ports of the lookup through the rows, in order.
    fn lines_agree(r: &Routes, nodes: usize, hosts: usize) {
        let mut indexed = Routes {
            run_offsets: r.run_offsets.clone(),
            runs: r.runs.clone(),
            groups: r.groups.clone(),
            group_count: r.group_count,
            lines: Vec::new(),
        };
        indexed.index_lines(hosts);
        for node in 0..nodes as u32 {
            for h in 0..hosts as u32 {
                let hops = indexed.hops(node, h);
                let got: Vec<u32> = (0..hops.len()).map(|i| hops.get(i)).collect();
                assert_eq!(got, r.next_hops(node, h), "node {node} host {h}");
            }
        }
    }

    #[test]
    fn lines_give_the_rows_ports_and_cover_power_of_two_fat_trees() {
        for k in [4, 6, 8, 10, 16] {
            let (kinds, out_ports, hosts) = fat_tree(k);
            let mut r = Routes::build(&kinds, &out_ports, &hosts);
            lines_agree(&r, kinds.len(), hosts.len());
            r.index_lines(hosts.len());
            // k = 6 and 10: an aggregation switch's edges have 3 and 5 hosts each; all rows still fit.
            assert_eq!(r.lined_nodes(), kinds.len(), "k={k}");
        }
    }

    #[test]
    fn per_switch_searches_give_the_reference_groups_on_fat_trees() {
        for k in [4, 6, 8, 10, 12, 16] {
            let (kinds, out_ports, hosts) = fat_tree(k);
            let fast = Routes::build(&kinds, &out_ports, &hosts);
            let reference = Routes::build_per_host(&kinds, &out_ports, &hosts);
            same(&fast, &reference, kinds.len(), hosts.len());
            assert_eq!(fast.group_count(), reference.group_count(), "k={k}");
            one_port_rows_agree(&fast, &hosts);
            let n = hosts.len() as u32;
            assert!((0..n).all(|h| fast.one_port_except(hosts[h as usize], h, n).is_some()));
        }
    }

    #[test]
    fn long_rows_are_searched_and_short_rows_counted_alike() {
        // One switch with 150 hosts: its row has a run per host, past COUNT_UP_TO, so it is binary-searched;
        // each host's row (one run) is counted. Every lookup must name the one port towards the host.
        let n_hosts = 150u32;
        let sw = n_hosts;
        let mut kinds = vec![NodeKind::Host; n_hosts as usize];
        kinds.push(NodeKind::Switch);
        let mut out_ports = vec![Vec::new(); n_hosts as usize + 1];
        for h in 0..n_hosts {
            out_ports[h as usize].push((2 * h, sw));
            out_ports[sw as usize].push((2 * h + 1, h));
        }
        let hosts: Vec<u32> = (0..n_hosts).collect();
        let routes = Routes::build(&kinds, &out_ports, &hosts);
        assert!(routes.run_count() > COUNT_UP_TO);
        lines_agree(&routes, kinds.len(), hosts.len());
        for h in 0..n_hosts {
            assert_eq!(routes.next_hops(sw, h), &[2 * h + 1]);
            let other = (h + 1) % n_hosts;
            assert_eq!(routes.next_hops(h, other), &[2 * h]);
            assert!(routes.next_hops(h, h).is_empty());
        }
    }

    #[test]
    fn per_switch_searches_give_the_reference_groups_on_random_graphs() {
        // Random networks with what a fat-tree lacks: switches in several components, hosts hanging from the
        // same switch out of index order, hosts with two links (to switches, or to a switch and a host),
        // hosts with none, and parallel links. The fast builder must name the reference's ports everywhere.
        for seed in 0..40u64 {
            let mut rng = crate::rng::Rng::new(seed, 7);
            let mut draw = |n: u32| (rng.next_u64() % n as u64) as u32;
            let (switches, hosts_n) = (2 + draw(10), 1 + draw(20));
            let n = (hosts_n + switches) as usize;
            let mut kinds = vec![NodeKind::Host; hosts_n as usize];
            kinds.extend(std::iter::repeat_n(NodeKind::Switch, switches as usize));
            let mut links: Vec<(u32, u32)> = Vec::new();
            for _ in 0..switches + draw(2 * switches) {
                links.push((hosts_n + draw(switches), hosts_n + draw(switches)));
            }
            links.retain(|&(a, b)| a != b);
            for h in 0..hosts_n {
                match draw(10) {
                    0 => {} // no link
                    1 => links.push((h, hosts_n + draw(switches))),
                    2 => {
                        links.push((h, hosts_n + draw(switches)));
                        links.push((h, hosts_n + draw(switches)));
                    }
                    3 if h > 0 => {
                        links.push((h, hosts_n + draw(switches)));
                        links.push((h, draw(h)));
                    }
                    _ => links.push((hosts_n + draw(switches), h)),
                }
            }
            let mut out_ports = vec![Vec::new(); n];
            for (i, &(a, b)) in links.iter().enumerate() {
                out_ports[a as usize].push((2 * i as u32, b));
                out_ports[b as usize].push((2 * i as u32 + 1, a));
            }
            let hosts: Vec<u32> = (0..hosts_n).collect();
            let fast = Routes::build(&kinds, &out_ports, &hosts);
            let reference = Routes::build_per_host(&kinds, &out_ports, &hosts);
            same(&fast, &reference, n, hosts.len());
            lines_agree(&fast, n, hosts.len());
            one_port_rows_agree(&fast, &hosts);
        }
    }

    /// Where `one_port_except` names a host's port, every lookup from the host towards another host names it
    /// alone; where it names none, some lookup names no port or another one.
    fn one_port_rows_agree(r: &Routes, hosts: &[u32]) {
        let n = hosts.len() as u32;
        for (h, &node) in hosts.iter().enumerate() {
            let h = h as u32;
            let others: Vec<&[u32]> = (0..n)
                .filter(|&d| d != h)
                .map(|d| r.next_hops(node, d))
                .collect();
            match r.one_port_except(node, h, n) {
                Some(p) => assert!(others.iter().all(|g| *g == [p]), "host {h}"),
                None => assert!(
                    others.is_empty() || others.iter().any(|g| g.len() != 1 || *g != others[0]),
                    "host {h}"
                ),
            }
        }
    }

    #[test]
    fn multi_homed_hosts_fall_back_to_their_own_search() {
        // h0 - s0 - s1 - h1, and h1 also linked to s0: h1 is dual-homed.
        let kinds = vec![
            NodeKind::Host,
            NodeKind::Host,
            NodeKind::Switch,
            NodeKind::Switch,
        ];
        let links = [(0u32, 2u32), (2, 3), (3, 1), (1, 2)];
        let mut out_ports = vec![Vec::new(); 4];
        for (i, &(a, b)) in links.iter().enumerate() {
            out_ports[a as usize].push((2 * i as u32, b));
            out_ports[b as usize].push((2 * i as u32 + 1, a));
        }
        let hosts = vec![0, 1];
        let fast = Routes::build(&kinds, &out_ports, &hosts);
        let reference = Routes::build_per_host(&kinds, &out_ports, &hosts);
        same(&fast, &reference, 4, 2);
        lines_agree(&fast, 4, 2);
    }
}
