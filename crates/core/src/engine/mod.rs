//! The event loop: one thread, integer time, deterministic order.
//!
//! Events are ordered by `(time, seq)` where `seq` is a global insertion counter, so events at
//! the same instant run in the order they were scheduled. The queue holds O(links + endpoints)
//! entries: each link has at most one pending arrival (its serialiser needs no events, see
//! `net::link`), each endpoint at most one live timer. Timers are never removed: each carries the generation it was
//! armed with, and a popped timer whose generation is stale is ignored.
//!
//! This module owns the [`World`], its assembly from [`WorldParts`], the loop ([`World::run`])
//! with its queue (`queue`), the dispatch of each event, and the endpoints' timers and
//! servicing (`endpoint` holds the endpoints themselves). What an event does to packets is
//! `net::forward`'s (arrivals, admissions, deliveries, and why a packet's arrival at a router
//! is no event); what it records, the [`Recorder`]'s.
//!
//! Hot-path rules: an event costs a pop and a `match`, and schedules at most a few more
//! (an endpoint re-arms its timer only for an earlier deadline: a later one needs no event);
//! nothing is allocated per event or per packet.

use crate::net::feeder::Feeders;
use crate::net::forward;
use crate::net::link::Link;
use crate::net::packet::{FlowId, LinkId, PacketSlab};
use crate::net::routing::Routes;
use crate::record::recorder::{NetworkAtEnd, Recorder};
use crate::record::FlowCounters;
use crate::time::{SimDuration, SimTime};
use crate::transport::{Probe, Transport};

mod endpoint;
mod queue;
pub(crate) use endpoint::EndpointSlot;
pub use endpoint::{Endpoint, EpId};
pub use queue::EventQueue;

/// Steps of work ([`World::steps`]) between two reports of a run's progress.
pub const PROGRESS_EVERY: u64 = 1 << 18;

/// What the loop can be asked to do. Variant order does not matter: ties are broken by `seq`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The packet at the head of a link's pipe reaches the far node.
    Arrive(LinkId),
    /// A fed link admits the packets it was handed that no feeder can precede any more. Valid
    /// only if `generation` is still the link's (an earlier event superseded it).
    Fed { link: LinkId, generation: u32 },
    /// An endpoint's timer, valid only if `gen` is still the endpoint's current generation.
    Timer { ep: EpId, gen: u32 },
    /// Record one sample of every time series.
    Sample,
    /// Snapshot counters at the end of warm-up.
    WarmupEnd,
}

/// What the engine keeps of a flow besides its counters.
#[derive(Clone, Copy, Debug)]
pub struct FlowSetup {
    pub start: SimTime,
    /// The sender goes silent at this instant (the flow's `stop`): it still takes packets in
    /// but sends nothing and arms no timer.
    pub stop: Option<SimTime>,
    /// Record this flow's per-interval series (background sources only keep totals).
    pub sampled: bool,
    /// Keep a histogram of the flow's delays, for their percentiles (else their moments only).
    pub delay_quantiles: bool,
}

/// Whether a run went to its end or was stopped by the progress callback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunOutcome {
    Completed,
    Interrupted,
}

/// The simulated network and everything on it.
pub struct World {
    pub(crate) queue: EventQueue,
    pub(crate) slab: PacketSlab,
    pub(crate) links: Vec<Link>,
    node_count: usize,
    pub(crate) routes: Routes,
    pub(crate) endpoints: Vec<EndpointSlot>,
    pub(crate) flows: Vec<FlowSetup>,
    /// Counters, captures, samples: what the run measures.
    pub(crate) recorder: Recorder,
    end: SimTime,
    /// Packets handed to fed links so far, wrapping: the order of simultaneous arrivals.
    pub(crate) handed_over: u32,
    pub(crate) now: SimTime,
}

/// Everything needed to assemble a world (produced by the scenario builder).
pub struct WorldParts {
    pub node_count: usize,
    pub links: Vec<Link>,
    pub routes: Routes,
    /// The links that feed each link, from the flows' routes ([`Feeders::add_path`]).
    pub feeders: Feeders,
    /// Each flow's sender then its receiver, in flow order ([`FlowId::sender`]).
    pub endpoints: Vec<Endpoint>,
    pub flows: Vec<FlowSetup>,
    pub end: SimTime,
    pub warmup: SimTime,
    pub sample_interval: SimDuration,
}

impl World {
    pub fn new(parts: WorldParts) -> World {
        assert_eq!(
            parts.endpoints.len(),
            2 * parts.flows.len(),
            "two endpoints per flow, sender then receiver"
        );
        let mut links = parts.links;
        forward::prepare_links(&mut links, parts.node_count, parts.feeders);
        let recorder = Recorder::new(
            &parts.flows,
            links.len(),
            parts.warmup.min(parts.end),
            parts.sample_interval,
        );
        let endpoints = parts
            .endpoints
            .into_iter()
            .enumerate()
            .map(|(i, transport)| {
                // Endpoint 2f is flow f's sender (`FlowId::sender`): it goes silent at the flow's stop.
                let stop = if i % 2 == 0 { parts.flows[i / 2].stop } else { None };
                EndpointSlot::new(transport, stop)
            })
            .collect();
        let mut w = World {
            queue: EventQueue::default(),
            slab: PacketSlab::with_capacity(4096),
            links,
            node_count: parts.node_count,
            routes: parts.routes,
            endpoints,
            flows: parts.flows,
            recorder,
            end: parts.end,
            handed_over: 0,
            now: SimTime::ZERO,
        };
        if let Some(at) = w.recorder.warmup_end() {
            w.queue.schedule(at, Event::WarmupEnd);
        }
        let first_sample = w.recorder.plan_next_sample(SimTime::ZERO, w.end);
        w.queue.schedule(first_sample, Event::Sample);
        for ep in 0..w.endpoints.len() {
            w.service(EpId(ep as u32));
        }
        w
    }

    pub fn now(&self) -> SimTime {
        self.now
    }

    pub fn node_count(&self) -> usize {
        self.node_count
    }

    /// The work done so far ([`Recorder::steps`]).
    pub fn steps(&self) -> u64 {
        self.recorder.steps()
    }

    /// Runs to the end. `progress` is called with the fraction of simulated time done each time
    /// the work done crosses a multiple of [`PROGRESS_EVERY`] steps; returning `false` stops the
    /// run.
    pub fn run(&mut self, progress: &mut dyn FnMut(f64) -> bool) -> RunOutcome {
        let mut next_report = PROGRESS_EVERY;
        while let Some((t, ev)) = self.queue.pop_until(self.end) {
            self.now = t;
            self.recorder.count_event();
            match ev {
                Event::Arrive(l) => self.on_arrive(l),
                Event::Fed { link, generation } => self.on_fed_link(link, generation),
                Event::Timer { ep, gen } => self.on_timer(ep, gen),
                Event::Sample => {
                    self.take_sample();
                    if self.now >= self.end {
                        break;
                    }
                    let at = self.recorder.plan_next_sample(self.now, self.end);
                    self.queue.schedule(at, Event::Sample);
                }
                Event::WarmupEnd => self.snapshot_warmup(),
            }
            let steps = self.steps();
            if steps >= next_report {
                next_report = (steps / PROGRESS_EVERY + 1) * PROGRESS_EVERY;
                if !progress(self.now.as_nanos() as f64 / self.end.as_nanos().max(1) as f64) {
                    return RunOutcome::Interrupted;
                }
            }
        }
        RunOutcome::Completed
    }

    /// Ends the world after its run: its recorder, and what that reads of the network for the
    /// result.
    pub fn into_recorder(self) -> (Recorder, NetworkAtEnd) {
        let in_network = self.packets_in_network();
        let probes = (0..self.flows.len() as u32)
            .map(FlowId)
            .map(|f| (self.endpoint_probe(f.sender()), self.endpoint_probe(f.receiver())))
            .collect();
        let net = NetworkAtEnd { end: self.end, links: self.links, in_network, probes };
        (self.recorder, net)
    }

    fn on_timer(&mut self, ep: EpId, gen: u32) {
        let slot = &mut self.endpoints[ep.0 as usize];
        if slot.timer.gen != gen {
            return; // superseded by an earlier deadline
        }
        slot.timer.armed.clear();
        let t = &mut slot.transport;
        if t.poll_timeout().is_some_and(|d| d <= self.now) {
            t.handle_timeout(self.now);
        }
        self.service(ep);
    }

    /// Sends whatever the endpoint wants to send now and arms its timer.
    pub(crate) fn service(&mut self, ep: EpId) {
        let now = self.now;
        let silent_from = self.endpoints[ep.0 as usize].timer.silent_from;
        if silent_from.is_due(now) {
            return;
        }
        while let Some((id, hop)) =
            self.endpoints[ep.0 as usize].transport.transmit_into(now, &mut self.slab)
        {
            self.emit(id, hop);
        }
        let slot = &mut self.endpoints[ep.0 as usize];
        if let Some(d) = slot.transport.poll_timeout().filter(|&d| silent_from.is_after(d)) {
            // A later deadline needs no new event: the armed one fires early and re-arms.
            if slot.timer.armed.is_after(d) {
                let at = d.max(now);
                slot.timer.gen = slot.timer.gen.wrapping_add(1);
                slot.timer.armed.set(at);
                self.queue.schedule(at, Event::Timer { ep, gen: slot.timer.gen });
            }
        }
    }

    /// The end of warm-up: the recorder snapshots every counter.
    fn snapshot_warmup(&mut self) {
        self.debug_assert_inbound_caught_up();
        self.recorder.snapshot_warmup(self.now, &mut self.links, probes(&self.endpoints));
    }

    /// A sample instant: the recorder reads every flow and link.
    fn take_sample(&mut self) {
        self.debug_assert_inbound_caught_up();
        self.recorder.take_sample(self.now, &self.flows, &mut self.links, probes(&self.endpoints));
    }

    /// Data packets of each flow held by links right now (counted from the links themselves,
    /// independently of the per-flow counters).
    pub fn packets_in_network(&self) -> Vec<u64> {
        let mut n = vec![0; self.flows.len()];
        for l in &self.links {
            for id in l.held_packets() {
                let p = self.slab.get(id);
                if p.header.is_data() {
                    n[p.flow.0 as usize] += 1;
                }
            }
        }
        n
    }

    pub fn flow_counters(&self, f: FlowId) -> &FlowCounters {
        self.recorder.flow_counters(f)
    }

    pub fn endpoint_probe(&self, ep: EpId) -> Probe {
        self.endpoints[ep.0 as usize].transport.probe()
    }

    /// An endpoint, for measurements beyond the probe (tests, diagnostics).
    pub fn endpoint(&self, ep: EpId) -> &Endpoint {
        &self.endpoints[ep.0 as usize].transport
    }

    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }
}

/// The endpoints' probes, as the recorder reads them.
fn probes(endpoints: &[EndpointSlot]) -> impl Fn(EpId) -> Probe + '_ {
    |ep| endpoints[ep.0 as usize].transport.probe()
}
