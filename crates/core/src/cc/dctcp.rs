//! Data Center TCP (RFC 8257; M. Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010;
//! Linux `tcp_dctcp.c`).
//!
//! Reno whose answer to ECN is proportional to how much of the last window was marked:
//!
//! ```text
//! per window of data (SND.UNA passes the SND.NXT noted at the window's start):
//!   F = segments delivered by ACKs carrying ECN-Echo / segments delivered      (RFC 8257 §3.3)
//!   α ← (1 − g) · α + g · F                 g = 1/16, α starts at 1 (Linux dctcp_alpha_on_init)
//! ECN-Echo, at most once per window:   ssthresh = max(cwnd · (1 − α/2), 2); cwnd = ssthresh
//! loss or timeout:                     ssthresh = max(cwnd / 2, 2)             (RFC 8257 §3.4)
//! growth:                              Reno (slow start, +1 segment per RTT)
//! ```
//!
//! The marked fraction needs the receiver's ECE to say which segments were CE-marked, also with
//! delayed ACKs: a `dctcp` connection's receiver runs RFC 8257 §3.2's two-state machine
//! (`TcpReceiver`, `EcnFeedback::Dctcp`), ECE on an ACK = the CE mark of the last segment, and
//! an immediate ACK of the data before a segment whose mark differs. The counts are Linux's
//! (`delivered`, `delivered_ce` since 4.20): segments newly acknowledged or SACKed by each ACK,
//! recovery or not. The window reduction on ECN-Echo and its once-per-window rule are the
//! transport's (`tcp/ecn.rs`); this supplies the threshold.
//!
//! Not implemented / deviates:
//! - No ECN negotiation: both ends are configured, so the Linux fallback to Reno when the peer
//!   is not ECN-capable does not arise.
//! - The window is cut at once, not spread over a round trip by PRR (as for every ECN reduction
//!   here, `tcp/ecn.rs`).
//! - Linux's `dctcp_cwnd_undo` (restoring the window after a spurious loss) is not modelled:
//!   nothing here undoes a reduction.

use super::{
    check_param, reno_cong_avoid, AckFeedback, AckSample, CcParams, CcState, CongestionControl,
    CongestionEvent, CongestionKind,
};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DctcpConfig {
    /// Estimation gain (RFC 8257 §3.3: "1/16 ... as recommended by [DCTCP]"; Linux
    /// `dctcp_shift_g = 4`).
    pub g: f64,
    /// α before the first window is measured (Linux `dctcp_alpha_on_init = 1024`, i.e. 1: the
    /// first marks halve the window, the most conservative start RFC 8257 §3.3 allows).
    pub initial_alpha: f64,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig { g: 1.0 / 16.0, initial_alpha: 1.0 }
    }
}

impl CcParams for DctcpConfig {
    fn validate(&self) -> Result<(), String> {
        check_param("g", self.g, self.g > 0.0 && self.g <= 1.0, "a gain in (0, 1]")?;
        check_param(
            "initial_alpha",
            self.initial_alpha,
            (0.0..=1.0).contains(&self.initial_alpha),
            "a fraction in [0, 1]",
        )
    }
}

pub struct Dctcp {
    /// The estimation gain (the configuration's `g`; `initial_alpha` is only read at the start,
    /// and every sender holds this state inline: `AnyCc`'s 64 bytes).
    g: f64,
    /// The estimate of the fraction of marked segments (RFC 8257 `DCTCP.Alpha`).
    alpha: f64,
    /// The observation window ends when SND.UNA reaches this (RFC 8257 `DCTCP.WindowEnd`).
    window_end: u64,
    /// Segments delivered in this window (`DCTCP.BytesAcked`, in segments as Linux counts).
    delivered: u64,
    /// ... of which by ACKs carrying ECN-Echo (`DCTCP.BytesMarked`).
    delivered_ce: u64,
}

impl Dctcp {
    pub fn new(cfg: DctcpConfig) -> Self {
        Dctcp { g: cfg.g, alpha: cfg.initial_alpha, window_end: 0, delivered: 0, delivered_ce: 0 }
    }

    /// The current estimate α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        reno_cong_avoid(st, ack.acked);
    }

    fn wants_ack_feedback(&self) -> bool {
        true
    }

    fn on_ack_feedback(&mut self, st: &mut CcState, fb: &AckFeedback) {
        self.delivered += fb.acked;
        if fb.ece {
            self.delivered_ce += fb.acked;
        }
        // RFC 8257 §3.3 step 4, Linux `!before(snd_una, next_seq)`: the window is over.
        if st.snd_una >= self.window_end {
            // A window without deliveries (only duplicate ACKs) leaves α as it was (Linux
            // `if (delivered > 0)`).
            if self.delivered > 0 {
                let f = self.delivered_ce as f64 / self.delivered as f64;
                self.alpha = ((1.0 - self.g) * self.alpha + self.g * f).min(1.0);
            }
            self.window_end = st.snd_nxt;
            self.delivered = 0;
            self.delivered_ce = 0;
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, ev: &CongestionEvent) {
        let keep = match ev.kind {
            // RFC 8257 §3.3 step 6; Linux dctcp_ssthresh.
            CongestionKind::Ecn => 1.0 - self.alpha / 2.0,
            // §3.4: "as a standard TCP"; Linux dctcp_react_to_loss halves cwnd.
            CongestionKind::Loss | CongestionKind::Timeout | CongestionKind::SourceQuench => 0.5,
        };
        st.ssthresh = (st.cwnd * keep).max(2.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    fn fb(acked: u64, ece: bool) -> AckFeedback {
        AckFeedback { now: SimTime::ZERO, acked, ece, rtt: None, ts: None }
    }

    fn ecn() -> CongestionEvent {
        CongestionEvent { now: SimTime::ZERO, kind: CongestionKind::Ecn, flight_size: 0 }
    }

    /// Delivers one window of `w` segments, the first `marked` of them echoed with ECE, one ACK
    /// per segment, and ends it (SND.UNA reaches the window end).
    fn window(d: &mut Dctcp, st: &mut CcState, w: u64, marked: u64) {
        for i in 0..w {
            st.snd_una += 1;
            if i + 1 == w {
                st.snd_nxt = st.snd_una + w;
            }
            d.on_ack_feedback(st, &fb(1, i < marked));
        }
    }

    #[test]
    fn alpha_follows_the_marked_fraction_with_gain_one_sixteenth() {
        let mut d = Dctcp::new(DctcpConfig::default());
        let mut st = CcState::new(10.0, f64::INFINITY, 1460);
        // The first ACK ends the (empty) window of the start: α moves toward that ACK's mark.
        st.snd_nxt = 10;
        d.on_ack_feedback(&mut st, &fb(0, false));
        assert_eq!(d.alpha(), 1.0, "a window without deliveries leaves α");
        // Windows with a quarter marked: α ← (15/16)α + 1/64 each, converging to 1/4.
        let mut expected = 1.0;
        for _ in 0..200 {
            window(&mut d, &mut st, 10, 0);
            expected *= 15.0 / 16.0;
            assert!((d.alpha() - expected).abs() < 1e-12, "{} vs {expected}", d.alpha());
        }
        for _ in 0..400 {
            window(&mut d, &mut st, 8, 2);
        }
        assert!((d.alpha() - 0.25).abs() < 1e-9, "{}", d.alpha());
    }

    #[test]
    fn marks_inside_a_window_count_only_once_the_window_ends() {
        let mut d = Dctcp::new(DctcpConfig { initial_alpha: 0.0, ..DctcpConfig::default() });
        let mut st = CcState::new(10.0, f64::INFINITY, 1460);
        st.snd_nxt = 10;
        d.on_ack_feedback(&mut st, &fb(0, false));
        for _ in 0..9 {
            st.snd_una += 1;
            d.on_ack_feedback(&mut st, &fb(1, true));
        }
        assert_eq!(d.alpha(), 0.0, "nine of ten delivered: the window is still open");
        st.snd_una += 1;
        st.snd_nxt = 20;
        d.on_ack_feedback(&mut st, &fb(1, true));
        assert!((d.alpha() - 1.0 / 16.0).abs() < 1e-15, "all ten marked: α = g · 1");
        // SACKed segments count as delivered although SND.UNA does not move.
        d.on_ack_feedback(&mut st, &fb(3, false));
        assert!((d.alpha() - 1.0 / 16.0).abs() < 1e-15);
    }

    #[test]
    fn the_cut_is_proportional_to_alpha_and_a_loss_halves() {
        let mut d = Dctcp::new(DctcpConfig { initial_alpha: 0.2, ..DctcpConfig::default() });
        let mut st = CcState::new(100.0, f64::INFINITY, 1460);
        d.on_congestion(&mut st, &ecn());
        assert!((st.ssthresh - 90.0).abs() < 1e-12, "cwnd · (1 − 0.1): {}", st.ssthresh);
        let mut st = CcState::new(100.0, f64::INFINITY, 1460);
        d.on_congestion(&mut st, &crate::cc::ack_clock::loss());
        assert_eq!(st.ssthresh, 50.0);
        // α = 1 (every segment marked) halves, as Reno; the floor is two segments.
        let mut d = Dctcp::new(DctcpConfig::default());
        let mut st = CcState::new(3.0, f64::INFINITY, 1460);
        d.on_congestion(&mut st, &ecn());
        assert_eq!(st.ssthresh, 2.0);
    }

    #[test]
    fn parameters_out_of_range_are_refused_by_name() {
        let bad = DctcpConfig { g: 0.0, ..DctcpConfig::default() };
        assert!(bad.validate().unwrap_err().starts_with("g: 0 is out of range"));
        let bad = DctcpConfig { initial_alpha: 1.5, ..DctcpConfig::default() };
        assert!(bad.validate().unwrap_err().starts_with("initial_alpha: 1.5"));
    }
}
