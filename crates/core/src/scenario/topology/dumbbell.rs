//! The dumbbell: routers `left` and `right` joined by the bottleneck; flow i runs from `src{i}`
//! to `dst{i}`, each on its own access links. The bottleneck may follow a `schedule` or a
//! `bottleneck_trace` (`scenario::varying`), both directions.

use super::{host_links, AccessQueueFrom, Core, HostLinkKeys, Topology};
use crate::net::packet::NodeId;
use crate::scenario::losses::{parse_loss, LossSpec};
use crate::scenario::queue::parse_queue;
use crate::scenario::units::RateQ;
use crate::scenario::varying::{parse_schedule, parse_trace, rate_or_trace, varying, StepSpec};
use crate::scenario::wiring::Net;
use crate::scenario::{parse_rest_at, QueueSpec, ScenarioError};
use crate::time::{Dur, SimDuration};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A dumbbell with every default filled in (`topology::host_links`), so that the normalised form
/// is complete.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Dumbbell {
    /// With a trace, the trace's long-run rate.
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
    /// The bottleneck's rate, delay and loss from given instants on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule: Option<Vec<StepSpec>>,
    /// The bottleneck's delivery opportunities (milliseconds, Mahimahi's format).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bottleneck_trace: Option<Vec<u32>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    bottleneck_rate: Option<RateQ>,
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
        let trace = m
            .remove("bottleneck_trace")
            .map(|t| parse_trace(&t, "topology.bottleneck_trace"))
            .transpose()?;
        let schedule = m.remove("schedule");
        let raw: Raw = parse_rest_at(
            &Value::Object(m),
            "topology",
            &["kind", "queue", "access_queue", "loss", "schedule", "bottleneck_trace"],
        )?;
        let bottleneck = rate_or_trace(
            raw.bottleneck_rate,
            trace.as_deref(),
            "topology.bottleneck_rate",
            "bottleneck_trace",
        )?;
        let schedule = match (schedule, &trace) {
            (Some(_), Some(_)) => {
                return Err(ScenarioError::new(
                    "topology.schedule",
                    "the bottleneck follows bottleneck_trace: give a schedule or a trace, not both",
                ))
            }
            (Some(s), None) => {
                Some(parse_schedule(&s, "topology.schedule", bottleneck, raw.bottleneck_delay.0)?)
            }
            (None, _) => None,
        };
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
            bottleneck_rate: RateQ(bottleneck),
            bottleneck_delay: raw.bottleneck_delay,
            access_rate: RateQ(links.access_rate),
            access_delay: Dur(links.access_delay),
            queue: links.queue,
            access_queue: links.access_queue,
            loss,
            schedule,
            bottleneck_trace: trace,
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
        let (steps, trace) = (self.schedule.as_deref(), self.bottleneck_trace.as_deref());
        for (name, ends, loss) in
            [("bottleneck", (left, right), loss), ("bottleneck_rev", (right, left), None)]
        {
            let lossy = name == "bottleneck";
            net.link(Some(name.into()), ends, rate, delay, &self.queue, loss);
            net.vary_last(|seed, id| varying(steps, trace, (rate, delay), lossy, (seed, id)));
        }
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
