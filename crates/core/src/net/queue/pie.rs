//! PIE, Proportional Integral controller Enhanced (RFC 8033; Pan et al., "PIE: A lightweight
//! control scheme to address the bufferbloat problem", HPSR 2013): an arriving packet is
//! dropped (or marked) at random with a probability that a controller updates every `tupdate`
//! from the queueing delay, towards a `target` delay.
//!
//! - **Delay** (RFC 8033 §5.2, timestamps): the sojourn time of the last packet that left the
//!   buffer, 0 if it left the buffer empty (as ns-3's `PieQueueDisc` without its dequeue-rate
//!   estimator, and Linux `sch_pie` without `dq_rate_estimator`).
//! - **Update** (§4.2): `p = α·(qdelay − target) + β·(qdelay − qdelay_old)`, scaled down while the
//!   probability is small (÷2048 below 10⁻⁶, ÷512, ÷128, ÷32, ÷8, ÷2 below 0.1), at most +0.02
//!   from 0.1 up (§5.5), added to the probability; ×0.98 when both delays are 0; kept in [0, 1].
//! - **Enqueue** (§4.1): no early drop while the burst allowance (`max_burst`, granted when a
//!   burst starts, spent by the updates, §4.4) lasts, nor while `qdelay_old < target/2` and
//!   `p < 0.2`, nor with at most two packets (bytes: two mean packets) waiting; otherwise drop with
//!   probability p (in bytes, scaled by size / mean size). With `ecn`, an ECN-capable packet is
//!   marked instead while p < `mark_ecn_th` (§5.1, 10 %).
//! - The burst state machine and its 1.5 s reset are ns-3.37's (`pie-queue-disc.cc`).
//!
//! Updates and departures are replayed lazily at each arrival (`Pie::catch_up`): the buffer is
//! FIFO, so an arrival knows when it would leave it (`Arriving::starts`), and an update reads
//! only departures before it, so every update sees what it would have seen at its instant.

use super::{Admit, Arriving, QueueLimit};
use crate::rng::Rng;
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

/// ns-3.37 `pie-queue-disc.h`: `BURST_RESET_TIMEOUT`, seconds.
const BURST_RESET_TIMEOUT_S: f64 = 1.5;

#[derive(Clone, Debug, PartialEq)]
pub struct PieConfig {
    /// QDELAY_REF (RFC 8033 §4.1: 15 ms).
    pub target: SimDuration,
    /// T_UPDATE (15 ms).
    pub tupdate: SimDuration,
    /// α and β, per second (0.125 and 1.25).
    pub alpha: f64,
    pub beta: f64,
    /// MAX_BURST (150 ms).
    pub max_burst: SimDuration,
    pub ecn: bool,
    /// Mark instead of dropping below this probability (§5.1: 10 %).
    pub mark_ecn_th: f64,
    /// MEAN_PKTSIZE for a byte limit (ns-3: 1000 B).
    pub mean_pktsize: u32,
}

impl Default for PieConfig {
    fn default() -> Self {
        PieConfig {
            target: SimDuration::from_millis(15),
            tupdate: SimDuration::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: SimDuration::from_millis(150),
            ecn: false,
            mark_ecn_th: 0.1,
            mean_pktsize: 1000,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Burst {
    None,
    Protecting,
    In,
}

/// An admitted packet: when it reached the buffer and when it leaves it.
#[derive(Clone, Copy, Debug)]
struct Passing {
    arrival: SimTime,
    start: SimTime,
}

#[derive(Clone, Debug)]
pub struct Pie {
    cfg: PieConfig,
    limit: QueueLimit,
    rng: Rng,
    drop_prob: f64,
    qdelay: SimDuration,
    qdelay_old: SimDuration,
    burst_allowance: SimDuration,
    burst: Burst,
    burst_reset: u32,
    /// The next update's instant (updates at 0, tupdate, 2·tupdate, ...).
    next_update: SimTime,
    /// Admitted packets not yet replayed leaving the buffer.
    passing: VecDeque<Passing>,
}

impl Pie {
    pub fn new(cfg: PieConfig, limit: QueueLimit, rng: Rng) -> Self {
        Pie {
            cfg,
            limit,
            rng,
            drop_prob: 0.0,
            qdelay: SimDuration::ZERO,
            qdelay_old: SimDuration::ZERO,
            burst_allowance: SimDuration::ZERO,
            burst: Burst::None,
            burst_reset: 0,
            next_update: SimTime::ZERO,
            passing: VecDeque::new(),
        }
    }

    pub fn config(&self) -> &PieConfig {
        &self.cfg
    }

    pub fn limit(&self) -> QueueLimit {
        self.limit
    }

    /// The drop probability as of the last update.
    pub fn drop_prob(&self) -> f64 {
        self.drop_prob
    }

    pub fn admit(&mut self, a: &Arriving) -> Admit {
        self.catch_up(a.now);
        if !(a.link_idle || self.limit.fits(a.occ, a.size)) {
            return Admit::DropFull;
        }
        let verdict = if !self.drops_early(a) {
            Admit::Enqueue
        } else if self.cfg.ecn && a.ect && self.drop_prob < self.cfg.mark_ecn_th {
            Admit::EnqueueMarked
        } else {
            return Admit::DropEarly;
        };
        self.passing.push_back(Passing { arrival: a.now, start: a.starts });
        verdict
    }

    /// RFC 8033 §4.1 `drop_early` (ns-3.37 `PieQueueDisc::DropEarly`).
    fn drops_early(&mut self, a: &Arriving) -> bool {
        if self.burst_allowance > SimDuration::ZERO {
            return false;
        }
        if self.burst == Burst::None {
            self.burst = Burst::Protecting;
            self.burst_allowance = self.cfg.max_burst;
        }
        let half_target = self.cfg.target.as_secs_f64() / 2.0;
        // Safeguard PIE to be work conserving.
        if self.qdelay_old.as_secs_f64() < half_target && self.drop_prob < 0.2 {
            return false;
        }
        let p = match self.limit {
            QueueLimit::Packets(_) if a.occ.packets <= 2 => return false,
            QueueLimit::Bytes(_) if a.occ.bytes <= 2 * self.cfg.mean_pktsize as u64 => {
                return false
            }
            QueueLimit::Packets(_) => self.drop_prob,
            QueueLimit::Bytes(_) => self.drop_prob * a.size as f64 / self.cfg.mean_pktsize as f64,
        };
        self.rng.uniform() <= p
    }

    /// Replays the departures and updates up to `now`, in order of their instants.
    fn catch_up(&mut self, now: SimTime) {
        while self.next_update <= now {
            if self.at_rest() {
                // Nothing changes until a packet comes: skip to the first update after `now`.
                let step = self.cfg.tupdate.as_nanos();
                let k = now.as_nanos() / step + 1;
                self.next_update = SimTime::from_nanos(k * step);
                break;
            }
            self.depart_until(self.next_update);
            self.update();
            self.next_update += self.cfg.tupdate;
        }
        self.depart_until(now);
    }

    /// Idle with nothing to decay or count down: every update would leave the state as it is.
    fn at_rest(&self) -> bool {
        self.passing.is_empty()
            && self.drop_prob == 0.0
            && self.qdelay == SimDuration::ZERO
            && self.qdelay_old == SimDuration::ZERO
            && self.burst_allowance == SimDuration::ZERO
            && self.burst == Burst::None
    }

    /// The packets that left the buffer by `t`: the last one's sojourn is the queue delay, 0 if
    /// it left the buffer empty.
    fn depart_until(&mut self, t: SimTime) {
        while let Some(&Passing { arrival, start }) = self.passing.front() {
            if start > t {
                break;
            }
            self.passing.pop_front();
            let left_empty = self.passing.front().is_none_or(|next| next.arrival >= start);
            self.qdelay =
                if left_empty { SimDuration::ZERO } else { start.saturating_since(arrival) };
        }
    }

    /// RFC 8033 §4.2 `calculate_drop_prob` and §4.4 (ns-3.37 `PieQueueDisc::CalculateP`).
    fn update(&mut self) {
        let (qdelay, old) = (self.qdelay.as_secs_f64(), self.qdelay_old.as_secs_f64());
        let target = self.cfg.target.as_secs_f64();
        let mut p = 0.0;
        if self.burst_allowance > SimDuration::ZERO {
            self.drop_prob = 0.0;
        } else {
            p = self.cfg.alpha * (qdelay - target) + self.cfg.beta * (qdelay - old);
            p /= match self.drop_prob {
                d if d < 0.000_001 => 2048.0,
                d if d < 0.000_01 => 512.0,
                d if d < 0.000_1 => 128.0,
                d if d < 0.001 => 32.0,
                d if d < 0.01 => 8.0,
                d if d < 0.1 => 2.0,
                _ => 1.0,
            };
            // Cap drop adjustment (§5.5).
            if self.drop_prob >= 0.1 && p > 0.02 {
                p = 0.02;
            }
        }
        p += self.drop_prob;
        if qdelay == 0.0 && old == 0.0 {
            p *= 0.98;
        }
        self.drop_prob = p.clamp(0.0, 1.0);
        self.burst_allowance = SimDuration::from_nanos(
            self.burst_allowance.as_nanos().saturating_sub(self.cfg.tupdate.as_nanos()),
        );
        let calm = qdelay < target / 2.0 && old < target / 2.0 && self.drop_prob == 0.0;
        if calm && self.burst_allowance == SimDuration::ZERO {
            let reset_limit = (BURST_RESET_TIMEOUT_S / self.cfg.tupdate.as_secs_f64()) as u32;
            match self.burst {
                Burst::Protecting => {
                    self.burst = Burst::In;
                    self.burst_reset = 0;
                }
                Burst::In => {
                    self.burst_reset += 1;
                    if self.burst_reset > reset_limit {
                        self.burst_reset = 0;
                        self.burst = Burst::None;
                    }
                }
                Burst::None => {}
            }
        } else if self.burst == Burst::In {
            self.burst_reset = 0;
        }
        self.qdelay_old = self.qdelay;
    }

    /// Every parameter, in the form `peers/plan.py` reads: `pie LIMIT target T tupdate T alpha A
    /// beta B burst T mark P avpkt N [ecn]`.
    pub fn describe(&self) -> String {
        let c = &self.cfg;
        format!(
            "pie {} target {} tupdate {} alpha {} beta {} burst {} mark {} avpkt {}{}",
            self.limit,
            c.target,
            c.tupdate,
            c.alpha,
            c.beta,
            c.max_burst,
            c.mark_ecn_th,
            c.mean_pktsize,
            if c.ecn { " ecn" } else { "" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::queue::Occupancy;
    use crate::rng::StreamKind;

    fn pie() -> Pie {
        Pie::new(
            PieConfig::default(),
            QueueLimit::Packets(1000),
            Rng::stream(1, StreamKind::Queue, 0),
        )
    }

    fn ms(n: u64) -> SimTime {
        SimTime::from_millis(n)
    }

    #[test]
    fn the_update_follows_rfc_8033_s_equation_with_its_scaling() {
        let mut q = pie();
        // Past the burst allowance, a standing delay of 30 ms (15 ms above target) rising from
        // 20 ms: p = 0.125·0.015 + 1.25·0.010 = 0.014375, ÷2048 from p = 0.
        q.qdelay_old = SimDuration::from_millis(20);
        q.qdelay = SimDuration::from_millis(30);
        q.burst = Burst::In;
        q.update();
        assert!((q.drop_prob - 0.014375 / 2048.0).abs() < 1e-15, "{}", q.drop_prob);
        // From 5 %, the same step is halved.
        q.drop_prob = 0.05;
        q.qdelay_old = SimDuration::from_millis(20);
        q.update();
        assert!((q.drop_prob - (0.05 + 0.014375 / 2.0)).abs() < 1e-12, "{}", q.drop_prob);
        // From 15 %, a step of 0.125·0.035 + 1.25·0.020 = 0.029 is capped at +0.02 (§5.5).
        q.drop_prob = 0.15;
        q.qdelay_old = SimDuration::from_millis(30);
        q.qdelay = SimDuration::from_millis(50);
        q.update();
        assert!((q.drop_prob - 0.17).abs() < 1e-12, "{}", q.drop_prob);
        // An empty queue decays the probability by 2 % per update.
        q.drop_prob = 0.5;
        q.qdelay = SimDuration::ZERO;
        q.qdelay_old = SimDuration::ZERO;
        q.update();
        assert!((q.drop_prob - 0.5 * 0.98 + 0.125 * 0.015 * 0.98).abs() < 1e-12, "{}", q.drop_prob);
    }

    #[test]
    fn a_standing_delay_above_target_drives_the_probability_up_until_it_drops() {
        let mut q = pie();
        // One packet every ms, each leaving 40 ms after it came (a standing 40 ms queue).
        let mut drops = 0;
        for i in 0..4000u64 {
            let now = ms(i);
            let a = Arriving {
                now,
                occ: Occupancy { packets: 40, bytes: 60_000 },
                size: 1500,
                ect: false,
                link_idle: false,
                starts: now + SimDuration::from_millis(40),
            };
            match q.admit(&a) {
                Admit::Enqueue => {}
                Admit::DropEarly => drops += 1,
                other => panic!("{other:?}"),
            }
        }
        // The burst allowance (150 ms) passed with no drop, then p grew every 15 ms.
        assert!(q.drop_prob > 0.05, "{}", q.drop_prob);
        assert!(drops > 0);
        assert_eq!(q.qdelay, SimDuration::from_millis(40));
    }

    #[test]
    fn a_packet_leaving_the_buffer_empty_reads_as_no_delay_and_idle_pie_rests() {
        let mut q = pie();
        let a = |now, starts| Arriving {
            now,
            occ: Occupancy::default(),
            size: 1500,
            ect: false,
            link_idle: true,
            starts,
        };
        assert_eq!(q.admit(&a(ms(0), ms(10))), Admit::Enqueue);
        // Nothing came behind it: when it leaves, the queue is empty.
        assert_eq!(q.admit(&a(ms(20), ms(20))), Admit::Enqueue);
        assert_eq!(q.qdelay, SimDuration::ZERO);
        // An hour idle: the updates are skipped, not replayed one by one, once nothing changes.
        let hour = SimTime::from_secs(3600);
        assert_eq!(q.admit(&a(hour, hour)), Admit::Enqueue);
        assert!(q.next_update > SimTime::from_secs(3600));
        assert_eq!(q.drop_prob, 0.0);
    }

    #[test]
    fn with_ecn_it_marks_below_ten_percent_and_drops_above() {
        let cfg = PieConfig { ecn: true, ..PieConfig::default() };
        let mut q = Pie::new(cfg, QueueLimit::Packets(1000), Rng::stream(1, StreamKind::Queue, 0));
        q.burst = Burst::In;
        q.qdelay_old = SimDuration::from_millis(40);
        q.next_update = SimTime::MAX;
        let ect = Arriving {
            now: ms(1),
            occ: Occupancy { packets: 40, bytes: 60_000 },
            size: 1500,
            ect: true,
            link_idle: false,
            starts: ms(41),
        };
        q.drop_prob = 0.099_999;
        let verdicts: Vec<_> = (0..200).map(|_| q.admit(&ect)).collect();
        assert!(verdicts.contains(&Admit::EnqueueMarked) && !verdicts.contains(&Admit::DropEarly));
        q.drop_prob = 0.1;
        let verdicts: Vec<_> = (0..200).map(|_| q.admit(&ect)).collect();
        assert!(verdicts.contains(&Admit::DropEarly) && !verdicts.contains(&Admit::EnqueueMarked));
    }
}
