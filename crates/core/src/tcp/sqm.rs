//! SQM-Response: the TCP sender's reaction to ICMP Source Quench (seed 004 §3.3–3.4; Andrade's
//! 2001 dissertation), for every recovery variant (tahoe, reno, newreno, sack).
//!
//! ```text
//! on a Source Quench about segment s (code 0: dropped; code 1: congestion experienced):
//!   state Open, and no SQM reduction in the last SRTT:
//!       CC.on_congestion(SourceQuench): ssthresh = max(FlightSize/2, 2·SMSS) for Reno
//!       cwnd = ssthresh
//!   code 0: retransmit s at once (even if the window is full); icmp_recover = s
//!           (a later code 0 in the same episode: retransmit only; icmp_recover = max)
//!   code 1: icmp_recover = s (nothing to resend)
//!   Open → SourceQuench { icmp_recover } if the window was cut or s was resent
//! in SourceQuench, per ACK advancing SND.UNA:  cwnd += 1/cwnd  (SMSS·SMSS/cwnd in bytes)
//!   SND.UNA > icmp_recover                      → Open
//!   dupthresh duplicate ACKs (sack: IsLost) for a hole no Source Quench reported
//!                                               → fast recovery (tahoe: its go-back-N)
//!   retransmission timeout                      → Loss: cwnd = 1, slow start
//! ```
//!
//! Interpretation of the seed where it is terse:
//! - "Once per RTT" is measured with SRTT from the last SQM reduction (none yet: allowed).
//! - Code 1 names a segment that was not dropped; the episode ends when it is acknowledged, as
//!   for a resent segment. A code 1 that does not cut the window starts no episode.
//! - "3 dupACKs asking for a segment above icmp_recover": SND.UNA never passes icmp_recover
//!   inside the episode, so we read it as "duplicate ACKs for a hole that no Source Quench
//!   reported" (the retransmission of a reported hole is already under way). Fast recovery
//!   entered from SourceQuench does not cut ssthresh again: the window was reduced within this
//!   round trip (the seed's own "once per RTT" rule; RFC 3168 §6.1.2 says the same for ECN).
//! - A timeout keeps the ssthresh SQM set (the seed only sets cwnd to its initial value, one
//!   segment here as after any timeout).
//! - cwnd = min(cwnd, ssthresh): a quench never raises the window (possible only when the
//!   2-segment floor exceeds a tiny cwnd).
//! - During fast recovery or after a timeout a code 0 still resends the named segment (new
//!   information on what was lost) but leaves the window to that state.
//! - Growth is per ACK, as the seed writes it, not per acknowledged segment.
//! - The quoted copy's send time identifies which copy was dropped: a report about a copy that
//!   has since been resent is ignored (a real stack would compare the quoted IP header).

use super::scoreboard::Scoreboard;
use crate::cc::CcState;
use crate::time::{SimDuration, SimTime};

/// The sender's Source Quench bookkeeping. The episode itself is a state of the recovery state
/// machine (`CaState::SourceQuench`), the window cut the sender's; this decides when to cut and
/// holds the rules the episode follows.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Sqm {
    /// When SQM last cut the window.
    last_reduction: Option<SimTime>,
    /// Window reductions made in answer to Source Quench.
    reductions: u64,
}

impl Sqm {
    /// Window reductions made in answer to Source Quench.
    pub(super) fn reductions(&self) -> u64 {
        self.reductions
    }

    /// A Source Quench arrived at `now` in the Open state (`open`) or not: whether it cuts the
    /// window (counted as a reduction), at most once per round trip.
    pub(super) fn on_quench(
        &mut self,
        now: SimTime,
        open: bool,
        srtt: Option<SimDuration>,
    ) -> bool {
        let cut = open
            && self
                .last_reduction
                .is_none_or(|t| srtt.is_none_or(|srtt| now.saturating_since(t) >= srtt));
        if cut {
            self.last_reduction = Some(now);
            self.reductions += 1;
        }
        cut
    }

    /// An ACK advanced SND.UNA to `una` during SQM-Response: cwnd += 1/cwnd. Returns whether
    /// the episode is over (`icmp_recover` is acknowledged).
    pub(super) fn on_ack_in_episode(st: &mut CcState, una: u64, icmp_recover: u64) -> bool {
        st.cwnd += 1.0 / st.cwnd;
        una > icmp_recover
    }

    /// Duplicate ACKs during SQM-Response call for fast recovery only if the hole they point at
    /// was not reported by a Source Quench (and so is not being resent already).
    pub(super) fn hole_unreported(sb: &Scoreboard) -> bool {
        !sb.is_quenched(sb.una())
    }
}

#[cfg(test)]
mod tests {
    use crate::app::AppSource;
    use crate::net::icmp;
    use crate::net::packet::{FlowId, NodeId, Packet};
    use crate::tcp::config::{Recovery, TcpConfig};
    use crate::tcp::sender::TcpSender;
    use crate::tcp::testutil::{ack_packet, drain, ms, reno_cc};
    use crate::tcp::Phase;
    use crate::time::SimTime;
    use crate::transport::{Addr, Transport};
    use crate::wire::Header;
    use crate::wire::QuenchCode;

    fn sqm_sender(recovery: Recovery) -> TcpSender {
        let cfg = TcpConfig { source_quench: true, recovery, ..TcpConfig::default() };
        let addr = Addr { flow: FlowId(0), local: NodeId(0), remote: NodeId(1) };
        TcpSender::new(addr, cfg, reno_cc(), AppSource::Bulk { mss: 1460 }, SimTime::ZERO)
    }

    /// The copy of `seq` the sender emitted at `sent_at`, as a router would quote it.
    fn quench(seq: u64, sent_at: SimTime, code: QuenchCode, now: SimTime) -> Packet {
        let orig = Packet {
            flow: FlowId(0),
            src: NodeId(0),
            dst: NodeId(1),
            size: 1500,
            sent_at,
            ce: false,
            header: Header::TcpData {
                seq,
                len: 1460,
                retransmit: false,
                ect: false,
                cwr: false,
                ts: None,
            },
        };
        icmp::source_quench(now, NodeId(7), &orig, code).unwrap()
    }

    fn ack(n: u64, blocks: &[(u64, u64)]) -> Packet {
        ack_packet(n, blocks, false)
    }

    #[test]
    fn a_code_zero_quench_halves_the_window_and_resends_the_segment_before_any_duplicate_ack() {
        for recovery in Recovery::ALL {
            let mut s = sqm_sender(recovery);
            assert_eq!(drain(&mut s, SimTime::ZERO).len(), 10);
            // Segment 4 was dropped one hop away; its quench arrives before any ACK.
            s.handle_packet(ms(5), &quench(4, SimTime::ZERO, QuenchCode::Dropped, ms(4)));
            assert_eq!(s.phase(), Phase::SourceQuench, "{recovery:?}");
            // ssthresh = max(FlightSize / 2, 2) = 5 and cwnd = ssthresh.
            assert_eq!((s.cc_state().ssthresh, s.cc_state().cwnd), (5.0, 5.0), "{recovery:?}");
            assert_eq!(
                drain(&mut s, ms(5)),
                vec![(4, true)],
                "{recovery:?}: resent at once, window full or not"
            );
            assert_eq!((s.probe().sq_reductions, s.probe().fast_recoveries), (1, 0));
        }
    }

    #[test]
    fn the_episode_grows_the_window_by_one_over_cwnd_per_ack_and_ends_when_icmp_recover_is_acked() {
        let mut s = sqm_sender(Recovery::NewReno);
        drain(&mut s, SimTime::ZERO);
        s.handle_packet(ms(5), &quench(4, SimTime::ZERO, QuenchCode::Dropped, ms(4)));
        drain(&mut s, ms(5));
        // ACKs for 0..3 advance SND.UNA: cwnd 5 → 5.2 → 5.392...
        let mut want = 5.0;
        for k in 1..=4 {
            s.handle_packet(ms(100 + k), &ack(k, &[]));
            want += 1.0 / want;
            assert!(
                (s.cc_state().cwnd - want).abs() < 1e-12,
                "ACK {k}: {} vs {want}",
                s.cc_state().cwnd
            );
            assert_eq!(s.phase(), Phase::SourceQuench);
        }
        // 5..9 arrive: duplicate ACKs for the hole at 4, which is being resent: no fast retransmit.
        for k in 0..5 {
            s.handle_packet(ms(105 + k), &ack(4, &[]));
        }
        assert_eq!((s.phase(), s.probe().fast_recoveries), (Phase::SourceQuench, 0));
        assert!(drain(&mut s, ms(110)).iter().all(|&(_, rtx)| !rtx), "nothing is resent twice");
        // The resent 4 arrives: the cumulative ACK passes icmp_recover and the episode ends.
        s.handle_packet(ms(106 + 100), &ack(10, &[]));
        assert_eq!(s.phase(), Phase::Open);
        assert_eq!(s.cc_state().ssthresh, 5.0);
    }

    #[test]
    fn duplicate_acks_for_an_unreported_hole_end_the_episode_in_fast_recovery_without_a_second_cut()
    {
        for recovery in [Recovery::Reno, Recovery::NewReno, Recovery::Sack] {
            let mut s = sqm_sender(recovery);
            drain(&mut s, SimTime::ZERO);
            s.handle_packet(ms(5), &quench(2, SimTime::ZERO, QuenchCode::Dropped, ms(4)));
            drain(&mut s, ms(5));
            // The resent 2 and 3..5 arrive, 6 was lost without a quench, 7..9 arrive.
            s.handle_packet(ms(100), &ack(2, &[]));
            s.handle_packet(ms(105), &ack(6, &[]));
            assert_eq!(s.phase(), Phase::Open, "{recovery:?}: icmp_recover acknowledged");
            for k in 0..3 {
                s.handle_packet(ms(106 + k), &ack(6, &[(7, 8 + k)]));
            }
            assert_eq!(s.phase(), Phase::Recovery, "{recovery:?}");
            assert_eq!(s.probe().fast_recoveries, 1);
            let sent = drain(&mut s, ms(108));
            assert_eq!(sent.first(), Some(&(6, true)), "{recovery:?}");

            // Same, but the unreported hole (8) lies inside the episode: icmp_recover = 6.
            let mut s = sqm_sender(recovery);
            drain(&mut s, SimTime::ZERO);
            s.handle_packet(ms(5), &quench(6, SimTime::ZERO, QuenchCode::Dropped, ms(4)));
            drain(&mut s, ms(5));
            let cut = s.cc_state().ssthresh;
            s.handle_packet(ms(100), &ack(6, &[]));
            assert_eq!(s.phase(), Phase::SourceQuench);
            for k in 0..3 {
                // 7 and 9.. arrive; the hole at 6 is being resent: no fast recovery.
                s.handle_packet(ms(101 + k), &ack(6, &[(7, 8), (9, 10 + k)]));
            }
            assert_eq!(s.phase(), Phase::SourceQuench, "{recovery:?}: the hole at 6 was reported");
            assert_eq!(s.cc_state().ssthresh, cut);
            s.handle_packet(ms(110), &ack(8, &[(9, 12)]));
            assert_eq!(s.phase(), Phase::Open, "{recovery:?}");
        }
    }

    #[test]
    fn one_cut_per_round_trip_and_later_quenches_only_resend() {
        let mut s = sqm_sender(Recovery::Sack);
        drain(&mut s, SimTime::ZERO);
        // An RTT sample of 100 ms first.
        s.handle_packet(ms(100), &ack(1, &[]));
        drain(&mut s, ms(100));
        let snd_max = s.snd_max();
        // The engine lets the sender transmit after each packet it hands over.
        s.handle_packet(ms(101), &quench(3, SimTime::ZERO, QuenchCode::Dropped, ms(100)));
        let mut sent = drain(&mut s, ms(101));
        let first_cut = s.cc_state().ssthresh;
        s.handle_packet(ms(102), &quench(5, SimTime::ZERO, QuenchCode::Dropped, ms(101)));
        sent.extend(drain(&mut s, ms(102)));
        s.handle_packet(
            ms(103),
            &quench(7, SimTime::ZERO, QuenchCode::CongestionExperienced, ms(102)),
        );
        sent.extend(drain(&mut s, ms(103)));
        assert_eq!((s.cc_state().ssthresh, s.probe().sq_reductions), (first_cut, 1));
        assert_eq!(sent, vec![(3, true), (5, true)]);
        assert_eq!(s.snd_max(), snd_max, "the cut window lets nothing new out");
        // The episode covers the highest resent segment.
        s.handle_packet(ms(200), &ack(5, &[]));
        assert_eq!(s.phase(), Phase::SourceQuench);
        s.handle_packet(ms(201), &ack(6, &[]));
        assert_eq!(s.phase(), Phase::Open);
        // More than an SRTT after the first cut, a quench cuts again.
        s.handle_packet(
            ms(260),
            &quench(9, SimTime::ZERO, QuenchCode::CongestionExperienced, ms(259)),
        );
        assert_eq!((s.probe().sq_reductions, s.phase()), (2, Phase::SourceQuench));
        assert!(drain(&mut s, ms(260)).iter().all(|t| !t.1), "code 1: nothing was dropped");
    }

    #[test]
    fn a_timeout_during_the_episode_returns_to_slow_start_keeping_ssthresh() {
        let mut s = sqm_sender(Recovery::NewReno);
        drain(&mut s, SimTime::ZERO);
        s.handle_packet(ms(5), &quench(0, SimTime::ZERO, QuenchCode::Dropped, ms(4)));
        assert_eq!(drain(&mut s, ms(5)), vec![(0, true)]);
        let rto = s.poll_timeout().unwrap();
        s.handle_timeout(rto);
        assert_eq!((s.phase(), s.cc_state().cwnd, s.cc_state().ssthresh), (Phase::Loss, 1.0, 5.0));
        assert_eq!(s.probe().timeouts, 1);
    }

    #[test]
    fn quenches_are_ignored_without_the_option_and_about_copies_already_resent() {
        let cfg = TcpConfig::default();
        let addr = Addr { flow: FlowId(0), local: NodeId(0), remote: NodeId(1) };
        let mut plain =
            TcpSender::new(addr, cfg, reno_cc(), AppSource::Bulk { mss: 1460 }, SimTime::ZERO);
        drain(&mut plain, SimTime::ZERO);
        plain.handle_packet(ms(5), &quench(4, SimTime::ZERO, QuenchCode::Dropped, ms(4)));
        assert_eq!((plain.phase(), drain(&mut plain, ms(5))), (Phase::Open, vec![]));

        let mut s = sqm_sender(Recovery::Sack);
        drain(&mut s, SimTime::ZERO);
        s.handle_packet(ms(5), &quench(4, SimTime::ZERO, QuenchCode::Dropped, ms(4)));
        assert_eq!(drain(&mut s, ms(5)), vec![(4, true)]);
        // A second report about the original copy (another router? a duplicate) is stale.
        s.handle_packet(ms(6), &quench(4, SimTime::ZERO, QuenchCode::Dropped, ms(5)));
        assert_eq!(drain(&mut s, ms(6)), vec![]);
        // The retransmission itself was dropped: resend it.
        s.handle_packet(ms(9), &quench(4, ms(5), QuenchCode::Dropped, ms(8)));
        assert_eq!(drain(&mut s, ms(9)), vec![(4, true)]);
    }
}
