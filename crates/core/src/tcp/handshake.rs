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

use super::receiver::{ts_clock, ts_echo_rtt};
use crate::net::packet::Packet;
use crate::time::{SimDuration, SimTime};
use crate::transport::Addr;
use crate::wire::tcp::TCP_SYN_SIZE;
use crate::wire::Header;

/// SYN retransmissions before the connection is abandoned (Linux `tcp_syn_retries` = 6).
const SYN_RETRIES: u32 = 6;

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Handshake {
    /// When the latest SYN left.
    sent_at: Option<SimTime>,
    /// SYNs sent again after a timeout.
    retransmits: u32,
    /// A SYN should leave at the next opportunity.
    due: bool,
    /// The SYN-ACK arrived.
    established: bool,
}

/// What the handshake asks of a transmit opportunity.
pub(super) enum SynStep {
    /// The connection is established: data may flow.
    Established,
    /// A SYN is out and its timer runs: nothing may be sent.
    Wait,
    /// Send this SYN and arm the SYN timer one RTO ahead.
    Send(Packet),
}

/// What the SYN-ACK tells the sender.
pub(super) struct SynAck {
    /// The handshake's RTT, if it measured one.
    pub(super) rtt_sample: Option<SimDuration>,
    /// More than one SYN was resent: the connection starts with a window of one segment.
    pub(super) window_of_one: bool,
}

impl Handshake {
    /// SYNs resent after a timeout (each one a timeout of the connection).
    pub(super) fn retransmits(&self) -> u32 {
        self.retransmits
    }

    /// A transmit opportunity at `now` for the connection `addr`.
    pub(super) fn poll(&mut self, now: SimTime, addr: Addr, timestamps: bool) -> SynStep {
        if self.established {
            return SynStep::Established;
        }
        if self.sent_at.is_some() && !self.due {
            return SynStep::Wait;
        }
        self.due = false;
        self.sent_at = Some(now);
        let ts = timestamps.then(|| ts_clock(now));
        SynStep::Send(Packet {
            flow: addr.flow,
            src: addr.local,
            dst: addr.remote,
            size: TCP_SYN_SIZE,
            sent_at: now,
            ce: false,
            header: Header::TcpSyn { reply: false, ts, tsecr: None },
        })
    }

    /// The SYN timer fired: true if the SYN is to be resent (the sender backs the RTO off),
    /// false once established or after `SYN_RETRIES` (abandoned: the flow never sends data).
    pub(super) fn on_timeout(&mut self) -> bool {
        if self.established || self.retransmits >= SYN_RETRIES {
            return false;
        }
        self.retransmits += 1;
        self.due = true;
        true
    }

    /// The SYN-ACK arrived: the connection is open. `None` if it already was.
    pub(super) fn on_syn_ack(&mut self, now: SimTime, tsecr: Option<u32>) -> Option<SynAck> {
        if self.established {
            return None;
        }
        self.established = true;
        let rtt_sample = match (self.retransmits, self.sent_at, tsecr) {
            (0, Some(sent), _) => Some(now - sent),
            // RFC 7323: the echo names the SYN that got through.
            (_, _, Some(ts)) => Some(ts_echo_rtt(now, ts)),
            _ => None,
        };
        Some(SynAck { rtt_sample, window_of_one: self.retransmits > 1 })
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
        assert_eq!(p.sender.rtt_estimator().srtt(), Some(SimDuration::from_millis(60)));
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
        assert_eq!(p.sender.rtt_estimator().srtt(), None);
        // With timestamps the echo names the SYN that got through.
        let mut q = pair(true, 1);
        q.run_until(ms(1060));
        assert_eq!(q.sender.rtt_estimator().srtt(), Some(SimDuration::from_millis(60)));
        assert_eq!(q.sender.rtt_estimator().backoff(), 0, "a valid sample clears the backoff");
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
