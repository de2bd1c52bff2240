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
/// An element that starts a line (aligned to 64 bytes or more) takes one hint per line it
/// covers, and one no larger than its alignment lies within one line (alignments are powers of
/// two) and takes one: the rings' and the slab's entries are aligned for that. Others take one
/// hint more, for a last byte that may lie in the next line.
#[inline]
pub fn prefetch_element<T>(base: *const T, i: usize) {
    let first = base.wrapping_add(i).cast::<u8>();
    let (size, align) = (std::mem::size_of::<T>(), std::mem::align_of::<T>());
    if line_hints_cover(size, align) {
        prefetch_lines(first, size);
    } else {
        prefetch_bytes(first, size);
    }
}

/// One hint per 64 bytes from its first byte loads every line of an element of `size` bytes
/// placed at a multiple of `align`: it starts a line, or it lies within one.
#[inline(always)]
const fn line_hints_cover(size: usize, align: usize) -> bool {
    align >= LINE || size <= align
}

/// One hint per 64 bytes of `first..first + end`, and one for its last byte.
#[inline(always)]
fn prefetch_bytes(first: *const u8, end: usize) {
    prefetch_lines(first, end);
    prefetch_address(first.wrapping_add(end.saturating_sub(1)));
}

/// One hint per 64 bytes of `first..first + end`.
#[inline(always)]
fn prefetch_lines(first: *const u8, end: usize) {
    let mut offset = 0;
    while offset < end {
        prefetch_address(first.wrapping_add(offset));
        offset += LINE;
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Where [`line_hints_cover`] says the hints from the first byte suffice, they cover
    /// every line of an element placed at any multiple of its alignment. An entry of 16 bytes
    /// aligned to 8 needs the extra hint: placed at 56, it spans two lines.
    #[test]
    fn hints_from_the_first_byte_cover_an_element_where_said() {
        let covered_everywhere = |size: usize, align: usize| {
            (0..512).step_by(align).all(|at| {
                let hinted: Vec<usize> = (0..size).step_by(LINE).map(|o| (at + o) / LINE).collect();
                (at..at + size).all(|byte| hinted.contains(&(byte / LINE)))
            })
        };
        for align in [1, 2, 4, 8, 16, 32, 64, 128] {
            for size in (align..=256).step_by(align) {
                if line_hints_cover(size, align) {
                    assert!(covered_everywhere(size, align), "size {size}, align {align}");
                }
            }
        }
        assert!(!line_hints_cover(16, 8) && !covered_everywhere(16, 8));
        assert!(line_hints_cover(16, 16) && line_hints_cover(128, 64));
    }
}
