//! The TCP receiver: cumulative and selective acknowledgements, delayed ACKs, in-order delivery.
//!
//! ```text
//! ACK.ack  = RCV.NXT, the next segment expected               (RFC 793)
//! SACK     = block holding the segment that triggered this ACK, then the most recently reported
//!            blocks still valid, then any others; at most MAX_SACK_BLOCKS  (RFC 2018 §4)
//! ACK now  : out-of-order or duplicate segment, segment filling (part of) a hole  (RFC 5681 §4.2)
//! delayed  : otherwise, after `every` in-order segments or `max_delay`, whichever comes first
//! ```
//!
//! Out-of-order segments are kept as a sorted set of ranges (one per island between holes), each
//! with the payload bytes it holds, so a hole filled delivers the island behind it in O(1).
//!
//! Deviations: no receive-buffer limit (the sender's `rwnd` models it); no quick-ACK mode at
//! connection start (Linux acknowledges the first segments at once, and again on CE).
//!
//! ECN (RFC 3168 §6.1.3, when the connection is ECN-capable): after a CE-marked segment every
//! ACK carries ECE until a segment with CWR arrives; CE on that segment starts a new echo.

use super::config::{DelayedAck, TcpConfig};
use super::ranges::SeqRanges;
use crate::net::packet::{Header, Packet, SackBlock, SackBlocks, MAX_SACK_BLOCKS, TCP_IP_HEADER};
use crate::time::SimTime;
use crate::transport::{Addr, Probe, Transport};
use std::collections::VecDeque;

pub struct TcpReceiver {
    addr: Addr,
    /// RCV.NXT: the next segment expected. I.e. every segment below it has been delivered.
    rcv_nxt: u64,
    /// Segments received above `rcv_nxt`, with their payload bytes.
    out_of_order: SeqRanges,
    /// Payload bytes delivered in order (duplicates excluded).
    delivered_bytes: u64,
    delayed_ack: Option<DelayedAck>,
    /// In-order segments received since the last ACK.
    unacked: u32,
    /// When the delayed ACK must go out, if one is pending.
    delack_at: Option<SimTime>,
    /// The connection is ECN-capable (RFC 3168).
    ecn: bool,
    /// Set ECE on ACKs: a CE-marked segment arrived after the last CWR.
    ece: bool,
    /// SACK blocks of the last ACK, most recent first (RFC 2018 §4 repeats them).
    reported: SackBlocks,
    /// ACKs built and not yet taken by `poll_transmit`.
    outbox: VecDeque<Packet>,
}

impl TcpReceiver {
    pub fn new(addr: Addr, cfg: &TcpConfig) -> Self {
        TcpReceiver {
            addr,
            rcv_nxt: 0,
            out_of_order: SeqRanges::new(),
            delivered_bytes: 0,
            delayed_ack: cfg.delayed_ack.clone(),
            unacked: 0,
            delack_at: None,
            ecn: cfg.ecn,
            ece: false,
            reported: SackBlocks::default(),
            outbox: VecDeque::with_capacity(4),
        }
    }

    /// RCV.NXT, the cumulative acknowledgement.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    fn on_segment(&mut self, now: SimTime, seq: u64, len: u32) {
        if seq < self.rcv_nxt {
            // A duplicate: tell the sender at once where we are (RFC 5681 §4.2).
            self.ack_now(now, None);
            return;
        }
        if seq > self.rcv_nxt {
            let mut new = false;
            let i = self.out_of_order.insert(seq, seq + 1, |_, _| new = true);
            if new {
                self.out_of_order.add_bytes(i, len as u64);
            }
            self.ack_now(now, Some(seq));
            return;
        }
        let fills_hole = !self.out_of_order.is_empty();
        self.rcv_nxt += 1;
        self.delivered_bytes += len as u64;
        if let Some(island) = self.out_of_order.pop_first_starting_at(self.rcv_nxt) {
            self.rcv_nxt = island.end;
            self.delivered_bytes += island.bytes;
        }
        match &self.delayed_ack {
            Some(d) if !fills_hole => {
                self.unacked += 1;
                if self.unacked >= d.every {
                    self.ack_now(now, None);
                } else if self.delack_at.is_none() {
                    self.delack_at = Some(now + d.max_delay);
                }
            }
            _ => self.ack_now(now, None),
        }
    }

    /// Queues an ACK for `now`; `trigger` is the out-of-order segment that caused it, if any.
    fn ack_now(&mut self, now: SimTime, trigger: Option<u64>) {
        let sack = self.sack_blocks(trigger);
        self.reported = sack;
        self.unacked = 0;
        self.delack_at = None;
        let ece = self.ece;
        self.outbox.push_back(Packet {
            flow: self.addr.flow,
            src: self.addr.local,
            dst: self.addr.remote,
            size: TCP_IP_HEADER + sack.option_bytes(),
            sent_at: now,
            ce: false,
            header: Header::TcpAck { ack: self.rcv_nxt, sack, ece },
        });
    }

    /// SACK blocks per RFC 2018 §4: the block holding the triggering segment first, then the
    /// blocks of the previous ACK that still exist (each as it is now, possibly grown), then
    /// other islands from the highest down ("as many distinct SACK blocks as possible").
    fn sack_blocks(&self, trigger: Option<u64>) -> SackBlocks {
        let mut chosen = [usize::MAX; MAX_SACK_BLOCKS];
        let mut n = 0;
        let mut choose = |i: usize| {
            if n < MAX_SACK_BLOCKS && !chosen[..n].contains(&i) {
                chosen[n] = i;
                n += 1;
            }
        };
        if let Some(i) = trigger.and_then(|s| self.out_of_order.find(s)) {
            choose(i);
        }
        for b in self.reported.as_slice() {
            if let Some(i) = self.out_of_order.find(b.start) {
                choose(i);
            }
        }
        // At most MAX_SACK_BLOCKS islands are skipped before the slots are full.
        for i in (0..self.out_of_order.len()).rev().take(2 * MAX_SACK_BLOCKS) {
            choose(i);
        }
        let mut blocks = SackBlocks::default();
        for &i in &chosen[..n] {
            let r = self.out_of_order.get(i);
            blocks.push(SackBlock { start: r.start, end: r.end });
        }
        blocks
    }
}

impl Transport for TcpReceiver {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        if let Header::TcpData { seq, len, cwr, .. } = pkt.header {
            if self.ecn {
                // Linux tcp_ecn_accept_cwr, then __tcp_ecn_check_ce: CE on a CWR segment re-arms.
                self.ece = (self.ece && !cwr) || pkt.ce;
            }
            self.on_segment(now, seq, len);
        }
    }

    fn handle_timeout(&mut self, now: SimTime) {
        if self.delack_at.is_some_and(|t| t <= now) {
            self.ack_now(now, None);
        }
    }

    fn poll_transmit(&mut self, _now: SimTime) -> Option<Packet> {
        self.outbox.pop_front()
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        self.delack_at
    }

    fn probe(&self) -> Probe {
        Probe { delivered_bytes: self.delivered_bytes, ..Probe::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{FlowId, NodeId};
    use crate::time::SimDuration;

    fn addr() -> Addr {
        Addr { flow: FlowId(7), local: NodeId(2), remote: NodeId(1) }
    }

    fn data(seq: u64, len: u32) -> Packet {
        Packet {
            flow: FlowId(7),
            src: NodeId(1),
            dst: NodeId(2),
            size: len + TCP_IP_HEADER,
            sent_at: SimTime::ZERO,
            ce: false,
            header: Header::TcpData { seq, len, retransmit: false, ect: false, cwr: false },
        }
    }

    /// An ACK as (cumulative ack, SACK blocks, ECE).
    type Ack = (u64, Vec<(u64, u64)>, bool);

    /// Delivers `seq` at `now` and returns the ACKs it caused.
    fn recv(r: &mut TcpReceiver, now: SimTime, seq: u64) -> Vec<Ack> {
        r.handle_packet(now, &data(seq, 1000));
        drain(r, now)
    }

    fn drain(r: &mut TcpReceiver, now: SimTime) -> Vec<Ack> {
        let mut out = Vec::new();
        while let Some(p) = r.poll_transmit(now) {
            let Header::TcpAck { ack, sack, ece } = p.header else { panic!("not an ACK") };
            assert_eq!(p.size, TCP_IP_HEADER + sack.option_bytes());
            assert_eq!((p.src, p.dst, p.sent_at), (NodeId(2), NodeId(1), now));
            out.push((ack, sack.as_slice().iter().map(|b| (b.start, b.end)).collect(), ece));
        }
        out
    }

    fn immediate() -> TcpReceiver {
        TcpReceiver::new(addr(), &TcpConfig::default())
    }

    fn delayed() -> TcpReceiver {
        let cfg = TcpConfig { delayed_ack: Some(DelayedAck::default()), ..TcpConfig::default() };
        TcpReceiver::new(addr(), &cfg)
    }

    #[test]
    fn in_order_segments_advance_the_cumulative_ack() {
        let mut r = immediate();
        let t = SimTime::ZERO;
        assert_eq!(recv(&mut r, t, 0), vec![(1, vec![], false)]);
        assert_eq!(recv(&mut r, t, 1), vec![(2, vec![], false)]);
        assert_eq!(r.rcv_nxt(), 2);
        assert_eq!(r.probe().delivered_bytes, 2000);
        assert_eq!(r.poll_timeout(), None);
    }

    #[test]
    fn sack_blocks_put_the_triggering_block_first_rfc2018_section4() {
        // Segment 0 is lost; 1, 3, 5, 7 arrive, then 2 fills the hole between 1 and 3, then 0.
        let mut r = immediate();
        let t = SimTime::ZERO;
        assert_eq!(recv(&mut r, t, 1), vec![(0, vec![(1, 2)], false)]);
        assert_eq!(recv(&mut r, t, 3), vec![(0, vec![(3, 4), (1, 2)], false)]);
        assert_eq!(recv(&mut r, t, 5), vec![(0, vec![(5, 6), (3, 4), (1, 2)], false)]);
        assert_eq!(recv(&mut r, t, 7), vec![(0, vec![(7, 8), (5, 6), (3, 4)], false)]);
        assert_eq!(recv(&mut r, t, 2), vec![(0, vec![(1, 4), (7, 8), (5, 6)], false)]);
        assert_eq!(recv(&mut r, t, 0), vec![(4, vec![(7, 8), (5, 6)], false)]);
        assert_eq!(r.probe().delivered_bytes, 4000);
        assert_eq!(recv(&mut r, t, 4), vec![(6, vec![(7, 8)], false)]);
        assert_eq!(recv(&mut r, t, 6), vec![(8, vec![], false)]);
        assert_eq!(r.probe().delivered_bytes, 8000);
    }

    #[test]
    fn sack_fills_every_slot_when_islands_outnumber_recent_blocks() {
        // Five islands arrive highest first, so the last ACK reports the three lowest; once the
        // lowest is delivered, the free slot goes to the highest unreported island.
        let mut r = immediate();
        let t = SimTime::ZERO;
        for seq in [10, 8, 6, 4, 2] {
            recv(&mut r, t, seq);
        }
        assert_eq!(recv(&mut r, t, 0), vec![(1, vec![(2, 3), (4, 5), (6, 7)], false)]);
        assert_eq!(recv(&mut r, t, 1), vec![(3, vec![(4, 5), (6, 7), (10, 11)], false)]);
    }

    #[test]
    fn duplicates_are_acked_at_once_but_not_delivered_twice() {
        let mut r = immediate();
        let t = SimTime::ZERO;
        recv(&mut r, t, 0);
        recv(&mut r, t, 2);
        assert_eq!(recv(&mut r, t, 0), vec![(1, vec![(2, 3)], false)]);
        assert_eq!(recv(&mut r, t, 2), vec![(1, vec![(2, 3)], false)]);
        assert_eq!(r.probe().delivered_bytes, 1000);
        recv(&mut r, t, 1);
        assert_eq!(r.probe().delivered_bytes, 3000);
        recv(&mut r, t, 1);
        assert_eq!(r.probe().delivered_bytes, 3000);
    }

    #[test]
    fn delayed_ack_acknowledges_every_second_segment() {
        let mut r = delayed();
        let t0 = SimTime::from_millis(1);
        assert_eq!(recv(&mut r, t0, 0), vec![]);
        assert_eq!(r.poll_timeout(), Some(SimTime::from_millis(41)));
        assert_eq!(recv(&mut r, t0, 1), vec![(2, vec![], false)]);
        assert_eq!(r.poll_timeout(), None);
        assert_eq!(recv(&mut r, t0, 2), vec![]);
        assert_eq!(recv(&mut r, t0, 3), vec![(4, vec![], false)]);
    }

    #[test]
    fn delayed_ack_timer_sends_a_lone_ack() {
        let mut r = delayed();
        assert_eq!(recv(&mut r, SimTime::ZERO, 0), vec![]);
        let due = r.poll_timeout().unwrap();
        assert_eq!(due, SimTime::ZERO + SimDuration::from_millis(40));
        r.handle_timeout(due);
        assert_eq!(drain(&mut r, due), vec![(1, vec![], false)]);
        assert_eq!(r.poll_timeout(), None);
        // A stale wake-up does nothing.
        r.handle_timeout(due);
        assert_eq!(drain(&mut r, due), vec![]);
    }

    #[test]
    fn out_of_order_and_hole_filling_segments_are_acked_at_once() {
        let mut r = delayed();
        let t = SimTime::ZERO;
        assert_eq!(recv(&mut r, t, 0), vec![]);
        // Out of order: immediate, and it also acknowledges the delayed segment 0.
        assert_eq!(recv(&mut r, t, 2), vec![(1, vec![(2, 3)], false)]);
        assert_eq!(r.poll_timeout(), None);
        // Fills the hole: immediate.
        assert_eq!(recv(&mut r, t, 1), vec![(3, vec![], false)]);
        // Back to delaying.
        assert_eq!(recv(&mut r, t, 3), vec![]);
    }

    #[test]
    fn congestion_experienced_is_echoed_until_cwr_when_ecn_is_on() {
        let cfg = TcpConfig { delayed_ack: None, ecn: true, ..TcpConfig::default() };
        let mut r = TcpReceiver::new(addr(), &cfg);
        let t = SimTime::ZERO;
        let mut p = data(0, 1000);
        p.ce = true;
        r.handle_packet(t, &p);
        assert_eq!(drain(&mut r, t), vec![(1, vec![], true)]);
        // RFC 3168 §6.1.3: every later ACK echoes too, until a segment with CWR arrives.
        assert_eq!(recv(&mut r, t, 1), vec![(2, vec![], true)]);
        // Without ECN negotiated, CE is not echoed.
        let mut plain = immediate();
        plain.handle_packet(t, &p);
        assert_eq!(drain(&mut plain, t), vec![(1, vec![], false)]);
    }
}
