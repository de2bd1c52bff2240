//! A sorted set of disjoint segment ranges: the receiver's out-of-order queue and the sender's
//! index of SACKed ranges.
//!
//! Ranges are half-open (`start..end`), kept sorted, and merged when they overlap or touch, so
//! the set holds one range per hole-separated island. Islands are usually a handful, but a
//! sender that paces a large window evenly loses every few dozenth segment when a queue
//! overflows: seed 003's LIBRA runs at 10 Gbit/s held 46,000 islands in one window. So the
//! ranges are cut into chunks of at most `CHUNK` (a two-level B-tree): a lookup is a binary
//! search over the chunks' last ranges, then one within a chunk, and a segment filling a hole
//! shifts at most one chunk. One sorted array had spent a third of such a run moving tens of
//! thousands of ranges to close each hole (`BENCHMARKS.md`); `std`'s `BTreeMap` was slower
//! still (a descent through five levels of nodes per lookup, four lookups per ACK).

use std::collections::VecDeque;

/// Ranges per chunk: a chunk is 1.5 KB, and 46,000 ranges are 720 chunks.
const CHUNK: usize = 64;

/// Segments `start..end`, and the payload bytes they hold (counted by the receiver, which must
/// deliver them later; the sender's index leaves it at zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeqRange {
    pub start: u64,
    pub end: u64,
    pub bytes: u64,
}

/// Disjoint, non-adjacent ranges in increasing order, in chunks of 1 to `CHUNK` ranges.
#[derive(Clone, Debug, Default)]
pub struct SeqRanges {
    chunks: VecDeque<Vec<SeqRange>>,
    /// The end of each chunk's last range: the first level of every search, kept apart so that
    /// it reads one short array, not a line of each chunk.
    last_ends: VecDeque<u64>,
}

impl SeqRanges {
    pub fn new() -> Self {
        SeqRanges::default()
    }

    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// The ranges in increasing order (`.rev()` for the highest first).
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = SeqRange> + '_ {
        self.chunks.iter().flatten().copied()
    }

    /// The first chunk whose last range ends after `seq` (`ends_after`), or past them all. Its
    /// callers have checked that `seq` is not past the last range.
    fn chunk_ending_after(&self, seq: u64, ends_after: impl Fn(u64, u64) -> bool) -> usize {
        // Most lookups land in the last chunk (the highest islands: a block reported again, an
        // island grown): every chunk before it ends before its first range starts.
        if let Some(last) = self.chunks.back() {
            if last[0].start <= seq {
                return self.chunks.len() - 1;
            }
        }
        self.last_ends.partition_point(|&end| !ends_after(end, seq))
    }

    /// Chunk `c` changed: its entry in `last_ends`.
    fn refresh(&mut self, c: usize) {
        self.last_ends[c] = self.chunks[c][self.chunks[c].len() - 1].end;
    }

    fn push_chunk(&mut self, at: usize, chunk: Vec<SeqRange>) {
        self.last_ends.insert(at, chunk[chunk.len() - 1].end);
        self.chunks.insert(at, chunk);
    }

    fn remove_chunk(&mut self, c: usize) {
        self.chunks.remove(c);
        self.last_ends.remove(c);
    }

    /// The last range, where new data lands: lookups try it first.
    fn last(&self) -> Option<SeqRange> {
        self.chunks.back().map(|c| c[c.len() - 1])
    }

    /// The range that contains `seq`.
    pub fn find(&self, seq: u64) -> Option<SeqRange> {
        let last = self.last()?;
        if seq >= last.start {
            return (seq < last.end).then_some(last);
        }
        let c = self.chunk_ending_after(seq, |end, seq| end > seq);
        let chunk = self.chunks.get(c)?;
        let r = chunk[chunk.partition_point(|r| r.end <= seq)];
        (r.start <= seq).then_some(r)
    }

    /// Adds `start..end` holding `bytes` more payload bytes, calling `new_part(a, b)` for each
    /// maximal piece `a..b` that was not covered before, in increasing order; returns the range
    /// that now holds it. Cost: two binary searches, plus the ranges merged, plus shifting one
    /// chunk.
    pub fn insert(
        &mut self,
        start: u64,
        end: u64,
        bytes: u64,
        mut new_part: impl FnMut(u64, u64),
    ) -> SeqRange {
        debug_assert!(start < end, "empty range {start}..{end}");
        // The first range that overlaps or touches `start..end` or lies after it. New data
        // beyond every hole lies past the last range or grows it: no search for either.
        let (c, i) = match self.last() {
            Some(last) if start > last.end => (self.chunks.len(), 0),
            Some(last) if start >= last.start => {
                (self.chunks.len() - 1, self.chunks[self.chunks.len() - 1].len() - 1)
            }
            _ => {
                let c = self.chunk_ending_after(start, |end, start| end >= start);
                (c, self.chunks.get(c).map_or(0, |ch| ch.partition_point(|r| r.end < start)))
            }
        };
        let new = SeqRange { start, end, bytes };
        if c == self.chunks.len() {
            new_part(start, end);
            match self.chunks.back_mut() {
                Some(last) if last.len() < CHUNK => {
                    last.push(new);
                    self.refresh(c - 1);
                }
                _ => self.push_chunk(c, vec![new]),
            }
            return new;
        }
        if self.chunks[c][i].start > end {
            new_part(start, end);
            self.insert_at(c, i, new);
            return new;
        }
        // Merge the ranges from (c, i) on that start by `end` into the one at (c, i).
        let mut merged = SeqRange { start: start.min(self.chunks[c][i].start), end, bytes };
        let mut cursor = start;
        let (mut cc, mut ii) = (c, i);
        while let Some(&r) = self.chunks.get(cc).and_then(|ch| ch.get(ii)) {
            if r.start > end {
                break;
            }
            if r.start > cursor {
                new_part(cursor, r.start);
            }
            cursor = cursor.max(r.end);
            merged.end = merged.end.max(r.end);
            merged.bytes += r.bytes;
            ii += 1;
            if ii == self.chunks[cc].len() {
                (cc, ii) = (cc + 1, 0);
            }
        }
        if cursor < end {
            new_part(cursor, end);
        }
        self.chunks[c][i] = merged;
        self.remove_span(c, i + 1, cc, ii);
        self.refresh(c);
        merged
    }

    /// Inserts `r` at position `i` of chunk `c`, splitting a full chunk in two.
    fn insert_at(&mut self, mut c: usize, mut i: usize, r: SeqRange) {
        if self.chunks[c].len() == CHUNK {
            let upper = self.chunks[c].split_off(CHUNK / 2);
            self.push_chunk(c + 1, upper);
            self.refresh(c);
            if i > CHUNK / 2 {
                (c, i) = (c + 1, i - CHUNK / 2);
            }
        }
        self.chunks[c].insert(i, r);
        self.refresh(c);
    }

    /// Removes the ranges from position (c, i) up to, not including, (end_c, end_i), where
    /// (c, i - 1) holds a range that stays and (end_c, end_i) is a range that stays or the
    /// position past the last chunk: no chunk is left empty.
    fn remove_span(&mut self, c: usize, i: usize, end_c: usize, end_i: usize) {
        if c == end_c {
            // Most merges (a SACK block reported again, grown or not) absorb nothing: an empty
            // `drain` still builds and drops its iterator.
            if i < end_i {
                self.chunks[c].drain(i..end_i);
            }
            return;
        }
        self.chunks[c].truncate(i);
        if end_c < self.chunks.len() && end_i > 0 {
            self.chunks[end_c].drain(..end_i);
        }
        // A merge that ends at chunk `c`'s last range stops at the next chunk's start: no
        // chunk lies in between then.
        if end_c > c + 1 {
            self.chunks.drain(c + 1..end_c);
            self.last_ends.drain(c + 1..end_c);
        }
    }

    /// Removes the first range if it starts at `seq` (the receiver's next expected segment).
    pub fn pop_first_starting_at(&mut self, seq: u64) -> Option<SeqRange> {
        let first = self.chunks.front_mut()?;
        if first[0].start != seq {
            return None;
        }
        let r = first.remove(0);
        if first.is_empty() {
            self.remove_chunk(0);
        }
        Some(r)
    }

    /// Forgets everything below `seq`: ranges wholly below go, one straddling `seq` is trimmed
    /// (its byte count is then no longer meaningful; only the sender trims).
    #[inline]
    pub fn remove_below(&mut self, seq: u64) {
        if self.chunks.front().is_none_or(|c| c[0].start >= seq) {
            return; // the common case: every ACK asks, few find anything below
        }
        self.remove_from_front(seq);
    }

    /// [`SeqRanges::remove_below`] once something lies below `seq`.
    fn remove_from_front(&mut self, seq: u64) {
        while let Some(first) = self.chunks.front_mut() {
            if first[first.len() - 1].end <= seq {
                self.remove_chunk(0);
                continue;
            }
            let below = first.partition_point(|r| r.end <= seq);
            first.drain(..below);
            first[0].start = first[0].start.max(seq);
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(s: &SeqRanges) -> Vec<(u64, u64)> {
        s.iter().map(|r| (r.start, r.end)).collect()
    }

    fn insert(s: &mut SeqRanges, a: u64, b: u64) -> Vec<(u64, u64)> {
        let mut new = Vec::new();
        s.insert(a, b, 0, |x, y| new.push((x, y)));
        new
    }

    #[test]
    fn disjoint_inserts_stay_sorted() {
        let mut s = SeqRanges::new();
        assert_eq!(insert(&mut s, 10, 12), vec![(10, 12)]);
        assert_eq!(insert(&mut s, 2, 4), vec![(2, 4)]);
        assert_eq!(insert(&mut s, 6, 7), vec![(6, 7)]);
        assert_eq!(spans(&s), vec![(2, 4), (6, 7), (10, 12)]);
        assert_eq!(s.find(3).map(|r| r.start), Some(2));
        assert_eq!(s.find(4), None);
        assert_eq!(s.find(11).map(|r| r.end), Some(12));
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
        s.insert(3, 4, 100, |_, _| {});
        s.insert(5, 6, 50, |_, _| {});
        s.insert(4, 5, 10, |_, _| {});
        assert_eq!(
            (s.iter().count(), s.find(5)),
            (1, Some(SeqRange { start: 3, end: 6, bytes: 160 }))
        );
    }

    /// Against a model (the set of covered segments) over random inserts, trims and removals of
    /// the first island, in a window narrow enough that islands merge and touch all the time and
    /// wide enough to hold hundreds of them (chunks split and empty, merges cross their
    /// boundaries, and now and then one swallows whole chunks).
    #[test]
    fn random_inserts_and_removals_agree_with_a_set_of_segments() {
        use crate::rng::{Rng, StreamKind};
        use std::collections::BTreeSet;
        let mut rng = Rng::stream(3, StreamKind::FlowSetup, 0);
        let mut s = SeqRanges::new();
        let mut model: BTreeSet<u64> = BTreeSet::new(); // the covered segments
        let mut floor = 0;
        let mut most = 0;
        for step in 0..12_000 {
            let r = rng.next_u64();
            if r.is_multiple_of(100) {
                floor += r >> 8 & 15;
                s.remove_below(floor);
                model.retain(|&seq| seq >= floor);
            } else if r % 100 == 1 {
                // The receiver's way: the first island goes when the segment before it arrives.
                let first = model.first().copied();
                assert_eq!(s.pop_first_starting_at(first.map_or(0, |f| f + 1)), None);
                if let Some(f) = first {
                    let mut end = f;
                    while model.remove(&end) {
                        end += 1;
                    }
                    assert_eq!(
                        s.pop_first_starting_at(f).map(|x| (x.start, x.end)),
                        Some((f, end))
                    );
                }
            } else {
                let start = floor + (r >> 8) % 3_000;
                // Now and then a wide one (a large SACK block), which swallows whole chunks.
                let most_width = match r & 255 {
                    3 => 400,
                    _ if r & 7 == 0 => 9,
                    _ => 1,
                };
                let end = start + 1 + (r >> 20) % most_width;
                let mut new = Vec::new();
                s.insert(start, end, 7, |a, b| new.extend(a..b));
                let want: Vec<u64> = (start..end).filter(|q| !model.contains(q)).collect();
                assert_eq!(new, want, "step {step}: new parts of {start}..{end}");
                model.extend(start..end);
            }
            // The ranges are the maximal runs of covered segments.
            let mut runs: Vec<(u64, u64)> = Vec::new();
            for &q in &model {
                match runs.last_mut() {
                    Some(run) if run.1 == q => run.1 = q + 1,
                    _ => runs.push((q, q + 1)),
                }
            }
            assert_eq!(spans(&s), runs, "step {step}");
            most = most.max(runs.len());
            let probe = floor + (r >> 32) % 3_020;
            assert_eq!(
                s.find(probe).map(|x| (x.start, x.end)),
                runs.iter().copied().find(|&(a, b)| a <= probe && probe < b)
            );
        }
        assert!(most > 4 * CHUNK, "only {most} ranges at most");
    }

    /// Without trimming, a range holds the bytes of every insert that fell into it.
    #[test]
    fn merged_ranges_hold_the_bytes_of_all_their_inserts() {
        use crate::rng::{Rng, StreamKind};
        let mut rng = Rng::stream(4, StreamKind::FlowSetup, 0);
        let mut s = SeqRanges::new();
        let mut inserts: Vec<(u64, u64)> = Vec::new(); // (start, bytes)
        for _ in 0..3_000 {
            let r = rng.next_u64();
            let start = r % 5_000;
            let bytes = (r >> 32) % 1500;
            s.insert(start, start + 1 + (r >> 16) % 4, bytes, |_, _| {});
            inserts.push((start, bytes));
            let probe = s.find(start).expect("just inserted");
            let want: u64 = inserts
                .iter()
                .filter(|&&(a, _)| probe.start <= a && a < probe.end)
                .map(|&(_, b)| b)
                .sum();
            assert_eq!(probe.bytes, want);
        }
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
