//! The DCCP server: answers the handshake, delivers data, returns the CCID's feedback, and
//! answers Close with Reset (RFC 4340 §8).
//!
//! ```text
//! Listen ─Request─▶ Respond (Response, ack = Request; a repeated Request is answered again)
//! Respond ─Ack/DataAck─▶ Open            Open: every data packet is delivered once, in arrival
//! Close ─▶ Reset, Closed                 order; the CCID decides when an Ack leaves and what
//!                                        it carries (Ack Vector or TFRC feedback)
//! ```
//!
//! Acknowledgement numbers are the greatest sequence number received (GSR). Data is counted
//! when it arrives (DCCP delivers unordered and never sees retransmissions).

use super::{AnyCcidRx, RxPacket};
use crate::dccp::sender::DccpConfig;
use crate::net::packet::Packet;
use crate::time::SimTime;
use crate::transport::{Addr, Probe, Transport};
use crate::wire::dccp::{DccpHeader, DccpType};
use crate::wire::Header;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerState {
    Listen,
    Respond,
    Open,
    Closed,
}

pub struct DccpReceiver {
    addr: Addr,
    ccid: AnyCcidRx,
    state: ServerState,
    next_seq: u64,
    /// Greatest sequence number received from the client.
    gsr: Option<u64>,
    delivered_bytes: u64,
    data_received: u64,
    outbox: VecDeque<Packet>,
}

impl DccpReceiver {
    /// The server of a connection whose client sends `s`-byte messages.
    pub fn new(addr: Addr, cfg: &DccpConfig, s: u32) -> Self {
        let (_, ccid) = cfg.ccid.build(s);
        DccpReceiver {
            addr,
            ccid,
            state: ServerState::Listen,
            next_seq: 0,
            gsr: None,
            delivered_bytes: 0,
            data_received: 0,
            outbox: VecDeque::with_capacity(4),
        }
    }

    pub fn state(&self) -> ServerState {
        self.state
    }
    pub fn ccid(&self) -> &AnyCcidRx {
        &self.ccid
    }
    /// Data packets received.
    pub fn data_received(&self) -> u64 {
        self.data_received
    }

    fn reply(&mut self, now: SimTime, kind: DccpType) -> DccpHeader {
        let seq = self.next_seq;
        self.next_seq += 1;
        let mut h = DccpHeader::new(kind, false, seq);
        h.ack = self.gsr.unwrap_or(0);
        if kind == DccpType::Ack {
            h.options = self.ccid.inner_mut().feedback(now, seq);
        }
        h
    }

    fn queue(&mut self, now: SimTime, kind: DccpType) {
        let h = self.reply(now, kind);
        self.outbox.push_back(Packet {
            flow: self.addr.flow,
            src: self.addr.local,
            dst: self.addr.remote,
            size: h.wire_size(),
            sent_at: now,
            ce: false,
            header: Header::Dccp(h),
        });
    }
}

impl Transport for DccpReceiver {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        let Header::Dccp(h) = pkt.header else { return };
        if !h.from_client {
            return;
        }
        self.gsr = Some(self.gsr.map_or(h.seq, |g| g.max(h.seq)));
        match h.kind {
            DccpType::Request => {
                if matches!(self.state, ServerState::Listen | ServerState::Respond) {
                    self.state = ServerState::Respond;
                    self.queue(now, DccpType::Response);
                }
            }
            DccpType::Close => {
                // A repeated Close (our Reset was lost) is answered again.
                self.state = ServerState::Closed;
                self.queue(now, DccpType::Reset);
            }
            DccpType::Ack | DccpType::Data | DccpType::DataAck => {
                if self.state == ServerState::Closed || self.state == ServerState::Listen {
                    return;
                }
                if self.state == ServerState::Respond {
                    self.state = ServerState::Open;
                }
                if h.kind.is_data() {
                    self.delivered_bytes += h.len as u64;
                    self.data_received += 1;
                }
                let rx = RxPacket {
                    seq: h.seq,
                    kind: h.kind,
                    len: h.len,
                    ccval: h.ccval,
                    ack_ratio: h.ack_ratio,
                    ack: h.kind.has_ack().then_some(h.ack),
                };
                if self.ccid.inner_mut().on_packet(now, &rx) {
                    self.queue(now, DccpType::Ack);
                }
            }
            DccpType::Response | DccpType::Reset => {}
        }
    }

    fn handle_timeout(&mut self, now: SimTime) {
        if self.state == ServerState::Open && self.ccid.inner_mut().handle_timeout(now) {
            self.queue(now, DccpType::Ack);
        }
    }

    fn poll_transmit(&mut self, _now: SimTime) -> Option<Packet> {
        self.outbox.pop_front()
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        if self.state == ServerState::Open {
            self.ccid.inner().poll_timeout()
        } else {
            None
        }
    }

    fn probe(&self) -> Probe {
        Probe { delivered_bytes: self.delivered_bytes, ..Probe::default() }
    }
}
