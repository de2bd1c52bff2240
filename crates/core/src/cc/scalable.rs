//! Scalable TCP (T. Kelly, "Scalable TCP: improving performance in highspeed wide area
//! networks", ACM SIGCOMM CCR 33(2), 2003; Linux `tcp_scalable.c`).
//!
//! Multiplicative increase, multiplicative decrease above a legacy window, Reno below it:
//!
//! ```text
//! cwnd > low_window:   per acked segment   cwnd += a                  a = 0.01
//!                      on loss             ssthresh = (1 − b) · cwnd  b = 0.125
//! cwnd ≤ low_window:   Reno (cwnd += acked/cwnd; ssthresh = cwnd/2)   low_window = 16 (Kelly's lwnd)
//! ```
//!
//! Per round trip the window grows by the factor (1 + a), so the time to regain the window after
//! a loss is ln(1/(1 − b)) / ln(1 + a) ≈ 13.4 RTTs whatever the window, and the mean window under
//! a loss rate p is ≈ 1 / (13.4 p): proportional to 1/p (Reno: 1/√p).
//!
//! Presets (Linux names the same constants differently: `tcp_cong_avoid_ai(min(cwnd, AI_CNT))`
//! grows by 1/AI_CNT per segment above AI_CNT and as Reno below, and `cwnd − cwnd>>3` is the
//! decrease at every window):
//! - `scalable@linux`: AI_CNT = 100 → a = 0.01, low_window = 100, no legacy decrease.
//! - `scalable@linux-2.6.22`: AI_CNT = 50 counted per ACK ("50 instead of 100 to account for
//!   delayed ack") → a = 0.02 per segment without delayed ACKs, low_window = 50, no legacy decrease.
//!
//! Not implemented / deviates:
//! - Kelly's integer decrease cwnd − ⌈b·cwnd⌉ is applied as (1 − b)·cwnd (windows are fractional).
//! - Linux 2.6.22 counts ACKs, not segments; with `delayed_ack = true` its preset grows twice as
//!   fast here as it did there.

use super::{
    check_param, cong_avoid_ai, slow_start, AckSample, CcParams, CcState, CongestionControl,
    CongestionEvent, MAX_SEGMENTS,
};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ScalableConfig {
    /// Increase per acknowledged segment above `low_window`, segments (Kelly 2003: a = 0.01).
    pub a: f64,
    /// Fraction of the window removed on loss above `low_window` (Kelly 2003: b = 0.125).
    pub b: f64,
    /// Legacy window: at or below it Scalable TCP behaves as Reno (Kelly 2003: lwnd = 16).
    pub low_window: f64,
    /// Whether the decrease is Reno's halving at or below `low_window` (Kelly 2003) or always
    /// (1 − b) (Linux).
    pub legacy_decrease: bool,
}

impl Default for ScalableConfig {
    fn default() -> Self {
        ScalableConfig { a: 0.01, b: 0.125, low_window: 16.0, legacy_decrease: true }
    }
}

impl CcParams for ScalableConfig {
    const PRESETS: &'static [(&'static str, &'static str)] = &[
        ("linux", "Linux tcp_scalable.c since 4.x: TCP_SCALABLE_AI_CNT = 100, MD_SCALE = 3, no legacy decrease"),
        ("linux-2.6.22", "Linux 2.6.22 tcp_scalable.c (ns-2 TCP-Linux): TCP_SCALABLE_AI_CNT = 50 per ACK, MD_SCALE = 3"),
    ];

    fn preset(name: &str) -> Option<Self> {
        match name {
            "linux" => Some(ScalableConfig {
                a: 1.0 / 100.0,
                b: 1.0 / 8.0,
                low_window: 100.0,
                legacy_decrease: false,
            }),
            "linux-2.6.22" => Some(ScalableConfig {
                a: 1.0 / 50.0,
                b: 1.0 / 8.0,
                low_window: 50.0,
                legacy_decrease: false,
            }),
            _ => None,
        }
    }

    fn validate(&self) -> Result<(), String> {
        if !(self.a > 0.0 && self.a <= 1.0) {
            return Err(format!(
                "a: {} is out of range: expected 0 < a <= 1 segment per acked segment",
                self.a
            ));
        }
        if !(self.b > 0.0 && self.b < 1.0) {
            return Err(format!("b: {} is out of range: expected 0 < b < 1", self.b));
        }
        check_param(
            "low_window",
            self.low_window,
            (0.0..=MAX_SEGMENTS).contains(&self.low_window),
            "segments in [0, 1000000]",
        )
    }
}

pub struct Scalable {
    cfg: ScalableConfig,
}

impl Scalable {
    pub fn new(cfg: ScalableConfig) -> Self {
        Scalable { cfg }
    }

    fn legacy(&self, cwnd: f64) -> bool {
        cwnd <= self.cfg.low_window
    }
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        let acked = slow_start(st, ack.acked);
        if acked == 0 {
            return;
        }
        if self.legacy(st.cwnd) {
            let w = st.cwnd;
            cong_avoid_ai(st, w, acked);
        } else {
            st.cwnd += self.cfg.a * acked as f64;
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, _ev: &CongestionEvent) {
        let keep =
            if self.cfg.legacy_decrease && self.legacy(st.cwnd) { 0.5 } else { 1.0 - self.cfg.b };
        st.ssthresh = (keep * st.cwnd).max(2.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::ack_clock::{ack, loss};
    use crate::cc::CcConfig;

    /// Round trips to regain window `w` after one loss: each round acknowledges ⌊cwnd⌋ segments.
    fn rounds_to_recover(cfg: ScalableConfig, w: f64) -> u32 {
        let mut s = Scalable::new(cfg);
        let mut st = CcState::new(w, w, 1460);
        s.on_congestion(&mut st, &loss());
        st.cwnd = st.ssthresh;
        let mut rounds = 0;
        while st.cwnd < w {
            for _ in 0..st.cwnd as u64 {
                s.on_ack(&mut st, &ack(1));
            }
            rounds += 1;
        }
        rounds
    }

    #[test]
    fn recovery_time_after_a_loss_does_not_depend_on_the_window() {
        let cfg = ScalableConfig::default();
        let expected = (1.0 / (1.0 - cfg.b)).ln() / (1.0 + cfg.a).ln(); // 13.42 RTTs
        let rounds: Vec<u32> =
            [100.0, 1000.0, 10000.0].iter().map(|&w| rounds_to_recover(cfg.clone(), w)).collect();
        for &n in &rounds {
            assert!((n as f64 - expected).abs() <= 1.0, "{rounds:?} vs {expected}");
        }
        assert!(rounds.iter().max().unwrap() - rounds.iter().min().unwrap() <= 1, "{rounds:?}");
        // Reno's recovery time is w/2 RTTs: the property is Scalable's, not every algorithm's.
        let reno_like = ScalableConfig { low_window: 1e9, legacy_decrease: true, ..cfg };
        assert!(
            rounds_to_recover(reno_like.clone(), 1000.0)
                > 10 * rounds_to_recover(reno_like, 100.0) / 2
        );
    }

    #[test]
    fn increase_is_a_per_segment_above_the_legacy_window_and_reno_below() {
        let mut s = Scalable::new(ScalableConfig::default());
        let mut st = CcState::new(500.0, 100.0, 1460);
        for _ in 0..500 {
            s.on_ack(&mut st, &ack(1));
        }
        assert!((st.cwnd - 505.0).abs() < 1e-9, "{}", st.cwnd);
        let mut st = CcState::new(10.0, 5.0, 1460);
        for _ in 0..10 {
            s.on_ack(&mut st, &ack(1));
        }
        assert!((st.cwnd - 11.0).abs() < 0.05, "{}", st.cwnd);
    }

    #[test]
    fn decrease_is_one_eighth_above_the_legacy_window_and_half_below() {
        let mut s = Scalable::new(ScalableConfig::default());
        let mut st = CcState::new(800.0, 100.0, 1460);
        s.on_congestion(&mut st, &loss());
        assert_eq!(st.ssthresh, 700.0);
        let mut st = CcState::new(12.0, 100.0, 1460);
        s.on_congestion(&mut st, &loss());
        assert_eq!(st.ssthresh, 6.0);
        // Linux: cwnd − cwnd/8 at every window, Reno increase below AI_CNT = 100.
        let mut linux = Scalable::new(ScalableConfig::preset("linux").unwrap());
        let mut st = CcState::new(12.0, 100.0, 1460);
        linux.on_congestion(&mut st, &loss());
        assert_eq!(st.ssthresh, 10.5);
    }

    #[test]
    fn bad_parameters_are_one_line_errors() {
        let e = CcConfig::from_name("scalable", Some(&serde_json::json!({"b": 1.5}))).unwrap_err();
        assert!(e.starts_with("b: 1.5 is out of range"), "{e}");
        let e = CcConfig::from_name("scalable@linux", Some(&serde_json::json!({"a": -0.01})))
            .unwrap_err();
        assert!(e.starts_with("a: -0.01"), "{e}");
        assert_eq!(
            CcConfig::from_name("scalable@linux-2.6.22", None).unwrap().params_json()["a"],
            0.02
        );
    }
}
