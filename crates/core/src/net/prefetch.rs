//! Cache hints for the packet path: ask the CPU to start loading memory a hop is about to read,
//! so that the miss overlaps other work. A hint changes no state and no result.

/// x86-64 cache line, bytes.
const LINE: usize = 64;

/// Starts loading every cache line that holds part of `value` (a packet spans two or three).
#[inline]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let first = (value as *const T).cast::<i8>();
        let lead = first as usize % LINE;
        let lines = (lead + std::mem::size_of::<T>()).div_ceil(LINE).max(1);
        for i in 0..lines {
            // SAFETY: a prefetch never faults, whatever the address; wrapping arithmetic keeps
            // the pointer computation itself defined.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(first.wrapping_sub(lead).wrapping_add(i * LINE)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
