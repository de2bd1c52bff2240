//! YeAH-TCP, "Yet Another Highspeed TCP" (A. Baiocchi, A. P. Castellani, F. Vacirca, PFLDnet
//! 2007; Linux `tcp_yeah.c`, the same rules in 2.6.22 and so in ns-2's TCP-Linux).
//!
//! Scalable TCP's fast growth while the path's queue is short, Reno's once it is long, and a
//! precautionary decongestion that drains the flow's own queue before the buffer overflows.
//! Once per RTT (Vegas' rounds, `round_rtt.rs`), from the round's smallest RTT:
//!
//! ```text
//! Q = ⌊cwnd⌋ · (RTT − BaseRTT) / RTT                       segments this flow keeps queued
//! Q > α or RTT − BaseRTT > BaseRTT/φ:   slow mode (Reno)    α = 80 segments, φ = 8
//!     Q > α and cwnd > reno_count:      cwnd −= min(Q/γ, cwnd/2^ε), ssthresh = cwnd  (γ = 1, ε = 1)
//!     reno_count: at most 2 → max(cwnd/2, 2), otherwise +1
//! otherwise:                            fast mode (Scalable); after ζ = 50 such rounds reno_count = 2
//! growth per acked segment:  fast: cwnd += 1/min(cwnd, 100)   slow: cwnd += 1/cwnd
//! on loss, after fewer than ρ = 16 slow rounds in a row:
//!                            ssthresh = cwnd − clamp(Q, cwnd/2^δ, max(cwnd/2, 2))   (δ = 3)
//!          otherwise:        ssthresh = cwnd − max(cwnd/2, 2)                        (Reno)
//!          then reno_count = max(reno_count/2, 2)
//! ```
//!
//! reno_count estimates the window of competing Reno flows: after a loss YeAH does not
//! decongest below it, so it keeps its share against them. Q is computed in integers from
//! microsecond RTTs (Linux adds 1 µs to each sample).
//!
//! Not implemented / deviates:
//! - Windows are fractional; Linux counts whole segments in `snd_cwnd_cnt`. Linux 2.6.22 grew
//!   the slow mode by one per ACK rather than per segment (the same without delayed ACKs).
//! - Idle restart (Vegas' `CA_EVENT_CWND_RESTART`) does not arise: bulk senders here never go
//!   idle with data outstanding.

use super::round_rtt::RoundRtt;
use super::{
    cong_avoid_ai, slow_start, AckSample, CcParams, CcState, CongestionControl, CongestionEvent,
};
use crate::time::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct YeahConfig {
    /// Segments queued above which the flow decongests (Linux `TCP_YEAH_ALPHA` = 80).
    pub alpha: u64,
    /// The queue is drained by Q/γ per decongestion (`TCP_YEAH_GAMMA` = 1).
    pub gamma: u64,
    /// log₂ of the smallest fraction of the window a loss removes (`TCP_YEAH_DELTA` = 3: 1/8).
    pub delta: u32,
    /// log₂ of the largest fraction a decongestion removes (`TCP_YEAH_EPSILON` = 1: 1/2).
    pub epsilon: u32,
    /// Queueing delay above BaseRTT/φ means slow mode (`TCP_YEAH_PHY` = 8).
    pub phy: u64,
    /// Slow rounds in a row after which a loss halves the window (`TCP_YEAH_RHO` = 16).
    pub rho: u32,
    /// Fast rounds after which reno_count is reset (`TCP_YEAH_ZETA` = 50).
    pub zeta: u32,
    /// Fast mode's increase: one segment per min(cwnd, this) acked (`TCP_SCALABLE_AI_CNT` = 100).
    pub scalable_ai_cnt: f64,
}

impl Default for YeahConfig {
    fn default() -> Self {
        YeahConfig {
            alpha: 80,
            gamma: 1,
            delta: 3,
            epsilon: 1,
            phy: 8,
            rho: 16,
            zeta: 50,
            scalable_ai_cnt: 100.0,
        }
    }
}

impl CcParams for YeahConfig {
    fn validate(&self) -> Result<(), String> {
        let c = self;
        let count = |name: &str, v: u64, lo: u64, hi: u64| {
            if (lo..=hi).contains(&v) {
                Ok(())
            } else {
                Err(format!("{name}: {v} is out of range: expected an integer in [{lo}, {hi}]"))
            }
        };
        count("alpha", c.alpha, 1, 1_000_000)?;
        count("gamma", c.gamma, 1, 1000)?;
        count("delta", u64::from(c.delta), 1, 16)?;
        count("epsilon", u64::from(c.epsilon), 1, 16)?;
        count("phy", c.phy, 1, 1000)?;
        count("rho", u64::from(c.rho), 1, 1_000_000)?;
        count("zeta", u64::from(c.zeta), 1, 1_000_000)?;
        super::check_param(
            "scalable_ai_cnt",
            c.scalable_ai_cnt,
            c.scalable_ai_cnt >= 1.0 && c.scalable_ai_cnt <= 1e6,
            "segments in [1, 1000000]",
        )
    }
}

pub struct Yeah {
    cfg: YeahConfig,
    rounds: RoundRtt,
    /// The queue estimate of the last round, segments (Linux `lastQ`).
    last_q: u64,
    /// Slow rounds in a row; 0 in fast mode (Linux `doing_reno_now`).
    slow_rounds: u32,
    /// Estimated window of competing Reno flows, segments (Linux `reno_count`).
    reno_count: u64,
    /// Fast rounds since reno_count was last reset (Linux `fast_count`).
    fast_count: u32,
}

/// Linux's Vegas RTT: microseconds plus one, never zero.
fn vegas_us(rtt: SimDuration) -> u64 {
    rtt.as_nanos() / 1000 + 1
}

impl Yeah {
    pub fn new(cfg: YeahConfig) -> Self {
        Yeah {
            cfg,
            rounds: RoundRtt::default(),
            last_q: 0,
            slow_rounds: 0,
            reno_count: 2,
            fast_count: 0,
        }
    }

    /// In Scalable's fast mode.
    pub fn fast(&self) -> bool {
        self.slow_rounds == 0
    }

    /// The last round's queue estimate, segments.
    pub fn queue(&self) -> u64 {
        self.last_q
    }

    /// The once-per-round decision (Linux's block after `after(ack, beg_snd_nxt)`).
    fn end_round(&mut self, st: &mut CcState, rtt: SimDuration, base: SimDuration) {
        let c = &self.cfg;
        let (rtt, base) = (vegas_us(rtt), vegas_us(base));
        let queue = (st.cwnd.floor() as u64) * (rtt - base) / rtt;
        if queue > c.alpha || rtt - base > base / c.phy {
            if queue > c.alpha && st.cwnd > self.reno_count as f64 {
                let reduction = (queue / c.gamma).min((st.cwnd.floor() as u64) >> c.epsilon);
                st.cwnd = (st.cwnd - reduction as f64).max(self.reno_count as f64);
                st.ssthresh = st.cwnd;
            }
            self.reno_count = if self.reno_count <= 2 {
                ((st.cwnd.floor() as u64) >> 1).max(2)
            } else {
                self.reno_count + 1
            };
            self.slow_rounds = (self.slow_rounds + 1).min(0xff_ffff);
        } else {
            self.fast_count += 1;
            if self.fast_count > c.zeta {
                self.reno_count = 2;
                self.fast_count = 0;
            }
            self.slow_rounds = 0;
        }
        self.last_q = queue;
    }
}

impl CongestionControl for Yeah {
    fn name(&self) -> &'static str {
        "yeah"
    }

    fn on_rtt_sample(&mut self, _st: &mut CcState, _now: SimTime, rtt: SimDuration) {
        self.rounds.on_sample(rtt);
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        let acked = slow_start(st, ack.acked);
        if acked > 0 {
            let w = if self.fast() { st.cwnd.min(self.cfg.scalable_ai_cnt) } else { st.cwnd };
            cong_avoid_ai(st, w, acked);
        }
        if let Some(round) = self.rounds.end_of_round(st) {
            // Fewer than 3 samples in a round means delayed ACKs: no decision (Linux `cntRTT > 2`).
            if let (Some(rtt), Some(base), true) =
                (round.min_rtt, self.rounds.base(), round.samples > 2)
            {
                self.end_round(st, rtt, base);
            }
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, _ev: &CongestionEvent) {
        let half = (st.cwnd / 2.0).max(2.0);
        let reduction = if self.slow_rounds < self.cfg.rho {
            (self.last_q as f64).min(half).max(st.cwnd / f64::from(1u32 << self.cfg.delta))
        } else {
            half
        };
        self.fast_count = 0;
        self.reno_count = (self.reno_count >> 1).max(2);
        st.ssthresh = (st.cwnd - reduction).max(2.0);
    }

    fn on_recovery_exit(&mut self, st: &mut CcState, _now: SimTime) {
        // Back in Open: Vegas' `vegas_enable` starts a fresh round.
        self.rounds.restart(st);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::ack_clock::{loss, AckClock};
    use crate::cc::reno::{Reno, RenoConfig};
    use crate::cc::round_rtt::testing::{ms, Driver};
    use crate::cc::CcConfig;

    #[test]
    fn a_short_queue_is_fast_mode_with_scalable_growth_and_a_long_one_reno() {
        let mut y = Yeah::new(YeahConfig::default());
        let mut d = Driver::new(200.0, 100.0);
        d.round(&mut y, ms(100.0));
        d.round(&mut y, ms(100.0));
        assert!(y.fast());
        let w = d.st.cwnd;
        d.round(&mut y, ms(100.0));
        // One segment per 100 acked: about cwnd/100 per round.
        assert!((d.st.cwnd - w - w / 100.0).abs() < 0.2, "{} -> {}", w, d.st.cwnd);
        // 20 ms of queueing is more than BaseRTT/8 = 12.5 ms: slow mode, Reno's +1 per round.
        d.round(&mut y, ms(120.0));
        assert!(!y.fast());
        let w = d.st.cwnd;
        d.round(&mut y, ms(120.0));
        assert!((d.st.cwnd - w - 1.0).abs() < 0.05, "{} -> {}", w, d.st.cwnd);
    }

    #[test]
    fn more_than_alpha_queued_drains_the_queue_at_once() {
        let mut y = Yeah::new(YeahConfig::default());
        let mut d = Driver::new(300.0, 100.0);
        d.round(&mut y, ms(100.0));
        // 300 · 50/150 = 100 segments queued > α = 80: cwnd falls by 100, and ssthresh with it.
        let n = d.round(&mut y, ms(150.0));
        // ⌊cwnd⌋ = 303 after the first round's growth (+1 per 100 acked): 303 · 50000/150001.
        assert_eq!(y.queue(), 100);
        assert!(n > 0 && (d.st.cwnd - (d.st.ssthresh)).abs() < 1e-9);
        assert!((d.st.cwnd - 203.0).abs() < 1.0, "{}", d.st.cwnd);
        assert_eq!(y.reno_count, 101); // max(cwnd/2, 2) from the drained window
    }

    #[test]
    fn a_loss_in_fast_mode_removes_the_queue_within_an_eighth_and_a_half_of_the_window() {
        let mut y = Yeah::new(YeahConfig::default());
        let mut st = CcState::new(200.0, 100.0, 1460);
        y.last_q = 10;
        y.on_congestion(&mut st, &loss());
        assert_eq!(st.ssthresh, 175.0); // at least cwnd/8 = 25
        y.last_q = 60;
        y.on_congestion(&mut st, &loss());
        assert_eq!(st.ssthresh, 140.0); // the queue, 60
        y.slow_rounds = 16;
        y.on_congestion(&mut st, &loss());
        assert_eq!(st.ssthresh, 100.0); // sixteen slow rounds in a row: Reno's half
    }

    #[test]
    fn a_short_buffer_on_a_long_fat_path_stays_full_where_reno_crawls_back() {
        // 100 ms base RTT, 10 µs per segment at the bottleneck (BDP = 10000 segments), a
        // 50-segment buffer: a queue that short never reaches α, so YeAH stays in fast mode,
        // a loss costs cwnd/8 and Scalable growth wins it back in about 13 RTTs. Reno halves
        // and climbs back one segment per RTT.
        fn utilisation(cc: &mut dyn CongestionControl) -> f64 {
            let (bdp, buffer) = (10_000.0, 50.0);
            let mut clock = AckClock::new(cc, 10.0, 1e9, ms(100.0), ms(0.01));
            let secs = |s: u64| SimTime::ZERO + SimDuration::from_secs(s);
            let mut start = None;
            while clock.next_ack_at() <= secs(120) {
                clock.step(cc);
                if clock.st.in_flight as f64 > bdp + buffer {
                    clock.loss(cc);
                }
                if clock.now >= secs(30) && start.is_none() {
                    start = Some(clock.st.delivered);
                }
            }
            let start = start.expect("the run reaches 30 s");
            (clock.st.delivered - start) as f64 / (bdp * 10.0 * 90.0)
        }
        let yeah = utilisation(&mut Yeah::new(YeahConfig::default()));
        let reno = utilisation(&mut Reno::new(RenoConfig::default()));
        assert!(yeah > 0.9, "yeah uses {yeah} of the link");
        assert!(reno < 0.7, "reno uses {reno} of the link");
    }

    #[test]
    fn bad_parameters_are_one_line_errors() {
        let e = CcConfig::from_name("yeah", Some(&serde_json::json!({"alpha": 0}))).unwrap_err();
        assert!(e.starts_with("alpha: 0 is out of range"), "{e}");
    }
}
