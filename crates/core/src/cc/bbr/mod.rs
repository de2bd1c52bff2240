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
//! Where the parts are:
//! - `config`: the parameters (`BbrConfig`) with their Linux names, defaults and ranges.
//! - `model`: the path model: packet-timed round trips, the BtlBw max filter, the RTprop min
//!   filter, and which samples describe the application rather than the path.
//! - `long_term`: long-term sampling, the token-bucket policer detector.
//! - `modes`: the state machine: STARTUP's full-pipe check, DRAIN, PROBE_BW's gain cycle,
//!   PROBE_RTT, and the gains of each mode.
//! - `control`: the outputs: the BDP and the cwnd target, the pacing rate, the window per ACK.
//! - `recovery`: the transport's loss recovery as BBR sees it: packet conservation, the window
//!   saved before a cut and restored after it.
//! - this file: BBR's state and the `CongestionControl` callbacks, which run the parts in Linux's
//!   order (`bbr_main`, `bbr_ssthresh`, `bbr_set_state`).
//!
//! Deviations from Linux `tcp_bbr.c` (each part lists its own):
//! - No EDT correction of inflight (`bbr_packets_in_net_at_edt`): the transport's pacer holds at
//!   most one segment; inflight is taken as is.
//! - No idle-restart event (`CA_EVENT_TX_START`): after an application pause PROBE_RTT may start
//!   at once, and the transport's restart-after-idle cut (which Linux skips for BBR) holds the
//!   first flight until BBR sets its window again on the first ACK.
//! - A timeout during fast recovery is not reported to the algorithm by the transport (it keeps
//!   ssthresh, as Linux does), so Linux's `bbr_set_state(TCP_CA_Loss)` reset is skipped then.
//! - ECN and ICMP Source Quench do not cut the window (BBR v1 ignores them): `on_congestion`
//!   leaves ssthresh at cwnd, so the transport's Cwr and SourceQuench states cut nothing.

mod config;
mod control;
mod long_term;
mod model;
mod modes;
mod recovery;

pub use config::BbrConfig;
pub use modes::Mode;

use super::{AckSample, CcState, CongestionControl, CongestionEvent, CongestionKind, RateSample};
use crate::time::{Rate, SimDuration, SimTime};
use crate::wire::tcp::TCP_IP_HEADER;
use long_term::LongTerm;
use model::WindowedMax;
use recovery::CaView;

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
        let rtprop_expired = self.update_min_rtt(rs);
        self.update_probe_rtt(rs.now, rtprop_expired);
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
mod synthetic_path;
