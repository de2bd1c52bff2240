//! What packets carry above the network layer, as the network, the transports and the packet
//! captures all see it: the transport header of each protocol ccarena models, their sizes on the
//! wire, and the ICMP message a router sends. It sits below `net`, `tcp`, `dccp` and `udp`, so
//! the network layer handles packets without depending on any transport's logic (the headers
//! are plain data; what they mean is the transports' business).

pub mod dccp;
pub mod tcp;

use crate::time::SimTime;
use dccp::DccpHeader;
use tcp::TcpAck;

/// Bytes of IPv4 (20) + UDP (8) headers.
pub const UDP_IP_HEADER: u32 = 28;

/// Why the router sent the Source Quench.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QuenchCode {
    /// The packet was dropped (RFC 792's only code).
    Dropped = 0,
    /// RED chose the packet for an early drop and kept it (seed 004 §3.2).
    CongestionExperienced = 1,
}

/// What the packet carries; sequence numbers count segments (packets), as in ns-2 and the
/// window formulas of the literature.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Header {
    /// A TCP data segment.
    TcpData {
        seq: u64,
        /// Payload bytes (the MSS except for a file's last segment).
        len: u32,
        retransmit: bool,
        /// ECN-capable transport codepoint set (RFC 3168).
        ect: bool,
        /// Congestion Window Reduced: the sender answered an ECN-Echo (RFC 3168 §6.1.2).
        cwr: bool,
        /// TSval of the timestamp option (RFC 7323), milliseconds; `None` without timestamps.
        ts: Option<u32>,
    },
    /// A pure TCP acknowledgement.
    TcpAck(TcpAck),
    /// A connection request (`reply == false`, SYN) or its answer (SYN-ACK), RFC 9293 §3.5.
    TcpSyn {
        reply: bool,
        /// TSval (RFC 7323), milliseconds; `None` without timestamps.
        ts: Option<u32>,
        /// TSecr: a SYN-ACK echoes the SYN's TSval.
        tsecr: Option<u32>,
    },
    /// A UDP datagram.
    Udp { seq: u64, len: u32 },
    /// ICMP Source Quench from a router to the source of a packet it dropped or chose to drop
    /// (RFC 792; see [`crate::net::icmp`]).
    IcmpSourceQuench {
        code: QuenchCode,
        /// The quoted packet's sequence number (an ACK's cumulative ACK number).
        seq: u64,
        /// The quoted packet carried data (sender to receiver) rather than an ACK.
        of_data: bool,
        /// When the quoted copy was sent (stands for its IP identification).
        quoted_sent_at: SimTime,
    },
    /// A DCCP packet of either direction (RFC 4340; see [`dccp`]).
    Dccp(DccpHeader),
}

impl Header {
    /// True for packets that carry application data (what flow statistics count).
    pub fn is_data(&self) -> bool {
        match self {
            Header::TcpData { .. } | Header::Udp { .. } => true,
            Header::TcpAck(_) | Header::TcpSyn { .. } | Header::IcmpSourceQuench { .. } => false,
            Header::Dccp(h) => h.kind.is_data(),
        }
    }
    /// True for packets travelling from the flow's sender to its receiver (data, and DCCP's
    /// client-side control packets); false for acknowledgements and other replies.
    pub fn to_receiver(&self) -> bool {
        match self {
            Header::TcpData { .. } | Header::Udp { .. } => true,
            Header::TcpSyn { reply, .. } => !reply,
            Header::TcpAck(_) | Header::IcmpSourceQuench { .. } => false,
            Header::Dccp(h) => h.from_client,
        }
    }
    /// Which of its flow's endpoints the packet is delivered to: the receiver for data and the
    /// other packets from the sender's side (DCCP's client-side Request, Ack, Close), the sender
    /// for replies; a Source Quench goes to the source of the packet it quotes (the sender for
    /// data, the receiver for an ACK).
    pub fn delivered_to_receiver(&self) -> bool {
        match self {
            Header::IcmpSourceQuench { of_data, .. } => !of_data,
            h => h.is_data() || h.to_receiver(),
        }
    }
    /// Application payload bytes.
    pub fn payload(&self) -> u32 {
        match *self {
            Header::TcpData { len, .. } | Header::Udp { len, .. } => len,
            Header::TcpAck(_) | Header::TcpSyn { .. } | Header::IcmpSourceQuench { .. } => 0,
            Header::Dccp(h) => {
                if h.kind.is_data() {
                    h.len
                } else {
                    0
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::tcp::{SackBlocks, TcpAck};

    #[test]
    fn packets_go_to_the_endpoint_that_handles_them() {
        let data = Header::TcpData {
            seq: 1,
            len: 1460,
            retransmit: false,
            ect: false,
            cwr: false,
            ts: None,
        };
        let ack = Header::TcpAck(TcpAck {
            ack: 1,
            tsecr: None,
            wnd: 10,
            ece: false,
            dsack: false,
            sack: SackBlocks::default(),
        });
        let quench = |of_data| Header::IcmpSourceQuench {
            code: QuenchCode::Dropped,
            seq: 1,
            of_data,
            quoted_sent_at: SimTime::ZERO,
        };
        let to_receiver = [
            ("data", data, true),
            ("UDP", Header::Udp { seq: 0, len: 1000 }, true),
            ("SYN", Header::TcpSyn { reply: false, ts: None, tsecr: None }, true),
            ("ACK", ack, false),
            ("SYN-ACK", Header::TcpSyn { reply: true, ts: None, tsecr: None }, false),
            ("quench about data", quench(true), false),
            ("quench about an ACK", quench(false), true),
        ];
        for (what, header, expected) in to_receiver {
            assert_eq!(header.delivered_to_receiver(), expected, "{what}");
        }
    }
}
