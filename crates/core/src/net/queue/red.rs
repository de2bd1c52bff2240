//! Random Early Detection (Floyd & Jacobson 1993), with the gentle variant (Floyd 2000), ECN
//! marking (RFC 3168 §5, §7) and ICMP Source Quench "congestion experienced" (seed 004 §3.2).
//!
//! ```text
//! on every arrival (the queue q is packets, or bytes in byte mode):
//!   if the link was idle since t_idle:  m = ⌊(now − t_idle) / slot⌋      slot = mean_pktsize / rate
//!                                       avg ← (1 − w_q)^m · avg           (m small packets "sent")
//!   avg ← (1 − w_q) · avg + w_q · q
//!   avg < min_th:                        no early action, count ← −1
//!   min_th ≤ avg < max_th:               p_b = max_p · (avg − min_th) / (max_th − min_th)
//!   gentle, max_th ≤ avg < 2·max_th:     p_b = max_p + (1 − max_p) · (avg − max_th) / max_th
//!       byte mode:                       p_b ← p_b · size / mean_pktsize
//!       count ← count + 1 (byte mode: + size / mean_pktsize)
//!       p_a = p_b / (1 − count · p_b)    (1 once count · p_b ≥ 1)
//!       with probability p_a:            early action, count ← 0
//!   avg ≥ max_th (gentle: ≥ 2·max_th):   early action on every arrival, count ← 0
//! early action:  ECT packet and ecn → mark CE and enqueue
//!                otherwise, source_quench → enqueue and send ICMP Source Quench code 1
//!                otherwise → drop
//! a full buffer (limit) drops whatever the average says
//! ```
//!
//! The count-based spacing makes the number of packets between early actions roughly uniform
//! on 1..1/p_b instead of geometric, so marks are spread out and not clustered (F&J §7).
//! Thresholds are in packets; in byte mode the queue is measured in bytes and the thresholds are
//! multiplied by `mean_pktsize` (ns-2's `queue-in-bytes`), so large packets are chosen more often
//! than small ones (F&J §11 "byte mode").
//!
//! References: S. Floyd, V. Jacobson, "Random Early Detection Gateways for Congestion
//! Avoidance", IEEE/ACM ToN 1(4), 1993 (Fig. 2 and §11); S. Floyd, "Recommendation on using the
//! gentle_ variant of RED", 2000; RFC 3168 §5, §7; RFC 792 (Source Quench); seed 004 §3.2.
//!
//! Not implemented / deviates:
//! - No adaptive RED (max_p is fixed), no ns-2 `cautious` modes; the arriving packet is the one
//!   chosen (no drop-front / random victim).
//! - Early actions happen even when the instantaneous queue is empty, as in the paper and Linux;
//!   `variant = "ns2"` ([`RedVariant::Ns2`]) is ns-2's, which skips them unless more than one
//!   packet waits, spaces them with `wait_`, and spares the first arrival above min_th.
//! - With `ecn`, ECT packets are marked in every early-action region, including avg ≥ max_th
//!   (Linux `sch_red` without `harddrop`); ns-2 drops there ("forced" drops). Only a full buffer
//!   drops ECT packets (RFC 3168 §7).
//! - The idle correction uses ⌊m⌋ steps, as ns-2 does, in floating point rather than Linux's
//!   fixed-point shifts.

use super::{Admit, Arriving, QueueLimit};
use crate::rng::Rng;
use crate::time::{Rate, SimDuration, SimTime};

/// How the queue is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RedMode {
    /// Queue in packets; every packet has the same marking probability.
    Packets,
    /// Queue in bytes (thresholds × `mean_pktsize`); probability proportional to packet size.
    Bytes,
}

/// Which RED: the paper's, or ns-2's `REDQueue` (ns-2.35 `queue/red.cc` `enque`, `modify_p`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RedVariant {
    /// Floyd & Jacobson 1993, Fig. 2 (above).
    Fj93,
    /// ns-2's RED with its defaults: it acts early only when more than one packet waits
    /// (`qlen > 1`); the first arrival after the average crosses min_th is never chosen
    /// (`edv_.old`, count restarts at 1); `wait_ = true` spaces early actions over 1/p_b..2/p_b
    /// arrivals (p_a = 0 while count·p_b < 1, then p_b / (2 − count·p_b)); above max_th
    /// (gentle: 2·max_th) it drops, ECT or not ("forced" drops).
    Ns2,
}

/// RED's parameters. The scenario layer validates them (min_th < max_th, 0 < max_p ≤ 1,
/// 0 < wq ≤ 1, mean_pktsize ≥ 1).
#[derive(Clone, Debug, PartialEq)]
pub struct RedConfig {
    /// Average queue below which nothing is dropped early, packets. Default 5 (F&J 1993 §6
    /// simulations; ns-2 `thresh_`).
    pub min_th: f64,
    /// Average queue at which the probability reaches `max_p`, packets. Default 15: three times
    /// min_th (Floyd's recommendation; ns-2 `maxthresh_` default 3·thresh_).
    pub max_th: f64,
    /// Marking probability at max_th. Default 0.1 (ns-2 `linterm_` 10; Floyd's RED page).
    pub max_p: f64,
    /// EWMA weight of the average queue. Default 0.002 (F&J 1993 §6; ns-2 `q_weight_`).
    pub wq: f64,
    /// Probability rises from max_p to 1 between max_th and 2·max_th instead of jumping to 1.
    /// Default true (Floyd 2000 recommends it; ns-2 `gentle_` default since 2.1b9).
    pub gentle: bool,
    /// Mark ECT packets instead of dropping them early (RFC 3168 §5). Default false.
    pub ecn: bool,
    /// Keep packets chosen for an early drop and send ICMP Source Quench code 1; send code 0 for
    /// packets dropped because the buffer is full (seed 004 §3.2). Default false.
    pub source_quench: bool,
    /// Typical packet size, bytes: the idle-time slot and the byte-mode unit. Default 1000
    /// (Linux tc-red(8) `avpkt`: "1000 is a good value"; ns-2 uses 500).
    pub mean_pktsize: u32,
    /// Packet or byte mode. Default packets (F&J's main mode; ns-2 default).
    pub mode: RedMode,
    /// The paper's RED or ns-2's. Default the paper's.
    pub variant: RedVariant,
}

impl Default for RedConfig {
    fn default() -> Self {
        RedConfig {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            wq: 0.002,
            gentle: true,
            ecn: false,
            source_quench: false,
            mean_pktsize: 1000,
            mode: RedMode::Packets,
            variant: RedVariant::Fj93,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Red {
    cfg: RedConfig,
    limit: QueueLimit,
    /// Serialisation time of a `mean_pktsize` packet at the link's rate: one step of the idle
    /// correction. At least 1 ns.
    slot: SimDuration,
    /// Average queue, packets (bytes in byte mode).
    avg: f64,
    /// Arrivals (byte mode: mean-size packets) since the last early action while avg ≥ min_th;
    /// −1 while avg < min_th (F&J's `count`).
    count: f64,
    /// When the link went idle with an empty buffer; `None` while it is busy.
    idle_since: Option<SimTime>,
    /// ns-2 variant: the previous arrival was already in the early-action region (`edv_.old`).
    in_region: bool,
    rng: Rng,
}

impl Red {
    /// RED on a link of `rate`, drawing from `rng` (the queue's own stream).
    pub fn new(cfg: RedConfig, limit: QueueLimit, rate: Rate, rng: Rng) -> Self {
        debug_assert!(
            cfg.min_th < cfg.max_th && cfg.max_p > 0.0 && cfg.wq > 0.0 && cfg.mean_pktsize > 0
        );
        let slot = SimDuration::from_nanos(rate.tx_time(cfg.mean_pktsize).as_nanos().max(1));
        Red {
            cfg,
            limit,
            slot,
            avg: 0.0,
            count: -1.0,
            idle_since: Some(SimTime::ZERO),
            in_region: false,
            rng,
        }
    }

    pub fn config(&self) -> &RedConfig {
        &self.cfg
    }

    /// The average queue, packets (bytes in byte mode).
    pub fn avg(&self) -> f64 {
        self.avg
    }

    pub fn describe(&self) -> String {
        let c = &self.cfg;
        let mut s = format!(
            "red {} th {}..{} max_p {} wq {}",
            self.limit, c.min_th, c.max_th, c.max_p, c.wq
        );
        if c.mean_pktsize != RedConfig::default().mean_pktsize {
            s.push_str(&format!(" avpkt {}", c.mean_pktsize));
        }
        let ns2 = c.variant == RedVariant::Ns2;
        for (on, tag) in [
            (c.gentle, " gentle"),
            (c.mode == RedMode::Bytes, " bytes"),
            (c.ecn, " ecn"),
            (c.source_quench, " sq"),
            (ns2, " ns2"),
        ] {
            if on {
                s.push_str(tag);
            }
        }
        s
    }

    /// The link became idle (buffer empty, nothing in service) at `now`.
    pub fn on_idle(&mut self, now: SimTime) {
        self.idle_since = Some(now);
    }

    /// Since when the link has been idle, if it is.
    #[cfg(test)]
    pub(crate) fn idle_since(&self) -> Option<SimTime> {
        self.idle_since
    }

    /// Thresholds in the queue's unit.
    fn thresholds(&self) -> (f64, f64) {
        match self.cfg.mode {
            RedMode::Packets => (self.cfg.min_th, self.cfg.max_th),
            RedMode::Bytes => {
                let m = self.cfg.mean_pktsize as f64;
                (self.cfg.min_th * m, self.cfg.max_th * m)
            }
        }
    }

    /// p_b for an average `avg` (queue unit), before byte scaling; `None` below min_th and
    /// `Some(1)` in the region where every arrival is acted on.
    fn base_probability(&self, avg: f64) -> Option<f64> {
        let (min, max) = self.thresholds();
        let c = &self.cfg;
        if avg < min {
            None
        } else if avg < max {
            Some(c.max_p * (avg - min) / (max - min))
        } else if c.gentle && avg < 2.0 * max {
            Some(c.max_p + (1.0 - c.max_p) * (avg - max) / max)
        } else {
            Some(1.0)
        }
    }

    /// p_a: the probability of an early action on a packet of `size` bytes, given `count`
    /// (already including this arrival) and the average `avg`. Zero below min_th.
    pub fn action_probability(&self, avg: f64, count: f64, size: u32) -> f64 {
        let Some(mut pb) = self.base_probability(avg) else { return 0.0 };
        if pb >= 1.0 {
            return 1.0;
        }
        if self.cfg.mode == RedMode::Bytes {
            pb *= size as f64 / self.cfg.mean_pktsize as f64;
        }
        let x = count * pb;
        match self.cfg.variant {
            RedVariant::Fj93 if x >= 1.0 => 1.0,
            RedVariant::Fj93 => (pb / (1.0 - x)).min(1.0),
            // ns-2 `modify_p` with `wait_`.
            RedVariant::Ns2 if x < 1.0 => 0.0,
            RedVariant::Ns2 if x < 2.0 => (pb / (2.0 - x)).min(1.0),
            RedVariant::Ns2 => 1.0,
        }
    }

    /// Updates the average for an arrival that sees `occ`, then decides.
    pub fn admit(&mut self, a: &Arriving) -> Admit {
        let q = match self.cfg.mode {
            RedMode::Packets => a.occ.packets as f64,
            RedMode::Bytes => a.occ.bytes as f64,
        };
        let keep = 1.0 - self.cfg.wq;
        if let Some(since) = self.idle_since.take() {
            // As if m mean-size packets had been sent while the queue was empty.
            let m = a.now.saturating_since(since).as_nanos() / self.slot.as_nanos();
            self.avg *= keep.powf(m as f64);
        }
        self.avg = keep * self.avg + self.cfg.wq * q;

        if !a.link_idle && !self.limit.fits(a.occ, a.size) {
            return Admit::DropFull;
        }
        let chosen = match self.cfg.variant {
            RedVariant::Fj93 => self.early_action(a.size).then_some(false),
            RedVariant::Ns2 => self.ns2_early_action(q, a.size),
        };
        let Some(forced) = chosen else { return Admit::Enqueue };
        if self.cfg.ecn && a.ect && !forced {
            Admit::EnqueueMarked
        } else if self.cfg.source_quench {
            Admit::EnqueueQuenched
        } else {
            if a.link_idle {
                // The link stays idle, and the link reports idleness only after a transmission:
                // the idle period goes on from now. Without this the average would never decay
                // again and every later arrival would be dropped (a lock-out). Linux `sch_red`
                // does the same: the dequeue that finds the queue empty after the drop calls
                // `red_start_of_idle_period` again.
                self.idle_since = Some(a.now);
            }
            Admit::DropEarly
        }
    }

    /// What one arrival of `size` bytes adds to `count`: one packet, or in byte mode its share of
    /// a mean-size packet.
    fn arrivals_of(&self, size: u32) -> f64 {
        match self.cfg.mode {
            RedMode::Packets => 1.0,
            RedMode::Bytes => size as f64 / self.cfg.mean_pktsize as f64,
        }
    }

    /// Draws whether the arrival is chosen at p_a for the current count; a choice restarts it.
    fn chosen(&mut self, size: u32) -> bool {
        let pa = self.action_probability(self.avg, self.count, size);
        let chosen = self.rng.uniform() < pa;
        if chosen {
            self.count = 0.0;
        }
        chosen
    }

    /// ns-2 `REDQueue::enque`: `Some(forced)` if this arrival, which sees `q` waiting (queue
    /// unit), is chosen; `forced` in the region where every arrival is dropped.
    fn ns2_early_action(&mut self, q: f64, size: u32) -> Option<bool> {
        self.count += self.arrivals_of(size);
        let pb = match self.base_probability(self.avg) {
            // `qlen > 1` in the queue's unit (ns-2 compares bytes in byte mode).
            Some(pb) if q > 1.0 => pb,
            _ => {
                self.in_region = false;
                return None;
            }
        };
        if pb >= 1.0 {
            self.count = 0.0;
            return Some(true);
        }
        if !self.in_region {
            self.in_region = true;
            self.count = 1.0;
            return None;
        }
        self.chosen(size).then_some(false)
    }

    /// F&J Fig. 2: whether this arrival is chosen, with the count bookkeeping.
    fn early_action(&mut self, size: u32) -> bool {
        match self.base_probability(self.avg) {
            None => {
                self.count = -1.0;
                false
            }
            Some(pb) if pb >= 1.0 => {
                self.count = 0.0;
                true
            }
            Some(_) => {
                self.count += self.arrivals_of(size);
                self.chosen(size)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::queue::Occupancy;
    use crate::rng::StreamKind;

    fn red(cfg: RedConfig) -> Red {
        Red::new(
            cfg,
            QueueLimit::Packets(1000),
            Rate::mbps(8),
            Rng::stream(1, StreamKind::Queue, 0),
        )
    }

    fn arrival(now: SimTime, packets: u64, size: u32, ect: bool) -> Arriving {
        Arriving {
            now,
            occ: Occupancy { packets, bytes: packets * size as u64 },
            size,
            ect,
            link_idle: false,
            starts: SimTime::ZERO,
        }
    }

    fn ns2(cfg: RedConfig) -> Red {
        red(RedConfig { variant: RedVariant::Ns2, ..cfg })
    }

    /// Drives the average to `q` (the queue seen by each arrival) without early actions.
    fn settle(r: &mut Red, q: u64) {
        let (min_th, max_th) = (r.cfg.min_th, r.cfg.max_th);
        r.cfg.min_th = 1e9;
        r.cfg.max_th = 2e9;
        for _ in 0..20_000 {
            r.admit(&arrival(SimTime::ZERO, q, 1000, false));
        }
        r.cfg.min_th = min_th;
        r.cfg.max_th = max_th;
    }

    #[test]
    fn ns2_acts_early_only_when_more_than_one_packet_waits() {
        // Average 10 (p_b 0.05): with one packet waiting nothing is ever chosen (ns-2 `qlen > 1`).
        let mut r = ns2(RedConfig::default());
        settle(&mut r, 10);
        let drops = (0..5000)
            .filter(|_| r.admit(&arrival(SimTime::ZERO, 1, 1000, false)) != Admit::Enqueue)
            .count();
        assert_eq!(drops, 0);
        // The paper's RED chooses arrivals whatever the instantaneous queue.
        let mut f = red(RedConfig::default());
        settle(&mut f, 10);
        assert!(
            (0..5000).any(|_| f.admit(&arrival(SimTime::ZERO, 1, 1000, false)) != Admit::Enqueue)
        );
    }

    #[test]
    fn ns2_waits_between_early_actions() {
        // p_b = 0.05 at avg 10: with wait_, no action before count · p_b ≥ 1 (20 arrivals) and
        // one by 2/p_b = 40; the paper's spacing is uniform on 1..1/p_b = 20.
        for (variant, lo, hi) in [(RedVariant::Ns2, 20, 40), (RedVariant::Fj93, 1, 20)] {
            let mut r = red(RedConfig { variant, wq: 1e-9, ..RedConfig::default() });
            r.avg = 10.0;
            let mut gaps = Vec::new();
            let mut since = 0;
            for _ in 0..200_000 {
                since += 1;
                if r.admit(&arrival(SimTime::ZERO, 10, 1000, false)) != Admit::Enqueue {
                    gaps.push(since);
                    since = 0;
                }
            }
            let gaps = &gaps[1..];
            assert!(
                gaps.iter().all(|g| (lo..=hi).contains(g)),
                "{variant:?}: {:?}",
                (gaps.iter().min(), gaps.iter().max())
            );
            let mean = gaps.iter().sum::<usize>() as f64 / gaps.len() as f64;
            assert!((mean - (lo + hi) as f64 / 2.0).abs() < 1.5, "{variant:?} mean gap {mean}");
        }
    }

    #[test]
    fn ns2_spares_the_first_arrival_above_min_th_and_forces_drops_of_ect_packets() {
        let mut r = ns2(RedConfig { ecn: true, wq: 1e-9, ..RedConfig::default() });
        r.avg = 14.9;
        // Entering the region: count restarts at 1 and nothing is chosen, even at p_b ≈ 0.1.
        assert_eq!(r.admit(&arrival(SimTime::ZERO, 10, 1000, true)), Admit::Enqueue);
        assert_eq!(r.count, 1.0);
        // Above 2·max_th every arrival is dropped, ECT or not (ns-2's forced drops).
        r.avg = 31.0;
        assert_eq!(r.admit(&arrival(SimTime::ZERO, 10, 1000, true)), Admit::DropEarly);
        // The paper's variant marks an ECT packet there.
        let mut f = red(RedConfig { ecn: true, wq: 1e-9, ..RedConfig::default() });
        f.avg = 31.0;
        assert_eq!(f.admit(&arrival(SimTime::ZERO, 10, 1000, true)), Admit::EnqueueMarked);
    }

    #[test]
    fn the_average_is_an_ewma_of_the_queue_seen_by_arrivals() {
        let mut r = red(RedConfig { min_th: 100.0, max_th: 200.0, ..RedConfig::default() });
        let t = SimTime::ZERO;
        let mut want = 0.0;
        for q in [10, 20, 30, 40, 50] {
            r.admit(&arrival(t, q, 1000, false));
            want = 0.998 * want + 0.002 * q as f64;
            assert!((r.avg() - want).abs() < 1e-12, "{} vs {want}", r.avg());
        }
    }

    #[test]
    fn idle_time_decays_the_average_as_if_small_packets_had_been_sent() {
        // 1000 B at 8 Mbit/s take 1 ms: an idle period of 250.5 ms counts as 250 packets.
        let cfg = RedConfig { min_th: 100.0, max_th: 200.0, wq: 0.01, ..RedConfig::default() };
        let mut r = red(cfg);
        let t = SimTime::ZERO;
        for _ in 0..500 {
            r.admit(&arrival(t, 50, 1000, false));
        }
        let before = r.avg();
        r.on_idle(SimTime::from_millis(10));
        let t1 = SimTime::from_nanos(260_500_000);
        r.admit(&Arriving { link_idle: true, ..arrival(t1, 0, 1000, false) });
        let want = before * 0.99f64.powi(250) * 0.99;
        assert!((r.avg() - want).abs() < 1e-9, "{} vs {want}", r.avg());
        // Without the idle period the average would only have taken one step towards zero.
        assert!(r.avg() < 0.1 * before);
    }

    #[test]
    fn an_early_drop_on_an_idle_link_keeps_the_idle_period_going() {
        // The average is far above 2·max_th, so the arrival on the idle link is dropped and the
        // link stays idle: the next arrival must still see the whole idle time since then.
        let mut r = red(RedConfig { wq: 0.01, ..RedConfig::default() });
        for _ in 0..2000 {
            r.admit(&arrival(SimTime::ZERO, 200, 1000, false));
        }
        assert!(r.avg() > 150.0);
        r.on_idle(SimTime::from_millis(1));
        let idle = |t: SimTime| Arriving { link_idle: true, ..arrival(t, 0, 1000, false) };
        assert_eq!(r.admit(&idle(SimTime::from_millis(2))), Admit::DropEarly);
        assert_eq!(r.idle_since(), Some(SimTime::from_millis(2)));
        // 1 s later (1000 slots of 1 ms) the average has decayed by 0.99^1000: admitted.
        let before = r.avg();
        assert_eq!(r.admit(&idle(SimTime::from_millis(1002))), Admit::Enqueue);
        assert!(r.avg() < before * 1e-3, "{} from {before}", r.avg());
    }

    #[test]
    fn marking_probability_follows_the_linear_and_gentle_ramps() {
        let r = red(RedConfig::default());
        // count = 0: p_a = p_b.
        assert_eq!(r.action_probability(4.9, 0.0, 1000), 0.0);
        assert!((r.action_probability(10.0, 0.0, 1000) - 0.05).abs() < 1e-12);
        assert!((r.action_probability(15.0, 0.0, 1000) - 0.1).abs() < 1e-12);
        // Gentle: halfway between max_th and 2·max_th, halfway between max_p and 1.
        assert!((r.action_probability(22.5, 0.0, 1000) - 0.55).abs() < 1e-12);
        assert_eq!(r.action_probability(30.0, 0.0, 1000), 1.0);
        // Count spacing: p_a = p_b / (1 − count·p_b), saturating at 1.
        assert!((r.action_probability(10.0, 10.0, 1000) - 0.05 / 0.5).abs() < 1e-12);
        assert_eq!(r.action_probability(10.0, 20.0, 1000), 1.0);
        // Without gentle, everything above max_th.
        let abrupt = red(RedConfig { gentle: false, ..RedConfig::default() });
        assert_eq!(abrupt.action_probability(15.0, 0.0, 1000), 1.0);
    }

    /// Holds the average at `q` (w_q = 1) and returns the gaps, in arrivals, between early drops.
    fn gaps_at_constant_average(q: u64, arrivals: usize) -> Vec<usize> {
        let mut r = red(RedConfig { wq: 1.0, ..RedConfig::default() });
        let mut gaps = Vec::new();
        let mut since = 0;
        for _ in 0..arrivals {
            since += 1;
            if r.admit(&arrival(SimTime::ZERO, q, 1000, false)) == Admit::DropEarly {
                gaps.push(since);
                since = 0;
            }
        }
        gaps
    }

    #[test]
    fn count_spacing_makes_the_gaps_between_drops_uniform_instead_of_geometric() {
        // avg = 10: p_b = 0.05. With count incremented before p_a = p_b / (1 − count·p_b), the
        // survival product telescopes and every gap 1..19 has probability p_b / (1 − p_b) = 1/19
        // (F&J §7: "uniform"); a geometric gap would have mean 20 and a long tail.
        let gaps = gaps_at_constant_average(10, 400_000);
        assert!(gaps.iter().all(|&g| (1..=19).contains(&g)), "max gap {:?}", gaps.iter().max());
        let mean = gaps.iter().sum::<usize>() as f64 / gaps.len() as f64;
        assert!((mean - 10.0).abs() < 0.1, "mean gap {mean}");
        for g in 1..=19 {
            let share = gaps.iter().filter(|&&x| x == g).count() as f64 / gaps.len() as f64;
            assert!((share * 19.0 - 1.0).abs() < 0.1, "gap {g}: share {share}");
        }
    }

    #[test]
    fn nothing_is_dropped_early_below_min_th_and_everything_above_twice_max_th() {
        assert!(gaps_at_constant_average(4, 10_000).is_empty());
        assert!(gaps_at_constant_average(30, 1000).iter().all(|&g| g == 1));
    }

    #[test]
    fn ecn_marks_ect_packets_and_drops_the_others_and_a_full_buffer_drops_all() {
        let cfg = RedConfig { wq: 1.0, ecn: true, ..RedConfig::default() };
        let mut r = Red::new(
            cfg,
            QueueLimit::Packets(40),
            Rate::mbps(8),
            Rng::stream(1, StreamKind::Queue, 0),
        );
        // avg = 35 ≥ 2·max_th: every arrival is acted on.
        assert_eq!(r.admit(&arrival(SimTime::ZERO, 35, 1000, true)), Admit::EnqueueMarked);
        assert_eq!(r.admit(&arrival(SimTime::ZERO, 35, 1000, false)), Admit::DropEarly);
        assert_eq!(r.admit(&arrival(SimTime::ZERO, 40, 1000, true)), Admit::DropFull);
    }

    #[test]
    fn source_quench_keeps_the_chosen_packet_and_reports_code_one() {
        let cfg = RedConfig { wq: 1.0, source_quench: true, ..RedConfig::default() };
        let mut r = red(cfg);
        assert_eq!(r.admit(&arrival(SimTime::ZERO, 35, 1000, false)), Admit::EnqueueQuenched);
        assert_eq!(r.admit(&arrival(SimTime::ZERO, 3, 1000, false)), Admit::Enqueue);
    }

    #[test]
    fn byte_mode_chooses_packets_in_proportion_to_their_size() {
        // Queue held at 10 mean-size packets of bytes: p_b = 0.05 for a 1000-byte packet, 0.002
        // for a 40-byte ACK (before count spacing).
        let cfg = RedConfig { wq: 1.0, mode: RedMode::Bytes, ..RedConfig::default() };
        let mut r = red(cfg);
        let mut drops = [0u32; 2];
        for i in 0..400_000 {
            let size = if i % 2 == 0 { 1000 } else { 40 };
            let a = Arriving {
                now: SimTime::ZERO,
                occ: Occupancy { packets: 10, bytes: 10_000 },
                size,
                ect: false,
                link_idle: false,
                starts: SimTime::ZERO,
            };
            if r.admit(&a) == Admit::DropEarly {
                drops[(i % 2) as usize] += 1;
            }
        }
        let ratio = drops[0] as f64 / drops[1] as f64;
        assert!(ratio > 15.0, "large/small drop ratio {ratio} ({drops:?})");
    }
}
