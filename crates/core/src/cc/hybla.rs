//! TCP Hybla (C. Caini, R. Firrincieli, "TCP Hybla: a TCP enhancement for heterogeneous
//! networks", International Journal of Satellite Communications and Networking 22(5), 2004;
//! Linux `tcp_hybla.c`, the same code since 2.6.13 and in ns-2's TCP-Linux).
//!
//! Reno's window grows by one segment per RTT, so its rate grows as 1/RTT²: a satellite path is
//! slow to fill. Hybla scales the increase by ρ = RTT / RTT₀ so that every connection's rate
//! grows as that of a reference connection of RTT₀ = 25 ms:
//!
//! ```text
//! ρ = max(srtt / rtt0, 1), in eighths: ⌊8 srtt / rtt0⌋ / 8   (recomputed when srtt falls to a new minimum)
//! slow start, per ACK:             cwnd += 2^ρ − 1     (up to ssthresh; 2^(k/8) from Linux's table)
//! congestion avoidance, per ACK:   cwnd += ρ² / cwnd   (ρ² segments per RTT)
//! on loss / ECN / quench:          ssthresh = max(cwnd / 2, 2)   (tcp_reno_ssthresh)
//! cwnd ≤ 65535                                          (hybla_init's snd_cwnd_clamp)
//! ```
//!
//! Slow start on a long path is a burst: at 600 ms, ρ = 24 and the shift stops at 2^16, so the
//! first ACKs open the window to the clamp and the sender floods the bottleneck's buffer. The
//! paper pairs Hybla with SACK and pacing; Linux leaves pacing to the `fq` qdisc.
//!
//! In congestion avoidance a window of `cwnd` ACKs adds ρ² segments per RTT, so the rate
//! cwnd/RTT grows by ρ²/RTT² = 1/rtt0² per second at every RTT above rtt0 (Reno's, by 1/RTT²):
//! the property the unit tests check. At or below rtt0, ρ = 1: Reno.
//!
//! Linux counts ACKs, not segments (`hybla_cong_avoid` ignores `acked`): with delayed ACKs the
//! window grows half as fast, here as there.
//!
//! Not implemented / deviates:
//! - Linux sets cwnd = ρ when the connection opens (from the handshake's RTT); here the
//!   scenario's `initial_cwnd` stands, and ρ is 1 until the first RTT sample.
//! - Windows are fractional: Linux keeps the increase in 1/128 segments (`snd_cwnd_cents`) and
//!   divides ρ²·128 by an integer cwnd; the growth is the same to within that rounding.

use super::{check_param, AckSample, CcParams, CcState, CongestionControl, CongestionEvent};
use crate::time::SimDuration;
use serde::{Deserialize, Serialize};

/// 128 · 2^(k/8) for k = 0..7, rounded as Linux's `hybla_fraction` table.
const FRACTIONS: [u32; 8] = [128, 139, 152, 165, 181, 197, 215, 234];

/// Slow start's increase is 2^min(ρ, 16): Linux's `min(ca->rho, 16U)`.
const MAX_RHO_SHIFT: u32 = 16;

/// The largest window, segments: `hybla_init` sets `snd_cwnd_clamp = 65535`.
const CWND_CLAMP: f64 = 65535.0;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HyblaConfig {
    /// The reference RTT whose rate growth every connection follows, seconds (Linux module
    /// parameter `rtt0` = 25 ms; Caini & Firrincieli 2004 §3).
    pub rtt0_s: f64,
}

impl Default for HyblaConfig {
    fn default() -> Self {
        HyblaConfig { rtt0_s: 0.025 }
    }
}

impl CcParams for HyblaConfig {
    fn validate(&self) -> Result<(), String> {
        check_param(
            "rtt0_s",
            self.rtt0_s,
            self.rtt0_s >= 1e-3 && self.rtt0_s <= 10.0,
            "seconds in [0.001, 10]",
        )
    }
}

pub struct Hybla {
    cfg: HyblaConfig,
    /// ρ in eighths, at least 8 (Linux `rho_3ls`).
    rho_8ths: u32,
    /// The smoothed RTT ρ was last computed from: it is recomputed when srtt falls below it.
    min_srtt: Option<SimDuration>,
}

impl Hybla {
    pub fn new(cfg: HyblaConfig) -> Self {
        Hybla { cfg, rho_8ths: 8, min_srtt: None }
    }

    /// ρ as Linux keeps it: ⌊8 · srtt / rtt0⌋ eighths, at least one.
    fn recalc(&mut self, srtt: SimDuration) {
        // In integers, as Linux's srtt_us / (rtt0 · USEC_PER_MSEC): 8 · 75 ms / 25 ms is 24, not
        // the 23.99… of floating point.
        let rtt0_ns = (self.cfg.rtt0_s * 1e9).round() as u128;
        let eighths = 8 * u128::from(srtt.as_nanos()) / rtt0_ns;
        self.rho_8ths = u32::try_from(eighths).unwrap_or(u32::MAX).max(8);
    }

    /// ρ, the RTT in units of rtt0 (in eighths).
    pub fn rho(&self) -> f64 {
        f64::from(self.rho_8ths) / 8.0
    }

    /// Slow start's increase per ACK, 2^ρ − 1 segments, from ρ's whole part and Linux's table
    /// for its eighths.
    fn slow_start_increase(&self) -> f64 {
        let whole = (self.rho_8ths >> 3).min(MAX_RHO_SHIFT);
        let eighths = (self.rho_8ths & 7) as usize;
        f64::from(1u32 << whole) * f64::from(FRACTIONS[eighths]) / 128.0 - 1.0
    }
}

impl CongestionControl for Hybla {
    fn name(&self) -> &'static str {
        "hybla"
    }

    fn on_ack(&mut self, st: &mut CcState, _ack: &AckSample) {
        if let Some(srtt) = st.srtt {
            if self.min_srtt.is_none_or(|m| srtt < m) {
                self.recalc(srtt);
                self.min_srtt = Some(srtt);
            }
        }
        if st.in_slow_start() {
            st.cwnd = (st.cwnd + self.slow_start_increase()).min(st.ssthresh);
        } else {
            let rho = self.rho();
            st.cwnd += rho * rho / st.cwnd.max(1.0);
        }
        st.cwnd = st.cwnd.min(CWND_CLAMP);
    }

    fn on_congestion(&mut self, st: &mut CcState, _ev: &CongestionEvent) {
        st.ssthresh = (st.cwnd / 2.0).max(2.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::ack_clock::{ack, loss, AckClock};
    use crate::cc::reno::{Reno, RenoConfig};
    use crate::cc::CcConfig;
    use crate::time::SimTime;

    fn with_srtt(ms: u64, cwnd: f64, ssthresh: f64) -> (Hybla, CcState) {
        let mut st = CcState::new(cwnd, ssthresh, 1460);
        st.srtt = Some(SimDuration::from_millis(ms));
        (Hybla::new(HyblaConfig::default()), st)
    }

    #[test]
    fn rho_is_the_rtt_in_units_of_rtt0_in_eighths_and_at_least_one() {
        for (ms, rho) in [(10, 1.0), (25, 1.0), (50, 2.0), (600, 24.0), (60, 2.375)] {
            let (mut h, mut st) = with_srtt(ms, 10.0, 5.0);
            h.on_ack(&mut st, &ack(1));
            assert_eq!(h.rho(), rho, "srtt {ms} ms");
        }
        // ρ follows srtt down, never up (Linux recomputes it on a new minimum only).
        let (mut h, mut st) = with_srtt(100, 10.0, 5.0);
        h.on_ack(&mut st, &ack(1));
        st.srtt = Some(SimDuration::from_millis(200));
        h.on_ack(&mut st, &ack(1));
        assert_eq!(h.rho(), 4.0);
        st.srtt = Some(SimDuration::from_millis(50));
        h.on_ack(&mut st, &ack(1));
        assert_eq!(h.rho(), 2.0);
    }

    #[test]
    fn slow_start_adds_two_to_the_rho_minus_one_per_ack_up_to_ssthresh() {
        // ρ = 3 (75 ms): +7 per ACK; ρ = 2.5: 4 · 181/128 − 1 ≈ 4.66 (2^2.5 − 1 = 4.66).
        let (mut h, mut st) = with_srtt(75, 2.0, 100.0);
        h.on_ack(&mut st, &ack(1));
        assert_eq!(st.cwnd, 9.0);
        let (mut h, mut st) = with_srtt(63, 2.0, 100.0);
        h.on_ack(&mut st, &ack(2)); // one ACK of two segments: one increase, as in Linux
        assert!((st.cwnd - (2.0 + 4.0 * 181.0 / 128.0 - 1.0)).abs() < 1e-12, "{}", st.cwnd);
        let (mut h, mut st) = with_srtt(600, 10.0, 12.0);
        h.on_ack(&mut st, &ack(1));
        assert_eq!(st.cwnd, 12.0);
        // ρ = 24 would add 2^24 − 1; the shift stops at 16 and the window at 65535 segments.
        let (mut h, mut st) = with_srtt(600, 10.0, f64::INFINITY);
        h.on_ack(&mut st, &ack(1));
        assert_eq!(st.cwnd, 65535.0);
        // At or below rtt0 it is Reno's slow start.
        let (mut h, mut st) = with_srtt(20, 2.0, 100.0);
        h.on_ack(&mut st, &ack(1));
        assert_eq!(st.cwnd, 3.0);
    }

    #[test]
    fn congestion_avoidance_adds_rho_squared_segments_per_window() {
        let (mut h, mut st) = with_srtt(100, 50.0, 10.0);
        for _ in 0..50 {
            h.on_ack(&mut st, &ack(1));
        }
        // 16/50 per ACK with cwnd growing through the window: just under 16 segments.
        assert!((st.cwnd - 66.0).abs() < 2.0, "{}", st.cwnd);
        h.on_congestion(&mut st, &loss());
        assert_eq!(st.ssthresh, st.cwnd / 2.0);
    }

    /// How much the rate of a window-limited sender grows in congestion avoidance over `secs`,
    /// from 10 segments, on a path of base RTT `rtt_ms` without a bottleneck: segments per second.
    fn rate_gain_after(cc: &mut dyn CongestionControl, rtt_ms: u64, secs: u64) -> f64 {
        let rtt = SimDuration::from_millis(rtt_ms);
        let mut clock = AckClock::new(cc, 10.0, 5.0, rtt, SimDuration::ZERO);
        clock.st.srtt = Some(rtt);
        clock.run_until(cc, SimTime::ZERO + SimDuration::from_secs(secs));
        (clock.st.cwnd - 10.0) / rtt.as_secs_f64()
    }

    #[test]
    fn the_rate_grows_alike_at_every_rtt_above_rtt0_and_reno_s_does_not() {
        // Over 20 s, Hybla's rate gain at 50, 100 and 400 ms is the reference connection's: ρ²
        // segments per RTT make the rate cwnd/RTT grow by ρ²/RTT² = 1/rtt0² per second.
        let gains: Vec<f64> = [50, 100, 400]
            .iter()
            .map(|&ms| rate_gain_after(&mut Hybla::new(HyblaConfig::default()), ms, 20))
            .collect();
        for g in &gains {
            assert!((g / gains[0] - 1.0).abs() < 0.1, "{gains:?}");
        }
        // Reno's gain falls as 1/RTT²: 64 times less at 400 ms than at 50 ms.
        let reno = || Reno::new(RenoConfig::default());
        let reno = [rate_gain_after(&mut reno(), 50, 20), rate_gain_after(&mut reno(), 400, 20)];
        assert!(reno[0] > 40.0 * reno[1], "{reno:?}");
    }

    #[test]
    fn bad_parameters_are_one_line_errors() {
        let e = CcConfig::from_name("hybla", Some(&serde_json::json!({"rtt0_s": 0}))).unwrap_err();
        assert!(e.starts_with("rtt0_s: 0 is out of range"), "{e}");
    }
}
