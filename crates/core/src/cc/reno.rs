//! Reno congestion avoidance (RFC 5681; Linux `tcp_reno_cong_avoid`, `tcp_reno_ssthresh`).
//!
//! ```text
//! slow start (cwnd < ssthresh):  cwnd += acked
//! congestion avoidance:          cwnd += acked / cwnd        (≈ +1 segment per RTT)
//! on loss / ECN / quench:        ssthresh = max(beta · W, 2)   beta = 1/2
//! on timeout:                    ssthresh = max(beta · W, 2)   (cwnd → 1 by the transport)
//! W = cwnd (`basis = "cwnd"`, Linux tcp_reno_ssthresh; ns-2's window()) or
//!     FlightSize (`basis = "flight_size"`, RFC 5681 eq. 4)
//! ```
//!
//! The two agree when the sender is window-limited without SACK; with SACK, FlightSize
//! (SND.MAX − SND.UNA) also counts SACKed segments and exceeds cwnd in recovery. The default is
//! the RFC's; the scenario's `stack = "linux"` and `"ns2"` profiles pick `cwnd`.

use super::{
    check_param, reno_cong_avoid, AckSample, CcParams, CcState, CongestionControl, CongestionEvent,
};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RenoConfig {
    /// Multiplicative decrease factor (RFC 5681 eq. 4: one half).
    pub beta: f64,
    /// What the factor multiplies.
    pub basis: ReductionBasis,
}

/// The window Reno's reduction starts from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReductionBasis {
    /// The congestion window (Linux `tcp_reno_ssthresh`).
    Cwnd,
    /// Data outstanding, SND.MAX − SND.UNA (RFC 5681 eq. 4).
    #[default]
    FlightSize,
}

impl CcParams for RenoConfig {
    /// RFC 5681 eq. (4) halves; a factor ≥ 1 would grow the window on loss, 0 would stall it.
    fn validate(&self) -> Result<(), String> {
        check_param("beta", self.beta, self.beta > 0.0 && self.beta < 1.0, "a factor in (0, 1)")
    }
}

impl Default for RenoConfig {
    fn default() -> Self {
        RenoConfig { beta: 0.5, basis: ReductionBasis::FlightSize }
    }
}

pub struct Reno {
    cfg: RenoConfig,
}

impl Reno {
    pub fn new(cfg: RenoConfig) -> Self {
        Reno { cfg }
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        reno_cong_avoid(st, ack.acked);
    }

    fn on_congestion(&mut self, st: &mut CcState, ev: &CongestionEvent) {
        let w = match self.cfg.basis {
            ReductionBasis::Cwnd => st.cwnd,
            ReductionBasis::FlightSize => ev.flight_size as f64,
        };
        st.ssthresh = (self.cfg.beta * w).max(2.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::ack_clock::ack;
    use crate::cc::CongestionKind;
    use crate::time::SimTime;

    #[test]
    fn slow_start_doubles_per_window() {
        let mut st = CcState::new(10.0, f64::INFINITY, 1460);
        let mut r = Reno::new(RenoConfig::default());
        for _ in 0..10 {
            r.on_ack(&mut st, &ack(1));
        }
        assert_eq!(st.cwnd, 20.0);
    }

    #[test]
    fn congestion_avoidance_adds_one_segment_per_window() {
        let mut st = CcState::new(20.0, 20.0, 1460);
        let mut r = Reno::new(RenoConfig::default());
        // One window of ACKs: 20 acks of one segment each → cwnd ≈ 21 (slightly less since cwnd grows).
        for _ in 0..20 {
            r.on_ack(&mut st, &ack(1));
        }
        assert!((st.cwnd - 21.0).abs() < 0.03, "{}", st.cwnd);
    }

    #[test]
    fn loss_halves_flight_size_with_floor_of_two() {
        let mut st = CcState::new(40.0, f64::INFINITY, 1460);
        let mut r = Reno::new(RenoConfig::default());
        r.on_congestion(
            &mut st,
            &CongestionEvent { now: SimTime::ZERO, kind: CongestionKind::Loss, flight_size: 40 },
        );
        assert_eq!(st.ssthresh, 20.0);
        r.on_congestion(
            &mut st,
            &CongestionEvent { now: SimTime::ZERO, kind: CongestionKind::Timeout, flight_size: 3 },
        );
        assert_eq!(st.ssthresh, 2.0);
    }
}
