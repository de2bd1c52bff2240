//! Ack Vectors (RFC 4340 §11.4): the run-length encoded record of which packets arrived, kept by
//! a CCID 2 receiver and carried on its acknowledgements.
//!
//! ```text
//! byte = State (2 bits) | Run Length (6 bits)      State 0 = received, 3 = not yet received
//! a byte describes Run Length + 1 consecutive packets; the first byte ends at the
//! Acknowledgement Number and the vector runs backwards from there           (§11.4)
//! the receiver forgets what precedes the Acknowledgement Number of one of its
//! Ack Vectors once the sender has acknowledged that acknowledgement          (§11.4.2)
//! ```
//!
//! The receiver keeps the full vector ([`AckVectorRecord`], runs from the oldest packet not yet
//! known to the sender to the newest) and sizes its option from the full encoding; the packet
//! carries the newest `ACKVEC_INLINE` bytes of it inline (`wire::dccp::AckVector`), which is what a sender
//! needs: each packet's arrival is reported by the acknowledgement that follows it, and older
//! bytes only repeat what earlier acknowledgements said.
//!
//! Deviations: ECN-marked state (1) is never produced (no ECN in ccarena's DCCP); a packet
//! arriving out of order inside the recorded range is marked received (FIFO paths make this
//! rare) but the run list is not re-merged.

use crate::wire::dccp::{
    AckVector, ACKVEC_NOT_RECEIVED as NOT_RECEIVED, ACKVEC_RECEIVED as RECEIVED,
    ACKVEC_RUN_MAX as RUN_MAX,
};
use std::collections::VecDeque;

/// A run of packets in one state, in ascending order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    state: u8,
    len: u64,
}

fn bytes_for(len: u64) -> u64 {
    len.div_ceil(RUN_MAX)
}

/// The receiver's full Ack Vector.
#[derive(Clone, Debug, Default)]
pub struct AckVectorRecord {
    /// Sequence number of the first packet of the first run.
    base: u64,
    runs: VecDeque<Run>,
    /// Encoded length of all runs, bytes.
    encoded: u64,
}

impl AckVectorRecord {
    pub fn new() -> Self {
        Self::default()
    }

    /// Highest sequence number recorded, if any.
    pub fn high(&self) -> Option<u64> {
        if self.runs.is_empty() {
            None
        } else {
            Some(self.base + self.runs.iter().map(|r| r.len).sum::<u64>() - 1)
        }
    }

    fn push(&mut self, state: u8, len: u64) {
        match self.runs.back_mut() {
            Some(last) if last.state == state => {
                self.encoded -= bytes_for(last.len);
                last.len += len;
                self.encoded += bytes_for(last.len);
            }
            _ => {
                self.runs.push_back(Run { state, len });
                self.encoded += bytes_for(len);
            }
        }
    }

    /// Packet `seq` arrived.
    pub fn on_packet(&mut self, seq: u64) {
        let Some(high) = self.high() else {
            self.base = seq;
            self.push(RECEIVED, 1);
            return;
        };
        if seq > high {
            if seq > high + 1 {
                self.push(NOT_RECEIVED, seq - high - 1);
            }
            self.push(RECEIVED, 1);
        } else if seq >= self.base {
            self.mark_late(seq);
        }
    }

    /// A packet inside the recorded range arrived late: split its not-received run.
    fn mark_late(&mut self, seq: u64) {
        let mut start = self.base;
        for i in 0..self.runs.len() {
            let r = self.runs[i];
            if seq < start + r.len {
                if r.state == RECEIVED {
                    return; // duplicate
                }
                let before = seq - start;
                let after = r.len - before - 1;
                self.encoded -= bytes_for(r.len);
                let mut parts = Vec::with_capacity(3);
                if before > 0 {
                    parts.push(Run { state: NOT_RECEIVED, len: before });
                }
                parts.push(Run { state: RECEIVED, len: 1 });
                if after > 0 {
                    parts.push(Run { state: NOT_RECEIVED, len: after });
                }
                self.runs.remove(i);
                for (k, p) in parts.into_iter().enumerate() {
                    self.encoded += bytes_for(p.len);
                    self.runs.insert(i + k, p);
                }
                return;
            }
            start += r.len;
        }
    }

    /// Forgets every packet up to and including `ack`: the sender has learnt their state.
    pub fn forget_through(&mut self, ack: u64) {
        while let Some(first) = self.runs.front_mut() {
            if self.base > ack {
                return;
            }
            let drop = (ack - self.base + 1).min(first.len);
            self.encoded -= bytes_for(first.len);
            first.len -= drop;
            self.base += drop;
            if first.len == 0 {
                self.runs.pop_front();
            } else {
                self.encoded += bytes_for(first.len);
                return;
            }
        }
    }

    /// The vector to send now: its newest bytes inline, sized by the full encoding.
    pub fn snapshot(&self) -> AckVector {
        let mut v = AckVector::new(self.high().unwrap_or(0), self.encoded as u32);
        'runs: for r in self.runs.iter().rev() {
            let mut left = r.len;
            while left > 0 {
                let chunk = left.min(RUN_MAX);
                if !v.push_run(r.state, chunk) {
                    break 'runs;
                }
                left -= chunk;
            }
        }
        v
    }

    /// Encoded length of the full vector, bytes.
    pub fn encoded_len(&self) -> u64 {
        self.encoded
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::dccp::ACKVEC_INLINE;

    fn record(seqs: &[u64]) -> AckVectorRecord {
        let mut r = AckVectorRecord::new();
        for &s in seqs {
            r.on_packet(s);
        }
        r
    }

    #[test]
    fn vector_runs_backwards_from_the_newest_packet() {
        // 10..=14 received, 15 and 16 lost, 17 and 18 received.
        let v = record(&[10, 11, 12, 13, 14, 17, 18]).snapshot();
        assert_eq!(v.head(), 18);
        let ranges: Vec<_> = v.ranges().collect();
        assert_eq!(ranges, vec![(true, 17, 18), (false, 15, 16), (true, 10, 14)]);
        // Three run bytes plus type and length.
        assert_eq!(v.option_bytes(), 5);
    }

    #[test]
    fn a_byte_covers_at_most_64_packets() {
        let seqs: Vec<u64> = (0..130).collect();
        let r = record(&seqs);
        assert_eq!(r.encoded_len(), 3); // 64 + 64 + 2
        let ranges: Vec<_> = r.snapshot().ranges().collect();
        assert_eq!(ranges, vec![(true, 66, 129), (true, 2, 65), (true, 0, 1)]);
    }

    #[test]
    fn acknowledged_state_is_forgotten_and_the_wire_size_shrinks() {
        let mut r = record(&[0, 1, 2, 4, 5, 6, 8]);
        assert_eq!(r.encoded_len(), 5);
        r.forget_through(4);
        // Left: 5, 6 received, 7 missing, 8 received.
        let ranges: Vec<_> = r.snapshot().ranges().collect();
        assert_eq!(ranges, vec![(true, 8, 8), (false, 7, 7), (true, 5, 6)]);
        assert_eq!(r.encoded_len(), 3);
        r.forget_through(100);
        assert_eq!(r.high(), None);
        assert_eq!(r.encoded_len(), 0);
    }

    #[test]
    fn inline_copy_keeps_the_newest_bytes_only() {
        // Every other packet lost: each pair needs two bytes.
        let seqs: Vec<u64> = (0..100).filter(|s| s % 2 == 0).collect();
        let r = record(&seqs);
        assert_eq!(r.encoded_len(), 99);
        let v = r.snapshot();
        let ranges: Vec<_> = v.ranges().collect();
        assert_eq!(ranges.len(), ACKVEC_INLINE);
        assert_eq!(ranges[0], (true, 98, 98));
        assert_eq!(ranges[1], (false, 97, 97));
        // The option is sized by the full vector: 99 bytes + type and length.
        assert_eq!(v.option_bytes(), 101);
    }

    #[test]
    fn late_packet_splits_its_gap() {
        let mut r = record(&[0, 4]);
        r.on_packet(2);
        let ranges: Vec<_> = r.snapshot().ranges().collect();
        assert_eq!(
            ranges,
            vec![(true, 4, 4), (false, 3, 3), (true, 2, 2), (false, 1, 1), (true, 0, 0)]
        );
        assert_eq!(r.encoded_len(), 5);
    }
}
