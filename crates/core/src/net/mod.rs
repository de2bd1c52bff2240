//! Network elements: packets, links (of fixed rate, or following a schedule or a trace), queues,
//! loss models, nodes and routing, and forwarding packets across them (`forward`).
pub mod feeder;
pub(crate) mod forward;
pub mod icmp;
pub mod inbound;
pub mod link;
pub mod loss;
pub mod packet;
pub(crate) mod prefetch;
pub mod queue;
mod ring;
pub mod routing;
pub mod schedule;
pub mod trace;
pub mod varying;
