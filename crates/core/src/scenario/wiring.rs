//! The network under construction: named nodes and link directions, each with its queue, loss
//! model and delay jitter. The topology builders (`topology/`), the background attachment and
//! `build.rs` add to it.

use super::jitter::Jitter;
use super::QueueSpec;
use crate::net::link::Link;
use crate::net::loss::LossModel;
use crate::net::packet::{LinkId, NodeId};
use crate::net::routing::Edge;
use crate::net::varying::Varying;
use crate::time::{Rate, SimDuration};

/// Network under construction.
#[derive(Default)]
pub(crate) struct Net {
    /// The scenario's seed (queues with randomness draw from per-link streams).
    pub(crate) seed: u64,
    /// The scenario's `jitter`: every link direction delays each packet by a small random extra.
    pub(crate) jitter: Option<Jitter>,
    pub(crate) names: Vec<String>,
    pub(crate) roles: Vec<&'static str>,
    pub(crate) links: Vec<Link>,
    pub(crate) edges: Vec<Edge>,
}

impl Net {
    fn add(&mut self, name: String, role: &'static str) -> NodeId {
        self.names.push(name);
        self.roles.push(role);
        NodeId(self.names.len() as u32 - 1)
    }
    /// A node of a graph topology.
    pub(crate) fn node(&mut self, name: String) -> NodeId {
        self.add(name, "node")
    }
    pub(crate) fn router(&mut self, name: String) -> NodeId {
        self.add(name, "router")
    }
    pub(crate) fn host(&mut self, name: String) -> NodeId {
        self.add(name, "host")
    }
    /// Both directions between `a` and `b`, each with its own queue, named "A->B".
    pub(crate) fn duplex(
        &mut self,
        a: NodeId,
        b: NodeId,
        rate: Rate,
        delay: SimDuration,
        queue: &QueueSpec,
    ) {
        self.link(None, (a, b), rate, delay, queue, None);
        self.link(None, (b, a), rate, delay, queue, None);
    }
    pub(crate) fn link(
        &mut self,
        name: Option<String>,
        (from, to): (NodeId, NodeId),
        rate: Rate,
        delay: SimDuration,
        queue: &QueueSpec,
        loss: Option<LossModel>,
    ) {
        let id = LinkId(self.links.len() as u32);
        let name = name.unwrap_or_else(|| {
            format!("{}->{}", self.names[from.0 as usize], self.names[to.0 as usize])
        });
        let disc = queue.build(rate, delay, self.seed, id.0);
        let mut link = Link::new(name, from, to, rate, delay, disc, loss);
        if let Some(j) = self.jitter {
            link = link.with_delay_jitter(j.delay.0, j.link_rng(self.seed, u64::from(id.0)));
        }
        self.links.push(link);
        self.edges.push(Edge { id, from, to, delay });
    }

    /// Makes the link added last follow what `varying` gives for it (from the scenario's seed
    /// and the link's id, for the link's own random stream), if anything.
    pub(crate) fn vary_last(&mut self, varying: impl FnOnce(u64, u32) -> Option<Varying>) {
        let id = self.links.len() as u32 - 1;
        if let Some(v) = varying(self.seed, id) {
            let last = self.links.pop().expect("a link was added");
            self.links.push(last.with_varying(v));
        }
    }
}
