//! Proportional Rate Reduction (RFC 6937): during fast recovery the window follows the data
//! delivered, so that sending slows smoothly to ssthresh instead of stopping for half an RTT
//! (cwnd = ssthresh at once) or bursting (when many segments were lost).
//!
//! ```text
//! on entry:   RecoverFS = cwnd before the reduction, prr_delivered = prr_out = 0
//! per ACK:    prr_delivered += DeliveredData
//!   pipe > ssthresh (proportional part):
//!             sndcnt = ⌈prr_delivered · ssthresh / RecoverFS⌉ − prr_out
//!   else (slow-start reduction bound, SSRB):
//!             sndcnt = min(ssthresh − pipe, max(prr_delivered − prr_out, DeliveredData) + 1)
//!                      (the +1 only for an ACK advancing SND.UNA with no new loss marked)
//!   sndcnt ≥ 1 until the first retransmission is out;   cwnd = pipe + sndcnt
//! ```
//!
//! RecoverFS is the window before the cut as in Linux (`tp->prior_cwnd`, `tcp_cwnd_reduction`);
//! RFC 6937 §3 uses FlightSize, equal to it when the sender was window-limited.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Prr {
    recover_fs: u64,
    delivered: u64,
    out: u64,
}

impl Prr {
    pub(super) fn start(prior_cwnd: f64) -> Prr {
        Prr { recover_fs: (prior_cwnd.floor() as u64).max(1), delivered: 0, out: 0 }
    }

    /// One segment was sent during the reduction.
    pub(super) fn on_sent(&mut self) {
        self.out += 1;
    }

    /// The window after an ACK that delivered `delivered` segments, `pipe` being what remains
    /// in flight. `una_advanced && !newly_lost` allows SSRB's extra segment.
    pub(super) fn cwnd_after_ack(
        &mut self,
        delivered: u64,
        pipe: u64,
        ssthresh: f64,
        una_advanced: bool,
        newly_lost: bool,
    ) -> Option<f64> {
        if delivered == 0 {
            return None;
        }
        self.delivered += delivered;
        let ssthresh = ssthresh.floor().max(1.0) as u64;
        let sndcnt = if pipe > ssthresh {
            let quota = (self.delivered * ssthresh).div_ceil(self.recover_fs);
            quota.saturating_sub(self.out)
        } else {
            let bonus = u64::from(una_advanced && !newly_lost);
            (ssthresh - pipe).min(self.delivered.saturating_sub(self.out).max(delivered) + bonus)
        };
        // The fast retransmission goes out whatever the proportion says.
        let sndcnt = if self.out == 0 { sndcnt.max(1) } else { sndcnt };
        Some((pipe + sndcnt) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_loss_in_a_window_of_20_sends_one_segment_per_two_delivered() {
        // RFC 6937 §4 example shape: cwnd 20, ssthresh 10, one loss: pipe starts at 19.
        let mut p = Prr::start(20.0);
        let mut pipe = 19;
        let mut sent = Vec::new();
        for _ in 0..18 {
            // Each duplicate ACK delivers one segment and takes it out of the pipe.
            pipe -= 1;
            let cwnd = p.cwnd_after_ack(1, pipe, 10.0, false, false).unwrap() as u64;
            let n = cwnd.saturating_sub(pipe);
            for _ in 0..n {
                p.on_sent();
            }
            pipe += n;
            sent.push(n);
        }
        // First ACK: the retransmission; then one segment for every other ACK.
        assert_eq!(sent[..6], [1, 0, 1, 0, 1, 0]);
        assert_eq!(sent.iter().sum::<u64>(), 9, "18 delivered × 10/20 = 9 sent");
        assert_eq!(pipe, 10, "the pipe has come down to ssthresh");
    }

    #[test]
    fn below_ssthresh_the_slow_start_bound_refills_the_pipe_at_most_one_extra_per_ack() {
        // Many losses: pipe fell to 3 with ssthresh 10.
        let mut p = Prr::start(20.0);
        p.on_sent();
        let cwnd = p.cwnd_after_ack(2, 3, 10.0, true, false).unwrap();
        // max(prr_delivered − prr_out, delivered) + 1 = max(1, 2) + 1 = 3 → cwnd = 3 + 3.
        assert_eq!(cwnd, 6.0);
        // A new loss marked by this ACK withholds the extra segment.
        let mut q = Prr::start(20.0);
        q.on_sent();
        assert_eq!(q.cwnd_after_ack(2, 3, 10.0, true, true).unwrap(), 5.0);
        // Never beyond ssthresh.
        assert_eq!(q.cwnd_after_ack(30, 3, 10.0, true, false).unwrap(), 10.0);
    }

    #[test]
    fn an_ack_that_delivers_nothing_leaves_the_window_alone() {
        assert_eq!(Prr::start(10.0).cwnd_after_ack(0, 5, 5.0, false, false), None);
    }
}
