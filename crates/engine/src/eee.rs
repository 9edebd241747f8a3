//! Energy-Efficient Ethernet (IEEE 802.3az) on one port: low-power idle (LPI) between bursts, paid for with
//! a wake time before the next packet leaves (docs/energy-saving.md).
//!
//! The state of a port between two busy periods follows from when its queue emptied (`e`) and when the next
//! packet came (`a`), so it is settled when that packet is accepted and no event is needed:
//! - awake and idle for the hold-off `h` after `e` (a packet within it leaves at once);
//! - going to sleep over [e + h, e + h + ts) (802.3az's Ts: the transition cannot be cut short);
//! - in LPI from e + h + ts until the wake is triggered, at w = max(e + h + ts, a + coalesce);
//! - waking over [w, w + tw) (Tw); the packet's transmission starts at w + tw.
//!
//! Time in each state is charged when the wake is decided, and the port's last idle period is charged up to
//! the run's end by `close`. Active time (sending or awake idle) is what is left of the run.
//!
//! Coalescing up to a byte count as well (`coalesce_bytes` > 0) needs one timer: a later packet can bring the
//! wake forward, so a sleeping port holds its packets here (`Held`), out of its pipe, until they reach the
//! byte count (the wake is triggered then, or when the sleep transition ends if that is later) or the delay
//! runs out (the `EeeWake` event at `deadline`), whichever comes first; the port then fixes their departures
//! from the wake's end, in arrival order (crate::port's `coalesce` module).

use std::collections::VecDeque;

use crate::port::InFlight;
use crate::spec::{EeePhy, EeeSpec};

/// One port's EEE settings and its exact time in each low-power state.
#[derive(Debug, Clone, Default)]
pub struct Eee {
    hold_off_ps: u64,
    sleep_ps: u64,
    wake_ps: u64,
    coalesce_ps: u64,
    /// Bytes that wake a sleeping port before the coalescing delay runs out (0: the delay alone).
    pub coalesce_bytes: u64,
    pub counters: EeeCounters,
    /// The last charged idle period (queue empty at .0, wake triggered at .1), for `close`.
    last: Option<(u64, u64)>,
    /// Packets held while the port sleeps (coalesce_bytes > 0 only; empty otherwise).
    pub held: Held,
}

/// The packets a sleeping port holds until the byte count or the coalescing delay wakes it.
#[derive(Debug, Clone, Default)]
pub struct Held {
    pub queue: VecDeque<InFlight>,
    pub bytes: u64,
    /// Serialization time of the held packets.
    pub ser_ps: u64,
    /// When the port's queue emptied (the idle period began).
    idle_from: u64,
    /// When the delay runs out: the wake starts then unless the byte count came first.
    pub deadline: u64,
}

/// What a sleeping port does with a packet when coalescing up to a byte count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// The port is awake (within the hold-off): the packet starts at once.
    Send,
    /// Hold it; `Some(t)`: it is the first, and the delay runs out at t (schedule the wake event then).
    Hold(Option<u64>),
    /// Hold it and wake now: the byte count is reached; the wake starts at the given time.
    Wake(u64),
}

/// Picoseconds a port spent in each EEE state besides active, and its number of sleep transitions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct EeeCounters {
    pub sleep_ps: u64,
    pub lpi_ps: u64,
    pub wake_ps: u64,
    pub sleeps: u64,
}

impl Eee {
    /// The settings for a link of `rate_bps`: the spec's PHY of that rate, or None (no EEE on this link).
    pub fn for_rate(spec: &EeeSpec, rate_bps: u64) -> Option<Eee> {
        let phy: &EeePhy = spec.phys.iter().find(|p| p.rate_bps == rate_bps)?;
        Some(Eee {
            hold_off_ps: spec.hold_off_ps,
            sleep_ps: phy.sleep_ps,
            wake_ps: phy.wake_ps,
            coalesce_ps: spec.coalesce_ps,
            coalesce_bytes: spec.coalesce_bytes,
            counters: EeeCounters::default(),
            last: None,
            held: Held::default(),
        })
    }

    /// Whether the port holds packets, waiting for the byte count or the delay.
    #[inline]
    pub fn holding(&self) -> bool {
        !self.held.queue.is_empty()
    }

    /// A packet of `bytes` arrives at `a`, the port's queue having emptied at `e` (coalescing up to a byte
    /// count): send it at once, hold it, or hold it and wake. The caller holds the packet unless `Send`.
    pub fn hold(&mut self, e: u64, a: u64, bytes: u64) -> Hold {
        let first = !self.holding();
        if first {
            if a - e <= self.hold_off_ps {
                return Hold::Send;
            }
            let lpi_from = e + self.hold_off_ps + self.sleep_ps;
            self.held.idle_from = e;
            self.held.deadline = (a + self.coalesce_ps).max(lpi_from);
            self.held.bytes = 0;
            self.held.ser_ps = 0;
        }
        self.held.bytes += bytes;
        if self.held.bytes >= self.coalesce_bytes {
            // The sleep transition is not cut short: the wake starts once it is over.
            let lpi_from = self.held.idle_from + self.hold_off_ps + self.sleep_ps;
            return Hold::Wake(a.max(lpi_from));
        }
        Hold::Hold(first.then_some(self.held.deadline))
    }

    /// Wake a holding port, the wake starting at `w`: charge the idle period and return when the held packets'
    /// transmission starts (the caller then takes them out of `held.queue`).
    pub fn wake_at(&mut self, w: u64) -> u64 {
        let e = self.held.idle_from;
        self.charge(e, w, u64::MAX, 1);
        self.last = Some((e, w));
        self.counters.sleeps += 1;
        w + self.wake_ps
    }

    /// When a holding port's serializer is free again if nothing else comes: the held packets sent from the end
    /// of the wake at the deadline (`free` when the port holds nothing).
    pub fn free_at(&self, free: u64) -> u64 {
        if self.holding() {
            self.held.deadline + self.wake_ps + self.held.ser_ps
        } else {
            free
        }
    }

    /// A packet arrives at `a` to a port whose queue emptied at `e` (e <= a): when its transmission starts.
    #[inline]
    pub fn start_after_idle(&mut self, e: u64, a: u64) -> u64 {
        if a - e <= self.hold_off_ps {
            return a;
        }
        let lpi_from = e + self.hold_off_ps + self.sleep_ps;
        let w = (a + self.coalesce_ps).max(lpi_from);
        self.charge(e, w, u64::MAX, 1);
        self.last = Some((e, w));
        self.counters.sleeps += 1;
        w + self.wake_ps
    }

    /// Add (sign 1) or remove (sign -1) the sleep, LPI and wake time of the idle period (e, w), cut at `upto`.
    fn charge(&mut self, e: u64, w: u64, upto: u64, sign: i64) {
        let len = |from: u64, to: u64| to.min(upto).saturating_sub(from);
        let sleep_from = e + self.hold_off_ps;
        let lpi_from = sleep_from + self.sleep_ps;
        let c = &mut self.counters;
        for (slot, d) in [
            (&mut c.sleep_ps, len(sleep_from, lpi_from)),
            (&mut c.lpi_ps, len(lpi_from, w)),
            (&mut c.wake_ps, len(w, w + self.wake_ps)),
        ] {
            if sign > 0 {
                *slot += d;
            } else {
                *slot -= d;
            }
        }
    }

    /// The counters at the run's end `t`, for a port whose serializer is free from `free_at`: an idle tail
    /// (queue empty since free_at < t) is charged as sleeping and LPI up to t; a wake charged past t is cut.
    pub fn close(&self, free_at: u64, t: u64) -> EeeCounters {
        let mut done = self.clone();
        if let Some((e, w)) = self.last {
            if w + self.wake_ps > t {
                done.charge(e, w, u64::MAX, -1);
                done.charge(e, w, t, 1);
            }
        }
        // A port still holding packets at the end has been asleep since its queue emptied.
        let free_at = if self.holding() {
            self.held.idle_from
        } else {
            free_at
        };
        if free_at < t {
            // The tail: no wake was triggered, so charge as if one came at the end of time, cut at t.
            done.charge(free_at, u64::MAX - self.wake_ps, t, 1);
            if t - free_at > self.hold_off_ps {
                done.counters.sleeps += 1;
            }
        }
        done.counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eee(hold_off_ps: u64, coalesce_ps: u64) -> Eee {
        let spec = EeeSpec {
            hold_off_ps,
            coalesce_ps,
            coalesce_bytes: 0,
            phys: vec![EeePhy {
                rate_bps: 10,
                sleep_ps: 2_880_000,
                wake_ps: 4_480_000,
            }],
        };
        Eee::for_rate(&spec, 10).unwrap()
    }

    #[test]
    fn long_idle_sleeps_then_wakes_for_tw() {
        let mut e = eee(0, 0);
        assert_eq!(e.start_after_idle(0, 100_000_000), 100_000_000 + 4_480_000);
        let c = e.counters;
        assert_eq!(
            (c.sleep_ps, c.lpi_ps, c.wake_ps, c.sleeps),
            (2_880_000, 100_000_000 - 2_880_000, 4_480_000, 1)
        );
    }

    #[test]
    fn back_to_back_and_hold_off_do_not_sleep() {
        let mut e = eee(1_000_000, 0);
        assert_eq!(e.start_after_idle(5, 5), 5);
        assert_eq!(e.start_after_idle(5, 1_000_005), 1_000_005);
        assert_eq!(e.counters, EeeCounters::default());
    }

    #[test]
    fn arrival_during_sleep_waits_for_ts_then_tw() {
        let mut e = eee(0, 0);
        assert_eq!(e.start_after_idle(0, 1_000), 2_880_000 + 4_480_000);
        assert_eq!(e.counters.lpi_ps, 0);
    }

    #[test]
    fn coalescing_delays_the_wake() {
        let mut e = eee(0, 50_000_000);
        assert_eq!(e.start_after_idle(0, 10_000_000), 60_000_000 + 4_480_000);
        assert_eq!(e.counters.lpi_ps, 60_000_000 - 2_880_000);
    }

    #[test]
    fn close_charges_the_tail_and_cuts_a_late_wake() {
        let e = eee(0, 0);
        let c = e.close(0, 10_000_000);
        assert_eq!(
            (c.sleep_ps, c.lpi_ps, c.wake_ps, c.sleeps),
            (2_880_000, 10_000_000 - 2_880_000, 0, 1)
        );
        let mut e = eee(0, 0);
        let start = e.start_after_idle(0, 10_000_000);
        let c = e.close(start + 1_000, 10_000_000 + 1_000_000);
        assert_eq!((c.lpi_ps, c.wake_ps), (10_000_000 - 2_880_000, 1_000_000));
    }
}
