//! A sorted set of disjoint segment ranges: the receiver's out-of-order queue and the sender's
//! index of SACKed ranges.
//!
//! Ranges are half-open (`start..end`), kept sorted, and merged when they overlap or touch, so
//! the set holds one range per hole-separated island. The number of islands is the number of
//! holes (a handful, rarely hundreds), so a ring buffer with binary search beats a tree: lookups
//! are O(log k), insertion shifts at most k small structs, and nothing allocates once the ring
//! has grown.

use std::collections::VecDeque;

/// Segments `start..end`, and the payload bytes they hold (counted by the receiver, which must
/// deliver them later; the sender's index leaves it at zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeqRange {
    pub start: u64,
    pub end: u64,
    pub bytes: u64,
}

/// Disjoint, non-adjacent ranges in increasing order.
#[derive(Clone, Debug, Default)]
pub struct SeqRanges {
    ranges: VecDeque<SeqRange>,
}

impl SeqRanges {
    pub fn new() -> Self {
        SeqRanges::default()
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    pub fn get(&self, i: usize) -> &SeqRange {
        &self.ranges[i]
    }

    /// Index of the range that contains `seq`.
    pub fn find(&self, seq: u64) -> Option<usize> {
        let i = self.ranges.partition_point(|r| r.end <= seq);
        (i < self.ranges.len() && self.ranges[i].start <= seq).then_some(i)
    }

    /// Adds `start..end`, calling `new_part(a, b)` for each maximal piece `a..b` that was not
    /// covered before, in increasing order. Returns the index of the range now holding it.
    /// Cost: O(log k) plus the ranges merged.
    pub fn insert(&mut self, start: u64, end: u64, mut new_part: impl FnMut(u64, u64)) -> usize {
        debug_assert!(start < end, "empty range {start}..{end}");
        // Ranges lo..hi overlap or touch start..end.
        let lo = self.ranges.partition_point(|r| r.end < start);
        let hi = self.ranges.partition_point(|r| r.start <= end);
        if lo == hi {
            new_part(start, end);
            self.ranges.insert(lo, SeqRange { start, end, bytes: 0 });
            return lo;
        }
        let mut cursor = start;
        let mut bytes = 0;
        for r in self.ranges.range(lo..hi) {
            if r.start > cursor {
                new_part(cursor, r.start.min(end));
            }
            cursor = cursor.max(r.end);
            bytes += r.bytes;
        }
        if cursor < end {
            new_part(cursor, end);
        }
        let merged = SeqRange { start: start.min(self.ranges[lo].start), end: end.max(self.ranges[hi - 1].end), bytes };
        self.ranges[lo] = merged;
        self.ranges.drain(lo + 1..hi);
        lo
    }

    /// Adds payload bytes to range `i` (the receiver, after inserting a new segment).
    pub fn add_bytes(&mut self, i: usize, bytes: u64) {
        self.ranges[i].bytes += bytes;
    }

    /// Removes the first range if it starts at `seq` (the receiver's next expected segment).
    pub fn pop_first_starting_at(&mut self, seq: u64) -> Option<SeqRange> {
        if self.ranges.front().is_some_and(|r| r.start == seq) {
            self.ranges.pop_front()
        } else {
            None
        }
    }

    /// Forgets everything below `seq`: ranges wholly below go, one straddling `seq` is trimmed
    /// (its byte count is then no longer meaningful; only the sender trims).
    pub fn remove_below(&mut self, seq: u64) {
        while let Some(r) = self.ranges.front_mut() {
            if r.end <= seq {
                self.ranges.pop_front();
            } else {
                r.start = r.start.max(seq);
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(s: &SeqRanges) -> Vec<(u64, u64)> {
        (0..s.len()).map(|i| (s.get(i).start, s.get(i).end)).collect()
    }

    fn insert(s: &mut SeqRanges, a: u64, b: u64) -> Vec<(u64, u64)> {
        let mut new = Vec::new();
        s.insert(a, b, |x, y| new.push((x, y)));
        new
    }

    #[test]
    fn disjoint_inserts_stay_sorted() {
        let mut s = SeqRanges::new();
        assert_eq!(insert(&mut s, 10, 12), vec![(10, 12)]);
        assert_eq!(insert(&mut s, 2, 4), vec![(2, 4)]);
        assert_eq!(insert(&mut s, 6, 7), vec![(6, 7)]);
        assert_eq!(spans(&s), vec![(2, 4), (6, 7), (10, 12)]);
        assert_eq!(s.find(3), Some(0));
        assert_eq!(s.find(4), None);
        assert_eq!(s.find(11), Some(2));
    }

    #[test]
    fn touching_ranges_merge() {
        let mut s = SeqRanges::new();
        insert(&mut s, 2, 4);
        insert(&mut s, 5, 6);
        assert_eq!(insert(&mut s, 4, 5), vec![(4, 5)]);
        assert_eq!(spans(&s), vec![(2, 6)]);
    }

    #[test]
    fn overlapping_insert_reports_only_the_gaps() {
        let mut s = SeqRanges::new();
        insert(&mut s, 3, 5);
        insert(&mut s, 7, 9);
        assert_eq!(insert(&mut s, 1, 12), vec![(1, 3), (5, 7), (9, 12)]);
        assert_eq!(spans(&s), vec![(1, 12)]);
        assert_eq!(insert(&mut s, 4, 8), vec![]);
    }

    #[test]
    fn merged_ranges_add_their_bytes() {
        let mut s = SeqRanges::new();
        let i = s.insert(3, 4, |_, _| {});
        s.add_bytes(i, 100);
        let i = s.insert(5, 6, |_, _| {});
        s.add_bytes(i, 50);
        let i = s.insert(4, 5, |_, _| {});
        s.add_bytes(i, 10);
        assert_eq!((s.len(), *s.get(0)), (1, SeqRange { start: 3, end: 6, bytes: 160 }));
    }

    #[test]
    fn removal_below_trims_and_drops() {
        let mut s = SeqRanges::new();
        insert(&mut s, 2, 4);
        insert(&mut s, 6, 10);
        s.remove_below(7);
        assert_eq!(spans(&s), vec![(7, 10)]);
        assert_eq!(s.pop_first_starting_at(6), None);
        assert_eq!(s.pop_first_starting_at(7).map(|r| r.end), Some(10));
        assert!(s.is_empty());
    }
}
