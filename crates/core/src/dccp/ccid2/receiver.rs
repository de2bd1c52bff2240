//! CCID 2's receiving half (RFC 4341 §6, RFC 4340 §11): an Ack Vector record, one
//! acknowledgement every Ack Ratio data packets or `max_ack_delay` after the first unacknowledged
//! one, and acks of acks that let it forget what the sender has seen.

use super::Ccid2Config;
use crate::dccp::ack_vector::AckVectorRecord;
use crate::dccp::{CcidRx, DccpOptions, RxPacket};
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

/// The receiving half: Ack Vectors, one acknowledgement per Ack Ratio data packets.
pub struct Ccid2Rx {
    record: AckVectorRecord,
    /// Ack Ratio the sender asked for.
    ratio: u16,
    /// Data packets received since the last acknowledgement.
    unacked: u32,
    delack_at: Option<SimTime>,
    max_delay: SimDuration,
    /// Our acknowledgements: (our sequence number, the Acknowledgement Number it carried).
    acks_sent: VecDeque<(u64, u64)>,
}

/// Acknowledgements remembered for acks of acks; older ones are forgotten (the sender has
/// acknowledged a later one or never will).
const ACKS_REMEMBERED: usize = 4096;

impl Ccid2Rx {
    pub fn new(cfg: &Ccid2Config) -> Self {
        Ccid2Rx {
            record: AckVectorRecord::new(),
            ratio: cfg.ack_ratio.max(1),
            unacked: 0,
            delack_at: None,
            max_delay: SimDuration::from_secs_f64(cfg.max_ack_delay_s),
            acks_sent: VecDeque::with_capacity(64),
        }
    }

    /// Bytes of the full Ack Vector held (shrinks when the sender acknowledges our Acks).
    pub fn vector_bytes(&self) -> u64 {
        self.record.encoded_len()
    }
}

impl CcidRx for Ccid2Rx {
    fn on_packet(&mut self, now: SimTime, pkt: &RxPacket) -> bool {
        self.record.on_packet(pkt.seq);
        if let Some(a) = pkt.ack {
            // RFC 4340 §11.4.2: the sender has our Ack `own`; forget what it reported.
            let mut through = None;
            while let Some(&(own, acked)) = self.acks_sent.front() {
                if own > a {
                    break;
                }
                through = Some(acked);
                self.acks_sent.pop_front();
            }
            if let Some(t) = through {
                self.record.forget_through(t);
            }
        }
        if !pkt.kind.is_data() {
            return false;
        }
        self.ratio = pkt.ack_ratio.max(1);
        self.unacked += 1;
        if self.unacked >= self.ratio as u32 {
            return true;
        }
        if self.delack_at.is_none() {
            self.delack_at = Some(now + self.max_delay);
        }
        false
    }

    fn feedback(&mut self, _now: SimTime, seq: u64) -> DccpOptions {
        self.unacked = 0;
        self.delack_at = None;
        let v = self.record.snapshot();
        self.acks_sent.push_back((seq, v.head()));
        if self.acks_sent.len() > ACKS_REMEMBERED {
            self.acks_sent.pop_front();
        }
        DccpOptions::AckVector(v)
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        self.delack_at
    }

    fn handle_timeout(&mut self, now: SimTime) -> bool {
        if self.delack_at.is_some_and(|t| t <= now) {
            self.delack_at = None;
            return self.unacked > 0;
        }
        false
    }
}
