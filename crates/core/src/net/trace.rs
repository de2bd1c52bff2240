//! A link that sends when a packet-delivery trace says it can, as Mahimahi's `mm-link`
//! (Netravali et al., "Mahimahi: Accurate Record-and-Replay for HTTP", USENIX ATC 2015).
//!
//! The trace lists delivery opportunities in milliseconds, one per line, non-decreasing; the
//! last one is the trace's length and the trace repeats. Each opportunity can deliver 1504
//! bytes (Mahimahi's `PACKET_SIZE`, its TUN device's payload): a packet larger than what is
//! left of one spans opportunities and leaves at the one that carries its last byte; what an
//! opportunity does not use is lost; an opportunity serves the packets that reached the link
//! before it (Mahimahi's `LinkQueue::rationalize` runs the opportunities up to the clock before
//! it queues a packet). The buffer stays FIFO, so when a packet is admitted the opportunities
//! that carry it are known (`net::link`).

use crate::time::{SimDuration, SimTime};
use std::sync::Arc;

/// Bytes one opportunity delivers (Mahimahi `link_queue.hh`, `PACKET_SIZE`).
pub const OPPORTUNITY_BYTES: u32 = 1504;

#[derive(Clone, Debug)]
pub struct Trace {
    /// One lap of opportunities, nanoseconds from the lap's start, non-decreasing.
    at: Arc<[u64]>,
    /// A lap's length: the last opportunity's instant.
    period: u64,
    /// The opportunity the last admitted packet left at (counted over every lap), and the
    /// bytes it has left.
    next: u64,
    left: u32,
}

impl Trace {
    /// `ms`: the trace's lines, non-decreasing, the last positive (scenario validation
    /// guarantees both).
    pub fn new(ms: &[u32]) -> Self {
        assert!(ms.windows(2).all(|w| w[0] <= w[1]), "a trace is non-decreasing");
        let at: Arc<[u64]> = ms.iter().map(|&m| m as u64 * 1_000_000).collect();
        let period = *at.last().expect("a trace has an opportunity");
        assert!(period > 0, "a trace lasts");
        Trace { at, period, next: 0, left: OPPORTUNITY_BYTES }
    }

    /// The instant of opportunity `k`.
    fn instant(&self, k: u64) -> SimTime {
        let n = self.at.len() as u64;
        SimTime::from_nanos((k / n) * self.period + self.at[(k % n) as usize])
    }

    /// The first opportunity strictly after `t`.
    fn first_after(&self, t: SimTime) -> u64 {
        let n = self.at.len() as u64;
        let lap = t.as_nanos() / self.period;
        let within = t.as_nanos() - lap * self.period;
        lap * n + self.at.partition_point(|&a| a <= within) as u64
    }

    /// When a `size`-byte packet reaching the link at `now` leaves, behind every packet
    /// admitted before it.
    pub fn finish(&mut self, now: SimTime, size: u32) -> SimTime {
        if self.left == 0 || self.instant(self.next) <= now {
            // The last packet's opportunity is used up or gone: the next one after both.
            let after_last = if self.left == 0 { self.next + 1 } else { self.next };
            self.next = after_last.max(self.first_after(now));
            self.left = OPPORTUNITY_BYTES;
        }
        let mut size = size;
        while size > self.left {
            size -= self.left;
            self.next += 1;
            self.left = OPPORTUNITY_BYTES;
        }
        self.left -= size;
        self.instant(self.next)
    }

    /// Bits the opportunities in `(from, to]` can deliver.
    pub fn capacity_bits(&self, from: SimTime, to: SimTime) -> f64 {
        let n = self.first_after(to).saturating_sub(self.first_after(from));
        n as f64 * OPPORTUNITY_BYTES as f64 * 8.0
    }

    /// The long-run rate of a trace whose lines are `ms`: a lap's bits over its length.
    pub fn mean_rate_bps(ms: &[u32]) -> f64 {
        let period_s = *ms.last().expect("a trace has an opportunity") as f64 * 1e-3;
        ms.len() as f64 * OPPORTUNITY_BYTES as f64 * 8.0 / period_s
    }

    /// A lap's length.
    pub fn period(&self) -> SimDuration {
        SimDuration::from_nanos(self.period)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> SimTime {
        SimTime::from_millis(n)
    }

    #[test]
    fn a_packet_leaves_at_the_first_opportunity_after_it_arrives() {
        let mut t = Trace::new(&[2, 4, 6, 8]);
        assert_eq!(t.finish(SimTime::from_nanos(500_000), 1500), ms(2));
        // Arriving exactly at an opportunity: that one has run (Mahimahi's order), so the next.
        assert_eq!(t.finish(ms(4), 1500), ms(6));
        // The trace repeats every 8 ms: the first line of the second lap is at 10 ms.
        assert_eq!(t.finish(SimTime::from_nanos(8_100_000), 1500), ms(10));
        assert_eq!(t.period(), SimDuration::from_millis(8));
    }

    #[test]
    fn small_packets_share_an_opportunity_and_big_ones_span_several() {
        let mut t = Trace::new(&[1, 2, 3, 4, 5]);
        // 37 ACKs of 40 B fill 1480 of the 1504 bytes at 1 ms; the 38th has 24 bytes there
        // and 16 at 2 ms, where it leaves.
        for _ in 0..37 {
            assert_eq!(t.finish(ms(0), 40), ms(1));
        }
        assert_eq!(t.finish(ms(0), 40), ms(2));
        // A 4000-byte packet takes the 1488 bytes left at 2 ms, 1504 at 3 ms, the rest at 4 ms.
        assert_eq!(t.finish(ms(0), 4000), ms(4));
    }

    #[test]
    fn what_an_idle_link_does_not_use_is_lost() {
        let mut t = Trace::new(&[1, 2, 3]);
        assert_eq!(t.finish(ms(0), 100), ms(1));
        // 1404 bytes were left at 1 ms, but this packet comes after it.
        assert_eq!(t.finish(SimTime::from_nanos(1_500_000), 100), ms(2));
        // Repeated opportunities at one instant deliver twice as much.
        let mut t = Trace::new(&[1, 1, 2]);
        assert_eq!(t.finish(ms(0), 3000), ms(1));
    }

    #[test]
    fn capacity_counts_the_opportunities_in_the_window() {
        let t = Trace::new(&[1, 2, 3, 4]);
        // 1.2 ms per line would be 10 Mbit/s; one per ms is 12.032 Mbit/s.
        assert_eq!(Trace::mean_rate_bps(&[1, 2, 3, 4]), 1504.0 * 8.0 * 1000.0);
        // (0, 10 ms]: lines at 1, 2, 3, 4, 5, ..., 10 ms.
        assert_eq!(t.capacity_bits(ms(0), ms(10)), 10.0 * 1504.0 * 8.0);
    }
}
