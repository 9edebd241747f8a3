//! A circuit switch's cyclic schedule, resolved for fast lookup: which endpoint each port reaches in each
//! slot, and where each slot starts in the cycle.

use super::spec::{Selection, SwitchSpec};

#[derive(Debug, Clone)]
pub struct Schedule {
    /// Per slot: the endpoint each input port (endpoint) reaches.
    pub peers: Vec<Vec<u32>>,
    /// Per slot: its start within the cycle, and its uptime.
    pub starts: Vec<u64>,
    pub uptimes: Vec<u64>,
    pub cycle_ps: u64,
    pub phase_ps: u64,
}

impl Schedule {
    /// Resolve a checked switch spec (see validate.rs).
    pub fn new(sw: &SwitchSpec, endpoints: u32) -> Self {
        let mut peers = Vec::with_capacity(sw.slots.len());
        let mut starts = Vec::with_capacity(sw.slots.len());
        let mut uptimes = Vec::with_capacity(sw.slots.len());
        let mut t = 0u64;
        for slot in &sw.slots {
            let map: Vec<u32> = (0..endpoints)
                .map(|p| {
                    let m = match &slot.matching {
                        Selection::All(m) => *m,
                        Selection::PerPort(v) => v[p as usize],
                    };
                    sw.matchings[m as usize][p as usize]
                })
                .collect();
            peers.push(map);
            starts.push(t);
            uptimes.push(slot.uptime_ps);
            t += slot.uptime_ps + slot.reconfig_ps;
        }
        Schedule {
            peers,
            starts,
            uptimes,
            cycle_ps: t,
            phase_ps: sw.phase_ps,
        }
    }

    /// The slot in force at time `t` and the absolute time its uptime began (which may precede 0 for the
    /// first cycle when the switch has a phase offset).
    pub fn slot_at(&self, t: u64) -> (usize, i128) {
        let rel = (t as i128 - self.phase_ps as i128).rem_euclid(self.cycle_ps as i128) as u64;
        let k = self.starts.partition_point(|&s| s <= rel) - 1;
        (k, t as i128 - (rel - self.starts[k]) as i128)
    }

    /// The circuit of `port` at time `t`: the endpoint it reaches if `t` lies inside a slot's uptime, with the
    /// absolute end of that uptime.
    pub fn circuit_at(&self, port: u32, t: u64) -> Option<(u32, i128)> {
        let (k, start) = self.slot_at(t);
        let end = start + self.uptimes[k] as i128;
        ((t as i128) < end).then(|| (self.peers[k][port as usize], end))
    }

    /// The slot after slot `k` that starts at `start`: its index and absolute start.
    pub fn next_slot(&self, k: usize, start: i128) -> (usize, i128) {
        let next = (k + 1) % self.starts.len();
        let len = if next == 0 {
            self.cycle_ps - self.starts[k]
        } else {
            self.starts[next] - self.starts[k]
        };
        (next, start + len as i128)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::circuit::spec::{SlotSpec, SwitchKind};

    fn rotor(phase: u64) -> Schedule {
        let sw = SwitchSpec {
            kind: SwitchKind::Rotor,
            matchings: vec![vec![1, 0, 3, 2], vec![2, 3, 0, 1], vec![3, 2, 1, 0]],
            slots: (0..3)
                .map(|m| SlotSpec {
                    matching: Selection::All(m),
                    uptime_ps: 100,
                    reconfig_ps: 10,
                })
                .collect(),
            phase_ps: phase,
        };
        Schedule::new(&sw, 4)
    }

    #[test]
    fn lookups_follow_the_cycle_and_the_phase() {
        let s = rotor(0);
        assert_eq!(s.cycle_ps, 330);
        assert_eq!(s.circuit_at(0, 0), Some((1, 100)));
        assert_eq!(s.circuit_at(0, 99), Some((1, 100)));
        assert_eq!(s.circuit_at(0, 100), None); // the reconfiguration gap
        assert_eq!(s.circuit_at(0, 110), Some((2, 210)));
        assert_eq!(s.circuit_at(3, 330 + 225), Some((0, 330 + 320)));
        let p = rotor(50);
        // Before the phase the previous cycle's last slot is in force (it began at 50 - 110 = -60).
        assert_eq!(p.slot_at(0), (2, -60));
        assert_eq!(p.circuit_at(0, 39), Some((3, 40)));
        assert_eq!(p.circuit_at(0, 45), None);
        assert_eq!(p.next_slot(2, -60), (0, 50));
    }
}
