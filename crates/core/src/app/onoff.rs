//! Exponential on/off traffic (VoIP talkspurts and silences), as ns-2's `Application/Traffic/
//! Exponential` (EXPOO) generates it — the source seed 000 used, with its defaults: mean on time
//! 1.004 s, mean off time 1.587 s, 80 kbit/s while on, 160-byte packets (ITU-T P.59 speech).
//!
//! ```text
//! interval   I = packet_size · 8 / rate                    packets leave I apart while on
//! burst k    n_k = max(1, round(Exp(on_mean / I))) packets  (ns-2 EXPOO: burst length drawn in
//!                                                           packets, at least one)
//! gaps       b_0 = start + I + Exp(off_mean)               (ns-2 starts with an idle period)
//!            b_{k+1} = b_k + n_k · I + Exp(off_mean)
//! message m  of burst k leaves at b_k + (m − first_k) · I
//! ```
//!
//! Draws come from the application's own random stream (burst length, then off time, per
//! burst), so the schedule depends only on the seed and the flow. The schedule is generated
//! lazily as time advances and kept (one entry per talkspurt, a few hundred per simulated
//! hour), behind a `RefCell` because the transport reads it through `&self`.

use crate::rng::Rng;
use crate::time::{Rate, SimDuration, SimTime};
use std::cell::RefCell;

/// One talkspurt: `count` messages numbered from `first`, the first at `start`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Burst {
    start: SimTime,
    first: u64,
    count: u64,
}

#[derive(Clone, Debug)]
struct Schedule {
    rng: Rng,
    bursts: Vec<Burst>,
}

/// An exponential on/off message source.
#[derive(Clone, Debug)]
pub struct OnOffSource {
    pub start: SimTime,
    pub on_mean: SimDuration,
    pub off_mean: SimDuration,
    /// Gap between messages while on.
    pub interval: SimDuration,
    pub packet_size: u32,
    schedule: RefCell<Schedule>,
}

impl PartialEq for OnOffSource {
    /// Equal parameters (the random stream is not compared).
    fn eq(&self, other: &Self) -> bool {
        (self.start, self.on_mean, self.off_mean, self.interval, self.packet_size)
            == (other.start, other.on_mean, other.off_mean, other.interval, other.packet_size)
    }
}

impl OnOffSource {
    pub fn new(start: SimTime, on_mean: SimDuration, off_mean: SimDuration, rate: Rate, packet_size: u32, rng: Rng) -> Self {
        let interval = rate.tx_time(packet_size).max(SimDuration::from_nanos(1));
        OnOffSource { start, on_mean, off_mean, interval, packet_size, schedule: RefCell::new(Schedule { rng, bursts: Vec::new() }) }
    }

    /// Draws bursts until `done(last burst)` holds.
    fn generate_until(&self, done: impl Fn(&Burst) -> bool) {
        let mut s = self.schedule.borrow_mut();
        loop {
            if let Some(last) = s.bursts.last() {
                if done(last) {
                    return;
                }
            }
            let mean_len = self.on_mean.as_nanos() as f64 / self.interval.as_nanos() as f64;
            let count = (s.rng.exponential(mean_len) + 0.5).floor().max(1.0) as u64;
            let off = SimDuration::from_secs_f64(s.rng.exponential(self.off_mean.as_secs_f64()));
            let (start, first) = match s.bursts.last() {
                Some(b) => (b.start + self.interval.saturating_mul(b.count) + off, b.first + b.count),
                None => (self.start + self.interval + off, 0),
            };
            s.bursts.push(Burst { start, first, count });
        }
    }

    /// Messages produced by `now` (cumulative).
    pub fn available(&self, now: SimTime) -> u64 {
        if now < self.start {
            return 0;
        }
        self.generate_until(|b| b.start > now);
        let s = self.schedule.borrow();
        // The last burst that has started by `now`.
        let i = s.bursts.partition_point(|b| b.start <= now);
        if i == 0 {
            return 0;
        }
        let b = s.bursts[i - 1];
        let sent = (now - b.start).as_nanos() / self.interval.as_nanos() + 1;
        b.first + sent.min(b.count)
    }

    /// When message `n` is produced.
    pub fn ready_at(&self, n: u64) -> SimTime {
        self.generate_until(|b| b.first + b.count > n);
        let s = self.schedule.borrow();
        let i = s.bursts.partition_point(|b| b.first + b.count <= n);
        let b = s.bursts[i];
        b.start + self.interval.saturating_mul(n - b.first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamKind;

    fn voip(seed: u64) -> OnOffSource {
        OnOffSource::new(
            SimTime::ZERO,
            SimDuration::from_micros(1_004_000),
            SimDuration::from_micros(1_587_000),
            Rate(80_000),
            160,
            Rng::stream(seed, StreamKind::App, 0),
        )
    }

    #[test]
    fn messages_are_an_interval_apart_inside_a_burst() {
        let a = voip(1);
        // 160 B at 80 kbit/s: 16 ms.
        assert_eq!(a.interval, SimDuration::from_millis(16));
        let t0 = a.ready_at(0);
        assert!(t0 > SimTime::from_millis(16), "starts with an idle period: {t0}");
        assert_eq!(a.available(SimTime(t0.as_nanos() - 1)), 0);
        assert_eq!(a.available(t0), 1);
        let burst = a.schedule.borrow().bursts[0];
        if burst.count > 1 {
            assert_eq!(a.ready_at(1), t0 + SimDuration::from_millis(16));
            assert_eq!(a.available(t0 + SimDuration::from_millis(16)), 2);
        }
        // Inside the following silence nothing new is produced.
        let end = t0 + SimDuration::from_millis(16 * burst.count);
        assert_eq!(a.available(end), burst.count);
        assert_eq!(a.available(SimTime(a.ready_at(burst.count).as_nanos() - 1)), burst.count);
    }

    #[test]
    fn long_run_rate_is_the_on_fraction_of_the_peak_rate() {
        let a = voip(7);
        let horizon = SimTime::from_secs(20_000);
        let n = a.available(horizon) as f64;
        // Mean cycle ≈ on + off = 2.591 s (n·I ≈ on): 1.004 / 2.591 of 62.5 packets/s.
        let expected = 62.5 * 1.004 / 2.591 * 20_000.0;
        assert!((n / expected - 1.0).abs() < 0.03, "{n} vs {expected}");
        let s = a.schedule.borrow();
        let mean_burst = s.bursts.iter().map(|b| b.count as f64).sum::<f64>() / s.bursts.len() as f64;
        assert!((mean_burst / 62.75 - 1.0).abs() < 0.05, "mean talkspurt {mean_burst} packets");
    }

    #[test]
    fn same_stream_same_schedule_other_stream_differs() {
        let (a, b, c) = (voip(3), voip(3), voip(4));
        let t = SimTime::from_secs(100);
        assert_eq!(a.available(t), b.available(t));
        assert_ne!(a.available(t), c.available(t));
        // Queries in any order see the same schedule.
        let late = a.ready_at(500);
        assert_eq!(b.available(late), 501);
        assert_eq!(b.ready_at(500), late);
    }
}
