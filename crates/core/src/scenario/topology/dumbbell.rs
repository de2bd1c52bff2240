//! The dumbbell: routers `left` and `right` joined by the bottleneck; flow i runs from `src{i}`
//! to `dst{i}`, each on its own access links.

use super::Topology;
use crate::scenario::build;
use crate::scenario::losses::{parse_loss, LossSpec};
use crate::scenario::queue::parse_queue;
use crate::scenario::units::RateQ;
use crate::scenario::{parse_at, QueueSpec, ScenarioError};
use crate::time::Dur;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dumbbell {
    pub bottleneck_rate: RateQ,
    pub bottleneck_delay: Dur,
    pub access_rate: Option<RateQ>,
    pub access_delay: Option<Dur>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueSpec>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub access_queue: Option<QueueSpec>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossSpec>,
}

impl Dumbbell {
    /// Reads `[topology]` with `kind = "dumbbell"` (without `kind`).
    pub(crate) fn parse(mut m: Map<String, Value>) -> Result<Topology, ScenarioError> {
        let path = "topology";
        let queue = m.remove("queue").map(|q| parse_queue(&q, "topology.queue")).transpose()?;
        let access_queue = m
            .remove("access_queue")
            .map(|q| parse_queue(&q, "topology.access_queue"))
            .transpose()?;
        let loss = m.remove("loss").map(|l| parse_loss(&l, "topology.loss")).transpose()?;
        let mut d: Dumbbell = parse_at(&Value::Object(m), path)?;
        d.queue = queue;
        d.access_queue = access_queue;
        d.loss = loss;
        // Fill the defaults that depend on other fields, so the normalised form is complete.
        let defaults = build::dumbbell_defaults(&d);
        d.access_rate = Some(RateQ(defaults.access_rate));
        d.access_delay = Some(Dur(defaults.access_delay));
        d.queue = Some(defaults.queue);
        d.access_queue = Some(defaults.access_queue);
        Ok(Topology::Dumbbell(d))
    }
}
