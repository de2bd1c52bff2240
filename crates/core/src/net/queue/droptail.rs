//! Tail drop: admit while the packet fits under the limit; optionally tell the source of each
//! dropped packet with an ICMP Source Quench (RFC 792; seed 004 §3.2).

use super::{Admit, Arriving, QueueLimit};

#[derive(Clone, Debug)]
pub struct DropTail {
    pub limit: QueueLimit,
    /// Send ICMP Source Quench (code 0) to the source of every dropped packet.
    pub source_quench: bool,
}

impl DropTail {
    pub fn new(limit: QueueLimit) -> Self {
        DropTail { limit, source_quench: false }
    }

    pub fn admit(&self, a: &Arriving) -> Admit {
        if a.link_idle || self.limit.fits(a.occ, a.size) {
            Admit::Enqueue
        } else {
            Admit::DropFull
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
    fn a_packet_finding_the_link_idle_never_waits_so_the_limit_does_not_apply() {
        let d = DropTail::new(QueueLimit::Bytes(1000));
        assert_eq!(d.admit(&Arriving { link_idle: true, ..arriving(0, 0, 1500) }), Admit::Enqueue);
        assert_eq!(d.admit(&arriving(0, 0, 1500)), Admit::DropFull);
    }
}
