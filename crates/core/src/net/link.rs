//! A link direction: a buffer with a queue discipline, a serialiser of fixed rate, and a
//! propagation pipe of fixed delay.
//!
//! ```text
//! arrive ─► loss model ─► queue discipline ─► FIFO buffer ─► serialiser (rate) ─► pipe (delay) ─► next node
//! ```
//! Packets being serialised or propagating live in the link itself (`in_service`, `pipe`), in
//! order, so the engine keeps at most two pending events per link: the end of the current
//! transmission and the next arrival at the far end. The event queue therefore stays
//! O(links + timers) however many packets are in flight.

use super::icmp::QuenchCode;
use super::loss::LossModel;
use super::packet::{HopView, NodeId, Packet, PktId};
use super::queue::{Admit, Arriving, Occupancy, QueueDisc};
use crate::rng::Rng;
use crate::time::{Rate, SimDuration, SimTime};
use std::collections::VecDeque;

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropCause {
    /// The buffer was full.
    Queue,
    /// The queue discipline dropped it early (RED).
    Early,
    /// The link's loss model.
    Loss,
}

/// What happened to a packet handed to the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// Waiting in the buffer.
    Queued,
    /// The link was idle: serialisation started and ends at the given instant.
    Transmitting { done_at: SimTime },
    Dropped(DropCause),
}

/// What the link did with an arriving packet, and what the router must tell the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Admission {
    pub arrival: Arrival,
    /// The queue set Congestion Experienced on the packet (RFC 3168).
    pub marked: bool,
    /// The router at the link's input must send an ICMP Source Quench about the packet.
    pub quench: Option<QuenchCode>,
}

/// Cumulative counters of a link direction.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LinkCounters {
    pub tx_pkts: u64,
    pub tx_bytes: u64,
    pub dropped_pkts: u64,
    /// ∫ queue length dt, packet·nanoseconds (for time-averaged occupancy).
    pub queue_pkt_ns: u128,
    /// ∫ queue bytes dt, byte·nanoseconds.
    pub queue_byte_ns: u128,
    /// Of the drops, those the queue discipline made early (RED).
    pub early_dropped_pkts: u64,
    /// Packets marked Congestion Experienced (RFC 3168).
    pub marked_pkts: u64,
    /// ICMP Source Quench messages the router sent about packets at this link (RFC 792).
    pub quench_pkts: u64,
}

pub struct Link {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub delay: SimDuration,
    disc: QueueDisc,
    loss: Option<LossModel>,
    buffer: VecDeque<(PktId, u32)>,
    buffer_bytes: u64,
    in_service: Option<(PktId, u32)>,
    /// Packets propagating, with their arrival instants (non-decreasing).
    pipe: VecDeque<(SimTime, PktId)>,
    counters: LinkCounters,
    last_change: SimTime,
    /// Largest buffer occupancy since the last `reset_max_queue`, packets.
    max_queue: u64,
    /// Scenario `jitter`: each packet's propagation takes up to this much longer, drawn per
    /// packet (order kept).
    delay_jitter: Option<(SimDuration, Rng)>,
}

impl Link {
    pub fn new(name: String, from: NodeId, to: NodeId, rate: Rate, delay: SimDuration, disc: QueueDisc, loss: Option<LossModel>) -> Self {
        Link {
            name,
            from,
            to,
            rate,
            delay,
            disc,
            loss,
            buffer: VecDeque::new(),
            buffer_bytes: 0,
            in_service: None,
            pipe: VecDeque::new(),
            counters: LinkCounters::default(),
            last_change: SimTime::ZERO,
            max_queue: 0,
            delay_jitter: None,
        }
    }

    /// Adds up to `max` of random delay to each packet's propagation, from `rng`; a packet never
    /// overtakes the one before it (the link stays FIFO).
    pub fn with_delay_jitter(mut self, max: SimDuration, rng: Rng) -> Self {
        self.delay_jitter = (max > SimDuration::ZERO).then_some((max, rng));
        self
    }

    pub fn queue_description(&self) -> String {
        self.disc.describe()
    }

    /// Brings the occupancy integrals up to `now`.
    fn account(&mut self, now: SimTime) {
        let dt = now.saturating_since(self.last_change).as_nanos() as u128;
        self.counters.queue_pkt_ns += self.buffer.len() as u128 * dt;
        self.counters.queue_byte_ns += self.buffer_bytes as u128 * dt;
        self.last_change = now;
    }

    /// A packet arrives at the link's input. The queue may set its CE mark.
    /// `hop` is the packet's [`HopView`]; the packet itself is read only by a loss model and
    /// written only to mark it.
    pub fn arrive(&mut self, now: SimTime, id: PktId, hop: HopView, pkt: &mut Packet) -> Admission {
        let quench_on_drop = self.disc.source_quench().then_some(QuenchCode::Dropped);
        if let Some(loss) = &mut self.loss {
            if loss.drops(pkt) {
                self.counters.dropped_pkts += 1;
                // As in seed 004 §5.3, where ns-2's error model discards at the router's queue.
                return self.admission(Arrival::Dropped(DropCause::Loss), false, quench_on_drop);
            }
        }
        let link_idle = self.in_service.is_none();
        let occ = Occupancy { packets: self.buffer.len() as u64, bytes: self.buffer_bytes };
        let (marked, quench) = match self.disc.admit(&Arriving { now, occ, size: hop.size, ect: hop.ect, link_idle }) {
            Admit::Enqueue => (false, None),
            Admit::EnqueueMarked => (true, None),
            Admit::EnqueueQuenched => (false, Some(QuenchCode::CongestionExperienced)),
            Admit::DropFull => {
                self.counters.dropped_pkts += 1;
                return self.admission(Arrival::Dropped(DropCause::Queue), false, quench_on_drop);
            }
            Admit::DropEarly => {
                self.counters.dropped_pkts += 1;
                self.counters.early_dropped_pkts += 1;
                return self.admission(Arrival::Dropped(DropCause::Early), false, quench_on_drop);
            }
        };
        if marked {
            pkt.ce = true;
            self.counters.marked_pkts += 1;
        }
        let arrival = if link_idle {
            debug_assert!(self.buffer.is_empty());
            self.in_service = Some((id, hop.size));
            Arrival::Transmitting { done_at: now + self.rate.tx_time(hop.size) }
        } else {
            self.account(now);
            self.buffer.push_back((id, hop.size));
            self.buffer_bytes += hop.size as u64;
            self.max_queue = self.max_queue.max(self.buffer.len() as u64);
            Arrival::Queued
        };
        self.admission(arrival, marked, quench)
    }

    fn admission(&mut self, arrival: Arrival, marked: bool, quench: Option<QuenchCode>) -> Admission {
        self.counters.quench_pkts += quench.is_some() as u64;
        Admission { arrival, marked, quench }
    }

    /// The packet in service finished serialisation at `now`. It enters the pipe; returns
    /// `(arrival instant to schedule if the pipe was empty, end of the next transmission if
    /// one starts)`.
    pub fn finish_transmission(&mut self, now: SimTime) -> (Option<SimTime>, Option<SimTime>) {
        let (id, size) = self.in_service.take().expect("transmission finished on an idle link");
        self.counters.tx_pkts += 1;
        self.counters.tx_bytes += size as u64;
        let extra = self.delay_jitter.as_mut().map_or(SimDuration::ZERO, |(max, rng)| SimDuration::from_nanos(rng.uniform_range(0.0, max.as_nanos() as f64) as u64));
        let arrive_at = (now + self.delay + extra).max(self.pipe.back().map_or(SimTime::ZERO, |&(t, _)| t));
        let schedule_arrival = self.pipe.is_empty().then_some(arrive_at);
        self.pipe.push_back((arrive_at, id));
        let next_done = if let Some((next, size)) = self.buffer.front().copied() {
            self.account(now);
            self.buffer.pop_front();
            self.buffer_bytes -= size as u64;
            self.in_service = Some((next, size));
            Some(now + self.rate.tx_time(size))
        } else {
            self.disc.on_idle(now);
            None
        };
        (schedule_arrival, next_done)
    }

    /// Removes the packet reaching the far end at `now`; returns it and the next packet in the
    /// pipe with its arrival instant.
    pub fn pop_arrival(&mut self, now: SimTime) -> (PktId, Option<(SimTime, PktId)>) {
        let (at, id) = self.pipe.pop_front().expect("arrival event on an empty pipe");
        debug_assert_eq!(at, now);
        (id, self.pipe.front().copied())
    }

    /// Counters with the occupancy integrals brought up to `now`.
    pub fn counters(&mut self, now: SimTime) -> LinkCounters {
        self.account(now);
        self.counters
    }

    /// The baseline of a measurement window opening at `now`: the counters with the packet being
    /// serialised counted as already sent, so that the window counts only packets whose whole
    /// transmission lies inside it and `tx_bytes · 8 ≤ rate · window` holds exactly.
    pub fn window_start_counters(&mut self, now: SimTime) -> LinkCounters {
        let mut c = self.counters(now);
        if let Some((_, size)) = self.in_service {
            c.tx_pkts += 1;
            c.tx_bytes += size as u64;
        }
        c
    }

    pub fn queue_len(&self) -> u64 {
        self.buffer.len() as u64
    }

    /// Largest occupancy since the last reset, then resets it to the current occupancy.
    pub fn take_max_queue(&mut self) -> u64 {
        let m = self.max_queue;
        self.max_queue = self.buffer.len() as u64;
        m
    }

    /// Packets held by the link: buffered, in service, propagating.
    pub fn held_packets(&self) -> impl Iterator<Item = PktId> + '_ {
        self.buffer.iter().map(|&(id, _)| id).chain(self.in_service.map(|(id, _)| id)).chain(self.pipe.iter().map(|&(_, id)| id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{FlowId, Header};
    use crate::net::queue::{DropTail, QueueLimit, Red, RedConfig};
    use crate::rng::{Rng, StreamKind};

    fn pkt() -> Packet {
        Packet {
            flow: FlowId(0),
            src: NodeId(0),
            dst: NodeId(1),
            size: 1250,
            sent_at: SimTime::ZERO,
            ce: false,
            header: Header::Udp { seq: 0, len: 1222 },
        }
    }

    fn arrive(l: &mut Link, now: SimTime, id: PktId, p: &mut Packet) -> Admission {
        l.arrive(now, id, HopView::of(p), p)
    }

    fn link(limit: u64) -> Link {
        let disc = QueueDisc::DropTail(DropTail::new(QueueLimit::Packets(limit)));
        Link::new("a->b".into(), NodeId(0), NodeId(1), Rate::mbps(10), SimDuration::from_millis(5), disc, None)
    }

    #[test]
    fn packets_serialise_back_to_back_then_propagate() {
        let mut l = link(10);
        let t0 = SimTime::ZERO;
        // 1250 B at 10 Mbit/s = 1 ms.
        assert_eq!(arrive(&mut l, t0, PktId(0), &mut pkt()).arrival, Arrival::Transmitting { done_at: SimTime::from_millis(1) });
        assert_eq!(arrive(&mut l, t0, PktId(1), &mut pkt()).arrival, Arrival::Queued);
        let (arr, next) = l.finish_transmission(SimTime::from_millis(1), );
        assert_eq!(arr, Some(SimTime::from_millis(6)));
        assert_eq!(next, Some(SimTime::from_millis(2)));
        let (arr, next) = l.finish_transmission(SimTime::from_millis(2), );
        assert_eq!(arr, None, "an arrival is already pending");
        assert_eq!(next, None);
        assert_eq!(l.pop_arrival(SimTime::from_millis(6)), (PktId(0), Some((SimTime::from_millis(7), PktId(1)))));
        assert_eq!(l.pop_arrival(SimTime::from_millis(7)), (PktId(1), None));
        assert_eq!(l.counters(SimTime::from_millis(7)).tx_bytes, 2500);
    }

    #[test]
    fn full_buffer_drops_and_occupancy_integrates() {
        let mut l = link(1);
        let t0 = SimTime::ZERO;
        arrive(&mut l, t0, PktId(0), &mut pkt());
        assert_eq!(arrive(&mut l, t0, PktId(1), &mut pkt()).arrival, Arrival::Queued);
        assert_eq!(arrive(&mut l, t0, PktId(2), &mut pkt()).arrival, Arrival::Dropped(DropCause::Queue));
        l.finish_transmission(SimTime::from_millis(1), );
        let c = l.counters(SimTime::from_millis(2));
        assert_eq!(c.dropped_pkts, 1);
        // One packet waited 1 ms.
        assert_eq!(c.queue_pkt_ns, 1_000_000);
    }

    #[test]
    fn a_quenching_queue_reports_code_zero_for_drops_and_no_message_for_admitted_packets() {
        let mut d = DropTail::new(QueueLimit::Packets(1));
        d.source_quench = true;
        let mut l = Link::new("a->b".into(), NodeId(0), NodeId(1), Rate::mbps(10), SimDuration::ZERO, QueueDisc::DropTail(d), None);
        let t0 = SimTime::ZERO;
        assert_eq!(arrive(&mut l, t0, PktId(0), &mut pkt()).quench, None);
        assert_eq!(arrive(&mut l, t0, PktId(1), &mut pkt()).quench, None);
        let full = arrive(&mut l, t0, PktId(2), &mut pkt());
        assert_eq!((full.arrival, full.quench), (Arrival::Dropped(DropCause::Queue), Some(QuenchCode::Dropped)));
        assert_eq!(l.counters(t0).quench_pkts, 1);
    }

    #[test]
    fn red_with_ecn_marks_the_packet_in_place_instead_of_dropping_it() {
        // w_q = 1, thresholds 0..1 and max_p = 1: a packet that finds another waiting sees
        // avg ≥ max_th and is acted on for sure; ECT packets are marked, never dropped, while the
        // buffer has room.
        let cfg = RedConfig { min_th: 0.0, max_th: 1.0, max_p: 1.0, wq: 1.0, ecn: true, ..RedConfig::default() };
        let red = Red::new(cfg, QueueLimit::Packets(100), Rate::mbps(10), Rng::stream(1, StreamKind::Queue, 0));
        let mut l = Link::new("a->b".into(), NodeId(0), NodeId(1), Rate::mbps(10), SimDuration::ZERO, QueueDisc::Red(Box::new(red)), None);
        let mut ect = pkt();
        ect.header = Header::TcpData { seq: 0, len: 1210, retransmit: false, ect: true, cwr: false, ts: None };
        let t0 = SimTime::ZERO;
        let mut p = ect;
        assert!(!arrive(&mut l, t0, PktId(0), &mut p).marked, "avg 0: the first packet passes");
        let mut p = ect;
        assert!(!arrive(&mut l, t0, PktId(1), &mut p).marked, "the buffer was still empty");
        let mut marked = 0;
        for i in 2..10 {
            let mut p = ect;
            let a = arrive(&mut l, t0, PktId(i), &mut p);
            assert_eq!(a.arrival, Arrival::Queued);
            assert_eq!(a.marked, p.ce);
            marked += a.marked as u64;
        }
        assert_eq!(marked, 8);
        assert_eq!(l.counters(t0).marked_pkts, 8);
        assert_eq!(l.counters(t0).dropped_pkts, 0);
    }
}
