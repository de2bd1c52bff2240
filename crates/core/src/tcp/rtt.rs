//! Round-trip time estimation and the retransmission timeout (RFC 6298), in integer nanoseconds.
//!
//! ```text
//! first sample R:       SRTT = R            RTTVAR = R / 2                       (§2.2)
//! later samples R':     RTTVAR = 3/4 RTTVAR + 1/4 |SRTT − R'|                    (§2.3, β = 1/4)
//!                       SRTT   = 7/8 SRTT   + 1/8 R'                             (§2.3, α = 1/8)
//! RTO (rfc6298)  = clamp(SRTT + max(G, K·RTTVAR), min_rto, max_rto)   K = 4       (§2.3–2.5)
//! RTO (linux)    = min(SRTT + max(K·RTTVAR, min_rto), max_rto)          (tcp_set_rto)
//! on expiry:            RTO = min(2·RTO, max_rto)                                (§5.5)
//! ```
//!
//! The backed-off value is kept until a new sample is taken (RFC 6298 §5, the paragraph after
//! rule 5.7: a new measurement "may result in 'collapsing' RTO back down"). Which segments may
//! give a sample (Karn's algorithm) is the scoreboard's business: this estimator takes what it is
//! given.
//!
//! The default rule is Linux's: its estimator floors the variation term (`mdev_max`, K·RTTVAR in
//! RFC terms) at `min_rto` (200 ms), so the timeout never comes closer than `min_rto` to SRTT.
//! Without jitter RTTVAR decays to zero, and the RFC rule with a 200 ms floor then fires
//! spuriously on paths whose RTT exceeds 200 ms. Deviations from Linux: its per-round maximum of
//! mdev (`mdev_max` decays only once per RTT) is not modelled; the RFC's gains are used.

use super::config::{RtoRule, TcpConfig};
use crate::time::SimDuration;

/// Clock granularity G (RFC 6298 §2). Our clock ticks in nanoseconds, so G is a choice, not a
/// fact: 1 ms is the tick of a Linux kernel built with HZ=1000, and keeps a small margin above
/// SRTT on constant-delay paths where RTTVAR decays towards zero.
pub const CLOCK_GRANULARITY: SimDuration = SimDuration::from_millis(1);

/// RTTVAR multiplier K (RFC 6298 §2.2).
const K: u64 = 4;

/// Backoff doublings beyond which the timeout cannot grow anyway (2^40 ns ≈ 18 min > any max_rto
/// a scenario would use); bounds the shift.
const MAX_BACKOFF: u32 = 40;

/// What the retransmission timeout is computed with: the rule and its bounds. A TCP connection
/// takes them from its [`TcpConfig`]; DCCP's CCID 2 sets its own `min_rto`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtoConfig {
    /// How SRTT and RTTVAR make the timeout (see [`RtoRule`]).
    pub rule: RtoRule,
    /// Lower bound of the timeout; with the Linux rule also of its variation term.
    pub min_rto: SimDuration,
    /// The timeout before the first RTT sample (RFC 6298 §2.1).
    pub initial_rto: SimDuration,
    /// Upper bound of the (backed-off) timeout (RFC 6298 §2.5).
    pub max_rto: SimDuration,
}

impl Default for RtoConfig {
    /// Linux's rule and `TCP_RTO_MIN` (200 ms), RFC 6298's initial 1 s and 60 s ceiling: the
    /// values [`TcpConfig::default`] documents.
    fn default() -> Self {
        RtoConfig {
            rule: RtoRule::Linux,
            min_rto: SimDuration::from_millis(200),
            initial_rto: SimDuration::from_secs(1),
            max_rto: SimDuration::from_secs(60),
        }
    }
}

impl From<&TcpConfig> for RtoConfig {
    fn from(cfg: &TcpConfig) -> Self {
        RtoConfig {
            rule: cfg.rto_rule,
            min_rto: cfg.min_rto,
            initial_rto: cfg.initial_rto,
            max_rto: cfg.max_rto,
        }
    }
}

/// SRTT, RTTVAR and the retransmission timeout of one connection.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    /// Smoothed RTT; `None` until the first sample.
    srtt: Option<SimDuration>,
    /// RTT variation (meaningless until the first sample).
    rttvar: SimDuration,
    /// Smallest sample seen; `SimDuration::MAX` before the first (no sample is that long), which
    /// keeps the estimator in 72 bytes with the cached `rto`.
    min_rtt: SimDuration,
    /// Consecutive timeouts since the last sample. I.e. the RTO is the base value times 2^backoff.
    backoff: u32,
    /// The timeout [`RttEstimator::rto`] returns, computed when a sample or a backoff changes it:
    /// a sender reads it after every ACK and, with RACK, after every new segment (the loss
    /// probe's deadline is capped by what the RTO has left), far more often than it changes.
    rto: SimDuration,
    // The configuration's fields, not the `RtoConfig` itself: that would pad the estimator to
    // 80 bytes, and the sender's hot part has no room for 8 more.
    rule: RtoRule,
    min_rto: SimDuration,
    initial_rto: SimDuration,
    max_rto: SimDuration,
}

impl RttEstimator {
    pub fn new(cfg: RtoConfig) -> Self {
        let mut est = RttEstimator {
            srtt: None,
            rttvar: SimDuration::ZERO,
            min_rtt: SimDuration::MAX,
            backoff: 0,
            rto: SimDuration::ZERO,
            rule: cfg.rule,
            min_rto: cfg.min_rto,
            initial_rto: cfg.initial_rto,
            max_rto: cfg.max_rto,
        };
        est.update_rto();
        est
    }

    /// Takes one valid RTT measurement (RFC 6298 §2.2–2.3) and clears any backoff.
    pub fn on_sample(&mut self, r: SimDuration) {
        let r_ns = r.as_nanos();
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = SimDuration(r_ns / 2);
            }
            Some(srtt) => {
                // RTTVAR is updated first, with the old SRTT (§2.3: "in that order"). In 64 bits:
                // a run lasts at most a day (docs/scenario.md, "Limits"), so no sample, SRTT or
                // RTTVAR exceeds 2^48 ns and eight times one cannot overflow.
                let s = srtt.as_nanos();
                debug_assert!(
                    s.max(r_ns).max(self.rttvar.as_nanos()) < 1 << 60,
                    "an RTT beyond any run's length"
                );
                self.rttvar = SimDuration((3 * self.rttvar.as_nanos() + s.abs_diff(r_ns)) / 4);
                self.srtt = Some(SimDuration((7 * s + r_ns) / 8));
            }
        }
        self.min_rtt = self.min_rtt.min(r);
        self.backoff = 0;
        self.update_rto();
    }

    /// The timeout was hit: double the RTO (RFC 6298 §5.5), up to `max_rto`.
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(MAX_BACKOFF);
        self.update_rto();
    }

    /// The retransmission timeout to arm now, backoff included.
    #[inline]
    pub fn rto(&self) -> SimDuration {
        self.rto
    }

    fn update_rto(&mut self) {
        self.rto = self.base_rto().saturating_mul(1u64 << self.backoff).min(self.max_rto);
    }

    /// The timeout before backoff: RFC 6298 §2.1 (no sample), else the configured rule, clamped.
    pub fn base_rto(&self) -> SimDuration {
        let raw = match (self.srtt, self.rule) {
            (None, _) => self.initial_rto,
            (Some(srtt), RtoRule::Rfc6298) => {
                srtt + CLOCK_GRANULARITY.max(self.rttvar.saturating_mul(K))
            }
            (Some(srtt), RtoRule::Linux) => srtt + self.min_rto.max(self.rttvar.saturating_mul(K)),
        };
        raw.max(self.min_rto).min(self.max_rto)
    }

    pub fn srtt(&self) -> Option<SimDuration> {
        self.srtt
    }
    pub fn rttvar(&self) -> SimDuration {
        self.rttvar
    }
    pub fn min_rtt(&self) -> Option<SimDuration> {
        (self.min_rtt != SimDuration::MAX).then_some(self.min_rtt)
    }
    /// Timeouts since the last valid sample.
    pub fn backoff(&self) -> u32 {
        self.backoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimDuration {
        SimDuration::from_millis(v)
    }

    fn estimator() -> RttEstimator {
        RttEstimator::new(RtoConfig::default())
    }

    #[test]
    fn the_default_rto_configuration_is_tcps() {
        assert_eq!(RtoConfig::default(), RtoConfig::from(&TcpConfig::default()));
    }

    #[test]
    fn initial_rto_is_one_second_before_any_sample() {
        let e = estimator();
        assert_eq!(e.srtt(), None);
        assert_eq!(e.rto(), SimDuration::from_secs(1));
    }

    #[test]
    fn first_sample_sets_srtt_to_r_and_rttvar_to_half() {
        let mut e = estimator();
        e.on_sample(ms(300));
        assert_eq!(e.srtt(), Some(ms(300)));
        assert_eq!(e.rttvar(), ms(150));
        // RTO = 300 + 4 · 150 = 900 ms.
        assert_eq!(e.rto(), ms(900));
    }

    #[test]
    fn later_samples_update_rttvar_before_srtt() {
        let mut e = estimator();
        e.on_sample(ms(100));
        e.on_sample(ms(200));
        // RTTVAR = 3/4 · 50 + 1/4 · |100 − 200| = 62.5 ms; SRTT = 7/8 · 100 + 1/8 · 200 = 112.5 ms.
        assert_eq!(e.rttvar(), SimDuration::from_micros(62_500));
        assert_eq!(e.srtt(), Some(SimDuration::from_micros(112_500)));
        assert_eq!(e.rto(), SimDuration::from_micros(112_500 + 250_000));
        assert_eq!(e.min_rtt(), Some(ms(100)));
    }

    fn rfc6298() -> RttEstimator {
        RttEstimator::new(RtoConfig { rule: RtoRule::Rfc6298, ..RtoConfig::default() })
    }

    #[test]
    fn rfc6298_min_rto_floors_the_timeout_on_short_paths() {
        let mut e = rfc6298();
        for _ in 0..50 {
            e.on_sample(ms(10));
        }
        // SRTT = 10 ms and RTTVAR has decayed to ~0: the raw RTO would be 11 ms (G = 1 ms).
        assert_eq!(e.srtt(), Some(ms(10)));
        assert!(e.rttvar() < SimDuration::from_micros(1));
        assert_eq!(e.rto(), ms(200));
    }

    #[test]
    fn rfc6298_timeout_hugs_a_constant_rtt_above_min_rto() {
        let mut e = rfc6298();
        for _ in 0..80 {
            e.on_sample(ms(300));
        }
        assert_eq!(e.rto(), ms(301));
    }

    #[test]
    fn linux_rule_keeps_min_rto_between_srtt_and_the_timeout() {
        let mut e = estimator();
        for _ in 0..80 {
            e.on_sample(ms(10));
        }
        assert_eq!(e.rto(), ms(210));
        for _ in 0..400 {
            e.on_sample(ms(300));
        }
        // SRTT converges to 300 ms within the integer EWMA's truncation (a few ns).
        assert!(e.rto().as_nanos().abs_diff(ms(500).as_nanos()) < 1_000, "{}", e.rto());
        // A large variation dominates the floor: first sample, RTTVAR = 150 ms → 300 + 600.
        let mut e = estimator();
        e.on_sample(ms(300));
        assert_eq!(e.rto(), ms(900));
    }

    #[test]
    fn granularity_bounds_the_variance_term_from_below() {
        let cfg = RtoConfig {
            min_rto: SimDuration::ZERO,
            rule: RtoRule::Rfc6298,
            ..RtoConfig::default()
        };
        let mut e = RttEstimator::new(cfg);
        for _ in 0..80 {
            e.on_sample(ms(10));
        }
        assert_eq!(e.rto(), ms(11));
    }

    #[test]
    fn backoff_doubles_up_to_max_rto() {
        let mut e = estimator();
        e.on_sample(ms(500)); // RTO = 500 + 4 · 250 = 1.5 s
        let expect = [3_000, 6_000, 12_000, 24_000, 48_000, 60_000, 60_000];
        for want in expect {
            e.back_off();
            assert_eq!(e.rto(), ms(want));
        }
        for _ in 0..100 {
            e.back_off();
        }
        assert_eq!(e.rto(), SimDuration::from_secs(60));
    }

    #[test]
    fn backoff_is_kept_until_a_valid_sample_karn() {
        // Karn: ACKs of retransmitted segments give no sample, so the doubled timeout stays in
        // force; the first sample from a segment sent once collapses it.
        let mut e = estimator();
        e.on_sample(ms(100));
        let base = e.rto();
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), base.saturating_mul(4));
        assert_eq!(e.backoff(), 2);
        e.on_sample(ms(100));
        assert_eq!(e.backoff(), 0);
        assert_eq!(e.rto(), e.base_rto());
    }
}
