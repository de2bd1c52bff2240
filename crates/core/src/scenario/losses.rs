//! Link loss models (`loss = { kind = ... }` on a dumbbell's bottleneck or a graph link).

use super::{kind_of, parse_at, ScenarioError};
use crate::net::loss::LossModel;
use crate::net::packet::FlowId;
use crate::rng::{Rng, StreamKind};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LossSpec {
    Bernoulli { p: f64 },
    Periodic { every: u64 },
    DropList { flow: u32, packets: Vec<u64> },
}

impl LossSpec {
    /// The loss model of link `link` (Bernoulli draws from the link's own stream).
    pub(crate) fn model(&self, seed: u64, link: u32) -> LossModel {
        match self {
            LossSpec::Bernoulli { p } => LossModel::Bernoulli {
                p: *p,
                rng: Rng::stream(seed, StreamKind::LinkLoss, link as u64),
            },
            LossSpec::Periodic { every } => LossModel::Periodic { every: *every, seen: 0 },
            LossSpec::DropList { flow, packets } => {
                LossModel::DropList { flow: FlowId(*flow), packets: packets.clone() }
            }
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BernoulliParams {
    p: f64,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PeriodicParams {
    every: u64,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DropListParams {
    flow: u32,
    packets: Vec<u64>,
}

pub(super) fn parse_loss(v: &Value, path: &str) -> Result<LossSpec, ScenarioError> {
    let (kind, rest) = kind_of(v, path, &["bernoulli", "periodic", "drop_list"])?;
    match kind.as_str() {
        "bernoulli" => {
            let p: BernoulliParams = parse_at(&rest, path)?;
            if !(0.0..=1.0).contains(&p.p) {
                return Err(ScenarioError::new(
                    format!("{path}.p"),
                    format!("{} is not a probability: expected 0 <= p <= 1", p.p),
                ));
            }
            Ok(LossSpec::Bernoulli { p: p.p })
        }
        "periodic" => {
            let p: PeriodicParams = parse_at(&rest, path)?;
            if p.every == 0 {
                return Err(ScenarioError::new(format!("{path}.every"), "must be at least 1"));
            }
            Ok(LossSpec::Periodic { every: p.every })
        }
        "drop_list" => {
            let mut p: DropListParams = parse_at(&rest, path)?;
            if p.packets.contains(&0) {
                return Err(ScenarioError::new(
                    format!("{path}.packets"),
                    "packets are counted from 1",
                ));
            }
            p.packets.sort_unstable();
            p.packets.dedup();
            Ok(LossSpec::DropList { flow: p.flow, packets: p.packets })
        }
        _ => unreachable!("kind_of checked the kind"),
    }
}
