//! UDP: an application's datagrams sent as produced, unacknowledged, never retransmitted.

use crate::app::AppSource;
use crate::net::packet::Packet;
use crate::time::SimTime;
use crate::transport::{Addr, Probe, Transport};
use crate::wire::{Header, UDP_IP_HEADER};

pub struct UdpSender {
    addr: Addr,
    app: AppSource,
    /// Next datagram number to send.
    next: u64,
}

impl UdpSender {
    pub fn new(addr: Addr, app: AppSource) -> Self {
        UdpSender { addr, app, next: 0 }
    }
}

impl Transport for UdpSender {
    fn handle_packet(&mut self, _now: SimTime, _pkt: &Packet) {}
    fn handle_timeout(&mut self, _now: SimTime) {}

    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        if self.next >= self.app.available(now) {
            return None;
        }
        let seq = self.next;
        self.next += 1;
        let len = self.app.len(seq);
        Some(Packet {
            flow: self.addr.flow,
            src: self.addr.local,
            dst: self.addr.remote,
            size: len + UDP_IP_HEADER,
            sent_at: now,
            ce: false,
            header: Header::Udp { seq, len },
        })
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        if self.app.total().is_some_and(|t| self.next >= t) {
            return None;
        }
        self.app.ready_at(self.next)
    }

    fn probe(&self) -> Probe {
        Probe::default()
    }
}

/// Counts what arrives. UDP has no order: every new datagram's payload counts once.
pub struct UdpReceiver {
    delivered_bytes: u64,
}

impl UdpReceiver {
    pub fn new() -> Self {
        UdpReceiver { delivered_bytes: 0 }
    }
}

impl Default for UdpReceiver {
    fn default() -> Self {
        Self::new()
    }
}

impl Transport for UdpReceiver {
    fn handle_packet(&mut self, _now: SimTime, pkt: &Packet) {
        self.delivered_bytes += pkt.header.payload() as u64;
    }
    fn handle_timeout(&mut self, _now: SimTime) {}
    fn poll_transmit(&mut self, _now: SimTime) -> Option<Packet> {
        None
    }
    fn poll_timeout(&self) -> Option<SimTime> {
        None
    }
    fn probe(&self) -> Probe {
        Probe { delivered_bytes: self.delivered_bytes, ..Probe::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{FlowId, NodeId};
    use crate::time::Rate;

    #[test]
    fn cbr_sender_emits_on_schedule() {
        let addr = Addr { flow: FlowId(0), local: NodeId(0), remote: NodeId(1) };
        // 1000 B every 100 ms.
        let mut s = UdpSender::new(addr, AppSource::cbr(SimTime::ZERO, Rate(80_000), 1000));
        let p = s.poll_transmit(SimTime::ZERO).unwrap();
        assert_eq!(p.size, 1028);
        assert!(s.poll_transmit(SimTime::ZERO).is_none());
        assert_eq!(s.poll_timeout(), Some(SimTime::from_millis(100)));
        assert!(s.poll_transmit(SimTime::from_millis(100)).is_some());
    }
}
