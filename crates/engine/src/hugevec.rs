//! A growable array whose large buffers sit on 2 MB pages: the engine's port array and packet pool.
//!
//! A run of a large fabric touches its ports and packets in no order a cache can follow (k = 32: 49,152 ports
//! of 384 bytes, 18.9 MB, and tens of MB of packets), so nearly every access also misses the TLB, and on 4 kB
//! pages the page walk (long under a VM's nested paging) stalls even the prefetches asked for ahead of an
//! event. A buffer of 1 MB or more is therefore allocated 2 MB-aligned, its size rounded up to whole 2 MB,
//! and marked `MADV_HUGEPAGE` (Linux), so the kernel backs it with transparent huge pages when its policy is
//! `madvise` or `always` (/sys/kernel/mm/transparent_hugepage/enabled); elsewhere, or when the kernel says
//! no, it is an ordinary allocation. Only where memory sits changes: never a result.

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

/// Buffers this large or larger go on huge pages (our choice: smaller ones would waste most of a 2 MB page).
const HUGE_FROM: usize = 1 << 20;
const HUGE_PAGE: usize = 2 << 20;

pub struct HugeVec<T> {
    ptr: NonNull<T>,
    len: usize,
    cap: usize,
}

// SAFETY: a HugeVec owns its elements as a Vec does.
unsafe impl<T: Send> Send for HugeVec<T> {}
// SAFETY: shared access only hands out &T.
unsafe impl<T: Sync> Sync for HugeVec<T> {}

/// The layout of a buffer of `cap` elements: whole 2 MB pages, 2 MB-aligned, from HUGE_FROM bytes up.
fn layout<T>(cap: usize) -> Layout {
    let bytes = cap
        .checked_mul(size_of::<T>())
        .expect("buffer size fits in usize");
    let (size, align) = if bytes >= HUGE_FROM {
        (bytes.div_ceil(HUGE_PAGE) * HUGE_PAGE, HUGE_PAGE)
    } else {
        (bytes, align_of::<T>().max(64))
    };
    Layout::from_size_align(size, align).expect("a valid layout")
}

#[cfg(target_os = "linux")]
fn advise_huge(p: *mut u8, size: usize) {
    extern "C" {
        fn madvise(
            addr: *mut std::ffi::c_void,
            len: usize,
            advice: std::ffi::c_int,
        ) -> std::ffi::c_int;
    }
    const MADV_HUGEPAGE: std::ffi::c_int = 14;
    // SAFETY: [p, p + size) is a whole allocation of ours, page-aligned; the advice changes no contents, and
    // its result is ignored (a kernel without transparent huge pages keeps 4 kB pages).
    unsafe {
        madvise(p.cast(), size, MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_p: *mut u8, _size: usize) {}

impl<T> HugeVec<T> {
    pub const fn new() -> Self {
        assert!(size_of::<T>() > 0, "no zero-sized elements");
        HugeVec {
            ptr: NonNull::dangling(),
            len: 0,
            cap: 0,
        }
    }

    pub fn with_capacity(cap: usize) -> Self {
        let mut v = Self::new();
        if cap > 0 {
            v.grow_to(cap);
        }
        v
    }

    /// The elements of `v`, moved into a buffer of their own.
    pub fn from_vec(v: Vec<T>) -> Self {
        let mut h = Self::with_capacity(v.len());
        for x in v {
            h.push(x);
        }
        h
    }

    #[inline]
    pub fn push(&mut self, x: T) {
        if self.len == self.cap {
            self.grow_to((2 * self.cap).max(64));
        }
        // SAFETY: len < cap after growing; the slot is allocated and uninitialised.
        unsafe { self.ptr.as_ptr().add(self.len).write(x) };
        self.len += 1;
    }

    #[cold]
    #[inline(never)]
    fn grow_to(&mut self, cap: usize) {
        let new = layout::<T>(cap);
        // SAFETY: the layout has a non-zero size (cap > 0, elements not zero-sized).
        let p = unsafe { alloc(new) };
        if p.is_null() {
            handle_alloc_error(new);
        }
        if new.align() == HUGE_PAGE {
            advise_huge(p, new.size());
        }
        let p = p.cast::<T>();
        if self.cap > 0 {
            // SAFETY: the old buffer holds `len` initialised elements; the new one has room for them and does
            // not overlap it. The elements are moved (bitwise), and the old buffer freed with its own layout.
            unsafe {
                std::ptr::copy_nonoverlapping(self.ptr.as_ptr(), p, self.len);
                dealloc(self.ptr.as_ptr().cast(), layout::<T>(self.cap));
            }
        }
        // SAFETY: `alloc` returned a non-null pointer.
        self.ptr = unsafe { NonNull::new_unchecked(p) };
        self.cap = cap;
    }
}

impl<T> Default for HugeVec<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Deref for HugeVec<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        // SAFETY: the first `len` elements are initialised; a dangling pointer is valid for an empty slice.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> DerefMut for HugeVec<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, and `&mut self` makes the access unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> Drop for HugeVec<T> {
    fn drop(&mut self) {
        // SAFETY: the first `len` elements are initialised and dropped once; the buffer is freed with the
        // layout it was allocated with.
        unsafe {
            std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(
                self.ptr.as_ptr(),
                self.len,
            ));
            if self.cap > 0 {
                dealloc(self.ptr.as_ptr().cast(), layout::<T>(self.cap));
            }
        }
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for HugeVec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_keeps_its_elements_and_drops_them_once() {
        use std::rc::Rc;
        let token = Rc::new(());
        let mut v = HugeVec::new();
        // 40,000 x 32 bytes: past the 1 MB from which buffers go on 2 MB pages, so both kinds are crossed.
        for i in 0..40_000u64 {
            v.push((i, Rc::clone(&token), [0u8; 8]));
        }
        assert_eq!(v.len(), 40_000);
        assert!(v.iter().enumerate().all(|(i, x)| x.0 == i as u64));
        assert_eq!(
            v.as_ptr() as usize % HUGE_PAGE,
            0,
            "a large buffer is 2 MB-aligned"
        );
        v[7].0 = 99;
        assert_eq!(v[7].0, 99);
        assert_eq!(Rc::strong_count(&token), 40_001);
        drop(v);
        assert_eq!(Rc::strong_count(&token), 1);
        let w = HugeVec::from_vec(vec![1u32, 2, 3]);
        assert_eq!(&w[..], &[1, 2, 3]);
        assert!(HugeVec::<u32>::default().is_empty());
    }
}
