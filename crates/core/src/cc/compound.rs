//! Compound TCP (K. Tan, J. Song, Q. Zhang, M. Sridharan, "A Compound TCP approach for
//! high-speed and long distance networks", IEEE INFOCOM 2006; Microsoft TR-2005-86), with the
//! round-trip sampling of the Linux port (`tcp_compound.c`, Castellani, Hemminger, Andrew).
//!
//! ```text
//! win  = min(cwnd + dwnd, awnd)            loss-based part cwnd + delay-based part dwnd
//! per ACK in congestion avoidance:   cwnd += 1/win                     (Reno on the loss part)
//! slow start (win < ssthresh):       Reno slow start, dwnd = 0         (delay part inactive)
//! once per round trip, in congestion avoidance, RTT = min RTT sample of the round:
//!     Expected = win/baseRTT,  Actual = win/RTT
//!     diff     = (Expected − Actual)·baseRTT = win·(1 − baseRTT/RTT)   segments queued
//!     diff < γ:   dwnd ← dwnd + max(α·win^k − 1, 0)
//!     diff ≥ γ:   dwnd ← max(dwnd − ζ·diff, 0)
//! on loss:        dwnd ← max(win·(1 − β) − cwnd/2, 0),  cwnd ← cwnd/2
//!                 (so the total window becomes max(win·(1 − β), cwnd/2))
//! α = 1/8, β = 1/2, k = 3/4, γ = 30 segments, ζ = 1 (Tan et al. 2006, §4)
//! ```
//!
//! Mapping onto the transport: the transport owns `st.cwnd`, which here is the *total* window
//! win = cwnd + dwnd (awnd is applied by the transport as the receiver window). The loss-based
//! `cwnd` and `dwnd` are internal. On loss we set `st.ssthresh` to the new total, so when fast
//! recovery ends (cwnd = ssthresh) the window is exactly cwnd/2 + new dwnd. Whenever the
//! transport changes `st.cwnd` itself (a timeout's cwnd = 1, NewReno's partial-ACK deflation,
//! the floor of 2), the components are reconciled as in the Linux port: a smaller total first
//! shrinks cwnd keeping dwnd, and if dwnd alone exceeds it, dwnd = 0 and cwnd = the total; a
//! larger total goes to cwnd.
//!
//! Deviations / not implemented:
//! - γ auto-tuning (CTCP-TUBE, the Linux port's `GAMMA_LOW`..`GAMMA_HIGH`): γ is fixed.
//! - RTT is the minimum sample of the round (Linux port; filters delayed-ACK noise) and a round
//!   with fewer than 3 samples makes no dwnd decision (Linux port `cntRTT > 2`). The paper's win
//!   is the current window; the Linux port uses the data sent in the last round (equal when the
//!   sender is window-limited, the only time `on_ack` runs).
//! - Timeout: ssthresh as for a loss, then dwnd = 0 and slow start from the transport's cwnd = 1
//!   (the paper does not specify; the Linux port zeroes dwnd through the reconciliation).
//! - The paper's cap on win by awnd is the transport's receiver window (not seen here).

use super::round_rtt::RoundRtt;
use super::{
    check_param, slow_start, AckSample, CcParams, CcState, CongestionControl, CongestionEvent,
    CongestionKind, MAX_SEGMENTS,
};
use crate::time::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CompoundConfig {
    /// Scale of the delay window's increase α·win^k (Tan et al. 2006 §4: 1/8).
    pub alpha: f64,
    /// Multiplicative decrease of the total window on loss (Tan et al. 2006 §4: 1/2).
    pub beta: f64,
    /// Exponent of the delay window's increase (Tan et al. 2006 §4: 0.75, HighSpeed-like).
    pub k: f64,
    /// Segments queued above which dwnd shrinks (Tan et al. 2006 §4: 30).
    pub gamma: f64,
    /// Rate of dwnd's decrease per queued segment (Tan et al. 2006 §4: ζ = 1; Linux port `ETA`).
    pub zeta: f64,
    /// Decrease of the loss-based part on loss, cwnd ← cwnd·(1 − reno_beta) (Tan et al. 2006:
    /// cwnd/2, standard TCP).
    pub reno_beta: f64,
    /// Fewest RTT samples in a round for a dwnd decision (Linux port: `cntRTT > 2`).
    pub min_rtt_samples: u32,
}

impl CcParams for CompoundConfig {
    fn validate(&self) -> Result<(), String> {
        let c = self;
        // dwnd grows by α·win^k per RTT: α > 10 would outgrow slow start at any window.
        check_param("alpha", c.alpha, (0.0..=10.0).contains(&c.alpha), "a factor in [0, 10]")?;
        check_param("beta", c.beta, c.beta > 0.0 && c.beta < 1.0, "a factor in (0, 1)")?;
        check_param("k", c.k, (0.0..=1.0).contains(&c.k), "an exponent in [0, 1]")?;
        check_param(
            "gamma",
            c.gamma,
            (0.0..=MAX_SEGMENTS).contains(&c.gamma),
            "segments in [0, 1000000]",
        )?;
        // dwnd shrinks by ζ per queued segment per RTT: beyond 1000 any queue empties dwnd at once.
        check_param("zeta", c.zeta, (0.0..=1000.0).contains(&c.zeta), "a factor in [0, 1000]")?;
        check_param(
            "reno_beta",
            c.reno_beta,
            c.reno_beta > 0.0 && c.reno_beta < 1.0,
            "a factor in (0, 1)",
        )
    }
}

impl Default for CompoundConfig {
    fn default() -> Self {
        CompoundConfig {
            alpha: 0.125,       // Tan et al. INFOCOM 2006 §4: α = 1/8
            beta: 0.5,          // Tan et al. INFOCOM 2006 §4: β = 1/2
            k: 0.75,            // Tan et al. INFOCOM 2006 §4: k = 0.75
            gamma: 30.0,        // Tan et al. INFOCOM 2006 §4: γ = 30 packets
            zeta: 1.0,          // Tan et al. INFOCOM 2006 §4: ζ = 1
            reno_beta: 0.5,     // Tan et al. INFOCOM 2006 eq. (4): cwnd/2
            min_rtt_samples: 3, // Linux tcp_compound.c: cntRTT > 2
        }
    }
}

pub struct Compound {
    cfg: CompoundConfig,
    /// Loss-based window, segments.
    cwnd: f64,
    /// Delay-based window, segments, ≥ 0.
    dwnd: f64,
    rounds: RoundRtt,
}

/// Tolerance when comparing the transport's window with cwnd + dwnd.
const EPS: f64 = 1e-9;

impl Compound {
    pub fn new(cfg: CompoundConfig) -> Self {
        Compound { cfg, cwnd: 0.0, dwnd: 0.0, rounds: RoundRtt::default() }
    }

    /// The delay-based window, segments.
    pub fn dwnd(&self) -> f64 {
        self.dwnd
    }

    /// The loss-based window, segments.
    pub fn loss_window(&self) -> f64 {
        self.cwnd
    }

    /// Follows changes the transport made to the total window (see the module comment).
    fn reconcile(&mut self, st: &CcState) {
        let total = self.cwnd + self.dwnd;
        if st.cwnd < total - EPS {
            if self.dwnd >= st.cwnd || self.cwnd > st.cwnd {
                self.cwnd = st.cwnd;
                self.dwnd = 0.0;
            } else {
                self.cwnd = st.cwnd - self.dwnd;
            }
        } else if st.cwnd > total + EPS {
            self.cwnd = st.cwnd - self.dwnd;
        }
    }

    /// The per-round delay-window rule, given the round's RTT.
    fn update_dwnd(&mut self, base: SimDuration, rtt: SimDuration) {
        let win = self.cwnd + self.dwnd;
        let diff = win * (1.0 - base.as_secs_f64() / rtt.as_secs_f64()).max(0.0);
        self.dwnd = if diff < self.cfg.gamma {
            self.dwnd + (self.cfg.alpha * win.powf(self.cfg.k) - 1.0).max(0.0)
        } else {
            (self.dwnd - self.cfg.zeta * diff).max(0.0)
        };
    }
}

impl CongestionControl for Compound {
    fn name(&self) -> &'static str {
        "compound"
    }

    fn on_rtt_sample(&mut self, _st: &mut CcState, _now: SimTime, rtt: SimDuration) {
        self.rounds.on_sample(rtt);
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        self.reconcile(st);
        let mut acked = ack.acked;
        if st.in_slow_start() {
            acked = slow_start(st, acked);
            self.cwnd = st.cwnd - self.dwnd;
        }
        if acked > 0 {
            // Reno on the loss-based part, one segment per window of ACKs.
            self.cwnd += acked as f64 / (self.cwnd + self.dwnd).max(1.0);
        }
        if let Some(round) = self.rounds.end_of_round(st) {
            let measured = round.samples >= self.cfg.min_rtt_samples && !st.in_slow_start();
            if let (true, Some(rtt), Some(base)) = (measured, round.min_rtt, self.rounds.base()) {
                self.update_dwnd(base, rtt);
            }
        }
        st.cwnd = self.cwnd + self.dwnd;
    }

    fn on_congestion(&mut self, st: &mut CcState, ev: &CongestionEvent) {
        self.reconcile(st);
        let win = self.cwnd + self.dwnd;
        let cwnd = self.cwnd * (1.0 - self.cfg.reno_beta);
        let dwnd = (win * (1.0 - self.cfg.beta) - cwnd).max(0.0);
        st.ssthresh = (cwnd + dwnd).max(2.0);
        if ev.kind == CongestionKind::Timeout {
            // Slow start from the transport's cwnd = 1 with the loss-based part alone.
            self.cwnd = 1.0;
            self.dwnd = 0.0;
        } else {
            self.cwnd = cwnd;
            self.dwnd = dwnd;
        }
        self.rounds.restart(st);
    }

    fn on_recovery_exit(&mut self, st: &mut CcState, _now: SimTime) {
        self.reconcile(st);
        self.rounds.restart(st);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::round_rtt::testing::{ms, Driver};

    /// A Compound sender in congestion avoidance with loss window `cwnd` and delay window
    /// `dwnd`, having seen baseRTT = 100 ms.
    fn in_avoidance(cwnd: f64, dwnd: f64) -> (Compound, Driver) {
        let mut c = Compound::new(CompoundConfig::default());
        let mut d = Driver::new(cwnd + dwnd, 2.0);
        d.round(&mut c, ms(100.0)); // the first ACK ends an empty round
        c.cwnd = cwnd;
        c.dwnd = dwnd;
        d.st.cwnd = cwnd + dwnd;
        (c, d)
    }

    #[test]
    fn dwnd_grows_by_alpha_win_to_the_k_minus_one_per_round_below_gamma() {
        let (mut c, mut d) = in_avoidance(100.0, 0.0);
        // diff = 100 · (1 − 100/110) = 9.1 < γ = 30.
        d.round(&mut c, ms(110.0));
        // The loss part gained one segment over the round's ~100 ACKs (1/win each) first; the
        // round's end added α·win^k − 1 with that window.
        let win = c.loss_window();
        assert!((win - 101.0).abs() < 0.02, "{win}");
        let grown = 0.125 * win.powf(0.75) - 1.0; // ≈ 2.97
        assert!((c.dwnd() - grown).abs() < 1e-9, "{} vs {grown}", c.dwnd());
        assert_eq!(d.st.cwnd, c.loss_window() + c.dwnd());
        // Small windows: α·win^k < 1, no delay-based growth (win^0.75 < 8 ⇔ win < 16).
        let (mut c, mut d) = in_avoidance(12.0, 0.0);
        d.round(&mut c, ms(100.0));
        assert_eq!(c.dwnd(), 0.0);
    }

    #[test]
    fn dwnd_shrinks_by_zeta_diff_at_or_above_gamma() {
        let (mut c, mut d) = in_avoidance(100.0, 40.0);
        // diff = 140 · (1 − 100/130) = 32.3 ≥ 30: dwnd = 40 − 32.3.
        d.round(&mut c, ms(130.0));
        let win = c.loss_window() + 40.0;
        let expected = 40.0 - win * (1.0 - 100.0 / 130.0);
        assert!((c.dwnd() - expected).abs() < 1e-9, "{} vs {expected}", c.dwnd());
        assert!(c.dwnd() > 7.0 && c.dwnd() < 8.0);
        // Far above γ: diff = 70 > dwnd, so the delay window is gone; the loss part remains.
        d.round(&mut c, ms(200.0));
        assert_eq!(c.dwnd(), 0.0);
        assert!(c.loss_window() > 100.0);
        assert_eq!(d.st.cwnd, c.loss_window());
    }

    #[test]
    fn loss_sets_dwnd_to_win_times_one_minus_beta_minus_half_cwnd() {
        let (mut c, mut d) = in_avoidance(100.0, 40.0);
        let ev = CongestionEvent { now: d.now, kind: CongestionKind::Loss, flight_size: 140 };
        c.on_congestion(&mut d.st, &ev);
        // dwnd = 140 · ½ − 50 = 20, cwnd = 50: the total (and ssthresh) is 70.
        assert_eq!((c.loss_window(), c.dwnd(), d.st.ssthresh), (50.0, 20.0, 70.0));
        // After SACK recovery the transport sets cwnd = ssthresh: nothing to reconcile.
        d.st.cwnd = d.st.ssthresh;
        c.on_recovery_exit(&mut d.st, d.now);
        assert_eq!((c.loss_window(), c.dwnd()), (50.0, 20.0));
        // With no delay window the rule is Reno's halving.
        let (mut c, mut d) = in_avoidance(100.0, 0.0);
        c.on_congestion(&mut d.st, &ev);
        assert_eq!((c.loss_window(), c.dwnd(), d.st.ssthresh), (50.0, 0.0, 50.0));
    }

    #[test]
    fn slow_start_is_renos_with_no_delay_window() {
        let mut c = Compound::new(CompoundConfig::default());
        let mut d = Driver::new(10.0, f64::INFINITY);
        for _ in 0..4 {
            d.round(&mut c, ms(100.0));
        }
        assert!(d.st.cwnd > 70.0 && d.st.in_slow_start());
        assert_eq!(c.dwnd(), 0.0);
        assert_eq!(c.loss_window(), d.st.cwnd);
    }

    #[test]
    fn a_timeout_zeroes_dwnd_and_the_window_restarts_from_the_transports_cwnd() {
        let (mut c, mut d) = in_avoidance(100.0, 40.0);
        let ev = CongestionEvent { now: d.now, kind: CongestionKind::Timeout, flight_size: 140 };
        c.on_congestion(&mut d.st, &ev);
        assert_eq!(d.st.ssthresh, 70.0);
        d.st.cwnd = 1.0; // the transport
        for _ in 0..5 {
            d.ack(&mut c, ms(100.0));
        }
        assert_eq!(c.dwnd(), 0.0);
        assert_eq!(c.loss_window(), d.st.cwnd);
        assert!(d.st.cwnd >= 2.0 && d.st.in_slow_start());
    }

    #[test]
    fn a_smaller_window_set_by_the_transport_shrinks_the_loss_part_first() {
        let (mut c, mut d) = in_avoidance(50.0, 20.0);
        d.st.cwnd = 60.0; // e.g. NewReno: min(ssthresh, FlightSize + 1)
        c.on_recovery_exit(&mut d.st, d.now);
        assert_eq!((c.loss_window(), c.dwnd()), (40.0, 20.0));
        d.st.cwnd = 15.0; // below dwnd: only the loss part survives
        c.on_recovery_exit(&mut d.st, d.now);
        assert_eq!((c.loss_window(), c.dwnd()), (15.0, 0.0));
    }
}
