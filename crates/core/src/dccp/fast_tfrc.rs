//! FAST-TFRC, the congestion control of FAST DCCP (C. A. Froldi, N. L. S. da Fonseca, "A DCCP
//! Variant for High Speed Networks", seed 002 §III): TFRC with a delay-driven multiplicative
//! increase and `max` instead of `min` in the rate updates.
//!
//! ```text
//! R_{i+1} = 0.9·R_i + 0.1·R_sample                                  (2)  = TFRC's RTT filter
//! R_sample = (t_now − t_recvdata) − t_delay                          (3)  = TFRC's sample
//! α = R / R_sample           mean over sampled delay: > 1 means queues are draining
//! X_update = X·α + X                                                 (4)
//! no loss:    X = max(X_update, 2·X, 2·X_recv, s/R)                  (5)  TFRC: (6)
//! after loss: X = max(X_calc,   2·X_recv, s/t_mbi)                   (7)  TFRC: (8)
//!             X_calc = TCP throughput equation, t_mbi = 64 s
//! ```
//!
//! Choices where the paper is silent (each a parameter, defaults chosen to follow TFRC, which
//! the paper modifies, wherever it does not say otherwise):
//! - **Which branch.** Eqs. (6) and (8) are TFRC's p = 0 and p > 0 branches (RFC 3448 §4.3
//!   step 4), so "no loss" is read as p = 0 and "after loss" as p > 0
//!   (`loss_branch = "p_positive"`). The other reading, "this feedback reports a new loss event"
//!   (`"new_loss_event"`), applies eq. (5) to every feedback without a new loss event.
//! - **How often eq. (5) applies.** TFRC doubles at most once per R (t_ld); FAST-TFRC's increase
//!   replaces that doubling, so it too is applied at most once per R
//!   (`increase_once_per_rtt = true`); `false` applies it on every feedback.
//! - **α.** The ratio of the filtered RTT *before* this sample to the sample; X_recv is the value
//!   reported in this feedback (RFC 3448's 2·X_recv, the version the paper modified, not RFC
//!   5348's recv_limit).
//! - Everything else (nofeedback timer, slow-start initial rate, receiver) is TFRC's.

use super::ccid3::Ccid3Config;
use crate::cc::CcParams;
use serde::{Deserialize, Serialize};

/// When the "after loss" rule (7) applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossBranch {
    /// Whenever the loss event rate p is positive (TFRC's branch condition).
    PPositive,
    /// Only on feedback that reports a new loss event (p increased).
    NewLossEvent,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FastTfrcConfig {
    /// When eq. (7) replaces eq. (5) (see the module documentation).
    pub loss_branch: LossBranch,
    /// Apply eq. (5) at most once per RTT, like TFRC's doubling it replaces.
    pub increase_once_per_rtt: bool,
    /// The factor on X_recv in eqs. (5) and (7). Seed 002: 2 (TFRC's 2·X_recv, moved from
    /// `min` into `max`).
    pub recv_multiplier: f64,
    /// t_mbi of eq. (7), seconds. Seed 002 §III: 64 s.
    pub t_mbi_s: f64,
    /// TFRC loss history (RFC 5348 §5.4: 8).
    pub loss_history: usize,
    /// TFRC NDUPACK (RFC 5348 §5.1: 3).
    pub ndupack: u32,
    /// q of eq. (2). Seed 002 eq. (2): 0.9.
    pub rtt_filter_q: f64,
    /// Nofeedback timer before the first feedback, seconds (RFC 5348 §4.2: 2 s).
    pub initial_nofeedback_s: f64,
}

impl Default for FastTfrcConfig {
    fn default() -> Self {
        let t = Ccid3Config::default();
        FastTfrcConfig {
            loss_branch: LossBranch::PPositive,
            increase_once_per_rtt: true,
            recv_multiplier: 2.0,
            t_mbi_s: t.t_mbi_s,
            loss_history: t.loss_history,
            ndupack: t.ndupack,
            rtt_filter_q: t.rtt_filter_q,
            initial_nofeedback_s: t.initial_nofeedback_s,
        }
    }
}

impl CcParams for FastTfrcConfig {}

/// The FAST-specific part, as the TFRC sender uses it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FastRules {
    pub loss_branch: LossBranch,
    pub increase_once_per_rtt: bool,
    pub recv_multiplier: f64,
}

impl FastTfrcConfig {
    /// The TFRC parameters underneath.
    pub fn tfrc(&self) -> Ccid3Config {
        Ccid3Config {
            loss_history: self.loss_history,
            ndupack: self.ndupack,
            t_mbi_s: self.t_mbi_s,
            rtt_filter_q: self.rtt_filter_q,
            initial_nofeedback_s: self.initial_nofeedback_s,
            profile: super::ccid3::TfrcProfile::Rfc5348,
            equation_size: None,
        }
    }

    pub fn fast(&self) -> FastRules {
        FastRules {
            loss_branch: self.loss_branch,
            increase_once_per_rtt: self.increase_once_per_rtt,
            recv_multiplier: self.recv_multiplier,
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        if !(0.0..=16.0).contains(&self.recv_multiplier) {
            return Err(format!(
                "recv_multiplier: {} is out of range: expected 0..16",
                self.recv_multiplier
            ));
        }
        self.tfrc().validate()
    }
}

/// Eq. (4)–(5): the rate after loss-free feedback. `alpha` = R / R_sample, `k` the factor on
/// X_recv (2 in the paper); rates in bytes/s, `s` bytes, `r` seconds.
pub fn rate_without_loss(x: f64, alpha: f64, x_recv: f64, k: f64, s: f64, r: f64) -> f64 {
    let x_update = x * alpha + x;
    x_update.max(2.0 * x).max(k * x_recv).max(s / r)
}

/// Eq. (7): the rate after loss (`k` as above).
pub fn rate_after_loss(x_calc: f64, x_recv: f64, k: f64, s: f64, t_mbi: f64) -> f64 {
    x_calc.max(k * x_recv).max(s / t_mbi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn increase_is_multiplicative_when_queues_drain() {
        // α = 1.5 (mean 150 ms, sample 100 ms): X_update = 2.5·X dominates 2·X.
        assert_eq!(rate_without_loss(1000.0, 1.5, 300.0, 2.0, 100.0, 0.1), 2500.0);
        // α < 1 (queues building): still at least 2·X — eq. (5) never lowers the rate.
        assert_eq!(rate_without_loss(1000.0, 0.5, 300.0, 2.0, 100.0, 0.1), 2000.0);
        // A high receive rate or one packet per RTT can dominate.
        assert_eq!(rate_without_loss(1000.0, 0.5, 3000.0, 2.0, 100.0, 0.1), 6000.0);
        assert_eq!(rate_without_loss(1.0, 0.5, 0.0, 2.0, 100.0, 0.1), 1000.0);
    }

    #[test]
    fn after_loss_takes_the_largest_of_three_rates() {
        assert_eq!(rate_after_loss(5000.0, 1000.0, 2.0, 1460.0, 64.0), 5000.0);
        assert_eq!(rate_after_loss(5000.0, 4000.0, 2.0, 1460.0, 64.0), 8000.0);
        assert_eq!(rate_after_loss(1.0, 0.0, 2.0, 1460.0, 64.0), 1460.0 / 64.0);
    }

    #[test]
    fn branch_names_parse() {
        let c: FastTfrcConfig =
            serde_json::from_value(serde_json::json!({"loss_branch": "new_loss_event"})).unwrap();
        assert_eq!(c.loss_branch, LossBranch::NewLossEvent);
        assert!(serde_json::from_value::<FastTfrcConfig>(
            serde_json::json!({"loss_branch": "sometimes"})
        )
        .is_err());
    }
}
