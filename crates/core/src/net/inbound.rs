//! The packets on their way to a fed link's input (`net::feeder`), not yet admitted: one FIFO per
//! feeder, merged by the instant each packet reaches the input.
//!
//! A feeder hands a packet over when it admits it, long before the packet reaches the router at
//! its far end, so every feeder's packets come in the order they will arrive (a link is FIFO
//! and never lets a packet overtake the one before it). The merge of those orders is kept in a
//! binary min-heap of the feeders' fronts, keyed by arrival instant and then by hand-over order,
//! so simultaneous arrivals enter in the order their feeders admitted them: a router fed by a
//! hundred access links pays a few comparisons per packet, not a scan of its feeders.
//!
//! An entry carries the packet's [`HopView`]: the link admits it without reading the packet
//! slab, whose entries have left the cache by then (a feeder's propagation delay ago).

use crate::net::packet::{HopView, PktId};
use crate::net::ring::Ring;
use crate::time::SimTime;

/// A packet handed over by a feeder: when it reaches the link's input, its place in the order
/// of hand-overs (to break ties between feeders), and what admission reads of it. Aligned to
/// its 32 bytes, so that it lies in one cache line (one hint loads it, `net::prefetch`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(align(32))]
pub struct Incoming {
    pub at: SimTime,
    /// Hand-over counter, wrapping: only packets in flight towards one link at the same time are
    /// compared, far fewer than 2^31 of them.
    pub seq: u32,
    pub id: PktId,
    pub hop: HopView,
}

/// A feeder's front in the heap: its arrival instant and hand-over number, and the feeder.
#[derive(Clone, Copy, Debug)]
struct Front {
    at: SimTime,
    seq: u32,
    feeder: u32,
}

impl Front {
    /// Comes before `other`: earlier, or at the same instant handed over first.
    #[inline]
    fn before(&self, other: &Front) -> bool {
        self.at < other.at || (self.at == other.at && (self.seq.wrapping_sub(other.seq) as i32) < 0)
    }
}

/// How far ahead a feeder's FIFO is loaded into the cache (entries of 32 bytes: two lines), as a
/// link's pipe is: at the front, where the next packets to admit were written a propagation
/// delay ago, and past the back, where the next hand-overs write over entries a lap old.
const PREFETCH_AHEAD: usize = 4;

/// The merged inbound queues of one link, one per feeder (`feeder` is the feeder's place in
/// the link's list, [`crate::net::feeder::Feeders`]).
/// The count comes first (`repr(C)`): whether anything waits is read at every admission onto a
/// fed link, from the line of the link that holds its admission counters (`net::link`).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct Inbound {
    len: usize,
    queues: Vec<Ring<Incoming>>,
    /// The fronts of the non-empty queues, a binary min-heap by [`Front::before`].
    heap: Vec<Front>,
}

impl Inbound {
    /// Empty queues for `feeders` feeders.
    pub fn new(feeders: usize) -> Self {
        Inbound {
            len: 0,
            queues: vec![Ring::default(); feeders],
            heap: Vec::with_capacity(feeders),
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Packets waiting, over all feeders.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Feeder `feeder` hands over a packet; it reaches the input no earlier than the last one
    /// that feeder handed over.
    #[inline]
    pub fn push(&mut self, feeder: u32, p: Incoming) {
        let q = &mut self.queues[feeder as usize];
        debug_assert!(
            q.len().checked_sub(1).and_then(|i| q.get(i)).is_none_or(|last| last.at <= p.at),
            "feeder {feeder} handed over a packet out of order"
        );
        q.push_back(p);
        q.prefetch_past_back(PREFETCH_AHEAD);
        self.len += 1;
        if q.len() == 1 {
            self.sift_up(Front { at: p.at, seq: p.seq, feeder });
        }
    }

    /// When the next packet reaches the input (the earliest over all feeders).
    #[inline]
    pub fn next_at(&self) -> Option<SimTime> {
        self.heap.first().map(|f| f.at)
    }

    /// The next packet if it reaches the input before `until`.
    #[inline]
    pub fn pop_before(&mut self, until: SimTime) -> Option<Incoming> {
        let top = *self.heap.first()?;
        if top.at >= until {
            return None;
        }
        debug_assert!((top.feeder as usize) < self.queues.len());
        // SAFETY: every front in the heap names a feeder that `push` indexed `queues` with (this
        // method only moves fronts, or renews one with its own feeder), and `queues` keeps its
        // length from `new` on: the bounds check this skips, on every packet a fed link admits,
        // cannot fail.
        let q = unsafe { self.queues.get_unchecked_mut(top.feeder as usize) };
        let p = q.pop_front().expect("a feeder in the heap has a packet");
        q.prefetch_from_front(PREFETCH_AHEAD);
        self.len -= 1;
        match q.front().map(|next| Front { at: next.at, seq: next.seq, feeder: top.feeder }) {
            Some(front) => self.sift_down(front),
            None => {
                let last = self.heap.pop().expect("not empty");
                if !self.heap.is_empty() {
                    self.sift_down(last);
                }
            }
        }
        Some(p)
    }

    /// The packets waiting, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &Incoming> + '_ {
        self.queues.iter().flat_map(|q| q.iter())
    }

    /// Adds `f` at the heap's end and moves it up to where it belongs (held in registers, as in
    /// [`Inbound::sift_down`]).
    #[inline]
    fn sift_up(&mut self, f: Front) {
        let mut i = self.heap.len();
        self.heap.push(f);
        while i > 0 {
            let parent = (i - 1) / 2;
            if !f.before(&self.heap[parent]) {
                break;
            }
            self.heap[i] = self.heap[parent];
            i = parent;
        }
        self.heap[i] = f;
    }

    /// Puts `f` in the root's place and moves it down to where it belongs. It is passed in
    /// registers, not stored at the root first: reading back at once what two narrower stores
    /// had just written waited for them to reach the cache (a failed store-to-load forward).
    #[inline]
    fn sift_down(&mut self, f: Front) {
        let n = self.heap.len();
        let mut i = 0;
        loop {
            let left = 2 * i + 1;
            if left >= n {
                break;
            }
            let right = left + 1;
            let child =
                if right < n && self.heap[right].before(&self.heap[left]) { right } else { left };
            if !self.heap[child].before(&f) {
                break;
            }
            self.heap[i] = self.heap[child];
            i = child;
        }
        self.heap[i] = f;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{FlowId, NodeId};
    use crate::rng::{Rng, StreamKind};

    fn hop(flow: u32) -> HopView {
        HopView { flow: FlowId(flow), dst: NodeId(0), size: 1500, ect: false, to_receiver: true }
    }

    #[test]
    fn an_entry_fills_half_a_cache_line() {
        assert_eq!(
            (std::mem::size_of::<Incoming>(), std::mem::align_of::<Incoming>()),
            (32, 32),
            "one line, one hint"
        );
    }

    /// Against a model (every waiting packet in one list, the next one the earliest, ties to the
    /// first handed over) over a random mix of hand-overs from many feeders and pops, with many
    /// simultaneous arrivals and hand-over numbers that wrap.
    #[test]
    fn packets_leave_in_arrival_order_and_ties_in_hand_over_order() {
        let mut rng = Rng::stream(3, StreamKind::FlowSetup, 0);
        let feeders = 37;
        let mut inbound = Inbound::new(feeders);
        let mut model: Vec<Incoming> = Vec::new();
        let mut last_at = vec![0u64; feeders];
        let mut seq = u32::MAX - 5_000; // wraps during the test
        let mut now = 0u64;
        let mut popped = 0;
        for step in 0..100_000u32 {
            let r = rng.next_u64();
            if !r.is_multiple_of(3) {
                let f = (r >> 8) as usize % feeders;
                // A feeder's packets arrive in order; different feeders' often at the same instant.
                let at = last_at[f].max(now) + (r >> 20) % 4 * 1_000;
                last_at[f] = at;
                let p = Incoming {
                    at: SimTime::from_nanos(at),
                    seq,
                    id: PktId(step),
                    hop: hop(f as u32),
                };
                seq = seq.wrapping_add(1);
                inbound.push(f as u32, p);
                model.push(p);
            } else {
                let until = SimTime::from_nanos(now + (r >> 8) % 3_000);
                let next = (0..model.len())
                    .filter(|&i| model[i].at < until)
                    .min_by_key(|&i| (model[i].at, i));
                let want = next.map(|i| model.remove(i));
                assert_eq!(inbound.pop_before(until), want, "step {step}");
                if let Some(p) = want {
                    now = p.at.as_nanos();
                    popped += 1;
                }
            }
            assert_eq!(inbound.len(), model.len());
            assert_eq!(inbound.next_at(), model.iter().map(|p| p.at).min());
        }
        assert!(popped > 20_000, "{popped}");
    }
}
