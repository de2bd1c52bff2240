//! Loss recovery as BBR sees it (the "loss recovery" lines of the overview in mod.rs; Linux
//! `bbr_save_cwnd`, `bbr_set_cwnd_to_recover_or_restore`): the transport's recovery state as
//! BBR's callbacks reveal it, packet conservation in the first round of fast recovery, and the
//! window saved before recovery or PROBE_RTT cuts it and restored after.
//!
//! Deviations from Linux `tcp_bbr.c`:
//! - Losses are counted as the transport retransmits (see `tcp/rate_sample.rs`); after a timeout
//!   they do not cut cwnd again, since Linux marks them all lost at the timeout.
//! - Recovery without SACK (`reno`, `newreno`, `tahoe`): the transport's pipe keeps the segments
//!   duplicate ACKs announced (it inflates cwnd instead, RFC 5681 §3.2), where Linux counts them
//!   out of flight (`tcp_add_reno_sack`). BBR's window replaces that inflation, so a NewReno
//!   recovery of many holes sends little new data and can take one round trip per hole; SACK
//!   (the default, and Linux's) is the recovery BBR is meant for.

use super::{Bbr, Mode};
use crate::cc::RateSample;

/// The transport's loss-recovery state as BBR tracks it from its callbacks (Linux
/// `icsk_ca_state`, reduced to what `bbr_set_cwnd_to_recover_or_restore` distinguishes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CaView {
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

impl Bbr {
    /// Notes the window to restore after recovery or PROBE_RTT (Linux `bbr_save_cwnd`).
    pub(super) fn save_cwnd(&mut self) {
        let cwnd = self.cwnd;
        self.prior_cwnd = if !self.prev_ca.recovering() && self.mode != Mode::ProbeRtt {
            cwnd
        } else {
            self.prior_cwnd.max(cwnd)
        };
    }

    /// Packet conservation in the first round of fast recovery, restore after it (Linux
    /// `bbr_set_cwnd_to_recover_or_restore`). Returns the window and whether it conserves.
    pub(super) fn recover_or_restore(&mut self, rs: &RateSample) -> (f64, bool) {
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
}

#[cfg(test)]
mod tests {
    use crate::cc::bbr::synthetic_path::Path;
    use crate::cc::{CongestionControl, CongestionKind};
    use crate::time::SimDuration;

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
}
