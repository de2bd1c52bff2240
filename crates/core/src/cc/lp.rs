//! TCP Low Priority (A. Kuzmanovic, E. W. Knightly, "TCP-LP: low-priority service via end-point
//! congestion control", IEEE/ACM ToN 14(4), 2006; Linux `tcp_lp.c`, the same rules since
//! 2.6.18 and in ns-2's TCP-Linux).
//!
//! Reno that reads the one-way delay and backs off before the buffer fills, earlier than any
//! loss-based flow beside it, so that it uses only capacity they leave:
//!
//! ```text
//! per ACK with an RTT sample:  owd = TSval − TSecr (ms); owd_min, owd_max (with a reserve: the
//!                              largest sample is used only once a second one exceeds it)
//!                              sowd ← 7/8 · sowd + 1/8 · owd             (Linux: 8 · sowd kept)
//! per ACK:   inference = 3 · (now − TSecr)                              (three RTTs)
//!            early congestion:  sowd ≥ owd_min + 15 % · (owd_max − owd_min)
//!              → owd_min = sowd, owd_max = owd_max_rsv = 2 · sowd
//!              → cwnd = 1 if within the inference time of the last early cut, else cwnd / 2
//! growth:    Reno, but none within the inference time of the last early cut
//! loss:      Reno (ssthresh = max(cwnd / 2, 2))
//! ```
//!
//! The arithmetic is Linux's: whole milliseconds, u32 values (the first threshold test, before
//! any sample, compares against 0xffffffff), `sowd` in eighths, and the window cut in whole
//! segments. The first ACK only takes a reference, as Linux's remote-clock estimator does
//! (`tcp_lp_remote_hz_estimator`): the one-way-delay rules start with the second.
//!
//! Not implemented / deviates:
//! - The receiver's timestamp clock is known (1 kHz, as both ends run here); Linux estimates
//!   it from the ACKs and divides `LP_RESOL` by the estimate in integers.
//! - The window is fractional between the cuts; Linux counts whole segments.

use super::{
    reno_cong_avoid, AckFeedback, AckSample, CcParams, CcState, CongestionControl, CongestionEvent,
};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// TCP-LP has no parameters (Linux's module has none); the threshold (15 %) and the inference
/// time (3 RTTs) are its constants.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LpConfig {}

impl CcParams for LpConfig {}

/// The early-congestion threshold, percent of the delay range (Linux `15 * (...) / 100`).
const THRESHOLD_PERCENT: u32 = 15;

pub struct Lp {
    /// Smoothed one-way delay, eighths of a ms (Linux `sowd`).
    sowd: u32,
    owd_min: u32,
    owd_max: u32,
    owd_max_rsv: u32,
    /// Three RTTs, ms (Linux `inference`).
    inference: u32,
    /// When the window was last cut for early congestion, ms (Linux `last_drop`; 0 = never).
    last_drop: u32,
    /// Within the inference time of the last cut: no growth (Linux `LP_WITHIN_INF`).
    within_inference: bool,
    /// An ACK was seen: the reference of the remote clock is taken.
    referenced: bool,
}

impl Lp {
    pub fn new(_cfg: LpConfig) -> Self {
        Lp {
            sowd: 0,
            owd_min: u32::MAX,
            owd_max: 0,
            owd_max_rsv: 0,
            inference: 0,
            last_drop: 0,
            within_inference: false,
            referenced: false,
        }
    }

    /// Linux `tcp_lp_rtt_sample`: one one-way delay, ms.
    fn sample(&mut self, owd: u32) {
        self.owd_min = self.owd_min.min(owd);
        if owd > self.owd_max {
            if owd > self.owd_max_rsv {
                self.owd_max = if self.owd_max_rsv == 0 { owd } else { self.owd_max_rsv };
                self.owd_max_rsv = owd;
            } else {
                self.owd_max = owd;
            }
        }
        if self.sowd != 0 {
            // 7/8 of the old estimate plus 1/8 of the sample, in eighths (u32 as Linux).
            self.sowd = self.sowd.wrapping_add(owd.wrapping_sub(self.sowd >> 3));
        } else {
            self.sowd = owd << 3;
        }
    }

    /// Whether the smoothed delay is below the threshold (Linux `LP_WITHIN_THR`), in u32.
    fn within_threshold(&self) -> bool {
        let range = self.owd_max.wrapping_sub(self.owd_min);
        (self.sowd >> 3) < self.owd_min.wrapping_add(THRESHOLD_PERCENT.wrapping_mul(range) / 100)
    }
}

fn ms(t: SimTime) -> u32 {
    (t.as_nanos() / 1_000_000) as u32
}

impl CongestionControl for Lp {
    fn name(&self) -> &'static str {
        "lp"
    }

    fn wants_ack_feedback(&self) -> bool {
        true
    }

    fn on_ack_feedback(&mut self, st: &mut CcState, fb: &AckFeedback) {
        let Some(ts) = fb.ts else { return };
        let now = ms(fb.now);
        let owd = ts.one_way_delay_ms();
        // Linux rtt_sample needs an RTT sample, a remote-clock reference and owd > 0.
        if fb.rtt.is_some() && self.referenced && owd > 0 {
            self.sample(owd);
        }
        self.referenced = true;
        // TSecr is the sending time of the data acknowledged: now − TSecr is an RTT.
        let delta = now.wrapping_sub(ts.tsecr);
        if (delta as i32) > 0 {
            self.inference = 3 * delta;
        }
        self.within_inference =
            self.last_drop != 0 && now.wrapping_sub(self.last_drop) < self.inference;
        if self.within_threshold() {
            return;
        }
        self.owd_min = self.sowd >> 3;
        self.owd_max = self.sowd >> 2;
        self.owd_max_rsv = self.sowd >> 2;
        let cwnd = st.cwnd as u64;
        st.cwnd = if self.within_inference { 1.0 } else { (cwnd >> 1).max(1) as f64 };
        self.last_drop = now;
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        if !self.within_inference {
            reno_cong_avoid(st, ack.acked);
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, _ev: &CongestionEvent) {
        // Linux tcp_reno_ssthresh.
        st.ssthresh = (st.cwnd / 2.0).max(2.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::AckTimestamps;
    use crate::time::SimDuration;

    /// An ACK at `now_ms` of data sent one RTT (`rtt_ms`) before, `owd_ms` of it one way.
    fn fb(now_ms: u32, rtt_ms: u32, owd_ms: u32) -> AckFeedback {
        AckFeedback {
            now: SimTime::from_nanos(u64::from(now_ms) * 1_000_000),
            acked: 1,
            ece: false,
            rtt: Some(SimDuration::from_millis(rtt_ms.into())),
            ts: Some(AckTimestamps { tsval: now_ms - rtt_ms + owd_ms, tsecr: now_ms - rtt_ms }),
        }
    }

    fn ack() -> AckSample {
        AckSample { now: SimTime::ZERO, acked: 1, rtt: None }
    }

    #[test]
    fn like_linux_the_first_sample_after_the_reference_cuts_the_window_once() {
        let mut lp = Lp::new(LpConfig {});
        let mut st = CcState::new(10.0, f64::INFINITY, 1460);
        // The first ACK takes the remote clock's reference; the second gives owd_min = owd_max
        // = sowd = 20, and 20 < 20 + 15 % of 0 fails (Linux's strict `<`): a halving, after
        // which the range is 20..40.
        lp.on_ack_feedback(&mut st, &fb(1000, 40, 20));
        assert_eq!(st.cwnd, 10.0);
        lp.on_ack_feedback(&mut st, &fb(1001, 40, 20));
        assert_eq!(st.cwnd, 5.0);
        assert_eq!((lp.owd_min, lp.owd_max, lp.owd_max_rsv), (20, 40, 40));
        // Steady delay: within the threshold (20 < 20 + 3), the window grows as Reno's after
        // the inference time (3 RTTs = 120 ms) of that cut.
        lp.on_ack_feedback(&mut st, &fb(1100, 40, 20));
        assert!(lp.within_inference);
        lp.on_ack(&mut st, &ack());
        assert_eq!(st.cwnd, 5.0, "no growth within the inference time");
        lp.on_ack_feedback(&mut st, &fb(1122, 40, 20));
        lp.on_ack(&mut st, &ack());
        assert_eq!(st.cwnd, 6.0, "Reno slow start again");
    }

    #[test]
    fn a_rising_delay_halves_then_a_second_rise_within_three_rtts_drops_to_one() {
        let mut lp = Lp::new(LpConfig {});
        let mut st = CcState::new(40.0, f64::INFINITY, 1460);
        lp.on_ack_feedback(&mut st, &fb(1000, 40, 20));
        lp.on_ack_feedback(&mut st, &fb(1001, 40, 20));
        st.cwnd = 40.0;
        // Well after the start's cut, the queue grows: one-way delays of 30 ms. The smoothed
        // delay (7/8 old + 1/8 new, in eighths: 21, 22, 23 ms) reaches 20 + 15 % of the range
        // 20..40 = 23 at its third step, and the window halves.
        let mut t = 2000;
        let mut cuts = Vec::new();
        for _ in 0..4 {
            t += 1;
            let before = st.cwnd;
            lp.on_ack_feedback(&mut st, &fb(t, 50, 30));
            if st.cwnd < before {
                cuts.push((t, st.cwnd));
            }
        }
        assert_eq!(cuts, vec![(2003, 20.0)]);
        assert_eq!((lp.owd_min, lp.owd_max), (23, 46));
        // The delay keeps rising within 3 RTTs (150 ms) of that cut: the window drops to one.
        for _ in 0..40 {
            t += 1;
            lp.on_ack_feedback(&mut st, &fb(t, 80, 60));
        }
        assert_eq!(st.cwnd, 1.0);
    }

    #[test]
    fn without_timestamps_it_is_reno() {
        let mut lp = Lp::new(LpConfig {});
        let mut st = CcState::new(10.0, 10.0, 1460);
        let plain = AckFeedback { ts: None, ..fb(1000, 40, 20) };
        for _ in 0..10 {
            lp.on_ack_feedback(&mut st, &plain);
            lp.on_ack(&mut st, &ack());
        }
        assert!((st.cwnd - 11.0).abs() < 0.05, "{}", st.cwnd);
    }
}
