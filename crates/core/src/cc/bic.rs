//! BIC, binary increase congestion control (Xu, Harfoush, Rhee, INFOCOM 2004), with the
//! constants of Linux `net/ipv4/tcp_bic.c` (unchanged from 2.6.22 to 6.x).
//!
//! ```text
//! per RTT, from cwnd at the start of the round (a round ends when SND.UNA passes the SND.NXT
//! noted at its start), spread evenly over the round's ACKs:
//!   cwnd ≤ low_window:            inc = 1                                 (Reno)
//!   cwnd < W_max, d = (W_max − cwnd)/B:                                  binary search increase
//!       d > S_max:  inc = S_max        (additive increase far below W_max)
//!       d ≤ 1:      inc = B/smooth_part (the minimum step, ~S_min, approaching W_max)
//!       otherwise:  inc = d            (B = 2: the midpoint, halving the distance each RTT)
//!   cwnd ≥ W_max:                                                        max probing
//!       cwnd < W_max + B:                 inc = B/smooth_part
//!       cwnd < W_max + S_max·(B − 1):     inc = (cwnd − W_max)/(B − 1)   (slow start away from W_max)
//!       otherwise:                        inc = S_max
//!   no W_max yet (start, after a timeout):  inc = max(inc, no_wmax_growth·cwnd)   (Linux: 5%/RTT)
//! loss or ECN:  W_max = cwnd·(1+β)/2 if cwnd < W_max (fast convergence), else cwnd
//!               ssthresh = max(cwnd/2, 2) if cwnd ≤ low_window, else max(β·cwnd, 2)
//! timeout:      as a loss, then W_max is forgotten (Linux bictcp_reset on TCP_CA_Loss)
//! ```
//!
//! The paper's binary search jumps to the midpoint of [cwnd, W_max] (B = 2) and clamps the step to
//! [S_min, S_max] = [0.01, S_max]; Linux moves a quarter of the way (B = 4) and replaces S_min by
//! `B/smooth_part` once the distance is at most B, where `smooth_part` = 20 is the number of RTTs
//! from W_max − B to W_max (Linux derives it as log(1/S_min)/log(B/(B−1)) + B with S_min = 0.01).
//!
//! Not implemented / deviates:
//! - The step is computed once per round trip, as the paper states it; Linux recomputes its
//!   per-ACK counter whenever the integer cwnd changes, so within one RTT its step shrinks as
//!   cwnd approaches W_max (the distance falls by e^(−1/B) per RTT instead of 1 − 1/B).
//! - Linux computes in integers (`(W_max − cwnd)/B` is floored); here in floating point.
//! - Linux's delayed-ACK ratio compensation is unnecessary: the transport counts segments, not ACKs.

use super::{
    check_param, slow_start, AckSample, CcParams, CcState, CongestionControl, CongestionEvent,
    CongestionKind, MAX_SEGMENTS,
};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BicConfig {
    /// Multiplicative decrease factor β (Linux `beta = 819`/1024).
    pub beta: f64,
    /// Fast convergence (paper §III; Linux `fast_convergence = 1`).
    pub fast_convergence: bool,
    /// S_max, the largest step per RTT, segments (Linux `max_increment = 16`).
    pub max_increment: f64,
    /// B, the binary-search divisor: each RTT moves 1/B of the way to W_max (Linux `BICTCP_B = 4`;
    /// the paper's midpoint is B = 2).
    pub b: f64,
    /// RTTs from W_max − B to W_max; the minimum step is B/smooth_part (Linux `smooth_part = 20`).
    pub smooth_part: f64,
    /// At or below this window BIC behaves as Reno, segments (paper and Linux `low_window = 14`).
    pub low_window: f64,
    /// Least growth per RTT, as a fraction of cwnd, while no W_max is known (Linux: `cnt` ≤ 20).
    pub no_wmax_growth: f64,
}

impl Default for BicConfig {
    fn default() -> Self {
        BicConfig {
            beta: 819.0 / 1024.0,
            fast_convergence: true,
            max_increment: 16.0,
            b: 4.0,
            smooth_part: 20.0,
            low_window: 14.0,
            no_wmax_growth: 1.0 / 20.0,
        }
    }
}

impl CcParams for BicConfig {
    fn validate(&self) -> Result<(), String> {
        check_param("beta", self.beta, self.beta > 0.0 && self.beta < 1.0, "a number in (0, 1)")?;
        let max_inc = self.max_increment;
        check_param(
            "max_increment",
            max_inc,
            max_inc > 0.0 && max_inc <= MAX_SEGMENTS,
            "segments in (0, 1000000]",
        )?;
        // B = 2 is a true binary search (paper), Linux 4; beyond 1024 the search barely moves.
        check_param("b", self.b, self.b > 1.0 && self.b <= 1024.0, "a divisor in (1, 1024]")?;
        // The minimum step B/smooth_part must not exceed B itself (Linux smooth_part = 20).
        check_param(
            "smooth_part",
            self.smooth_part,
            (1.0..=1e4).contains(&self.smooth_part),
            "round trips in [1, 10000]",
        )?;
        check_param(
            "low_window",
            self.low_window,
            (0.0..=MAX_SEGMENTS).contains(&self.low_window),
            "segments in [0, 1000000]",
        )?;
        // A fraction of cwnd per RTT: 1 doubles the window every round trip, as slow start.
        check_param(
            "no_wmax_growth",
            self.no_wmax_growth,
            (0.0..=1.0).contains(&self.no_wmax_growth),
            "a fraction of cwnd in [0, 1]",
        )?;
        Ok(())
    }
}

/// The step of the current round trip.
#[derive(Clone, Copy, Debug)]
struct Round {
    /// The round ends when SND.UNA passes this segment.
    end_seq: u64,
    /// Window growth per acknowledged segment this round.
    per_segment: f64,
}

pub struct Bic {
    cfg: BicConfig,
    /// W_max, segments; `None` before the first reduction and after a timeout.
    w_max: Option<f64>,
    round: Option<Round>,
}

impl Bic {
    pub fn new(cfg: BicConfig) -> Self {
        Bic { cfg, w_max: None, round: None }
    }

    /// W_max in segments, if a reduction has set one.
    pub fn w_max(&self) -> Option<f64> {
        self.w_max
    }

    /// The window increase for one RTT starting at `cwnd` (Linux `bictcp_update`).
    fn increment_per_rtt(&self, cwnd: f64) -> f64 {
        let c = &self.cfg;
        if cwnd <= c.low_window {
            return 1.0;
        }
        let (b, s_max, s_min) = (c.b, c.max_increment, c.b / c.smooth_part);
        let w_max = self.w_max.unwrap_or(0.0);
        let inc = if cwnd < w_max {
            let d = (w_max - cwnd) / b;
            if d > s_max {
                s_max
            } else if d <= 1.0 {
                s_min
            } else {
                d
            }
        } else if cwnd < w_max + b {
            s_min
        } else if cwnd < w_max + s_max * (b - 1.0) {
            (cwnd - w_max) / (b - 1.0)
        } else {
            s_max
        };
        if self.w_max.is_none() {
            inc.max(c.no_wmax_growth * cwnd)
        } else {
            inc
        }
    }
}

impl CongestionControl for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        let acked = slow_start(st, ack.acked);
        if acked == 0 {
            return;
        }
        if self.round.is_none_or(|r| st.snd_una > r.end_seq) {
            let per_segment = self.increment_per_rtt(st.cwnd) / st.cwnd;
            self.round = Some(Round { end_seq: st.snd_nxt, per_segment });
        }
        if let Some(r) = self.round {
            st.cwnd += r.per_segment * acked as f64;
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, ev: &CongestionEvent) {
        let cwnd = st.cwnd;
        let c = &self.cfg;
        self.round = None;
        self.w_max = Some(match self.w_max {
            Some(w) if c.fast_convergence && cwnd < w => cwnd * (1.0 + c.beta) / 2.0,
            _ => cwnd,
        });
        let factor = if cwnd <= c.low_window { 0.5 } else { c.beta };
        st.ssthresh = (factor * cwnd).max(2.0);
        if ev.kind == CongestionKind::Timeout {
            self.w_max = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::ack_clock::AckClock;
    use crate::cc::CcConfig;
    use crate::time::{SimDuration, SimTime};

    const RTT: SimDuration = SimDuration::from_millis(100);

    /// A BIC flow in congestion avoidance at `cwnd` that has just lost at `cwnd` and finished
    /// recovery: W_max = cwnd, the window is β·cwnd, and the next ACK starts the first round.
    /// ACKs of a round all arrive at once (no bottleneck), so rounds are whole RTTs.
    fn after_loss_at(cfg: BicConfig, cwnd: f64) -> (Bic, AckClock) {
        let mut bic = Bic::new(cfg);
        let mut clock = AckClock::new(&mut bic, cwnd, cwnd, RTT, SimDuration::ZERO);
        clock.st.cwnd = cwnd; // hold the window until the loss
        clock.loss(&mut bic);
        clock.run_until(&mut bic, SimTime::ZERO + RTT);
        assert_eq!(bic.w_max(), Some(cwnd));
        (bic, clock)
    }

    /// cwnd after each of the next `rounds` round trips.
    fn per_rtt(bic: &mut Bic, clock: &mut AckClock, rounds: u64) -> Vec<f64> {
        let start = clock.now;
        (1..=rounds)
            .map(|k| {
                clock.run_until(bic, start + RTT.saturating_mul(k));
                clock.st.cwnd
            })
            .collect()
    }

    /// W_max − cwnd before and after each round trip.
    fn distances(w_max: f64, start: f64, w: &[f64]) -> Vec<(f64, f64)> {
        let before = std::iter::once(start).chain(w.iter().copied());
        before.zip(w).map(|(a, b)| (w_max - a, w_max - b)).collect()
    }

    #[test]
    fn with_b_2_the_binary_search_halves_the_distance_to_w_max_each_rtt() {
        // The paper's midpoint rule; S_max out of the way.
        let cfg = BicConfig { b: 2.0, max_increment: 1000.0, ..BicConfig::default() };
        let (mut bic, mut clock) = after_loss_at(cfg, 400.0);
        let start = clock.st.cwnd;
        let w = per_rtt(&mut bic, &mut clock, 6);
        // 80 segments below W_max; halving while d/2 > 1 (distance > 2).
        for (before, after) in distances(400.0, start, &w) {
            assert!((after / before - 0.5).abs() < 0.01, "{before} -> {after}: {w:?}");
        }
    }

    #[test]
    fn linux_b_4_closes_a_quarter_of_the_distance_each_rtt_then_steps_by_b_over_smooth_part() {
        let (mut bic, mut clock) = after_loss_at(BicConfig::default(), 300.0);
        let start = clock.st.cwnd;
        let w = per_rtt(&mut bic, &mut clock, 40);
        let d = distances(300.0, start, &w);
        // 60 segments below W_max (d/4 = 15 ≤ S_max): a quarter closes each RTT while d/4 > 1.
        let search: Vec<_> = d.iter().take_while(|(before, _)| before / 4.0 > 1.0).collect();
        assert!(search.len() >= 9, "{w:?}");
        for (before, after) in &search {
            assert!((after / before - 0.75).abs() < 0.01, "{before} -> {after}: {w:?}");
        }
        // Within B of W_max the step is B/smooth_part = 0.2 segment per RTT, up to W_max and past it.
        let near: Vec<_> = d[search.len()..].iter().take(20).collect();
        assert!(near.len() == 20 && near.iter().all(|(b, a)| (b - a - 0.2).abs() < 0.01), "{w:?}");
    }

    #[test]
    fn far_below_w_max_the_increase_is_s_max_per_rtt() {
        let (mut bic, mut clock) = after_loss_at(BicConfig::default(), 1000.0);
        // 1000 → 800: d/4 = 50 > 16: additive increase by S_max until d/4 ≤ 16 (cwnd ≥ 936).
        let start = clock.st.cwnd;
        let w = per_rtt(&mut bic, &mut clock, 8);
        // (Each RTT acknowledges ⌊cwnd⌋ segments, so a step is 16·⌊cwnd⌋/cwnd.)
        for (before, after) in distances(1000.0, start, &w) {
            assert!((before - after - 16.0).abs() < 0.05, "{w:?}");
        }
    }

    #[test]
    fn above_w_max_probing_starts_slowly_and_accelerates_to_s_max() {
        let mut bic = Bic::new(BicConfig::default());
        bic.w_max = Some(200.0);
        let inc: Vec<f64> = [200.0, 203.9, 204.0, 230.0, 247.9, 248.0, 400.0]
            .iter()
            .map(|&w| bic.increment_per_rtt(w))
            .collect();
        // [W, W+B): B/smooth_part; [W+B, W+S_max(B−1)): (cwnd − W)/(B − 1); beyond: S_max.
        let want = [0.2, 0.2, 4.0 / 3.0, 10.0, 47.9 / 3.0, 16.0, 16.0];
        for (g, w) in inc.iter().zip(want) {
            assert!((g - w).abs() < 1e-9, "{inc:?}");
        }
        // The probing gains speed round after round (a slow start away from W_max).
        let (mut bic, mut clock) = after_loss_at(BicConfig::default(), 100.0);
        let w = per_rtt(&mut bic, &mut clock, 60);
        let above: Vec<f64> = w.iter().copied().filter(|&c| c > 104.0).collect();
        let steps: Vec<f64> = above.windows(2).map(|p| p[1] - p[0]).collect();
        assert!(steps.windows(2).take_while(|s| s[1] < 15.9).all(|s| s[1] > s[0]), "{w:?}");
        assert!(steps.iter().any(|&s| (s - 16.0).abs() < 0.1), "reaches S_max: {w:?}");
    }

    #[test]
    fn at_or_below_low_window_bic_is_reno() {
        let mut bic = Bic::new(BicConfig::default());
        let mut clock = AckClock::new(&mut bic, 8.0, 8.0, RTT, SimDuration::ZERO);
        let w = per_rtt(&mut bic, &mut clock, 4);
        assert!(
            w.iter().zip([9.0, 10.0, 11.0, 12.0]).all(|(g, want)| (g - want).abs() < 1e-9),
            "{w:?}"
        );
        // A loss at 12 ≤ low_window halves the window, as Reno.
        clock.loss(&mut bic);
        assert!((clock.st.ssthresh - 6.0).abs() < 1e-9, "{}", clock.st.ssthresh);
        // Above low_window the decrease is β = 819/1024.
        clock.st.cwnd = 100.0;
        clock.loss(&mut bic);
        assert_eq!(clock.st.ssthresh, 100.0 * 819.0 / 1024.0);
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_losing_below_it() {
        let (mut bic, mut clock) = after_loss_at(BicConfig::default(), 200.0);
        clock.st.cwnd = 180.0;
        clock.loss(&mut bic);
        assert_eq!(bic.w_max(), Some(180.0 * (1.0 + 819.0 / 1024.0) / 2.0));
        let (mut bic, mut clock) =
            after_loss_at(BicConfig { fast_convergence: false, ..BicConfig::default() }, 200.0);
        clock.st.cwnd = 180.0;
        clock.loss(&mut bic);
        assert_eq!(bic.w_max(), Some(180.0));
    }

    #[test]
    fn without_w_max_growth_is_at_least_five_percent_per_rtt_and_a_timeout_forgets_w_max() {
        let mut bic = Bic::new(BicConfig::default());
        // No loss yet: max probing from W_max = 0 gives S_max = 16, but 5% of 1000 is 50.
        let mut clock = AckClock::new(&mut bic, 1000.0, 1000.0, RTT, SimDuration::ZERO);
        let w = per_rtt(&mut bic, &mut clock, 2);
        assert!((w[0] - 1050.0).abs() < 0.5 && (w[1] - 1102.5).abs() < 1.0, "{w:?}");
        clock.loss(&mut bic);
        assert!(bic.w_max().is_some());
        clock.timeout(&mut bic);
        assert_eq!(bic.w_max(), None);
    }

    #[test]
    fn bic_is_selectable_and_rejects_bad_parameters() {
        let c = CcConfig::from_name("bic", Some(&serde_json::json!({"b": 2}))).unwrap();
        assert_eq!(c.params_json()["b"], 2.0);
        assert_eq!(c.params_json()["max_increment"], 16.0);
        let e = CcConfig::from_name("bic", Some(&serde_json::json!({"b": 1}))).unwrap_err();
        assert!(e.starts_with("b: 1 is out of range") && e.contains("(1, 1024]"), "{e}");
        let e = CcConfig::from_name("bic", Some(&serde_json::json!({"beta": 1.2}))).unwrap_err();
        assert!(e.starts_with("beta") && e.contains("(0, 1)"), "{e}");
    }
}
