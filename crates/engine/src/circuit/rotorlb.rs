//! RotorLB's phase 2 (seed 001, Algorithm 1): how much relayed traffic an endpoint accepts from the
//! neighbours that offered it some in one slot.
//!
//! For each destination the relay has room for one slot's worth minus what it already queues for that
//! destination (relayed and its own); the room is shared fairly among the neighbours that offered traffic for it, each limited by
//! its offer and by the capacity it has left in the slot; shares a neighbour cannot use go round again until
//! nothing changes (water-filling). Integer bytes keep it exact and the same on every machine.

/// One neighbour's offer: bytes per destination (index = endpoint) and the capacity it has left.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Offer {
    pub bytes: Vec<u64>,
    pub capacity: u64,
}

/// Accepted bytes per offer and destination. `room[d]` is what the relay can still take for destination d.
pub fn accept(room: &[u64], offers: &[Offer]) -> Vec<Vec<u64>> {
    let n = room.len();
    let mut acc: Vec<Vec<u64>> = offers.iter().map(|_| vec![0; n]).collect();
    let mut cap: Vec<u64> = offers.iter().map(|o| o.capacity).collect();
    let mut room = room.to_vec();
    let mut active: Vec<usize> = Vec::with_capacity(offers.len());
    loop {
        let mut moved = false;
        for d in 0..n {
            if room[d] == 0 {
                continue;
            }
            active.clear();
            active.extend(
                (0..offers.len()).filter(|&a| offers[a].bytes[d] > acc[a][d] && cap[a] > 0),
            );
            if active.is_empty() {
                continue;
            }
            let share = room[d] / active.len() as u64;
            if share == 0 {
                continue; // fewer bytes left than neighbours asking: a rounding remainder, left unused
            }
            for &a in &active {
                let x = share.min(offers[a].bytes[d] - acc[a][d]).min(cap[a]);
                acc[a][d] += x;
                cap[a] -= x;
                room[d] -= x;
                moved |= x > 0;
            }
        }
        if !moved {
            return acc;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn room_is_shared_fairly_and_unused_shares_go_round_again() {
        // Destination 0 has room 100; neighbour A offers 10, B offers 200: A takes 10, B the other 90.
        let offers = vec![
            Offer {
                bytes: vec![10, 0],
                capacity: 1000,
            },
            Offer {
                bytes: vec![200, 0],
                capacity: 1000,
            },
        ];
        assert_eq!(accept(&[100, 0], &offers), vec![vec![10, 0], vec![90, 0]]);
    }

    #[test]
    fn a_neighbours_capacity_caps_its_total_over_destinations() {
        let offers = vec![Offer {
            bytes: vec![100, 100],
            capacity: 120,
        }];
        let acc = accept(&[100, 100], &offers);
        assert_eq!(acc[0].iter().sum::<u64>(), 120);
        assert!(acc[0].iter().all(|&x| x <= 100));
    }

    #[test]
    fn nothing_is_accepted_where_the_relay_is_full() {
        let offers = vec![Offer {
            bytes: vec![50, 50],
            capacity: 100,
        }];
        assert_eq!(accept(&[0, 30], &offers), vec![vec![0, 30]]);
    }
}
