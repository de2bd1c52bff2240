//! A FIFO of small `Copy` values in a ring whose capacity is a power of two, for the queues a
//! packet passes through on every hop (a link's pipe and buffer): an index wraps with a mask,
//! where `VecDeque` compares and subtracts, and a push checks one length against the capacity.

/// First capacity of a ring that receives a value.
const MIN_CAPACITY: usize = 8;

#[derive(Clone, Debug)]
pub struct Ring<T> {
    /// The storage: every slot holds a value (those outside `head..head + len` are stale), and
    /// its length is 0 or a power of two.
    buf: Vec<T>,
    head: usize,
    len: usize,
}

impl<T> Default for Ring<T> {
    fn default() -> Self {
        Ring { buf: Vec::new(), head: 0, len: 0 }
    }
}

impl<T: Copy> Ring<T> {
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    fn slot(&self, i: usize) -> usize {
        (self.head + i) & (self.buf.len() - 1)
    }

    /// The value in slot `i`, a slot index from [`Ring::slot`] of a ring with storage. The
    /// storage's length is then a power of two, so the mask keeps `i` within it: the bounds
    /// check `buf[i]` would make cannot fail, and it sat on every hop (two to four per packet).
    #[inline]
    fn at(&self, i: usize) -> &T {
        debug_assert!(i < self.buf.len());
        // SAFETY: `i` is masked by `buf.len() - 1`, and `buf.len()` is a power of two (`grow`).
        unsafe { self.buf.get_unchecked(i) }
    }

    #[inline]
    fn at_mut(&mut self, i: usize) -> &mut T {
        debug_assert!(i < self.buf.len());
        // SAFETY: as in `at`.
        unsafe { self.buf.get_unchecked_mut(i) }
    }

    #[inline]
    pub fn push_back(&mut self, v: T) {
        if self.len == self.buf.len() {
            self.grow(v);
        }
        let i = self.slot(self.len);
        *self.at_mut(i) = v;
        self.len += 1;
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let v = *self.at(self.head);
        self.head = self.slot(1);
        self.len -= 1;
        Some(v)
    }

    /// Asks the CPU to load the slot `ahead` places past the back: where a push will write a few
    /// pushes from now (a long ring's back was last written a whole lap ago, so it has left the
    /// cache, and stores that wait for their line hold up the next ones).
    #[inline]
    pub fn prefetch_past_back(&self, ahead: usize) {
        self.prefetch_slot(self.len + ahead);
    }

    /// Asks the CPU to load the value `ahead` places behind the front, read a few pops from now
    /// (written long ago, at a long ring's back). A stale slot when fewer values wait: a wasted
    /// hint.
    #[inline]
    pub fn prefetch_from_front(&self, ahead: usize) {
        self.prefetch_slot(ahead);
    }

    /// The hint for slot `i` from the front, without a test or a bounds check: the mask keeps
    /// the slot within a ring's storage, and a ring without storage (its mask wraps to every
    /// bit) hints a meaningless address, which a hint may (`net::prefetch`).
    #[inline]
    fn prefetch_slot(&self, i: usize) {
        let mask = self.buf.len().wrapping_sub(1);
        super::prefetch::prefetch_element(self.buf.as_ptr(), (self.head + i) & mask);
    }

    /// The `i`-th value from the front.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        (i < self.len).then(|| self.at(self.slot(i)))
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        self.get(0)
    }

    /// The values from front to back.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len).map(|i| &self.buf[self.slot(i)])
    }

    /// Doubles the capacity, the values kept in order from slot 0 (`fill` fills the new slots).
    #[cold]
    fn grow(&mut self, fill: T) {
        let capacity = (self.buf.len() * 2).max(MIN_CAPACITY);
        let mut buf = Vec::with_capacity(capacity);
        buf.extend(self.iter().copied());
        buf.resize(capacity, fill);
        self.buf = buf;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn behaves_as_a_fifo_across_wraps_and_growth() {
        // Against VecDeque over an interleaving that wraps the ring and grows it while wrapped.
        let (mut ring, mut model) = (Ring::default(), VecDeque::new());
        let mut next = 0u32;
        for round in 0..200u32 {
            for _ in 0..(round % 7 + 1) {
                ring.push_back(next);
                model.push_back(next);
                next += 1;
            }
            for _ in 0..(round % 5) {
                assert_eq!(ring.pop_front(), model.pop_front());
            }
            assert_eq!(ring.len(), model.len());
            assert_eq!(ring.front(), model.front());
            assert_eq!(ring.len().checked_sub(1).and_then(|i| ring.get(i)), model.back());
            assert_eq!(ring.get(3), model.get(3));
            assert!(ring.iter().eq(model.iter()));
        }
        while let Some(v) = model.pop_front() {
            assert_eq!(ring.pop_front(), Some(v));
        }
        assert_eq!(ring.pop_front(), None);
        assert!(ring.is_empty() && ring.front().is_none());
    }

    #[test]
    fn a_prefetch_hint_is_harmless_on_an_empty_or_full_ring() {
        let empty = Ring::<u32>::default(); // no storage yet: a meaningless address
        empty.prefetch_past_back(8);
        empty.prefetch_from_front(8);
        let mut ring = Ring::default();
        (0..8u32).for_each(|v| ring.push_back(v));
        ring.prefetch_past_back(8);
        ring.prefetch_from_front(100); // past the values: a stale slot
        assert!(ring.iter().copied().eq(0..8));
    }
}
