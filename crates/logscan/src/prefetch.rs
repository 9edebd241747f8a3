//! A hint to the CPU to fetch a cache line ahead of its use, for lookups whose keys are known early.

/// Fetch the cache line holding `p` into the nearest cache. Only a hint: it never faults, and does nothing where
/// the target has no such instruction.
#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
