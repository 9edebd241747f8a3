//! Valiant load balancing (VLB) on a fabric of racks: a flow's data goes first to an intermediate rack, by the
//! routing table's shortest paths, then on to its destination.
//!
//! What the public Opera simulator does with `-VLB 1` (TritonNetworking/opera-sim, src/expander/): flows larger
//! than 100,000 bytes take VLB (datacenter/main_ndp_expander.cpp lines 215-217); their path list gets, for each
//! of 20 intermediate racks drawn uniformly from all racks, draws that hit the flow's own racks dropped
//! (datacenter/expander_topology.cpp lines 330-336), paths through that rack (lines 338-360); every data
//! packet, retransmissions too, takes one of those paths drawn uniformly (ndp.cpp lines 581-597 and 826-832),
//! while the receiver's ACKs, NACKs and pulls take the shortest paths (ndp.cpp lines 1193-1199; a pull is made
//! from its ACK or NACK, lines 1406-1409).
//!
//! Here: per flow, `intermediates` draws with replacement over the racks (switches with hosts under them),
//! those on the flow's own racks dropped, from the flow's own stream (seed, flow id); a flow left with none, or
//! at or below the size threshold, or within one rack, takes shortest paths. Only data packets go through an
//! intermediate. With `rps` each data packet draws one of its flow's intermediates (as the simulator); with
//! `ecmp` or `single` the flow's hash picks one for all its packets. Our choice where the simulator differs:
//! each kept draw is equally likely, where its path list weights an intermediate by the number of paths its
//! file lists to it, and each leg spreads over every shortest path, hop by hop, as the routing scheme does.
//!
//! A packet on its way to its intermediate carries the intermediate's first host as its destination in its pipe
//! entry, tagged (`sim.rs`, `TAG_VIA`); the packet itself keeps the real destination, which the intermediate's
//! switch puts back. So the routing table is unchanged and forwarding reads one more bit, only in runs with VLB.

use crate::rng::{mix64, Rng};
use crate::spec::VlbSpec;

/// A seed mixed into the flows' streams so that they never coincide with the switches' (`Rng::new(seed, node)`).
const VLB_SALT: u64 = 0x564C_425F_7669_6121;

#[derive(Debug)]
pub struct Vlb {
    /// Attachment switch (rack) of each host index.
    host_rack: Vec<u32>,
    /// Flow f's intermediates (each a host index under the intermediate rack) are `vias[ranges[f].0..][..len]`.
    ranges: Vec<(u32, u32)>,
    vias: Vec<u32>,
    /// A draw per data packet (`rps`), else one intermediate per flow from its hash.
    pub per_packet: bool,
}

impl Vlb {
    /// The racks of the network and every flow's intermediates. `attach[h]` is host index h's one switch
    /// (None: a host with other than one switch link, which VLB refuses); `flows` gives (id, src host index,
    /// dst host index, size in bytes).
    pub fn build(
        spec: &VlbSpec,
        seed: u64,
        attach: &[Option<u32>],
        flows: impl Iterator<Item = (u64, u32, u32, u64)>,
        per_packet: bool,
    ) -> Result<Vlb, usize> {
        let mut host_rack = Vec::with_capacity(attach.len());
        let mut racks: Vec<(u32, u32)> = Vec::new(); // (rack switch, its first host index), in order of first host
        for (h, a) in attach.iter().enumerate() {
            let Some(r) = *a else { return Err(h) };
            host_rack.push(r);
            if !racks.iter().any(|&(s, _)| s == r) {
                racks.push((r, h as u32));
            }
        }
        let (mut ranges, mut vias) = (Vec::new(), Vec::new());
        let fseed = mix64(seed ^ VLB_SALT);
        for (id, sh, dh, size) in flows {
            let start = vias.len() as u32;
            let (sr, dr) = (host_rack[sh as usize], host_rack[dh as usize]);
            if size > spec.min_size_bytes && sr != dr {
                let mut rng = Rng::new(fseed, id);
                for _ in 0..spec.intermediates {
                    let (r, h) = racks[rng.below(racks.len() as u32) as usize];
                    if r != sr && r != dr {
                        vias.push(h);
                    }
                }
            }
            ranges.push((start, vias.len() as u32 - start));
        }
        Ok(Vlb {
            host_rack,
            ranges,
            vias,
            per_packet,
        })
    }

    /// The intermediate (a host index under it) of flow `f`'s next data packet, None for shortest paths. `draw`
    /// gives a uniform index below its argument (per packet); `hash` is the flow's (per flow).
    #[inline]
    pub fn via(&self, f: u32, hash: u32, draw: impl FnOnce(u32) -> u32) -> Option<u32> {
        let (start, len) = self.ranges[f as usize];
        if len == 0 {
            return None;
        }
        let i = if self.per_packet {
            draw(len)
        } else {
            (mix64(hash as u64 ^ VLB_SALT) % len as u64) as u32
        };
        Some(self.vias[(start + i) as usize])
    }

    /// True when `node` is the rack of intermediate `via` (a host index): the packet turns to its destination.
    #[inline]
    pub fn reached(&self, node: u32, via: u32) -> bool {
        self.host_rack[via as usize] == node
    }

    /// Flow f's intermediate racks (switch node ids), in draw order, repeats kept.
    pub fn racks_of(&self, f: u32) -> Vec<u32> {
        let (start, len) = self.ranges[f as usize];
        self.vias[start as usize..(start + len) as usize]
            .iter()
            .map(|&h| self.host_rack[h as usize])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(n: u32, min: u64) -> VlbSpec {
        VlbSpec {
            intermediates: n,
            min_size_bytes: min,
        }
    }

    /// 6 racks (switches 100..105) of 2 hosts each.
    fn attach() -> Vec<Option<u32>> {
        (0..12).map(|h| Some(100 + h / 2)).collect()
    }

    #[test]
    fn draws_skip_the_flows_own_racks_and_depend_on_seed_and_flow_alone() {
        let flows = [(7u64, 0u32, 11u32, 1_000_000u64), (8, 2, 3, 1_000_000)];
        let a = Vlb::build(&spec(20, 100_000), 1, &attach(), flows.into_iter(), true).unwrap();
        let r0 = a.racks_of(0);
        assert!(!r0.is_empty() && r0.len() <= 20);
        assert!(r0.iter().all(|&r| r != 100 && r != 105), "{r0:?}");
        assert!(r0.iter().all(|&r| (101..105).contains(&r)));
        assert!(a.racks_of(1).iter().all(|&r| r != 101));
        // 20 draws over 6 racks keep every other rack with near certainty: the draws are spread.
        let mut distinct = r0.clone();
        distinct.sort();
        distinct.dedup();
        assert!(distinct.len() >= 3, "{r0:?}");
        // The same seed and flow id give the same draws whatever else the run holds; another seed others.
        let again = Vlb::build(
            &spec(20, 100_000),
            1,
            &attach(),
            flows[..1].iter().copied(),
            true,
        )
        .unwrap();
        assert_eq!(again.racks_of(0), r0);
        let other = Vlb::build(&spec(20, 100_000), 2, &attach(), flows.into_iter(), true).unwrap();
        assert_ne!(other.racks_of(0), r0);
    }

    #[test]
    fn small_and_rack_local_flows_take_shortest_paths() {
        // At the threshold (not above it), within one rack: no intermediates.
        let flows = [
            (1u64, 0u32, 11u32, 100_000u64),
            (2, 0, 1, 1_000_000),
            (3, 0, 11, 100_001),
        ];
        let v = Vlb::build(&spec(20, 100_000), 1, &attach(), flows.into_iter(), false).unwrap();
        assert!(v.via(0, 5, |_| 0).is_none());
        assert!(v.via(1, 5, |_| 0).is_none());
        let first = v.via(2, 5, |_| unreachable!()).unwrap();
        assert_eq!(
            v.via(2, 5, |_| unreachable!()),
            Some(first),
            "per flow: one intermediate for every packet"
        );
        assert!(v.reached(v.host_rack[first as usize], first));
    }

    #[test]
    fn a_host_with_no_single_switch_is_refused() {
        let mut at = attach();
        at[3] = None;
        let err = Vlb::build(&spec(1, 0), 1, &at, std::iter::empty(), true).unwrap_err();
        assert_eq!(err, 3);
    }
}
