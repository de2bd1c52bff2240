//! H-TCP (D. Leith, R. Shorten, "H-TCP: TCP for high-speed and long-distance networks",
//! PFLDnet 2004; D. Leith, R. Shorten, Y. Lee, "H-TCP: A framework for congestion control in
//! high-speed and long-distance networks", PFLDnet 2005; Linux `tcp_htcp.c`).
//!
//! The increase depends on the time Δ since the last congestion event, the backoff on the ratio
//! of the smallest to the largest RTT seen:
//!
//! ```text
//! α_H(Δ) = 1                                          Δ ≤ Δ_L = 1 s
//!        = 1 + 10 (Δ − Δ_L) + 0.25 (Δ − Δ_L)²         Δ > Δ_L
//! RTT scaling (optional):  α_H ← max(α_H · clamp(RTT_min / RTT_ref, 0.1, 2), 1)   RTT_ref = 100 ms
//! α = 2 (1 − β) α_H                                   (the AIMD(α, β) is Reno-friendly when α_H = 1)
//! per acked segment (congestion avoidance):  cwnd += α / cwnd
//! on congestion:           ssthresh = max(β · cwnd, 2)
//! adaptive backoff:        β = clamp(RTT_min / RTT_max, 0.5, 0.8)
//! bandwidth switch:        β = 0.5 if the peak throughput B of this epoch differs from the
//!                          previous epoch's by more than 20% (|B_k+1 − B_k| > 0.2 B_k)
//! ```
//!
//! Linux details kept (its defaults where the papers leave the choice open):
//! - Δ runs from the congestion event and restarts when fast recovery ends (`htcp_state`).
//! - The adaptive β starts only from the second event without a bandwidth switch (`modeswitch`),
//!   and needs RTT_min > 10 ms; otherwise β = 0.5.
//! - RTT_max only grows by samples at most 20 ms above it, outside recovery, and fades towards
//!   RTT_min by 5% at each congestion event (`htcp_param_update`).
//! - Throughput B_i is measured over ≥ one window of acknowledged segments and ≥ RTT_min, smoothed
//!   B ← (3B + B_i)/4 from the fourth RTT_min of the epoch (before, B = B_i); the epoch's peak is
//!   compared at the next event (`measure_achieved_throughput`, `htcp_beta_update`).
//!
//! Not implemented / deviates:
//! - Linux keeps α_H, the RTT ratio and β in fixed point (α_H an integer, recomputed when cwnd
//!   grows by one segment); we use the continuous expressions, recomputed per ACK.
//! - Throughput is measured only on ACKs that may grow the window (outside recovery, window
//!   limited); Linux also counts ACKs in the Disorder state.
//! - Undo after a spurious retransmission (`htcp_cwnd_undo`) does not apply: the transport has
//!   no undo.

use super::{
    check_param, slow_start, AckSample, CcParams, CcState, CongestionControl, CongestionEvent,
};
use crate::time::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HtcpConfig {
    /// Δ_L, seconds: the low-speed period after a congestion event (Leith & Shorten 2004; Linux HZ).
    pub delta_l_s: f64,
    /// Linear coefficient of α_H(Δ), per second (Leith & Shorten 2004: 10).
    pub alpha_linear: f64,
    /// Quadratic coefficient of α_H(Δ), per second² (Leith & Shorten 2004: ((Δ−Δ_L)/2)² → 0.25).
    pub alpha_quadratic: f64,
    /// Smallest backoff factor (Linux BETA_MIN = 0.5).
    pub beta_min: f64,
    /// Largest backoff factor (Linux BETA_MAX = 102/128, 0.8 in its comment; 0.797 in fixed point).
    pub beta_max: f64,
    /// β = RTT_min / RTT_max (Leith & Shorten 2004 adaptive backoff); if false, always `beta_min`.
    pub adaptive_backoff: bool,
    /// RTT_min must exceed this for the adaptive β, seconds (Linux: `minRTT > msecs_to_jiffies(10)`).
    pub adaptive_backoff_min_rtt_s: f64,
    /// Largest step by which one sample may raise RTT_max, seconds (Linux `measure_rtt`: 20 ms).
    pub max_rtt_step_s: f64,
    /// RTT_max ← RTT_min + decay · (RTT_max − RTT_min) at each event (Linux: 95/100).
    pub max_rtt_decay: f64,
    /// Scale α_H by RTT_min / `rtt_ref_s` (Leith, Shorten, Lee 2005; Linux `use_rtt_scaling` = 1).
    pub rtt_scaling: bool,
    /// RTT_ref, seconds (Linux: `(HZ << 3) / (10 * minRTT)`, i.e. 100 ms).
    pub rtt_ref_s: f64,
    /// Lower clamp of RTT_min / RTT_ref (Linux clamps RTT_ref / RTT_min to at most 10).
    pub rtt_scale_min: f64,
    /// Upper clamp of RTT_min / RTT_ref (Linux clamps RTT_ref / RTT_min to at least 0.5).
    pub rtt_scale_max: f64,
    /// Back off by `beta_min` when the throughput changed between epochs (Linux
    /// `use_bandwidth_switch` = 1; Leith & Shorten 2004).
    pub use_bandwidth_switch: bool,
    /// Relative throughput change that triggers the switch (Linux: 5B ∉ [4B_old, 6B_old] → 0.2).
    pub bandwidth_switch_threshold: f64,
}

impl Default for HtcpConfig {
    fn default() -> Self {
        HtcpConfig {
            delta_l_s: 1.0,
            alpha_linear: 10.0,
            alpha_quadratic: 0.25,
            beta_min: 0.5,
            beta_max: 0.8,
            adaptive_backoff: true,
            adaptive_backoff_min_rtt_s: 0.010,
            max_rtt_step_s: 0.020,
            max_rtt_decay: 0.95,
            rtt_scaling: true,
            rtt_ref_s: 0.100,
            rtt_scale_min: 0.1,
            rtt_scale_max: 2.0,
            use_bandwidth_switch: true,
            bandwidth_switch_threshold: 0.2,
        }
    }
}

impl CcParams for HtcpConfig {
    fn validate(&self) -> Result<(), String> {
        let c = self;
        // Times are bounded by an hour, the longest run worth simulating.
        for (name, v) in [
            ("delta_l_s", c.delta_l_s),
            ("adaptive_backoff_min_rtt_s", c.adaptive_backoff_min_rtt_s),
            ("max_rtt_step_s", c.max_rtt_step_s),
        ] {
            check_param(name, v, (0.0..=3600.0).contains(&v), "seconds in [0, 3600]")?;
        }
        // α_H(Δ) = 1 + alpha_linear·(Δ−Δ_L) + alpha_quadratic·(Δ−Δ_L)² (Leith & Shorten 2004:
        // 10 and 1/4); 1000 reaches 10⁶ segments per RTT within a second.
        for (name, v) in [("alpha_linear", c.alpha_linear), ("alpha_quadratic", c.alpha_quadratic)]
        {
            check_param(name, v, (0.0..=1000.0).contains(&v), "a coefficient in [0, 1000]")?;
        }
        let bw = c.bandwidth_switch_threshold;
        check_param(
            "bandwidth_switch_threshold",
            bw,
            (0.0..=10.0).contains(&bw),
            "a relative change in [0, 10]",
        )?;
        if !(c.beta_min > 0.0 && c.beta_min < 1.0) {
            return Err(format!(
                "beta_min: {} is out of range: expected 0 < beta_min < 1",
                c.beta_min
            ));
        }
        if !(c.beta_max >= c.beta_min && c.beta_max < 1.0) {
            return Err(format!(
                "beta_max: {} is out of range: expected beta_min ({}) <= beta_max < 1",
                c.beta_max, c.beta_min
            ));
        }
        if !(0.0..=1.0).contains(&c.max_rtt_decay) {
            return Err(format!(
                "max_rtt_decay: {} is out of range: expected 0..1",
                c.max_rtt_decay
            ));
        }
        check_param(
            "rtt_ref_s",
            c.rtt_ref_s,
            c.rtt_ref_s > 0.0 && c.rtt_ref_s <= 60.0,
            "seconds in (0, 60]",
        )?;
        check_param(
            "rtt_scale_min",
            c.rtt_scale_min,
            c.rtt_scale_min > 0.0 && c.rtt_scale_min <= 1000.0,
            "a factor in (0, 1000]",
        )?;
        let max = c.rtt_scale_max;
        check_param(
            "rtt_scale_max",
            max,
            max >= c.rtt_scale_min && max <= 1000.0,
            "a factor in [rtt_scale_min, 1000]",
        )?;
        Ok(())
    }
}

/// Achieved throughput over the current congestion epoch (Linux `measure_achieved_throughput`).
#[derive(Clone, Copy, Debug, Default)]
struct Throughput {
    /// Start of the measurement interval and `CcState::delivered` then; `None` until the first
    /// ACK after a congestion event.
    since: Option<(SimTime, u64)>,
    /// Smoothed throughput B, segments per second.
    smoothed: f64,
    /// Peak of `smoothed` in this epoch, segments per second.
    peak: f64,
    /// Peak of the previous epoch, segments per second (0 before the first event).
    previous_peak: f64,
}

pub struct Htcp {
    cfg: HtcpConfig,
    /// Backoff factor in effect, in [beta_min, beta_max].
    beta: f64,
    /// The next event may use the adaptive β (Linux `modeswitch`): false at start and after a
    /// bandwidth switch, so one ordinary backoff comes first.
    modeswitch: bool,
    /// Where Δ is measured from: the last congestion event, or the end of its fast recovery; the
    /// first transmission before any event.
    epoch_start: Option<SimTime>,
    /// Between a congestion event and the next ACK that may grow the window.
    recovering: bool,
    /// Smallest RTT sample, seconds (0 before the first).
    rtt_min: f64,
    /// Largest RTT accepted by the RTT_max rule, seconds (0 before the first).
    rtt_max: f64,
    throughput: Throughput,
}

impl Htcp {
    pub fn new(cfg: HtcpConfig) -> Self {
        let beta = cfg.beta_min;
        Htcp {
            cfg,
            beta,
            modeswitch: false,
            epoch_start: None,
            recovering: false,
            rtt_min: 0.0,
            rtt_max: 0.0,
            throughput: Throughput::default(),
        }
    }

    /// The backoff factor the next congestion event would use before its update (test access).
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// Seconds since the epoch started.
    fn delta(&self, now: SimTime) -> f64 {
        self.epoch_start.map_or(0.0, |s| now.saturating_since(s).as_secs_f64())
    }

    /// α_H(Δ), the high-speed increase factor before RTT scaling.
    pub fn alpha_h(&self, delta_s: f64) -> f64 {
        let c = &self.cfg;
        if delta_s <= c.delta_l_s {
            return 1.0;
        }
        let d = delta_s - c.delta_l_s;
        1.0 + c.alpha_linear * d + c.alpha_quadratic * d * d
    }

    /// α, segments per RTT, at `now`.
    pub fn alpha(&self, now: SimTime) -> f64 {
        let mut factor = self.alpha_h(self.delta(now));
        if self.cfg.rtt_scaling && self.rtt_min > 0.0 {
            let ratio = (self.rtt_min / self.cfg.rtt_ref_s)
                .clamp(self.cfg.rtt_scale_min, self.cfg.rtt_scale_max);
            factor = (factor * ratio).max(1.0);
        }
        2.0 * factor * (1.0 - self.beta)
    }

    fn measure_throughput(&mut self, st: &CcState, now: SimTime) {
        if !self.cfg.use_bandwidth_switch {
            return;
        }
        let Some((start, delivered_then)) = self.throughput.since else {
            self.throughput.since = Some((now, st.delivered));
            return;
        };
        let count = st.delivered.saturating_sub(delivered_then) as f64;
        let elapsed = now.saturating_since(start).as_secs_f64();
        let enough = count >= st.cwnd - self.alpha(now).floor().max(1.0);
        if !(enough && self.rtt_min > 0.0 && elapsed >= self.rtt_min) {
            return;
        }
        let sample = count / elapsed;
        let just_after_backoff = self.delta(now) / self.rtt_min <= 3.0; // Linux htcp_ccount(ca) <= 3
        let t = &mut self.throughput;
        if just_after_backoff {
            t.smoothed = sample;
            t.peak = sample;
        } else {
            t.smoothed = (3.0 * t.smoothed + sample) / 4.0;
            t.peak = t.peak.max(t.smoothed);
        }
        t.since = Some((now, st.delivered));
    }

    /// Linux `htcp_beta_update`.
    fn update_beta(&mut self) {
        let c = &self.cfg;
        if c.use_bandwidth_switch {
            let t = &mut self.throughput;
            let (peak, previous) = (t.peak, t.previous_peak);
            t.previous_peak = peak;
            let steady = peak >= (1.0 - c.bandwidth_switch_threshold) * previous
                && peak <= (1.0 + c.bandwidth_switch_threshold) * previous;
            if !steady {
                self.beta = c.beta_min;
                self.modeswitch = false;
                return;
            }
        }
        if c.adaptive_backoff
            && self.modeswitch
            && self.rtt_min > c.adaptive_backoff_min_rtt_s
            && self.rtt_max > 0.0
        {
            self.beta = (self.rtt_min / self.rtt_max).clamp(c.beta_min, c.beta_max);
        } else {
            self.beta = c.beta_min;
            self.modeswitch = true;
        }
    }
}

impl CongestionControl for Htcp {
    fn name(&self) -> &'static str {
        "htcp"
    }

    fn on_sent(&mut self, _st: &mut CcState, now: SimTime) {
        if self.epoch_start.is_none() {
            self.epoch_start = Some(now);
        }
    }

    fn on_rtt_sample(&mut self, _st: &mut CcState, _now: SimTime, rtt: SimDuration) {
        let r = rtt.as_secs_f64();
        if self.rtt_min == 0.0 || r < self.rtt_min {
            self.rtt_min = r;
        }
        // Linux `measure_rtt`: RTT_max only in the Open state, and only by bounded steps so
        // one delayed sample does not set it.
        if !self.recovering {
            self.rtt_max = self.rtt_max.max(self.rtt_min);
            if r > self.rtt_max && r <= self.rtt_max + self.cfg.max_rtt_step_s {
                self.rtt_max = r;
            }
        }
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        self.recovering = false;
        if self.epoch_start.is_none() {
            self.epoch_start = Some(ack.now);
        }
        self.measure_throughput(st, ack.now);
        let acked = slow_start(st, ack.acked);
        if acked == 0 {
            return;
        }
        let alpha = self.alpha(ack.now);
        st.cwnd += alpha * acked as f64 / st.cwnd.max(1.0);
    }

    fn on_congestion(&mut self, st: &mut CcState, ev: &CongestionEvent) {
        // Linux `htcp_param_update`, then `htcp_recalc_ssthresh`, then `htcp_reset`.
        self.update_beta();
        if self.rtt_min > 0.0 && self.rtt_max > self.rtt_min {
            self.rtt_max = self.rtt_min + self.cfg.max_rtt_decay * (self.rtt_max - self.rtt_min);
        }
        st.ssthresh = (self.beta * st.cwnd).max(2.0);
        self.epoch_start = Some(ev.now);
        self.recovering = true;
        self.throughput.since = None;
    }

    fn on_recovery_exit(&mut self, _st: &mut CcState, now: SimTime) {
        self.epoch_start = Some(now);
        self.recovering = false;
        self.throughput.since = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{CcConfig, CongestionKind};

    const RTT: SimDuration = SimDuration::from_millis(100);

    /// Drives `h` for `rounds` round trips: round r lasts `rtt(r)` and acknowledges ⌊cwnd⌋
    /// segments one at a time, evenly spread, each with an RTT sample of `rtt(r)`.
    /// Returns the window at the start of each round.
    fn drive(
        h: &mut Htcp,
        st: &mut CcState,
        now: &mut SimTime,
        rounds: u32,
        rtt: impl Fn(u32) -> SimDuration,
    ) -> Vec<f64> {
        let mut windows = Vec::new();
        for round in 0..rounds {
            windows.push(st.cwnd);
            let n = st.cwnd as u64;
            let r = rtt(round);
            let step = SimDuration::from_nanos(r.as_nanos() / n);
            for _ in 0..n {
                *now += step;
                st.delivered += 1;
                h.on_rtt_sample(st, *now, r);
                h.on_ack(st, &AckSample { now: *now, acked: 1, rtt: Some(r) });
            }
        }
        windows
    }

    fn congestion(h: &mut Htcp, st: &mut CcState, now: SimTime) {
        h.on_congestion(
            st,
            &CongestionEvent { now, kind: CongestionKind::Loss, flight_size: st.cwnd as u64 },
        );
        st.cwnd = st.ssthresh;
        h.on_recovery_exit(st, now);
    }

    #[test]
    fn per_rtt_increase_follows_alpha_of_delta_after_a_loss() {
        let mut h = Htcp::new(HtcpConfig::default());
        let mut st = CcState::new(1000.0, 1000.0, 1460);
        let mut now = SimTime::from_secs(1);
        h.on_sent(&mut st, now);
        drive(&mut h, &mut st, &mut now, 5, |_| RTT);
        let before = st.cwnd;
        congestion(&mut h, &mut st, now);
        // First event: β = β_min = 0.5, so α = 2(1 − β)α_H = α_H; RTT = RTT_ref: no scaling.
        assert_eq!(h.beta(), 0.5);
        assert_eq!(st.cwnd, 0.5 * before);
        let windows = drive(&mut h, &mut st, &mut now, 50, |_| RTT);
        for k in 0..windows.len() - 1 {
            let grown = windows[k + 1] - windows[k];
            // Round k spans Δ ∈ [0.1k, 0.1(k+1)] s; α_H is convex, so compare with its mean.
            let mean_alpha: f64 = (0..100)
                .map(|i| h.alpha_h(0.1 * (k as f64 + (i as f64 + 0.5) / 100.0)))
                .sum::<f64>()
                / 100.0;
            assert!(
                (grown - mean_alpha).abs() < 0.02 * mean_alpha + 0.02,
                "round {k}: grew {grown}, α_H {mean_alpha}"
            );
        }
        // Δ ≤ Δ_L: Reno's one segment per RTT; at Δ = 5 s: 1 + 10·4 + 0.25·16 = 45 per RTT.
        assert!((windows[5] - windows[4] - 1.0).abs() < 0.01);
        assert!((h.alpha_h(5.0) - 45.0).abs() < 1e-12);
    }

    #[test]
    fn adaptive_backoff_is_rtt_min_over_rtt_max_clamped() {
        let cfg = HtcpConfig { use_bandwidth_switch: false, ..HtcpConfig::default() };
        // RTT ramps from 100 ms to `max_ms` in 10 ms steps (a queue filling), then loss.
        let beta_after = |max_ms: u64| {
            let mut h = Htcp::new(cfg.clone());
            let mut st = CcState::new(200.0, 200.0, 1460);
            let mut now = SimTime::from_secs(1);
            h.on_sent(&mut st, now);
            for _ in 0..2 {
                let ramp = |r: u32| SimDuration::from_millis((100 + 10 * r as u64).min(max_ms));
                drive(&mut h, &mut st, &mut now, 30, ramp);
                congestion(&mut h, &mut st, now);
            }
            h.beta()
        };
        // The first event always uses β_min (Linux modeswitch); the second is adaptive.
        assert!((beta_after(150) - 100.0 / 150.0).abs() < 1e-9, "{}", beta_after(150));
        assert_eq!(beta_after(300), 0.5);
        assert_eq!(beta_after(105), 0.8);
        // A single sample far above RTT_max is ignored (steps > 20 ms).
        let mut h = Htcp::new(cfg.clone());
        let mut st = CcState::new(200.0, 200.0, 1460);
        let mut now = SimTime::from_secs(1);
        h.on_sent(&mut st, now);
        for _ in 0..2 {
            drive(&mut h, &mut st, &mut now, 5, |r| {
                if r == 3 {
                    SimDuration::from_millis(400)
                } else {
                    RTT
                }
            });
            congestion(&mut h, &mut st, now);
        }
        assert_eq!(h.beta(), 0.8);
    }

    #[test]
    fn bandwidth_switch_backs_off_by_half_when_throughput_changes() {
        // Each epoch starts from the same large window and lasts 1.5 s, so the window (and the
        // throughput cwnd/RTT) barely depends on the β in effect; epoch 2 runs at twice the RTT.
        let run = |slow_epoch_rtt_ms: u64| {
            let mut h = Htcp::new(HtcpConfig::default());
            let mut st = CcState::new(5000.0, 5000.0, 1460);
            let mut now = SimTime::from_secs(1);
            h.on_sent(&mut st, now);
            let mut betas = Vec::new();
            for epoch in 0..4 {
                let ms = if epoch == 2 { slow_epoch_rtt_ms } else { 100 };
                st.cwnd = 5000.0;
                drive(&mut h, &mut st, &mut now, 15, |_| SimDuration::from_millis(ms));
                congestion(&mut h, &mut st, now);
                betas.push(h.beta());
            }
            betas
        };
        // Steady: event 1 switches (no previous peak), event 2 is the plain first backoff,
        // event 3 adapts (RTT_min = RTT_max = 100 ms → clamped to 0.8).
        assert_eq!(run(100), vec![0.5, 0.5, 0.8, 0.8]);
        // Half the throughput in epoch 2: back to 0.5 at its end and at the end of the next
        // (the change back); without the switch β stays adaptive.
        assert_eq!(run(200), vec![0.5, 0.5, 0.5, 0.5]);
    }

    #[test]
    fn rtt_scaling_makes_the_increase_proportional_to_rtt_within_clamps() {
        let alpha_at = |rtt_ms: u64, scaling: bool| {
            let mut h = Htcp::new(HtcpConfig { rtt_scaling: scaling, ..HtcpConfig::default() });
            let mut st = CcState::new(100.0, 100.0, 1460);
            h.on_sent(&mut st, SimTime::ZERO);
            h.on_rtt_sample(&mut st, SimTime::ZERO, SimDuration::from_millis(rtt_ms));
            h.alpha(SimTime::from_secs(4)) // Δ = 4 s: α_H = 1 + 30 + 2.25 = 33.25; β = 0.5
        };
        assert!((alpha_at(100, true) - 33.25).abs() < 1e-9);
        assert!((alpha_at(50, true) - 33.25 / 2.0).abs() < 1e-9);
        assert!((alpha_at(5, true) - 3.325).abs() < 1e-9); // clamped at 0.1
        assert!((alpha_at(400, true) - 66.5).abs() < 1e-9); // clamped at 2
        assert!((alpha_at(50, false) - 33.25).abs() < 1e-9);
        // Within Δ_L the scaled α never drops below one segment per RTT.
        let mut h = Htcp::new(HtcpConfig::default());
        let mut st = CcState::new(100.0, 100.0, 1460);
        h.on_sent(&mut st, SimTime::ZERO);
        h.on_rtt_sample(&mut st, SimTime::ZERO, SimDuration::from_millis(20));
        assert_eq!(h.alpha(SimTime::from_millis(500)), 1.0);
    }

    #[test]
    fn bad_parameters_are_one_line_errors() {
        let e =
            CcConfig::from_name("htcp", Some(&serde_json::json!({"beta_max": 0.4}))).unwrap_err();
        assert!(e.starts_with("beta_max: 0.4 is out of range"), "{e}");
        let e =
            CcConfig::from_name("htcp", Some(&serde_json::json!({"rtt_ref_s": 0}))).unwrap_err();
        assert!(e.starts_with("rtt_ref_s: 0"), "{e}");
        let e = CcConfig::from_name("htcp", Some(&serde_json::json!({"rtt_scaling": "yes"})))
            .unwrap_err();
        assert!(e.starts_with("rtt_scaling:"), "{e}");
    }
}
