//! BBR's outputs (the "control" lines of the overview in mod.rs; Linux `bbr_bdp`,
//! `bbr_quantization_budget`, `bbr_inflight`, `bbr_init_pacing_rate_from_rtt`,
//! `bbr_set_pacing_rate`, `bbr_set_cwnd`): the BDP and the inflight targets derived from it, the
//! pacing rate, and the window each ACK moves toward its target.
//!
//! Deviations from Linux `tcp_bbr.c`:
//! - No TSO/GSO: Linux budgets `3 · tso_segs_goal` segments for end-host queues; with one segment
//!   per send here that is `quantization_budget` = 3 segments.
//! - No ACK-aggregation allowance (`extra_acked`): the simulator's links do not aggregate ACKs
//!   beyond delayed ACKs.

use super::{Bbr, Mode};
use crate::cc::{CcState, RateSample};

impl Bbr {
    /// ⌈bw · RTprop · gain⌉ segments (Linux `bbr_bdp`), or the initial window without an RTT.
    fn bdp(&self, bw: f64, gain: f64) -> f64 {
        match self.min_rtt() {
            None => self.cfg.no_rtt_cwnd,
            Some(rtt) => (bw * rtt.as_secs_f64() * gain - 1e-9).ceil().max(0.0),
        }
    }

    /// Adds the end-host allowance, rounds up to even and lets the probing phase exceed the
    /// BDP (Linux `bbr_quantization_budget`).
    fn quantization_budget(&self, cwnd: f64) -> f64 {
        let mut cwnd = cwnd + self.cfg.quantization_budget;
        cwnd = (cwnd / 2.0).ceil() * 2.0;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd += self.cfg.probe_extra_cwnd;
        }
        cwnd
    }

    /// Segments in flight that reach `gain` × BDP (Linux `bbr_inflight`).
    pub(super) fn inflight_target(&self, bw: f64, gain: f64) -> f64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// Linux `bbr_init_pacing_rate_from_rtt`: high_gain · cwnd / (SRTT or 1 ms).
    pub(super) fn init_pacing_from_rtt(&mut self, st: &CcState) {
        let rtt = match st.srtt {
            Some(srtt) => {
                self.has_seen_rtt = true;
                srtt.as_secs_f64().max(1e-6)
            }
            None => self.cfg.nominal_rtt_s,
        };
        self.pacing = Some(self.cfg.high_gain * self.cwnd / rtt * (1.0 - self.cfg.pacing_margin));
    }

    /// Linux `bbr_set_pacing_rate`: the rate never drops until the pipe has been filled.
    pub(super) fn set_pacing_rate(&mut self, st: &CcState, bw: f64) {
        let rate = self.pacing_gain * bw * (1.0 - self.cfg.pacing_margin);
        if !self.has_seen_rtt && st.srtt.is_some() {
            self.init_pacing_from_rtt(st);
        }
        if self.full_bw_reached || self.pacing.is_none_or(|p| rate > p) {
            self.pacing = Some(rate);
        }
    }

    /// Linux `bbr_set_cwnd`: toward the target by `acked` per ACK; cut to it once the pipe is full.
    pub(super) fn set_cwnd(&mut self, st: &mut CcState, rs: &RateSample, bw: f64) {
        let mut cwnd = self.cwnd;
        if rs.acked_sacked > 0 {
            let (c, conserving) = self.recover_or_restore(rs);
            cwnd = c;
            if !conserving {
                let target = self.quantization_budget(self.bdp(bw, self.cwnd_gain));
                let acked = rs.acked_sacked as f64;
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || (rs.delivered_total as f64) < self.cfg.no_rtt_cwnd {
                    cwnd += acked;
                }
                cwnd = cwnd.max(self.cfg.min_cwnd);
            }
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(self.cfg.min_cwnd);
        }
        self.cwnd = cwnd;
        st.cwnd = cwnd;
    }
}

#[cfg(test)]
mod tests {
    use crate::cc::bbr::synthetic_path::Path;
    use crate::cc::CongestionControl;
    use crate::time::SimDuration;

    #[test]
    fn probe_bw_cwnd_is_twice_the_bdp_plus_the_allowance() {
        let mut p = Path::in_probe_bw();
        p.until(SimDuration::from_secs(1), |b| b.cycle_idx == 2);
        for _ in 0..5 {
            p.ack();
        }
        assert_eq!(p.st.cwnd, 2.0 * 40.0 + 4.0);
        p.until(SimDuration::from_secs(1), |b| b.cycle_idx == 0);
        p.ack();
        assert_eq!(p.st.cwnd, 2.0 * 40.0 + 4.0 + 2.0, "the probing phase may exceed the BDP");
    }

    #[test]
    fn pacing_rate_is_gain_times_bw_less_one_percent_in_wire_bits() {
        let mut p = Path::in_probe_bw();
        p.until(SimDuration::from_secs(1), |b| b.cycle_idx == 3);
        let rate = p.bbr.pacing_rate(&p.st).unwrap();
        let want = 1000.0 * 0.99 * 1500.0 * 8.0;
        assert!((rate.0 as f64 - want).abs() <= 1.0, "{rate}");
        p.until(SimDuration::from_secs(1), |b| b.cycle_idx == 0);
        p.ack();
        let rate = p.bbr.pacing_rate(&p.st).unwrap();
        assert!((rate.0 as f64 - 1.25 * want).abs() <= 1.0, "{rate}");
    }
}
