//! Cache hints for the packet path: ask the CPU to start loading memory a hop is about to read,
//! so that the miss overlaps other work. A hint changes no state and no result.

/// Starts loading the cache lines holding `value` (all of them: a packet spans two or three).
#[inline]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let first = (value as *const T).cast::<i8>();
        let size = std::mem::size_of::<T>().max(1);
        let mut offset = 0;
        while offset < size {
            // SAFETY: prefetching never faults, and `first + offset` lies inside `value`.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(first.add(offset)) };
            offset += 64;
        }
        // SAFETY: as above; the last byte, whose line the loop misses when `value` straddles one.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(first.add(size - 1)) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
