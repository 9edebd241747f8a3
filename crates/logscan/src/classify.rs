//! One SIMD pass over the bytes of a line that finds where it ends and, on the way, what the combined parser's
//! fast path needs: where the first quotes are, where the spaces of the first 64 bytes are, and whether the
//! line holds a backslash or a byte >= 0x80. A well-formed line is then split by looking at a handful of known
//! positions instead of walking its bytes field by field, and a line of ASCII needs no UTF-8 validation.

/// Quotes recorded per line: a combined line has six up to the end of its user agent.
pub const MAX_QUOTES: usize = 8;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Classes {
    /// Positions of the first `n_quotes` quotes, ascending (further quotes are not recorded).
    pub quotes: [u32; MAX_QUOTES],
    pub n_quotes: usize,
    /// Bit `i` set: byte `i` is a space (`i < 64`).
    pub head_spaces: u64,
    /// The line holds a backslash or a byte >= 0x80: it needs a closer look than the fast path gives.
    pub special: bool,
}

impl Classes {
    /// Record the quotes of a block starting at `base` (bit `i` of `mask`: byte `base + i`).
    #[inline(always)]
    fn add_quotes(&mut self, mut mask: u64, base: usize) {
        while mask != 0 && self.n_quotes < MAX_QUOTES {
            self.quotes[self.n_quotes] = (base + mask.trailing_zeros() as usize) as u32;
            self.n_quotes += 1;
            mask &= mask - 1;
        }
    }
}

/// Bit `i` of each mask describes byte `i` of a 64-byte block.
struct Masks {
    newline: u64,
    quote: u64,
    /// Whether the block holds a backslash or a byte >= 0x80 (where is asked only then, from `special_bits`: a
    /// 64-bit mask of them built here from vector masks made LLVM split it into single bits, every block).
    any_special: bool,
    /// Only computed for the block at the start of a line.
    space: u64,
}

/// Scans `buf` (a line's bytes from its start) from byte `from` on, adding to `c`; the position of the first
/// `\n` at or after `from`, or `None` if there is none (then `c` covers all of `buf`). Lines are indexed with
/// `u32` positions; the line limit (at most 1 GiB) keeps them below that.
type Kernel = fn(&[u8], usize, &mut Classes) -> Option<usize>;

/// The masks of one 64-byte block in some instruction set. Implementations are `#[inline(always)]` so that they
/// compile into the kernel that uses them, with that kernel's target features.
trait Block {
    fn masks(b: &[u8; 64], spaces: bool) -> Masks;
}

/// Bit `i`: byte `i` is a backslash or >= 0x80. One byte at a time: few lines have any.
fn special_bits(b: &[u8; 64]) -> u64 {
    b.iter()
        .enumerate()
        .fold(0, |m, (i, &x)| m | u64::from(x == b'\\' || x >= 0x80) << i)
}

/// The loop shared by every instruction set: whole 64-byte blocks, then the last bytes as a block that overlaps
/// what was seen (or, for a buffer shorter than a block, a zero-padded copy), keeping only the bits of new bytes.
#[inline(always)]
fn drive<B: Block>(buf: &[u8], mut i: usize, c: &mut Classes) -> Option<usize> {
    if i > 0 && i < 64 {
        // Resumed inside the first block, whose spaces come from a block at the line's start: start over.
        *c = Classes::default();
        i = 0;
    }
    let n = buf.len();
    // Bits of special bytes, or-ed together: only whether there is one matters.
    let mut special = 0u64;
    let found = loop {
        if i >= n {
            break None;
        }
        let pad: [u8; 64];
        let (block, base, fresh): (&[u8; 64], _, _) = if i + 64 <= n {
            (buf[i..i + 64].try_into().unwrap(), i, !0u64)
        } else if n >= 64 {
            (
                buf[n - 64..].try_into().unwrap(),
                n - 64,
                !0u64 << (64 - (n - i)),
            )
        } else {
            let mut p = [0u8; 64];
            p[..n].copy_from_slice(buf);
            pad = p;
            (&pad, 0, (1u64 << n) - 1)
        };
        let m = B::masks(block, base == 0);
        let newline = m.newline & fresh;
        // The bytes of the line: new ones, before its newline.
        let keep = fresh & (newline & newline.wrapping_neg()).wrapping_sub(1);
        if m.any_special {
            special |= special_bits(block) & keep;
        }
        let quotes = m.quote & keep;
        if quotes != 0 {
            c.add_quotes(quotes, base);
        }
        if base == 0 {
            c.head_spaces |= m.space & keep;
        }
        if newline != 0 {
            break Some(base + newline.trailing_zeros() as usize);
        }
        i = (base + 64).min(n);
    };
    c.special |= special != 0;
    found
}

/// One byte at a time: other architectures, and the reference of the SIMD kernels' test.
#[cfg(any(test, not(target_arch = "x86_64")))]
struct Scalar;

#[cfg(any(test, not(target_arch = "x86_64")))]
impl Block for Scalar {
    #[inline(always)]
    fn masks(b: &[u8; 64], spaces: bool) -> Masks {
        let mut m = Masks {
            newline: 0,
            quote: 0,
            any_special: special_bits(b) != 0,
            space: 0,
        };
        for (i, &x) in b.iter().enumerate() {
            let bit = 1u64 << i;
            match x {
                b'\n' => m.newline |= bit,
                b'"' => m.quote |= bit,
                b' ' if spaces => m.space |= bit,
                _ => {}
            }
        }
        m
    }
}

#[cfg(any(test, not(target_arch = "x86_64")))]
fn scan_scalar(buf: &[u8], from: usize, c: &mut Classes) -> Option<usize> {
    drive::<Scalar>(buf, from, c)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use super::{drive, Block, Classes, Masks};

    /// SSE2, part of x86_64: four 16-byte vectors per block.
    struct Sse2;

    /// Bit `i`: the top bit of byte `i` of the four vectors.
    #[inline(always)]
    fn sse2_bits(v: [__m128i; 4]) -> u64 {
        // SAFETY: SSE2 is always present on x86_64.
        unsafe {
            u64::from(_mm_movemask_epi8(v[0]) as u16)
                | u64::from(_mm_movemask_epi8(v[1]) as u16) << 16
                | u64::from(_mm_movemask_epi8(v[2]) as u16) << 32
                | u64::from(_mm_movemask_epi8(v[3]) as u16) << 48
        }
    }

    impl Block for Sse2 {
        #[inline(always)]
        fn masks(b: &[u8; 64], spaces: bool) -> Masks {
            // SAFETY: the four loads read the 64 bytes of `b`; SSE2 is always present on x86_64.
            unsafe {
                let p = b.as_ptr() as *const __m128i;
                let v = [0, 1, 2, 3].map(|k| _mm_loadu_si128(p.add(k)));
                let eq = |c: u8| sse2_bits(v.map(|x| _mm_cmpeq_epi8(x, _mm_set1_epi8(c as i8))));
                let backslash = _mm_set1_epi8(b'\\' as i8);
                Masks {
                    newline: eq(b'\n'),
                    quote: eq(b'"'),
                    // A backslash compares to all ones; a byte >= 0x80 has its top bit already.
                    any_special: _mm_movemask_epi8(v.iter().fold(_mm_setzero_si128(), |a, &x| {
                        _mm_or_si128(a, _mm_or_si128(_mm_cmpeq_epi8(x, backslash), x))
                    })) != 0,
                    space: if spaces { eq(b' ') } else { 0 },
                }
            }
        }
    }

    /// AVX2: two 32-byte vectors per block. Used only where the CPU has it (`best`).
    struct Avx2;

    /// Bit `i`: the top bit of byte `i` of the two vectors.
    #[inline(always)]
    fn avx2_bits(lo: __m256i, hi: __m256i) -> u64 {
        // SAFETY: only reached through `scan_avx2`, on AVX2 CPUs.
        unsafe {
            u64::from(_mm256_movemask_epi8(lo) as u32)
                | u64::from(_mm256_movemask_epi8(hi) as u32) << 32
        }
    }

    impl Block for Avx2 {
        #[inline(always)]
        fn masks(b: &[u8; 64], spaces: bool) -> Masks {
            // No closures here: they would not inherit the kernel's AVX2 and could keep the intrinsics from
            // being inlined.
            // SAFETY: both loads read the 64 bytes of `b`; only reached through `scan_avx2`, on AVX2 CPUs.
            unsafe {
                let p = b.as_ptr() as *const __m256i;
                let (lo, hi) = (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1)));
                let newline = _mm256_set1_epi8(b'\n' as i8);
                let quote = _mm256_set1_epi8(b'"' as i8);
                let backslash = _mm256_set1_epi8(b'\\' as i8);
                let space = _mm256_set1_epi8(b' ' as i8);
                Masks {
                    newline: avx2_bits(
                        _mm256_cmpeq_epi8(lo, newline),
                        _mm256_cmpeq_epi8(hi, newline),
                    ),
                    quote: avx2_bits(_mm256_cmpeq_epi8(lo, quote), _mm256_cmpeq_epi8(hi, quote)),
                    any_special: _mm256_movemask_epi8(_mm256_or_si256(
                        _mm256_or_si256(_mm256_cmpeq_epi8(lo, backslash), lo),
                        _mm256_or_si256(_mm256_cmpeq_epi8(hi, backslash), hi),
                    )) != 0,
                    space: if spaces {
                        avx2_bits(_mm256_cmpeq_epi8(lo, space), _mm256_cmpeq_epi8(hi, space))
                    } else {
                        0
                    },
                }
            }
        }
    }

    pub fn scan_sse2(buf: &[u8], from: usize, c: &mut Classes) -> Option<usize> {
        drive::<Sse2>(buf, from, c)
    }

    #[target_feature(enable = "avx2")]
    unsafe fn scan_avx2_inner(buf: &[u8], from: usize, c: &mut Classes) -> Option<usize> {
        drive::<Avx2>(buf, from, c)
    }

    pub fn scan_avx2(buf: &[u8], from: usize, c: &mut Classes) -> Option<usize> {
        // SAFETY: chosen only where the CPU has AVX2 (`best`, and the test checks before calling).
        unsafe { scan_avx2_inner(buf, from, c) }
    }

    pub fn best() -> super::Kernel {
        if is_x86_feature_detected!("avx2") {
            scan_avx2
        } else {
            scan_sse2
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn best_kernel() -> Kernel {
    x86::best()
}

#[cfg(not(target_arch = "x86_64"))]
fn best_kernel() -> Kernel {
    scan_scalar
}

/// The scan of the line being read. A line that a buffer refill splits is resumed where it stopped, so no byte
/// is scanned twice (an over-long line could otherwise be rescanned once per refill).
pub struct LineScan {
    kernel: Kernel,
    done: usize,
    classes: Classes,
}

impl Default for LineScan {
    fn default() -> Self {
        LineScan {
            kernel: best_kernel(),
            done: 0,
            classes: Classes::default(),
        }
    }
}

impl LineScan {
    /// The end of the line that starts at `rest[0]`: the position of its `\n`, or `None` if `rest` holds none
    /// yet (the bytes seen so far are remembered; call again with the same line start and more bytes).
    pub fn find(&mut self, rest: &[u8]) -> Option<usize> {
        if self.done == 0 {
            self.classes = Classes::default();
        }
        let found = (self.kernel)(rest, self.done, &mut self.classes);
        self.done = rest.len();
        found
    }

    /// The classes of the line (or, before its end was found, of its bytes so far); the next `find` starts the
    /// next line. Handed out by reference: copying them through the callers' return values cost more than the
    /// copy itself (partial loads of a just-stored struct stall on this CPU).
    pub fn end_line(&mut self) -> &Classes {
        self.done = 0;
        &self.classes
    }
}

/// The classes of a whole line (no newline in it).
pub fn classify(line: &[u8]) -> Classes {
    let mut scan = LineScan::default();
    scan.find(line);
    *scan.end_line()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernels() -> Vec<(&'static str, Kernel)> {
        #[allow(unused_mut)]
        let mut k: Vec<(&'static str, Kernel)> = vec![("scalar", scan_scalar)];
        #[cfg(target_arch = "x86_64")]
        {
            k.push(("sse2", x86::scan_sse2));
            if is_x86_feature_detected!("avx2") {
                k.push(("avx2", x86::scan_avx2));
            }
        }
        k
    }

    /// What a kernel must find, byte by byte.
    fn expected(buf: &[u8]) -> (Option<usize>, Classes) {
        let end = buf.iter().position(|&b| b == b'\n');
        let line = &buf[..end.unwrap_or(buf.len())];
        let mut c = Classes::default();
        for (i, &b) in line.iter().enumerate() {
            match b {
                b'"' if c.n_quotes < MAX_QUOTES => {
                    c.quotes[c.n_quotes] = i as u32;
                    c.n_quotes += 1;
                }
                b' ' if i < 64 => c.head_spaces |= 1 << i,
                b'\\' | 0x80.. => c.special = true,
                _ => {}
            }
        }
        (end, c)
    }

    #[test]
    fn kernels_agree_with_a_byte_loop_for_every_length_position_and_split() {
        for n in 0..200 {
            for pos in 0..n {
                for special in [b'"', b' ', b'\\', 0xc3, b'\n'] {
                    let mut buf = vec![b'a'; n];
                    buf[pos] = special;
                    buf[n / 2] = b'"';
                    if n > 3 {
                        buf[n - 1] = b' ';
                        buf[1] = b'"';
                        buf[2] = b' ';
                    }
                    let want = expected(&buf);
                    for (name, kernel) in kernels() {
                        // In one go, and resumed after a split at a few places.
                        for split in [n, n / 3, n.saturating_sub(1), 64.min(n), 70.min(n)] {
                            let mut c = Classes::default();
                            let first = kernel(&buf[..split], 0, &mut c);
                            let got = match first {
                                Some(k) => Some(k),
                                None => kernel(&buf, split, &mut c),
                            };
                            assert_eq!(
                                (got, c),
                                want,
                                "{name}: n={n} pos={pos} byte={special} split={split}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn only_the_first_quotes_are_kept() {
        let many: Vec<u8> = b"\" ".repeat(40);
        let c = classify(&many);
        assert_eq!(c.n_quotes, MAX_QUOTES);
        assert_eq!(c.quotes, [0, 2, 4, 6, 8, 10, 12, 14]);
        assert_eq!(c.head_spaces, 0xaaaa_aaaa_aaaa_aaaa);
    }
}
