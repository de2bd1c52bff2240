//! The three-way handshake as the client sees it (RFC 9293 §3.5): a SYN at the flow's start,
//! retransmitted on the RTO timer with backoff (initial RTO 1 s, RFC 6298 §2.1), the SYN-ACK's
//! RTT the first sample, data from then on.
//!
//! ```text
//! start ── SYN ──▶            SYN-ACK ◀── : RTT sample = now − SYN sent (Karn: first SYN only;
//!   │ no SYN-ACK within RTO:               with timestamps, the echo of the SYN that got through)
//!   └─ back off, resend (at most 6 times, Linux tcp_syn_retries), then give up
//! after more than one SYN retransmission: cwnd = 1 (Linux tcp_init_transfer, RFC 5681 §3.1)
//! ```
//!
//! Deviations: the client's third segment (the pure ACK) is folded into its first data segment;
//! no MSS or window-scale negotiation (both ends know the configuration).

use super::receiver::ts_clock;
use super::sender::TcpSender;
use crate::net::packet::Packet;
use crate::time::{SimDuration, SimTime};
use crate::wire::tcp::TCP_SYN_SIZE;
use crate::wire::Header;

/// SYN retransmissions before the connection is abandoned (Linux `tcp_syn_retries` = 6).
const SYN_RETRIES: u32 = 6;

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Handshake {
    /// When the latest SYN left.
    sent_at: Option<SimTime>,
    /// SYNs sent again after a timeout.
    pub(super) retransmits: u32,
    /// A SYN should leave at the next opportunity.
    due: bool,
    /// The SYN-ACK arrived.
    pub(super) established: bool,
}

impl TcpSender {
    /// While the handshake is under way: `Some(SYN)` if one is due, `Some(None)` if the sender
    /// must wait; `None` once the connection is established (or without a handshake).
    pub(super) fn poll_handshake(&mut self, now: SimTime) -> Option<Option<Packet>> {
        let hs = self.handshake.as_mut().filter(|h| !h.established)?;
        if hs.sent_at.is_some() && !hs.due {
            return Some(None);
        }
        hs.due = false;
        hs.sent_at = Some(now);
        self.timers.syn.set(now + self.rtt.rto());
        let ts = self.cfg.timestamps.then(|| ts_clock(now));
        let header = Header::TcpSyn { reply: false, ts, tsecr: None };
        Some(Some(Packet {
            flow: self.addr().flow,
            src: self.addr().local,
            dst: self.addr().remote,
            size: TCP_SYN_SIZE,
            sent_at: now,
            ce: false,
            header,
        }))
    }

    /// The SYN timer fired: back off and resend, or give up after `SYN_RETRIES`.
    pub(super) fn on_syn_timeout(&mut self) {
        let Some(hs) = self.handshake.as_mut().filter(|h| !h.established) else { return };
        if hs.retransmits >= SYN_RETRIES {
            return; // abandoned: the flow never sends data
        }
        hs.retransmits += 1;
        hs.due = true;
        self.rtt.back_off();
        self.timeouts += 1;
    }

    /// The SYN-ACK arrived: take the handshake's RTT sample and open the connection.
    pub(super) fn on_syn_ack(&mut self, now: SimTime, tsecr: Option<u32>) {
        let Some(hs) = self.handshake.as_mut().filter(|h| !h.established) else { return };
        hs.established = true;
        let retransmits = hs.retransmits;
        let sample = match (retransmits, hs.sent_at, tsecr) {
            (0, Some(sent), _) => Some(now - sent),
            // RFC 7323: the echo names the SYN that got through (millisecond clock, at least 1).
            (_, _, Some(ts)) => {
                Some(SimDuration::from_millis(u64::from(ts_clock(now).wrapping_sub(ts).max(1))))
            }
            _ => None,
        };
        self.timers.syn.clear();
        if let Some(r) = sample {
            self.on_rtt_sample(now, r);
        }
        if retransmits > 1 {
            self.st.cwnd = 1.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::tcp::config::TcpConfig;
    use crate::tcp::testutil::{file, ms, Pair};
    use crate::time::SimDuration;
    use crate::transport::Transport;

    fn pair(timestamps: bool, syn_drops: u32) -> Pair {
        let cfg = TcpConfig { handshake: true, timestamps, ..TcpConfig::default() };
        Pair::new(cfg, file(50), SimDuration::from_millis(30)).dropping_syns(syn_drops)
    }

    #[test]
    fn the_first_rtt_sample_is_the_handshake_and_equals_the_path_rtt() {
        let mut p = pair(false, 0);
        p.run_until(ms(60));
        assert_eq!(p.syns, vec![ms(0)]);
        assert_eq!(p.sender.rtt.srtt(), Some(SimDuration::from_millis(60)));
        // Data follows the SYN-ACK at once, with the initial window.
        assert_eq!(p.sent.len(), 10);
        assert!(p.sent.iter().all(|t| t.at == ms(60)));
    }

    #[test]
    fn a_lost_syn_is_resent_after_the_one_second_initial_rto() {
        let mut p = pair(false, 1);
        p.run_until(ms(1060));
        assert_eq!(p.syns, vec![ms(0), ms(1000)]);
        // Karn: the SYN-ACK of a resent SYN gives no sample without timestamps.
        assert_eq!(p.sender.rtt.srtt(), None);
        // With timestamps the echo names the SYN that got through.
        let mut q = pair(true, 1);
        q.run_until(ms(1060));
        assert_eq!(q.sender.rtt.srtt(), Some(SimDuration::from_millis(60)));
        assert_eq!(q.sender.rtt.backoff(), 0, "a valid sample clears the backoff");
        assert_eq!(
            q.sender.cc_state().cwnd,
            10.0,
            "one SYN retransmission keeps the initial window"
        );
    }

    #[test]
    fn two_lost_syns_back_off_and_leave_a_window_of_one() {
        let mut p = pair(true, 2);
        p.run_until(ms(3060));
        assert_eq!(p.syns, vec![ms(0), ms(1000), ms(3000)]);
        assert_eq!(
            p.sent.len(),
            1,
            "Linux tcp_init_transfer: cwnd = 1 after more than one SYN retransmission"
        );
        assert_eq!(p.sender.probe().timeouts, 2);
    }
}
