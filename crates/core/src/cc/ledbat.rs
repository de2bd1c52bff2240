//! LEDBAT, Low Extra Delay Background Transport (RFC 6817; ns-3's `TcpLedbat` for the choices
//! the RFC leaves open).
//!
//! A scavenger: it aims at a fixed queueing delay it adds to the path, so that it uses what the
//! link has spare and yields to any flow that builds a longer queue (Reno, CUBIC):
//!
//! ```text
//! per ACK:  one-way delay d = TSval − TSecr of the ACK                      (RFC 6817 §3.1)
//!           current = min of the last 4 samples (CURRENT_FILTER, §3.4.2)
//!           base    = min of the per-minute minima of the last 10 minutes (BASE_HISTORY, §3.4.1)
//!           off_target = (TARGET − (current − base)) / TARGET          TARGET = 100 ms (§3.2)
//! congestion avoidance:  cwnd += GAIN · off_target · acked / cwnd        GAIN = 1
//!                        cwnd = min(cwnd, flightsize + ALLOWED_INCREASE), ALLOWED_INCREASE = 1
//!                        cwnd = max(cwnd, MIN_CWND),                     MIN_CWND = 2
//! loss:     ssthresh = max(cwnd / 2, MIN_CWND), at most once per window (§2.4.2)
//! start:    Reno slow start until the first loss (ns-3 `SSParam = yes`; `slow_start = false`
//!           starts in congestion avoidance)
//! ```
//!
//! The delay is the timestamps' (RFC 7323, 1-ms clocks: whole milliseconds): a `ledbat` flow has timestamps on. It
//! includes the time the receiver held a delayed ACK; the filter's minimum removes most of it.
//! Sender and receiver clocks agree here, and only differences from the base are used, as
//! across clocks with an offset (§3.1).
//!
//! Not implemented / deviates:
//! - The RFC's one-RTT rule for losses is the transport's once-per-window recovery.
//! - "If no ACKs are received within a CTO, cwnd = 1" is the retransmission timeout's.
//! - Clock drift and the RFC's clock-skew correction (§3.1) do not arise: clocks agree.

use super::{
    check_param, slow_start, AckFeedback, AckSample, CcParams, CcState, CongestionControl,
    CongestionEvent,
};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LedbatConfig {
    /// Queueing delay aimed at, seconds (RFC 6817 §3.2: "TARGET MUST be 100 milliseconds or
    /// less"; ns-3 `TargetDelay` 100 ms).
    pub target_s: f64,
    /// Window gain per unit of off-target (§3.2: "GAIN MUST be set to 1 or less").
    pub gain: f64,
    /// Minutes of per-minute minima the base delay is the minimum of (§3.4.1: 10).
    pub base_history: u32,
    /// Samples the current delay is the minimum of (§3.4.2: 4, ns-3 `NoiseFilterLen`).
    pub current_filter: u32,
    /// Segments the window may exceed the flight size by (§2.4.2 `ALLOWED_INCREASE` = 1).
    pub allowed_increase: f64,
    /// Smallest window, segments (§2.4.2 `MIN_CWND` = 2).
    pub min_cwnd: f64,
    /// Reno slow start until the first loss (ns-3 `SSParam`, default yes).
    pub slow_start: bool,
}

impl Default for LedbatConfig {
    fn default() -> Self {
        LedbatConfig {
            target_s: 0.1,
            gain: 1.0,
            base_history: 10,
            current_filter: 4,
            allowed_increase: 1.0,
            min_cwnd: 2.0,
            slow_start: true,
        }
    }
}

impl CcParams for LedbatConfig {
    fn validate(&self) -> Result<(), String> {
        let t = self.target_s;
        check_param(
            "target_s",
            t,
            (0.001..=0.1).contains(&t),
            "seconds in [0.001, 0.1] (RFC 6817 §3.2: at most 100 ms)",
        )?;
        check_param(
            "gain",
            self.gain,
            self.gain > 0.0 && self.gain <= 1.0,
            "a gain in (0, 1] (RFC 6817 §3.2)",
        )?;
        let (h, f) = (self.base_history, self.current_filter);
        check_param("base_history", h.into(), (1..=60).contains(&h), "minutes from 1 to 60")?;
        check_param("current_filter", f.into(), (1..=64).contains(&f), "samples from 1 to 64")?;
        let a = self.allowed_increase;
        check_param("allowed_increase", a, (1.0..=1e3).contains(&a), "segments in [1, 1000]")?;
        check_param(
            "min_cwnd",
            self.min_cwnd,
            self.min_cwnd >= 1.0 && self.min_cwnd <= 1e3,
            "segments in [1, 1000]",
        )
    }
}

pub struct Ledbat {
    cfg: LedbatConfig,
    /// Per-minute minima of the one-way delay, ms, oldest first (RFC 6817 `base_delays`).
    base: VecDeque<u32>,
    /// The minute (since the start) the last entry of `base` covers (`last_rollover`).
    base_minute: Option<u64>,
    /// The last `current_filter` one-way delays, ms (`current_delays`).
    current: VecDeque<u32>,
    /// Segments in flight before the latest ACK (RFC 6817 `flightsize`).
    flight: u64,
}

impl Ledbat {
    pub fn new(cfg: LedbatConfig) -> Self {
        Ledbat {
            base: VecDeque::with_capacity(cfg.base_history as usize),
            current: VecDeque::with_capacity(cfg.current_filter as usize),
            cfg,
            base_minute: None,
            flight: 0,
        }
    }

    /// The queueing delay estimate, ms (current − base), once a sample was taken.
    pub fn queuing_delay_ms(&self) -> Option<u32> {
        let base = self.base.iter().min()?;
        Some(self.current.iter().min()? - base)
    }

    /// §3.4.1 `update_base_delay`: a new minute starts a new entry, dropping the oldest.
    fn update_base_delay(&mut self, now: SimTime, d: u32) {
        let minute = now.as_nanos() / 60_000_000_000;
        match self.base.back_mut() {
            Some(last) if self.base_minute == Some(minute) => *last = (*last).min(d),
            _ => {
                if self.base.len() == self.cfg.base_history as usize {
                    self.base.pop_front();
                }
                self.base.push_back(d);
                self.base_minute = Some(minute);
            }
        }
    }

    /// §3.4.2 `update_current_delay`.
    fn update_current_delay(&mut self, d: u32) {
        if self.current.len() == self.cfg.current_filter as usize {
            self.current.pop_front();
        }
        self.current.push_back(d);
    }
}

impl CongestionControl for Ledbat {
    fn name(&self) -> &'static str {
        "ledbat"
    }

    fn wants_ack_feedback(&self) -> bool {
        true
    }

    fn on_ack_feedback(&mut self, st: &mut CcState, fb: &AckFeedback) {
        // The window before this ACK's segments leave the flight (RFC 6817: `flightsize` is
        // reduced after the window update).
        self.flight = st.in_flight;
        if let Some(ts) = fb.ts {
            let ms = ts.one_way_delay_ms();
            self.update_base_delay(fb.now, ms);
            self.update_current_delay(ms);
        }
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        let mut acked = ack.acked;
        if self.cfg.slow_start && st.in_slow_start() {
            acked = slow_start(st, acked);
        }
        let Some(queuing_ms) = self.queuing_delay_ms() else {
            // No delay sample yet (the first ACK carries one with timestamps on): Reno.
            super::cong_avoid_ai(st, st.cwnd, acked);
            return;
        };
        if acked == 0 {
            return;
        }
        let target_ms = self.cfg.target_s * 1e3;
        let off_target = (target_ms - f64::from(queuing_ms)) / target_ms;
        st.cwnd += self.cfg.gain * off_target * acked as f64 / st.cwnd;
        st.cwnd =
            st.cwnd.min(self.flight as f64 + self.cfg.allowed_increase).max(self.cfg.min_cwnd);
        // Congestion avoidance from here on: a window cut by delay does not re-enter slow
        // start (ns-3 sets ssthresh below cwnd for the same reason).
        st.ssthresh = st.ssthresh.min(st.cwnd);
    }

    fn on_congestion(&mut self, st: &mut CcState, _ev: &CongestionEvent) {
        // §2.4.2: "cwnd = min(cwnd, max(cwnd/2, MIN_CWND * MSS))", for every kind (a timeout's
        // cwnd of one is the transport's).
        st.ssthresh = (st.cwnd / 2.0).max(self.cfg.min_cwnd);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::AckTimestamps;

    fn fb(now_s: f64, owd_ms: u32) -> AckFeedback {
        AckFeedback {
            now: SimTime::from_nanos((now_s * 1e9) as u64),
            acked: 1,
            ece: false,
            rtt: None,
            ts: Some(AckTimestamps {
                tsval: (now_s * 1e3) as u32 + owd_ms,
                tsecr: (now_s * 1e3) as u32,
            }),
        }
    }

    fn ca_state(cwnd: f64) -> CcState {
        let mut st = CcState::new(cwnd, cwnd, 1460);
        st.in_flight = cwnd as u64;
        st
    }

    fn ack() -> AckSample {
        AckSample { now: SimTime::ZERO, acked: 1, rtt: None }
    }

    #[test]
    fn the_window_moves_by_gain_times_off_target_per_window() {
        let mut l = Ledbat::new(LedbatConfig::default());
        let mut st = ca_state(20.0);
        // Base 20 ms; current 70 ms: 50 ms queued, half the target: +0.5 segment per window.
        l.on_ack_feedback(&mut st, &fb(0.0, 20));
        for _ in 0..4 {
            l.on_ack_feedback(&mut st, &fb(1.0, 70));
        }
        assert_eq!(l.queuing_delay_ms(), Some(50));
        l.on_ack(&mut st, &ack());
        assert!((st.cwnd - (20.0 + 0.5 / 20.0)).abs() < 1e-12, "{}", st.cwnd);
        // 300 ms queued: off_target = −2, the window shrinks by two segments per window.
        for _ in 0..4 {
            l.on_ack_feedback(&mut st, &fb(2.0, 320));
        }
        let before = st.cwnd;
        l.on_ack(&mut st, &ack());
        assert!((st.cwnd - (before - 2.0 / before)).abs() < 1e-12, "{}", st.cwnd);
        // It never goes below MIN_CWND, nor above the flight size plus one.
        let mut st = ca_state(2.0);
        l.on_ack_feedback(&mut st, &fb(3.0, 1000));
        for _ in 0..100 {
            l.on_ack(&mut st, &ack());
        }
        assert_eq!(st.cwnd, 2.0);
        let mut st = ca_state(10.0);
        st.in_flight = 3;
        let mut l = Ledbat::new(LedbatConfig::default());
        l.on_ack_feedback(&mut st, &fb(0.0, 20));
        l.on_ack(&mut st, &ack());
        assert_eq!(st.cwnd, 4.0, "flightsize 3 + ALLOWED_INCREASE 1");
    }

    #[test]
    fn the_current_delay_is_the_minimum_of_the_last_four_samples() {
        let mut l = Ledbat::new(LedbatConfig::default());
        let mut st = ca_state(10.0);
        l.on_ack_feedback(&mut st, &fb(0.0, 10));
        for d in [40, 30, 50, 60] {
            l.on_ack_feedback(&mut st, &fb(0.5, d));
        }
        assert_eq!(l.queuing_delay_ms(), Some(20), "min(40.., 30, 50, 60) − base 10");
        l.on_ack_feedback(&mut st, &fb(0.5, 70));
        assert_eq!(l.queuing_delay_ms(), Some(20), "min(30, 50, 60, 70)");
        l.on_ack_feedback(&mut st, &fb(0.5, 80));
        assert_eq!(l.queuing_delay_ms(), Some(40), "the 30 left the filter: min(50, 60, 70, 80)");
    }

    #[test]
    fn the_base_delay_forgets_a_minimum_after_ten_minutes_of_minute_minima() {
        let mut l = Ledbat::new(LedbatConfig::default());
        let mut st = ca_state(10.0);
        // A 5-ms minimum in minute 0, then 30 ms in every later minute (a route change).
        l.on_ack_feedback(&mut st, &fb(1.0, 5));
        l.on_ack_feedback(&mut st, &fb(59.0, 8));
        for minute in 1..10 {
            l.on_ack_feedback(&mut st, &fb(60.0 * minute as f64 + 1.0, 30));
        }
        assert_eq!(l.base.len(), 10);
        assert_eq!(l.queuing_delay_ms(), Some(25), "minute 0 still counts");
        l.on_ack_feedback(&mut st, &fb(601.0, 30));
        assert_eq!(l.queuing_delay_ms(), Some(0), "minute 0 rolled out: the base is 30 ms");
    }

    #[test]
    fn slow_start_until_the_first_loss_then_congestion_avoidance_only() {
        let mut l = Ledbat::new(LedbatConfig::default());
        let mut st = CcState::new(10.0, f64::INFINITY, 1460);
        st.in_flight = 10;
        l.on_ack_feedback(&mut st, &fb(0.0, 20));
        l.on_ack(&mut st, &AckSample { acked: 2, ..ack() });
        assert_eq!(st.cwnd, 12.0, "slow start: +1 per segment");
        l.on_congestion(&mut st, &crate::cc::ack_clock::loss());
        assert_eq!(st.ssthresh, 6.0);
        st.cwnd = st.ssthresh;
        for _ in 0..4 {
            l.on_ack_feedback(&mut st, &fb(1.0, 400));
        }
        l.on_ack(&mut st, &ack());
        assert!(st.cwnd < 6.0 && !st.in_slow_start(), "{} {}", st.cwnd, st.ssthresh);
        let mut l = Ledbat::new(LedbatConfig { slow_start: false, ..LedbatConfig::default() });
        let mut st = CcState::new(10.0, f64::INFINITY, 1460);
        st.in_flight = 10;
        l.on_ack_feedback(&mut st, &fb(0.0, 20));
        l.on_ack(&mut st, &AckSample { acked: 2, ..ack() });
        assert!((st.cwnd - 10.2).abs() < 1e-12, "{}", st.cwnd);
    }

    #[test]
    fn parameters_beyond_the_rfc_are_refused_by_name() {
        let bad = LedbatConfig { target_s: 0.2, ..LedbatConfig::default() };
        assert!(bad.validate().unwrap_err().starts_with("target_s: 0.2 is out of range"));
        let bad = LedbatConfig { gain: 2.0, ..LedbatConfig::default() };
        assert!(bad.validate().unwrap_err().starts_with("gain: 2"));
    }
}
