//! Wire headers for simulated packets: IPv4 (RFC 791), TCP (RFC 9293, options of RFC 2018,
//! 7323), UDP (RFC 768), DCCP (RFC 4340 §5, Ack Vector §11.4, CCID 3 options RFC 5348 §8) and
//! ICMP Source Quench (RFC 792), with correct checksums.
//!
//! The simulator counts sequence numbers in segments; bytes on the wire are `1 + n · seg` for
//! segment `n` of a flow whose full segments carry `seg` payload bytes (the SYN takes sequence
//! number 0). Addresses and ports are synthetic but stable: node `k` is `10.a.b.c` with
//! `a.b.c = k + 1`, a flow's sender port is `10000 + flow mod 50000`, its receiver port
//! `5201` (TCP), `5001` (UDP) or `5004` (DCCP). Payload bytes are zeros.

use crate::net::packet::{FlowId, NodeId, Packet};
use crate::wire::dccp::{DccpHeader, DccpOptions, DccpType};
use crate::wire::tcp::{SackBlocks, TcpAck};
use crate::wire::Header;
use crate::wire::QuenchCode;

const PROTO_ICMP: u8 = 1;
const PROTO_TCP: u8 = 6;
const PROTO_UDP: u8 = 17;
const PROTO_DCCP: u8 = 33;

const TCP_PORT: u16 = 5201;
const UDP_PORT: u16 = 5001;
const DCCP_PORT: u16 = 5004;

/// TCP flags (RFC 9293 §3.1, RFC 3168 §6.1).
const FIN_SYN: u8 = 0x02;
const PSH: u8 = 0x08;
const ACK: u8 = 0x10;
const ECE: u8 = 0x40;
const CWR: u8 = 0x80;

/// The window scale both ends announce (Linux's for a 6 MB buffer).
const WINDOW_SCALE: u8 = 7;

/// What the encoder needs to know of a flow beyond the packet itself.
#[derive(Clone, Copy, Debug)]
pub struct FlowWire {
    /// The flow's maximum segment size (announced in its SYN).
    pub mss: u32,
    /// Payload bytes of the flow's segments: the first data packet's (its `mss` until then).
    pub seg: u32,
    /// The flow's sender and receiver nodes.
    pub ends: (NodeId, NodeId),
}

pub fn ipv4_of(node: NodeId) -> [u8; 4] {
    let v = node.0 + 1;
    [10, (v >> 16) as u8, (v >> 8) as u8, v as u8]
}

fn sender_port(flow: FlowId) -> u16 {
    10_000 + (flow.0 % 50_000) as u16
}

/// One's-complement sum of 16-bit words (RFC 1071), not yet folded.
fn sum16(bytes: &[u8]) -> u32 {
    bytes.chunks(2).map(|c| u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]))).sum()
}

fn fold(mut s: u32) -> u16 {
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    !(s as u16)
}

/// The transport checksum over the pseudo-header and `segment`; the zero payload beyond it adds
/// nothing to the sum but counts in the length.
fn transport_checksum(
    src: [u8; 4],
    dst: [u8; 4],
    proto: u8,
    segment: &[u8],
    total_len: usize,
) -> u16 {
    let pseudo = sum16(&src) + sum16(&dst) + u32::from(proto) + total_len as u32;
    fold(pseudo + sum16(segment))
}

fn put16(b: &mut Vec<u8>, v: u16) {
    b.extend_from_slice(&v.to_be_bytes());
}
fn put32(b: &mut Vec<u8>, v: u32) {
    b.extend_from_slice(&v.to_be_bytes());
}

/// Encodes `pkt` into `out` (IPv4 header, transport header and options, no payload) and returns
/// the total length on the wire, payload included.
pub fn encode(pkt: &Packet, flow: &FlowWire, ip_id: u16, out: &mut Vec<u8>) -> usize {
    out.clear();
    out.resize(20, 0);
    let (src, dst) = (ipv4_of(pkt.src), ipv4_of(pkt.dst));
    let (proto, payload) = match &pkt.header {
        Header::TcpData { .. } | Header::TcpAck(_) | Header::TcpSyn { .. } => {
            (PROTO_TCP, tcp(pkt, flow, out))
        }
        Header::Udp { len, .. } => (PROTO_UDP, udp(pkt, *len, out)),
        Header::Dccp(h) => (PROTO_DCCP, dccp(pkt, h, out)),
        Header::IcmpSourceQuench { code, seq, of_data, .. } => {
            (PROTO_ICMP, quench(pkt, flow, *code, *seq, *of_data, out))
        }
    };
    let total = out.len() + payload as usize;
    let l4_len = total - 20;
    if proto == PROTO_UDP {
        out[24..26].copy_from_slice(&(l4_len.min(65_535) as u16).to_be_bytes());
    }
    let (at, c) = match proto {
        PROTO_TCP => (16, transport_checksum(src, dst, proto, &out[20..], l4_len)),
        // RFC 768: a computed zero is sent as all ones (zero means "no checksum").
        PROTO_UDP => (
            6,
            Some(transport_checksum(src, dst, proto, &out[20..], l4_len))
                .filter(|&c| c != 0)
                .unwrap_or(0xffff),
        ),
        PROTO_DCCP => (6, transport_checksum(src, dst, proto, &out[20..], l4_len)),
        _ => (2, fold(sum16(&out[20..]))),
    };
    out[20 + at..22 + at].copy_from_slice(&c.to_be_bytes());
    // IPv4: version 4, IHL 5; ECN field (RFC 3168 §5): CE 11, ECT(0) 10, else 00.
    let ect = matches!(pkt.header, Header::TcpData { ect: true, .. });
    let ecn = if pkt.ce {
        0b11
    } else if ect {
        0b10
    } else {
        0
    };
    let ip = &mut out[..20];
    ip[0] = 0x45;
    ip[1] = ecn;
    ip[2..4].copy_from_slice(&(total.min(65_535) as u16).to_be_bytes());
    ip[4..6].copy_from_slice(&ip_id.to_be_bytes());
    ip[6] = 0x40; // Don't Fragment
    ip[8] = 64; // TTL
    ip[9] = proto;
    ip[12..16].copy_from_slice(&src);
    ip[16..20].copy_from_slice(&dst);
    let c = fold(sum16(&out[..20]));
    out[10..12].copy_from_slice(&c.to_be_bytes());
    total
}

/// Byte sequence number of segment `n`.
fn bytes_at(n: u64, seg: u32) -> u32 {
    (1 + n.wrapping_mul(u64::from(seg.max(1)))) as u32
}

fn tcp(pkt: &Packet, flow: &FlowWire, out: &mut Vec<u8>) -> u32 {
    let fp = sender_port(pkt.flow);
    let seg = flow.seg;
    let (sport, dport, seq, ack, flags, window, payload) = match pkt.header {
        Header::TcpData { seq, len, cwr, .. } => (
            fp,
            TCP_PORT,
            bytes_at(seq, seg),
            1,
            ACK | PSH | if cwr { CWR } else { 0 },
            0xffff,
            len,
        ),
        Header::TcpAck(TcpAck { ack, ece, wnd, .. }) => {
            let bytes = u64::from(wnd).saturating_mul(u64::from(seg.max(1))) >> WINDOW_SCALE;
            (
                TCP_PORT,
                fp,
                1,
                bytes_at(ack, seg),
                ACK | if ece { ECE } else { 0 },
                bytes.min(0xffff) as u16,
                0,
            )
        }
        Header::TcpSyn { reply: false, .. } => (fp, TCP_PORT, 0, 0, FIN_SYN, 0xffff, 0),
        Header::TcpSyn { reply: true, .. } => (TCP_PORT, fp, 0, 1, FIN_SYN | ACK, 0xffff, 0),
        _ => unreachable!("tcp() is called for TCP headers"),
    };
    put16(out, sport);
    put16(out, dport);
    put32(out, seq);
    put32(out, ack);
    out.extend_from_slice(&[0, flags]); // data offset set below
    put16(out, window);
    put16(out, 0); // checksum
    put16(out, 0); // urgent pointer
    match pkt.header {
        Header::TcpData { ts, .. } => timestamps(out, ts, Some(0)),
        Header::TcpAck(TcpAck { tsecr, sack, ack, .. }) => {
            timestamps(out, tsecr.map(|_| 0), tsecr);
            sack_blocks(out, &sack, ack, seg);
        }
        Header::TcpSyn { ts, tsecr, .. } => {
            // MSS, SACK permitted, timestamps, NOP, window scale: Linux's SYN layout.
            out.extend_from_slice(&[2, 4]);
            put16(out, flow.mss.clamp(1, 65_535) as u16);
            out.extend_from_slice(&[4, 2, 8, 10]);
            put32(out, ts.unwrap_or(0));
            put32(out, tsecr.unwrap_or(0));
            out.extend_from_slice(&[1, 3, 3, WINDOW_SCALE]);
        }
        _ => {}
    }
    let header_len = out.len() - 20;
    out[20 + 12] = ((header_len / 4) as u8) << 4;
    payload
}

/// NOP, NOP, Timestamps (RFC 7323 Appendix A layout); nothing without timestamps.
fn timestamps(out: &mut Vec<u8>, tsval: Option<u32>, tsecr: Option<u32>) {
    let Some(v) = tsval else { return };
    out.extend_from_slice(&[1, 1, 8, 10]);
    put32(out, v);
    put32(out, tsecr.unwrap_or(0));
}

fn sack_blocks(out: &mut Vec<u8>, sack: &SackBlocks, _ack: u64, seg: u32) {
    let blocks = sack.as_slice();
    if blocks.is_empty() {
        return;
    }
    out.extend_from_slice(&[1, 1, 5, (2 + 8 * blocks.len()) as u8]);
    for b in blocks {
        put32(out, bytes_at(b.start, seg));
        put32(out, bytes_at(b.end, seg));
    }
}

fn udp(pkt: &Packet, len: u32, out: &mut Vec<u8>) -> u32 {
    put16(out, sender_port(pkt.flow));
    put16(out, UDP_PORT);
    put16(out, 0); // length, set by the caller
    put16(out, 0);
    len
}

fn dccp(pkt: &Packet, h: &DccpHeader, out: &mut Vec<u8>) -> u32 {
    let fp = sender_port(pkt.flow);
    let (sport, dport) = if h.from_client { (fp, DCCP_PORT) } else { (DCCP_PORT, fp) };
    let kind = match h.kind {
        DccpType::Request => 0,
        DccpType::Response => 1,
        DccpType::Data => 2,
        DccpType::Ack => 3,
        DccpType::DataAck => 4,
        DccpType::Close => 6,
        DccpType::Reset => 7,
    };
    put16(out, sport);
    put16(out, dport);
    out.extend_from_slice(&[0, (h.ccval & 0x0f) << 4]); // data offset below; CsCov 0
    put16(out, 0); // checksum
    out.extend_from_slice(&[(kind << 1) | 1, 0]); // Res | Type | X = 1 (48-bit numbers)
    out.extend_from_slice(&h.seq.to_be_bytes()[2..]);
    if h.kind.has_ack() {
        put16(out, 0);
        out.extend_from_slice(&h.ack.to_be_bytes()[2..]);
    }
    if matches!(h.kind, DccpType::Request | DccpType::Response | DccpType::Reset) {
        put32(out, 0); // Service Code / Reset Code and data
    }
    let opts_start = out.len();
    if h.ack_ratio_changed {
        // Change L (32) of Ack Ratio (feature 5), a 2-byte value (RFC 4340 §11.3).
        out.extend_from_slice(&[32, 5, 5]);
        put16(out, h.ack_ratio);
    }
    let mut want = 0;
    match &h.options {
        DccpOptions::None => {}
        DccpOptions::AckVector(v) => {
            // The newest bytes of the vector as option 38; the older part, which the simulator
            // does not keep, is carried as Padding so that lengths are those of the run.
            let inline = v.inline_bytes();
            out.extend_from_slice(&[38, (2 + inline.len()) as u8]);
            out.extend_from_slice(inline);
            want = v.option_bytes() as usize;
        }
        DccpOptions::Tfrc(f) => {
            // Elapsed Time (43) in hundredths of milliseconds, Receive Rate (194) in bytes/s,
            // Loss Event Rate (192) as 1/p (RFC 5348 §8.4–8.6; RFC 4340 §13.2).
            let hundredths = f.elapsed.as_nanos() / 10_000;
            if hundredths <= 0xffff {
                out.extend_from_slice(&[43, 4]);
                put16(out, hundredths as u16);
            } else {
                out.extend_from_slice(&[43, 6]);
                put32(out, hundredths.min(u64::from(u32::MAX)) as u32);
            }
            out.extend_from_slice(&[194, 6]);
            put32(out, f.x_recv.clamp(0.0, u32::MAX as f64) as u32);
            out.extend_from_slice(&[192, 6]);
            put32(out, if f.p > 0.0 { (1.0 / f.p).min(u32::MAX as f64) as u32 } else { u32::MAX });
        }
    }
    let have = out.len() - opts_start - if h.ack_ratio_changed { 5 } else { 0 };
    out.resize(out.len() + want.saturating_sub(have), 0);
    while !(out.len() - 20).is_multiple_of(4) {
        out.push(0); // Padding to a whole word
    }
    out[20 + 4] = ((out.len() - 20) / 4) as u8;
    h.len * u32::from(h.kind.is_data())
}

fn quench(
    pkt: &Packet,
    flow: &FlowWire,
    code: QuenchCode,
    seq: u64,
    of_data: bool,
    out: &mut Vec<u8>,
) -> u32 {
    out.extend_from_slice(&[4, code as u8, 0, 0, 0, 0, 0, 0]);
    // The quoted datagram: its IPv4 header and first 8 bytes (ports and sequence number).
    let (from, to) = if of_data { flow.ends } else { (flow.ends.1, flow.ends.0) };
    let mut ip = [0u8; 20];
    ip[0] = 0x45;
    ip[8] = 64;
    ip[9] = PROTO_TCP;
    ip[12..16].copy_from_slice(&ipv4_of(from));
    ip[16..20].copy_from_slice(&ipv4_of(to));
    let c = fold(sum16(&ip));
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    out.extend_from_slice(&ip);
    let fp = sender_port(pkt.flow);
    let (sport, dport, n) =
        if of_data { (fp, TCP_PORT, bytes_at(seq, flow.seg)) } else { (TCP_PORT, fp, 1) };
    put16(out, sport);
    put16(out, dport);
    put32(out, n);
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    #[test]
    fn checksums_follow_rfc_1071() {
        // RFC 1071 §3's example words sum to 0xddf2 (folded); the checksum is its complement.
        let words = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(fold(sum16(&words)), !0xddf2);
        // A header with its checksum in place sums to 0xffff, i.e. verifies to zero.
        let pkt = Packet {
            flow: FlowId(3),
            src: NodeId(0),
            dst: NodeId(1),
            size: 1500,
            sent_at: SimTime::ZERO,
            ce: true,
            header: Header::TcpData {
                seq: 7,
                len: 1448,
                retransmit: false,
                ect: true,
                cwr: false,
                ts: Some(123),
            },
        };
        let flow = FlowWire { mss: 1448, seg: 1448, ends: (NodeId(0), NodeId(1)) };
        let mut out = Vec::new();
        let total = encode(&pkt, &flow, 9, &mut out);
        assert_eq!((total, out.len()), (1500, 52));
        assert_eq!(fold(sum16(&out[..20])), 0, "IPv4 header checksum");
        assert_eq!(out[1] & 3, 3, "CE in the ECN field");
        let tcp_ok = transport_checksum(
            ipv4_of(NodeId(0)),
            ipv4_of(NodeId(1)),
            PROTO_TCP,
            &out[20..],
            total - 20,
        );
        assert_eq!(tcp_ok, 0, "TCP checksum verifies");
        assert_eq!(u32::from_be_bytes(out[24..28].try_into().unwrap()), 1 + 7 * 1448);
    }
}
