//! The DCCP packet header as it travels in a [`Packet`](crate::net::packet::Packet): type, 48-bit
//! sequence and acknowledgement numbers, CCVal, and the options ccarena models, held inline (no
//! heap) and sized on the wire as RFC 4340 lays them out.
//!
//! ```text
//! on the wire = IPv4 (20) + generic header (16, X = 1: 48-bit sequence numbers)   RFC 4340 §5.1
//!             + acknowledgement subheader (8, X = 1)     all types but Request and Data (§5.2)
//!             + Service Code (4)                         Request, Response (§5.5)
//!             + Reset Code and data (4)                  Reset (§5.6)
//!             + options, padded to a multiple of 4       (§5.8: Data Offset counts 32-bit words)
//!             + application payload                      Data, DataAck
//! options: Ack Vector (type 38)       2 + one byte per run of ≤ 64 packets       RFC 4340 §11.4
//!          Elapsed Time (type 43)     4 (≤ 0.65535 s in 10 µs units) or 6        RFC 4340 §13.2
//!          Receive Rate (type 194)    6                                          RFC 4342 §8.3
//!          Loss Event Rate (type 192) 6                                          RFC 4342 §8.5
//!          Change R (Ack Ratio)       5: type, length, feature, 2-byte value     RFC 4340 §6.1, §11.3
//! ```
//!
//! Not modelled: feature-negotiation options of the handshake (CCID choice etc.), NDP Count,
//! Timestamp options, checksums, CCID 3's Loss Intervals option (RFC 4342 §8.6, optional for the
//! sender to use).

use crate::time::SimDuration;

/// Bytes of IPv4 (20) and the DCCP generic header with 48-bit sequence numbers (16).
pub const DCCP_IP_HEADER: u32 = 20 + 16;
/// Bytes of the acknowledgement subheader with a 48-bit acknowledgement number (RFC 4340 §5.2).
pub const ACK_SUBHEADER: u32 = 8;

/// Bytes of the Ack Vector carried inline in a packet (the newest part of the receiver's full
/// vector, `dccp::ack_vector`).
pub const ACKVEC_INLINE: usize = 20;
/// Packets one Ack Vector byte can describe: a 6-bit run length counts 1..=64 (RFC 4340 §11.4).
pub const ACKVEC_RUN_MAX: u64 = 64;
/// Largest Ack Vector option payload: the option length byte counts at most 255 (RFC 4340 §5.8).
const OPTION_MAX: u32 = 253;

/// Ack Vector states (RFC 4340 §11.4; 1, ECN marked, is not produced).
pub const ACKVEC_RECEIVED: u8 = 0;
pub const ACKVEC_NOT_RECEIVED: u8 = 3;

/// The newest part of an Ack Vector, as carried on one acknowledgement: bytes of
/// `State (2 bits) | Run Length (6 bits)`, each describing Run Length + 1 consecutive packets,
/// the first ending at the Acknowledgement Number and the vector running backwards from there
/// (RFC 4340 §11.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckVector {
    /// Sequence number the first byte starts at (the Acknowledgement Number).
    head: u64,
    n: u8,
    bytes: [u8; ACKVEC_INLINE],
    /// Bytes of the full vector the receiver holds (what goes on the wire).
    wire_bytes: u32,
}

impl AckVector {
    /// An empty vector starting at `head`, whose full encoding takes `wire_bytes`.
    pub fn new(head: u64, wire_bytes: u32) -> Self {
        AckVector { head, n: 0, bytes: [0; ACKVEC_INLINE], wire_bytes }
    }

    /// Appends a run of `len` (1..=64) packets in `state`, going backwards; false when the inline
    /// bytes are full.
    pub fn push_run(&mut self, state: u8, len: u64) -> bool {
        debug_assert!((1..=ACKVEC_RUN_MAX).contains(&len));
        if self.n as usize == ACKVEC_INLINE {
            return false;
        }
        self.bytes[self.n as usize] = (state << 6) | (len - 1) as u8;
        self.n += 1;
        true
    }

    /// Option bytes on the wire: 2 bytes of type and length per option of at most 253 bytes.
    pub fn option_bytes(&self) -> u32 {
        let n = self.wire_bytes.max(1);
        n + 2 * n.div_ceil(OPTION_MAX)
    }

    /// Ranges `(received, lo, hi)` (inclusive), newest first.
    pub fn ranges(&self) -> impl Iterator<Item = (bool, u64, u64)> + '_ {
        let mut hi = Some(self.head);
        self.bytes[..self.n as usize].iter().map_while(move |&b| {
            let top = hi?;
            let len = (b & 0x3f) as u64 + 1;
            let lo = top.saturating_sub(len - 1);
            hi = lo.checked_sub(1);
            Some((b >> 6 == ACKVEC_RECEIVED, lo, top))
        })
    }

    /// The Acknowledgement Number the vector starts at.
    pub fn head(&self) -> u64 {
        self.head
    }

    /// The newest bytes of the vector, as carried inline (for packet captures).
    pub fn inline_bytes(&self) -> &[u8] {
        &self.bytes[..self.n as usize]
    }
}

/// DCCP packet types (RFC 4340 §5.1). CloseReq, Sync and SyncAck are not used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DccpType {
    Request,
    Response,
    Data,
    Ack,
    DataAck,
    Close,
    Reset,
}

impl DccpType {
    /// Carries application data.
    pub fn is_data(self) -> bool {
        matches!(self, DccpType::Data | DccpType::DataAck)
    }
    /// Has an acknowledgement subheader (every type but Request and Data, RFC 4340 §5.1).
    pub fn has_ack(self) -> bool {
        !matches!(self, DccpType::Request | DccpType::Data)
    }
}

/// TFRC feedback of a CCID 3 receiver (RFC 4342 §8.3–8.5).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TfrcFeedback {
    /// Time between the arrival of the acknowledged packet and this feedback (Elapsed Time).
    pub elapsed: SimDuration,
    /// Receive rate X_recv since the previous feedback, payload bytes per second.
    pub x_recv: f64,
    /// Loss event rate p (0 before the first loss event).
    pub p: f64,
}

impl TfrcFeedback {
    /// Option bytes: Elapsed Time + Receive Rate + Loss Event Rate.
    fn option_bytes(&self) -> u32 {
        // Elapsed Time counts hundredths of milliseconds in 2 bytes when it fits (RFC 4340 §13.2).
        let elapsed = if self.elapsed <= SimDuration::from_micros(655_350) { 4 } else { 6 };
        elapsed + 6 + 6
    }
}

/// The options a packet carries, beyond the Ack Ratio change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DccpOptions {
    None,
    /// A CCID 2 receiver's Ack Vector.
    AckVector(AckVector),
    /// A CCID 3 receiver's feedback.
    Tfrc(TfrcFeedback),
}

/// The DCCP header of one packet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DccpHeader {
    pub kind: DccpType,
    /// Sent by the client (the data sender), so it travels towards the receiving endpoint.
    pub from_client: bool,
    /// Sequence number: every packet, acknowledgements included, takes a new one (RFC 4340 §7.1).
    pub seq: u64,
    /// Acknowledgement number: the greatest sequence number received from the peer (GSR). Only
    /// meaningful when `kind.has_ack()`.
    pub ack: u64,
    /// Application payload bytes (Data and DataAck).
    pub len: u32,
    /// CCVal, the CCID 3 window counter (4 bits, RFC 4342 §8.1).
    pub ccval: u8,
    /// The Ack Ratio the client asks the receiver to use (RFC 4340 §11.3).
    pub ack_ratio: u16,
    /// This packet carries a Change R(Ack Ratio) option: the value changed.
    pub ack_ratio_changed: bool,
    pub options: DccpOptions,
}

impl DccpHeader {
    /// A header with no options, acknowledgement number 0 and Ack Ratio 2.
    pub fn new(kind: DccpType, from_client: bool, seq: u64) -> Self {
        DccpHeader {
            kind,
            from_client,
            seq,
            ack: 0,
            len: 0,
            ccval: 0,
            ack_ratio: 2,
            ack_ratio_changed: false,
            options: DccpOptions::None,
        }
    }

    /// Bytes on the wire, headers, options and payload included.
    pub fn wire_size(&self) -> u32 {
        let mut hdr = DCCP_IP_HEADER;
        if self.kind.has_ack() {
            hdr += ACK_SUBHEADER;
        }
        hdr += match self.kind {
            DccpType::Request | DccpType::Response | DccpType::Reset => 4,
            _ => 0,
        };
        let mut opts = match &self.options {
            DccpOptions::None => 0,
            DccpOptions::AckVector(v) => v.option_bytes(),
            DccpOptions::Tfrc(f) => f.option_bytes(),
        };
        if self.ack_ratio_changed {
            opts += 5;
        }
        hdr + opts.div_ceil(4) * 4 + self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_sizes_follow_rfc_4340() {
        let data = DccpHeader { len: 1000, ..DccpHeader::new(DccpType::Data, true, 5) };
        assert_eq!(data.wire_size(), 20 + 16 + 1000);
        let data_ack = DccpHeader { len: 1000, ..DccpHeader::new(DccpType::DataAck, true, 5) };
        assert_eq!(data_ack.wire_size(), 20 + 24 + 1000);
        assert_eq!(DccpHeader::new(DccpType::Request, true, 0).wire_size(), 20 + 20);
        assert_eq!(DccpHeader::new(DccpType::Response, false, 0).wire_size(), 20 + 28);
        assert_eq!(DccpHeader::new(DccpType::Reset, false, 0).wire_size(), 20 + 28);
        assert_eq!(DccpHeader::new(DccpType::Close, true, 9).wire_size(), 20 + 24);
    }

    #[test]
    fn options_are_padded_to_whole_words() {
        let fb = TfrcFeedback { elapsed: SimDuration::ZERO, x_recv: 1e5, p: 0.01 };
        let ack = DccpHeader {
            options: DccpOptions::Tfrc(fb),
            ..DccpHeader::new(DccpType::Ack, false, 3)
        };
        // 4 + 6 + 6 = 16 option bytes, already a multiple of 4.
        assert_eq!(ack.wire_size(), 20 + 24 + 16);
        let late = TfrcFeedback { elapsed: SimDuration::from_secs(1), ..fb };
        let ack = DccpHeader { options: DccpOptions::Tfrc(late), ..ack };
        // 6 + 6 + 6 = 18, padded to 20.
        assert_eq!(ack.wire_size(), 20 + 24 + 20);
        let change = DccpHeader {
            ack_ratio_changed: true,
            len: 100,
            ..DccpHeader::new(DccpType::DataAck, true, 4)
        };
        assert_eq!(change.wire_size(), 20 + 24 + 8 + 100);
    }
}
