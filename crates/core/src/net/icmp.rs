//! ICMP Source Quench (RFC 792, type 4), as seed 004 uses it: a router that drops a packet
//! (code 0), or whose RED queue chose a packet for an early drop but kept it (code 1,
//! "congestion experienced", seed 004 §3.2), sends a Source Quench back to the packet's source.
//!
//! ```text
//! size on the wire = IP header 20 + ICMP header 8 (type, code, checksum, unused)
//!                  + quoted IP header 20 + first 64 bits of the quoted datagram 8   = 56 bytes
//! ```
//! The quoted 64 bits of a TCP segment are its ports and sequence number, enough for the source
//! to find the connection and the segment (seed 004 §3.1). The message is an ordinary packet: it
//! is routed from the router to the source through the network, and can be queued or lost.
//!
//! Not implemented / deviates:
//! - No ICMP error is sent about an ICMP error (RFC 1122 §3.2.2), and a host does not quench
//!   itself: a packet dropped at its own source node's interface produces no message.
//! - No rate limiting of ICMP generation (RFC 1812 §4.3.2.8 allows it; seed 004 has none).
//! - The quoted `sent_at` stands for the IP identification field: it lets the source tell which
//!   copy of a retransmitted segment was dropped.

use crate::net::packet::{NodeId, Packet};
use crate::time::SimTime;
use crate::wire::{Header, QuenchCode};

/// Bytes of a Source Quench on the wire (RFC 792: IP 20 + ICMP 8 + quoted IP header 20 + 8).
pub const SOURCE_QUENCH_BYTES: u32 = 56;

/// The Source Quench a router at `at` sends at `now` about `orig`, if one is due: never about an
/// ICMP message, and never from the packet's own source node.
pub fn source_quench(now: SimTime, at: NodeId, orig: &Packet, code: QuenchCode) -> Option<Packet> {
    if at == orig.src {
        return None;
    }
    let (seq, of_data) = match orig.header {
        Header::TcpData { seq, .. } | Header::Udp { seq, .. } => (seq, true),
        Header::TcpAck(a) => (a.ack, false),
        // No quench about ICMP, nor about DCCP (RFC 4340 defines no reaction to Source Quench),
        // nor about a connection request (no connection to slow down yet).
        Header::IcmpSourceQuench { .. } | Header::Dccp(_) | Header::TcpSyn { .. } => return None,
    };
    Some(Packet {
        flow: orig.flow,
        src: at,
        dst: orig.src,
        size: SOURCE_QUENCH_BYTES,
        sent_at: now,
        ce: false,
        header: Header::IcmpSourceQuench { code, seq, of_data, quoted_sent_at: orig.sent_at },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::FlowId;

    fn data() -> Packet {
        Packet {
            flow: FlowId(2),
            src: NodeId(0),
            dst: NodeId(5),
            size: 1500,
            sent_at: SimTime::from_millis(3),
            ce: false,
            header: Header::TcpData {
                seq: 41,
                len: 1460,
                retransmit: false,
                ect: false,
                cwr: false,
                ts: None,
            },
        }
    }

    #[test]
    fn a_quench_goes_from_the_router_to_the_source_quoting_the_segment() {
        let sq = source_quench(SimTime::from_millis(9), NodeId(3), &data(), QuenchCode::Dropped)
            .unwrap();
        assert_eq!(
            (sq.flow, sq.src, sq.dst, sq.size, sq.sent_at),
            (FlowId(2), NodeId(3), NodeId(0), 56, SimTime::from_millis(9))
        );
        assert_eq!(
            sq.header,
            Header::IcmpSourceQuench {
                code: QuenchCode::Dropped,
                seq: 41,
                of_data: true,
                quoted_sent_at: SimTime::from_millis(3)
            }
        );
        assert!(!sq.header.is_data());
    }

    #[test]
    fn no_quench_about_a_quench_nor_from_the_source_itself() {
        let sq = source_quench(SimTime::ZERO, NodeId(3), &data(), QuenchCode::Dropped).unwrap();
        assert_eq!(source_quench(SimTime::ZERO, NodeId(4), &sq, QuenchCode::Dropped), None);
        assert_eq!(source_quench(SimTime::ZERO, NodeId(0), &data(), QuenchCode::Dropped), None);
    }
}
