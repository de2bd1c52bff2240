//! Tail drop: admit while the packet fits under the limit; optionally tell the source of each
//! dropped packet with an ICMP Source Quench (RFC 792; seed 004 §3.2), and optionally mark ECN
//! at a step threshold K (DCTCP's switch, RFC 8257 §3.1; Alizadeh et al. 2010 §3.1: "mark
//! arriving packets with CE if the queue occupancy is greater than K upon arrival"): an
//! ECN-capable arrival finding at least K waiting (packets or bytes, the one in service
//! excluded) is admitted with CE set. Other packets only ever meet the limit.

use super::{Admit, Arriving, QueueLimit};

#[derive(Clone, Debug)]
pub struct DropTail {
    pub limit: QueueLimit,
    /// Send ICMP Source Quench (code 0) to the source of every dropped packet.
    pub source_quench: bool,
    /// Step-marking threshold K, if the queue marks.
    pub ecn_threshold: Option<QueueLimit>,
}

impl DropTail {
    pub fn new(limit: QueueLimit) -> Self {
        DropTail { limit, source_quench: false, ecn_threshold: None }
    }

    #[inline]
    pub fn admit(&self, a: &Arriving) -> Admit {
        if !(a.link_idle || self.limit.fits(a.occ, a.size)) {
            Admit::DropFull
        } else if a.ect && self.ecn_threshold.is_some_and(|k| k.reached(a.occ)) {
            Admit::EnqueueMarked
        } else {
            Admit::Enqueue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::queue::Occupancy;
    use crate::time::SimTime;

    fn arriving(packets: u64, bytes: u64, size: u32) -> Arriving {
        Arriving {
            now: SimTime::ZERO,
            occ: Occupancy { packets, bytes },
            size,
            ect: false,
            link_idle: false,
            starts: SimTime::ZERO,
        }
    }

    #[test]
    fn droptail_in_packets_admits_up_to_limit() {
        let d = DropTail::new(QueueLimit::Packets(2));
        assert_eq!(d.admit(&arriving(1, 1500, 1500)), Admit::Enqueue);
        assert_eq!(d.admit(&arriving(2, 3000, 40)), Admit::DropFull);
    }

    #[test]
    fn droptail_in_bytes_counts_the_arrival() {
        let d = DropTail::new(QueueLimit::Bytes(3000));
        assert_eq!(d.admit(&arriving(1, 1500, 1500)), Admit::Enqueue);
        assert_eq!(d.admit(&arriving(1, 1500, 1501)), Admit::DropFull);
        // Small ACKs still fit where a full segment would not.
        assert_eq!(d.admit(&arriving(2, 2960, 40)), Admit::Enqueue);
    }

    #[test]
    fn step_marking_marks_ect_arrivals_from_k_waiting_and_leaves_the_rest_to_the_limit() {
        let d = DropTail {
            ecn_threshold: Some(QueueLimit::Packets(3)),
            ..DropTail::new(QueueLimit::Packets(5))
        };
        let ect = |packets| Arriving { ect: true, ..arriving(packets, packets * 1500, 1500) };
        assert_eq!(d.admit(&ect(2)), Admit::Enqueue);
        assert_eq!(d.admit(&ect(3)), Admit::EnqueueMarked);
        assert_eq!(d.admit(&ect(4)), Admit::EnqueueMarked);
        // Full: dropped, marked or not.
        assert_eq!(d.admit(&ect(5)), Admit::DropFull);
        // A packet that is not ECN-capable is never marked and waits up to the limit.
        assert_eq!(d.admit(&arriving(4, 6000, 1500)), Admit::Enqueue);
        // In bytes: K counts the bytes waiting.
        let d = DropTail {
            ecn_threshold: Some(QueueLimit::Bytes(3000)),
            ..DropTail::new(QueueLimit::Bytes(9000))
        };
        assert_eq!(d.admit(&Arriving { ect: true, ..arriving(2, 2999, 1500) }), Admit::Enqueue);
        assert_eq!(
            d.admit(&Arriving { ect: true, ..arriving(2, 3000, 1500) }),
            Admit::EnqueueMarked
        );
    }

    #[test]
    fn a_packet_finding_the_link_idle_never_waits_so_the_limit_does_not_apply() {
        let d = DropTail::new(QueueLimit::Bytes(1000));
        assert_eq!(d.admit(&Arriving { link_idle: true, ..arriving(0, 0, 1500) }), Admit::Enqueue);
        assert_eq!(d.admit(&arriving(0, 0, 1500)), Admit::DropFull);
    }
}
