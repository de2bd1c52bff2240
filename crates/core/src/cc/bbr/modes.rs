//! BBR's state machine (the diagram in mod.rs; Linux `bbr_check_full_bw_reached`,
//! `bbr_check_drain`, `bbr_update_cycle_phase`, the PROBE_RTT half of `bbr_update_min_rtt`,
//! `bbr_update_gains`): STARTUP until BtlBw stops growing, DRAIN until inflight is down to the
//! BDP, PROBE_BW's cycle of pacing gains, one phase per RTprop, and PROBE_RTT whenever RTprop
//! expires; and the pacing and cwnd gains of each mode.
//!
//! Deviation from Linux `tcp_bbr.c`:
//! - The PROBE_BW starting phase is drawn from a hash of the entry time, deterministic per run,
//!   instead of `prandom_u32_max` (flows sharing a link enter at different instants).

use super::Bbr;
use crate::cc::{CcState, RateSample};
use crate::time::{SimDuration, SimTime};

/// BBR's operating mode (Linux `enum bbr_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

impl Bbr {
    /// The pacing gain of PROBE_BW phase `idx` (Linux `bbr_pacing_gain[]`).
    fn cycle_gain(&self, idx: u32) -> f64 {
        match idx {
            0 => self.cfg.probe_up_gain,
            1 => self.cfg.probe_down_gain,
            _ => 1.0,
        }
    }

    pub(super) fn set_mode(&mut self, mode: Mode, now: SimTime) {
        self.mode = mode;
        if mode == Mode::ProbeBw {
            // Start at a random phase other than the draining one, then advance once (Linux
            // `bbr_reset_probe_bw_mode`).
            let r = (splitmix64(now.as_nanos()) % u64::from(self.cfg.cycle_rand)) as u32;
            self.cycle_idx = self.cfg.cycle_phases - 1 - r;
            self.advance_cycle_phase();
        }
    }

    pub(super) fn advance_cycle_phase(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) % self.cfg.cycle_phases;
        self.cycle_start = self.delivered_time;
    }

    /// A phase lasts one RTprop; probing also needs 1.25 BDP in flight (or a loss), and draining
    /// ends early once inflight is down to the BDP (Linux `bbr_is_next_cycle_phase`).
    pub(super) fn is_next_cycle_phase(&self, rs: &RateSample) -> bool {
        let full_length = self
            .min_rtt()
            .is_some_and(|rtt| rs.delivered_time.saturating_since(self.cycle_start) > rtt);
        let inflight = rs.prior_in_flight as f64;
        let bw = self.max_bw.get();
        if self.pacing_gain == 1.0 {
            full_length
        } else if self.pacing_gain > 1.0 {
            full_length && (rs.losses > 0 || inflight >= self.inflight_target(bw, self.pacing_gain))
        } else {
            full_length || inflight <= self.inflight_target(bw, 1.0)
        }
    }

    /// STARTUP ends after `full_bw_rounds` rounds without 25 % growth (Linux
    /// `bbr_check_full_bw_reached`).
    pub(super) fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || self.is_app_limited(rs) {
            return;
        }
        let bw = self.max_bw.get();
        if bw >= self.full_bw * self.cfg.full_bw_growth {
            self.full_bw = bw;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_reached = self.full_bw_count >= self.cfg.full_bw_rounds;
    }

    /// DRAIN follows STARTUP once the pipe is full, and ends in PROBE_BW once inflight is down
    /// to the BDP (Linux `bbr_check_drain`).
    pub(super) fn check_drain(&mut self, st: &mut CcState, now: SimTime) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            st.ssthresh = self.inflight_target(self.max_bw.get(), 1.0);
        }
        if self.mode == Mode::Drain
            && self.in_flight as f64 <= self.inflight_target(self.max_bw.get(), 1.0)
        {
            self.set_mode(Mode::ProbeBw, now);
        }
    }

    /// PROBE_RTT (the second half of Linux `bbr_update_min_rtt`): entered when RTprop expired,
    /// left after `probe_rtt_duration_s` and a round trip at the minimum window.
    pub(super) fn update_probe_rtt(&mut self, now: SimTime, rtprop_expired: bool) {
        if self.cfg.probe_rtt_duration_s > 0.0 && rtprop_expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt_done_at = None;
        }
        if self.mode != Mode::ProbeRtt {
            return;
        }
        // Samples of what is sent now describe this mode's tiny window, not the path.
        // The mark holds until C.delivered passes it; a new one starts the range afresh.
        let from = match self.probe_rtt_sent {
            Some((from, to)) if to >= self.delivered => from,
            _ => self.delivered,
        };
        self.probe_rtt_sent = Some((from, (self.delivered + self.in_flight).max(1)));
        match self.probe_rtt_done_at {
            None if self.in_flight as f64 <= self.cfg.min_cwnd => {
                self.probe_rtt_done_at =
                    Some(now + SimDuration::from_secs_f64(self.cfg.probe_rtt_duration_s));
                self.probe_rtt_round_done = false;
                self.next_round_delivered = self.delivered;
            }
            None => {}
            Some(done_at) => {
                self.probe_rtt_round_done |= self.round_start;
                if self.probe_rtt_round_done && now > done_at {
                    // Linux `bbr_check_probe_rtt_done`: the filter restarts now.
                    if let Some((rtt, _)) = self.min_rtt {
                        self.min_rtt = Some((rtt, now));
                    }
                    self.cwnd = self.cwnd.max(self.prior_cwnd);
                    let next = if self.full_bw_reached { Mode::ProbeBw } else { Mode::Startup };
                    self.set_mode(next, now);
                }
            }
        }
    }

    /// The pacing and cwnd gains of the mode and phase (Linux `bbr_update_gains`).
    pub(super) fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.cfg.high_gain, self.cfg.high_gain),
            Mode::Drain => (self.cfg.drain_gain, self.cfg.high_gain),
            Mode::ProbeBw if self.lt.use_bw => (1.0, self.cfg.cwnd_gain),
            Mode::ProbeBw => (self.cycle_gain(self.cycle_idx), self.cfg.cwnd_gain),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a well-mixed hash of the entry time for the starting phase.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::bbr::synthetic_path::{Path, RTT};
    use crate::cc::bbr::BbrConfig;

    #[test]
    fn startup_paces_at_high_gain_and_ends_after_three_rounds_without_growth() {
        let mut p = Path::new(BbrConfig::default());
        p.ack();
        assert_eq!((p.bbr.mode, p.bbr.pacing_gain), (Mode::Startup, 2.885));
        // Round 1 sets full_bw; rounds 2, 3, 4 bring no 25 % growth: DRAIN at the 4th round start.
        let took = p.until(SimDuration::from_secs(2), |b| b.mode == Mode::Drain);
        let rounds = took.as_secs_f64() / RTT.as_secs_f64();
        assert!((3.0..=4.2).contains(&rounds), "{rounds} round trips");
        assert!(p.bbr.full_bw_reached);
        assert_eq!(p.bbr.pacing_gain, 1.0 / 2.885);
        // DRAIN keeps the STARTUP cwnd gain; ssthresh notes the BDP + allowance.
        assert_eq!(p.st.ssthresh, 40.0 + 4.0);
    }

    #[test]
    fn startup_continues_while_the_rate_keeps_growing() {
        let mut p = Path::new(BbrConfig::default());
        for _ in 0..8 {
            p.sample_rate *= 1.3;
            p.delivery_rate *= 1.3;
            let round = SimDuration::from_secs_f64(RTT.as_secs_f64() * 1.05);
            let start = p.now;
            while p.now - start < round {
                p.ack();
            }
            assert_eq!(p.bbr.mode, Mode::Startup, "at {}", p.now);
        }
    }

    #[test]
    fn drain_ends_once_inflight_is_down_to_the_bdp() {
        let mut p = Path::new(BbrConfig::default());
        p.until(SimDuration::from_secs(2), |b| b.mode == Mode::Drain);
        p.in_flight = Some(45); // above BDP + allowance (44)
        for _ in 0..100 {
            p.ack();
        }
        assert_eq!(p.bbr.mode, Mode::Drain);
        p.in_flight = Some(44);
        p.ack();
        assert_eq!(p.bbr.mode, Mode::ProbeBw);
        // The cycle never starts in the draining phase.
        assert_ne!(p.bbr.cycle_idx, 1);
    }

    #[test]
    fn probe_bw_cycles_through_eight_gains_one_rtprop_each() {
        let mut p = Path::in_probe_bw();
        let mut phases: Vec<(f64, SimTime)> = vec![(p.bbr.pacing_gain, p.now)];
        while phases.len() < 18 {
            p.ack();
            if p.bbr.cycle_start != phases.last().unwrap().1 && p.bbr.cycle_start == p.now {
                phases.push((p.bbr.pacing_gain, p.now));
            }
        }
        let gains: Vec<f64> = phases.iter().map(|&(g, _)| g).collect();
        let up = gains.iter().position(|&g| g == 1.25).expect("a probing phase");
        assert_eq!(gains[up..up + 9], [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.25]);
        for w in phases[1..].windows(2) {
            let len = w[1].1 - w[0].1;
            // Just over one RTprop, to the next ACK (2 ms apart).
            assert!(len > RTT && len <= RTT + SimDuration::from_millis(2), "phase of {len}");
        }
    }

    #[test]
    fn probe_rtt_after_ten_seconds_without_a_lower_rtt_holds_four_segments_for_200_ms() {
        let mut p = Path::in_probe_bw();
        let prior = p.st.cwnd;
        // Queueing adds 5 ms to every sample from now on: RTprop (40 ms) is never refreshed.
        p.rtt = RTT + SimDuration::from_millis(5);
        let min_rtt_at = p.bbr.min_rtt.unwrap().1;
        p.until(SimDuration::from_secs(11), |b| b.mode == Mode::ProbeRtt);
        let entered = p.now;
        assert!(entered - min_rtt_at > SimDuration::from_secs(10));
        assert!(entered - min_rtt_at < SimDuration::from_secs(10) + SimDuration::from_millis(3));
        assert_eq!(p.st.cwnd, 4.0);
        p.in_flight = Some(4);
        p.rtt = RTT;
        let stayed = p.until(SimDuration::from_secs(1), |b| b.mode != Mode::ProbeRtt);
        assert!(
            stayed > SimDuration::from_millis(200) && stayed < SimDuration::from_millis(250),
            "{stayed}"
        );
        assert_eq!((p.bbr.mode, p.st.cwnd), (Mode::ProbeBw, prior.max(84.0)));
        assert_eq!(p.bbr.min_rtt, Some((RTT, p.now)));
    }
}
