//! A graph of named nodes, each link duplex with a queue per direction; flows run between the
//! nodes `src` and `dst` they name (they have no host links of their own). A link may follow a
//! `schedule` or a `trace` (`scenario::varying`), both directions.

use super::Topology;
use crate::net::packet::NodeId;
use crate::net::queue::QueueLimit;
use crate::scenario::losses::{parse_loss, LossSpec};
use crate::scenario::queue::parse_queue;
use crate::scenario::units::RateQ;
use crate::scenario::varying::{parse_schedule, parse_trace, rate_or_trace, varying, StepSpec};
use crate::scenario::wiring::Net;
use crate::scenario::{limits, parse_at, parse_rest_at, QueueSpec, ScenarioError};
use crate::time::Dur;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashMap;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Graph {
    pub nodes: Vec<String>,
    pub queue: QueueSpec,
    pub links: Vec<GraphLink>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphLink {
    pub a: String,
    pub b: String,
    /// With a trace, the trace's long-run rate. Read before the rest (`Graph::parse`).
    #[serde(skip_deserializing, default = "rate_read_apart")]
    pub rate: RateQ,
    pub delay: Dur,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueSpec>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossSpec>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<Vec<StepSpec>>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub trace: Option<Vec<u32>>,
}

fn rate_read_apart() -> RateQ {
    RateQ(crate::time::Rate(0))
}

impl Graph {
    /// Reads `[topology]` with `kind = "graph"` (without `kind`).
    pub(crate) fn parse(mut m: Map<String, Value>) -> Result<Topology, ScenarioError> {
        let queue = match m.remove("queue") {
            Some(q) => parse_queue(&q, "topology.queue")?,
            None => QueueSpec::droptail(QueueLimit::Packets(100)),
        };
        let nodes: Vec<String> = match m.remove("nodes") {
            Some(n) => parse_at(&n, "topology.nodes")?,
            None => {
                return Err(ScenarioError::new(
                    "topology.nodes",
                    "is required for a graph: a list of node names",
                ))
            }
        };
        let raw_links: Vec<Value> = match m.remove("links") {
            Some(l) => parse_at(&l, "topology.links")?,
            None => {
                return Err(ScenarioError::new(
                    "topology.links",
                    "is required for a graph: a list of { a, b, rate, delay }",
                ))
            }
        };
        if let Some(k) = m.keys().next() {
            return Err(ScenarioError::new(
                format!("topology.{k}"),
                "unknown field for kind = \"graph\": expected nodes, links, queue",
            ));
        }
        if nodes.len() > limits::MAX_GRAPH_NODES {
            return Err(ScenarioError::new(
                "topology.nodes",
                format!(
                    "{} nodes is out of range: expected at most {}",
                    nodes.len(),
                    limits::MAX_GRAPH_NODES
                ),
            ));
        }
        let mut seen = std::collections::BTreeSet::new();
        for (i, n) in nodes.iter().enumerate() {
            if !seen.insert(n.as_str()) {
                return Err(ScenarioError::new(
                    format!("topology.nodes[{i}]"),
                    format!("duplicate node name {n:?}"),
                ));
            }
        }
        let mut joined = std::collections::BTreeMap::new();
        let mut links = Vec::new();
        for (i, lv) in raw_links.iter().enumerate() {
            let path = format!("topology.links[{i}]");
            let Value::Object(lm) = lv else {
                return Err(ScenarioError::new(path, "expected a table { a, b, rate, delay }"));
            };
            let mut lm = lm.clone();
            let queue = lm
                .remove("queue")
                .map(|q| parse_queue(&q, &format!("{path}.queue")))
                .transpose()?;
            let loss =
                lm.remove("loss").map(|l| parse_loss(&l, &format!("{path}.loss"))).transpose()?;
            let trace = lm
                .remove("trace")
                .map(|t| parse_trace(&t, &format!("{path}.trace")))
                .transpose()?;
            let schedule = lm.remove("schedule");
            let rate = lm
                .remove("rate")
                .map(|r| parse_at::<RateQ>(&r, &format!("{path}.rate")))
                .transpose()?;
            let rate = rate_or_trace(rate, trace.as_deref(), &format!("{path}.rate"), "trace")?;
            let mut link: GraphLink = parse_rest_at(
                &Value::Object(lm),
                &path,
                &["queue", "loss", "rate", "schedule", "trace"],
            )?;
            link.rate = RateQ(rate);
            link.schedule = match (schedule, &trace) {
                (Some(_), Some(_)) => {
                    return Err(ScenarioError::new(
                        format!("{path}.schedule"),
                        "the link follows its trace: give a schedule or a trace, not both",
                    ))
                }
                (Some(s), None) => {
                    Some(parse_schedule(&s, &format!("{path}.schedule"), rate, link.delay.0)?)
                }
                (None, _) => None,
            };
            link.trace = trace;
            for (key, n) in [("a", &link.a), ("b", &link.b)] {
                if !seen.contains(n.as_str()) {
                    return Err(ScenarioError::new(
                        format!("{path}.{key}"),
                        format!("unknown node {n:?}: expected one of {}", nodes.join(", ")),
                    ));
                }
            }
            if link.a == link.b {
                return Err(ScenarioError::new(
                    format!("{path}.b"),
                    "a link must join two different nodes",
                ));
            }
            // A link is duplex: a second one between the same nodes (either way round) would split
            // their traffic by routing ties and report two rows for one hop.
            let pair = if link.a < link.b {
                (link.a.clone(), link.b.clone())
            } else {
                (link.b.clone(), link.a.clone())
            };
            if let Some(first) = joined.insert(pair, i) {
                return Err(ScenarioError::new(path, format!("joins {} and {} again (topology.links[{first}] already does): one duplex link per pair of nodes", link.a, link.b)));
            }
            link.queue = queue;
            link.loss = loss;
            links.push(link);
        }
        Ok(Topology::Graph(Graph { nodes, queue, links }))
    }

    /// Adds the nodes and links; returns each flow's (sender, receiver) from `ends[i]`, flow i's
    /// `src` and `dst` node names.
    pub(crate) fn build(&self, ends: &[(&str, &str)], net: &mut Net) -> Vec<(NodeId, NodeId)> {
        for n in &self.nodes {
            net.node(n.clone());
        }
        // Looked up once per link end and flow end: a search of the list each time made building a
        // 100,000-node graph take minutes (fuzzing finding). Only looked up, never iterated, so
        // the map's order cannot reach the results.
        let ids: HashMap<&str, NodeId> =
            self.nodes.iter().enumerate().map(|(i, n)| (n.as_str(), NodeId(i as u32))).collect();
        let id_of = |name: &str| *ids.get(name).expect("validated node name");
        for l in &self.links {
            let (a, b) = (id_of(&l.a), id_of(&l.b));
            let q = l.queue.as_ref().unwrap_or(&self.queue);
            let loss = l.loss.as_ref().map(|spec| spec.model(net.seed, net.links.len() as u32));
            let (steps, trace) = (l.schedule.as_deref(), l.trace.as_deref());
            for (ends, loss) in [((a, b), loss), ((b, a), None)] {
                let lossy = ends == (a, b);
                net.link(None, ends, l.rate.0, l.delay.0, q, loss);
                let fixed = (l.rate.0, l.delay.0);
                net.vary_last(|seed, id| varying(steps, trace, fixed, lossy, (seed, id)));
            }
        }
        ends.iter().map(|&(src, dst)| (id_of(src), id_of(dst))).collect()
    }
}
