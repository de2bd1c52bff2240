//! TCP Westwood+ (L. A. Grieco, S. Mascolo, "Performance evaluation and comparison of
//! Westwood+, New Reno, and Vegas TCP congestion control", ACM SIGCOMM CCR 34(2), 2004; Linux
//! `tcp_westwood.c`, the same code since 2.6.13 and in ns-2's TCP-Linux).
//!
//! Reno's window, with a different answer to congestion: instead of halving, the sender falls
//! back to the bandwidth it has measured times the smallest RTT it has seen, the path's
//! bandwidth-delay product, so that a loss not caused by its own queue (a random loss, a short
//! burst of others' traffic) costs it little:
//!
//! ```text
//! per ACK:    bk += segments newly delivered
//! once per RTT (at least 50 ms):   b = bk / Δt
//!             bw_ns = 7/8 bw_ns + 1/8 b      bw = 7/8 bw + 1/8 bw_ns     (the first sample sets both)
//! fast retransmit:   ssthresh = max(cwnd/2, 2)                  (tcp_reno_ssthresh)
//! recovery ends:     cwnd = ssthresh = max(bw · rtt_min, 2)     (CA_EVENT_COMPLETE_CWR)
//! timeout:           ssthresh = max(bw · rtt_min, 2); rtt_min restarts from the next sample
//! otherwise:         Reno (slow start, +1 segment per RTT)
//! ```
//!
//! The "+" of Westwood+ is the sampling once per RTT: Westwood's per-ACK samples alias when ACKs
//! are compressed (Grieco & Mascolo 2004 §2).
//!
//! Not implemented / deviates:
//! - Linux counts bytes acknowledged, a duplicate ACK as one segment until the next cumulative
//!   ACK corrects it (`westwood_acked_count`); here the transport's count of segments newly
//!   delivered (cumulatively or by SACK), the same total over a window.

use super::{
    cong_avoid_ai, slow_start, AckSample, CcParams, CcState, CongestionControl, CongestionEvent,
    CongestionKind, RateSample,
};
use crate::time::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

/// The shortest interval a bandwidth sample covers (Linux `TCP_WESTWOOD_RTT_MIN`, HZ/20): on a
/// LAN the samples span 50 ms, not one short RTT.
const MIN_SAMPLE_INTERVAL: SimDuration = SimDuration::from_millis(50);

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WestwoodConfig {}

impl CcParams for WestwoodConfig {}

pub struct Westwood {
    /// The bandwidth estimate and its first filter stage, segments per second (Linux `bw_est`,
    /// `bw_ns_est`).
    bw: f64,
    bw_ns: f64,
    /// Segments delivered since the current sample began (`bk`) and when it began.
    bk: u64,
    sample_start: Option<SimTime>,
    /// The latest RTT sample and the smallest since the last timeout.
    rtt: Option<SimDuration>,
    rtt_min: Option<SimDuration>,
    /// After a timeout the next RTT sample becomes `rtt_min` (Linux `reset_rtt_min`).
    reset_rtt_min: bool,
}

impl Westwood {
    pub fn new(_cfg: WestwoodConfig) -> Self {
        Westwood {
            bw: 0.0,
            bw_ns: 0.0,
            bk: 0,
            sample_start: None,
            rtt: None,
            rtt_min: None,
            reset_rtt_min: true,
        }
    }

    /// The bandwidth estimate, segments per second.
    pub fn bandwidth(&self) -> f64 {
        self.bw
    }

    /// The window to fall back to: the estimated bandwidth-delay product, at least 2 segments
    /// (`tcp_westwood_bw_rttmin`).
    fn bdp(&self) -> f64 {
        let rtt_min = self.rtt_min.map_or(0.0, SimDuration::as_secs_f64);
        (self.bw * rtt_min).max(2.0)
    }

    /// Closes the current sample when an RTT (and at least 50 ms) has passed
    /// (`westwood_update_window`, `westwood_filter`).
    fn update_window(&mut self, now: SimTime) {
        let start = *self.sample_start.get_or_insert(now);
        let Some(rtt) = self.rtt else { return };
        let elapsed = now - start;
        if elapsed > rtt.max(MIN_SAMPLE_INTERVAL) {
            let sample = self.bk as f64 / elapsed.as_secs_f64();
            if self.bw == 0.0 && self.bw_ns == 0.0 {
                self.bw_ns = sample;
                self.bw = sample;
            } else {
                self.bw_ns = (7.0 * self.bw_ns + sample) / 8.0;
                self.bw = (7.0 * self.bw + self.bw_ns) / 8.0;
            }
            self.bk = 0;
            self.sample_start = Some(now);
        }
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        let acked = slow_start(st, ack.acked);
        if acked > 0 {
            let w = st.cwnd;
            cong_avoid_ai(st, w, acked);
        }
    }

    fn on_rtt_sample(&mut self, _st: &mut CcState, _now: SimTime, rtt: SimDuration) {
        self.rtt = Some(rtt);
        self.rtt_min = match (self.reset_rtt_min, self.rtt_min) {
            (false, Some(m)) => Some(m.min(rtt)),
            _ => Some(rtt),
        };
        self.reset_rtt_min = false;
    }

    fn on_rate_sample(&mut self, _st: &mut CcState, rs: &RateSample) {
        self.update_window(rs.now);
        self.bk += rs.acked_sacked;
    }

    fn wants_rate_samples(&self) -> bool {
        true
    }

    fn on_congestion(&mut self, st: &mut CcState, ev: &CongestionEvent) {
        if ev.kind == CongestionKind::Timeout {
            st.ssthresh = self.bdp();
            self.reset_rtt_min = true;
        } else {
            st.ssthresh = (st.cwnd / 2.0).max(2.0);
        }
    }

    fn on_recovery_exit(&mut self, st: &mut CcState, _now: SimTime) {
        st.ssthresh = self.bdp();
        st.cwnd = st.ssthresh;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::ack_clock::AckClock;

    const RTT: SimDuration = SimDuration::from_millis(100);
    /// A bottleneck of 1000 segments per second: 100 segments per RTT.
    const TX: SimDuration = SimDuration::from_millis(1);

    /// A Westwood+ sender that has filled a 100-segment pipe and a 100-segment queue for `secs`.
    fn queued_sender(secs: u64) -> (Westwood, AckClock) {
        let mut w = Westwood::new(WestwoodConfig::default());
        let mut clock = AckClock::new(&mut w, 200.0, 200.0, RTT, TX);
        clock.run_until(&mut w, SimTime::ZERO + SimDuration::from_secs(secs));
        (w, clock)
    }

    #[test]
    fn the_estimate_converges_to_the_bottleneck_rate() {
        let (w, _) = queued_sender(10);
        assert!((w.bandwidth() / 1000.0 - 1.0).abs() < 0.03, "{} segments/s", w.bandwidth());
    }

    #[test]
    fn after_recovery_the_window_is_the_path_bdp_not_half_the_window() {
        // 100 queued on top of the 100 the path holds: Reno halves to ~100 + growth; Westwood+
        // falls to bandwidth × the smallest RTT (the propagation delay plus one segment's time).
        let (mut w, mut clock) = queued_sender(10);
        let before = clock.st.cwnd;
        clock.loss(&mut w);
        assert!(
            (clock.st.ssthresh - before / 2.0).abs() < 1e-9,
            "fast retransmit: Reno's ssthresh"
        );
        let end = clock.now + SimDuration::from_secs(1);
        while clock.st.cwnd < 1000.0 && clock.now < end && clock.st.ssthresh == before / 2.0 {
            clock.step(&mut w);
        }
        assert!((clock.st.cwnd - 101.0).abs() < 4.0, "cwnd {} after recovery", clock.st.cwnd);
        assert_eq!(clock.st.cwnd, clock.st.ssthresh);
    }

    #[test]
    fn a_timeout_falls_back_to_the_bdp_and_restarts_the_rtt_minimum() {
        let (mut w, mut clock) = queued_sender(10);
        clock.timeout(&mut w);
        assert!((clock.st.ssthresh - 101.0).abs() < 4.0, "{}", clock.st.ssthresh);
        assert_eq!(clock.st.cwnd, 1.0);
        w.on_rtt_sample(&mut clock.st, clock.now, SimDuration::from_millis(300));
        assert_eq!(w.rtt_min, Some(SimDuration::from_millis(300)));
    }

    #[test]
    fn without_a_sample_the_fallback_is_two_segments() {
        let w = Westwood::new(WestwoodConfig::default());
        assert_eq!(w.bdp(), 2.0);
    }
}
