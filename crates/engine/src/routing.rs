//! Routing tables: for every node and destination host, the group of equal-cost next-hop ports on hop-count
//! shortest paths. Computed once per run by a breadth-first search from each host; hosts never forward,
//! so no path passes through a host. Identical groups are stored once.

use std::collections::HashMap;

use crate::spec::NodeKind;

pub const NO_ROUTE: u32 = u32::MAX;

#[derive(Debug)]
pub struct Routes {
    n_hosts: usize,
    /// group id for (node, destination host): `table[node * n_hosts + host]`.
    table: Vec<u32>,
    /// Ports of each group: `ports[offsets[g]..offsets[g + 1]]`.
    offsets: Vec<u32>,
    ports: Vec<u32>,
}

impl Routes {
    /// `out_ports[n]` lists (port, far node) for node n; `hosts` maps host index -> node id.
    pub fn build(kinds: &[NodeKind], out_ports: &[Vec<(u32, u32)>], hosts: &[u32]) -> Routes {
        let n = kinds.len();
        let mut table = vec![NO_ROUTE; n * hosts.len()];
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
        Routes { n_hosts: hosts.len(), table, offsets, ports }
    }

    /// Equal-cost next-hop ports from `node` towards host index `dst_host` (empty: unreachable).
    #[inline]
    pub fn next_hops(&self, node: u32, dst_host: u32) -> &[u32] {
        let g = self.table[node as usize * self.n_hosts + dst_host as usize];
        if g == NO_ROUTE {
            return &[];
        }
        &self.ports[self.offsets[g as usize] as usize..self.offsets[g as usize + 1] as usize]
    }

    pub fn group_count(&self) -> usize {
        self.offsets.len() - 1
    }
}
