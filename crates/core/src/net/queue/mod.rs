//! Queue disciplines: which arriving packets a link's buffer admits, and how congestion is
//! signalled to the sources.
//!
//! The buffer itself (a FIFO of packet ids) lives in the [`Link`](super::link::Link); a
//! discipline only decides admission, seeing the occupancy at the arrival instant. The packet
//! being serialised is not in the buffer (as in ns-2's `qlimit` and Linux qdisc limits).
//!
//! | discipline | file          | decides                                                         |
//! |------------|---------------|-----------------------------------------------------------------|
//! | DropTail   | `droptail.rs` | admit while the packet fits under the limit; optional ECN step mark |
//! | RED        | `red.rs`      | early drop / ECN mark / Source Quench from an averaged queue    |
//! | PIE        | `pie.rs`      | early drop / ECN mark with a probability steered by queue delay |
//!
//! Every discipline sees every arrival, including one that finds the link idle and goes straight
//! to the serialiser (RED must update its average then, as in ns-2 and Linux); the buffer limit
//! only applies to packets that must wait. The buffer is FIFO, so an arrival already knows when
//! it would leave the buffer (`Arriving::starts`), which a discipline that reads queueing delays
//! (PIE) keeps.

pub mod droptail;
pub mod pie;
pub mod red;

pub use droptail::DropTail;
pub use pie::{Pie, PieConfig};
pub use red::{Red, RedConfig, RedMode, RedVariant};

use crate::time::SimTime;

/// Buffer capacity, in packets or bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
}

impl QueueLimit {
    /// True if a packet of `size` bytes fits in a buffer holding `occ`.
    pub fn fits(self, occ: Occupancy, size: u32) -> bool {
        match self {
            QueueLimit::Packets(n) => occ.packets < n,
            QueueLimit::Bytes(b) => occ.bytes + size as u64 <= b,
        }
    }

    /// True if the buffer holds at least this much (a marking threshold reached).
    pub fn reached(self, occ: Occupancy) -> bool {
        match self {
            QueueLimit::Packets(n) => occ.packets >= n,
            QueueLimit::Bytes(b) => occ.bytes >= b,
        }
    }
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

/// A packet arriving at a link, as a discipline sees it.
#[derive(Clone, Copy, Debug)]
pub struct Arriving {
    pub now: SimTime,
    /// The buffer at the arrival instant (the packet in service excluded).
    pub occ: Occupancy,
    /// Bytes on the wire.
    pub size: u32,
    /// The packet carries an ECN-capable transport codepoint (RFC 3168 §5).
    pub ect: bool,
    /// Nothing is being serialised: the packet goes straight onto the wire if admitted, so the
    /// buffer limit does not apply to it.
    pub link_idle: bool,
    /// When it would leave the buffer if admitted (`now` if the link is idle): the buffer is
    /// FIFO, so this is fixed on arrival.
    pub starts: SimTime,
}

/// The verdict on an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    Enqueue,
    /// Enqueue with Congestion Experienced set (RED with `ecn`, or DropTail's step threshold;
    /// ECT packet; RFC 3168 §5).
    EnqueueMarked,
    /// Enqueue, and tell the source with an ICMP Source Quench of code 1 ("congestion
    /// experienced", seed 004 §3.2: RED chose the packet for an early drop but keeps it).
    EnqueueQuenched,
    /// The buffer is full (tail drop).
    DropFull,
    /// RED or PIE chose the packet for an early drop.
    DropEarly,
}

/// The disciplines a link can run (closed set, chosen by the scenario).
#[derive(Clone, Debug)]
pub enum QueueDisc {
    DropTail(DropTail),
    Red(Box<Red>),
    Pie(Box<Pie>),
}

impl QueueDisc {
    #[inline]
    pub fn admit(&mut self, a: &Arriving) -> Admit {
        match self {
            QueueDisc::DropTail(d) => d.admit(a),
            QueueDisc::Red(r) => r.admit(a),
            QueueDisc::Pie(p) => p.admit(a),
        }
    }

    /// The link finished a transmission and found the buffer empty at `now`.
    pub fn on_idle(&mut self, now: SimTime) {
        match self {
            QueueDisc::DropTail(_) | QueueDisc::Pie(_) => {}
            QueueDisc::Red(r) => r.on_idle(now),
        }
    }

    /// The router sends ICMP Source Quench (code 0) for the packets this queue drops (RFC 792).
    pub fn source_quench(&self) -> bool {
        match self {
            QueueDisc::DropTail(d) => d.source_quench,
            QueueDisc::Red(r) => r.config().source_quench,
            QueueDisc::Pie(_) => false,
        }
    }

    pub fn describe(&self) -> String {
        match self {
            QueueDisc::DropTail(d) => {
                let mark = d.ecn_threshold.map(|k| format!(" mark {k}")).unwrap_or_default();
                format!("droptail {}{mark}{}", d.limit, if d.source_quench { " sq" } else { "" })
            }
            QueueDisc::Red(r) => r.describe(),
            QueueDisc::Pie(p) => p.describe(),
        }
    }
}
