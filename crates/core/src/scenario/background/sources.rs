//! The background's sources: their hosts and access links, and their number, rates and starts,
//! calibrated so that they offer the table's `load`.
//!
//! ```text
//! target (wire bits/s, per direction):  R_c = load · mix_c · C      C = slowest link of the path
//! UDP CBR:  n = ⌈100 · load · mix_udp⌉ sources (each ≤ 1% of C), R_udp / n each, random phase
//! FTP, web (closed loops, mean cycle = E[gap] + E[transfer]):
//!   r_model = E[bytes per cycle] · 8 / (E[gap] + X)      per source, with the model's own gap
//!   n = ⌈R_c / r_model⌉ sources, gap stretched by s ≥ 1 so that  n · E[bytes] · 8 / (s E[gap] + X) = R_c
//!   X ≈ Σ over the cycle's transfers of (slow-start rounds · RTT + bytes · 8 / C),
//!       rounds = ⌈log₂(segments / IW + 1)⌉ (loss-free slow start from IW = 10 segments)
//! start: each source begins in a random phase of its cycle: with probability X / (s E[gap] + X)
//!   in a transfer at `start`, else after the residual life of its gap (see `app/dist.rs`)
//! ```
//!
//! Bytes are counted on the wire (payload + 40 B of TCP/IP headers per segment, 28 B of UDP/IP
//! per datagram; E\[segments\] ≈ E\[bytes\]/MSS + ½), so `load` compares directly with link
//! utilisation. `direction = "both"` offers `load` in each direction.
//!
//! Not exact: the transfer-time estimate X ignores queueing and loss, so closed-loop sources
//! that meet a standing queue (e.g. when the main flows are long-lived TCP) offer less than the
//! target — by X_real / (s E\[gap\]) — as real users would. The defaults keep X a few percent of
//! the cycle.

use super::{hop_segments, Background, Direction};
use crate::net::packet::NodeId;
use crate::net::routing::Routes;
use crate::rng::{Rng, StreamKind};
use crate::scenario::app_spec::{AppSpec, WebParams};
use crate::scenario::topology::ParkingLot;
use crate::scenario::units::{Bytes, RateQ, Spread};
use crate::scenario::wiring::Net;
use crate::scenario::{FlowGroup, Protocol, QueueSpec, Scenario, ScenarioError, Topology};
use crate::time::{Dur, Rate, SimDuration, SimTime};
use crate::wire::tcp::TCP_IP_HEADER;
use crate::wire::UDP_IP_HEADER;
use std::collections::HashMap;

/// Where a background's sources sit for one segment (`fwd` = forward direction's sender and
/// receiver nodes), and the label its groups carry.
pub(crate) struct Segment {
    bg: usize,
    label: String,
    pub(crate) fwd: (NodeId, NodeId),
}

/// Most background sources a scenario may expand to.
const MAX_SOURCES: u64 = 100_000;
/// UDP sources offer at most this fraction of the capacity each.
const UDP_SOURCE_SHARE: f64 = 0.01;
/// TCP initial window of background sources, segments (RFC 6928; the TCP default).
const IW: f64 = 10.0;

/// Access delay giving `rtt` over a path whose fixed one-way delay is `core`.
fn access_for(rtt: Option<Dur>, core: SimDuration, default: SimDuration) -> SimDuration {
    rtt.map_or(default, |r| {
        SimDuration::from_nanos((r.0.as_nanos() / 2).saturating_sub(core.as_nanos()) / 2)
    })
}

/// Adds the hosts and access links of every background; returns its segments.
pub(crate) fn attach(bgs: &[Background], t: &Topology, net: &mut Net) -> Vec<Segment> {
    let mut out = Vec::new();
    if bgs.is_empty() {
        return out;
    }
    // Every node a background names exists before the first background's hosts are added: one
    // index of them, instead of a search of all nodes per look-up (quadratic on large graphs).
    // Only looked up, so its order never reaches the results.
    let ids: HashMap<String, NodeId> =
        net.names.iter().enumerate().map(|(i, n)| (n.clone(), NodeId(i as u32))).collect();
    let find = |name: &str| *ids.get(name).expect("validated: the node exists");
    for (i, bg) in bgs.iter().enumerate() {
        let mut hosts =
            |label: String, a: &str, b: &str, rate: Rate, delay: SimDuration, q: &QueueSpec| {
                let tag = if label.is_empty() { String::new() } else { format!("_{label}") };
                let (ra, rb) = (find(a), find(b));
                let (ha, hb) =
                    (net.host(format!("bg{i}{tag}_a")), net.host(format!("bg{i}{tag}_b")));
                net.duplex(ha, ra, rate, delay, q);
                net.duplex(hb, rb, rate, delay, q);
                out.push(Segment { bg: i, label, fwd: (ha, hb) });
            };
        match t {
            Topology::Dumbbell(d) => {
                let delay = access_for(bg.rtt, d.bottleneck_delay.0, d.access_delay.0);
                hosts(String::new(), "left", "right", d.access_rate.0, delay, &d.access_queue);
            }
            Topology::ParkingLot(p) => {
                for (label, r) in hop_segments(bg.path.as_deref(), p.hops).expect("validated path")
                {
                    let delay = access_for(bg.rtt, p.delay_of(r), p.access_delay.0);
                    let (a, b) = (ParkingLot::router(r.first - 1), ParkingLot::router(r.last));
                    hosts(label, &a, &b, p.access_rate.0, delay, &p.access_queue);
                }
            }
            Topology::Graph(_) | Topology::LanRing(_) => {
                let src = find(bg.src.as_deref().expect("validated"));
                let dst = find(bg.dst.as_deref().expect("validated"));
                out.push(Segment { bg: i, label: String::new(), fwd: (src, dst) });
            }
        }
    }
    out
}

/// One background source: its class group, start, and nodes.
pub(crate) struct BgFlow {
    pub group: usize,
    pub start: SimTime,
    pub src: NodeId,
    pub dst: NodeId,
}

/// The expanded sources: one flow group per (segment, direction, class), and the flows.
pub(crate) struct Expansion {
    pub groups: Vec<FlowGroup>,
    pub flows: Vec<BgFlow>,
}

/// Slowest rate and two-way propagation delay of the route `src → dst → src`.
fn path_facts(routes: &Routes, net: &Net, src: NodeId, dst: NodeId) -> Option<(Rate, SimDuration)> {
    let fwd = routes.path(src, dst, &net.edges)?;
    let back = routes.path(dst, src, &net.edges)?;
    let rate = fwd.iter().map(|l| net.links[l.0 as usize].rate).min()?;
    let rtt =
        fwd.iter().chain(&back).fold(SimDuration::ZERO, |a, l| a + net.edges[l.0 as usize].delay);
    Some((rate, rtt))
}

/// Time (s) to move `bytes` (on the wire) from an idle start: loss-free slow start from IW.
fn transfer_time(bytes: f64, rtt: f64, capacity_bps: f64) -> f64 {
    let segments = (bytes / (1460.0 + TCP_IP_HEADER as f64)).ceil().max(1.0);
    (segments / IW + 1.0).log2().ceil() * rtt + bytes * 8.0 / capacity_bps
}

/// Wire bytes of a TCP transfer of `payload` mean bytes.
fn tcp_wire(payload: f64) -> f64 {
    payload + TCP_IP_HEADER as f64 * (payload / 1460.0 + 0.5)
}

/// Per closed-loop source: mean wire bytes per cycle and mean transfer time X (s), from the
/// model's means (see the module notes).
fn web_cycle(p: &WebParams, rtt: f64, c: f64) -> (f64, f64) {
    let m = p.model();
    let s = m.mean_object_bytes().expect("validated finite");
    let (objects, p2) = m.mean_page_objects().expect("validated finite");
    let page = tcp_wire(s) * objects;
    let embedded = if p2 > 0.0 { (objects - 1.0) / p2 } else { 0.0 };
    let x = transfer_time(tcp_wire(s), rtt, c) + p2 * transfer_time(tcp_wire(s) * embedded, rtt, c);
    (page, x)
}

pub(crate) fn expand(
    s: &Scenario,
    segments: &[Segment],
    routes: &Routes,
    net: &Net,
    first_flow: usize,
) -> Result<Expansion, ScenarioError> {
    let mut ex = Expansion { groups: Vec::new(), flows: Vec::new() };
    let mut total: u64 = 0;
    for seg in segments {
        let bg = &s.background[seg.bg];
        let path = format!("background[{}]", seg.bg);
        let dirs: &[bool] = match bg.direction {
            Direction::Forward => &[false],
            Direction::Reverse => &[true],
            Direction::Both => &[false, true],
        };
        for &rev in dirs {
            let (src, dst) = if rev { (seg.fwd.1, seg.fwd.0) } else { seg.fwd };
            let (rate, rtt) = path_facts(routes, net, src, dst).ok_or_else(|| {
                ScenarioError::new(
                    &path,
                    format!(
                        "no route between {} and {} in both directions",
                        net.names[src.0 as usize], net.names[dst.0 as usize]
                    ),
                )
            })?;
            let c = rate.as_bps_f64();
            let rtt_s = rtt.as_secs_f64();
            let label = [bg.name.as_str(), seg.label.as_str(), if rev { "rev" } else { "" }]
                .iter()
                .filter(|x| !x.is_empty())
                .copied()
                .collect::<Vec<_>>()
                .join(":");
            let base = FlowGroup {
                name: String::new(),
                count: 0,
                protocol: Protocol::Tcp,
                tcp: Some(bg.tcp.clone()),
                dccp: None,
                mss: Bytes(u64::from(bg.tcp.config.mss)),
                start: Spread::Fixed(bg.start),
                stop: None,
                rtt: None,
                app: AppSpec::Bulk,
                src: None,
                dst: None,
                path: None,
                lan: None,
                delay_quantiles: bg.delay_quantiles,
            };
            // UDP CBR: n sources of equal rate, each with a random phase within one interval.
            let r_udp = bg.load * bg.mix.udp * c;
            if r_udp > 0.0 {
                let n = ceil_count(bg.load * bg.mix.udp / UDP_SOURCE_SHARE);
                let ps = bg.packet_size.0 as f64;
                let payload_bps = r_udp / n as f64 * ps / (ps + UDP_IP_HEADER as f64);
                let rate = Rate((payload_bps.round() as u64).max(1));
                let app = AppSpec::Cbr { rate: RateQ(rate), packet_size: bg.packet_size };
                let interval = rate.tx_time(bg.packet_size.0 as u32).as_secs_f64();
                total = within_limit(total, n, &path)?;
                let g = FlowGroup {
                    name: format!("{label}:udp"),
                    count: n as u32,
                    protocol: Protocol::Udp,
                    tcp: None,
                    app,
                    ..base.clone()
                };
                push(&mut ex, g, n, first_flow, s.seed, bg.start.0, src, dst, |rng| {
                    rng.uniform() * interval
                });
            }
            // FTP and web: closed loops with stretched gaps.
            let classes: [(f64, &str); 2] = [(bg.mix.ftp, "ftp"), (bg.mix.web, "web")];
            for (share, class) in classes {
                let target = bg.load * share * c;
                if target <= 0.0 {
                    continue;
                }
                let (bytes, x, gap) = if class == "web" {
                    let (b, x) = web_cycle(&bg.web, rtt_s, c);
                    (b, x, bg.web.think.dist.clone())
                } else {
                    let b = tcp_wire(bg.ftp.size.dist.mean().expect("validated"));
                    (b, transfer_time(b, rtt_s, c), bg.ftp.idle.dist.clone())
                };
                let gap_mean = gap.mean().expect("validated finite");
                let r_model = bytes * 8.0 / (gap_mean + x);
                let n = ceil_count(target / r_model);
                total = within_limit(total, n, &path)?;
                let n = n as f64;
                let stretch = ((n * bytes * 8.0 / target - x) / gap_mean).max(1e-9);
                let gap = gap.scaled(stretch);
                let cycle = stretch * gap_mean + x;
                let app = if class == "web" {
                    let mut w = bg.web.clone();
                    w.think.dist = gap.clone();
                    AppSpec::Web(w)
                } else {
                    let mut f = bg.ftp.clone();
                    f.idle.dist = gap.clone();
                    AppSpec::Ftp(f)
                };
                let g = FlowGroup {
                    name: format!("{label}:{class}"),
                    count: n as u32,
                    app,
                    ..base.clone()
                };
                let busy = x / cycle;
                push(&mut ex, g, n as u64, first_flow, s.seed, bg.start.0, src, dst, |rng| {
                    if rng.bernoulli(busy) {
                        0.0
                    } else {
                        gap.sample_residual(rng).expect("finite mean")
                    }
                });
            }
        }
    }
    Ok(ex)
}

/// `total + n` sources, or the refusal if that is above [`MAX_SOURCES`]: checked with the count
/// alone, before a class's sources are made (a load needing millions of them used to allocate
/// them all, ~1.5 GB, before being refused — fuzzing finding).
fn within_limit(total: u64, n: u64, path: &str) -> Result<u64, ScenarioError> {
    match total.checked_add(n) {
        Some(t) if t <= MAX_SOURCES => Ok(t),
        _ => Err(ScenarioError::new(format!("{path}.load"), format!("needs more than {MAX_SOURCES} sources: lower the load or raise each source's rate (shorter web.think / ftp.idle, larger sizes)"))),
    }
}

/// ⌈x⌉ sources, at least one, forgiving rounding noise (0.2 · 0.2 / 0.01 is 4, not 4.000…1).
fn ceil_count(x: f64) -> u64 {
    ((x - 1e-9).ceil() as u64).max(1)
}

/// Appends `n` sources of group `g`; `offset(rng)` draws each one's start after `start` (s),
/// from the flow's own setup stream.
#[allow(clippy::too_many_arguments)]
fn push(
    ex: &mut Expansion,
    g: FlowGroup,
    n: u64,
    first_flow: usize,
    seed: u64,
    start: SimDuration,
    src: NodeId,
    dst: NodeId,
    mut offset: impl FnMut(&mut Rng) -> f64,
) {
    let gi = ex.groups.len();
    ex.groups.push(g);
    for _ in 0..n {
        let id = (first_flow + ex.flows.len()) as u64;
        let mut rng = Rng::stream(seed, StreamKind::FlowSetup, id);
        let at = SimTime::ZERO + start + SimDuration::from_secs_f64(offset(&mut rng));
        ex.flows.push(BgFlow { group: gi, start: at, src, dst });
    }
}

#[cfg(test)]
mod limit_tests {
    use super::*;

    #[test]
    fn the_source_limit_is_checked_on_the_count_before_sources_are_made() {
        assert_eq!(within_limit(0, MAX_SOURCES, "background[0]").ok(), Some(MAX_SOURCES));
        assert!(within_limit(1, MAX_SOURCES, "background[0]").is_err());
        assert!(within_limit(5, u64::MAX, "background[0]").is_err(), "no overflow");
        // Web at full load of a 1 Tbit/s bottleneck with hour-long think times: tens of millions
        // of sources. Refused with one line, and `expand` returns before making any (the count is
        // checked before `push`, so this neither allocates them nor takes long).
        let text = r#"
            name = "huge-background"
            duration = "1s"
            [topology]
            kind = "dumbbell"
            bottleneck_rate = "1Tbps"
            bottleneck_delay = "1ms"
            [[flows]]
            name = "a"
            cc = "reno"
            [[background]]
            load = 1.0
            mix = { udp = 0.0, ftp = 0.0, web = 1.0 }
            web = { think = "3600s" }
        "#;
        let s = crate::scenario::Scenario::from_toml(text).unwrap_or_else(|e| panic!("{e}"));
        let e = s.build().err().expect("refused").to_string();
        assert_eq!(e, "background[0].load: needs more than 100000 sources: lower the load or raise each source's rate (shorter web.think / ftp.idle, larger sizes)");
    }
}
