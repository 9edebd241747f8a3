//! Unit helpers at the one place they are needed: serialization time of a packet on a link.
//! Times are u64 picoseconds, sizes u64 bytes, rates u64 bits per second throughout the engine.

/// Picoseconds in one second.
pub const PS_PER_S: u64 = 1_000_000_000_000;

/// Time to put `bytes` on a link of `rate_bps`, rounded up to a whole picosecond.
/// Computed exactly each time (or from an exact integer ps-per-byte, see `SerClock`): a truncated
/// per-byte cache drifts by a fraction of a picosecond per byte at rates that do not divide 8e12.
pub fn ser_time_ps(bytes: u64, rate_bps: u64) -> u64 {
    let num = bytes as u128 * 8 * PS_PER_S as u128;
    num.div_ceil(rate_bps as u128) as u64
}

/// Serialization clock of one link: an exact integer ps-per-byte when the rate divides 8e12
/// (1, 10, 25, 40, 100, 400 Gbps all do), else the exact rounded-up division. 16 bytes (a port keeps it in the
/// cache line it reads on every offer, `crate::port::Port`).
#[derive(Debug, Clone, Copy)]
pub struct SerClock {
    rate_bps: u64,
    exact_ps_per_byte: Option<std::num::NonZeroU64>,
}

impl SerClock {
    pub fn new(rate_bps: u64) -> Self {
        let per_byte = 8 * PS_PER_S;
        let exact = if per_byte.is_multiple_of(rate_bps) {
            std::num::NonZeroU64::new(per_byte / rate_bps)
        } else {
            None
        };
        SerClock {
            rate_bps,
            exact_ps_per_byte: exact,
        }
    }

    #[inline]
    pub fn time_ps(&self, bytes: u64) -> u64 {
        match self.exact_ps_per_byte {
            Some(p) => bytes * p.get(),
            None => ser_time_ps(bytes, self.rate_bps),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_is_exact_and_rounds_up() {
        assert_eq!(ser_time_ps(1500, 1_000_000_000), 12_000_000); // 12 us
        assert_eq!(ser_time_ps(1500, 10_000_000_000), 1_200_000);
        // 3 Gbps does not divide 8e12: 1 byte = 2666.67 ps, rounded up once per packet, not per byte.
        assert_eq!(ser_time_ps(1, 3_000_000_000), 2667);
        assert_eq!(ser_time_ps(1500, 3_000_000_000), 4_000_000);
        for rate in [
            1_000_000_000u64,
            3_000_000_000,
            10_000_000_000,
            25_000_000_000,
            7,
        ] {
            let c = SerClock::new(rate);
            for b in [1u64, 52, 1500, 9000] {
                assert_eq!(c.time_ps(b), ser_time_ps(b, rate));
            }
        }
    }
}
