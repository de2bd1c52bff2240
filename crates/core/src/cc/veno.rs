//! TCP Veno (C. P. Fu, S. C. Liew, "TCP Veno: TCP enhancement for transmission over wireless
//! access networks", IEEE JSAC 21(2), 2003; Linux `tcp_veno.c`, the same rules since 2.6.18 and
//! in ns-2's TCP-Linux).
//!
//! Reno that reads a Vegas-style backlog estimate to tell a random loss from a congestive one:
//!
//! ```text
//! N = cwnd · (RTT − BaseRTT) / RTT     segments this flow keeps queued; RTT = the smallest
//!                                      sample since the previous ACK, BaseRTT = the smallest ever
//! congestion avoidance, N < β:    cwnd += acked / cwnd          (Reno: the link is not full)
//!                       N ≥ β:    +1 segment every other window  (near capacity: grow half as fast)
//! on loss, N < β:   ssthresh = max(⅘ · cwnd, 2)   (the loss was random: keep most of the window)
//!          N ≥ β:   ssthresh = max(½ · cwnd, 2)   (congestive: Reno)
//! β = 3 segments (Linux `beta = 3 << V_PARAM_SHIFT` in halves); Reno until 3 RTT samples
//! ```
//!
//! N is computed as Linux does, in halves of a segment from integer windows and microsecond RTTs
//! (`target = (cwnd · BaseRTT << 1) / RTT`, `diff = (cwnd << 1) − target`), and kept between ACKs:
//! the decision at a loss uses the N of the last window update. Linux resets the per-RTT minimum
//! after every window update, so RTT is the samples' minimum since the previous update (the
//! latest ACK's, while every ACK updates the window). Linux never resets the sample count (`/* veno->cntrtt = 0; */`): once three samples have been
//! taken Veno's rules apply for the life of the connection.
//!
//! Outside the Open state (after a timeout until everything outstanding then is acknowledged)
//! the window follows Reno, as Linux's `doing_veno_now = 0`; back in Open the per-RTT minimum
//! restarts (`veno_enable`).
//!
//! Not implemented / deviates:
//! - Windows are fractional; Linux 2.6.22 counts ACKs, not segments (the stretch-ACK fix of Linux
//!   5.7 counts segments, as here): with delayed ACKs its window grew half as fast.
//! - An ACK without an RTT sample (Karn's rule) keeps the previous estimate; Linux would read the
//!   minimum's reset value (2³¹ − 1 µs) and take the whole window as queued ("congestive").
//! - Idle restart (`CA_EVENT_CWND_RESTART`, `CA_EVENT_TX_START`) does not arise: bulk senders
//!   here never go idle with data outstanding.

use super::{
    check_param, cong_avoid_ai, reno_cong_avoid, slow_start, AckSample, CcParams, CcState,
    CongestionControl, CongestionEvent,
};
use crate::time::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

/// The per-RTT minimum's reset value, µs (Linux `0x7fffffff`).
const NO_SAMPLE_US: u64 = 0x7fff_ffff;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VenoConfig {
    /// Backlog, segments, at and above which the path counts as congested (Fu & Liew 2003 §II:
    /// β = 3; Linux `beta = 3 << V_PARAM_SHIFT`).
    pub beta: f64,
    /// The window kept after a loss judged random, as a fraction (Fu & Liew: 4/5).
    pub random_loss_keep: f64,
    /// RTT samples needed before Veno's rules apply; fewer means Reno (Linux `cntrtt <= 2`).
    pub min_rtt_samples: u32,
}

impl Default for VenoConfig {
    fn default() -> Self {
        VenoConfig { beta: 3.0, random_loss_keep: 0.8, min_rtt_samples: 3 }
    }
}

impl CcParams for VenoConfig {
    fn validate(&self) -> Result<(), String> {
        check_param(
            "beta",
            self.beta,
            self.beta > 0.0 && self.beta <= 1e3,
            "segments in (0, 1000]",
        )?;
        check_param(
            "random_loss_keep",
            self.random_loss_keep,
            self.random_loss_keep >= 0.5 && self.random_loss_keep < 1.0,
            "a fraction in [0.5, 1)",
        )
    }
}

pub struct Veno {
    cfg: VenoConfig,
    /// Smallest RTT ever sampled, µs, plus one (Linux `basertt`; never zero).
    base_us: u64,
    /// Smallest RTT sampled since the last window update, µs, plus one (Linux `minrtt`).
    min_us: u64,
    /// RTT samples taken (Linux `cntrtt`, never reset).
    samples: u32,
    /// The last backlog estimate, in halves of a segment (Linux `diff`).
    diff_halves: u64,
    /// In congestion avoidance near capacity, whether the next full window adds a segment (Linux `inc`).
    inc: bool,
    /// Segments acknowledged since the window last grew near capacity (Linux `snd_cwnd_cnt`).
    cwnd_cnt: f64,
    /// Outside the Open state until SND.UNA passes this segment (a timeout's Loss state).
    loss_until: Option<u64>,
}

impl Veno {
    pub fn new(cfg: VenoConfig) -> Self {
        Veno {
            cfg,
            base_us: NO_SAMPLE_US,
            min_us: NO_SAMPLE_US,
            samples: 0,
            diff_halves: 0,
            inc: true,
            cwnd_cnt: 0.0,
            loss_until: None,
        }
    }

    /// The backlog estimate N in segments, as last computed.
    pub fn backlog(&self) -> f64 {
        self.diff_halves as f64 / 2.0
    }

    fn congested(&self) -> bool {
        self.backlog() >= self.cfg.beta
    }

    /// Linux's `diff = (cwnd << 1) − (cwnd · basertt << 1) / minrtt`, from the integer window.
    fn estimate(&mut self, cwnd: f64) {
        let cwnd = cwnd as u64;
        let target = ((cwnd * self.base_us) << 1) / self.min_us.max(1);
        self.diff_halves = (cwnd << 1).saturating_sub(target);
    }

    /// Congestion avoidance near capacity: one segment every other window of acked segments.
    fn grow_every_other_window(&mut self, st: &mut CcState, acked: u64) {
        if self.cwnd_cnt >= st.cwnd.floor() {
            if self.inc {
                st.cwnd += 1.0;
            }
            self.inc = !self.inc;
            self.cwnd_cnt = 0.0;
        } else {
            self.cwnd_cnt += acked as f64;
        }
    }
}

impl CongestionControl for Veno {
    fn name(&self) -> &'static str {
        "veno"
    }

    fn on_rtt_sample(&mut self, _st: &mut CcState, _now: SimTime, rtt: SimDuration) {
        // Linux adds 1 µs: never a zero RTT or BaseRTT.
        let vrtt = rtt.as_nanos() / 1000 + 1;
        self.base_us = self.base_us.min(vrtt);
        self.min_us = self.min_us.min(vrtt);
        self.samples = self.samples.saturating_add(1);
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        if let Some(until) = self.loss_until {
            // Linux 2.6.22 grows the window before it leaves the Loss state, so the ACK that
            // ends it is Reno's too; then `veno_enable` restarts the per-RTT minimum.
            reno_cong_avoid(st, ack.acked);
            if st.snd_una > until {
                self.loss_until = None;
                self.min_us = NO_SAMPLE_US;
            }
            return;
        }
        if self.samples < self.cfg.min_rtt_samples {
            reno_cong_avoid(st, ack.acked);
        } else {
            if self.min_us != NO_SAMPLE_US {
                self.estimate(st.cwnd);
            }
            let acked = slow_start(st, ack.acked);
            if acked > 0 {
                if self.congested() {
                    self.grow_every_other_window(st, acked);
                } else {
                    let w = st.cwnd;
                    cong_avoid_ai(st, w, acked);
                }
            }
            st.cwnd = st.cwnd.max(2.0);
        }
        self.min_us = NO_SAMPLE_US;
    }

    fn on_congestion(&mut self, st: &mut CcState, _ev: &CongestionEvent) {
        let keep = if self.congested() { 0.5 } else { self.cfg.random_loss_keep };
        st.ssthresh = (keep * st.cwnd).max(2.0);
        // Out of the Open state (Linux `veno_disable`) until recovery ends or, after a timeout,
        // what is outstanding now is acknowledged.
        self.loss_until = Some(st.snd_nxt);
    }

    fn on_recovery_exit(&mut self, _st: &mut CcState, _now: SimTime) {
        self.loss_until = None;
        self.min_us = NO_SAMPLE_US;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::ack_clock::{loss, AckClock};
    use crate::cc::reno::{Reno, RenoConfig};
    use crate::cc::CcConfig;

    fn ms(v: u64) -> SimDuration {
        SimDuration::from_millis(v)
    }

    /// A Veno sender in congestion avoidance at `cwnd` that has seen BaseRTT = 100 ms.
    fn in_avoidance(cwnd: f64) -> (Veno, CcState) {
        let mut v = Veno::new(VenoConfig::default());
        let mut st = CcState::new(cwnd, cwnd / 2.0, 1460);
        for _ in 0..3 {
            v.on_rtt_sample(&mut st, SimTime::ZERO, ms(100));
        }
        v.min_us = NO_SAMPLE_US; // as after the window update of the ACK that took them
        (v, st)
    }

    /// One ACK of one segment carrying an RTT sample of `rtt`.
    fn ack_with(v: &mut Veno, st: &mut CcState, rtt: SimDuration) {
        v.on_rtt_sample(st, SimTime::ZERO, rtt);
        st.snd_una += 1;
        v.on_ack(st, &AckSample { now: SimTime::ZERO, acked: 1, rtt: Some(rtt) });
    }

    #[test]
    fn the_backlog_is_the_segments_queued_in_halves_from_integer_windows() {
        // 40 segments, 100 ms base, 125 ms now: 40 · 25/125 = 8 segments queued.
        let (mut v, mut st) = in_avoidance(40.0);
        ack_with(&mut v, &mut st, ms(125));
        assert_eq!(v.backlog(), 8.0);
        // Linux's integers: 2·40·100001/110001 = 72.72… → 72, N = (80 − 72)/2 = 4.
        let (mut v, mut st) = in_avoidance(40.7);
        ack_with(&mut v, &mut st, ms(110));
        assert_eq!(v.backlog(), 4.0);
    }

    #[test]
    fn a_loss_with_little_queued_keeps_four_fifths_and_a_congestive_one_halves() {
        let (mut v, mut st) = in_avoidance(50.0);
        ack_with(&mut v, &mut st, ms(102)); // 50 · 2/102 ≈ 0.98 segments queued: random loss
        v.on_congestion(&mut st, &loss());
        assert_eq!(st.ssthresh, 0.8 * st.cwnd);
        let (mut v, mut st) = in_avoidance(50.0);
        ack_with(&mut v, &mut st, ms(150)); // 16.7 queued: congestion
        v.on_congestion(&mut st, &loss());
        assert_eq!(st.ssthresh, 0.5 * st.cwnd);
    }

    #[test]
    fn near_capacity_the_window_grows_every_other_rtt_and_below_it_every_rtt() {
        // Below β: Reno's one segment per window of ACKs.
        let (mut v, mut st) = in_avoidance(20.0);
        for _ in 0..20 {
            ack_with(&mut v, &mut st, ms(101));
        }
        assert!((st.cwnd - 21.0).abs() < 0.05, "{}", st.cwnd);
        // At or above β: four windows of ACKs add two segments, not four.
        let (mut v, mut st) = in_avoidance(20.0);
        for _ in 0..4 * 21 {
            ack_with(&mut v, &mut st, ms(200));
        }
        assert_eq!(st.cwnd, 22.0);
    }

    #[test]
    fn random_loss_costs_veno_less_throughput_than_reno() {
        // A loss every 50 windows' worth of ACKs on an empty path (the backlog stays near zero):
        // Veno keeps 4/5 of its window where Reno keeps half, so its mean window is larger.
        fn mean_window(cc: &mut dyn CongestionControl) -> f64 {
            let mut clock = AckClock::new(cc, 30.0, 30.0, ms(100), SimDuration::ZERO);
            let (mut sum, mut n) = (0.0, 0u32);
            for k in 1..=6000u32 {
                clock.step(cc);
                if k % 300 == 0 {
                    clock.loss(cc);
                }
                sum += clock.st.cwnd;
                n += 1;
            }
            sum / f64::from(n)
        }
        let veno = mean_window(&mut Veno::new(VenoConfig::default()));
        let reno = mean_window(&mut Reno::new(RenoConfig::default()));
        assert!(veno > 1.3 * reno, "veno {veno} reno {reno}");
    }

    #[test]
    fn it_is_reno_until_three_samples_and_in_the_loss_state_after_a_timeout() {
        let mut v = Veno::new(VenoConfig::default());
        let mut st = CcState::new(20.0, 10.0, 1460);
        ack_with(&mut v, &mut st, ms(300)); // two samples only: Reno, N not estimated
        ack_with(&mut v, &mut st, ms(100));
        assert_eq!(v.backlog(), 0.0);
        assert!((st.cwnd - 20.1).abs() < 0.01, "{}", st.cwnd);
        st.snd_nxt = 40;
        v.on_congestion(&mut st, &loss());
        ack_with(&mut v, &mut st, ms(300)); // SND.UNA 3 ≤ 40: still in the Loss state
        st.snd_una = 40;
        ack_with(&mut v, &mut st, ms(300)); // SND.UNA 41 ends it: Reno still, then a fresh minimum
        assert_eq!(v.backlog(), 0.0);
        ack_with(&mut v, &mut st, ms(125)); // Open: Veno estimates from this ACK's sample alone
        assert_eq!(v.backlog(), 4.0); // ⌊cwnd⌋ = 20: 20 · 25/125
    }

    #[test]
    fn bad_parameters_are_one_line_errors() {
        let e = CcConfig::from_name("veno", Some(&serde_json::json!({"random_loss_keep": 1.2})))
            .unwrap_err();
        assert!(e.starts_with("random_loss_keep: 1.2 is out of range"), "{e}");
    }
}
