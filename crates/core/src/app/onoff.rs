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
//! burst), so the schedule depends only on the seed and the flow.
//!
//! Memory is O(1) per source, whatever the parameters. The schedule is walked lazily by two
//! cursors, one for [`OnOffSource::available`] (asked with the clock, which only moves forward)
//! and one for [`OnOffSource::ready_at`] (asked with the sender's next message number, which
//! only grows), each holding its burst, the next one and a copy of the random stream. Both start
//! from the same stream, so they walk the same schedule. A query behind its cursor (no sender
//! makes one) restarts that cursor from the first burst: slower, same answer. The schedule used
//! to be kept whole (one entry per talkspurt), which a source with nanosecond talkspurts and
//! silences faster than its path grew by millions of entries per simulated second — a TCP sender
//! asks `available` at ACK times, far apart in bursts, so nothing bounded it (fuzzing finding).
//! The backlog a TCP sender has in front of it is the difference of two counters (messages
//! produced by now, segments sent), so it needs no record per message either.

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

impl Burst {
    /// One past this burst's last message.
    fn end(&self) -> u64 {
        self.first.saturating_add(self.count)
    }
}

/// A position in the schedule: burst `cur`, the burst after it, and the random stream as it is
/// after drawing `next`.
#[derive(Clone, Debug)]
struct Cursor {
    rng: Rng,
    cur: Burst,
    next: Burst,
}

/// The schedule's parameters and its two cursors.
#[derive(Clone, Debug)]
struct Schedule {
    /// The stream as given: where a cursor restarts from.
    origin: Rng,
    by_time: Cursor,
    by_message: Cursor,
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
    pub fn new(
        start: SimTime,
        on_mean: SimDuration,
        off_mean: SimDuration,
        rate: Rate,
        packet_size: u32,
        rng: Rng,
    ) -> Self {
        let interval = rate.tx_time(packet_size).max(SimDuration::from_nanos(1));
        let mut src = OnOffSource {
            start,
            on_mean,
            off_mean,
            interval,
            packet_size,
            schedule: RefCell::new(Schedule {
                origin: rng.clone(),
                by_time: Cursor { rng: rng.clone(), cur: UNDRAWN, next: UNDRAWN },
                by_message: Cursor { rng, cur: UNDRAWN, next: UNDRAWN },
            }),
        };
        let first = src.first_cursor();
        let s = src.schedule.get_mut();
        (s.by_time, s.by_message) = (first.clone(), first);
        src
    }

    /// The burst after `prev` (the first burst if `None`), drawing its length and the silence
    /// before it from `rng`.
    fn draw(&self, rng: &mut Rng, prev: Option<&Burst>) -> Burst {
        let mean_len = self.on_mean.as_nanos() as f64 / self.interval.as_nanos() as f64;
        let count = (rng.exponential(mean_len) + 0.5).floor().max(1.0) as u64;
        let off = SimDuration::from_secs_f64(rng.exponential(self.off_mean.as_secs_f64()));
        let (start, first) = match prev {
            Some(b) => (b.start + self.interval.saturating_mul(b.count) + off, b.end()),
            None => (self.start + self.interval + off, 0),
        };
        Burst { start, first, count }
    }

    /// A cursor at the first burst.
    fn first_cursor(&self) -> Cursor {
        let mut rng = self.schedule.borrow().origin.clone();
        let cur = self.draw(&mut rng, None);
        let next = self.draw(&mut rng, Some(&cur));
        Cursor { rng, cur, next }
    }

    /// Moves `c` one burst on.
    fn step(&self, c: &mut Cursor) {
        let after = self.draw(&mut c.rng, Some(&c.next));
        c.cur = std::mem::replace(&mut c.next, after);
    }

    /// Messages produced by `now` (cumulative).
    pub fn available(&self, now: SimTime) -> u64 {
        if now < self.start {
            return 0;
        }
        let mut c = self.schedule.borrow().by_time.clone();
        if now < c.cur.start && c.cur.first > 0 {
            c = self.first_cursor(); // behind the cursor: walk again from the start
        }
        // Burst starts strictly increase (each burst is at least one interval of ≥ 1 ns), so
        // this finds the last burst that has started by `now`.
        while c.next.start <= now {
            self.step(&mut c);
        }
        let b = c.cur;
        self.schedule.borrow_mut().by_time = c;
        if b.start > now {
            return 0; // before the first burst
        }
        let sent = (now - b.start).as_nanos() / self.interval.as_nanos() + 1;
        b.first + sent.min(b.count)
    }

    /// When message `n` is produced.
    pub fn ready_at(&self, n: u64) -> SimTime {
        let mut c = self.schedule.borrow().by_message.clone();
        if n < c.cur.first {
            c = self.first_cursor();
        }
        while n >= c.cur.end() {
            self.step(&mut c);
        }
        let b = c.cur;
        self.schedule.borrow_mut().by_message = c;
        b.start + self.interval.saturating_mul(n - b.first)
    }
}

/// A placeholder the constructor replaces with the first bursts before it returns.
const UNDRAWN: Burst = Burst { start: SimTime::ZERO, first: 0, count: 0 };

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

    /// The schedule kept whole, as the source kept it before its cursors: the reference the
    /// cursors must agree with.
    fn whole_schedule(a: &OnOffSource, until: SimTime) -> Vec<Burst> {
        let mut rng = a.schedule.borrow().origin.clone();
        let mut v = vec![a.draw(&mut rng, None)];
        while v.last().unwrap().start <= until {
            let b = a.draw(&mut rng, v.last());
            v.push(b);
        }
        v
    }

    fn reference_available(v: &[Burst], a: &OnOffSource, now: SimTime) -> u64 {
        let i = v.partition_point(|b| b.start <= now);
        if now < a.start || i == 0 {
            return 0;
        }
        let b = v[i - 1];
        b.first + ((now - b.start).as_nanos() / a.interval.as_nanos() + 1).min(b.count)
    }

    fn reference_ready_at(v: &[Burst], a: &OnOffSource, n: u64) -> SimTime {
        let b = v[v.partition_point(|b| b.end() <= n)];
        b.start + a.interval.saturating_mul(n - b.first)
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
        let burst = whole_schedule(&a, t0)[0];
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
        let v = whole_schedule(&a, horizon);
        let mean_burst = v.iter().map(|b| b.count as f64).sum::<f64>() / v.len() as f64;
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

    /// Talkspurts of one 128 ns packet (160 B at 10 Gbit/s) with 1 µs silences: some 890,000
    /// bursts a simulated second, which the whole schedule held (21 MB a second, more with the
    /// Vec's spare capacity) and the cursors do not.
    fn fast(seed: u64) -> OnOffSource {
        let (on, off) = (SimDuration::from_nanos(1), SimDuration::from_micros(1));
        OnOffSource::new(
            SimTime::from_millis(3),
            on,
            off,
            Rate(10_000_000_000),
            160,
            Rng::stream(seed, StreamKind::App, 0),
        )
    }

    #[test]
    fn cursors_answer_as_the_whole_schedule_does() {
        for a in [voip(11), fast(12)] {
            let horizon = if a.off_mean > SimDuration::from_secs(1) {
                SimTime::from_secs(3_000)
            } else {
                SimTime::from_millis(50)
            };
            let v = whole_schedule(&a, SimTime(horizon.as_nanos() * 2));
            let mut rng = Rng::stream(99, StreamKind::App, 1);
            // Forward queries in uneven steps, as senders make them, then some backwards.
            let (mut t, mut n) = (0u64, 0u64);
            let step = horizon.as_nanos() / 2_000;
            for i in 0..4_000 {
                if i == 3_000 {
                    (t, n) = (t / 3, n / 3);
                }
                t += (rng.exponential(step as f64) as u64).min(step * 20);
                let now = SimTime(t.min(horizon.as_nanos()));
                assert_eq!(a.available(now), reference_available(&v, &a, now), "available({now})");
                let produced = reference_available(&v, &a, now);
                n = (n.max(produced.saturating_sub(3)) + rng.next_u64() % 3).min(produced + 2);
                assert_eq!(a.ready_at(n), reference_ready_at(&v, &a, n), "ready_at({n})");
            }
        }
    }

    #[test]
    fn a_source_far_faster_than_its_sender_holds_no_schedule() {
        // Five simulated seconds of fast talkspurts, asked for as a TCP sender asks: the clock at
        // ACK times, the next message to send. The old whole schedule grew by one entry a
        // talkspurt here (4.4 million); the cursors hold two bursts each, always.
        let a = fast(5);
        let mut last = 0;
        for ms in (10..=5_000).step_by(10) {
            let produced = a.available(SimTime::from_millis(ms));
            assert!(produced >= last);
            last = produced;
            a.ready_at(produced);
        }
        assert!(last > 4_000_000, "{last} messages produced");
        let s = a.schedule.borrow();
        // Both cursors stand at the end of the walk, so nothing behind them is kept.
        assert!(
            s.by_time.cur.start <= SimTime::from_secs(5)
                && s.by_time.next.start > SimTime::from_secs(5)
        );
        assert!(s.by_message.cur.first <= last && last < s.by_message.cur.end());
        assert!(std::mem::size_of::<Schedule>() < 256, "fixed size, no collection");
    }
}
