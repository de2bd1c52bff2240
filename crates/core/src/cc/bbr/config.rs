//! BBR's parameters: each with the Linux `tcp_bbr.c` constant it stands for, its default, and
//! the range `validate` accepts.

use crate::cc::{check_param, CcParams, MAX_SEGMENTS};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BbrConfig {
    /// STARTUP pacing and cwnd gain (Cardwell et al. 2016: 2/ln 2; Linux `bbr_high_gain` 2.885).
    pub high_gain: f64,
    /// DRAIN pacing gain (Linux `bbr_drain_gain` = 1/2.885: drains STARTUP's queue in one round).
    pub drain_gain: f64,
    /// PROBE_BW cwnd gain (Linux `bbr_cwnd_gain` = 2: tolerates delayed and stretched ACKs).
    pub cwnd_gain: f64,
    /// PROBE_BW gain of the probing phase (Linux `bbr_pacing_gain[0]` = 5/4).
    pub probe_up_gain: f64,
    /// PROBE_BW gain of the draining phase that follows (Linux `bbr_pacing_gain[1]` = 3/4).
    pub probe_down_gain: f64,
    /// Phases in the PROBE_BW gain cycle, the ones after the first two at gain 1 (Linux `CYCLE_LEN` = 8).
    pub cycle_phases: u32,
    /// The cycle starts at one of this many phases, never the draining one (Linux `bbr_cycle_rand` = 7).
    pub cycle_rand: u32,
    /// Round trips in the BtlBw max filter (Linux `bbr_bw_rtts` = CYCLE_LEN + 2 = 10).
    pub bw_filter_rounds: u32,
    /// RTprop min filter window, seconds (Linux `bbr_min_rtt_win_sec` = 10).
    pub min_rtt_window_s: f64,
    /// Time at the minimum window in PROBE_RTT, seconds (Linux `bbr_probe_rtt_mode_ms` = 200).
    pub probe_rtt_duration_s: f64,
    /// Smallest cwnd, and PROBE_RTT's window, segments (Linux `bbr_cwnd_min_target` = 4).
    pub min_cwnd: f64,
    /// BtlBw growth per round that means STARTUP may find more (Linux `bbr_full_bw_thresh` = 5/4).
    pub full_bw_growth: f64,
    /// Rounds without that growth before the pipe is deemed full (Linux `bbr_full_bw_cnt` = 3).
    pub full_bw_rounds: u32,
    /// Pacing below the estimate, to drain queues (Linux `bbr_pacing_margin_percent` = 1 %).
    pub pacing_margin: f64,
    /// Segments added to the target window for end-host queues (Linux `bbr_quantization_budget`:
    /// 3 · tso_segs_goal, one segment per send here).
    pub quantization_budget: f64,
    /// Extra segments in the 1.25 phase so small BDPs still probe (Linux
    /// `bbr_quantization_budget`: + 2).
    pub probe_extra_cwnd: f64,
    /// Target window before any RTT sample, segments (Linux `bbr_bdp`: `TCP_INIT_CWND` = 10).
    pub no_rtt_cwnd: f64,
    /// RTT assumed for the initial pacing rate before any sample, seconds (Linux
    /// `bbr_init_pacing_rate_from_rtt`: 1 ms).
    pub nominal_rtt_s: f64,
    /// Least rounds in a long-term sampling interval (Linux `bbr_lt_intvl_min_rtts` = 4).
    pub lt_interval_min_rounds: u32,
    /// Loss ratio of a policed interval (Linux `bbr_lt_loss_thresh` = 50/256 ≈ 20 %).
    pub lt_loss_threshold: f64,
    /// Relative rate difference of consistent intervals (Linux `bbr_lt_bw_ratio` = 1/8).
    pub lt_bw_ratio: f64,
    /// Absolute rate difference of consistent intervals, bit/s (Linux `bbr_lt_bw_diff` = 4 kbit/s).
    pub lt_bw_diff_bps: f64,
    /// Rounds the policed rate is used before probing again (Linux `bbr_lt_bw_max_rtts` = 48).
    pub lt_bw_max_rounds: u32,
}

impl Default for BbrConfig {
    fn default() -> Self {
        BbrConfig {
            high_gain: 2.885,          // Linux bbr_high_gain = BBR_UNIT·2885/1000 + 1; 2/ln 2
            drain_gain: 1.0 / 2.885,   // Linux bbr_drain_gain = BBR_UNIT·1000/2885
            cwnd_gain: 2.0,            // Linux bbr_cwnd_gain = BBR_UNIT·2
            probe_up_gain: 1.25,       // Linux bbr_pacing_gain[0] = BBR_UNIT·5/4
            probe_down_gain: 0.75,     // Linux bbr_pacing_gain[1] = BBR_UNIT·3/4
            cycle_phases: 8,           // Linux CYCLE_LEN
            cycle_rand: 7,             // Linux bbr_cycle_rand
            bw_filter_rounds: 10,      // Linux bbr_bw_rtts = CYCLE_LEN + 2
            min_rtt_window_s: 10.0,    // Linux bbr_min_rtt_win_sec
            probe_rtt_duration_s: 0.2, // Linux bbr_probe_rtt_mode_ms
            min_cwnd: 4.0,             // Linux bbr_cwnd_min_target
            full_bw_growth: 1.25,      // Linux bbr_full_bw_thresh = BBR_UNIT·5/4
            full_bw_rounds: 3,         // Linux bbr_full_bw_cnt
            pacing_margin: 0.01,       // Linux bbr_pacing_margin_percent
            quantization_budget: 3.0,  // Linux bbr_quantization_budget: 3 · tso_segs_goal
            probe_extra_cwnd: 2.0,     // Linux bbr_quantization_budget: cycle_idx 0 → + 2
            no_rtt_cwnd: 10.0,         // Linux TCP_INIT_CWND
            nominal_rtt_s: 0.001,      // Linux bbr_init_pacing_rate_from_rtt: USEC_PER_MSEC
            lt_interval_min_rounds: 4, // Linux bbr_lt_intvl_min_rtts
            lt_loss_threshold: 50.0 / 256.0, // Linux bbr_lt_loss_thresh (in BBR_UNIT)
            lt_bw_ratio: 1.0 / 8.0,    // Linux bbr_lt_bw_ratio = BBR_UNIT/8
            lt_bw_diff_bps: 4000.0,    // Linux bbr_lt_bw_diff = 4000/8 bytes/s
            lt_bw_max_rounds: 48,      // Linux bbr_lt_bw_max_rtts
        }
    }
}

impl CcParams for BbrConfig {
    fn validate(&self) -> Result<(), String> {
        let c = self;
        let gain = |name, v: f64| check_param(name, v, v > 0.0 && v <= 10.0, "a gain in (0, 10]");
        gain("high_gain", c.high_gain)?;
        gain("drain_gain", c.drain_gain)?;
        gain("cwnd_gain", c.cwnd_gain)?;
        check_param(
            "probe_up_gain",
            c.probe_up_gain,
            c.probe_up_gain >= 1.0 && c.probe_up_gain <= 10.0,
            "a gain in [1, 10]",
        )?;
        check_param(
            "probe_down_gain",
            c.probe_down_gain,
            c.probe_down_gain > 0.0 && c.probe_down_gain <= 1.0,
            "a gain in (0, 1]",
        )?;
        let phases = c.cycle_phases;
        check_param(
            "cycle_phases",
            f64::from(phases),
            (2..=64).contains(&phases),
            "phases in 2..64",
        )?;
        check_param(
            "cycle_rand",
            f64::from(c.cycle_rand),
            (1..phases).contains(&c.cycle_rand),
            "phases in 1..cycle_phases − 1",
        )?;
        let rounds = |name, v: u32| {
            check_param(name, f64::from(v), (1..=1000).contains(&v), "round trips in 1..1000")
        };
        rounds("bw_filter_rounds", c.bw_filter_rounds)?;
        rounds("full_bw_rounds", c.full_bw_rounds)?;
        rounds("lt_interval_min_rounds", c.lt_interval_min_rounds)?;
        rounds("lt_bw_max_rounds", c.lt_bw_max_rounds)?;
        let secs =
            |name, v: f64| check_param(name, v, v > 0.0 && v <= 3600.0, "seconds in (0, 3600]");
        secs("min_rtt_window_s", c.min_rtt_window_s)?;
        check_param(
            "probe_rtt_duration_s",
            c.probe_rtt_duration_s,
            c.probe_rtt_duration_s >= 0.0 && c.probe_rtt_duration_s <= 3600.0,
            "seconds in [0, 3600]",
        )?;
        secs("nominal_rtt_s", c.nominal_rtt_s)?;
        let segs = |name, v: f64, lo: f64| {
            check_param(name, v, v >= lo && v <= MAX_SEGMENTS, "segments in range up to 1000000")
        };
        segs("min_cwnd", c.min_cwnd, 1.0)?;
        segs("no_rtt_cwnd", c.no_rtt_cwnd, 1.0)?;
        segs("quantization_budget", c.quantization_budget, 0.0)?;
        segs("probe_extra_cwnd", c.probe_extra_cwnd, 0.0)?;
        check_param(
            "full_bw_growth",
            c.full_bw_growth,
            c.full_bw_growth > 1.0 && c.full_bw_growth <= 10.0,
            "a factor in (1, 10]",
        )?;
        check_param(
            "pacing_margin",
            c.pacing_margin,
            (0.0..1.0).contains(&c.pacing_margin),
            "a fraction in [0, 1)",
        )?;
        check_param(
            "lt_loss_threshold",
            c.lt_loss_threshold,
            c.lt_loss_threshold > 0.0 && c.lt_loss_threshold <= 1.0,
            "a loss ratio in (0, 1]",
        )?;
        check_param(
            "lt_bw_ratio",
            c.lt_bw_ratio,
            (0.0..=1.0).contains(&c.lt_bw_ratio),
            "a ratio in [0, 1]",
        )?;
        check_param("lt_bw_diff_bps", c.lt_bw_diff_bps, c.lt_bw_diff_bps >= 0.0, "bit/s ≥ 0")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_parameters_are_named() {
        let bad = BbrConfig { cycle_rand: 8, ..BbrConfig::default() };
        assert!(bad.validate().unwrap_err().starts_with("cycle_rand: 8"));
        let bad = BbrConfig { probe_down_gain: 1.5, ..BbrConfig::default() };
        assert!(bad.validate().unwrap_err().starts_with("probe_down_gain"));
        assert_eq!(BbrConfig::default().validate(), Ok(()));
    }
}
