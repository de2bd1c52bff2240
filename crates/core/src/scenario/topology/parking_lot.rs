//! The parking lot: a chain of K bottleneck links between routers R0..RK.
//!
//! ```text
//!   src ─┐                                                  ┌─ dst      main flows: path = "all"
//!        R0 ══hop1══ R1 ══hop2══ R2 ══ … ══hopK══ RK
//!       ┌┘ └┐        ┌┘ └┐        ┌┘                          cross flows: path = "hop:2"
//!     (hop 1 cross)  (hop 2 cross) …                         (enter at R1, leave at R2)
//! ```
//!
//! Every flow has its own sender and receiver host, joined by access links to the routers at
//! the two ends of its `path` (`"all"`, `"hop:N"` or `"hops:A-B"`, hops counted from 1). A
//! flow's `rtt` sets its two access delays: `rtt = 2 · (2 · access + Σ delays of its hops)`.
//! Background traffic (`[[background]]`) crosses every hop separately by default (seed 003,
//! §4.2, Figure 4.12: cross traffic enters and leaves at each router).
//!
//! Defaults (`topology::host_links`): access links 10× the fastest hop (at least 1 Gbit/s) and 1 ms; hop queues one
//! bandwidth-delay product of the slowest hop at the RTT of a full-chain path (at least 10
//! packets), access queues that BDP but at least 1000 packets (so they never bind).

use super::{host_links, AccessQueueFrom, Core, HopRange, HostLinkKeys};
use crate::net::packet::NodeId;
use crate::scenario::queue::parse_queue;
use crate::scenario::units::RateQ;
use crate::scenario::wiring::Net;
use crate::scenario::{parse_at, parse_rest_at, QueueSpec, ScenarioError, Topology};
use crate::time::{Dur, Rate, SimDuration};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParkingLot {
    /// Number of bottleneck links K (routers R0..RK).
    pub hops: u32,
    /// Rate and one-way delay of each hop (one entry per hop).
    pub hop_rate: Vec<RateQ>,
    pub hop_delay: Vec<Dur>,
    pub access_rate: RateQ,
    pub access_delay: Dur,
    /// Queue of every hop link (both directions) and of every access link.
    pub queue: QueueSpec,
    pub access_queue: QueueSpec,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    hops: u32,
    /// One value for every hop, or a list with one value per hop (read by `per_hop`).
    hop_rate: Value,
    hop_delay: Value,
    access_rate: Option<RateQ>,
    access_delay: Option<Dur>,
}

/// Reads a per-hop key: one value for every hop, or a list with one value per hop.
fn per_hop<T: Clone + DeserializeOwned>(
    v: &Value,
    hops: u32,
    key: &str,
) -> Result<Vec<T>, ScenarioError> {
    let path = format!("topology.{key}");
    let xs: Vec<T> = match v {
        Value::Array(_) => parse_at(v, &path)?,
        _ => vec![parse_at(v, &path)?; hops as usize],
    };
    if xs.len() != hops as usize {
        return Err(ScenarioError::new(
            path,
            format!("has {} values for {hops} hops: give one value or one per hop", xs.len()),
        ));
    }
    Ok(xs)
}

impl ParkingLot {
    /// Reads `[topology]` with `kind = "parking_lot"` (without `kind`).
    pub(crate) fn parse(mut m: Map<String, Value>) -> Result<Topology, ScenarioError> {
        let queue = m.remove("queue").map(|q| parse_queue(&q, "topology.queue")).transpose()?;
        let access_queue = m
            .remove("access_queue")
            .map(|q| parse_queue(&q, "topology.access_queue"))
            .transpose()?;
        let raw: Raw =
            parse_rest_at(&Value::Object(m), "topology", &["kind", "queue", "access_queue"])?;
        if !(1..=1000).contains(&raw.hops) {
            return Err(ScenarioError::new(
                "topology.hops",
                format!("{} is out of range: expected 1..1000", raw.hops),
            ));
        }
        let hop_rate: Vec<RateQ> = per_hop(&raw.hop_rate, raw.hops, "hop_rate")?;
        let hop_delay: Vec<Dur> = per_hop(&raw.hop_delay, raw.hops, "hop_delay")?;
        let fastest = hop_rate.iter().map(|r| r.0 .0).max().unwrap_or(1);
        let slowest = hop_rate.iter().map(|r| r.0 .0).min().unwrap_or(1);
        let chain: SimDuration = hop_delay.iter().fold(SimDuration::ZERO, |a, d| a + d.0);
        let links = host_links(
            Core { fastest: Rate(fastest), slowest: Rate(slowest), delay: chain },
            HostLinkKeys {
                access_rate: raw.access_rate.map(|r| r.0),
                access_delay: raw.access_delay.map(|d| d.0),
                queue,
                access_queue,
            },
            AccessQueueFrom::Bdp,
        );
        Ok(Topology::ParkingLot(ParkingLot {
            hops: raw.hops,
            hop_rate,
            hop_delay,
            access_rate: RateQ(links.access_rate),
            access_delay: Dur(links.access_delay),
            queue: links.queue,
            access_queue: links.access_queue,
        }))
    }

    /// One-way propagation delay of the hops in `r`.
    pub fn delay_of(&self, r: HopRange) -> SimDuration {
        self.hop_delay[r.first as usize - 1..r.last as usize]
            .iter()
            .fold(SimDuration::ZERO, |a, d| a + d.0)
    }

    /// Slowest hop rate in `r`.
    pub fn rate_of(&self, r: HopRange) -> Rate {
        self.hop_rate[r.first as usize - 1..r.last as usize]
            .iter()
            .map(|x| x.0)
            .min()
            .expect("a range has a hop")
    }

    /// The name of router `i` (0..=K).
    pub fn router(i: u32) -> String {
        format!("R{i}")
    }

    /// Adds the routers and hop links, then each flow's hosts; returns each flow's (sender,
    /// receiver). `flows[i]` is the flow's hop range and access delay.
    pub(crate) fn build(
        &self,
        flows: &[(HopRange, Option<SimDuration>)],
        net: &mut Net,
    ) -> Vec<(NodeId, NodeId)> {
        let routers: Vec<NodeId> =
            (0..=self.hops).map(|i| net.router(ParkingLot::router(i))).collect();
        for h in 0..self.hops as usize {
            let (rate, delay) = (self.hop_rate[h].0, self.hop_delay[h].0);
            net.link(
                Some(format!("hop{}", h + 1)),
                (routers[h], routers[h + 1]),
                rate,
                delay,
                &self.queue,
                None,
            );
            net.link(
                Some(format!("hop{}_rev", h + 1)),
                (routers[h + 1], routers[h]),
                rate,
                delay,
                &self.queue,
                None,
            );
        }
        flows
            .iter()
            .enumerate()
            .map(|(i, &(r, access))| {
                let delay = access.unwrap_or(self.access_delay.0);
                let s = net.host(format!("src{i}"));
                let d = net.host(format!("dst{i}"));
                net.duplex(
                    s,
                    routers[r.first as usize - 1],
                    self.access_rate.0,
                    delay,
                    &self.access_queue,
                );
                net.duplex(
                    d,
                    routers[r.last as usize],
                    self.access_rate.0,
                    delay,
                    &self.access_queue,
                );
                (s, d)
            })
            .collect()
    }
}
