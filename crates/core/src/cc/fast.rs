//! FAST TCP (C. Jin, D. X. Wei, S. H. Low, "FAST TCP: motivation, architecture, algorithms,
//! performance", IEEE INFOCOM 2004; journal version D. X. Wei, C. Jin, S. H. Low, S. Hegde,
//! IEEE/ACM ToN 14(6), 2006).
//!
//! ```text
//! estimation, every RTT sample:
//!     baseRTT ← min(baseRTT, rtt)
//!     avgRTT  ← (1 − η)·avgRTT + η·rtt,   η = min(3/w, 1/4)       (the first sample sets avgRTT)
//! window control, once per update period (one round trip):
//!     w ← min{ 2w,  (1 − γ)·w + γ·(baseRTT/avgRTT · w + α) },     γ = 1/2,  w ≥ 2
//! equilibrium:  w* = α · avgRTT / (avgRTT − baseRTT),  i.e. rate · queueing delay = α:
//!     every flow keeps α segments in the bottleneck queue, whatever its RTT
//! loss (dupACK/SACK, ECN or timeout):  ssthresh = max(w/2, 2)   (the transport sets cwnd)
//! after a timeout (Loss state):  Reno slow start from cwnd = 1 to ssthresh, then the update
//! burstiness control (pacing):  rate = 1.2 · w · (MSS + 40 B) · 8 / SRTT   bit/s
//! ```
//!
//! The update period is one round trip (the paper's "periodically, e.g. every RTT"): it ends on
//! the first ACK of a segment sent after the period began (SND.UNA passes the SND.NXT noted at
//! its start). `update_every_rtts = 2` gives the every-other-RTT schedule of the Caltech Linux
//! prototype and of the ns-2 FAST module ≥ 1.1.3. The min{2w, ·} bound is FAST's start-up: with no
//! queueing the window doubles each period until it exceeds γ·α, then grows by γ·α per period
//! until the queue appears.
//!
//! Pacing: the transport spaces segments by their wire-size serialisation time at
//! `pacing_rate`: gain × cwnd × (MSS + 40-byte TCP/IP header) × 8 / SRTT, with SRTT the RFC 6298
//! smoothed RTT and gain 1.2, Linux's congestion-avoidance pacing ratio (`tcp_pacing_ca_ratio`
//! = 120 %), so that the window, not the pacer, binds in equilibrium; no pacing before the first
//! RTT sample (the initial window leaves as a burst, as in Linux).
//!
//! Deviations / not implemented:
//! - α is a constant, not the paper's α(w, qdelay) tuning; the window update is applied at
//!   once at the end of the period, not spread over the ACKs of the next one (ns-2 `fast_pace`)
//!   — pacing spreads the resulting transmissions instead.
//! - ns-2's FAST module weights its average by min(3/w, 1/256) and switches to a per-ACK
//!   multiplicative increase while the queueing delay is below `mi_threshold_`; we use the
//!   paper's η = min(3/w, 1/4) and the equation alone (its min{2w, ·} is the start-up).
//! - Loss response: the window halves (ns-2 `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF)`);
//!   loss detection and recovery belong to the transport. The update period restarts after a
//!   congestion event and after recovery. In the transport's Loss state (after a timeout, or
//!   tahoe's fast retransmit) the window slow-starts (+1 per acked segment) from cwnd = 1 to
//!   ssthresh before the FAST update resumes, as Linux runs Reno outside the Open state and
//!   ns-2 FAST slow-starts after a timeout (the update alone would wait a whole go-back-N
//!   episode at one segment per RTT).

use super::round_rtt::RoundRtt;
use super::{
    check_param, slow_start, AckSample, CcParams, CcState, CongestionControl, CongestionEvent,
    MAX_SEGMENTS,
};
use crate::time::{Rate, SimDuration, SimTime};
use crate::wire::tcp::TCP_IP_HEADER;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FastConfig {
    /// Segments each flow keeps queued in equilibrium (Jin, Wei, Low 2004, §5 experiments: 200).
    pub alpha: f64,
    /// Step towards the target window per update, in (0, 1] (Jin, Wei, Low 2004: γ = 1/2).
    pub gamma: f64,
    /// Round trips per window update (1: every RTT, the paper; 2: Caltech Linux, ns-2 ≥ 1.1.3).
    pub update_every_rtts: u32,
    /// Numerator of the averaging weight η = min(avg_weight_window / w, avg_weight_max) (Wei et
    /// al. ToN 2006: 3).
    pub avg_weight_window: f64,
    /// Cap of the averaging weight η (Wei et al. ToN 2006: 1/4).
    pub avg_weight_max: f64,
    /// Multiplicative decrease on loss (ns-2 FAST: the window halves).
    pub loss_beta: f64,
    /// Smallest window FAST sets, segments (ns-2 FAST `fast_calc_cwnd`: 2).
    pub min_cwnd: f64,
    /// Pacing rate as a multiple of cwnd / SRTT (Linux `tcp_pacing_ca_ratio`: 120 %); 0 turns
    /// pacing off.
    pub pacing_gain: f64,
}

impl CcParams for FastConfig {
    fn validate(&self) -> Result<(), String> {
        let c = self;
        check_param(
            "alpha",
            c.alpha,
            c.alpha > 0.0 && c.alpha <= MAX_SEGMENTS,
            "segments in (0, 1000000]",
        )?;
        check_param("gamma", c.gamma, c.gamma > 0.0 && c.gamma <= 1.0, "a step in (0, 1]")?;
        let every = f64::from(c.update_every_rtts);
        check_param(
            "update_every_rtts",
            every,
            (1..=1000).contains(&c.update_every_rtts),
            "round trips in 1..1000",
        )?;
        let w = c.avg_weight_window;
        check_param(
            "avg_weight_window",
            w,
            w > 0.0 && w <= MAX_SEGMENTS,
            "segments in (0, 1000000]",
        )?;
        let max = c.avg_weight_max;
        check_param("avg_weight_max", max, max > 0.0 && max <= 1.0, "a weight in (0, 1]")?;
        check_param(
            "loss_beta",
            c.loss_beta,
            c.loss_beta > 0.0 && c.loss_beta < 1.0,
            "a factor in (0, 1)",
        )?;
        check_param(
            "min_cwnd",
            c.min_cwnd,
            (1.0..=MAX_SEGMENTS).contains(&c.min_cwnd),
            "segments in [1, 1000000]",
        )?;
        // Linux caps its pacing ratios at 1000 % (`tcp_pacing_ca_ratio`, sysctl range).
        check_param(
            "pacing_gain",
            c.pacing_gain,
            (0.0..=10.0).contains(&c.pacing_gain),
            "a factor in [0, 10] (0: no pacing)",
        )
    }
}

impl Default for FastConfig {
    fn default() -> Self {
        FastConfig {
            alpha: 200.0,           // Jin, Wei, Low INFOCOM 2004 §5: α = 200 packets
            gamma: 0.5,             // Jin, Wei, Low INFOCOM 2004 §3: γ = 0.5 (also ns-2 gamma_)
            update_every_rtts: 1,   // Jin, Wei, Low INFOCOM 2004: periodic update, every RTT
            avg_weight_window: 3.0, // Wei, Jin, Low, Hegde ToN 2006: η = min(3/w, 1/4)
            avg_weight_max: 0.25,   // Wei, Jin, Low, Hegde ToN 2006: η = min(3/w, 1/4)
            loss_beta: 0.5,         // ns-2 FAST: CLOSE_CWND_HALF
            min_cwnd: 2.0,          // ns-2 FAST fast_calc_cwnd: target_cwnd ≥ 2
            pacing_gain: 1.2,       // Linux sysctl tcp_pacing_ca_ratio = 120
        }
    }
}

pub struct Fast {
    cfg: FastConfig,
    /// Round boundaries and baseRTT.
    rounds: RoundRtt,
    /// avgRTT, seconds; `None` before the first sample.
    avg_rtt: Option<f64>,
    /// Round trips since the last window update.
    rounds_since_update: u32,
    /// The transport is in its Loss state (a timeout, or tahoe's fast retransmit): `on_ack`
    /// came after a congestion event without a recovery exit. Reno slow start from the
    /// transport's cwnd = 1 until ssthresh, then the FAST update resumes.
    in_loss_state: bool,
}

impl Fast {
    pub fn new(cfg: FastConfig) -> Self {
        Fast {
            cfg,
            rounds: RoundRtt::default(),
            avg_rtt: None,
            rounds_since_update: 0,
            in_loss_state: false,
        }
    }

    /// The window update: min{2w, (1 − γ)w + γ(baseRTT/avgRTT · w + α)}.
    pub fn next_window(w: f64, base_rtt: f64, avg_rtt: f64, alpha: f64, gamma: f64) -> f64 {
        let target = base_rtt / avg_rtt * w + alpha;
        (2.0 * w).min((1.0 - gamma) * w + gamma * target)
    }

    /// avgRTT, seconds.
    pub fn avg_rtt(&self) -> Option<f64> {
        self.avg_rtt
    }
}

impl CongestionControl for Fast {
    fn name(&self) -> &'static str {
        "fast"
    }

    fn on_rtt_sample(&mut self, st: &mut CcState, _now: SimTime, rtt: SimDuration) {
        self.rounds.on_sample(rtt);
        let rtt = rtt.as_secs_f64();
        let eta = (self.cfg.avg_weight_window / st.cwnd.max(1.0)).min(self.cfg.avg_weight_max);
        self.avg_rtt = Some(self.avg_rtt.map_or(rtt, |avg| (1.0 - eta) * avg + eta * rtt));
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        if self.in_loss_state {
            self.in_loss_state = st.in_slow_start();
            if self.in_loss_state {
                slow_start(st, ack.acked);
                if st.in_slow_start() {
                    return;
                }
                // ssthresh reached: a fresh update period begins.
                self.in_loss_state = false;
                self.rounds.restart(st);
                return;
            }
        }
        if self.rounds.end_of_round(st).is_none() {
            return;
        }
        self.rounds_since_update += 1;
        if self.rounds_since_update < self.cfg.update_every_rtts.max(1) {
            return;
        }
        self.rounds_since_update = 0;
        let (Some(base), Some(avg)) = (self.rounds.base(), self.avg_rtt) else { return };
        let w = Self::next_window(
            st.cwnd,
            base.as_secs_f64(),
            avg.max(1e-9),
            self.cfg.alpha,
            self.cfg.gamma,
        );
        st.cwnd = w.max(self.cfg.min_cwnd);
    }

    fn on_congestion(&mut self, st: &mut CcState, _ev: &CongestionEvent) {
        st.ssthresh = (self.cfg.loss_beta * st.cwnd).max(self.cfg.min_cwnd);
        // Until a recovery exit says otherwise, the next ACKs belong to a Loss state.
        self.in_loss_state = true;
        self.rounds.restart(st);
        self.rounds_since_update = 0;
    }

    fn on_recovery_exit(&mut self, st: &mut CcState, _now: SimTime) {
        self.in_loss_state = false;
        self.rounds.restart(st);
        self.rounds_since_update = 0;
    }

    fn pacing_rate(&self, st: &CcState) -> Option<Rate> {
        let srtt = st.srtt?.as_secs_f64();
        if self.cfg.pacing_gain <= 0.0 || srtt <= 0.0 {
            return None;
        }
        let bits_per_window = st.cwnd * f64::from(st.mss + TCP_IP_HEADER) * 8.0;
        let bps = self.cfg.pacing_gain * bits_per_window / srtt;
        Some(Rate(bps.round().max(1.0) as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::round_rtt::testing::{ms, Driver};
    use crate::cc::CongestionKind;

    fn fast(alpha: f64) -> Fast {
        Fast::new(FastConfig { alpha, ..FastConfig::default() })
    }

    #[test]
    fn update_equation_matches_hand_computed_values() {
        // (1 − ½)·100 + ½·(100/200 · 100 + 20) = 50 + 35 = 85.
        assert_eq!(Fast::next_window(100.0, 0.1, 0.2, 20.0, 0.5), 85.0);
        // 20 segments queued at 100/125 ms: the equilibrium, the window stays.
        assert!((Fast::next_window(100.0, 0.1, 0.125, 20.0, 0.5) - 100.0).abs() < 1e-12);
        // No queueing and a small window: the 2w bound (start-up doubling).
        assert_eq!(Fast::next_window(10.0, 0.1, 0.1, 200.0, 0.5), 20.0);
        // No queueing, large window: + γ·α per update.
        assert_eq!(Fast::next_window(300.0, 0.1, 0.1, 200.0, 0.5), 400.0);
    }

    #[test]
    fn fixed_point_keeps_alpha_segments_queued() {
        // One flow on a 1000 segment/s link, baseRTT 100 ms (BDP 100): RTT = max(base, w/C).
        let (c, base, alpha): (f64, f64, f64) = (1000.0, 0.1, 50.0);
        let mut w: f64 = 10.0;
        for _ in 0..80 {
            let rtt = (w / c).max(base);
            w = Fast::next_window(w, base, rtt, alpha, 0.5);
        }
        let rtt = w / c;
        // w* = α·RTT/(RTT − baseRTT) and the queue w − C·base = rate · queueing delay = α.
        assert!((w - alpha * rtt / (rtt - base)).abs() < 1e-6, "{w}");
        assert!((w - c * base - alpha).abs() < 1e-6, "{w}");
    }

    #[test]
    fn driven_by_acks_it_settles_where_alpha_segments_are_queued() {
        // Closed loop through the trait: every RTT sample reflects the current window on a
        // 1000 segment/s link with 100 ms of propagation delay.
        let mut f = fast(30.0);
        let mut d = Driver::new(10.0, f64::INFINITY);
        for _ in 0..300 {
            let rtt = (d.st.cwnd / 1000.0).max(0.1);
            d.round(&mut f, ms(rtt * 1000.0));
        }
        assert!((d.st.cwnd - 130.0).abs() < 1.0, "{}", d.st.cwnd);
        let avg = f.avg_rtt().unwrap();
        assert!((avg - 0.13).abs() < 0.002, "{avg}");
    }

    #[test]
    fn the_window_moves_once_per_update_period() {
        let mut f = fast(200.0);
        let mut d = Driver::new(10.0, f64::INFINITY);
        d.round(&mut f, ms(100.0)); // ends the empty first round: doubles (no queue) → 20
        assert_eq!(d.st.cwnd, 20.0);
        let end = d.round_end();
        while d.st.snd_una < end {
            d.ack(&mut f, ms(100.0));
            assert_eq!(d.st.cwnd, 20.0, "no change inside a round");
        }
        d.ack(&mut f, ms(100.0));
        assert_eq!(d.st.cwnd, 40.0);
        // Every other round with update_every_rtts = 2.
        let mut f = Fast::new(FastConfig { update_every_rtts: 2, ..FastConfig::default() });
        let mut d = Driver::new(10.0, f64::INFINITY);
        let sizes: Vec<f64> = (0..4)
            .map(|_| {
                d.round(&mut f, ms(100.0));
                d.st.cwnd
            })
            .collect();
        assert_eq!(sizes, vec![10.0, 20.0, 20.0, 40.0]);
    }

    #[test]
    fn after_a_timeout_it_slow_starts_to_ssthresh_then_updates_per_round() {
        let mut f = fast(20.0);
        let mut d = Driver::new(100.0, f64::INFINITY);
        d.round(&mut f, ms(100.0)); // no queue: 100 → min(200, 50 + ½(100 + 20)) = 110
        let ev = CongestionEvent { now: d.now, kind: CongestionKind::Timeout, flight_size: 100 };
        f.on_congestion(&mut d.st, &ev);
        assert_eq!(d.st.ssthresh, 55.0);
        d.st.cwnd = 1.0; // the transport
        for k in 1..=54 {
            d.ack(&mut f, ms(100.0));
            assert_eq!(d.st.cwnd, 1.0 + k as f64, "one segment per acked segment");
        }
        d.ack(&mut f, ms(100.0)); // at ssthresh: slow start ends, a new update period begins
        assert_eq!(d.st.cwnd, 55.0);
        d.round(&mut f, ms(100.0));
        d.round(&mut f, ms(100.0));
        assert_eq!(d.st.cwnd, 65.0, "FAST again: + γ·α with no queue");
    }

    #[test]
    fn after_fast_recovery_the_update_resumes_but_a_tahoe_restart_slow_starts() {
        let mut f = fast(20.0);
        let mut d = Driver::new(100.0, f64::INFINITY);
        d.round(&mut f, ms(100.0)); // 110
        let ev = CongestionEvent { now: d.now, kind: CongestionKind::Loss, flight_size: 110 };
        f.on_congestion(&mut d.st, &ev);
        d.st.cwnd = d.st.ssthresh; // SACK recovery ends at ssthresh = 55
        f.on_recovery_exit(&mut d.st, d.now);
        for _ in 0..10 {
            d.ack(&mut f, ms(100.0));
        }
        assert_eq!(d.st.cwnd, 55.0, "no per-ACK growth: FAST moves once per round");
        // Tahoe's fast retransmit: cwnd = 1 and no recovery exit (the Loss state).
        f.on_congestion(&mut d.st, &ev);
        d.st.cwnd = 1.0;
        for _ in 0..10 {
            d.ack(&mut f, ms(100.0));
        }
        assert_eq!(d.st.cwnd, 11.0);
    }

    #[test]
    fn average_rtt_weight_is_min_of_three_over_w_and_a_quarter() {
        let mut f = fast(200.0);
        let mut st = CcState::new(100.0, f64::INFINITY, 1460);
        f.on_rtt_sample(&mut st, SimTime::ZERO, SimDuration::from_millis(100));
        f.on_rtt_sample(&mut st, SimTime::ZERO, SimDuration::from_millis(200));
        // η = 3/100: 0.97·100 + 0.03·200 = 103 ms.
        assert!((f.avg_rtt().unwrap() - 0.103).abs() < 1e-12);
        let mut f = fast(200.0);
        st.cwnd = 4.0;
        f.on_rtt_sample(&mut st, SimTime::ZERO, SimDuration::from_millis(100));
        f.on_rtt_sample(&mut st, SimTime::ZERO, SimDuration::from_millis(200));
        // η = min(3/4, 1/4) = 1/4: 125 ms.
        assert!((f.avg_rtt().unwrap() - 0.125).abs() < 1e-12);
    }

    #[test]
    fn loss_halves_the_window() {
        let mut f = fast(200.0);
        let mut st = CcState::new(100.0, f64::INFINITY, 1460);
        f.on_congestion(
            &mut st,
            &CongestionEvent { now: SimTime::ZERO, kind: CongestionKind::Loss, flight_size: 90 },
        );
        assert_eq!(st.ssthresh, 50.0);
        st.cwnd = 3.0;
        f.on_congestion(
            &mut st,
            &CongestionEvent { now: SimTime::ZERO, kind: CongestionKind::Timeout, flight_size: 3 },
        );
        assert_eq!(st.ssthresh, 2.0);
    }

    #[test]
    fn out_of_range_parameters_are_rejected_naming_the_parameter() {
        let p = serde_json::json!({"gamma": 1.5});
        let e = crate::cc::CcConfig::from_name("fast", Some(&p)).unwrap_err();
        assert_eq!(e, "gamma: 1.5 is out of range: expected a step in (0, 1]");
        let p = serde_json::json!({"update_every_rtts": 0});
        let e = crate::cc::CcConfig::from_name("fast", Some(&p)).unwrap_err();
        assert!(e.starts_with("update_every_rtts: 0 is out of range"), "{e}");
        let p = serde_json::json!({"alpha": 20, "update_every_rtts": 2});
        assert!(crate::cc::CcConfig::from_name("fast", Some(&p)).is_ok());
    }

    #[test]
    fn paces_at_1_2_windows_of_wire_bytes_per_srtt() {
        let f = fast(200.0);
        let mut st = CcState::new(100.0, f64::INFINITY, 1460);
        assert_eq!(f.pacing_rate(&st), None, "no pacing before an RTT sample");
        st.srtt = Some(SimDuration::from_millis(100));
        // 1.2 · 100 · 1500 B · 8 / 0.1 s = 14.4 Mbit/s.
        assert_eq!(f.pacing_rate(&st), Some(Rate(14_400_000)));
        let off = Fast::new(FastConfig { pacing_gain: 0.0, ..FastConfig::default() });
        assert_eq!(off.pacing_rate(&st), None);
    }
}
