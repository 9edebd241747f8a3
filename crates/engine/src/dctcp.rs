//! DCTCP's sender side (Alizadeh et al., SIGCOMM 2010, section 3.1): the fraction of acknowledged bytes that
//! came back with ECN-Echo over one window of data, smoothed into alpha with gain g, and a window cut of
//! cwnd x (1 - alpha / 2) at most once per window of data. The switch side (marking at K) is in `sim.rs`
//! (`Sim::forward`); the receiver echoes each data packet's CE mark in its own ACK (docs/transports.md).

use crate::spec::DctcpSpec;

#[derive(Debug, Clone)]
pub struct Dctcp {
    alpha: f64,
    /// Bytes acknowledged and bytes acknowledged with ECN-Echo in the current observation window.
    acked: u64,
    marked: u64,
    /// The observation window ends when snd_una reaches this (one window of data, as the paper's "every RTT").
    window_end: u64,
    /// No further cut until snd_una passes this: one cut per window of data.
    cut_end: u64,
}

impl Dctcp {
    pub fn new(cfg: &DctcpSpec) -> Self {
        Dctcp {
            alpha: cfg.initial_alpha,
            acked: 0,
            marked: 0,
            window_end: 0,
            cut_end: 0,
        }
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// An ACK acknowledged `acked` new bytes (0 for a duplicate) with or without ECN-Echo. `snd_una` is after
    /// the ACK, `snd_nxt` the next byte to send. Returns the new window if the sender must cut it now.
    #[allow(clippy::too_many_arguments)]
    pub fn on_ack(
        &mut self,
        acked: u64,
        ece: bool,
        snd_una: u64,
        snd_nxt: u64,
        cwnd: u64,
        mss: u64,
        cfg: &DctcpSpec,
    ) -> Option<u64> {
        self.acked += acked;
        if ece {
            self.marked += acked;
        }
        if snd_una >= self.window_end && self.acked > 0 {
            let f = self.marked as f64 / self.acked as f64;
            self.alpha = (1.0 - cfg.g) * self.alpha + cfg.g * f;
            self.acked = 0;
            self.marked = 0;
            self.window_end = snd_nxt.max(snd_una + 1);
        }
        if ece && snd_una >= self.cut_end {
            self.cut_end = snd_nxt.max(snd_una + 1);
            // Floor of 2 MSS: our choice, as NewReno's ssthresh floor (RFC 5681).
            return Some(((cwnd as f64 * (1.0 - self.alpha / 2.0)) as u64).max(2 * mss));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alpha_follows_the_marked_fraction_and_cuts_once_per_window() {
        let cfg = DctcpSpec {
            initial_alpha: 0.0,
            ..DctcpSpec::default()
        };
        let mut d = Dctcp::new(&cfg);
        // First window ends at once (window_end 0): half the bytes marked.
        assert_eq!(
            d.on_ack(1000, false, 1000, 10_000, 10_000, 1000, &cfg),
            None
        );
        assert!((d.alpha() - 0.0).abs() < 1e-12);
        // A marked ACK in the next window: alpha still 0, so the cut keeps the window (floor 2 MSS).
        assert_eq!(
            d.on_ack(1000, true, 2000, 10_000, 10_000, 1000, &cfg),
            Some(10_000)
        );
        // A second mark before snd_una passes 10_000 cuts nothing.
        assert_eq!(d.on_ack(1000, true, 3000, 10_000, 10_000, 1000, &cfg), None);
        // Window ends at 10_000 with 2 of 9 thousand bytes marked (the ones since the last update).
        d.on_ack(7000, false, 10_000, 20_000, 10_000, 1000, &cfg);
        let f = 2000.0 / 9000.0;
        assert!((d.alpha() - f / 16.0).abs() < 1e-12);
        // Every byte marked for many windows: alpha tends to 1 and the cut to a half.
        let mut una = 10_000;
        for _ in 0..200 {
            una += 10_000;
            d.on_ack(10_000, true, una, una + 10_000, 100_000, 1000, &cfg);
        }
        assert!(d.alpha() > 0.999);
        una += 10_000;
        assert_eq!(
            d.on_ack(10_000, true, una, una + 10_000, 100_000, 1000, &cfg),
            Some(50_000)
        );
    }
}
