//! Packets and the slab that stores them while they cross the network.
//!
//! A packet is created by a transport (`poll_transmit`), stored once in the [`PacketSlab`], and
//! travels through queues and links as a [`PktId`] until it is delivered or dropped, when its
//! slot is recycled. Nothing on this path allocates: SACK blocks are an inline array.

use crate::dccp::DccpHeader;
use crate::time::SimTime;

/// Dense identifier of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

/// Dense identifier of one direction of a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LinkId(pub u32);

/// Dense identifier of a flow (a sender/receiver pair).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowId(pub u32);

/// Index of a packet in the slab.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PktId(pub u32);

/// Bytes of IPv4 (20) + TCP (20) headers without options.
pub const TCP_IP_HEADER: u32 = 40;
/// Bytes of the TCP timestamp option on the wire: kind, length, TSval, TSecr and two NOPs for
/// alignment (RFC 7323 §3, Appendix A's layout, as Linux sends it).
pub const TCP_TS_OPTION: u32 = 12;
/// Bytes of a SYN or SYN-ACK as Linux sends it: IPv4 (20) + TCP (20) + options MSS (4),
/// SACK-permitted (2), timestamps (10), NOP (1), window scale (3).
pub const TCP_SYN_SIZE: u32 = 60;
/// Bytes of IPv4 (20) + UDP (8) headers.
pub const UDP_IP_HEADER: u32 = 28;

/// Most SACK blocks an ACK carries: 3 fit beside the timestamp option (RFC 2018 §3).
pub const MAX_SACK_BLOCKS: usize = 3;

/// A SACK block: segments `start..end` (end exclusive) received out of order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    pub start: u64,
    pub end: u64,
}

/// Up to [`MAX_SACK_BLOCKS`] blocks, most recently changed first (RFC 2018 §4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    len: u8,
    blocks: [SackBlock; MAX_SACK_BLOCKS],
}

impl SackBlocks {
    pub fn push(&mut self, b: SackBlock) {
        if (self.len as usize) < MAX_SACK_BLOCKS {
            self.blocks[self.len as usize] = b;
            self.len += 1;
        }
    }
    pub fn as_slice(&self) -> &[SackBlock] {
        &self.blocks[..self.len as usize]
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Bytes of the SACK option on the wire: kind + length + 8 per block, padded to 4 (RFC 2018).
    pub fn option_bytes(&self) -> u32 {
        if self.len == 0 {
            0
        } else {
            (2 + 8 * self.len as u32).div_ceil(4) * 4
        }
    }
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
    TcpAck {
        /// Next segment expected (cumulative).
        ack: u64,
        sack: SackBlocks,
        /// ECN-Echo (RFC 3168).
        ece: bool,
        /// TSecr of the timestamp option (RFC 7323 §4.3: TS.Recent); `None` without timestamps.
        tsecr: Option<u32>,
        /// The ACK reports a duplicate segment (the one bit of RFC 2883's D-SACK the sender uses).
        dsack: bool,
        /// Receive window: segments the receiver accepts from `ack` on (`u32::MAX`: no limit).
        wnd: u32,
    },
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
        code: crate::net::icmp::QuenchCode,
        /// The quoted packet's sequence number (an ACK's cumulative ACK number).
        seq: u64,
        /// The quoted packet carried data (sender to receiver) rather than an ACK.
        of_data: bool,
        /// When the quoted copy was sent (stands for its IP identification).
        quoted_sent_at: SimTime,
    },
    /// A DCCP packet of either direction (RFC 4340; see [`crate::dccp::header`]).
    Dccp(DccpHeader),
}

impl Header {
    /// True for packets that carry application data (what flow statistics count).
    pub fn is_data(&self) -> bool {
        match self {
            Header::TcpData { .. } | Header::Udp { .. } => true,
            Header::TcpAck { .. } | Header::TcpSyn { .. } | Header::IcmpSourceQuench { .. } => false,
            Header::Dccp(h) => h.kind.is_data(),
        }
    }
    /// True for packets travelling from the flow's sender to its receiver (data, and DCCP's
    /// client-side control packets); false for acknowledgements and other replies.
    pub fn to_receiver(&self) -> bool {
        match self {
            Header::TcpData { .. } | Header::Udp { .. } => true,
            Header::TcpSyn { reply, .. } => !reply,
            Header::TcpAck { .. } | Header::IcmpSourceQuench { .. } => false,
            Header::Dccp(h) => h.from_client,
        }
    }
    /// Application payload bytes.
    pub fn payload(&self) -> u32 {
        match *self {
            Header::TcpData { len, .. } | Header::Udp { len, .. } => len,
            Header::TcpAck { .. } | Header::TcpSyn { .. } | Header::IcmpSourceQuench { .. } => 0,
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

/// A packet in flight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packet {
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    /// Bytes on the wire, headers included.
    pub size: u32,
    /// When the transport emitted this transmission (for one-way delay).
    pub sent_at: SimTime,
    /// Congestion Experienced mark set by a queue (RFC 3168).
    pub ce: bool,
    pub header: Header,
}

/// What routers and queues read of a packet at every hop. The slab keeps these 16 bytes in a
/// dense array of their own: at 10 Gbit/s and 100 ms some 90,000 packets are in flight, each
/// touched once per hop long after the last touch, and reading a whole 112-byte packet there
/// missed the cache on every hop (more than half of B2's run time, by `perf`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HopView {
    pub flow: FlowId,
    pub dst: NodeId,
    /// Bytes on the wire.
    pub size: u32,
    /// ECN-capable transport (RFC 3168): a queue may mark it instead of dropping it.
    pub ect: bool,
}

impl HopView {
    pub fn of(p: &Packet) -> HopView {
        HopView { flow: p.flow, dst: p.dst, size: p.size, ect: matches!(p.header, Header::TcpData { ect: true, .. }) }
    }
}

/// Storage for packets in flight: a vector of slots with a free list, and each packet's
/// [`HopView`] in a parallel vector.
#[derive(Default)]
pub struct PacketSlab {
    slots: Vec<Packet>,
    hops: Vec<HopView>,
    free: Vec<u32>,
    live: usize,
}

impl PacketSlab {
    pub fn with_capacity(n: usize) -> Self {
        PacketSlab { slots: Vec::with_capacity(n), hops: Vec::with_capacity(n), free: Vec::with_capacity(n), live: 0 }
    }
    pub fn insert(&mut self, p: Packet) -> PktId {
        self.live += 1;
        let hop = HopView::of(&p);
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = p;
            self.hops[i as usize] = hop;
            PktId(i)
        } else {
            self.slots.push(p);
            self.hops.push(hop);
            PktId((self.slots.len() - 1) as u32)
        }
    }
    pub fn get(&self, id: PktId) -> &Packet {
        &self.slots[id.0 as usize]
    }
    /// Asks the CPU to start loading a packet about to be handled (its [`HopView`] and its first
    /// bytes): with tens of thousands of packets in flight each hop otherwise waits on memory.
    /// Only a hint: it changes no state and no result.
    #[inline]
    pub fn prefetch(&self, id: PktId) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let i = id.0 as usize;
            if i < self.slots.len() {
                // SAFETY: prefetching is a hint; it never faults, even on an invalid address,
                // and both pointers are inside live allocations.
                unsafe {
                    _mm_prefetch::<_MM_HINT_T0>(self.hops.as_ptr().add(i).cast());
                    _mm_prefetch::<_MM_HINT_T0>(self.slots.as_ptr().add(i).cast());
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = id;
    }
    /// The fields forwarding needs, without touching the packet itself.
    #[inline]
    pub fn hop(&self, id: PktId) -> HopView {
        self.hops[id.0 as usize]
    }
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.slots[id.0 as usize]
    }
    /// Frees the slot and returns a copy of the packet.
    pub fn remove(&mut self, id: PktId) -> Packet {
        self.live -= 1;
        self.free.push(id.0);
        self.slots[id.0 as usize]
    }
    /// Packets currently stored (in queues or on links).
    pub fn live(&self) -> usize {
        self.live
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sack_option_size_follows_rfc2018() {
        let mut s = SackBlocks::default();
        assert_eq!(s.option_bytes(), 0);
        s.push(SackBlock { start: 1, end: 2 });
        assert_eq!(s.option_bytes(), 12); // 10 padded to 12
        s.push(SackBlock { start: 3, end: 4 });
        s.push(SackBlock { start: 5, end: 6 });
        s.push(SackBlock { start: 7, end: 8 }); // ignored: at most three
        assert_eq!(s.as_slice().len(), 3);
        assert_eq!(s.option_bytes(), 28); // 26 padded to 28
    }

    #[test]
    fn slab_recycles_slots() {
        let p = Packet {
            flow: FlowId(0),
            src: NodeId(0),
            dst: NodeId(1),
            size: 1500,
            sent_at: SimTime::ZERO,
            ce: false,
            header: Header::Udp { seq: 0, len: 1472 },
        };
        let mut slab = PacketSlab::default();
        let a = slab.insert(p);
        let b = slab.insert(p);
        assert_eq!(slab.live(), 2);
        slab.remove(a);
        let c = slab.insert(p);
        assert_eq!(c, a);
        assert_ne!(b, c);
        assert_eq!(slab.live(), 2);
    }
}
