//! Links turned off and on over time (a power manager's schedule, such as ElasticTree's): the run is cut into
//! epochs at the schedule's times, each with its own routing table built over the links that are on.
//!
//! A link that turns off is only taken out of the routing choice: packets it already holds leave as usual
//! (the queue drains) and it powers down when its last transmission ends, in both directions (`drained_ps`).
//! A packet that reaches a switch whose links are all off (it was on its way when the epoch began) is
//! forwarded over the routes of the full network, so no packet is lost because a switch turned off; the
//! links it uses count as draining. The engine never decides what is off: the schedule is data (our choice:
//! the manager, in Python, knows the demand and the wake-up time and hands over a finished plan).

use serde::{Deserialize, Serialize};

use crate::error::EngineError;
use crate::routing::Routes;
use crate::spec::NodeKind;

/// The schedule as the spec gives it: epoch e starts at `times_ps[e]` (strictly increasing) and lasts until
/// the next; during it the links listed in `off_links[e]` are off. Before the first time every link is on.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSchedule {
    pub times_ps: Vec<u64>,
    pub off_links: Vec<Vec<u32>>,
}

/// What the run reports: `drained_ps[e][j]` is when link `off_links[e][j]` had sent its last packet in epoch e
/// (at least `times_ps[e]`): from then until the epoch ends it carries nothing and is powered down.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ScheduleResult {
    pub drained_ps: Vec<Vec<u64>>,
}

/// The routing state of a run with a schedule.
#[derive(Debug)]
pub struct LinkState {
    schedule: LinkSchedule,
    routes: Vec<Routes>,
    /// The epoch in force (None before the first time).
    epoch: Option<usize>,
    drained: Vec<Vec<u64>>,
}

impl LinkState {
    /// Check the schedule and build one routing table per epoch. `out_ports[n]` lists (port, far node) as
    /// `Routes::build` takes it; port `2*l` and `2*l + 1` are link l's directions.
    pub fn build(
        schedule: &LinkSchedule,
        kinds: &[NodeKind],
        out_ports: &[Vec<(u32, u32)>],
        hosts: &[u32],
        names: &dyn Fn(u32) -> String,
    ) -> Result<LinkState, EngineError> {
        let n_links = out_ports.iter().map(|p| p.len()).sum::<usize>() / 2;
        if schedule.times_ps.len() != schedule.off_links.len() {
            return Err(EngineError::invalid(
                "link_schedule.off_links",
                format!(
                    "{} epochs of links for {} times",
                    schedule.off_links.len(),
                    schedule.times_ps.len()
                ),
            ));
        }
        for (e, w) in schedule.times_ps.windows(2).enumerate() {
            if w[1] <= w[0] {
                return Err(EngineError::invalid(
                    &format!("link_schedule.times_ps[{}]", e + 1),
                    "times must increase strictly".to_string(),
                ));
            }
        }
        let mut routes = Vec::with_capacity(schedule.off_links.len());
        let mut off = vec![false; n_links];
        for (e, links) in schedule.off_links.iter().enumerate() {
            off.iter_mut().for_each(|x| *x = false);
            for (j, &l) in links.iter().enumerate() {
                if l as usize >= n_links {
                    return Err(EngineError::invalid(
                        &format!("link_schedule.off_links[{e}][{j}]"),
                        format!("link {l} does not exist ({n_links} links)"),
                    ));
                }
                off[l as usize] = true;
            }
            let on: Vec<Vec<(u32, u32)>> = out_ports
                .iter()
                .map(|p| {
                    p.iter()
                        .copied()
                        .filter(|&(port, _)| !off[(port / 2) as usize])
                        .collect()
                })
                .collect();
            if let Some((a, b)) = cut_pair(kinds, &on, hosts) {
                return Err(EngineError::invalid(
                    &format!("link_schedule.off_links[{e}]"),
                    format!("leaves {} unable to reach {}", names(a), names(b)),
                ));
            }
            routes.push(Routes::build(kinds, &on, hosts));
        }
        let drained = schedule
            .off_links
            .iter()
            .map(|l| vec![0; l.len()])
            .collect();
        Ok(LinkState {
            schedule: schedule.clone(),
            routes,
            epoch: None,
            drained,
        })
    }

    /// When the next epoch starts (u64::MAX after the last).
    pub fn next_change(&self) -> u64 {
        let next = self.epoch.map_or(0, |e| e + 1);
        self.schedule
            .times_ps
            .get(next)
            .copied()
            .unwrap_or(u64::MAX)
    }

    /// Close the epoch in force (its off links' drain times, see `close`) and enter the next one.
    pub fn advance(&mut self, free_at: &dyn Fn(u32) -> u64) {
        self.close(free_at);
        self.epoch = Some(self.epoch.map_or(0, |e| e + 1));
    }

    /// Record the drain times of the epoch in force (at the end of its epoch or of the run): `free_at(port)` is
    /// when the direction's last packet has arrived at the far end (serializer free plus propagation).
    pub fn close(&mut self, free_at: &dyn Fn(u32) -> u64) {
        if let Some(e) = self.epoch {
            let start = self.schedule.times_ps[e];
            for (j, &l) in self.schedule.off_links[e].iter().enumerate() {
                self.drained[e][j] = start.max(free_at(2 * l)).max(free_at(2 * l + 1));
            }
        }
    }

    /// Next hops in the epoch in force; where it has none (a switch that is off), those of the full network.
    #[inline]
    pub fn next_hops<'r>(&'r self, full: &'r Routes, node: u32, dst_host: u32) -> &'r [u32] {
        match self.epoch {
            None => full.next_hops(node, dst_host),
            Some(e) => {
                let hops = self.routes[e].next_hops(node, dst_host);
                if hops.is_empty() {
                    full.next_hops(node, dst_host)
                } else {
                    hops
                }
            }
        }
    }

    /// The results: epochs never reached drained at their start.
    pub fn result(mut self) -> ScheduleResult {
        let reached = self.epoch.map_or(0, |e| e + 1);
        for e in reached..self.drained.len() {
            let start = self.schedule.times_ps[e];
            self.drained[e].iter_mut().for_each(|d| *d = start);
        }
        ScheduleResult {
            drained_ps: self.drained,
        }
    }
}

/// A pair of hosts with no path between them over the links in `on` (paths never pass through a host), or None.
/// One search from the first host suffices: every host it reaches is reached through switches only.
fn cut_pair(kinds: &[NodeKind], on: &[Vec<(u32, u32)>], hosts: &[u32]) -> Option<(u32, u32)> {
    let &first = hosts.first()?;
    let mut seen = vec![false; kinds.len()];
    seen[first as usize] = true;
    let mut stack = vec![first];
    while let Some(u) = stack.pop() {
        if u != first && kinds[u as usize] == NodeKind::Host {
            continue;
        }
        for &(_, v) in &on[u as usize] {
            if !seen[v as usize] {
                seen[v as usize] = true;
                stack.push(v);
            }
        }
    }
    hosts
        .iter()
        .find(|&&h| !seen[h as usize])
        .map(|&h| (first, h))
}
