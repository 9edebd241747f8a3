//! Routing tables: for every node and destination host, the group of equal-cost next-hop ports on hop-count
//! shortest paths. Computed once per run by a breadth-first search from each host; hosts never forward,
//! so no path passes through a host. Identical groups are stored once.
//!
//! Each node's row (group id per destination host) is stored run-length encoded over the host index: hosts
//! are numbered rack by rack, so a fat-tree switch's row is a handful of runs (a core switch: one per pod).
//! A full node x host table was the engine's largest source of cache misses at k=16; the runs fit in cache.

use std::collections::HashMap;

use crate::spec::NodeKind;

pub const NO_ROUTE: u32 = u32::MAX;

#[derive(Debug)]
pub struct Routes {
    /// Node n's runs are `runs[run_offsets[n]..run_offsets[n + 1]]`: (first host of the run, group id).
    run_offsets: Vec<u32>,
    runs: Vec<(u32, u32)>,
    /// Ports of each group: `ports[offsets[g]..offsets[g + 1]]`.
    offsets: Vec<u32>,
    ports: Vec<u32>,
}

impl Routes {
    /// `out_ports[n]` lists (port, far node) for node n; `hosts` maps host index -> node id.
    pub fn build(kinds: &[NodeKind], out_ports: &[Vec<(u32, u32)>], hosts: &[u32]) -> Routes {
        let n = kinds.len();
        let mut table = vec![NO_ROUTE; n * hosts.len()]; // node-major, compressed into runs below
        let mut group_ids: HashMap<Vec<u32>, u32> = HashMap::new();
        let mut offsets = vec![0u32];
        let mut ports = Vec::new();
        let mut dist = vec![u32::MAX; n];
        let mut frontier = Vec::new();
        let mut next = Vec::new();
        let mut group = Vec::new();
        for (h, &dst) in hosts.iter().enumerate() {
            dist.iter_mut().for_each(|d| *d = u32::MAX);
            dist[dst as usize] = 0;
            frontier.clear();
            frontier.push(dst);
            let mut level = 0;
            while !frontier.is_empty() {
                level += 1;
                next.clear();
                for &u in &frontier {
                    if u != dst && kinds[u as usize] == NodeKind::Host {
                        continue; // hosts do not carry transit traffic
                    }
                    // links are full duplex, so u's neighbours are exactly the far ends of u's ports
                    for &(_, v) in &out_ports[u as usize] {
                        if dist[v as usize] == u32::MAX {
                            dist[v as usize] = level;
                            next.push(v);
                        }
                    }
                }
                std::mem::swap(&mut frontier, &mut next);
            }
            for node in 0..n {
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
                if group.is_empty() {
                    continue;
                }
                let gid = *group_ids.entry(group.clone()).or_insert_with(|| {
                    ports.extend_from_slice(&group);
                    offsets.push(ports.len() as u32);
                    (offsets.len() - 2) as u32
                });
                table[node * hosts.len() + h] = gid;
            }
        }
        let mut run_offsets = Vec::with_capacity(n + 1);
        let mut runs = Vec::new();
        run_offsets.push(0);
        for row in table.chunks(hosts.len().max(1)).take(n) {
            for (h, &g) in row.iter().enumerate() {
                if runs.len() == *run_offsets.last().unwrap() as usize || runs.last().is_some_and(|r: &(u32, u32)| r.1 != g) {
                    runs.push((h as u32, g));
                }
            }
            run_offsets.push(runs.len() as u32);
        }
        if hosts.is_empty() {
            run_offsets.resize(n + 1, 0);
        }
        Routes { run_offsets, runs, offsets, ports }
    }

    /// Equal-cost next-hop ports from `node` towards host index `dst_host` (empty: unreachable).
    #[inline]
    pub fn next_hops(&self, node: u32, dst_host: u32) -> &[u32] {
        let row = &self.runs[self.run_offsets[node as usize] as usize..self.run_offsets[node as usize + 1] as usize];
        let i = row.partition_point(|&(first, _)| first <= dst_host);
        if i == 0 {
            return &[];
        }
        let g = row[i - 1].1;
        if g == NO_ROUTE {
            return &[];
        }
        &self.ports[self.offsets[g as usize] as usize..self.offsets[g as usize + 1] as usize]
    }

    pub fn group_count(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Runs stored over all nodes (a measure of the table's size).
    pub fn run_count(&self) -> usize {
        self.runs.len()
    }
}
