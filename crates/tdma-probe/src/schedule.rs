//! Schedule arithmetic: where slot k's send window lies on the sender's clock.
//!
//! The circuit is up during [start + kP, start + kP + U). Preallocation p shifts the whole window early to
//! cancel the fixed send-to-wire lag; the guard g cuts its end so the variable part of the lag does not spill
//! into downtime. The sender therefore emits during [start + kP - p, start + kP + U - p - g).

#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    pub start_ns: u64,
    pub period_ns: u64,
    pub uptime_ns: u64,
    pub guard_ns: u64,
    pub prealloc_ns: u64,
}

impl Schedule {
    /// Check the invariants a run needs; the message names the offending field.
    pub fn validate(&self) -> Result<(), String> {
        if self.period_ns == 0 {
            return Err("period-ns must be positive".into());
        }
        if self.uptime_ns == 0 || self.uptime_ns > self.period_ns {
            return Err(format!(
                "uptime-ns must be in (0, period-ns], got {}",
                self.uptime_ns
            ));
        }
        if self.guard_ns >= self.uptime_ns {
            return Err(format!(
                "guard-ns ({}) must be shorter than uptime-ns ({})",
                self.guard_ns, self.uptime_ns
            ));
        }
        if self.prealloc_ns > self.start_ns {
            return Err("prealloc-ns is larger than the start time".into());
        }
        Ok(())
    }

    /// Sender window of slot k: [open, close) on the sender's clock, in ns.
    pub fn window(&self, k: u64) -> (u64, u64) {
        let up = self.start_ns + k * self.period_ns;
        (
            up - self.prealloc_ns,
            up + self.uptime_ns - self.prealloc_ns - self.guard_ns,
        )
    }
}

/// Nanoseconds one burst of `burst` packets of `size` bytes takes at `rate_bps`, rounded up (0 = unpaced).
pub fn burst_interval_ns(burst: u64, size: u64, rate_bps: u64) -> u64 {
    if rate_bps == 0 {
        return 0;
    }
    let bits = burst as u128 * size as u128 * 8 * 1_000_000_000;
    bits.div_ceil(rate_bps as u128) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_applies_prealloc_and_guard() {
        let s = Schedule {
            start_ns: 1_000_000,
            period_ns: 500_000,
            uptime_ns: 250_000,
            guard_ns: 5_000,
            prealloc_ns: 3_000,
        };
        assert!(s.validate().is_ok());
        assert_eq!(s.window(0), (997_000, 1_242_000));
        assert_eq!(s.window(2), (1_997_000, 2_242_000));
    }

    #[test]
    fn bad_schedules_are_refused() {
        let mut s = Schedule {
            start_ns: 10,
            period_ns: 100,
            uptime_ns: 50,
            guard_ns: 50,
            prealloc_ns: 0,
        };
        assert!(s.validate().unwrap_err().contains("guard-ns"));
        s.guard_ns = 0;
        s.uptime_ns = 200;
        assert!(s.validate().unwrap_err().contains("uptime-ns"));
    }

    #[test]
    fn burst_interval_rounds_up() {
        // 8 x 1500 B at 1 Gb/s = 96 us exactly; at 7 b/s it must round up, never down.
        assert_eq!(burst_interval_ns(8, 1500, 1_000_000_000), 96_000);
        assert_eq!(burst_interval_ns(1, 1, 7), 1_142_857_143);
        assert_eq!(burst_interval_ns(8, 1500, 0), 0);
    }
}
