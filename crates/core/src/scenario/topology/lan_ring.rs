//! Seed 000's enterprise network: LANs, each behind a router, the routers joined in a ring.
//!
//! ```text
//!        LAN1 ─ R1 ──L1── R2 ─ LAN2
//!                │         │            ring links: 1 Mbit/s, delay 25/50/100 ms, 300-packet
//!               L4        L2            DropTail; LAN links: 10 Mbit/s, 1 ms
//!                │         │
//!        LAN4 ─ R4 ──L3── R3 ─ LAN3     a sender in LAN i talks to a receiver in LAN i + n/2
//! ```
//!
//! Seed 000, §4.1: four LANs of 10 Mbit/s and 1 ms, routers R1..R4 in a ring of 1 Mbit/s links
//! with latency 25, 50 or 100 ms, queues of 300 packets with DropTail between routers; every
//! sender's receiver sits in the opposite LAN, so packets cross two ring links and one
//! intermediate router. Each host is modelled as its own 10 Mbit/s link to its LAN's router (a
//! switched LAN).
//!
//! Routing: the two ways round the ring to the opposite LAN tie (same hops, same delay); the
//! simulator's tie-break (lowest first link id) sends everything clockwise, R_i → R_{i+1} — the
//! data from LAN i to LAN i + n/2 and also the ACKs coming back — so every clockwise ring link
//! carries the data and ACKs of n/2 LAN pairs and all four are loaded alike (the seed reports all
//! four saturated), while the counter-clockwise directions stay idle. The seed does not say how
//! its ns-2 run broke the tie.
//!
//! A flow group's `lan` (1..n) pins its senders to one LAN; without it they are spread round-robin
//! (flow j of the group in LAN (j mod n) + 1). A flow's `rtt` sets the delay of its two LAN links:
//! `rtt = 2 · (2 · lan_link + (n/2) · ring_delay)`.

use crate::net::packet::NodeId;
use crate::net::queue::QueueLimit;
use crate::scenario::queue::parse_queue;
use crate::scenario::units::RateQ;
use crate::scenario::wiring::Net;
use crate::scenario::{parse_rest_at, QueueSpec, ScenarioError, Topology};
use crate::time::{Dur, Rate, SimDuration};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LanRing {
    /// Number of LANs (and routers), even.
    pub lans: u32,
    pub lan_rate: RateQ,
    pub lan_delay: Dur,
    pub ring_rate: RateQ,
    pub ring_delay: Dur,
    /// Queue of each ring link direction.
    pub queue: QueueSpec,
    /// Queue of each LAN (host) link direction.
    pub lan_queue: QueueSpec,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    lans: Option<u32>,
    lan_rate: Option<RateQ>,
    lan_delay: Option<Dur>,
    ring_rate: Option<RateQ>,
    ring_delay: Dur,
}

/// The `dccp-voip` paper (Doria et al.): 300-packet DropTail between the routers.
const SEED_QUEUE: u64 = 300;

impl LanRing {
    pub(crate) fn parse(mut m: Map<String, Value>) -> Result<Topology, ScenarioError> {
        let droptail = |n| QueueSpec::droptail(QueueLimit::Packets(n));
        let queue = m
            .remove("queue")
            .map(|q| parse_queue(&q, "topology.queue"))
            .transpose()?
            .unwrap_or(droptail(SEED_QUEUE));
        let lan_queue = m
            .remove("lan_queue")
            .map(|q| parse_queue(&q, "topology.lan_queue"))
            .transpose()?
            .unwrap_or(droptail(SEED_QUEUE));
        let raw: Raw =
            parse_rest_at(&Value::Object(m), "topology", &["kind", "queue", "lan_queue"])?;
        let lans = raw.lans.unwrap_or(4);
        if lans < 4 || !lans.is_multiple_of(2) || lans > 1000 {
            return Err(ScenarioError::new("topology.lans", format!("{lans} is not allowed: expected an even number from 4 to 1000 (each LAN talks to the one opposite)")));
        }
        Ok(Topology::LanRing(LanRing {
            lans,
            // Seed 000 §4.1: LANs of 10 Mbit/s and 1 ms, ring links of 1 Mbit/s.
            lan_rate: raw.lan_rate.unwrap_or(RateQ(Rate::mbps(10))),
            lan_delay: raw.lan_delay.unwrap_or(Dur(SimDuration::from_millis(1))),
            ring_rate: raw.ring_rate.unwrap_or(RateQ(Rate::mbps(1))),
            ring_delay: raw.ring_delay,
            queue,
            lan_queue,
        }))
    }

    /// Ring links between a LAN and the one opposite.
    pub fn hops_to_opposite(&self) -> u32 {
        self.lans / 2
    }

    /// The LAN opposite `lan` (both 1-based).
    pub fn opposite(&self, lan: u32) -> u32 {
        (lan - 1 + self.lans / 2) % self.lans + 1
    }

    pub fn router(lan: u32) -> String {
        format!("R{lan}")
    }

    /// Adds the routers, ring links (clockwise first, so that ties route clockwise) and each
    /// flow's hosts. `flows[i]` is the sender's LAN (1-based) and the LAN-link delay override.
    pub(crate) fn build(
        &self,
        flows: &[(u32, Option<SimDuration>)],
        net: &mut Net,
    ) -> Vec<(NodeId, NodeId)> {
        let routers: Vec<NodeId> =
            (1..=self.lans).map(|l| net.router(LanRing::router(l))).collect();
        let n = routers.len();
        let (rate, delay) = (self.ring_rate.0, self.ring_delay.0);
        for i in 0..n {
            net.link(None, (routers[i], routers[(i + 1) % n]), rate, delay, &self.queue, None);
        }
        for i in 0..n {
            net.link(None, (routers[(i + 1) % n], routers[i]), rate, delay, &self.queue, None);
        }
        flows
            .iter()
            .enumerate()
            .map(|(i, &(lan, lan_delay))| {
                let d = lan_delay.unwrap_or(self.lan_delay.0);
                let s = net.host(format!("src{i}"));
                let r = net.host(format!("dst{i}"));
                net.duplex(s, routers[lan as usize - 1], self.lan_rate.0, d, &self.lan_queue);
                net.duplex(
                    r,
                    routers[self.opposite(lan) as usize - 1],
                    self.lan_rate.0,
                    d,
                    &self.lan_queue,
                );
                (s, r)
            })
            .collect()
    }
}
