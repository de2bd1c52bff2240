//! Topologies: the dumbbell, the generic graph, the multi-bottleneck parking lot and seed 000's
//! ring of LANs, each in its own module, and what every topology shares — where a flow group attaches (`path`, `lan`), the fixed part of a flow's path delay (for
//! `rtt`), and a description of the built network for drawings (`ccarena topology`).
//!
//! | kind          | nodes                                   | flows attach                         |
//! |---------------|-----------------------------------------|--------------------------------------|
//! | `dumbbell`    | routers `left`, `right`                 | own hosts `src{i}`/`dst{i}`          |
//! | `parking_lot` | routers `R0`..`RK` in a chain           | own hosts at the ends of `path`      |
//! | `lan_ring`    | routers `R1`..`Rn` in a ring            | own hosts in LAN `lan`, peer opposite|
//! | `graph`       | as listed                               | on the nodes `src`, `dst`            |

pub mod dumbbell;
pub mod graph;
pub mod lan_ring;
pub mod parking_lot;

pub use dumbbell::Dumbbell;
pub use graph::{Graph, GraphLink};
pub use lan_ring::LanRing;
pub use parking_lot::ParkingLot;

use crate::scenario::{kind_of, FlowGroup, Scenario, ScenarioError};
use crate::time::SimDuration;
use serde::Serialize;
use serde_json::{json, Value};

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Topology {
    Dumbbell(Dumbbell),
    Graph(Graph),
    ParkingLot(ParkingLot),
    LanRing(LanRing),
}

impl Topology {
    /// Reads `[topology]`: its `kind`, then that kind's keys.
    pub(crate) fn parse(v: &Value) -> Result<Topology, ScenarioError> {
        let (kind, rest) =
            kind_of(v, "topology", &["dumbbell", "graph", "parking_lot", "lan_ring"])?;
        let Value::Object(m) = rest else { unreachable!("kind_of returns a table") };
        match kind.as_str() {
            "dumbbell" => Dumbbell::parse(m),
            "graph" => Graph::parse(m),
            "parking_lot" => ParkingLot::parse(m),
            "lan_ring" => LanRing::parse(m),
            _ => unreachable!("kind_of checked the kind"),
        }
    }
}

/// Which hops of a parking lot a flow crosses (1-based, inclusive): `"all"`, `"hop:N"`,
/// `"hops:A-B"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HopRange {
    pub first: u32,
    pub last: u32,
}

impl HopRange {
    /// Parses a `path` value; `hops` is the chain's length.
    pub fn parse(s: &str, hops: u32) -> Result<HopRange, String> {
        let bad = || {
            format!("{s:?} is not a path: expected \"all\", \"hop:N\" or \"hops:A-B\" with 1 <= A <= B <= {hops}")
        };
        let (first, last) = if s == "all" {
            (1, hops)
        } else if let Some(n) = s.strip_prefix("hop:") {
            let n: u32 = n.trim().parse().map_err(|_| bad())?;
            (n, n)
        } else if let Some(r) = s.strip_prefix("hops:") {
            let (a, b) = r.split_once('-').ok_or_else(bad)?;
            (a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?)
        } else {
            return Err(bad());
        };
        if first < 1 || first > last || last > hops {
            return Err(bad());
        }
        Ok(HopRange { first, last })
    }
}

/// Checks the keys that place a flow group on the topology (`path`, `lan`, `src`/`dst` and
/// `rtt`), reporting errors at `flows[i]`.
pub(crate) fn check_placement(
    t: &Topology,
    g: &FlowGroup,
    path: &str,
) -> Result<(), ScenarioError> {
    let only = |key: &str, kind: &str| {
        ScenarioError::new(format!("{path}.{key}"), format!("is only for {kind} topologies"))
    };
    match t {
        Topology::ParkingLot(p) => {
            if let Some(s) = &g.path {
                HopRange::parse(s, p.hops)
                    .map_err(|m| ScenarioError::new(format!("{path}.path"), m))?;
            }
        }
        _ if g.path.is_some() => return Err(only("path", "parking_lot")),
        _ => {}
    }
    match t {
        Topology::LanRing(r) => {
            if let Some(l) = g.lan {
                if l < 1 || l > r.lans {
                    return Err(ScenarioError::new(
                        format!("{path}.lan"),
                        format!("LAN {l} does not exist: expected 1..{}", r.lans),
                    ));
                }
            }
        }
        _ if g.lan.is_some() => return Err(only("lan", "lan_ring")),
        _ => {}
    }
    Ok(())
}

/// One-way propagation delay of a flow's path between its two host links (the part `rtt`
/// cannot change), or `None` on a graph (whose flows have no host links of their own).
pub(crate) fn core_delay(t: &Topology, g: &FlowGroup) -> Option<SimDuration> {
    match t {
        Topology::Dumbbell(d) => Some(d.bottleneck_delay.0),
        Topology::ParkingLot(p) => {
            let r = g.path.as_deref().map_or(HopRange { first: 1, last: p.hops }, |s| {
                HopRange::parse(s, p.hops).expect("validated path")
            });
            Some(p.delay_of(r))
        }
        Topology::LanRing(r) => Some(r.ring_delay.0.saturating_mul(r.hops_to_opposite() as u64)),
        Topology::Graph(_) => None,
    }
}

/// The built network as data, for drawings: `{kind, nodes: [{name, role}], links: [{name, src,
/// dst, rate_bps, delay_s, queue}], flows: [{id, group, role, src, dst}]}`. Links are listed per
/// direction, in the order the simulator numbers them.
pub fn describe(s: &Scenario) -> Result<Value, ScenarioError> {
    let b = s.build()?;
    let kind = serde_json::to_value(&s.topology)
        .ok()
        .and_then(|v| v.get("kind").cloned())
        .unwrap_or(Value::Null);
    let name = |n: u32| b.node_names[n as usize].clone();
    let nodes: Vec<Value> = b
        .node_names
        .iter()
        .zip(&b.node_roles)
        .map(|(n, r)| json!({"name": n, "role": r}))
        .collect();
    let links: Vec<Value> = b
        .parts
        .links
        .iter()
        .map(|l| {
            json!({"name": l.name, "src": name(l.from.0), "dst": name(l.to.0), "rate_bps": l.rate.as_bps_f64(),
                   "delay_s": l.delay.as_secs_f64(), "queue": l.queue_description()})
        })
        .collect();
    let flows: Vec<Value> = b
        .flows
        .iter()
        .enumerate()
        .map(
            |(i, m)| json!({"id": i, "group": m.group, "role": m.role, "src": m.src, "dst": m.dst}),
        )
        .collect();
    Ok(json!({"name": s.name, "kind": kind, "nodes": nodes, "links": links, "flows": flows}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hop_ranges_parse_and_check_bounds() {
        assert_eq!(HopRange::parse("all", 3), Ok(HopRange { first: 1, last: 3 }));
        assert_eq!(HopRange::parse("hop:2", 3), Ok(HopRange { first: 2, last: 2 }));
        assert_eq!(HopRange::parse("hops:2-3", 3), Ok(HopRange { first: 2, last: 3 }));
        for bad in ["hop:0", "hop:4", "hops:3-2", "first", "hops:1"] {
            assert!(HopRange::parse(bad, 3).is_err(), "{bad}");
        }
    }
}
