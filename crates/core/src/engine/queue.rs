//! The pending-event queue: earliest time first, and among equal times the event scheduled
//! first (FIFO by insertion), so a run's event order depends only on the scenario.
//!
//! Times only grow: an event is never scheduled before the last one popped. That makes a radix
//! heap possible (Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms for the shortest path
//! problem", JACM 1990), here with 64-ary digits, like the levels of a hierarchical timing wheel
//! (Varghese and Lauck, "Hashed and hierarchical timing wheels", SOSP 1987): a time is read as
//! eleven 6-bit digits, and an entry waits in the slot of level `L`, digit `d` when the highest
//! digit in which its time differs from the last popped time `last` is digit `L`, and its own
//! digit there is `d`. Every entry of a lower level, or of a lower slot of the same level, is
//! due earlier, so the next event is in the lowest occupied slot of the lowest occupied level
//! (two `trailing_zeros`). Taking that slot advances `last` to its earliest time and moves its
//! other entries to lower levels; an entry is moved at most once per level it descends, and a
//! 10 ms delay is four 6-bit digits deep (a binary radix heap moved it up to 23 times).
//!
//! Ties are broken by an insertion counter `seq`. The entries due at `last` wait in `due`, in
//! decreasing `seq` order so that the next one is popped from the end: an entry scheduled at
//! `last` (rare: zero-delay steps) has the largest `seq` so far and goes to the front, and those
//! a slot brings (`due` is empty then) are sorted once.

use super::Event;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: u64,
    seq: u64,
    event: Event,
}

/// Bits per digit: 64 slots a level, one `u64` occupancy word.
const DIGIT_BITS: u32 = 6;
const SLOTS: usize = 1 << DIGIT_BITS;
/// Digits in a 64-bit time.
const LEVELS: usize = 64usize.div_ceil(DIGIT_BITS as usize);

/// Earliest-first event queue with FIFO ties.
pub struct EventQueue {
    /// Entries due at `last`, the next one last (decreasing `seq`).
    due: Vec<Entry>,
    /// `slots[L * SLOTS + d]`: entries whose time first differs from `last` in digit `L`, where
    /// their digit is `d`.
    slots: Vec<Vec<Entry>>,
    /// Bit `d` of `occupied[L]` set when slot `(L, d)` is not empty.
    occupied: [u64; LEVELS],
    /// Bit `L` set when level `L` has an occupied slot.
    levels: u16,
    /// Time of the entry popped last; every queued time is at least this.
    last: u64,
    len: usize,
    seq: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            due: Vec::new(),
            slots: vec![Vec::new(); LEVELS * SLOTS],
            occupied: [0; LEVELS],
            levels: 0,
            last: 0,
            len: 0,
            seq: 0,
        }
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

    /// Puts an entry due after `last` into its slot.
    #[inline]
    fn file(&mut self, entry: Entry) {
        debug_assert!(entry.time > self.last);
        let highest_bit = 63 - (entry.time ^ self.last).leading_zeros();
        let level = highest_bit / DIGIT_BITS;
        let digit = (entry.time >> (level * DIGIT_BITS)) as usize % SLOTS;
        self.slots[level as usize * SLOTS + digit].push(entry);
        self.occupied[level as usize] |= 1 << digit;
        self.levels |= 1 << level;
    }

    /// With `due` empty, advances `last` to the earliest queued time and moves every entry due
    /// then into `due`.
    fn refill_due(&mut self) {
        if self.levels == 0 {
            return;
        }
        let level = self.levels.trailing_zeros() as usize;
        let digit = self.occupied[level].trailing_zeros() as usize;
        self.occupied[level] &= !(1 << digit);
        if self.occupied[level] == 0 {
            self.levels &= !(1 << level);
        }
        let slot = &mut self.slots[level * SLOTS + digit];
        if slot.len() == 1 {
            // The common case: the slot holds the next event alone.
            let e = slot.pop().expect("one entry");
            self.last = e.time;
            self.due.push(e);
            return;
        }
        let mut slot = std::mem::take(slot);
        if level == 0 {
            // Digit 0 is the last one: every entry of the slot is due at the same instant.
            self.last = slot[0].time;
            self.due.append(&mut slot);
        } else {
            self.last = slot.iter().map(|e| e.time).min().expect("occupied slot");
            // The slot's entries agree with the new `last` in every digit from `level` up, so
            // each is either due now or goes to a lower level; other slots keep their place.
            for e in slot.drain(..) {
                if e.time == self.last {
                    self.due.push(e);
                } else {
                    self.file(e);
                }
            }
        }
        self.slots[level * SLOTS + digit] = slot; // keep the allocation
        if self.due.len() > 1 {
            self.due.sort_unstable_by_key(|e| std::cmp::Reverse(e.seq));
        }
    }
}
