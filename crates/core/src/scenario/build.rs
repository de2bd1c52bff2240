//! From a validated scenario to a runnable world: nodes, links with their queues and loss
//! models, routes, and one sender/receiver pair per flow.
//!
//! Per-flow random draws (start time, RTT within a `uniform` spread) come from the flow's own
//! stream, so adding a flow never changes another flow's draws.

use super::background;
use super::wiring::Net;
use super::{AppSpec, FlowGroup, Protocol, Scenario, ScenarioError, Topology};
use crate::app::ftp::FtpApp;
use crate::app::web::WebApp;
use crate::app::AppSource;
use crate::cc::CcName;
use crate::dccp::sender::DccpConfig;
use crate::dccp::{DccpReceiver, DccpSender};
use crate::engine::{Endpoint, FlowSetup, WorldParts};
use crate::net::feeder::Feeders;
use crate::net::packet::{FlowId, NodeId};
use crate::net::routing::Routes;
use crate::rng::{Rng, StreamKind};
use crate::scenario::topology::HopRange;
use crate::scenario::units::Spread;
use crate::tcp::{TcpConfig, TcpReceiver, TcpSender};
use crate::time::{SimDuration, SimTime};
use crate::transport::Addr;
use crate::udp::UdpSender;
use std::sync::Arc;

/// Descriptive facts about each flow, for the result tables.
#[derive(Clone, Debug)]
pub struct FlowMeta {
    pub group: String,
    pub protocol: &'static str,
    /// The congestion control as the group names it; `None` for UDP.
    pub cc: Option<CcName>,
    pub cc_params: String,
    pub recovery: String,
    /// TCP's stack profile (`""` for other protocols).
    pub stack: &'static str,
    pub app: &'static str,
    /// `"main"` for the scenario's `[[flows]]`, `"background"` for `[[background]]` sources.
    pub role: &'static str,
    pub src: String,
    pub dst: String,
    /// The sender's and receiver's nodes.
    pub nodes: (NodeId, NodeId),
    /// The group's segment size, bytes.
    pub mss: u32,
    pub start: SimTime,
    /// Propagation RTT of the path, both directions.
    pub rtt_base: SimDuration,
}

/// A world ready to run, with the names the results need.
pub struct Built {
    pub parts: WorldParts,
    pub flows: Vec<FlowMeta>,
    pub node_names: Vec<String>,
    /// Per node: `"router"`, `"host"` or `"node"` (graph nodes), for drawings.
    pub node_roles: Vec<&'static str>,
}

/// One flow of an expanded group.
struct FlowPlan<'a> {
    group: &'a FlowGroup,
    start: SimTime,
    /// The one-way delay of each of the flow's two access links, when `rtt` sets it.
    access_delay: Option<SimDuration>,
    /// Index of the flow within its group.
    index: u32,
    /// Index of the group in `flows`, for error paths.
    group_index: usize,
}

/// A flow ready for its endpoints: main or background.
struct Instance<'a> {
    group: &'a FlowGroup,
    start: SimTime,
    stop: Option<SimTime>,
    src: NodeId,
    dst: NodeId,
    role: &'static str,
    /// Where errors about this flow point.
    path: String,
}

fn draw(spread: Spread, rng: &mut Rng) -> SimDuration {
    match spread {
        Spread::Fixed(d) => d.0,
        Spread::Uniform(lo, hi) => SimDuration::from_nanos(
            rng.uniform_range(lo.0.as_nanos() as f64, hi.0.as_nanos() as f64).round() as u64,
        ),
    }
}

impl Scenario {
    /// Draws each main flow's start and, when `rtt` is given, its access delay.
    fn plan_flows(&self) -> Result<Vec<FlowPlan<'_>>, ScenarioError> {
        let mut plans = Vec::new();
        for (gi, g) in self.flows.iter().enumerate() {
            for index in 0..g.count {
                let id = plans.len() as u64;
                let mut rng = Rng::stream(self.seed, StreamKind::FlowSetup, id);
                let jitter =
                    self.jitter.map_or(SimDuration::ZERO, |j| j.start_offset(self.seed, id));
                let start = SimTime::ZERO + draw(g.start, &mut rng) + jitter;
                let access_delay = match (
                    crate::scenario::topology::core_delay(&self.topology, g),
                    g.rtt,
                ) {
                    (Some(core), Some(rtt)) => {
                        let rtt = draw(rtt, &mut rng);
                        if rtt < core.saturating_mul(2) {
                            return Err(ScenarioError::new(
                                format!("flows[{gi}].rtt"),
                                format!("{rtt} is shorter than twice the path's own delay ({}): no access delay can make it", core.saturating_mul(2)),
                            ));
                        }
                        // rtt = 2 · (2 · access + core)
                        Some(SimDuration::from_nanos((rtt.as_nanos() / 2 - core.as_nanos()) / 2))
                    }
                    _ => None,
                };
                plans.push(FlowPlan { group: g, start, access_delay, index, group_index: gi });
            }
        }
        Ok(plans)
    }

    /// Builds the world. Fails only on topology problems found while wiring (unreachable
    /// destinations, RTTs shorter than the path's own delay, too many background sources).
    pub fn build(&self) -> Result<Built, ScenarioError> {
        let plans = self.plan_flows()?;
        let mut net = Net { seed: self.seed, jitter: self.jitter, ..Net::default() };
        let endpoints_at: Vec<(NodeId, NodeId)> = match &self.topology {
            Topology::Dumbbell(d) => {
                let access_delays: Vec<_> = plans.iter().map(|f| f.access_delay).collect();
                d.build(&access_delays, &mut net)
            }
            Topology::Graph(g) => {
                let ends: Vec<_> = plans
                    .iter()
                    .map(|f| {
                        let src = f.group.src.as_deref().expect("validated: graph flows have src");
                        let dst = f.group.dst.as_deref().expect("validated: graph flows have dst");
                        (src, dst)
                    })
                    .collect();
                g.build(&ends, &mut net)
            }
            Topology::ParkingLot(p) => {
                let at: Vec<_> = plans
                    .iter()
                    .map(|f| {
                        (
                            f.group
                                .path
                                .as_deref()
                                .map_or(HopRange { first: 1, last: p.hops }, |s| {
                                    HopRange::parse(s, p.hops).expect("validated path")
                                }),
                            f.access_delay,
                        )
                    })
                    .collect();
                p.build(&at, &mut net)
            }
            Topology::LanRing(r) => {
                let at: Vec<_> = plans
                    .iter()
                    .map(|f| (f.group.lan.unwrap_or(f.index % r.lans + 1), f.access_delay))
                    .collect();
                r.build(&at, &mut net)
            }
        };
        let segments = background::attach(&self.background, &self.topology, &mut net);
        // Main flows and link directions are sampled (background sources only get totals).
        super::limits::check_series(
            (plans.len() + net.links.len()) as u64,
            self.duration.0,
            self.sample_interval.0,
        )?;
        // Packets are addressed only to flow endpoints (Source Quench goes back to a packet's source).
        let destinations: Vec<NodeId> = endpoints_at
            .iter()
            .chain(segments.iter().map(|s| &s.fwd))
            .flat_map(|&(a, b)| [a, b])
            .collect();
        let routes = Routes::compute(net.names.len(), &net.edges, &destinations)
            .map_err(|e| ScenarioError::new("topology", e))?;
        let mut instances: Vec<Instance> = plans
            .iter()
            .zip(&endpoints_at)
            .map(|(p, &(src, dst))| Instance {
                group: p.group,
                start: p.start,
                stop: p.group.stop.map(|d| SimTime::ZERO + d.0),
                src,
                dst,
                role: "main",
                path: format!("flows[{}]", p.group_index),
            })
            .collect();
        let bg = background::expand(self, &segments, &routes, &net, instances.len())?;
        instances.extend(bg.flows.iter().map(|f| Instance {
            group: &bg.groups[f.group],
            start: f.start,
            stop: None,
            src: f.src,
            dst: f.dst,
            role: "background",
            path: "background".into(),
        }));
        let mut endpoints = Vec::new();
        let mut flows = Vec::new();
        let mut feeders = Feeders::new(net.links.len());
        // Each flow's path delay, for its `FlowMeta` (built after the loop, see there).
        let mut rtt_bases = Vec::with_capacity(instances.len());
        let mut shared_tcp_config: Option<Arc<TcpConfig>> = None;
        for (i, inst) in instances.iter().enumerate() {
            let (src, dst) = (inst.src, inst.dst);
            let path = routes.path(src, dst, &net.edges);
            let back = routes.path(dst, src, &net.edges);
            let (Some(path), Some(back)) = (path, back) else {
                return Err(ScenarioError::new(
                    &inst.path,
                    format!(
                        "no route between {} and {} in both directions",
                        net.names[src.0 as usize], net.names[dst.0 as usize]
                    ),
                ));
            };
            feeders.add_path(&path);
            feeders.add_path(&back);
            let rtt_base = path
                .iter()
                .chain(&back)
                .map(|l| net.edges[l.0 as usize].delay)
                .fold(SimDuration::ZERO, |a, b| a + b);
            let flow = FlowId(i as u32);
            let fwd = Addr { flow, local: src, remote: dst };
            let rev = Addr { flow, local: dst, remote: src };
            let g = inst.group;
            let mss = g.mss.0 as u32;
            let app_rng = || Rng::stream(self.seed, StreamKind::App, i as u64);
            let app = match &g.app {
                AppSpec::Bulk => AppSource::Bulk { mss },
                AppSpec::File { size } => AppSource::File { bytes: size.0, mss },
                AppSpec::Cbr { rate, packet_size } => {
                    AppSource::cbr(inst.start, rate.0, packet_size.0 as u32)
                }
                AppSpec::Web(w) => {
                    AppSource::Web(Box::new(WebApp::new(w.model(), mss, app_rng(), inst.start)))
                }
                AppSpec::Ftp(f) => {
                    AppSource::Ftp(Box::new(FtpApp::new(f.model(), mss, app_rng(), inst.start)))
                }
                AppSpec::OnOff { on_mean, off_mean, rate, packet_size } => AppSource::on_off(
                    inst.start,
                    on_mean.0,
                    off_mean.0,
                    rate.0,
                    packet_size.0 as u32,
                    app_rng(),
                ),
            };
            match (g.protocol, &g.tcp) {
                (Protocol::Tcp, Some(t)) => {
                    let cc = t
                        .cc_config
                        .build(i as u32)
                        .map_err(|e| ScenarioError::new(format!("{}.cc", inst.path), e))?;
                    // One shared copy for consecutive flows of the same configuration (a group's).
                    let shared = match shared_tcp_config.take() {
                        Some(last) if *last == t.config => last,
                        _ => Arc::new(t.config.clone()),
                    };
                    endpoints.push(Endpoint::TcpSender(Box::new(TcpSender::new(
                        fwd,
                        shared.clone(),
                        cc,
                        app,
                        inst.start,
                    ))));
                    endpoints.push(Endpoint::TcpReceiver(Box::new(TcpReceiver::new(rev, &shared))));
                    shared_tcp_config = Some(shared);
                }
                (Protocol::Dccp, _) => {
                    let d = g.dccp.as_ref().expect("validated: dccp groups have DCCP options");
                    let cfg = DccpConfig {
                        ccid: d.ccid.clone(),
                        max_queue_delay: d.max_queue_delay.map(|q| q.0),
                    };
                    let s = app.nominal_size();
                    endpoints.push(Endpoint::DccpSender(Box::new(DccpSender::new(
                        fwd, &cfg, app, inst.start,
                    ))));
                    endpoints
                        .push(Endpoint::DccpReceiver(Box::new(DccpReceiver::new(rev, &cfg, s))));
                }
                _ => {
                    endpoints.push(Endpoint::UdpSender(Box::new(UdpSender::new(fwd, app))));
                    endpoints.push(Endpoint::UdpReceiver(Box::default()));
                }
            }
            // Background sources are many: they get totals but no per-interval samples.
            flows.push(FlowSetup {
                start: inst.start,
                stop: inst.stop,
                sampled: inst.role == "main",
                delay_quantiles: g.delay_quantiles,
            });
            rtt_bases.push(rtt_base);
        }
        // The flows' names and descriptions (half a dozen strings each) are built once every
        // endpoint is: made in the loop above, their tens of thousands of small blocks would lie
        // between the endpoints' states, which the run reads; only the results read the names.
        let mut metas = Vec::with_capacity(instances.len());
        for (inst, rtt_base) in instances.iter().zip(rtt_bases) {
            let g = inst.group;
            let (src, dst) = (inst.src, inst.dst);
            metas.push(FlowMeta {
                group: g.name.clone(),
                protocol: g.protocol.as_str(),
                cc: g
                    .tcp
                    .as_ref()
                    .map(|t| t.cc.clone())
                    .or_else(|| g.dccp.as_ref().map(|d| d.cc.clone())),
                cc_params: g
                    .tcp
                    .as_ref()
                    .map(|t| t.cc_params.to_string())
                    .or_else(|| g.dccp.as_ref().map(|d| d.cc_params.to_string()))
                    .unwrap_or_else(|| "{}".into()),
                recovery: g.tcp.as_ref().map_or(String::new(), |t| {
                    serde_json::to_value(t.config.recovery)
                        .ok()
                        .and_then(|v| v.as_str().map(String::from))
                        .unwrap_or_default()
                }),
                stack: g.tcp.as_ref().map_or("", |t| t.stack.name()),
                app: g.app.kind(),
                role: inst.role,
                src: net.names[src.0 as usize].clone(),
                dst: net.names[dst.0 as usize].clone(),
                nodes: (src, dst),
                mss: g.mss.0 as u32,
                start: inst.start,
                rtt_base,
            });
        }
        let parts = WorldParts {
            node_count: net.names.len(),
            links: net.links,
            routes,
            feeders,
            endpoints,
            flows,
            end: SimTime::ZERO + self.duration.0,
            warmup: SimTime::ZERO + self.warmup.0,
            sample_interval: self.sample_interval.0,
        };
        Ok(Built { parts, flows: metas, node_names: net.names, node_roles: net.roles })
    }
}
