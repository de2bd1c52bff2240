//! The pending-event queue: earliest time first, and among equal times the event scheduled
//! first (FIFO by insertion), so a run's event order depends only on the scenario.
//!
//! Each entry is keyed by one `u128`, `time << 64 | seq`, where `seq` counts insertions, so keys
//! are unique and their order is `(time, seq)`. Keys only grow: an event is never scheduled
//! before the last one popped, and `seq` increases. That makes a radix heap possible (Ahuja,
//! Mehlhorn, Orlin and Tarjan, "Faster algorithms for the shortest path problem", JACM 1990):
//! bucket `b` holds the entries whose key differs from the last popped key first at bit `b`. A
//! push is one `leading_zeros`; a pop takes the lowest non-empty bucket, finds its minimum and
//! spreads the rest into lower buckets, so each entry is moved a few times over its life instead
//! of being compared at every level of a heap on every pop. On B1 the binary heap this replaces
//! spent 40% of the run in `pop`.

use super::Event;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug)]
struct Entry {
    /// `time` in the high 64 bits, the insertion counter in the low 64.
    key: u128,
    event: Event,
}

impl Entry {
    fn time(&self) -> SimTime {
        SimTime::from_nanos((self.key >> 64) as u64)
    }
}

/// Earliest-first event queue with FIFO ties.
pub struct EventQueue {
    /// The next entry to pop once found (its key is `last`).
    next: Option<Entry>,
    /// `buckets[b]`: entries whose key differs from `last` first at bit `b`.
    buckets: Vec<Vec<Entry>>,
    /// Bit `b` set when `buckets[b]` is not empty.
    occupied: u128,
    /// Key of the entry popped or found last; every queued key is larger.
    last: u128,
    len: usize,
    seq: u64,
    now: SimTime,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue { next: None, buckets: vec![Vec::new(); 128], occupied: 0, last: 0, len: 0, seq: 0, now: SimTime::ZERO }
    }
}

impl EventQueue {
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        debug_assert!(time >= self.now, "event scheduled in the past: {time} < {}", self.now);
        self.seq += 1;
        let entry = Entry { key: ((time.as_nanos() as u128) << 64) | self.seq as u128, event };
        self.len += 1;
        self.file(entry);
    }

    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.find_next();
        let e = self.next.take()?;
        self.len -= 1;
        debug_assert!(e.time() >= self.now);
        self.now = e.time();
        Some((self.now, e.event))
    }

    /// Time of the next event (finding it is the work a pop would do anyway).
    pub fn peek_time(&mut self) -> Option<SimTime> {
        self.find_next();
        self.next.as_ref().map(Entry::time)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Puts an entry with a key above `last` into its bucket.
    fn file(&mut self, entry: Entry) {
        debug_assert!(entry.key > self.last);
        let b = 127 - (entry.key ^ self.last).leading_zeros() as usize;
        self.buckets[b].push(entry);
        self.occupied |= 1 << b;
    }

    /// Makes `next` the smallest queued entry, if there is one.
    fn find_next(&mut self) {
        if self.next.is_some() || self.occupied == 0 {
            return;
        }
        let b = self.occupied.trailing_zeros() as usize;
        self.occupied &= !(1 << b);
        let mut bucket = std::mem::take(&mut self.buckets[b]);
        let min = bucket.iter().enumerate().min_by_key(|(_, e)| e.key).map(|(i, _)| i).expect("occupied bucket");
        let next = bucket.swap_remove(min);
        // Every other entry of the bucket agrees with `next` above bit `b` and at it, so it now
        // first differs from it below `b`; entries of higher buckets keep their place.
        self.last = next.key;
        self.next = Some(next);
        for e in bucket.drain(..) {
            self.file(e);
        }
        self.buckets[b] = bucket; // keep the allocation
    }
}
