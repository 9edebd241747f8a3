//! Opera's listed paths (`opera.paths` = k): per slice, source and destination endpoint, up to k simple paths
//! over the slice's low-latency circuits (`opera.circuits`), shortest first, each stored as the switches
//! (uplinks) it leaves by. The public Opera simulator lists 5 per rack pair and slice in its topology files,
//! paths longer than the shortest included, and draws one per packet at the sending host's NIC
//! (src/opera/queue.cpp lines 493-503); docs/circuit-engine.md, routing "opera", says how ours follow them.
//!
//! Our choices: a slice's lists are computed the first time a packet needs one (a run touches every slice,
//! a small test few). Paths of each length are found by a depth-first search that only steps to endpoints
//! still close enough to the destination, lengths from the shortest up to `MAX_SLACK` hops more; among paths
//! of equal length the order is the search's, over switches in increasing number (deterministic; the
//! simulator's generator takes Yen's order, and the draw is uniform over the list, so the order matters only
//! where more than k paths tie). python/greendcn/sim/topology/opera_paths.py lists the same paths.

use std::collections::VecDeque;

/// Longest listed path: this many hops more than the shortest (our choice, as the Python listing).
const MAX_SLACK: u32 = 4;
/// `circuits` entry of a switch that carries no low-latency circuit from an endpoint in a slice.
pub const NO_CIRCUIT: u32 = u32::MAX;
/// A packet that has no listed path (yet).
pub const NO_PATH: u32 = u32::MAX;

/// Each slice's lists, stored flat: `start[(slice * N + at) * N + dst]` is the offset in `flat` of that
/// pair's list, `[count, (hops, switch, switch, ...) x count]`; a packet holds the offset of its path's
/// `hops` byte.
pub(super) struct ListedPaths {
    k: usize,
    n: usize,
    s: usize,
    start: Vec<u32>,
    done: Vec<bool>,
    flat: Vec<u8>,
}

impl ListedPaths {
    pub fn new(k: u8, n: u32, s: u32, slices: u32) -> Self {
        let (n, s) = (n as usize, s as usize);
        ListedPaths {
            k: k as usize,
            n,
            s,
            start: vec![0; slices as usize * n * n],
            done: vec![false; slices as usize],
            flat: Vec::new(),
        }
    }

    /// Draw one of the paths listed for (slice `t`, `at`, `dst`) with `pick(count)` (an index below count);
    /// None where the slice has none (no path, or `at` is `dst`).
    pub fn draw(
        &mut self,
        circuits: &[u32],
        t: usize,
        at: u32,
        dst: u32,
        pick: impl FnOnce(u32) -> u32,
    ) -> Option<u32> {
        if !self.done[t] {
            self.compute_slice(circuits, t);
        }
        let mut off = self.start[(t * self.n + at as usize) * self.n + dst as usize] as usize;
        let count = self.flat[off] as u32;
        if count == 0 {
            return None;
        }
        off += 1;
        for _ in 0..pick(count) {
            off += 1 + self.flat[off] as usize;
        }
        Some(off as u32)
    }

    /// The switch path `path` leaves by at its hop `hop` (0: the first); None past its last hop.
    #[inline]
    pub fn switch(&self, path: u32, hop: u8) -> Option<u32> {
        let len = self.flat[path as usize];
        (hop < len).then(|| self.flat[path as usize + 1 + hop as usize] as u32)
    }

    /// The paths of every pair in slice `t`.
    fn compute_slice(&mut self, circuits: &[u32], t: usize) {
        let (n, s) = (self.n, self.s);
        let base = t * n * s;
        // Out-neighbours (switch, endpoint) per endpoint, switches in increasing number; in-neighbours for
        // the distances to each destination.
        let mut out: Vec<Vec<(u8, u32)>> = vec![Vec::new(); n];
        let mut inn: Vec<Vec<u32>> = vec![Vec::new(); n];
        for a in 0..n {
            for sw in 0..s {
                let b = circuits[base + a * s + sw];
                if b != NO_CIRCUIT && b as usize != a && (b as usize) < n {
                    out[a].push((sw as u8, b));
                    inn[b as usize].push(a as u32);
                }
            }
        }
        let mut queue = VecDeque::new();
        let mut found: Vec<Vec<u8>> = Vec::new();
        let mut walk = Walk {
            out: &out,
            to_dst: vec![u32::MAX; n],
            dst: 0,
            budget: 0,
            k: self.k,
            on: vec![false; n],
            sw: Vec::new(),
        };
        for dst in 0..n {
            let to_dst = &mut walk.to_dst;
            to_dst.fill(u32::MAX);
            to_dst[dst] = 0;
            queue.push_back(dst);
            while let Some(x) = queue.pop_front() {
                for &a in &inn[x] {
                    if to_dst[a as usize] == u32::MAX {
                        to_dst[a as usize] = to_dst[x] + 1;
                        queue.push_back(a as usize);
                    }
                }
            }
            walk.dst = dst as u32;
            for src in 0..n {
                let key = (t * n + src) * n + dst;
                self.start[key] = self.flat.len() as u32;
                found.clear();
                let shortest = walk.to_dst[src];
                if src != dst && shortest != u32::MAX {
                    for slack in 0..=MAX_SLACK {
                        if found.len() >= self.k {
                            break;
                        }
                        walk.budget = shortest + slack;
                        walk.on[src] = true;
                        walk.step(src as u32, &mut found);
                        walk.on[src] = false;
                    }
                }
                found.truncate(self.k);
                self.flat.push(found.len() as u8);
                for p in &found {
                    self.flat.push(p.len() as u8);
                    self.flat.extend_from_slice(p);
                }
            }
        }
        self.done[t] = true;
    }
}

/// Every rack pair's listed paths in one slice, as the switches each leaves by, indexed `src * n + dst`
/// (`circuits`: that slice's `n * s` entries). For cross-checks against the Python listing,
/// python/greendcn/sim/topology/opera_paths.py; a run lists slices itself, as it needs them.
pub fn listed_switch_paths(k: u8, n: u32, s: u32, circuits: &[u32]) -> Vec<Vec<Vec<u32>>> {
    let mut lp = ListedPaths::new(k, n, s, 1);
    lp.compute_slice(circuits, 0);
    let mut out = Vec::with_capacity((n * n) as usize);
    for src in 0..n as usize {
        for dst in 0..n as usize {
            let mut off = lp.start[src * lp.n + dst] as usize;
            let count = lp.flat[off];
            off += 1;
            let mut paths = Vec::with_capacity(count as usize);
            for _ in 0..count {
                let hops = lp.flat[off] as usize;
                paths.push(
                    lp.flat[off + 1..off + 1 + hops]
                        .iter()
                        .map(|&x| x as u32)
                        .collect(),
                );
                off += 1 + hops;
            }
            out.push(paths);
        }
    }
    out
}

/// The depth-first search of one (destination, length): simple paths of exactly `budget` hops.
struct Walk<'g> {
    out: &'g [Vec<(u8, u32)>],
    to_dst: Vec<u32>,
    dst: u32,
    budget: u32,
    k: usize,
    on: Vec<bool>,
    sw: Vec<u8>,
}

impl Walk<'_> {
    fn step(&mut self, x: u32, found: &mut Vec<Vec<u8>>) {
        if x == self.dst {
            if self.sw.len() as u32 == self.budget {
                found.push(self.sw.clone());
            }
            return;
        }
        let left = self.budget - self.sw.len() as u32;
        let out = self.out;
        for &(sw, y) in &out[x as usize] {
            if found.len() >= self.k {
                return;
            }
            if !self.on[y as usize] && self.to_dst[y as usize] < left {
                self.on[y as usize] = true;
                self.sw.push(sw);
                self.step(y, found);
                self.sw.pop();
                self.on[y as usize] = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ring of 6 endpoints over two switches (0: +1, 1: -1) and a chord switch 2 (a <-> a + 3).
    fn ring() -> Vec<u32> {
        let n = 6u32;
        (0..n)
            .flat_map(|a| [(a + 1) % n, (a + n - 1) % n, (a + 3) % n])
            .collect()
    }

    fn racks(circ: &[u32], lp: &ListedPaths, at: u32, p: u32) -> Vec<u32> {
        let mut x = at;
        let mut out = vec![x];
        let mut h = 0;
        while let Some(sw) = lp.switch(p, h) {
            x = circ[(x * 3 + sw) as usize];
            out.push(x);
            h += 1;
        }
        out
    }

    #[test]
    fn lists_simple_paths_shortest_first_up_to_k() {
        let circ = ring();
        let mut lp = ListedPaths::new(5, 6, 3, 1);
        let mut seen = Vec::new();
        for i in 0..5 {
            let p = lp.draw(&circ, 0, 0, 2, |c| {
                assert_eq!(c, 5, "five listed paths from 0 to 2");
                i
            });
            let r = racks(&circ, &lp, 0, p.unwrap());
            assert_eq!(r.last(), Some(&2), "path {r:?} ends at its destination");
            let mut sorted = r.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), r.len(), "path {r:?} is simple");
            seen.push(r);
        }
        // shortest (2 hops: 0-1-2 and 0-3-2) first, then longer ones, in non-decreasing length
        assert_eq!(seen[0].len(), 3);
        assert_eq!(seen[1].len(), 3);
        assert!(seen.windows(2).all(|w| w[0].len() <= w[1].len()));
        assert!(seen[4].len() > 3, "a listed path longer than the shortest");
        assert_eq!(lp.draw(&circ, 0, 4, 4, |_| 0), None, "no path to oneself");
    }

    #[test]
    fn unreachable_pairs_have_no_list() {
        // switch 0 pairs 0<->1 and 2<->3 only: 0 cannot reach 2
        let circ = vec![1, 0, 3, 2];
        let mut lp = ListedPaths::new(5, 4, 1, 1);
        assert_eq!(lp.draw(&circ, 0, 0, 2, |_| 0), None);
        let p = lp.draw(&circ, 0, 0, 1, |c| {
            assert_eq!(c, 1);
            0
        });
        assert_eq!(lp.switch(p.unwrap(), 0), Some(0));
        assert_eq!(lp.switch(p.unwrap(), 1), None);
    }
}
