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
//! A slot is a list threaded through one pool of entries (its head an index), not a vector of
//! its own: 704 vectors scattered over the heap missed the cache on most pushes, while the heads
//! (3 KB) and the pool (a few hundred entries in a dumbbell) stay in the first-level cache.
//!
//! Ties are broken by an insertion counter `seq`. The entries due at `last` wait in `due`, in
//! decreasing `seq` order so that the next one is popped from the end: an entry scheduled at
//! `last` (rare: zero-delay steps) has the largest `seq` so far and goes to the front, and those
//! a slot brings (`due` is empty then) are sorted once. A slot holding the next event alone (the
//! common case) hands it over without passing through `due`, and the event loop asks for the
//! next event due by its end in one call, which puts an event past the end back in `due`.

use super::Event;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: u64,
    seq: u64,
    event: Event,
}

/// An entry in the pool, and the next entry of its slot's list: half a cache line, aligned, so
/// that walking a slot's list loads one line per entry. (An `Entry` field would be padded to 32
/// bytes and the node to 40, which straddled two lines every other node.)
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
struct Node {
    time: u64,
    seq: u64,
    event: Event,
    next: u32,
}

impl Node {
    fn entry(&self) -> Entry {
        Entry { time: self.time, seq: self.seq, event: self.event }
    }
}

/// End of a slot's list.
const NIL: u32 = u32::MAX;

/// Bits per digit: 64 slots a level, one `u64` occupancy word.
const DIGIT_BITS: u32 = 6;
const SLOTS: usize = 1 << DIGIT_BITS;
/// Digits in a 64-bit time.
const LEVELS: usize = 64usize.div_ceil(DIGIT_BITS as usize);

/// Earliest-first event queue with FIFO ties.
pub struct EventQueue {
    /// Entries due at `last`, the next one last (decreasing `seq`).
    due: Vec<Entry>,
    /// `heads[L][d]`: the first pool node of the slot holding the entries whose time first
    /// differs from `last` in digit `L`, where their digit is `d` (in no order). An array, so
    /// that a digit (masked to 6 bits) needs no bounds check.
    heads: Box<[[u32; SLOTS]; LEVELS]>,
    /// Every filed entry, and free nodes.
    pool: Vec<Node>,
    /// Free nodes of `pool`, threaded through `next`.
    free: u32,
    /// Bit `d` of `occupied[L]` set when slot `(L, d)` is not empty.
    occupied: [u64; LEVELS],
    /// Bit `L` set when level `L` has an occupied slot.
    levels: u16,
    /// Time of the entry popped last; every queued time is at least this.
    last: u64,
    /// Entries scheduled (the last `seq` given) and popped: their difference is the length.
    /// `schedule` writes only the first and `pop` only the second: kept as one `len`, the two
    /// updates were fused into one 16-byte read of `seq` and `len` that waited on `pop`'s 8-byte
    /// write still in the store buffer (a failed store-to-load forward on every schedule).
    seq: u64,
    popped: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            due: Vec::new(),
            heads: Box::new([[NIL; SLOTS]; LEVELS]),
            pool: Vec::new(),
            free: NIL,
            occupied: [0; LEVELS],
            levels: 0,
            last: 0,
            seq: 0,
            popped: 0,
        }
    }
}

impl EventQueue {
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        let time = time.as_nanos();
        debug_assert!(
            time >= self.last,
            "event scheduled in the past: {time} ns < {} ns",
            self.last
        );
        self.seq += 1;
        let entry = Entry { time, seq: self.seq, event };
        if time == self.last {
            self.due.insert(0, entry); // the newest seq: due after every other
        } else {
            let node = self.alloc(entry);
            self.file(node);
        }
    }

    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.pop_until(SimTime::MAX)
    }

    /// The next event if it is due by `end` (inclusive); otherwise it stays queued.
    #[inline]
    pub fn pop_until(&mut self, end: SimTime) -> Option<(SimTime, Event)> {
        let e = match self.due.pop() {
            Some(e) => e,
            None => self.take_next()?,
        };
        if e.time > end.as_nanos() {
            self.due.push(e); // back where it was: the next entry is `due`'s last
            return None;
        }
        self.popped += 1;
        Some((SimTime::from_nanos(e.time), e.event))
    }

    pub fn len(&self) -> usize {
        (self.seq - self.popped) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.seq == self.popped
    }

    /// Pool node `i`. Every index this queue holds (a slot's head, a node's `next`, the free
    /// list) was handed out by [`EventQueue::alloc`] as an index into `pool`, which never
    /// shrinks: the bounds check `pool[i]` would make cannot fail, and it ran several times per
    /// event.
    #[inline]
    fn node(&self, i: u32) -> &Node {
        debug_assert!((i as usize) < self.pool.len());
        // SAFETY: `i` came from `alloc` (see above), so it is below `pool.len()`.
        unsafe { self.pool.get_unchecked(i as usize) }
    }

    #[inline]
    fn node_mut(&mut self, i: u32) -> &mut Node {
        debug_assert!((i as usize) < self.pool.len());
        // SAFETY: as in `node`.
        unsafe { self.pool.get_unchecked_mut(i as usize) }
    }

    /// A pool node holding `entry`.
    #[inline]
    fn alloc(&mut self, entry: Entry) -> u32 {
        let node = Node { time: entry.time, seq: entry.seq, event: entry.event, next: NIL };
        if self.free == NIL {
            self.pool.push(node);
            (self.pool.len() - 1) as u32
        } else {
            let i = self.free;
            self.free = self.node(i).next;
            *self.node_mut(i) = node;
            i
        }
    }

    #[inline]
    fn release(&mut self, i: u32) {
        self.node_mut(i).next = self.free;
        self.free = i;
    }

    /// Puts a pool node whose time is after `last` into its slot.
    #[inline]
    fn file(&mut self, i: u32) {
        let time = self.node(i).time;
        debug_assert!(time > self.last);
        let highest_bit = 63 - (time ^ self.last).leading_zeros();
        let level = highest_bit / DIGIT_BITS;
        let digit = (time >> (level * DIGIT_BITS)) as usize % SLOTS;
        let head = &mut self.heads[level as usize][digit];
        let next = std::mem::replace(head, i);
        self.node_mut(i).next = next;
        self.occupied[level as usize] |= 1 << digit;
        self.levels |= 1 << level;
    }

    /// With `due` empty, advances `last` to the earliest queued time and takes the first entry
    /// due then; the others due then go to `due`.
    fn take_next(&mut self) -> Option<Entry> {
        if self.levels == 0 {
            return None;
        }
        let level = self.levels.trailing_zeros() as usize;
        let digit = self.occupied[level].trailing_zeros() as usize;
        self.occupied[level] &= !(1 << digit);
        if self.occupied[level] == 0 {
            self.levels &= !(1 << level);
        }
        let head = std::mem::replace(&mut self.heads[level][digit], NIL);
        let first = *self.node(head);
        if first.next == NIL {
            // The common case: the slot holds the next event alone.
            self.last = first.time;
            self.release(head);
            return Some(first.entry());
        }
        // Digit 0 is the last one, so a level-0 slot holds one instant; otherwise its entries
        // agree with its earliest time in every digit from `level` up, so each is either due
        // then or goes to a lower level, and other slots keep their place.
        let mut earliest = first.time;
        let mut i = first.next;
        while i != NIL {
            earliest = earliest.min(self.node(i).time);
            i = self.node(i).next;
        }
        self.last = earliest;
        let mut i = head;
        while i != NIL {
            let node = *self.node(i);
            if node.time == earliest {
                self.due.push(node.entry());
                self.release(i);
            } else {
                self.file(i);
            }
            i = node.next;
        }
        if self.due.len() > 1 {
            self.due.sort_unstable_by_key(|e| std::cmp::Reverse(e.seq));
        }
        self.due.pop()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::LinkId;

    #[test]
    fn a_pool_node_is_half_a_cache_line_and_never_straddles_two() {
        assert_eq!((std::mem::size_of::<Node>(), std::mem::align_of::<Node>()), (32, 32));
    }

    #[test]
    fn equal_times_pop_in_insertion_order() {
        let mut q = EventQueue::default();
        q.schedule(SimTime::from_millis(2), Event::Sample);
        q.schedule(SimTime::from_millis(1), Event::Arrive(LinkId(7)));
        q.schedule(SimTime::from_millis(1), Event::WarmupEnd);
        q.schedule(SimTime::from_millis(1), Event::Arrive(LinkId(1)));
        let order: Vec<Event> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(
            order,
            [Event::Arrive(LinkId(7)), Event::WarmupEnd, Event::Arrive(LinkId(1)), Event::Sample]
        );
    }

    /// The queue against a reference model (a list sorted by time, stable for ties) over a long
    /// random mix of schedules and pops with many simultaneous events, as the engine produces
    /// them: each pop may schedule new events at or after the popped time.
    #[test]
    fn simultaneous_events_stay_fifo_under_interleaved_schedules_and_pops() {
        use crate::rng::{Rng, StreamKind};
        let mut rng = Rng::stream(14, StreamKind::FlowSetup, 0);
        let mut q = EventQueue::default();
        let mut model: Vec<(SimTime, u32)> = Vec::new(); // (time, label) in insertion order
        let mut label = 0u32;
        let mut now = 0u64;
        let mut popped = 0;
        for _ in 0..200_000 {
            let r = rng.next_u64();
            if r % 5 < 2 || model.is_empty() {
                // Few distinct offsets, so most events tie with others; some far in the future.
                let offset = match (r >> 8) % 8 {
                    0..=3 => 0,
                    4 => (r >> 16) % 3,
                    5 => (r >> 16) % 1000,
                    6 => (r >> 16) % 50_000_000, // up to 50 ms: every level to the fifth
                    _ => (1 << 40) | ((r >> 16) % 7),
                };
                let t = SimTime::from_nanos(now + offset);
                q.schedule(t, Event::Arrive(LinkId(label)));
                model.push((t, label));
                label += 1;
            } else {
                // The model's next event: the earliest time, and among equals the first inserted.
                let i = (0..model.len()).min_by_key(|&i| (model[i].0, i)).unwrap();
                let (t, want) = model.remove(i);
                if t.as_nanos() > now && (r >> 8).is_multiple_of(4) {
                    // As at the end of a run: an event past the end stays queued, in its place.
                    assert_eq!(
                        q.pop_until(SimTime::from_nanos(t.as_nanos() - 1)),
                        None,
                        "pop {popped}"
                    );
                    assert_eq!(q.len(), model.len() + 1);
                }
                assert_eq!(q.pop_until(t), Some((t, Event::Arrive(LinkId(want)))), "pop {popped}");
                assert_eq!(q.len(), model.len());
                now = t.as_nanos();
                popped += 1;
            }
        }
        assert!(popped > 50_000);
    }
}
