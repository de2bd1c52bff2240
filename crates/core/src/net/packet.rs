//! Packets and the slab that stores them while they cross the network.
//!
//! A packet is created by a transport (`poll_transmit`), stored once in the [`PacketSlab`], and
//! travels through queues and links as a [`PktId`] until it is delivered or dropped, when its
//! slot is recycled. Nothing on this path allocates: SACK blocks are an inline array.

use crate::time::SimTime;
use crate::wire::Header;

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

/// A packet in flight.
///
/// Laid out (`repr(C)`) so that what a delivery reads of a data segment or of an ACK without SACK
/// blocks lies in the first 64 bytes of its slab slot, one cache line ([`PacketSlab`]): the
/// fields every packet's delivery reads, then the header, whose variants keep their per-packet
/// fields first (an ACK's SACK blocks, read only when it carries some, come last), then `src`,
/// read when the packet is emitted (before it is stored) and by Source Quench and captures.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Packet {
    /// When the transport emitted this transmission (for one-way delay).
    pub sent_at: SimTime,
    pub flow: FlowId,
    pub dst: NodeId,
    /// Bytes on the wire, headers included.
    pub size: u32,
    /// Congestion Experienced mark set by a queue (RFC 3168).
    pub ce: bool,
    pub header: Header,
    pub src: NodeId,
}

/// A packet's place in the slab: two whole cache lines, the first holding all that a delivery
/// reads of most packets ([`Packet`]'s layout).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Slot(Packet);

/// What routers and queues read of a packet at every hop. The slab keeps these 16 bytes in a
/// dense array of their own: at 10 Gbit/s and 100 ms some 90,000 packets are in flight, each
/// touched once per hop long after the last touch, and reading a whole packet there
/// missed the cache on every hop (more than half of B2's run time, by `perf`). Aligned to its
/// size, so that one cache line holds it (one hint loads it, `net::prefetch`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(align(16))]
pub struct HopView {
    pub flow: FlowId,
    pub dst: NodeId,
    /// Bytes on the wire.
    pub size: u32,
    /// ECN-capable transport (RFC 3168): a queue may mark it instead of dropping it.
    pub ect: bool,
    /// Delivered to the flow's receiver, not its sender ([`Header::delivered_to_receiver`]):
    /// the engine loads that endpoint's state ahead of the delivery.
    pub to_receiver: bool,
}

impl HopView {
    pub fn of(p: &Packet) -> HopView {
        HopView {
            flow: p.flow,
            dst: p.dst,
            size: p.size,
            ect: matches!(p.header, Header::TcpData { ect: true, .. }),
            to_receiver: p.header.delivered_to_receiver(),
        }
    }
}

/// Storage for packets in flight: a vector of slots with a free list, and each packet's
/// [`HopView`] in a parallel vector.
#[derive(Default)]
pub struct PacketSlab {
    slots: Vec<Slot>,
    hops: Vec<HopView>,
    free: Vec<u32>,
    live: usize,
}

impl PacketSlab {
    pub fn with_capacity(n: usize) -> Self {
        PacketSlab {
            slots: Vec::with_capacity(n),
            hops: Vec::with_capacity(n),
            free: Vec::with_capacity(n),
            live: 0,
        }
    }
    /// Stores a packet; returns its id and its [`HopView`], which the caller forwards it with
    /// (read back from the slab at once, the view's narrow stores would not yet have reached
    /// the cache for the wide load: a failed store-to-load forward on every packet sent).
    pub fn insert(&mut self, p: Packet) -> (PktId, HopView) {
        self.live += 1;
        let hop = HopView::of(&p);
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = Slot(p);
            self.hops[i as usize] = hop;
            // The slot the next insert takes: start loading it now (writing a line the cache
            // does not hold waits for it).
            if let Some(&next) = self.free.last() {
                super::prefetch::prefetch_element(self.slots.as_ptr(), next as usize);
                super::prefetch::prefetch_element(self.hops.as_ptr(), next as usize);
            }
            (PktId(i), hop)
        } else {
            self.slots.push(Slot(p));
            self.hops.push(hop);
            (PktId((self.slots.len() - 1) as u32), hop)
        }
    }
    pub fn get(&self, id: PktId) -> &Packet {
        &self.slots[id.0 as usize].0
    }
    /// Asks the CPU to start loading a packet about to be handled (its [`HopView`] and all of
    /// its bytes): with tens of thousands of packets in flight each hop otherwise waits on memory.
    /// Only a hint: it changes no state and no result (nor checks `id`).
    #[inline]
    pub fn prefetch(&self, id: PktId) {
        super::prefetch::prefetch_element(self.hops.as_ptr(), id.0 as usize);
        super::prefetch::prefetch_element(self.slots.as_ptr(), id.0 as usize);
    }
    /// Asks the CPU to start loading a packet's [`HopView`] alone: what a router reads of it.
    #[inline]
    pub fn prefetch_hop(&self, id: PktId) {
        super::prefetch::prefetch_element(self.hops.as_ptr(), id.0 as usize);
    }
    /// The fields forwarding needs, without touching the packet itself.
    #[inline]
    pub fn hop(&self, id: PktId) -> HopView {
        self.hops[id.0 as usize]
    }
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.slots[id.0 as usize].0
    }
    /// Frees the packet's slot. The packet is not read (nor copied out): whoever needs it reads
    /// what it needs before, through [`PacketSlab::get`].
    pub fn remove(&mut self, id: PktId) {
        self.live -= 1;
        self.free.push(id.0);
    }
    /// Packets currently stored (in queues or on links).
    pub fn live(&self) -> usize {
        self.live
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Header;

    /// Bytes from the start of `slot` to the end of `field`.
    fn end_in<T>(slot: &Slot, field: &T) -> usize {
        field as *const T as usize + std::mem::size_of::<T>() - slot as *const Slot as usize
    }

    /// A view lies in one cache line, so one hint loads it (`net::prefetch`).
    #[test]
    fn a_hop_view_is_aligned_to_its_size() {
        assert_eq!((std::mem::size_of::<HopView>(), std::mem::align_of::<HopView>()), (16, 16));
    }

    #[test]
    fn what_a_delivery_reads_of_a_segment_or_an_ack_without_blocks_lies_in_one_cache_line() {
        use crate::wire::tcp::{SackBlocks, TcpAck};
        assert_eq!((std::mem::size_of::<Slot>(), std::mem::align_of::<Slot>()), (128, 64));
        let packet = |header| Packet {
            flow: FlowId(0),
            src: NodeId(0),
            dst: NodeId(1),
            size: 1500,
            sent_at: SimTime::ZERO,
            ce: false,
            header,
        };
        let data = Slot(packet(Header::TcpData {
            seq: 1,
            len: 1460,
            retransmit: false,
            ect: false,
            cwr: false,
            ts: Some(1),
        }));
        let p = &data.0;
        let common = [
            end_in(&data, &p.sent_at),
            end_in(&data, &p.flow),
            end_in(&data, &p.dst),
            end_in(&data, &p.size),
            end_in(&data, &p.ce),
        ];
        let Header::TcpData { seq, len, retransmit, ect, cwr, ts } = &p.header else {
            unreachable!()
        };
        let segment = [
            end_in(&data, seq),
            end_in(&data, len),
            end_in(&data, retransmit),
            end_in(&data, ect),
            end_in(&data, cwr),
            end_in(&data, ts),
        ];
        let ack = Slot(packet(Header::TcpAck(TcpAck {
            ack: 1,
            tsecr: Some(1),
            wnd: 10,
            ece: false,
            dsack: false,
            sack: SackBlocks::default(),
        })));
        let Header::TcpAck(a) = &ack.0.header else { unreachable!() };
        // The blocks' count opens `SackBlocks` (`repr(C)`); the blocks may lie beyond.
        let plain_ack = [
            end_in(&ack, &a.ack),
            end_in(&ack, &a.tsecr),
            end_in(&ack, &a.wnd),
            end_in(&ack, &a.ece),
            end_in(&ack, &a.dsack),
            end_in(&ack, &a.sack) - std::mem::size_of::<SackBlocks>() + 1,
        ];
        for (what, ends) in
            [("every packet", &common[..]), ("a segment", &segment[..]), ("an ACK", &plain_ack[..])]
        {
            assert!(
                ends.iter().all(|&e| e <= 64),
                "{what}: fields end at bytes {ends:?} of the slot"
            );
        }
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
        let (a, hop) = slab.insert(p);
        assert_eq!(hop, slab.hop(a));
        let (b, _) = slab.insert(p);
        assert_eq!(slab.live(), 2);
        slab.remove(a);
        let (c, _) = slab.insert(p);
        assert_eq!(c, a);
        assert_ne!(b, c);
        assert_eq!(slab.live(), 2);
    }
}
