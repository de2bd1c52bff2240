//! The endpoints the engine drives: the closed set of transports, statically dispatched, each
//! in a slot beside its timer, and the mapping between a flow and its two endpoints.
//!
//! Hot-path rules: a delivery finds its endpoint from the packet's flow alone, and reads its
//! slot (transport and timer) in one or two cache lines; dispatch is a `match`, never a virtual
//! call; a transmitted packet goes from the transport straight into its slab slot.

use crate::dccp::{DccpReceiver, DccpSender};
use crate::net::packet::{FlowId, HopView, Packet, PacketSlab, PktId};
use crate::tcp::{TcpReceiver, TcpSender};
use crate::time::{Deadline, SimTime};
use crate::transport::{Probe, Transport};
use crate::udp::{UdpReceiver, UdpSender};

/// Index of an endpoint in the world.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EpId(pub u32);

/// Every kind of endpoint the engine drives (closed set: static dispatch). Each is boxed, so
/// that an endpoint's slot in the engine (with its timer slot) is 40 bytes: a seed-003 run has
/// tens of thousands, and a packet's delivery looks its endpoint up there first.
pub enum Endpoint {
    TcpSender(Box<TcpSender>),
    TcpReceiver(Box<TcpReceiver>),
    UdpSender(Box<UdpSender>),
    UdpReceiver(Box<UdpReceiver>),
    DccpSender(Box<DccpSender>),
    DccpReceiver(Box<DccpReceiver>),
}

/// Runs `$body` with `$t` bound to the endpoint's transport, statically dispatched (a `match`
/// per call, no virtual call: the hot loop calls these a few times per packet).
macro_rules! with_transport {
    ($ep:expr, $t:ident => $body:expr) => {
        match $ep {
            Endpoint::TcpSender($t) => $body,
            Endpoint::TcpReceiver($t) => $body,
            Endpoint::UdpSender($t) => $body,
            Endpoint::UdpReceiver($t) => $body,
            Endpoint::DccpSender($t) => $body,
            Endpoint::DccpReceiver($t) => $body,
        }
    };
}

impl Endpoint {
    /// [`Transport::poll_transmit`], the packet stored in `slab` at once. Stored within each
    /// kind's own arm, the packet's fields go from the transport's registers into its slot;
    /// returned from the `match` first, it was built in a stack temporary common to every kind
    /// and copied out with loads wider than the stores that had just written it, which the
    /// processor cannot forward from its store buffer (`perf`: a fifth of `service`'s samples).
    #[inline(always)]
    pub(super) fn transmit_into(
        &mut self,
        now: SimTime,
        slab: &mut PacketSlab,
    ) -> Option<(PktId, HopView)> {
        with_transport!(self, t => t.poll_transmit(now).map(|p| slab.insert(p)))
    }

    /// Starts loading what a packet's delivery reads of the endpoint: the hot lines of TCP's
    /// endpoints (their layout tests), the first two lines of the others.
    #[inline(always)]
    pub(crate) fn prefetch_hot(&self) {
        use crate::net::prefetch::prefetch_prefix;
        const FIRST_LINES: usize = 128;
        match self {
            Endpoint::TcpSender(t) => prefetch_prefix(&**t, TcpSender::HOT_BYTES),
            Endpoint::TcpReceiver(t) => prefetch_prefix(&**t, TcpReceiver::HOT_BYTES),
            Endpoint::UdpSender(t) => prefetch_prefix(&**t, FIRST_LINES),
            Endpoint::UdpReceiver(t) => prefetch_prefix(&**t, FIRST_LINES),
            Endpoint::DccpSender(t) => prefetch_prefix(&**t, FIRST_LINES),
            Endpoint::DccpReceiver(t) => prefetch_prefix(&**t, FIRST_LINES),
        }
    }
}

impl Transport for Endpoint {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        with_transport!(self, t => t.handle_packet(now, pkt))
    }
    fn handle_timeout(&mut self, now: SimTime) {
        with_transport!(self, t => t.handle_timeout(now))
    }
    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        with_transport!(self, t => t.poll_transmit(now))
    }
    #[inline(always)]
    fn poll_timeout(&self) -> Option<SimTime> {
        with_transport!(self, t => t.poll_timeout())
    }
    fn probe(&self) -> Probe {
        with_transport!(self, t => t.probe())
    }
}

/// A flow's endpoints: the scenario pushes each flow's sender then its receiver, so they are
/// endpoints `2f` and `2f + 1`. A delivery finds its endpoint from the packet's flow alone,
/// without a read of a per-flow entry (a cache miss per delivery when tens of thousands of
/// background sources share the run).
impl FlowId {
    #[inline]
    pub fn sender(self) -> EpId {
        EpId(2 * self.0)
    }
    #[inline]
    pub fn receiver(self) -> EpId {
        EpId(2 * self.0 + 1)
    }
    /// The endpoint a packet of this flow is delivered to
    /// ([`Header::delivered_to_receiver`](crate::wire::Header::delivered_to_receiver)).
    #[inline]
    pub(crate) fn endpoint(self, to_receiver: bool) -> EpId {
        if to_receiver {
            self.receiver()
        } else {
            self.sender()
        }
    }
}

impl EpId {
    /// The flow this endpoint serves (the inverse of [`FlowId::sender`] and
    /// [`FlowId::receiver`]).
    #[inline]
    pub(crate) fn flow(self) -> FlowId {
        FlowId(self.0 / 2)
    }
}

/// An endpoint's timer slot: the deadline armed in the queue, and its generation (24 bytes).
#[derive(Clone, Copy, Debug)]
pub(super) struct TimerSlot {
    pub(super) armed: Deadline,
    /// Counts re-arms, wrapping (32 bits keep `Event` at 12 bytes and a queued event at 32): at
    /// most one re-arm per event of the endpoint's own, so a stale event would have to wait for
    /// its deadline (seconds away at most) through 2^32 of them to be mistaken for a live one.
    pub(super) gen: u32,
    /// The endpoint is silent from this instant on (the flow's `stop`).
    pub(super) silent_from: Deadline,
}

/// An endpoint beside its timer slot: every packet it takes reads both, and a flow's two
/// endpoints are neighbours (80 bytes), so a delivery finds them in one or two cache lines
/// rather than in two arrays of tens of thousands of entries each.
pub(crate) struct EndpointSlot {
    pub(crate) transport: Endpoint,
    pub(super) timer: TimerSlot,
}

impl EndpointSlot {
    /// An endpoint with no timer armed, silent from `stop` on (if it has one).
    pub(super) fn new(transport: Endpoint, stop: Option<SimTime>) -> Self {
        let timer = TimerSlot { armed: Deadline::NONE, gen: 0, silent_from: stop.into() };
        EndpointSlot { transport, timer }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endpoint_maps_back_to_its_flow() {
        for f in [0, 1, 7, u32::MAX / 2] {
            let flow = FlowId(f);
            assert_eq!((flow.sender().flow(), flow.receiver().flow()), (flow, flow));
            assert_eq!(
                (flow.endpoint(false), flow.endpoint(true)),
                (flow.sender(), flow.receiver())
            );
        }
    }

    #[test]
    fn a_flows_two_endpoint_slots_fit_in_80_bytes() {
        assert_eq!(std::mem::size_of::<EndpointSlot>(), 40);
    }
}
