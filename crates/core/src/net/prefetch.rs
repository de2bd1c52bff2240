//! Cache hints for the packet path: ask the CPU to start loading memory a hop is about to read,
//! so that the miss overlaps other work. TCP's per-segment queues use them too (the scoreboard
//! and RACK's transmissions, read in order one round trip after they were written). A hint
//! changes no state and no result.

/// x86-64 cache line, bytes.
const LINE: usize = 64;

/// Starts loading every cache line that holds part of `value` (a packet spans two or three).
#[inline]
pub fn prefetch<T>(value: &T) {
    prefetch_prefix(value, std::mem::size_of::<T>());
}

/// Starts loading the cache lines that hold the first `bytes` bytes of `value` (at most all of
/// it): one hint per 64 bytes from its first byte, and one for the last byte. With a constant
/// length the hints unroll into straight-line code (no division by the line size, no loop).
#[inline]
pub fn prefetch_prefix<T>(value: &T, bytes: usize) {
    prefetch_bytes((value as *const T).cast::<u8>(), bytes.min(std::mem::size_of::<T>()));
}

/// Starts loading element `i` of the array that starts at `base`, wherever it lands: `i` may
/// be past the array's end, or `base` dangling (a wasted hint, never a fault: the address is
/// computed with wrapping arithmetic and only hinted). For a hint whose index needs no check.
#[inline]
pub fn prefetch_element<T>(base: *const T, i: usize) {
    prefetch_bytes(base.wrapping_add(i).cast::<u8>(), std::mem::size_of::<T>());
}

/// One hint per 64 bytes of `first..first + end`, and one for its last byte.
#[inline(always)]
fn prefetch_bytes(first: *const u8, end: usize) {
    let mut offset = 0;
    while offset < end {
        prefetch_address(first.wrapping_add(offset));
        offset += LINE;
    }
    prefetch_address(first.wrapping_add(end.saturating_sub(1)));
}

/// Starts loading the slot `ahead` places past the back of `queue`, where a push will write a
/// few pushes from now: a long queue's storage is a ring, and its back was last written a lap
/// ago. When the storage wraps between the back and that slot the hint lands past the buffer's
/// end instead: a wasted hint, never a fault.
#[inline]
pub fn prefetch_past_back<T>(queue: &std::collections::VecDeque<T>, ahead: usize) {
    let (front, back) = queue.as_slices();
    let end = if back.is_empty() { front.as_ptr_range().end } else { back.as_ptr_range().end };
    prefetch_address(end.wrapping_add(ahead).cast::<u8>());
}

/// The one hint instruction (a no-op off x86-64). Any address will do: a prefetch never faults,
/// and the callers compute addresses with wrapping arithmetic, which keeps that defined.
#[inline(always)]
fn prefetch_address(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch never faults, whatever the address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(address.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}
