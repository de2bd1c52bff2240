//! Store-and-forward serialisation for the line, so that the kernel path has the transmission
//! times the simulator's links have.
//!
//! The bottleneck is an HTB class: it releases a packet as soon as its tokens allow, at the
//! *start* of the packet's slot at the configured rate, and the veth delivers it at once. A link
//! of that rate delivers the last bit one transmission time later, and the simulator's links do
//! so (`net/link.rs`). Without this the kernel's round trip is one transmission time shorter: 1.2
//! ms for a 1500-byte packet at 10 Mbit/s, 6.2 ms at 1.94 Mbit/s. Each frame therefore leaves the
//! serialiser `ps_per_byte × IP bytes` after it is taken in, behind the frame ahead of it (the
//! runner passes the bottleneck's rate; the access links' transmission times, at least ten
//! times shorter, are not added):
//!
//! ```text
//! done_k = max(arrival_k, done_{k−1}) + (len_k − 14) · ps_per_byte      due_k = done_k + delay
//! ```
//! `len_k` is the Ethernet frame; the 14-byte header is not counted, as the bottleneck's `stab
//! overhead -14` does not count it (rates are IP rates in the simulator).

use std::time::{Duration, Instant};

/// Bytes of Ethernet header in a frame read from a packet socket.
const ETHERNET_HEADER: usize = 14;

#[derive(Debug, Clone)]
pub struct Serialiser {
    ps_per_byte: u64,
    busy_until: Option<Instant>,
}

impl Serialiser {
    /// A serialiser taking `ps_per_byte` picoseconds per IP byte (0: frames pass at once).
    pub fn new(ps_per_byte: u64) -> Serialiser {
        Serialiser { ps_per_byte, busy_until: None }
    }

    /// When a frame of `frame_len` bytes that arrived at `now` has been sent in whole.
    pub fn done(&mut self, now: Instant, frame_len: usize) -> Instant {
        if self.ps_per_byte == 0 {
            return now;
        }
        let bytes = frame_len.saturating_sub(ETHERNET_HEADER) as u64;
        let tx = Duration::from_nanos(bytes.saturating_mul(self.ps_per_byte) / 1000);
        let start = self.busy_until.map_or(now, |b| b.max(now));
        let done = start + tx;
        self.busy_until = Some(done);
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_leaves_one_transmission_time_after_it_came_or_after_the_frame_ahead() {
        // 10 Mbit/s = 800 000 ps per byte: a 1500-byte IP packet (1514-byte frame) takes 1.2 ms.
        let mut s = Serialiser::new(800_000);
        let t0 = Instant::now();
        let us = Duration::from_micros;
        assert_eq!(s.done(t0, 1514), t0 + us(1200));
        // Released by HTB's burst right behind it: it waits for the first to be sent.
        assert_eq!(s.done(t0, 1514), t0 + us(2400));
        // After an idle spell it starts at once again.
        assert_eq!(s.done(t0 + us(10_000), 66), t0 + us(10_000) + Duration::from_nanos(52 * 800));
    }

    #[test]
    fn no_rate_means_no_delay() {
        let mut s = Serialiser::new(0);
        let t0 = Instant::now();
        assert_eq!(s.done(t0, 1514), t0);
        assert_eq!(s.done(t0, 1514), t0);
    }
}
