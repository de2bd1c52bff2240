//! BBR v1: Bottleneck Bandwidth and Round-trip propagation time (N. Cardwell, Y. Cheng,
//! C. S. Gunn, S. Hassas Yeganeh, V. Jacobson, "BBR: Congestion-Based Congestion Control",
//! ACM Queue 14(5), 2016), following Linux `net/ipv4/tcp_bbr.c` as of the 5.x kernels (the
//! version with ACK-aggregation and EDT support; read at torvalds/linux 02dc96ef).
//!
//! ```text
//! model, every ACK (rate sample rs from tcp/rate_sample.rs):
//!     BtlBw  = max over the last 10 round trips of rs.delivered / rs.interval   (segments/s)
//!              (app-limited samples only if they raise it)
//!     RTprop = min RTT over the last 10 s
//!     BDP    = BtlBw · RTprop
//! control:
//!     pacing_rate = pacing_gain · BtlBw · (1 − 1 %)         (never lowered before the pipe fills)
//!     cwnd        = cwnd_gain · BDP + 3, rounded up to even (+2 in the 1.25 phase), ≥ 4
//!                   approached by + acked per ACK; cut straight to it once the pipe is full
//!
//!              +---> STARTUP  ----+          STARTUP:   gains 2/ln2 (pacing and cwnd); the pipe
//!              |        |         |                     is full after 3 rounds with < 25 % BtlBw growth
//!              |        V         |          DRAIN:     pacing 1/(2/ln2) until inflight ≤ BDP
//!              |      DRAIN   ----+          PROBE_BW:  pacing gains 1.25, 0.75, 1 ×6, a phase per
//!              |        |         |                     RTprop (1.25 until inflight ≥ 1.25 BDP or a
//!              |        V         |                     loss; 0.75 ends early at inflight ≤ BDP);
//!              +---> PROBE_BW ----+                     cwnd gain 2
//!              |      ^    |      |          PROBE_RTT: RTprop not refreshed for 10 s: cwnd 4 for
//!              |      +----+      |                     max(200 ms, 1 round), then back
//!              +---- PROBE_RTT <--+
//!
//! loss recovery: first round of fast recovery conserves packets (cwnd = inflight + acked), then
//!     grows by acked per ACK toward the target; cwnd is restored to its pre-recovery value after
//! long-term (policer) sampling: two intervals of ≥ 4 rounds with ≥ 20 % loss and rates within
//!     1/8 (or 4 kbit/s) of each other mean a token-bucket policer: use their mean rate as BtlBw,
//!     with pacing gain 1, for 48 rounds
//! ```
//!
//! Units: bandwidth in segments per second, windows in segments. The pacing rate handed to the
//! transport counts the 40-byte TCP/IP header of each segment, so that the transport's wire-size
//! spacing releases exactly `gain · BtlBw` segments per second.
//!
//! Deviations from Linux `tcp_bbr.c`:
//! - Windowed max filter: exact (a monotonic queue of per-round maxima) instead of Kathleen
//!   Nichols' three-sample approximation (`lib/win_minmax.c`).
//! - No TSO/GSO: Linux budgets `3 · tso_segs_goal` segments for end-host queues; with one segment
//!   per send here that is `quantization_budget` = 3 segments.
//! - No EDT correction of inflight (`bbr_packets_in_net_at_edt`): the transport's pacer holds at
//!   most one segment; inflight is taken as is.
//! - No ACK-aggregation allowance (`extra_acked`): the simulator's links do not aggregate ACKs
//!   beyond delayed ACKs.
//! - The PROBE_BW starting phase is drawn from a hash of the entry time, deterministic per run,
//!   instead of `prandom_u32_max` (flows sharing a link enter at different instants).
//! - No idle-restart event (`CA_EVENT_TX_START`): after an application pause PROBE_RTT may start
//!   at once, and the transport's restart-after-idle cut (which Linux skips for BBR) holds the
//!   first flight until BBR sets its window again on the first ACK.
//! - Samples taken in PROBE_RTT are marked application-limited here (the segments sent during it
//!   are recognised by their P.delivered) rather than through the transport's C.app_limited.
//! - `is_ack_delayed` is not known, so an expired RTprop may be replaced by a delayed-ACK sample.
//! - Losses are counted as the transport retransmits (see `tcp/rate_sample.rs`); after a timeout
//!   they do not cut cwnd again, since Linux marks them all lost at the timeout.
//! - A timeout during fast recovery is not reported to the algorithm by the transport (it keeps
//!   ssthresh, as Linux does), so Linux's `bbr_set_state(TCP_CA_Loss)` reset is skipped then.
//! - Recovery without SACK (`reno`, `newreno`, `tahoe`): the transport's pipe keeps the segments
//!   duplicate ACKs announced (it inflates cwnd instead, RFC 5681 §3.2), where Linux counts them
//!   out of flight (`tcp_add_reno_sack`). BBR's window replaces that inflation, so a NewReno
//!   recovery of many holes sends little new data and can take one round trip per hole; SACK
//!   (the default, and Linux's) is the recovery BBR is meant for.
//! - ECN and ICMP Source Quench do not cut the window (BBR v1 ignores them): `on_congestion`
//!   leaves ssthresh at cwnd, so the transport's Cwr and SourceQuench states cut nothing.

use super::{
    check_param, AckSample, CcParams, CcState, CongestionControl, CongestionEvent, CongestionKind,
    RateSample, MAX_SEGMENTS,
};
use crate::time::{Rate, SimDuration, SimTime};
use crate::wire::tcp::TCP_IP_HEADER;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

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

/// BBR's operating mode (Linux `enum bbr_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// The transport's loss-recovery state as BBR tracks it from its callbacks (Linux
/// `icsk_ca_state`, reduced to what `bbr_set_cwnd_to_recover_or_restore` distinguishes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CaView {
    Open,
    /// Fast recovery, until the transport says it ended or SND.UNA reaches `high_water` (SND.MAX
    /// at entry; the transport does not report a timeout during recovery).
    Recovery {
        high_water: u64,
    },
    /// After a retransmission timeout, until SND.UNA reaches `high_water` (SND.MAX at the timeout).
    Loss {
        high_water: u64,
    },
}

impl CaView {
    fn recovering(self) -> bool {
        self != CaView::Open
    }
}

/// Windowed maximum over round-trip counts: the largest value of the last `window` rounds.
#[derive(Clone, Debug, Default)]
struct WindowedMax {
    /// (round, value), rounds increasing, values decreasing: the front is the maximum.
    samples: VecDeque<(u64, f64)>,
}

impl WindowedMax {
    fn update(&mut self, round: u64, value: f64, window: u64) {
        while self.samples.back().is_some_and(|&(_, v)| v <= value) {
            self.samples.pop_back();
        }
        self.samples.push_back((round, value));
        while self.samples.front().is_some_and(|&(r, _)| r + window < round) {
            self.samples.pop_front();
        }
    }
    fn get(&self) -> f64 {
        self.samples.front().map_or(0.0, |&(_, v)| v)
    }
}

/// Long-term ("LT") delivery-rate sampling, to detect a token-bucket policer (Linux
/// `bbr_lt_bw_sampling`).
#[derive(Clone, Debug, Default)]
struct LongTerm {
    /// An interval is being measured (it starts at the first loss).
    sampling: bool,
    /// Round trips in this interval, or since `use_bw` was set.
    rounds: u32,
    /// The rate of the previous lossy interval, or the policed rate in use, segments/s.
    bw: Option<f64>,
    /// Use `bw` as BtlBw: a policer was detected.
    use_bw: bool,
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

pub struct Bbr {
    /// Boxed so that `AnyCc`, sized by its largest variant, stays small.
    cfg: Box<BbrConfig>,
    mode: Mode,
    /// BtlBw filter, segments/s.
    max_bw: WindowedMax,
    /// Packet-timed round trips so far (Linux `rtt_cnt`).
    rounds: u64,
    /// The round ends when a segment sent after C.delivered reached this is delivered.
    next_round_delivered: u64,
    /// This ACK started a new round.
    round_start: bool,
    /// RTprop and when it was last set; `None` before the first RTT sample.
    min_rtt: Option<(SimDuration, SimTime)>,
    /// PROBE_RTT: when the 200 ms at the minimum window end (set once inflight is down to it).
    probe_rtt_done_at: Option<SimTime>,
    /// PROBE_RTT: a round trip has passed at the minimum window.
    probe_rtt_round_done: bool,
    /// Segments sent while P.delivered lay in this range were sent in PROBE_RTT: their samples
    /// are application-limited (Linux sets C.app_limited to C.delivered + inflight each ACK).
    probe_rtt_sent: Option<(u64, u64)>,
    /// cwnd before recovery or PROBE_RTT cut it, segments.
    prior_cwnd: f64,
    /// The congestion window, segments. BBR owns it (Linux `cong_control`): the transport's
    /// RFC 5681 inflation and cwnd = ssthresh at recovery exit are replaced on each ACK; where the
    /// transport lowers it (a timeout's cwnd = 1, also during fast recovery, when the algorithm is
    /// not told; restart after idle) BBR continues from the lower value, as Linux from `snd_cwnd`.
    cwnd: f64,
    /// Segments in flight after this ACK (the transport's pipe).
    in_flight: u64,
    /// Recovery state now and at the previous ACK that delivered data.
    ca: CaView,
    prev_ca: CaView,
    /// First round of fast recovery: send one segment per segment delivered.
    packet_conservation: bool,
    /// STARTUP: BtlBw at the last round with ≥ 25 % growth, and rounds since.
    full_bw: f64,
    full_bw_count: u32,
    full_bw_reached: bool,
    /// PROBE_BW phase index and when it began (C.delivered_time).
    cycle_idx: u32,
    cycle_start: SimTime,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// Pacing rate, segments/s; `None` until the first transmission.
    pacing: Option<f64>,
    /// Pacing was set from an RTT sample (Linux `has_seen_rtt`).
    has_seen_rtt: bool,
    lt: LongTerm,
    /// Segments deemed lost so far (sum of the samples' losses; Linux `tp->lost`).
    lost: u64,
    /// C.delivered and C.delivered_time of the latest sample (the estimator's count, which
    /// without SACK includes segments announced by duplicate ACKs, as Linux's `tp->delivered`).
    delivered: u64,
    delivered_time: SimTime,
}

impl Bbr {
    pub fn new(cfg: BbrConfig) -> Self {
        Bbr {
            pacing_gain: cfg.high_gain,
            cwnd_gain: cfg.high_gain,
            cfg: Box::new(cfg),
            mode: Mode::Startup,
            max_bw: WindowedMax::default(),
            rounds: 0,
            next_round_delivered: 0,
            round_start: false,
            min_rtt: None,
            probe_rtt_done_at: None,
            probe_rtt_round_done: false,
            probe_rtt_sent: None,
            prior_cwnd: 0.0,
            cwnd: 0.0,
            in_flight: 0,
            ca: CaView::Open,
            prev_ca: CaView::Open,
            packet_conservation: false,
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_reached: false,
            cycle_idx: 0,
            cycle_start: SimTime::ZERO,
            pacing: None,
            has_seen_rtt: false,
            lt: LongTerm::default(),
            lost: 0,
            delivered: 0,
            delivered_time: SimTime::ZERO,
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }
    /// The bandwidth estimate in use, segments/s: the policed rate if one was detected, else BtlBw.
    pub fn bw(&self) -> f64 {
        match self.lt.bw {
            Some(bw) if self.lt.use_bw => bw,
            _ => self.max_bw.get(),
        }
    }
    /// RTprop, if an RTT was measured.
    pub fn min_rtt(&self) -> Option<SimDuration> {
        self.min_rtt.map(|(rtt, _)| rtt)
    }
    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }

    fn cycle_gain(&self, idx: u32) -> f64 {
        match idx {
            0 => self.cfg.probe_up_gain,
            1 => self.cfg.probe_down_gain,
            _ => 1.0,
        }
    }

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
    fn inflight_target(&self, bw: f64, gain: f64) -> f64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    fn save_cwnd(&mut self) {
        let cwnd = self.cwnd;
        self.prior_cwnd = if !self.prev_ca.recovering() && self.mode != Mode::ProbeRtt {
            cwnd
        } else {
            self.prior_cwnd.max(cwnd)
        };
    }

    fn set_mode(&mut self, mode: Mode, now: SimTime) {
        self.mode = mode;
        if mode == Mode::ProbeBw {
            // Start at a random phase other than the draining one, then advance once (Linux
            // `bbr_reset_probe_bw_mode`).
            let r = (splitmix64(now.as_nanos()) % u64::from(self.cfg.cycle_rand)) as u32;
            self.cycle_idx = self.cfg.cycle_phases - 1 - r;
            self.advance_cycle_phase();
        }
    }

    fn advance_cycle_phase(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) % self.cfg.cycle_phases;
        self.cycle_start = self.delivered_time;
    }

    /// A phase lasts one RTprop; probing also needs 1.25 BDP in flight (or a loss), and draining
    /// ends early once inflight is down to the BDP (Linux `bbr_is_next_cycle_phase`).
    fn is_next_cycle_phase(&self, rs: &RateSample) -> bool {
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

    /// Round counting, long-term sampling and the BtlBw filter (Linux `bbr_update_bw`).
    fn update_bw(&mut self, st: &CcState, rs: &RateSample) {
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
    fn is_app_limited(&self, rs: &RateSample) -> bool {
        rs.is_app_limited
            || self
                .probe_rtt_sent
                .is_some_and(|(from, to)| (from..=to).contains(&rs.prior_delivered))
    }

    fn long_term_sample(&mut self, st: &CcState, now: SimTime, losses: u64, is_app_limited: bool) {
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

    /// STARTUP ends after `full_bw_rounds` rounds without 25 % growth (Linux
    /// `bbr_check_full_bw_reached`).
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
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

    fn check_drain(&mut self, st: &mut CcState, now: SimTime) {
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

    /// RTprop filter and PROBE_RTT (Linux `bbr_update_min_rtt`).
    fn update_min_rtt(&mut self, rs: &RateSample) {
        let now = rs.now;
        let window = SimDuration::from_secs_f64(self.cfg.min_rtt_window_s);
        let expired = self.min_rtt.is_some_and(|(_, stamp)| now > stamp + window);
        if let Some(rtt) = rs.rtt {
            if self.min_rtt.is_none_or(|(m, _)| rtt <= m) || expired {
                self.min_rtt = Some((rtt, now));
            }
        }
        if self.cfg.probe_rtt_duration_s > 0.0 && expired && self.mode != Mode::ProbeRtt {
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

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.cfg.high_gain, self.cfg.high_gain),
            Mode::Drain => (self.cfg.drain_gain, self.cfg.high_gain),
            Mode::ProbeBw if self.lt.use_bw => (1.0, self.cfg.cwnd_gain),
            Mode::ProbeBw => (self.cycle_gain(self.cycle_idx), self.cfg.cwnd_gain),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// Linux `bbr_init_pacing_rate_from_rtt`: high_gain · cwnd / (SRTT or 1 ms).
    fn init_pacing_from_rtt(&mut self, st: &CcState) {
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
    fn set_pacing_rate(&mut self, st: &CcState, bw: f64) {
        let rate = self.pacing_gain * bw * (1.0 - self.cfg.pacing_margin);
        if !self.has_seen_rtt && st.srtt.is_some() {
            self.init_pacing_from_rtt(st);
        }
        if self.full_bw_reached || self.pacing.is_none_or(|p| rate > p) {
            self.pacing = Some(rate);
        }
    }

    /// Packet conservation in the first round of fast recovery, restore after it (Linux
    /// `bbr_set_cwnd_to_recover_or_restore`). Returns the window and whether it conserves.
    fn recover_or_restore(&mut self, rs: &RateSample) -> (f64, bool) {
        let inflight_plus_acked = (self.in_flight + rs.acked_sacked) as f64;
        let mut cwnd = self.cwnd;
        // After a timeout Linux marks everything outstanding lost at once (`tcp_enter_loss`),
        // before any ACK: the go-back-N retransmissions that follow are no new losses.
        if rs.losses > 0 && !matches!(self.ca, CaView::Loss { .. }) {
            cwnd = (cwnd - rs.losses as f64).max(1.0);
        }
        let in_recovery = |ca| matches!(ca, CaView::Recovery { .. });
        if in_recovery(self.ca) && !in_recovery(self.prev_ca) {
            self.packet_conservation = true;
            self.next_round_delivered = rs.delivered_total; // the first round starts now
            cwnd = inflight_plus_acked;
        } else if self.prev_ca.recovering() && !self.ca.recovering() {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca = self.ca;
        if self.packet_conservation {
            return (cwnd.max(inflight_plus_acked), true);
        }
        (cwnd, false)
    }

    /// Linux `bbr_set_cwnd`: toward the target by `acked` per ACK; cut to it once the pipe is full.
    fn set_cwnd(&mut self, st: &mut CcState, rs: &RateSample, bw: f64) {
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

/// SplitMix64 (Steele, Lea, Flood 2014): a well-mixed hash of the entry time for the starting phase.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    /// BBR sets the window in `on_rate_sample`, on every ACK (Linux `cong_control`).
    fn on_ack(&mut self, _st: &mut CcState, _ack: &AckSample) {}

    /// Linux `bbr_ssthresh` and `bbr_set_state`: note the window to restore; no cut (the
    /// transport's recovery window is replaced on the same ACK).
    fn on_congestion(&mut self, st: &mut CcState, ev: &CongestionEvent) {
        self.save_cwnd();
        st.ssthresh = st.cwnd;
        match ev.kind {
            CongestionKind::Loss => self.ca = CaView::Recovery { high_water: st.snd_nxt },
            CongestionKind::Timeout => {
                // Linux `tcp_enter_loss`: everything is deemed lost, cwnd = inflight + 1 = 1.
                self.cwnd = 1.0;
                self.ca = CaView::Loss { high_water: st.snd_nxt };
                self.prev_ca = self.ca;
                self.full_bw = 0.0;
                self.round_start = true; // a timeout ends the round
                self.long_term_sample(st, ev.now, 1, false);
            }
            CongestionKind::Ecn | CongestionKind::SourceQuench => {}
        }
    }

    fn on_recovery_exit(&mut self, st: &mut CcState, _now: SimTime) {
        st.cwnd = self.cwnd;
        self.ca = CaView::Open;
    }

    fn on_sent(&mut self, st: &mut CcState, _now: SimTime) {
        if self.pacing.is_none() {
            self.cwnd = st.cwnd; // the transport's initial window
            self.init_pacing_from_rtt(st);
        }
    }

    fn wants_rate_samples(&self) -> bool {
        true
    }

    fn on_rate_sample(&mut self, st: &mut CcState, rs: &RateSample) {
        if let CaView::Recovery { high_water } | CaView::Loss { high_water } = self.ca {
            if st.snd_una >= high_water {
                self.ca = CaView::Open;
            }
        }
        self.lost += rs.losses;
        self.cwnd = self.cwnd.min(st.cwnd);
        self.delivered = rs.delivered_total;
        self.delivered_time = rs.delivered_time;
        self.in_flight = st.in_flight;
        self.update_bw(st, rs);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(rs) {
            self.advance_cycle_phase();
        }
        self.check_full_bw_reached(rs);
        self.check_drain(st, rs.now);
        self.update_min_rtt(rs);
        self.update_gains();
        let bw = self.bw();
        self.set_pacing_rate(st, bw);
        self.set_cwnd(st, rs, bw);
    }

    fn pacing_rate(&self, st: &CcState) -> Option<Rate> {
        let bits_per_segment = f64::from((st.mss + TCP_IP_HEADER) * 8);
        self.pacing
            .filter(|&p| p > 0.0)
            .map(|p| Rate((p * bits_per_segment).round().max(1.0) as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RTT: SimDuration = SimDuration::from_millis(40);

    /// A synthetic path: ACKs of `acked` segments arrive at `delivery_rate` segments/s, each with
    /// a rate sample of `sample_rate` over one RTT and an RTT sample of `rtt`.
    struct Path {
        bbr: Bbr,
        st: CcState,
        now: SimTime,
        delivery_rate: f64,
        sample_rate: f64,
        rtt: SimDuration,
        acked: u64,
        losses: u64,
        /// Segments in flight; `None`: the sender fills its window.
        in_flight: Option<u64>,
    }

    impl Path {
        fn new(cfg: BbrConfig) -> Path {
            let mut p = Path {
                bbr: Bbr::new(cfg),
                st: CcState::new(10.0, f64::INFINITY, 1460),
                now: SimTime::ZERO,
                delivery_rate: 1000.0,
                sample_rate: 1000.0,
                rtt: RTT,
                acked: 2,
                losses: 0,
                in_flight: None,
            };
            p.bbr.on_sent(&mut p.st, SimTime::ZERO);
            p
        }

        fn ack(&mut self) {
            self.now += SimDuration::from_secs_f64(self.acked as f64 / self.delivery_rate);
            let in_flight = self.in_flight.unwrap_or(self.st.cwnd as u64);
            let one_rtt = (self.sample_rate * self.rtt.as_secs_f64()).round() as u64;
            let st = &mut self.st;
            st.delivered += self.acked;
            st.in_flight = in_flight;
            st.srtt = Some(self.rtt);
            st.snd_una += self.acked;
            let rs = RateSample {
                now: self.now,
                delivered_total: st.delivered,
                delivered_time: self.now,
                acked_sacked: self.acked,
                losses: self.losses,
                delivered: one_rtt,
                interval: Some(self.rtt),
                prior_delivered: st.delivered.saturating_sub(one_rtt),
                is_app_limited: false,
                prior_in_flight: in_flight,
                rtt: Some(self.rtt),
            };
            self.bbr.on_rate_sample(st, &rs);
        }

        /// ACKs until `pred` holds (or `limit` passes); returns the time it took.
        fn until(&mut self, limit: SimDuration, pred: impl Fn(&Bbr) -> bool) -> SimDuration {
            let start = self.now;
            while !pred(&self.bbr) {
                assert!(
                    self.now - start < limit,
                    "not reached within {limit}: mode {:?}",
                    self.bbr.mode
                );
                self.ack();
            }
            self.now - start
        }

        /// Into PROBE_BW at 1000 segments/s, RTT 40 ms (BDP 40 segments).
        fn in_probe_bw() -> Path {
            let mut p = Path::new(BbrConfig::default());
            p.until(SimDuration::from_secs(2), |b| b.mode == Mode::Drain);
            p.in_flight = Some(40);
            p.until(SimDuration::from_secs(1), |b| b.mode == Mode::ProbeBw);
            p.in_flight = Some(100);
            p
        }

        /// In a PROBE_BW phase at gain 1, the transport reports `kind` with `outstanding`
        /// segments unacknowledged. Returns cwnd before the event.
        fn congestion_while_cruising(&mut self, kind: CongestionKind, outstanding: u64) -> f64 {
            self.until(SimDuration::from_secs(1), |b| b.cycle_idx == 3);
            let before = self.st.cwnd;
            self.st.snd_nxt = self.st.snd_una + outstanding;
            let ev = CongestionEvent { now: self.now, kind, flight_size: outstanding };
            self.bbr.on_congestion(&mut self.st, &ev);
            before
        }
    }

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

    #[test]
    fn fast_recovery_conserves_packets_for_a_round_then_restores_cwnd() {
        let mut p = Path::in_probe_bw();
        let before = p.congestion_while_cruising(CongestionKind::Loss, 100);
        assert_eq!(p.st.ssthresh, before, "no multiplicative cut");
        p.in_flight = Some(30);
        p.ack();
        assert_eq!(p.st.cwnd, 32.0, "inflight + acked");
        p.in_flight = Some(20);
        p.ack();
        assert_eq!(p.st.cwnd, 32.0, "never below inflight + acked in the first round");
        p.bbr.on_recovery_exit(&mut p.st, p.now);
        p.ack();
        assert_eq!(p.st.cwnd, before);
    }

    #[test]
    fn a_timeout_restores_the_window_once_everything_outstanding_is_acknowledged() {
        let mut p = Path::in_probe_bw();
        let before = p.congestion_while_cruising(CongestionKind::Timeout, 50);
        p.losses = 2; // the transport's Loss state resends everything outstanding
        p.ack();
        assert_eq!(p.st.cwnd, 4.0, "grows by acked, at least the minimum window");
        p.ack();
        assert_eq!(p.st.cwnd, 6.0, "the resent segments were lost at the timeout, not now");
        for _ in 0..24 {
            p.ack();
        }
        assert_eq!(p.st.cwnd, before);
    }

    #[test]
    fn bbr_continues_from_a_window_the_transport_lowered() {
        // A timeout during fast recovery is not reported to the algorithm; the transport's
        // cwnd = 1 is the new start, as Linux's BBR starts from snd_cwnd after tcp_enter_loss.
        let mut p = Path::in_probe_bw();
        p.until(SimDuration::from_secs(1), |b| b.cycle_idx == 3);
        p.st.cwnd = 1.0;
        p.ack();
        assert_eq!(p.st.cwnd, 4.0);
        p.ack();
        assert_eq!(p.st.cwnd, 6.0);
        // A raise by the transport (RFC 5681 inflation) is not taken.
        p.st.cwnd = 50.0;
        p.ack();
        assert_eq!(p.st.cwnd, 8.0);
    }

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

    #[test]
    fn bad_parameters_are_named() {
        let bad = BbrConfig { cycle_rand: 8, ..BbrConfig::default() };
        assert!(bad.validate().unwrap_err().starts_with("cycle_rand: 8"));
        let bad = BbrConfig { probe_down_gain: 1.5, ..BbrConfig::default() };
        assert!(bad.validate().unwrap_err().starts_with("probe_down_gain"));
        assert_eq!(BbrConfig::default().validate(), Ok(()));
    }
}
