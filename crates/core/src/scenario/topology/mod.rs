//! Topologies: the dumbbell, the generic graph, the multi-bottleneck parking lot and seed 000's
//! ring of LANs, each in its own module, and what they share — the host-link defaults of the
//! dumbbell and the parking lot, where a flow group attaches (`path`, `lan`), the fixed part of a
//! flow's path delay (for `rtt`), and a description of the built network for drawings
//! (`ccarena topology`).
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

use crate::net::queue::QueueLimit;
use crate::scenario::{kind_of, FlowGroup, QueueSpec, Scenario, ScenarioError};
use crate::time::{Rate, SimDuration};
use crate::wire::tcp::TCP_IP_HEADER;
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

/// Full-size packet on the wire (1460 B of payload, 40 B of TCP/IP headers), for sizing default
/// buffers in packets.
const TYPICAL_PACKET: u64 = 1460 + TCP_IP_HEADER as u64;

/// The links every flow of a dumbbell or parking lot crosses between its own two host links:
/// the bottleneck, or the chain of hops.
pub(crate) struct Core {
    pub fastest: Rate,
    pub slowest: Rate,
    /// One-way propagation delay from one end of the core to the other.
    pub delay: SimDuration,
}

/// The host-link keys of a dumbbell or parking lot, as the scenario gives them.
pub(crate) struct HostLinkKeys {
    pub access_rate: Option<Rate>,
    pub access_delay: Option<SimDuration>,
    /// The queue of the core's links.
    pub queue: Option<QueueSpec>,
    pub access_queue: Option<QueueSpec>,
}

/// The host-link keys with every default filled in.
pub(crate) struct HostLinks {
    pub access_rate: Rate,
    pub access_delay: SimDuration,
    pub queue: QueueSpec,
    pub access_queue: QueueSpec,
}

/// What the default access queue is as long as (but at least 1000 packets, so it never binds):
/// the two topologies differ when the scenario gives the core a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AccessQueueFrom {
    /// The core's queue as the scenario gives it, else its default (the dumbbell).
    CoreQueue,
    /// The core's default queue, one BDP, whatever queue the scenario gives the core (the
    /// parking lot).
    Bdp,
}

/// The defaults of a dumbbell's or parking lot's host links and buffers, the keys the scenario
/// gives kept.
pub(crate) fn host_links(
    core: Core,
    keys: HostLinkKeys,
    access_queue_from: AccessQueueFrom,
) -> HostLinks {
    // Access links much faster than the core, so that the core is where queues form.
    let access_rate =
        keys.access_rate.unwrap_or(Rate(core.fastest.0.saturating_mul(10).max(1_000_000_000)));
    let access_delay = keys.access_delay.unwrap_or(SimDuration::from_millis(1));
    // Default buffer: one bandwidth-delay product of the slowest core link at the RTT of a path
    // across the whole core (the classic rule of thumb), at least 10 packets.
    let rtt = core.delay.saturating_mul(2) + access_delay.saturating_mul(4);
    let bdp_pkts = (core.slowest.bytes_in(rtt) / TYPICAL_PACKET).max(10);
    let queue = keys.queue.unwrap_or(QueueSpec::droptail(QueueLimit::Packets(bdp_pkts)));
    let access_pkts = match access_queue_from {
        AccessQueueFrom::CoreQueue => match queue.limit() {
            QueueLimit::Packets(n) => n,
            QueueLimit::Bytes(b) => b / TYPICAL_PACKET,
        },
        AccessQueueFrom::Bdp => bdp_pkts,
    };
    let access_queue = keys
        .access_queue
        .unwrap_or(QueueSpec::droptail(QueueLimit::Packets(access_pkts.max(1000))));
    HostLinks { access_rate, access_delay, queue, access_queue }
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
/// dst, rate_bps, delay_s, queue, varies}], flows: [{id, group, role, src, dst}]}` (`varies`:
/// `"schedule"`, `"trace"` or null; `rate_bps` is then the first step's or the trace's mean). Links are listed per
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
                   "delay_s": l.delay.as_secs_f64(), "queue": l.queue_description(), "varies": l.varies()})
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
