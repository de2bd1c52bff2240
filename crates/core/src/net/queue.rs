//! Queue disciplines: which arriving packets a link's buffer admits.
//!
//! The buffer itself (a FIFO of packet ids) lives in the [`Link`](super::link::Link); a
//! discipline only decides admission, seeing the occupancy at the arrival instant. The packet
//! being serialised is not in the buffer (as in ns-2's `qlimit` and Linux qdisc limits).

use crate::time::SimTime;

/// Buffer capacity, in packets or bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
}

impl std::fmt::Display for QueueLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QueueLimit::Packets(n) => write!(f, "{n}pkt"),
            QueueLimit::Bytes(n) => write!(f, "{n}B"),
        }
    }
}

/// What the buffer holds when a packet arrives.
#[derive(Clone, Copy, Debug, Default)]
pub struct Occupancy {
    pub packets: u64,
    pub bytes: u64,
}

/// The verdict on an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    Enqueue,
    Drop,
}

/// Tail drop: admit while the packet fits under the limit.
#[derive(Clone, Debug)]
pub struct DropTail {
    pub limit: QueueLimit,
}

impl DropTail {
    pub fn admit(&self, occ: Occupancy, size: u32) -> Admit {
        let fits = match self.limit {
            QueueLimit::Packets(n) => occ.packets < n,
            QueueLimit::Bytes(b) => occ.bytes + size as u64 <= b,
        };
        if fits {
            Admit::Enqueue
        } else {
            Admit::Drop
        }
    }
}

/// The disciplines a link can run (closed set, chosen by the scenario).
#[derive(Clone, Debug)]
pub enum QueueDisc {
    DropTail(DropTail),
}

impl QueueDisc {
    pub fn admit(&mut self, _now: SimTime, occ: Occupancy, size: u32) -> Admit {
        match self {
            QueueDisc::DropTail(d) => d.admit(occ, size),
        }
    }
    pub fn describe(&self) -> String {
        match self {
            QueueDisc::DropTail(d) => format!("droptail {}", d.limit),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn droptail_in_packets_admits_up_to_limit() {
        let d = DropTail { limit: QueueLimit::Packets(2) };
        assert_eq!(d.admit(Occupancy { packets: 1, bytes: 1500 }, 1500), Admit::Enqueue);
        assert_eq!(d.admit(Occupancy { packets: 2, bytes: 3000 }, 40), Admit::Drop);
    }

    #[test]
    fn droptail_in_bytes_counts_the_arrival() {
        let d = DropTail { limit: QueueLimit::Bytes(3000) };
        assert_eq!(d.admit(Occupancy { packets: 1, bytes: 1500 }, 1500), Admit::Enqueue);
        assert_eq!(d.admit(Occupancy { packets: 1, bytes: 1500 }, 1501), Admit::Drop);
        // Small ACKs still fit where a full segment would not.
        assert_eq!(d.admit(Occupancy { packets: 2, bytes: 2960 }, 40), Admit::Enqueue);
    }
}
