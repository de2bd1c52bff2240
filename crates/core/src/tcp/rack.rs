//! RACK-TLP loss detection (RFC 8985), time-based: a segment is lost when a segment sent after
//! it has been delivered and more than an RTT plus a reordering window has passed since it was
//! sent; a tail loss, which leaves no later segment to be delivered, is probed for (TLP).
//!
//! ```text
//! per ACK:   RACK.xmit_ts, RACK.end_seq = latest-sent newly delivered segment      (§6.2 step 2)
//!            RACK.rtt = now − its send time  (a retransmission counts only if ≥ min_rtt)
//! reo_wnd    = 0 in recovery, or once DupThresh segments are SACKed;             (§6.2 step 4)
//!              else min(min_rtt / 4, SRTT)
//! lost(S)   ⇔ S sent before RACK.xmit_ts  and  S.sent + RACK.rtt + reo_wnd ≤ now   (§6.2 step 5)
//!            otherwise a reorder timer fires at the earliest such deadline
//! PTO        = 2·SRTT (+ 200 ms when one segment is outstanding; + 2 ms otherwise),
//!              at most the RTO still to run; 1 s before any RTT sample           (§7.2, Linux)
//!            a probe due with the RTO replaces it: Linux keeps both on one timer
//! on PTO:    send one new segment whatever cwnd says, else resend the last one (§7.3)
//! ```
//!
//! Transmissions are kept in send order (Linux's `tsorted_sent_queue`): a retransmission is
//! appended again, and entries whose copy was acknowledged, SACKed, superseded or already
//! marked are dropped as the walk meets them, so detection is amortised O(1) per ACK.
//!
//! Deviations: reordering is never detected (RACK.reordering_seen stays false: a constant-delay
//! path does not reorder), so reo_wnd does not adapt (§6.2 step 4's multiplier stays 1);
//! D-SACK is a single bit per ACK (see `receiver.rs`).

use super::rtt::RttEstimator;
use super::scoreboard::{LatestSent, Scoreboard};
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

/// A probe timeout one RTT-ish ahead needs this much slack when a single segment is
/// outstanding: the receiver may hold its ACK for the delayed-ACK timer (RFC 8985 §7.2
/// `WCDelAckT`; Linux adds `TCP_RTO_MIN`, 200 ms).
const WORST_CASE_DELAYED_ACK: SimDuration = SimDuration::from_millis(200);
/// Linux `TCP_TIMEOUT_MIN` (2 jiffies at HZ = 1000) added to the PTO otherwise.
const PTO_SLACK: SimDuration = SimDuration::from_millis(2);
/// How far past the front an ACK loads the transmissions for the ACKs after it: 8 entries of
/// 24 bytes, three cache lines ahead (about four delayed ACKs).
const SENT_PREFETCH_AHEAD: usize = 8;
/// PTO before any RTT sample (RFC 8985 §7.2: 1 s, Linux `TCP_TIMEOUT_INIT`).
const PTO_WITHOUT_SRTT: SimDuration = SimDuration::from_secs(1);

#[derive(Clone, Debug)]
pub(super) struct Rack {
    /// DupThresh: once this many segments are SACKed the reordering window closes.
    dupthresh: u32,
    /// The latest-sent delivered segment (RACK.xmit_ts, RACK.end_seq); `None` before any.
    latest: Option<LatestSent>,
    /// RACK.rtt: the RTT of that segment.
    rtt: SimDuration,
    /// Transmissions in send order: (segment, transmission order, send time of that copy).
    sent: VecDeque<(u64, u64, SimTime)>,
    /// The loss probe in flight: SND.MAX after it, and whether it was a retransmission.
    probe: Option<TailProbe>,
    /// Tail-loss probes sent (RFC 8985 §7).
    loss_probes: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TailProbe {
    high_seq: u64,
    retransmission: bool,
}

/// The segment a due loss probe sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ProbeSegment {
    pub(super) seq: u64,
    /// The highest outstanding segment again (to be marked lost first), not new data.
    pub(super) retransmission: bool,
}

impl Rack {
    pub(super) fn new(dupthresh: u32) -> Self {
        Rack {
            dupthresh,
            latest: None,
            rtt: SimDuration::ZERO,
            sent: VecDeque::new(),
            probe: None,
            loss_probes: 0,
        }
    }

    /// Frees the per-transmission storage of past windows (see `tcp::release_spare`).
    pub(super) fn release_spare(&mut self) {
        super::release_spare(&mut self.sent);
    }
    #[cfg(test)]
    pub(super) fn capacity(&self) -> usize {
        self.sent.capacity()
    }

    /// Tail-loss probes sent.
    pub(super) fn loss_probes(&self) -> u64 {
        self.loss_probes
    }

    /// A copy of `seq` left at `now`, the scoreboard's `order`-th transmission.
    pub(super) fn on_sent(&mut self, seq: u64, order: u64, now: SimTime) {
        self.sent.push_back((seq, order, now));
        // As the scoreboard's: the back's next entries were written a round trip ago.
        crate::net::prefetch::prefetch_past_back(&self.sent, SENT_PREFETCH_AHEAD);
    }

    /// RACK on an ACK that newly delivered `delivered` (the latest-sent segment it covers), or
    /// on the reorder timer (`None`): marks overdue copies lost. `in_recovery` is fast recovery
    /// or the Loss state. Returns the segments marked and the reorder timer's deadline, if one
    /// is to be armed.
    pub(super) fn mark_losses(
        &mut self,
        now: SimTime,
        delivered: Option<LatestSent>,
        in_recovery: bool,
        rtt: &RttEstimator,
        sb: &mut Scoreboard,
    ) -> (u64, Option<SimTime>) {
        let reo_wnd =
            Rack::reo_wnd(in_recovery, sb.sacked_out(), self.dupthresh, rtt.min_rtt(), rtt.srtt());
        if let Some(d) = delivered {
            self.on_delivered(d, now, rtt.min_rtt());
        }
        let (marked, deadline) = self.detect_loss(now, reo_wnd, sb);
        // As the scoreboard does: the next ACKs walk on from the front, written a round trip ago.
        if let Some(ahead) = self.sent.get(SENT_PREFETCH_AHEAD) {
            crate::net::prefetch::prefetch(ahead);
        }
        (marked, deadline)
    }

    /// RFC 8985 §6.2 step 2: the ACK newly delivered `delivered`; a retransmitted segment's
    /// delivery may be the original's, so it counts only if the RTT it implies is plausible.
    pub(super) fn on_delivered(
        &mut self,
        delivered: LatestSent,
        now: SimTime,
        min_rtt: Option<SimDuration>,
    ) {
        let rtt = now - delivered.sent_at;
        if delivered.retransmitted && min_rtt.is_some_and(|m| rtt < m) {
            return;
        }
        if self.latest.is_none_or(|l| delivered.order > l.order) {
            self.latest = Some(delivered);
            self.rtt = rtt;
        }
    }

    /// RFC 8985 §6.2 step 4 without reordering detection: no window once loss is certain.
    pub(super) fn reo_wnd(
        in_recovery: bool,
        sacked_out: u64,
        dupthresh: u32,
        min_rtt: Option<SimDuration>,
        srtt: Option<SimDuration>,
    ) -> SimDuration {
        if in_recovery || sacked_out >= dupthresh as u64 {
            return SimDuration::ZERO;
        }
        match (min_rtt, srtt) {
            (Some(m), Some(s)) => SimDuration(m.as_nanos() / 4).min(s),
            _ => SimDuration::ZERO,
        }
    }

    /// RFC 8985 §6.2 step 5: marks lost every in-flight copy sent before the latest delivered
    /// one whose deadline has passed. Returns the segments marked and the reorder-timer deadline
    /// of the first copy not yet overdue, if any.
    pub(super) fn detect_loss(
        &mut self,
        now: SimTime,
        reo_wnd: SimDuration,
        sb: &mut Scoreboard,
    ) -> (u64, Option<SimTime>) {
        let Some(latest) = self.latest else { return (0, None) };
        let mut marked = 0;
        while let Some(&(seq, order, sent_at)) = self.sent.front() {
            if !sb.copy_in_flight(seq, order) {
                self.sent.pop_front();
                continue;
            }
            if order >= latest.order {
                break;
            }
            let deadline = sent_at + self.rtt + reo_wnd;
            if deadline > now {
                return (marked, Some(deadline));
            }
            sb.mark_copy_lost(seq);
            marked += 1;
            self.sent.pop_front();
        }
        (marked, None)
    }

    /// RFC 8985 §7.2: when to send a loss probe, `rto_left` being what the RTO timer still has.
    pub(super) fn probe_timeout(
        srtt: Option<SimDuration>,
        packets_out: u64,
        rto_left: SimDuration,
    ) -> SimDuration {
        let pto = match srtt {
            None => PTO_WITHOUT_SRTT,
            Some(s) => {
                s.saturating_mul(2)
                    + if packets_out == 1 { WORST_CASE_DELAYED_ACK } else { PTO_SLACK }
            }
        };
        pto.min(rto_left)
    }

    /// RFC 8985 §7.2: a probe may be scheduled with data outstanding and no probe in flight, in
    /// a state that allows it (`state_allows`, see `LossRecovery::allows_tail_probe`).
    fn may_probe(&self, state_allows: bool, packets_out: u64) -> bool {
        self.probe.is_none() && state_allows && packets_out > 0
    }

    /// After an ACK or a burst of new data: when the probe timer is to fire, `None` if no probe
    /// may be scheduled. The PTO is capped at what the RTO timer (due at `rto_at`) has left.
    pub(super) fn probe_deadline(
        &self,
        now: SimTime,
        state_allows: bool,
        sb: &Scoreboard,
        rtt: &RttEstimator,
        rto_at: Option<SimTime>,
    ) -> Option<SimTime> {
        if !self.may_probe(state_allows, sb.packets_out()) {
            return None;
        }
        let rto_left = rto_at.map_or(rtt.rto(), |t| t.saturating_since(now));
        Some(now + Rack::probe_timeout(rtt.srtt(), sb.packets_out(), rto_left))
    }

    /// RFC 8985 §7.3: what a due probe sends, `None` if none may be sent now. One new segment if
    /// the application has one (`new_data`), whatever cwnd says, else the highest outstanding
    /// segment again, unless it is SACKed (nothing to learn from resending it) or already
    /// marked lost.
    pub(super) fn probe_segment(
        &self,
        state_allows: bool,
        sb: &Scoreboard,
        new_data: impl FnOnce() -> bool,
    ) -> Option<ProbeSegment> {
        if !self.may_probe(state_allows, sb.packets_out()) {
            return None;
        }
        let last = sb.high_tx() - 1;
        if new_data() {
            Some(ProbeSegment { seq: sb.high_tx(), retransmission: false })
        } else if !(sb.is_sacked(last) || sb.is_lost(last)) {
            Some(ProbeSegment { seq: last, retransmission: true })
        } else {
            None
        }
    }

    /// A loss probe left (`retransmission`: the last segment again); SND.MAX is now `high_seq`.
    pub(super) fn on_probe_sent(&mut self, high_seq: u64, retransmission: bool) {
        self.loss_probes += 1;
        self.probe = Some(TailProbe { high_seq, retransmission });
    }

    /// A fast recovery or timeout answers for the tail too: the probe is forgotten.
    pub(super) fn cancel_probe(&mut self) {
        self.probe = None;
    }

    /// RFC 8985 §7.4 (Linux tcp_process_tlp_ack): an ACK took SND.UNA to `una`
    /// (`una_advanced`: it moved). Once the probe is acknowledged it is forgotten; a
    /// retransmitted probe acknowledged by an advancing ACK without D-SACK repaired a loss, which
    /// calls for a window reduction (true).
    pub(super) fn probe_repaired_loss(
        &mut self,
        una: u64,
        una_advanced: bool,
        dsack: bool,
    ) -> bool {
        let Some(probe) = self.probe.filter(|p| una >= p.high_seq) else { return false };
        self.probe = None;
        probe.retransmission && !dsack && una_advanced
    }

    /// Forgets every transmission (a retransmission timeout marks them all lost anyway).
    pub(super) fn on_timeout(&mut self) {
        self.sent.clear();
        self.probe = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    /// Segments 0..n sent at 0, 1, 2 … ms.
    fn sent(n: u64) -> (Rack, Scoreboard) {
        let (mut r, mut sb) = (Rack::new(3), Scoreboard::new());
        for i in 0..n {
            sb.on_sent_new(ms(i));
            r.on_sent(i, sb.order_of(i), ms(i));
        }
        (r, sb)
    }

    fn deliver(r: &mut Rack, sb: &mut Scoreboard, seq: u64, now: SimTime) {
        let mut acc = Default::default();
        sb.sack(seq, seq + 1, &mut acc);
        r.on_delivered(acc.latest.unwrap(), now, Some(SimDuration::from_millis(40)));
    }

    #[test]
    fn a_segment_is_lost_one_rtt_plus_reo_wnd_after_it_was_sent_if_a_later_one_arrived() {
        let (mut r, mut sb) = sent(5);
        // Segment 3 (sent at 3 ms) is SACKed at 43 ms: RACK.rtt = 40 ms.
        deliver(&mut r, &mut sb, 3, ms(43));
        let reo = SimDuration::from_millis(10);
        // Segment 0 is overdue at 0 + 40 + 10 = 50 ms; not before.
        assert_eq!(r.detect_loss(ms(43), reo, &mut sb), (0, Some(ms(50))));
        assert_eq!(r.detect_loss(ms(51), reo, &mut sb), (2, Some(ms(52))));
        assert!(sb.is_lost(0) && sb.is_lost(1) && !sb.is_lost(2));
        // Segment 4 was sent after the delivered one: never marked by it.
        assert_eq!(r.detect_loss(ms(100), reo, &mut sb), (1, None));
        assert!(sb.is_lost(2) && !sb.is_lost(4));
    }

    #[test]
    fn a_lost_retransmission_is_detected_when_a_later_transmission_is_delivered() {
        let (mut r, mut sb) = sent(3);
        deliver(&mut r, &mut sb, 2, ms(42));
        assert_eq!(r.detect_loss(ms(42), SimDuration::ZERO, &mut sb).0, 2);
        // Segment 0 is resent at 50 ms and lost again; new segment 3 leaves at 60 ms and arrives.
        sb.on_retransmitted(0, ms(50));
        r.on_sent(0, sb.order_of(0), ms(50));
        sb.on_sent_new(ms(60));
        r.on_sent(3, sb.order_of(3), ms(60));
        deliver(&mut r, &mut sb, 3, ms(100));
        assert_eq!(r.detect_loss(ms(100), SimDuration::ZERO, &mut sb).0, 1);
        assert!(sb.is_lost(0) && sb.retrans_out() == 0, "the lost copy no longer counts in pipe");
        assert_eq!(sb.next_retransmission(), Some(0));
    }

    #[test]
    fn a_retransmission_delivered_faster_than_min_rtt_is_the_original_and_ignored() {
        let mut r = Rack::new(3);
        let orig = LatestSent { order: 9, sent_at: ms(100), seq: 7, retransmitted: true };
        r.on_delivered(orig, ms(110), Some(SimDuration::from_millis(40)));
        assert!(r.latest.is_none());
        r.on_delivered(orig, ms(150), Some(SimDuration::from_millis(40)));
        assert_eq!((r.latest, r.rtt), (Some(orig), SimDuration::from_millis(50)));
    }

    #[test]
    fn probe_timeout_is_two_srtt_with_slack_for_a_delayed_ack_of_a_single_segment() {
        let srtt = Some(SimDuration::from_millis(50));
        let long = SimDuration::from_secs(10);
        assert_eq!(Rack::probe_timeout(srtt, 5, long), SimDuration::from_millis(102));
        assert_eq!(Rack::probe_timeout(srtt, 1, long), SimDuration::from_millis(300));
        assert_eq!(
            Rack::probe_timeout(srtt, 5, SimDuration::from_millis(80)),
            SimDuration::from_millis(80)
        );
        assert_eq!(Rack::probe_timeout(None, 5, long), SimDuration::from_secs(1));
    }

    #[test]
    fn reordering_window_closes_in_recovery_and_after_dupthresh_sacks() {
        let (m, s) = (Some(SimDuration::from_millis(40)), Some(SimDuration::from_millis(60)));
        assert_eq!(Rack::reo_wnd(false, 1, 3, m, s), SimDuration::from_millis(10));
        assert_eq!(Rack::reo_wnd(false, 3, 3, m, s), SimDuration::ZERO);
        assert_eq!(Rack::reo_wnd(true, 0, 3, m, s), SimDuration::ZERO);
    }

    mod in_a_connection {
        use crate::tcp::config::{Recovery, TcpConfig};
        use crate::tcp::testutil::{file, ms, Pair};
        use crate::time::SimDuration;
        use crate::transport::Transport;

        fn pair(rack_tlp: bool, segments: u64, drops: &[u64]) -> Pair {
            let cfg = TcpConfig { rack_tlp, recovery: Recovery::Sack, ..TcpConfig::default() };
            Pair::new(cfg, file(segments), SimDuration::from_millis(20))
                .dropping_first_transmission_of(drops)
        }

        #[test]
        fn a_tail_loss_is_repaired_by_a_probe_about_two_rtts_later_not_by_the_timer() {
            // 20 segments: 10, then 10 more a round trip later; the last two are lost. (With a
            // single segment outstanding the probe waits for a delayed ACK too, 2·SRTT + 200 ms,
            // capped at the RTO's deadline: see the next test.)
            let mut p = pair(true, 20, &[18, 19]);
            let done = p.run_to_completion(ms(10_000));
            let sent = p.sent.iter().find(|t| t.seq == 19 && !t.retransmit).unwrap().at;
            let probe = p.sent.iter().find(|t| t.seq == 19 && t.retransmit).unwrap().at;
            // The last ACK (for 17) returns one RTT (40 ms) after 19 left; the probe follows
            // 2·SRTT + 2 ms later. The RTO would have waited SRTT + 200 ms from that ACK.
            assert_eq!(probe - sent, SimDuration::from_millis(40 + 82));
            assert_eq!(p.sender.probe().timeouts, 0);
            // The probe's SACK shows 18 lost: fast recovery, not a timeout.
            assert_eq!((p.sender.probe().fast_recoveries, p.sender.probe().loss_probes), (1, 1));
            assert!(done < probe + SimDuration::from_millis(100), "done at {done}");
            // Without RACK-TLP the same losses cost a timeout.
            let mut q = pair(false, 20, &[18, 19]);
            q.run_to_completion(ms(10_000));
            assert_eq!(q.sender.probe().timeouts, 1);
        }

        #[test]
        fn a_probe_due_at_the_rto_deadline_takes_the_timeouts_place() {
            // 11 segments: the 11th leaves alone after the first ACK and is lost. With one segment
            // outstanding the PTO (2·SRTT + 200 ms) is capped at the RTO still to run, so both
            // are due at once; Linux keeps one timer for both and sends the probe (a
            // retransmission of the last segment), with no timeout, backoff or loss of cwnd.
            let mut p = pair(true, 11, &[10]);
            p.run_to_completion(ms(10_000));
            let sent = p.sent.iter().find(|t| t.seq == 10 && !t.retransmit).unwrap().at;
            let probe = p.sent.iter().find(|t| t.seq == 10 && t.retransmit).unwrap().at;
            assert!(
                probe - sent >= SimDuration::from_millis(200),
                "probe {} after the original",
                probe - sent
            );
            let pr = p.sender.probe();
            assert_eq!((pr.timeouts, pr.loss_probes), (0, 1));
            // The same loss without RACK-TLP is a timeout.
            let mut q = pair(false, 11, &[10]);
            q.run_to_completion(ms(10_000));
            assert_eq!(q.sender.probe().timeouts, 1);
        }

        #[test]
        fn a_lost_retransmission_is_detected_by_later_deliveries_not_by_the_timer() {
            let run = |rack_tlp| {
                let mut p = pair(rack_tlp, 300, &[40]).dropping_first_retransmission_of(&[40]);
                p.run_to_completion(ms(60_000));
                p
            };
            let p = run(true);
            assert_eq!(p.retransmissions().iter().filter(|&&s| s == 40).count(), 2);
            assert_eq!(p.sender.probe().timeouts, 0);
            assert_eq!(p.sender.probe().fast_recoveries, 1, "one episode repairs both losses");
            // The scoreboard alone (RFC 6675) waits for the retransmission timer.
            let q = run(false);
            assert_eq!(q.sender.probe().timeouts, 1);
        }
    }
}
