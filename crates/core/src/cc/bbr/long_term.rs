//! Long-term ("LT") sampling, to detect a token-bucket policer (Linux `bbr_lt_bw_sampling`):
//! two consecutive intervals of at least `lt_interval_min_rounds` round trips, each ending at a
//! loss with a loss ratio of at least `lt_loss_threshold`, whose delivery rates agree within
//! `lt_bw_ratio` (or `lt_bw_diff_bps`), reveal a policer. Their mean rate then replaces BtlBw, at
//! pacing gain 1, for `lt_bw_max_rounds` round trips of PROBE_BW.

use super::{Bbr, BbrConfig, Mode};
use crate::cc::CcState;
use crate::time::{SimDuration, SimTime};

/// The sampler: the interval being measured, and the rate of the last lossy one or the policed
/// rate in use.
#[derive(Clone, Debug, Default)]
pub(super) struct LongTerm {
    /// An interval is being measured (it starts at the first loss).
    sampling: bool,
    /// Round trips in this interval, or since `use_bw` was set.
    rounds: u32,
    /// The rate of the previous lossy interval, or the policed rate in use, segments/s.
    pub(super) bw: Option<f64>,
    /// Use `bw` as BtlBw: a policer was detected.
    pub(super) use_bw: bool,
    /// C.delivered, cumulative losses and C.delivered_time when the interval began.
    start_delivered: u64,
    start_lost: u64,
    start_time: SimTime,
}

/// What the long-term sampler needs from one ACK.
#[derive(Clone, Copy, Debug)]
struct LtInput {
    round_start: bool,
    losses: u64,
    is_app_limited: bool,
    delivered: u64,
    lost: u64,
    time: SimTime,
    in_probe_bw: bool,
}

/// What the long-term sampler asks of BBR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LtVerdict {
    Nothing,
    /// A policer was detected: pace at gain 1.
    Policed,
    /// The policed rate has been used long enough: probe again from a fresh PROBE_BW cycle.
    StopUsing,
}

impl LongTerm {
    fn reset_interval(&mut self, at: &LtInput) {
        self.start_delivered = at.delivered;
        self.start_lost = at.lost;
        self.start_time = at.time;
        self.rounds = 0;
    }

    fn reset(&mut self, at: &LtInput) {
        self.bw = None;
        self.use_bw = false;
        self.sampling = false;
        self.reset_interval(at);
    }

    fn sample(&mut self, cfg: &BbrConfig, mss: u32, at: &LtInput) -> LtVerdict {
        if self.use_bw {
            if at.in_probe_bw && at.round_start {
                self.rounds += 1;
                if self.rounds >= cfg.lt_bw_max_rounds {
                    self.reset(at);
                    return LtVerdict::StopUsing;
                }
            }
            return LtVerdict::Nothing;
        }
        // Wait for the first loss, so the policer's bucket is empty (Linux: starting earlier
        // includes bursts that over-estimate the rate).
        if !self.sampling {
            if at.losses == 0 {
                return LtVerdict::Nothing;
            }
            self.reset_interval(at);
            self.sampling = true;
        }
        if at.is_app_limited {
            self.reset(at);
            return LtVerdict::Nothing;
        }
        if at.round_start {
            self.rounds += 1;
        }
        if self.rounds < cfg.lt_interval_min_rounds {
            return LtVerdict::Nothing;
        }
        if self.rounds > 4 * cfg.lt_interval_min_rounds {
            self.reset(at);
            return LtVerdict::Nothing;
        }
        // The interval ends at a loss: the bucket's tokens are exhausted.
        if at.losses == 0 {
            return LtVerdict::Nothing;
        }
        let lost = (at.lost - self.start_lost) as f64;
        let delivered = (at.delivered - self.start_delivered) as f64;
        if delivered == 0.0 || lost < cfg.lt_loss_threshold * delivered {
            return LtVerdict::Nothing;
        }
        let elapsed = at.time.saturating_since(self.start_time);
        if elapsed < SimDuration::from_millis(1) {
            return LtVerdict::Nothing; // Linux measures in ms: wait for a 1 ms interval
        }
        let bw = delivered / elapsed.as_secs_f64();
        if let Some(prev) = self.bw {
            let diff = (bw - prev).abs();
            let diff_bps = diff * f64::from(mss) * 8.0 * (1.0 - cfg.pacing_margin);
            if diff <= cfg.lt_bw_ratio * prev || diff_bps <= cfg.lt_bw_diff_bps {
                self.bw = Some((bw + prev) / 2.0);
                self.use_bw = true;
                self.rounds = 0;
                return LtVerdict::Policed;
            }
        }
        self.bw = Some(bw);
        self.reset_interval(at);
        LtVerdict::Nothing
    }
}

impl Bbr {
    /// Feeds one ACK (or a timeout) to the sampler and acts on its verdict.
    pub(super) fn long_term_sample(
        &mut self,
        st: &CcState,
        now: SimTime,
        losses: u64,
        is_app_limited: bool,
    ) {
        let at = LtInput {
            round_start: self.round_start,
            losses,
            is_app_limited,
            delivered: self.delivered,
            lost: self.lost,
            time: self.delivered_time,
            in_probe_bw: self.mode == Mode::ProbeBw,
        };
        match self.lt.sample(&self.cfg, st.mss, &at) {
            LtVerdict::Nothing => {}
            LtVerdict::Policed => self.pacing_gain = 1.0,
            LtVerdict::StopUsing => self.set_mode(Mode::ProbeBw, now),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::cc::bbr::synthetic_path::{Path, RTT};
    use crate::time::SimDuration;

    #[test]
    fn a_policer_is_detected_from_two_lossy_intervals_at_the_same_rate() {
        let mut p = Path::in_probe_bw();
        // Bursts measure 1500 segments/s but a policer delivers 1000 and drops 1 in 4.
        p.sample_rate = 1500.0;
        p.losses = 1;
        p.acked = 3;
        let took = p.until(SimDuration::from_secs(5), |b| b.lt.use_bw);
        // Two intervals of at least four rounds each.
        assert!(took >= RTT.saturating_mul(8), "{took}");
        assert!((p.bbr.bw() - 1000.0).abs() < 20.0, "policed rate {}", p.bbr.bw());
        assert_eq!(p.bbr.pacing_gain, 1.0);
        // After 48 rounds the policed rate is dropped and probing resumes.
        p.losses = 0;
        p.until(SimDuration::from_secs(5), |b| !b.lt.use_bw);
        assert!(p.bbr.bw() > 1400.0);
    }
}
