//! BBR's model of the path (Linux `bbr_update_bw` and the RTprop half of `bbr_update_min_rtt`):
//! packet-timed round trips; BtlBw, the largest delivery rate of the last `bw_filter_rounds`
//! round trips, which application-limited samples may only raise; RTprop, the smallest RTT of
//! the last `min_rtt_window_s`.
//!
//! Deviations from Linux `tcp_bbr.c`:
//! - Windowed max filter: exact (a monotonic queue of per-round maxima) instead of Kathleen
//!   Nichols' three-sample approximation (`lib/win_minmax.c`).
//! - Samples taken in PROBE_RTT are marked application-limited here (the segments sent during it
//!   are recognised by their P.delivered) rather than through the transport's C.app_limited.
//! - `is_ack_delayed` is not known, so an expired RTprop may be replaced by a delayed-ACK sample.

use super::Bbr;
use crate::cc::{CcState, RateSample};
use crate::time::SimDuration;
use std::collections::VecDeque;

/// Windowed maximum over round-trip counts: the largest value of the last `window` rounds.
#[derive(Clone, Debug, Default)]
pub(super) struct WindowedMax {
    /// (round, value), rounds increasing, values decreasing: the front is the maximum.
    samples: VecDeque<(u64, f64)>,
}

impl WindowedMax {
    pub(super) fn update(&mut self, round: u64, value: f64, window: u64) {
        while self.samples.back().is_some_and(|&(_, v)| v <= value) {
            self.samples.pop_back();
        }
        self.samples.push_back((round, value));
        while self.samples.front().is_some_and(|&(r, _)| r + window < round) {
            self.samples.pop_front();
        }
    }
    pub(super) fn get(&self) -> f64 {
        self.samples.front().map_or(0.0, |&(_, v)| v)
    }
}

impl Bbr {
    /// Round counting, long-term sampling and the BtlBw filter (Linux `bbr_update_bw`).
    pub(super) fn update_bw(&mut self, st: &CcState, rs: &RateSample) {
        self.round_start = false;
        let Some(rate) = rs.rate_segments_per_s() else { return };
        if rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = rs.delivered_total;
            self.rounds += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        let app_limited = self.is_app_limited(rs);
        self.long_term_sample(st, rs.now, rs.losses, app_limited);
        if !app_limited || rate >= self.max_bw.get() {
            self.max_bw.update(self.rounds, rate, u64::from(self.cfg.bw_filter_rounds));
        }
    }

    /// The sample describes the application's (or PROBE_RTT's) rate rather than the path's.
    pub(super) fn is_app_limited(&self, rs: &RateSample) -> bool {
        rs.is_app_limited
            || self
                .probe_rtt_sent
                .is_some_and(|(from, to)| (from..=to).contains(&rs.prior_delivered))
    }

    /// The RTprop filter (the first half of Linux `bbr_update_min_rtt`). Returns whether RTprop
    /// had gone unrefreshed for `min_rtt_window_s` before this sample: the cue for PROBE_RTT.
    pub(super) fn update_min_rtt(&mut self, rs: &RateSample) -> bool {
        let now = rs.now;
        let window = SimDuration::from_secs_f64(self.cfg.min_rtt_window_s);
        let expired = self.min_rtt.is_some_and(|(_, stamp)| now > stamp + window);
        if let Some(rtt) = rs.rtt {
            if self.min_rtt.is_none_or(|(m, _)| rtt <= m) || expired {
                self.min_rtt = Some((rtt, now));
            }
        }
        expired
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::bbr::synthetic_path::{Path, RTT};
    use crate::cc::bbr::Mode;

    #[test]
    fn bandwidth_filter_keeps_the_max_of_ten_rounds() {
        let mut f = WindowedMax::default();
        f.update(0, 5.0, 10);
        f.update(1, 9.0, 10);
        f.update(2, 7.0, 10);
        for r in 3..=11 {
            f.update(r, 6.0, 10);
            assert_eq!(f.get(), 9.0, "round {r}");
        }
        f.update(12, 6.0, 10);
        assert_eq!(f.get(), 7.0, "the peak of round 1 expired; round 2's 7 remains");
        f.update(13, 6.0, 10);
        assert_eq!(f.get(), 6.0);
    }

    #[test]
    fn samples_sent_during_probe_rtt_are_application_limited() {
        let mut p = Path::in_probe_bw();
        p.rtt = RTT + SimDuration::from_millis(5);
        p.until(SimDuration::from_secs(11), |b| b.mode == Mode::ProbeRtt);
        let rs = RateSample { prior_delivered: p.st.delivered, ..RateSample::default() };
        assert!(p.bbr.is_app_limited(&rs));
        let before = RateSample { prior_delivered: p.st.delivered - 100, ..RateSample::default() };
        assert!(!p.bbr.is_app_limited(&before));
    }
}
