//! What a link with a varying capacity does instead of sending at one rate: follow a schedule
//! of rates, delays and losses (`net::schedule`) or a delivery trace (`net::trace`).

use super::schedule::Schedule;
use super::trace::Trace;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug)]
pub enum Varying {
    Schedule(Schedule),
    Trace(Trace),
}

impl Varying {
    /// When the last bit of a `size`-byte packet that reached the link at `now` and starts at
    /// `start` (when the one before it is done) leaves.
    pub fn finish(&mut self, now: SimTime, start: SimTime, size: u32) -> SimTime {
        match self {
            Varying::Schedule(s) => s.finish(start, size),
            Varying::Trace(t) => t.finish(now, size),
        }
    }

    /// The propagation delay of a packet whose last bit leaves at `t`; `fixed` is the link's.
    pub fn delay_at(&self, t: SimTime, fixed: SimDuration) -> SimDuration {
        match self {
            Varying::Schedule(s) => s.delay_at(t),
            Varying::Trace(_) => fixed,
        }
    }

    /// Whether the packet reaching the link at `now` is lost.
    pub fn loses(&mut self, now: SimTime) -> bool {
        match self {
            Varying::Schedule(s) => s.loses(now),
            Varying::Trace(_) => false,
        }
    }

    /// The shortest propagation delay the link ever has; `fixed` is the link's.
    pub fn shortest_delay(&self, fixed: SimDuration) -> SimDuration {
        match self {
            Varying::Schedule(s) => s.shortest_delay(),
            Varying::Trace(_) => fixed,
        }
    }

    /// Bits the link can send between `from` and `to`.
    pub fn capacity_bits(&self, from: SimTime, to: SimTime) -> f64 {
        match self {
            Varying::Schedule(s) => s.capacity_bits(from, to),
            Varying::Trace(t) => t.capacity_bits(from, to),
        }
    }
}
