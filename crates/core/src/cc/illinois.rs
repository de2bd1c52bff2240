//! TCP-Illinois (S. Liu, T. Başar, R. Srikant, "TCP-Illinois: a loss- and delay-based congestion
//! control algorithm for high-speed networks", Performance Evaluation 65(6-7), 2008; Linux
//! `tcp_illinois.c`, in ns-2's TCP-Linux as of 2.6.22).
//!
//! Loss decides when the window falls, queueing delay decides by how much it grows and falls.
//! Once per RTT, from the average queueing delay d_a and the largest seen d_m:
//!
//! ```text
//! d_a = mean RTT of the last round − base RTT,   d_m = max RTT − base RTT
//! α:  d_a ≤ d_m/100:  α_max = 10   (after θ = 5 such rounds once delay has risen)
//!     otherwise:      α = k1 / (k2 + d_a),  falling from α_max to α_min = 0.3 at d_m
//! β:  d_a ≤ d_m/10:   β_min = 1/8;   d_a ≥ 8 d_m/10:  β_max = 1/2;   linear in between
//! cwnd < 15 (win_thresh): α = 1, β = 1/2   (Reno)
//! congestion avoidance, per ACK:  cwnd += α · acked / cwnd      (α segments per RTT)
//! on loss:                        ssthresh = max(cwnd − β · cwnd, 2)
//! after a timeout:                α = 1, β = 1/2, delay history of the round cleared
//! ```
//!
//! α and β are computed in Linux's fixed point from microsecond delays (α in 1/128, β in 1/64,
//! `ALPHA_MIN` = 38/128): the same values, not a continuous approximation of them.
//!
//! Presets:
//! - `illinois@linux-2.6.22` (ns-2's TCP-Linux): the 2.6.22 module's decrease keeps β · cwnd
//!   (`(snd_cwnd * beta) >> BETA_SHIFT`, a window of one eighth at low delay), corrected in later
//!   kernels to cwnd − β · cwnd.
//!
//! Not implemented / deviates:
//! - Windows are fractional; Linux accumulates α/128 per acked segment in `snd_cwnd_cnt` and
//!   adds whole segments. The growth per RTT is the same.
//! - The largest RTT is never aged (Linux: "TODO: age max_rtt?").

use super::{
    check_param, cong_avoid_ai, slow_start, AckSample, CcParams, CcState, CongestionControl,
    CongestionEvent, CongestionKind,
};
use crate::time::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

/// Fixed point of α (Linux `ALPHA_SHIFT`): 1/128.
const ALPHA_SCALE: u64 = 128;
const ALPHA_MIN: u64 = 3 * ALPHA_SCALE / 10; // 38: ≈ 0.3
const ALPHA_MAX: u64 = 10 * ALPHA_SCALE;
/// Fixed point of β (Linux `BETA_SHIFT`): 1/64.
const BETA_SCALE: u64 = 64;
const BETA_MIN: u64 = BETA_SCALE / 8;
const BETA_MAX: u64 = BETA_SCALE / 2;
/// Largest RTT sample used, µs (Linux `RTT_MAX = U32_MAX / ALPHA_MAX`, 3.3 s), so that the α
/// arithmetic cannot overflow.
const RTT_MAX_US: u64 = u32::MAX as u64 / ALPHA_MAX;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IllinoisConfig {
    /// Below this window, segments, α = 1 and β = 1/2: Reno (Linux module parameter
    /// `win_thresh` = 15).
    pub win_thresh: f64,
    /// Rounds of low delay before α returns to α_max once delay has risen (Linux `theta` = 5).
    pub theta: u32,
    /// The 2.6.22 module's decrease: ssthresh = β · cwnd instead of cwnd − β · cwnd.
    pub ssthresh_is_beta_times_cwnd: bool,
}

impl Default for IllinoisConfig {
    fn default() -> Self {
        IllinoisConfig { win_thresh: 15.0, theta: 5, ssthresh_is_beta_times_cwnd: false }
    }
}

impl CcParams for IllinoisConfig {
    const PRESETS: &'static [(&'static str, &'static str)] = &[(
        "linux-2.6.22",
        "Linux 2.6.22 tcp_illinois.c (ns-2 TCP-Linux): ssthresh = beta x cwnd, corrected later to cwnd - beta x cwnd",
    )];

    fn preset(name: &str) -> Option<Self> {
        (name == "linux-2.6.22")
            .then(|| IllinoisConfig { ssthresh_is_beta_times_cwnd: true, ..Self::default() })
    }

    fn validate(&self) -> Result<(), String> {
        check_param(
            "win_thresh",
            self.win_thresh,
            (0.0..=1e6).contains(&self.win_thresh),
            "segments in [0, 1000000]",
        )?;
        if self.theta == 0 || self.theta > 1000 {
            return Err(format!(
                "theta: {} is out of range: expected rounds in [1, 1000]",
                self.theta
            ));
        }
        Ok(())
    }
}

pub struct Illinois {
    cfg: IllinoisConfig,
    /// Additive increase, 1/128 segment per RTT.
    alpha: u64,
    /// Multiplicative decrease, 1/64.
    beta: u64,
    base_rtt_us: u64,
    max_rtt_us: u64,
    /// RTT samples of the current round: their sum and count.
    sum_rtt_us: u64,
    cnt_rtt: u32,
    /// The round ends when SND.UNA passes this segment (Linux `end_seq`).
    end_seq: u64,
    /// The average delay has risen above d_m/100 since α was last at α_max.
    rtt_above: bool,
    /// Consecutive low-delay rounds since then.
    rtt_low: u32,
}

impl Illinois {
    pub fn new(cfg: IllinoisConfig) -> Self {
        Illinois {
            cfg,
            alpha: ALPHA_MAX,
            beta: BETA_MAX,
            base_rtt_us: 0x7fff_ffff,
            max_rtt_us: 0,
            sum_rtt_us: 0,
            cnt_rtt: 0,
            end_seq: 0,
            rtt_above: false,
            rtt_low: 0,
        }
    }

    /// α, segments per RTT.
    pub fn alpha(&self) -> f64 {
        self.alpha as f64 / ALPHA_SCALE as f64
    }

    /// β, the fraction of the window a loss removes.
    pub fn beta(&self) -> f64 {
        self.beta as f64 / BETA_SCALE as f64
    }

    fn rtt_reset(&mut self, st: &CcState) {
        self.end_seq = st.snd_nxt;
        self.cnt_rtt = 0;
        self.sum_rtt_us = 0;
    }

    /// Linux `alpha()`: α from the average and largest queueing delays, µs.
    fn alpha_for(&mut self, da: u64, dm: u64) -> u64 {
        let d1 = dm / 100;
        if da <= d1 {
            if !self.rtt_above {
                return ALPHA_MAX;
            }
            // Wait for θ good rounds before α returns to α_max: one good round is not enough.
            self.rtt_low += 1;
            if self.rtt_low < self.cfg.theta {
                return self.alpha;
            }
            self.rtt_low = 0;
            self.rtt_above = false;
            return ALPHA_MAX;
        }
        self.rtt_above = true;
        let (dm, da) = (dm - d1, da - d1);
        (dm * ALPHA_MAX) / (dm + (da * (ALPHA_MAX - ALPHA_MIN)) / ALPHA_MIN)
    }

    /// Linux `beta()`: β from the average and largest queueing delays, µs.
    fn beta_for(da: u64, dm: u64) -> u64 {
        let d2 = dm / 10;
        if da <= d2 {
            return BETA_MIN;
        }
        let d3 = (8 * dm) / 10;
        if da >= d3 || d3 <= d2 {
            return BETA_MAX;
        }
        (BETA_MIN * d3 - BETA_MAX * d2 + (BETA_MAX - BETA_MIN) * da) / (d3 - d2)
    }

    /// Linux `update_params`, once per round.
    fn update_params(&mut self, st: &CcState) {
        if st.cwnd.floor() < self.cfg.win_thresh {
            self.alpha = ALPHA_SCALE;
            self.beta = BETA_MAX;
        } else if self.cnt_rtt > 0 {
            let dm = self.max_rtt_us - self.base_rtt_us;
            let da = (self.sum_rtt_us / u64::from(self.cnt_rtt)).saturating_sub(self.base_rtt_us);
            self.alpha = self.alpha_for(da, dm);
            self.beta = Self::beta_for(da, dm);
        }
        self.rtt_reset(st);
    }
}

impl CongestionControl for Illinois {
    fn name(&self) -> &'static str {
        "illinois"
    }

    fn on_rtt_sample(&mut self, _st: &mut CcState, _now: SimTime, rtt: SimDuration) {
        let rtt = (rtt.as_nanos() / 1000).min(RTT_MAX_US);
        self.base_rtt_us = self.base_rtt_us.min(rtt);
        self.max_rtt_us = self.max_rtt_us.max(rtt);
        self.cnt_rtt = self.cnt_rtt.saturating_add(1);
        self.sum_rtt_us += rtt;
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        if st.snd_una > self.end_seq {
            self.update_params(st);
        }
        let acked = slow_start(st, ack.acked);
        if acked > 0 {
            let w = st.cwnd * ALPHA_SCALE as f64 / self.alpha as f64;
            cong_avoid_ai(st, w, acked);
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, ev: &CongestionEvent) {
        let beta = self.beta();
        let kept = if self.cfg.ssthresh_is_beta_times_cwnd { beta } else { 1.0 - beta };
        st.ssthresh = (kept * st.cwnd).max(2.0);
        if ev.kind == CongestionKind::Timeout {
            // Linux `tcp_illinois_state(TCP_CA_Loss)`: back to Reno's parameters.
            self.alpha = ALPHA_SCALE;
            self.beta = BETA_MAX;
            self.rtt_low = 0;
            self.rtt_above = false;
            self.rtt_reset(st);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::ack_clock::loss;
    use crate::cc::CcConfig;

    fn ms(v: u64) -> SimDuration {
        SimDuration::from_millis(v)
    }

    /// One round at window `cwnd` whose RTT samples are `rtts_ms`, ended by the next ACK.
    fn round(il: &mut Illinois, st: &mut CcState, rtts_ms: &[u64]) {
        for &r in rtts_ms {
            il.on_rtt_sample(st, SimTime::ZERO, ms(r));
        }
        st.snd_una = il.end_seq + 1;
        st.snd_nxt = st.snd_una + st.cwnd as u64;
        let cwnd = st.cwnd;
        il.on_ack(st, &AckSample { now: SimTime::ZERO, acked: 0, rtt: None });
        st.cwnd = cwnd;
    }

    /// An Illinois sender at window 100, having seen RTTs from 100 ms (base) to 200 ms (max)
    /// in a round of a small window (so α has not yet left α_max).
    fn with_delay_range() -> (Illinois, CcState) {
        let mut il = Illinois::new(IllinoisConfig::default());
        let mut st = CcState::new(10.0, 5.0, 1460);
        round(&mut il, &mut st, &[100, 200]);
        st.cwnd = 100.0;
        (il, st)
    }

    #[test]
    fn alpha_and_beta_follow_the_delay_curves_in_linux_fixed_point() {
        // d_m = 100 ms. No queueing: α_max and β_min.
        let (mut il, mut st) = with_delay_range();
        round(&mut il, &mut st, &[100, 100]);
        assert_eq!((il.alpha(), il.beta()), (10.0, 0.125));
        // d_a = 50 ms: α = (99000·1280)/(99000 + ⌊49000·1242/38⌋) = 74 → 74/128; β linear
        // between d2 = 10 ms and d3 = 80 ms: (8·80000 − 32·10000 + 24·50000)/70000 = 21 → 21/64.
        round(&mut il, &mut st, &[150, 150]);
        assert_eq!((il.alpha, il.beta), (74, 21));
        // d_a at d_m: α = α_min exactly, β = β_max.
        round(&mut il, &mut st, &[200]);
        assert_eq!((il.alpha, il.beta), (ALPHA_MIN, BETA_MAX));
    }

    #[test]
    fn alpha_returns_to_its_maximum_only_after_theta_quiet_rounds() {
        let (mut il, mut st) = with_delay_range();
        round(&mut il, &mut st, &[180]);
        let low = il.alpha;
        for _ in 0..4 {
            round(&mut il, &mut st, &[100]);
            assert_eq!(il.alpha, low);
        }
        round(&mut il, &mut st, &[100]);
        assert_eq!(il.alpha, ALPHA_MAX);
    }

    #[test]
    fn small_windows_are_reno() {
        let (mut il, mut st) = with_delay_range();
        st.cwnd = 14.0;
        round(&mut il, &mut st, &[100]);
        assert_eq!((il.alpha(), il.beta()), (1.0, 0.5));
    }

    #[test]
    fn the_window_grows_alpha_segments_per_rtt_and_a_loss_removes_beta_of_it() {
        let (mut il, mut st) = with_delay_range();
        round(&mut il, &mut st, &[100]); // α = 10, β = 1/8
        let w0 = st.cwnd;
        for _ in 0..100 {
            il.on_ack(&mut st, &AckSample { now: SimTime::ZERO, acked: 1, rtt: None });
        }
        assert!((st.cwnd - w0 - 10.0).abs() < 0.6, "{}", st.cwnd);
        il.on_congestion(&mut st, &loss());
        assert_eq!(st.ssthresh, st.cwnd * 7.0 / 8.0);
        // The 2.6.22 module keeps β · cwnd: one eighth.
        let old = CcConfig::from_name("illinois@linux-2.6.22", None).unwrap();
        let CcConfig::Illinois(cfg) = old else { panic!("illinois") };
        let (mut il, mut st) = with_delay_range();
        il.cfg = cfg;
        round(&mut il, &mut st, &[100]);
        il.on_congestion(&mut st, &loss());
        assert_eq!(st.ssthresh, st.cwnd / 8.0);
    }

    #[test]
    fn a_timeout_restores_reno_s_parameters() {
        let (mut il, mut st) = with_delay_range();
        round(&mut il, &mut st, &[100]);
        let ev =
            CongestionEvent { now: SimTime::ZERO, kind: CongestionKind::Timeout, flight_size: 10 };
        il.on_congestion(&mut st, &ev);
        assert_eq!((il.alpha(), il.beta()), (1.0, 0.5));
    }

    #[test]
    fn bad_parameters_are_one_line_errors() {
        let e =
            CcConfig::from_name("illinois", Some(&serde_json::json!({"theta": 0}))).unwrap_err();
        assert!(e.starts_with("theta: 0 is out of range"), "{e}");
    }
}
