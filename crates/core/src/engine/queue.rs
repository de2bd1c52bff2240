//! The pending-event queue: earliest time first, and among equal times the event scheduled
//! first (FIFO by insertion), so a run's event order depends only on the scenario.
//!
//! Times only grow: an event is never scheduled before the last one popped. That makes a radix
//! heap possible (Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms for the shortest path
//! problem", JACM 1990): bucket `b + 1` holds the entries whose time differs from the last
//! popped time `last` first at bit `b`; those due at `last` itself wait apart. A push is one
//! `leading_zeros`; a pop takes the lowest non-empty bucket, finds its minimum and spreads the
//! rest into lower buckets, so each entry is moved a few times over its life instead of being
//! compared at every level of a heap on every pop.
//!
//! Ties are broken by an insertion counter `seq`. The entries due at `last` wait in `due`, in
//! decreasing `seq` order so that the next one is popped from the end: an entry scheduled at
//! `last` (rare: zero-delay steps) has the largest `seq` so far and goes to the front, and those
//! a redistribution brings (`due` is empty then) are sorted once. Keys are 64-bit times, not
//! `(time, seq)` pairs, so the bucket arithmetic stays in one machine word.

use super::Event;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: u64,
    seq: u64,
    event: Event,
}

/// Bucket count: bucket 0 for `time == last`, buckets 1..=64 by the highest differing bit.
const BUCKETS: usize = 65;

/// Earliest-first event queue with FIFO ties.
pub struct EventQueue {
    /// Entries due at `last`, the next one last (decreasing `seq`).
    due: Vec<Entry>,
    /// `buckets[b]` for `b >= 1`: entries whose time differs from `last` first at bit `b - 1`.
    /// `buckets[0]` is unused (see `due`).
    buckets: Vec<Vec<Entry>>,
    /// Bit `b` set when `buckets[b]` is not empty (`b >= 1`).
    occupied: u128,
    /// Time of the entry popped last; every queued time is at least this.
    last: u64,
    len: usize,
    seq: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue { due: Vec::new(), buckets: vec![Vec::new(); BUCKETS], occupied: 0, last: 0, len: 0, seq: 0 }
    }
}

impl EventQueue {
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        let time = time.as_nanos();
        debug_assert!(time >= self.last, "event scheduled in the past: {time} ns < {} ns", self.last);
        self.seq += 1;
        self.len += 1;
        let entry = Entry { time, seq: self.seq, event };
        if time == self.last {
            self.due.insert(0, entry); // the newest seq: due after every other
        } else {
            self.file(entry);
        }
    }

    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        if self.due.is_empty() {
            self.refill_due();
        }
        let e = self.due.pop()?;
        self.len -= 1;
        Some((SimTime::from_nanos(e.time), e.event))
    }

    /// Time of the next event (finding it is the work a pop would do anyway).
    pub fn peek_time(&mut self) -> Option<SimTime> {
        if self.due.is_empty() {
            self.refill_due();
        }
        self.due.last().map(|e| SimTime::from_nanos(e.time))
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Puts an entry due after `last` into its bucket.
    #[inline]
    fn file(&mut self, entry: Entry) {
        debug_assert!(entry.time > self.last);
        let b = 64 - (entry.time ^ self.last).leading_zeros() as usize;
        self.buckets[b].push(entry);
        self.occupied |= 1 << b;
    }

    /// With `due` empty, advances `last` to the earliest queued time and moves every entry due
    /// then into `due`.
    fn refill_due(&mut self) {
        if self.occupied == 0 {
            return;
        }
        let b = self.occupied.trailing_zeros() as usize;
        self.occupied &= !(1 << b);
        let mut bucket = std::mem::take(&mut self.buckets[b]);
        self.last = bucket.iter().map(|e| e.time).min().expect("occupied bucket");
        // Every entry of the bucket agrees with the new `last` above bit `b - 1` and at it, so it
        // is either due now or first differs from `last` below that bit; higher buckets keep
        // their place.
        for e in bucket.drain(..) {
            if e.time == self.last {
                self.due.push(e);
            } else {
                self.file(e);
            }
        }
        self.buckets[b] = bucket; // keep the allocation
        if self.due.len() > 1 {
            self.due.sort_unstable_by_key(|e| std::cmp::Reverse(e.seq));
        }
    }
}
