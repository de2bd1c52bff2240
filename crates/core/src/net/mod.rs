//! Network elements: packets, links, queues, loss models, nodes and routing.
pub mod feeder;
pub mod icmp;
pub mod inbound;
pub mod link;
pub mod loss;
pub mod packet;
pub(crate) mod prefetch;
pub mod queue;
mod ring;
pub mod routing;
