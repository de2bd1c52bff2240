//! The dumbbell: routers `left` and `right` joined by the bottleneck; flow i runs from `src{i}`
//! to `dst{i}`, each on its own access links.

use super::{host_links, AccessQueueFrom, Core, HostLinkKeys, Topology};
use crate::net::packet::NodeId;
use crate::scenario::losses::{parse_loss, LossSpec};
use crate::scenario::queue::parse_queue;
use crate::scenario::units::RateQ;
use crate::scenario::wiring::Net;
use crate::scenario::{parse_rest_at, QueueSpec, ScenarioError};
use crate::time::{Dur, SimDuration};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A dumbbell with every default filled in (`topology::host_links`), so that the normalised form
/// is complete.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Dumbbell {
    pub bottleneck_rate: RateQ,
    pub bottleneck_delay: Dur,
    pub access_rate: RateQ,
    pub access_delay: Dur,
    /// The bottleneck's queue, both directions.
    pub queue: QueueSpec,
    /// The queue of every access link direction.
    pub access_queue: QueueSpec,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    bottleneck_rate: RateQ,
    bottleneck_delay: Dur,
    access_rate: Option<RateQ>,
    access_delay: Option<Dur>,
}

impl Dumbbell {
    /// Reads `[topology]` with `kind = "dumbbell"` (without `kind`).
    pub(crate) fn parse(mut m: Map<String, Value>) -> Result<Topology, ScenarioError> {
        let queue = m.remove("queue").map(|q| parse_queue(&q, "topology.queue")).transpose()?;
        let access_queue = m
            .remove("access_queue")
            .map(|q| parse_queue(&q, "topology.access_queue"))
            .transpose()?;
        let loss = m.remove("loss").map(|l| parse_loss(&l, "topology.loss")).transpose()?;
        let raw: Raw = parse_rest_at(
            &Value::Object(m),
            "topology",
            &["kind", "queue", "access_queue", "loss"],
        )?;
        let bottleneck = raw.bottleneck_rate.0;
        let links = host_links(
            Core { fastest: bottleneck, slowest: bottleneck, delay: raw.bottleneck_delay.0 },
            HostLinkKeys {
                access_rate: raw.access_rate.map(|r| r.0),
                access_delay: raw.access_delay.map(|d| d.0),
                queue,
                access_queue,
            },
            AccessQueueFrom::CoreQueue,
        );
        Ok(Topology::Dumbbell(Dumbbell {
            bottleneck_rate: raw.bottleneck_rate,
            bottleneck_delay: raw.bottleneck_delay,
            access_rate: RateQ(links.access_rate),
            access_delay: Dur(links.access_delay),
            queue: links.queue,
            access_queue: links.access_queue,
            loss,
        }))
    }

    /// Adds the routers, the bottleneck and each flow's hosts; returns each flow's (sender,
    /// receiver). `access_delays[i]` overrides flow i's access delay (set by its `rtt`).
    pub(crate) fn build(
        &self,
        access_delays: &[Option<SimDuration>],
        net: &mut Net,
    ) -> Vec<(NodeId, NodeId)> {
        let left = net.router("left".into());
        let right = net.router("right".into());
        let (rate, delay) = (self.bottleneck_rate.0, self.bottleneck_delay.0);
        let loss = self.loss.as_ref().map(|l| l.model(net.seed, 0));
        net.link(Some("bottleneck".into()), (left, right), rate, delay, &self.queue, loss);
        net.link(Some("bottleneck_rev".into()), (right, left), rate, delay, &self.queue, None);
        let access_rate = self.access_rate.0;
        let mut ends = Vec::new();
        for (i, access_delay) in access_delays.iter().enumerate() {
            let s = net.host(format!("src{i}"));
            let r = net.host(format!("dst{i}"));
            let a = access_delay.unwrap_or(self.access_delay.0);
            let q = &self.access_queue;
            net.link(None, (s, left), access_rate, a, q, None);
            net.link(None, (left, s), access_rate, a, q, None);
            net.link(None, (right, r), access_rate, a, q, None);
            net.link(None, (r, right), access_rate, a, q, None);
            ends.push((s, r));
        }
        ends
    }
}
