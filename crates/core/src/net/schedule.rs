//! A link whose rate, propagation delay and random loss change at given instants (scenario
//! `schedule`): piecewise constant, each step in force from its instant until the next.
//!
//! The buffer stays FIFO and the future rates are known, so a packet's whole transmission is
//! still fixed when it is admitted (`net::link`): its last bit leaves when the bits the rates
//! offer from its start add up to its size, however many steps that spans (a step at rate 0 is
//! an outage: nothing is sent until the next). Its propagation takes the delay in force when its
//! last bit leaves; a packet never overtakes the one before it, so a delay that falls holds the
//! packets behind the slower ones still propagating, as a real path that reorders nothing does.
//! The loss probability in force when a packet reaches the link's input decides, with a draw
//! from the link's own stream, whether it is lost there.

use crate::rng::Rng;
use crate::time::{Rate, SimDuration, SimTime};

/// The link's state from `at` on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    pub at: SimTime,
    pub rate: Rate,
    pub delay: SimDuration,
    /// Probability that a packet reaching the link's input is lost.
    pub loss: f64,
}

#[derive(Clone, Debug)]
pub struct Schedule {
    /// In increasing order of `at`, the first at 0, the last at a positive rate.
    steps: Vec<Step>,
    rng: Rng,
}

impl Schedule {
    /// `steps` in strictly increasing order of `at`, the first at 0 (the link as built), the
    /// last at a positive rate (scenario validation guarantees all three).
    pub fn new(steps: Vec<Step>, rng: Rng) -> Self {
        assert!(steps.first().is_some_and(|s| s.at == SimTime::ZERO), "a schedule starts at 0");
        assert!(steps.windows(2).all(|w| w[0].at < w[1].at), "steps in increasing order");
        assert!(steps.last().is_some_and(|s| s.rate.0 > 0), "the last step sends");
        Schedule { steps, rng }
    }

    /// The step in force at `t`.
    fn index_at(&self, t: SimTime) -> usize {
        self.steps.partition_point(|s| s.at <= t) - 1
    }

    /// When the last bit of a `size`-byte packet whose first bit leaves at `start` leaves. With
    /// one rate throughout it is `start + rate.tx_time(size)` to the nanosecond, as on a fixed
    /// link.
    pub fn finish(&self, start: SimTime, size: u32) -> SimTime {
        // Work left, in bit·nanoseconds: a rate of r bit/s does r of it per nanosecond.
        let mut work = size as u128 * 8_000_000_000;
        let mut t = start;
        for (i, step) in self.steps.iter().enumerate().skip(self.index_at(start)) {
            let end = self.steps.get(i + 1).map_or(SimTime::MAX, |s| s.at);
            let r = step.rate.0 as u128;
            if r > 0 {
                let need = work.div_ceil(r);
                if need <= end.saturating_since(t).as_nanos() as u128 {
                    return t + SimDuration::from_nanos(need as u64);
                }
                work -= r * end.saturating_since(t).as_nanos() as u128;
            }
            t = end;
        }
        unreachable!("the last step has a positive rate, so every packet finishes")
    }

    /// The propagation delay of a packet whose last bit leaves at `t`.
    pub fn delay_at(&self, t: SimTime) -> SimDuration {
        self.steps[self.index_at(t)].delay
    }

    /// Whether a packet reaching the link's input at `now` is lost (no draw while the loss
    /// probability is 0, so a schedule without losses leaves the stream untouched).
    pub fn loses(&mut self, now: SimTime) -> bool {
        let p = self.steps[self.index_at(now)].loss;
        p > 0.0 && self.rng.bernoulli(p)
    }

    /// The shortest delay the link ever has (how far ahead a link it feeds may admit).
    pub fn shortest_delay(&self) -> SimDuration {
        self.steps.iter().map(|s| s.delay).min().expect("a schedule has a step")
    }

    /// Bits the link can send in `[from, to)`.
    pub fn capacity_bits(&self, from: SimTime, to: SimTime) -> f64 {
        let mut bits = 0.0;
        for (i, step) in self.steps.iter().enumerate() {
            let end = self.steps.get(i + 1).map_or(SimTime::MAX, |s| s.at).min(to);
            let begin = step.at.max(from);
            if end > begin {
                bits += step.rate.0 as f64 * end.saturating_since(begin).as_secs_f64();
            }
        }
        bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamKind;

    fn ms(n: u64) -> SimTime {
        SimTime::from_millis(n)
    }

    fn step(at_ms: u64, mbps: u64, delay_ms: u64, loss: f64) -> Step {
        Step {
            at: ms(at_ms),
            rate: Rate::mbps(mbps),
            delay: SimDuration::from_millis(delay_ms),
            loss,
        }
    }

    fn schedule(steps: Vec<Step>) -> Schedule {
        Schedule::new(steps, Rng::stream(1, StreamKind::LinkSchedule, 0))
    }

    #[test]
    fn one_rate_finishes_exactly_as_a_fixed_link() {
        let s = schedule(vec![step(0, 7, 5, 0.0)]);
        for size in [40, 1000, 1500, 9000] {
            let start = SimTime::from_nanos(123_456_789);
            assert_eq!(s.finish(start, size), start + Rate::mbps(7).tx_time(size));
        }
    }

    #[test]
    fn a_packet_spanning_a_rate_change_is_sent_at_both_rates() {
        // 1500 B = 12,000 bits. At 12 Mbit/s it would take 1 ms; the rate halves at 0.5 ms, so
        // the 6,000 bits left take another 1 ms.
        let s = schedule(vec![
            step(0, 12, 1, 0.0),
            Step { at: SimTime::from_nanos(500_000), ..step(0, 6, 1, 0.0) },
        ]);
        assert_eq!(s.finish(ms(0), 1500), SimTime::from_nanos(1_500_000));
        // Started after the change: the new rate alone.
        assert_eq!(s.finish(ms(10), 1500), ms(12));
    }

    #[test]
    fn an_outage_holds_the_packet_until_the_link_comes_back() {
        let s = schedule(vec![step(0, 12, 1, 0.0), step(10, 0, 1, 0.0), step(30, 12, 1, 0.0)]);
        // Half sent by 10 ms, nothing from 10 to 30 ms, the rest in 0.5 ms.
        assert_eq!(s.finish(SimTime::from_nanos(9_500_000), 1500), SimTime::from_nanos(30_500_000));
        assert_eq!(s.finish(ms(15), 1500), ms(31));
    }

    #[test]
    fn delay_and_loss_are_those_in_force_at_the_instant() {
        let mut s =
            schedule(vec![step(0, 10, 20, 0.0), step(100, 10, 5, 1.0), step(200, 10, 5, 0.0)]);
        assert_eq!(s.delay_at(ms(99)), SimDuration::from_millis(20));
        assert_eq!(s.delay_at(ms(100)), SimDuration::from_millis(5));
        assert_eq!(s.shortest_delay(), SimDuration::from_millis(5));
        assert!(!s.loses(ms(50)));
        assert!(s.loses(ms(150)), "probability 1 from 100 ms");
        assert!(!s.loses(ms(200)));
    }

    #[test]
    fn capacity_integrates_the_rates_over_the_window() {
        let s = schedule(vec![step(0, 10, 1, 0.0), step(1000, 0, 1, 0.0), step(2000, 5, 1, 0.0)]);
        assert_eq!(s.capacity_bits(ms(500), ms(3000)), 10e6 * 0.5 + 5e6 * 1.0);
        assert_eq!(s.capacity_bits(ms(1200), ms(1800)), 0.0);
    }
}
