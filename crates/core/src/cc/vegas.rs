//! TCP Vegas (Brakmo, O'Malley, Peterson, SIGCOMM 1994; Brakmo & Peterson, IEEE JSAC 13(8),
//! 1995), with the constants and structure of Linux `net/ipv4/tcp_vegas.c`.
//!
//! ```text
//! per RTT sample:     BaseRTT = min(all samples)              RTT = min(samples of this round)
//! at each round end (the first ACK of a segment sent after the round began):
//!     Expected = cwnd / BaseRTT,  Actual = cwnd / RTT
//!     Diff     = (Expected − Actual) · BaseRTT = cwnd · (RTT − BaseRTT) / RTT
//!                                               (segments this flow keeps queued)
//!     slow start:            Diff > γ  →  cwnd = min(cwnd, ⌊cwnd · BaseRTT / RTT⌋ + 1),
//!                                         ssthresh = cwnd          (leave slow start)
//!                            otherwise →  Reno slow start (+1 per acked segment)
//!     congestion avoidance:  Diff < α  →  cwnd += 1
//!                            Diff > β  →  cwnd −= 1, ssthresh = min(ssthresh, cwnd)
//!                            otherwise →  unchanged
//!     cwnd = max(cwnd, 2)
//!     a round with fewer than 3 RTT samples (delayed ACKs) falls back to Reno's rule
//! between round ends: Reno slow start while cwnd < ssthresh, no change otherwise
//! loss / ECN / timeout:  ssthresh = max(½ · FlightSize, 2)  (Reno; the transport sets cwnd)
//! α = 2, β = 4, γ = 1 segments (Linux module parameters alpha, beta, gamma)
//! ```
//!
//! Slow start: by default Reno's, every RTT, as Linux does ("to avoid the performance penalty
//! imposed by increasing cwnd only every-other RTT"); `ss_every_other_rtt = true` restores the
//! paper's rule (§3.3: exponential growth only every other RTT, the window held constant in
//! between so that Expected and Actual compare a fixed window). Both leave slow start when
//! Diff > γ with Linux's exit window.
//!
//! Deviations / not implemented:
//! - Diff is the paper's `(Expected − Actual)·BaseRTT` = cwnd·(RTT − BaseRTT)/RTT; Linux divides
//!   by BaseRTT instead (cwnd·(RTT − BaseRTT)/BaseRTT), which overstates the queue by RTT/BaseRTT.
//! - The paper's Actual uses the bytes sent during the round; like Linux we use cwnd (equal
//!   whenever the flow is window-limited, the only time `on_ack` runs).
//! - Vegas' own retransmission mechanism (fine-grained timeout check on duplicate ACKs, one
//!   window decrease per round) is not modelled: loss detection and recovery belong to the
//!   transport; the window response to loss is Reno's (Linux uses `tcp_reno_ssthresh`).
//! - Linux finally sets `snd_ssthresh = tcp_current_ssthresh()` (at least ¾ cwnd) at each round
//!   end; that only matters after an idle period, so ssthresh here stays where the rules above
//!   put it.
//! - Idle restart (Linux `CA_EVENT_CWND_RESTART`) does not arise: senders here never go idle
//!   with data outstanding. After fast recovery the round restarts (Linux `vegas_enable` on
//!   return to Open). In the transport's Loss state (after a timeout, or tahoe's fast
//!   retransmit) the window follows Reno (slow start, then +1/cwnd per ACK) until SND.UNA
//!   passes the SND.MAX of the event — where the Loss state ends — as Linux runs Reno outside
//!   the Open state; then a fresh Vegas round begins.

use super::round_rtt::RoundRtt;
use super::{
    check_param, reno_cong_avoid, slow_start, AckSample, CcParams, CcState, CongestionControl,
    CongestionEvent, MAX_SEGMENTS,
};
use crate::time::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VegasConfig {
    /// Lower bound of segments kept queued: below it cwnd grows by one per RTT (Linux `alpha` = 2).
    pub alpha: f64,
    /// Upper bound of segments kept queued: above it cwnd shrinks by one per RTT (Linux `beta` = 4).
    pub beta: f64,
    /// Queued segments that end slow start (Linux `gamma` = 1).
    pub gamma: f64,
    /// Fewest RTT samples in a round for a Vegas decision; fewer means delayed ACKs, so Reno's
    /// rule applies (Linux: `cntRTT <= 2` → `tcp_reno_cong_avoid`).
    pub min_rtt_samples: u32,
    /// Smallest window Vegas sets, segments (Linux `tcp_vegas_cong_avoid`: 2).
    pub min_cwnd: f64,
    /// Multiplicative decrease on loss (Linux `tcp_reno_ssthresh`, RFC 5681 eq. 4: 1/2).
    pub loss_beta: f64,
    /// Slow start doubles every other RTT (the paper, §3.3) instead of every RTT (Linux).
    pub ss_every_other_rtt: bool,
}

impl CcParams for VegasConfig {
    fn validate(&self) -> Result<(), String> {
        let c = self;
        check_param(
            "alpha",
            c.alpha,
            (0.0..=MAX_SEGMENTS).contains(&c.alpha),
            "segments in [0, 1000000]",
        )?;
        check_param(
            "beta",
            c.beta,
            c.beta >= c.alpha && c.beta <= MAX_SEGMENTS,
            "segments in [alpha, 1000000]",
        )?;
        check_param(
            "gamma",
            c.gamma,
            (0.0..=MAX_SEGMENTS).contains(&c.gamma),
            "segments in [0, 1000000]",
        )?;
        check_param(
            "min_cwnd",
            c.min_cwnd,
            (1.0..=MAX_SEGMENTS).contains(&c.min_cwnd),
            "segments in [1, 1000000]",
        )?;
        check_param(
            "loss_beta",
            c.loss_beta,
            c.loss_beta > 0.0 && c.loss_beta < 1.0,
            "a factor in (0, 1)",
        )
    }
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig {
            alpha: 2.0,                // Linux tcp_vegas.c `alpha`
            beta: 4.0,                 // Linux tcp_vegas.c `beta`
            gamma: 1.0,                // Linux tcp_vegas.c `gamma`
            min_rtt_samples: 3,        // Linux tcp_vegas.c: `cntRTT <= 2` is too few
            min_cwnd: 2.0,             // Linux tcp_vegas.c: `if (snd_cwnd < 2) snd_cwnd = 2`
            loss_beta: 0.5,            // Linux tcp_reno_ssthresh / RFC 5681 eq. (4)
            ss_every_other_rtt: false, // Linux; the paper's rule when true
        }
    }
}

pub struct Vegas {
    cfg: VegasConfig,
    rounds: RoundRtt,
    /// With `ss_every_other_rtt`: this slow-start round holds the window constant.
    ss_hold: bool,
    /// The transport is in its Loss state (a timeout, or tahoe's fast retransmit): `on_ack`
    /// came after a congestion event without a recovery exit. Reno until the round begun at the
    /// event ends (SND.UNA passes its SND.MAX, where the Loss state ends), as Linux runs Reno
    /// outside the Open state (`doing_vegas_now = 0`).
    reno_in_loss_state: bool,
}

impl Vegas {
    pub fn new(cfg: VegasConfig) -> Self {
        Vegas { cfg, rounds: RoundRtt::default(), ss_hold: false, reno_in_loss_state: false }
    }

    /// The Vegas Diff, segments queued by this flow: cwnd · (RTT − BaseRTT) / RTT.
    pub fn diff(cwnd: f64, base: SimDuration, rtt: SimDuration) -> f64 {
        let (base, rtt) = (base.as_secs_f64(), rtt.as_secs_f64());
        cwnd * (rtt - base).max(0.0) / rtt
    }

    fn slow_start_step(&self, st: &mut CcState, acked: u64) {
        if !self.ss_hold {
            slow_start(st, acked);
        }
    }

    /// The once-per-round decision, from the round's smallest RTT.
    fn adjust(&mut self, st: &mut CcState, acked: u64, base: SimDuration, rtt: SimDuration) {
        let diff = Self::diff(st.cwnd, base, rtt);
        if st.in_slow_start() {
            if diff > self.cfg.gamma {
                // Going too fast: set the window to the rate actually achieved and leave slow start.
                let target = st.cwnd * base.as_secs_f64() / rtt.as_secs_f64();
                st.cwnd = st.cwnd.min(target.floor() + 1.0);
                st.ssthresh = st.ssthresh.min(st.cwnd);
                self.ss_hold = false;
            } else {
                self.slow_start_step(st, acked);
                if self.cfg.ss_every_other_rtt {
                    self.ss_hold = !self.ss_hold;
                }
            }
        } else if diff > self.cfg.beta {
            st.cwnd -= 1.0;
            st.ssthresh = st.ssthresh.min(st.cwnd);
        } else if diff < self.cfg.alpha {
            st.cwnd += 1.0;
        }
        st.cwnd = st.cwnd.max(self.cfg.min_cwnd);
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn on_rtt_sample(&mut self, _st: &mut CcState, _now: SimTime, rtt: SimDuration) {
        self.rounds.on_sample(rtt);
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        let Some(round) = self.rounds.end_of_round(st) else {
            if self.reno_in_loss_state {
                reno_cong_avoid(st, ack.acked);
            } else if st.in_slow_start() {
                self.slow_start_step(st, ack.acked);
            }
            return;
        };
        if std::mem::take(&mut self.reno_in_loss_state) {
            // The Loss state is over: Vegas restarts with a fresh round (Linux `vegas_enable`).
            reno_cong_avoid(st, ack.acked);
            return;
        }
        match (round.min_rtt, self.rounds.base()) {
            (Some(rtt), Some(base)) if round.samples >= self.cfg.min_rtt_samples => {
                self.adjust(st, ack.acked, base, rtt)
            }
            _ => reno_cong_avoid(st, ack.acked),
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, ev: &CongestionEvent) {
        st.ssthresh = (self.cfg.loss_beta * ev.flight_size as f64).max(2.0);
        self.ss_hold = false;
        // Until a recovery exit says otherwise, the next ACKs belong to a Loss state.
        self.reno_in_loss_state = true;
        self.rounds.restart(st);
    }

    fn on_recovery_exit(&mut self, st: &mut CcState, _now: SimTime) {
        self.reno_in_loss_state = false;
        self.rounds.restart(st);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::round_rtt::testing::{ms, Driver};
    use crate::cc::CongestionKind;

    /// A Vegas sender in congestion avoidance at `cwnd`, having seen BaseRTT = 100 ms.
    fn in_avoidance(cwnd: f64) -> (Vegas, Driver) {
        let mut v = Vegas::new(VegasConfig::default());
        let mut d = Driver::new(cwnd, cwnd);
        d.round(&mut v, ms(100.0)); // the connection's first ACK ends an empty round: Reno
        d.st.cwnd = cwnd;
        d.round(&mut v, ms(100.0)); // no queue: Diff = 0 < α
        assert_eq!(d.st.cwnd, cwnd + 1.0);
        d.st.cwnd = cwnd;
        (v, d)
    }

    #[test]
    fn beta_below_alpha_is_rejected() {
        let p = serde_json::json!({"alpha": 3, "beta": 2});
        let e = crate::cc::CcConfig::from_name("vegas", Some(&p)).unwrap_err();
        assert_eq!(e, "beta: 2 is out of range: expected segments in [alpha, 1000000]");
    }

    #[test]
    fn diff_is_the_number_of_segments_queued() {
        // 20 segments per 125 ms, 25 ms of it queueing: 20 · 25/125 = 4 segments in the queue.
        assert!((Vegas::diff(20.0, ms(100.0), ms(125.0)) - 4.0).abs() < 1e-9);
    }

    #[test]
    fn grows_one_segment_per_round_while_fewer_than_alpha_are_queued() {
        let (mut v, mut d) = in_avoidance(20.0);
        // Diff = 20 · 5/105 = 0.95 < α = 2.
        let acks = d.round(&mut v, ms(105.0));
        assert_eq!(d.st.cwnd, 21.0);
        assert_eq!(acks, 20, "a round is one window of ACKs");
        // Nothing changes until the next round ends.
        d.ack(&mut v, ms(105.0));
        assert_eq!(d.st.cwnd, 21.0);
    }

    #[test]
    fn holds_between_alpha_and_beta_and_shrinks_above_beta() {
        let (mut v, mut d) = in_avoidance(20.0);
        // Diff = 20 · 20/120 = 3.3 ∈ [2, 4]: hold.
        d.round(&mut v, ms(120.0));
        assert_eq!(d.st.cwnd, 20.0);
        // Diff = 20 · 50/150 = 6.7 > 4: one segment less, and ssthresh follows it down.
        d.round(&mut v, ms(150.0));
        assert_eq!((d.st.cwnd, d.st.ssthresh), (19.0, 19.0));
        // The round's minimum decides: one 100 ms sample among 150 ms ones means no queue.
        let end = d.round_end();
        d.ack(&mut v, ms(100.0));
        while d.st.snd_una <= end {
            d.ack(&mut v, ms(150.0));
        }
        assert_eq!(d.st.cwnd, 20.0);
    }

    #[test]
    fn slow_start_ends_when_more_than_gamma_segments_queue() {
        let mut v = Vegas::new(VegasConfig::default());
        let mut d = Driver::new(10.0, f64::INFINITY);
        d.round(&mut v, ms(100.0));
        // No queueing: Reno slow start, the window doubles each round.
        let w = d.st.cwnd;
        d.round(&mut v, ms(100.0));
        assert!(d.st.cwnd >= 1.8 * w && d.st.in_slow_start(), "{} after {w}", d.st.cwnd);
        let w = d.st.cwnd;
        // 10 % queueing delay: Diff = cwnd/11 > γ = 1 → cwnd = ⌊cwnd · 100/110⌋ + 1, and CA.
        let end = d.round_end();
        while d.st.snd_una < end {
            d.ack(&mut v, ms(110.0));
        }
        let grown = d.st.cwnd; // slow start went on within the round
        assert!(grown >= 1.8 * w, "{grown} after {w}");
        d.ack(&mut v, ms(110.0));
        assert_eq!(d.st.cwnd, (grown * 100.0 / 110.0).floor() + 1.0);
        assert_eq!(d.st.ssthresh, d.st.cwnd);
        assert!(!d.st.in_slow_start());
    }

    #[test]
    fn paper_slow_start_grows_only_every_other_round() {
        let cfg = VegasConfig { ss_every_other_rtt: true, ..VegasConfig::default() };
        let mut v = Vegas::new(cfg);
        let mut d = Driver::new(10.0, f64::INFINITY);
        d.round(&mut v, ms(100.0));
        let mut sizes = vec![d.st.cwnd];
        for _ in 0..4 {
            d.round(&mut v, ms(100.0));
            sizes.push(d.st.cwnd);
        }
        // Grow (about doubling), hold, grow, hold.
        assert!(sizes[1] >= 1.8 * sizes[0] && sizes[3] >= 1.8 * sizes[2], "{sizes:?}");
        assert!(sizes[2] == sizes[1] && sizes[4] == sizes[3], "{sizes:?}");
    }

    #[test]
    fn rounds_with_too_few_samples_follow_reno() {
        let mut v = Vegas::new(VegasConfig::default());
        let mut d = Driver::new(2.0, 2.0);
        d.round(&mut v, ms(100.0));
        d.st.cwnd = 2.0;
        // Diff = 2 · 200/300 = 1.3 < α would add a whole segment, but a 2-segment round
        // has only 2 samples: Reno adds 1/cwnd on the round-ending ACK.
        d.round(&mut v, ms(300.0));
        assert_eq!(d.st.cwnd, 2.5);
    }

    #[test]
    fn loss_halves_the_flight_like_reno_and_restarts_the_round() {
        let (mut v, mut d) = in_avoidance(40.0);
        let now = d.now;
        v.on_congestion(
            &mut d.st,
            &CongestionEvent { now, kind: CongestionKind::Loss, flight_size: 40 },
        );
        assert_eq!(d.st.ssthresh, 20.0);
        d.st.cwnd = 20.0;
        v.on_recovery_exit(&mut d.st, now);
        // The restarted round holds no sample: its end falls back to Reno (+1/cwnd).
        d.st.snd_una = d.st.snd_nxt + 1;
        v.on_ack(&mut d.st, &AckSample { now, acked: 1, rtt: None });
        assert!((d.st.cwnd - 20.05).abs() < 1e-9, "{}", d.st.cwnd);
        v.on_congestion(
            &mut d.st,
            &CongestionEvent { now, kind: CongestionKind::Timeout, flight_size: 3 },
        );
        assert_eq!(d.st.ssthresh, 2.0);
    }

    #[test]
    fn after_a_timeout_it_is_reno_until_the_data_outstanding_then_is_acknowledged() {
        let (mut v, mut d) = in_avoidance(40.0);
        let snd_max = d.st.snd_nxt;
        let ev = CongestionEvent { now: d.now, kind: CongestionKind::Timeout, flight_size: 40 };
        v.on_congestion(&mut d.st, &ev);
        d.st.cwnd = 1.0; // the transport
                         // Heavy queueing would make Vegas shrink the window; Reno slow-starts to 20, then +1/cwnd.
        while d.st.snd_una < snd_max {
            d.ack(&mut v, ms(300.0));
        }
        assert!(d.st.cwnd > 20.0 && d.st.cwnd < 21.5, "{}", d.st.cwnd);
        // SND.UNA passes SND.MAX of the timeout: Vegas again, from a fresh round.
        d.ack(&mut v, ms(300.0));
        let w = d.st.cwnd;
        let end = d.st.snd_nxt;
        while d.st.snd_una <= end {
            d.ack(&mut v, ms(300.0));
        }
        assert_eq!(d.st.cwnd, w - 1.0, "Diff = {} > β", Vegas::diff(w, ms(100.0), ms(300.0)));
    }
}
