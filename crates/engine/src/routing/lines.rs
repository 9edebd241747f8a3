//! Route lookups in one cache line per node: a node's row of runs (`Routes`) rewritten, where it fits, as at
//! most `LINE_RUNS` affine runs, each mapping a range of destination hosts to groups of evenly spaced ports.
//!
//! A lookup through the rows reads three places one after the other: the node's row offset, the row, then the
//! group's ports; in a k = 32 fat-tree that was about a sixth of a run's samples, nearly all of it waiting on
//! those reads (the route tables compete for the cache with 49,152 ports and their pipes). A fat-tree's rows
//! are regular: an edge switch sends the hosts of its rack down one port each (ports evenly spaced), an
//! aggregation switch the hosts of each edge below it, a core switch the hosts of each pod, and everything
//! else up one group of evenly spaced ports. So a row is three affine runs (up, down, up), and the line of
//! node n sits at a place known from n alone: one read per lookup, with no read depending on another. Rows
//! that do not fit (general graphs) keep the lookup through the rows; either way the ports are the same.

use super::Routes;

/// Runs a node's line holds (our choice: 3 runs of 20 bytes fill a 64-byte line; a k-ary fat-tree's switches
/// and hosts need at most 3).
const LINE_RUNS: usize = 3;

/// Hosts `first + b * block` to `first + (b + 1) * block - 1` (up to the next run's first host) share group
/// b: `len` ports from `base + b * step`, `stride` apart (arithmetic wrapping in u32).
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct LineRun {
    /// The run's first host (u32::MAX: an unused run, never counted).
    first: u32,
    block: u32,
    base: u32,
    step: u32,
    /// The group's length (0: no route) and the distance between its ports.
    len: u16,
    stride: u16,
}

const UNUSED: LineRun = LineRun {
    first: u32::MAX,
    block: u32::MAX,
    base: 0,
    step: 0,
    len: 0,
    stride: 0,
};

/// One node's runs, one cache line (a node whose row does not fit has only unused runs).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(super) struct RouteLine {
    runs: [LineRun; LINE_RUNS],
}

/// A node's equal-cost next-hop ports towards a host: evenly spaced (from a line), or a listed group.
#[derive(Clone, Copy, Debug)]
pub enum Hops<'a> {
    Spaced { first: u32, stride: u32, len: u32 },
    Listed(&'a [u32]),
}

impl Hops<'_> {
    #[inline]
    pub fn len(&self) -> usize {
        match self {
            Hops::Spaced { len, .. } => *len as usize,
            Hops::Listed(l) => l.len(),
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The i-th port (i < len()).
    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        match self {
            Hops::Spaced { first, stride, .. } => {
                first.wrapping_add((i as u32).wrapping_mul(*stride))
            }
            Hops::Listed(l) => l[i],
        }
    }
}

/// A group's ports as (len, first, stride), when they are evenly spaced with a stride that fits u16.
fn spaced(ports: &[u32]) -> Option<(u16, u32, u16)> {
    let len = u16::try_from(ports.len()).ok()?;
    let (first, stride) = match ports {
        [] => (0, 0),
        [p] => (*p, 0),
        [a, b, ..] => (*a, b.wrapping_sub(*a)),
    };
    let even = ports.windows(2).all(|w| w[1].wrapping_sub(w[0]) == stride);
    Some((len, first, u16::try_from(stride).ok().filter(|_| even)?))
}

impl Routes {
    /// Build the lines of every node (`hosts`: the number of hosts). Lookups through `hops` use them.
    pub fn index_lines(&mut self, hosts: usize) {
        let nodes = self.run_offsets.len().saturating_sub(1);
        let mut lines = Vec::with_capacity(nodes);
        for n in 0..nodes {
            let (a, b) = (
                self.run_offsets[n] as usize,
                self.run_offsets[n + 1] as usize,
            );
            lines.push(self.line_of(a, b, hosts).unwrap_or(RouteLine {
                runs: [UNUSED; LINE_RUNS],
            }));
        }
        self.lines = lines;
    }

    /// The line of the row `runs[a..b]`, or None when it does not fit in LINE_RUNS affine runs.
    fn line_of(&self, a: usize, b: usize, hosts: usize) -> Option<RouteLine> {
        let row = &self.runs[a..b];
        if row.first()?.0 != 0 {
            return None;
        }
        let mut out: Vec<LineRun> = Vec::new();
        // The run being built, its blocks so far, and the host count of its last block.
        let mut cur: Option<(LineRun, u32, u32)> = None;
        for (j, &(first, at)) in row.iter().enumerate() {
            let end = row.get(j + 1).map_or(hosts as u32, |r| r.0);
            let size = end.checked_sub(first).filter(|&s| s > 0)?;
            let len = self.groups[at as usize] as usize;
            let ports = &self.groups[at as usize + 1..at as usize + 1 + len];
            let (len, base, stride) = spaced(if at == 0 { &[] } else { ports })?;
            if let Some((run, blocks, last)) = cur.as_mut() {
                let same_group = run.len == len && run.stride == stride;
                if same_group && *blocks == 1 && size <= *last {
                    // The second block fixes the run's block size and step.
                    run.block = *last;
                    run.step = base.wrapping_sub(run.base);
                    *blocks = 2;
                    *last = size;
                    continue;
                }
                if same_group
                    && *blocks > 1
                    && *last == run.block
                    && size <= run.block
                    && base == run.base.wrapping_add(blocks.wrapping_mul(run.step))
                {
                    *blocks += 1;
                    *last = size;
                    continue;
                }
                out.push(*run);
            }
            cur = Some((
                LineRun {
                    first,
                    block: u32::MAX,
                    base,
                    step: 0,
                    len,
                    stride,
                },
                1,
                size,
            ));
        }
        out.extend(cur.map(|c| c.0));
        if out.len() > LINE_RUNS {
            return None;
        }
        let mut runs = [UNUSED; LINE_RUNS];
        runs[..out.len()].copy_from_slice(&out);
        Some(RouteLine { runs })
    }

    /// Equal-cost next-hop ports from `node` towards host index `dst_host`, as `next_hops` gives them: from the
    /// node's line when `index_lines` made one (one cache line, no dependent read), else from its row.
    #[inline]
    pub fn hops(&self, node: u32, dst_host: u32) -> Hops<'_> {
        if let Some(line) = self.lines.get(node as usize) {
            // Used runs start at increasing hosts, the first at host 0; unused ones at u32::MAX.
            let i: usize = line
                .runs
                .iter()
                .map(|r| (r.first <= dst_host) as usize)
                .sum();
            if i > 0 {
                let r = &line.runs[i - 1];
                let b = (dst_host - r.first) / r.block;
                return Hops::Spaced {
                    first: r.base.wrapping_add(b.wrapping_mul(r.step)),
                    stride: r.stride as u32,
                    len: r.len as u32,
                };
            }
        }
        Hops::Listed(self.next_hops(node, dst_host))
    }

    /// Nodes whose lookups go through their line.
    pub fn lined_nodes(&self) -> usize {
        self.lines
            .iter()
            .filter(|l| l.runs[0].first != u32::MAX)
            .count()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_line_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<super::RouteLine>(), 64);
        assert_eq!(std::mem::align_of::<super::RouteLine>(), 64);
    }
}
