//! The event loop: one thread, integer time, deterministic order.
//!
//! Events are ordered by `(time, seq)` where `seq` is a global insertion counter, so events at
//! the same instant run in the order they were scheduled. The queue holds O(links + endpoints)
//! entries: each link has at most one pending arrival (its serialiser needs no events, see
//! `net::link`), each endpoint at most one live timer. Timers are never removed: each carries the generation it was
//! armed with, and a popped timer whose generation is stale is ignored.
//!
//! A packet's arrival at a host is an event; its arrival at a router is none. A link that no
//! endpoint sends on, as a router's links out are, is fed by the links into its router
//! (`net::feeder`): when a feeder admits a packet bound for it, the engine hands the packet to
//! the link's inbound queues with the instant it will reach the router, and the link admits
//! what it was handed in the order of those instants once no feeder can still bring an earlier
//! packet: at once when it has one feeder, else at an event (`Event::Fed`) that admits
//! everything up to its feeders' shortest propagation delay past the clock. A fed link's state is then ahead of the clock, which only
//! counter reads could see, so a packet due at or after the next read waits until the read has
//! been taken. Results are those of an event per hop, bit for bit, but for the order of
//! simultaneous arrivals at the same queue: they enter in the order their feeders admitted
//! them, where the removed events' `seq` used to decide.

use crate::dccp::{DccpReceiver, DccpSender};
use crate::net::feeder::Feeders;
use crate::net::icmp;
use crate::net::inbound::Incoming;
use crate::net::link::{Arrival, Flight, Link};
use crate::net::packet::{FlowId, HopView, LinkId, NodeId, Packet, PacketSlab, PktId};
use crate::net::routing::Routes;
use crate::record::{FlowCounters, FlowSeries, FlowSnapshot, LinkSeries};
use crate::tcp::{TcpReceiver, TcpSender};
use crate::time::{Deadline, SimDuration, SimTime};
use crate::transport::{Probe, Transport};
use crate::udp::{UdpReceiver, UdpSender};
use crate::wire::Header;
use crate::wire::QuenchCode;

mod queue;
pub use queue::EventQueue;

/// Steps of work ([`World::steps`]) between two reports of a run's progress.
pub const PROGRESS_EVERY: u64 = 1 << 18;

/// Index of an endpoint in the world.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EpId(pub u32);

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

/// Every kind of endpoint the engine drives (closed set: static dispatch). Each is boxed, so
/// that an endpoint's slot in the engine (with its timer slot) is 40 bytes: a seed-003 run has
/// tens of thousands, and a packet's delivery looks its endpoint up there first.
pub enum Endpoint {
    TcpSender(Box<TcpSender>),
    TcpReceiver(Box<TcpReceiver>),
    UdpSender(Box<UdpSender>),
    UdpReceiver(Box<UdpReceiver>),
    DccpSender(Box<DccpSender>),
    DccpReceiver(Box<DccpReceiver>),
}

/// Runs `$body` with `$t` bound to the endpoint's transport, statically dispatched (a `match`
/// per call, no virtual call: the hot loop calls these a few times per packet).
macro_rules! with_transport {
    ($ep:expr, $t:ident => $body:expr) => {
        match $ep {
            Endpoint::TcpSender($t) => $body,
            Endpoint::TcpReceiver($t) => $body,
            Endpoint::UdpSender($t) => $body,
            Endpoint::UdpReceiver($t) => $body,
            Endpoint::DccpSender($t) => $body,
            Endpoint::DccpReceiver($t) => $body,
        }
    };
}

impl Endpoint {
    /// [`Transport::poll_transmit`], the packet stored in `slab` at once. Stored within each
    /// kind's own arm, the packet's fields go from the transport's registers into its slot;
    /// returned from the `match` first, it was built in a stack temporary common to every kind
    /// and copied out with loads wider than the stores that had just written it, which the
    /// processor cannot forward from its store buffer (`perf`: a fifth of `service`'s samples).
    #[inline(always)]
    fn transmit_into(&mut self, now: SimTime, slab: &mut PacketSlab) -> Option<(PktId, HopView)> {
        with_transport!(self, t => t.poll_transmit(now).map(|p| slab.insert(p)))
    }

    /// Starts loading what a packet's delivery reads of the endpoint: the hot lines of TCP's
    /// endpoints (their layout tests), the first two lines of the others.
    #[inline(always)]
    fn prefetch_hot(&self) {
        use crate::net::prefetch::prefetch_prefix;
        const FIRST_LINES: usize = 128;
        match self {
            Endpoint::TcpSender(t) => prefetch_prefix(&**t, TcpSender::HOT_BYTES),
            Endpoint::TcpReceiver(t) => prefetch_prefix(&**t, TcpReceiver::HOT_BYTES),
            Endpoint::UdpSender(t) => prefetch_prefix(&**t, FIRST_LINES),
            Endpoint::UdpReceiver(t) => prefetch_prefix(&**t, FIRST_LINES),
            Endpoint::DccpSender(t) => prefetch_prefix(&**t, FIRST_LINES),
            Endpoint::DccpReceiver(t) => prefetch_prefix(&**t, FIRST_LINES),
        }
    }
}

impl Transport for Endpoint {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        with_transport!(self, t => t.handle_packet(now, pkt))
    }
    fn handle_timeout(&mut self, now: SimTime) {
        with_transport!(self, t => t.handle_timeout(now))
    }
    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        with_transport!(self, t => t.poll_transmit(now))
    }
    #[inline(always)]
    fn poll_timeout(&self) -> Option<SimTime> {
        with_transport!(self, t => t.poll_timeout())
    }
    fn probe(&self) -> Probe {
        with_transport!(self, t => t.probe())
    }
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

/// A flow's endpoints: the scenario pushes each flow's sender then its receiver, so they are
/// endpoints `2f` and `2f + 1`. A delivery finds its endpoint from the packet's flow alone,
/// without a read of a per-flow entry (a cache miss per delivery when tens of thousands of
/// background sources share the run).
impl FlowId {
    #[inline]
    pub fn sender(self) -> EpId {
        EpId(2 * self.0)
    }
    #[inline]
    pub fn receiver(self) -> EpId {
        EpId(2 * self.0 + 1)
    }
    /// The endpoint a packet of this flow is delivered to ([`Header::delivered_to_receiver`]).
    #[inline]
    fn endpoint(self, to_receiver: bool) -> EpId {
        if to_receiver {
            self.receiver()
        } else {
            self.sender()
        }
    }
}

impl EpId {
    /// The flow this endpoint serves (the inverse of [`FlowId::sender`] and
    /// [`FlowId::receiver`]).
    #[inline]
    fn flow(self) -> FlowId {
        FlowId(self.0 / 2)
    }
}

/// An endpoint's timer slot: the deadline armed in the queue, and its generation (24 bytes).
#[derive(Clone, Copy, Debug)]
struct TimerSlot {
    armed: Deadline,
    /// Counts re-arms, wrapping (32 bits keep `Event` at 12 bytes and a queued event at 32): at
    /// most one re-arm per event of the endpoint's own, so a stale event would have to wait for
    /// its deadline (seconds away at most) through 2^32 of them to be mistaken for a live one.
    gen: u32,
    /// The endpoint is silent from this instant on (the flow's `stop`).
    silent_from: Deadline,
}

/// An endpoint beside its timer slot: every packet it takes reads both, and a flow's two
/// endpoints are neighbours (80 bytes), so a delivery finds them in one or two cache lines
/// rather than in two arrays of tens of thousands of entries each.
struct EndpointSlot {
    transport: Endpoint,
    timer: TimerSlot,
}

/// Whether a run went to its end or was stopped by the progress callback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunOutcome {
    Completed,
    Interrupted,
}

/// The simulated network and everything on it.
pub struct World {
    queue: EventQueue,
    /// Packet captures, when asked for (`record::pcap`).
    pcap: Option<Box<crate::record::pcap::PcapTap>>,
    pub(crate) slab: PacketSlab,
    pub(crate) links: Vec<Link>,
    node_count: usize,
    routes: Routes,
    endpoints: Vec<EndpointSlot>,
    pub(crate) flows: Vec<FlowSetup>,
    pub(crate) counters: Vec<FlowCounters>,
    pub(crate) end: SimTime,
    warmup: SimTime,
    sample_interval: SimDuration,
    next_sample: SimTime,
    /// See [`World::set_next_read`].
    next_read: SimTime,
    /// Packets handed to fed links so far, wrapping: the order of simultaneous arrivals.
    handed_over: u32,
    /// Counters at the end of warm-up (zeros if there is none).
    pub(crate) at_warmup: Vec<FlowSnapshot>,
    pub(crate) links_at_warmup: Vec<crate::net::link::LinkCounters>,
    last_flow_snapshot: Vec<FlowSnapshot>,
    last_link_counters: Vec<crate::net::link::LinkCounters>,
    pub(crate) flow_series: FlowSeries,
    pub(crate) link_series: LinkSeries,
    pub(crate) events: u64,
    pub(crate) packets_forwarded: u64,
    pub(crate) peak_packets: u64,
    now: SimTime,
    /// When the previous sample was taken.
    prev_sample: SimTime,
    /// The wall-clock instant the warm-up ended (a cost measurement, never part of a result).
    pub(crate) warmup_reached: Option<std::time::Instant>,
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
    /// Captures packets arriving over the tap's links from now on.
    pub fn attach_pcap(&mut self, tap: crate::record::pcap::PcapTap) {
        self.pcap = Some(Box::new(tap));
    }

    /// The capture, to finish its files.
    pub fn take_pcap(&mut self) -> Option<crate::record::pcap::PcapTap> {
        self.pcap.take().map(|b| *b)
    }

    pub fn new(parts: WorldParts) -> World {
        assert_eq!(
            parts.endpoints.len(),
            2 * parts.flows.len(),
            "two endpoints per flow, sender then receiver"
        );
        let n_flows = parts.flows.len();
        let n_links = parts.links.len();
        // A Source Quench leaves a router, not an endpoint: no flow's route says which links it
        // enters, so no link is fed where any queue sends them.
        let feeders = if parts.links.iter().any(Link::quenches) {
            Feeders::none(n_links)
        } else {
            parts.feeders
        };
        let mut links = parts.links;
        let mut out_degree = vec![0u32; parts.node_count];
        for link in &links {
            out_degree[link.from.0 as usize] += 1;
        }
        for link in &mut links {
            link.into_leaf = out_degree[link.to.0 as usize] == 1;
        }
        let mut shares: Vec<Vec<(LinkId, u32)>> = vec![Vec::new(); n_links];
        for fed in (0..n_links as u32).map(LinkId) {
            let Some(from) = feeders.of(fed) else { continue };
            let shortest = from
                .iter()
                .map(|f| links[f.0 as usize].delay)
                .min()
                .expect("a fed link has a feeder");
            links[fed.0 as usize].set_fed(from.len(), shortest);
            for (slot, f) in from.iter().enumerate() {
                links[f.0 as usize].feeds = true;
                if from.len() > 1 {
                    shares[f.0 as usize].push((fed, slot as u32));
                }
            }
        }
        for (link, shares) in links.iter_mut().zip(shares) {
            link.shares = shares.into_boxed_slice();
        }
        // Series grow as samples are taken (no up-front reservation: a run that stops early, or
        // whose flows end, never pays for the rows it does not record).
        let flow_series = FlowSeries::default();
        let counters = parts.flows.iter().map(|f| FlowCounters::new(f.delay_quantiles)).collect();
        let mut w = World {
            queue: EventQueue::default(),
            slab: PacketSlab::with_capacity(4096),
            links,
            node_count: parts.node_count,
            routes: parts.routes,
            endpoints: parts
                .endpoints
                .into_iter()
                .enumerate()
                .map(|(i, transport)| {
                    // Endpoint 2f is flow f's sender (`FlowId::sender`): it goes silent at the flow's stop.
                    let stop = if i % 2 == 0 { parts.flows[i / 2].stop } else { None };
                    let timer =
                        TimerSlot { armed: Deadline::NONE, gen: 0, silent_from: stop.into() };
                    EndpointSlot { transport, timer }
                })
                .collect(),
            flows: parts.flows,
            counters,
            end: parts.end,
            warmup: parts.warmup.min(parts.end),
            sample_interval: parts.sample_interval,
            pcap: None,
            next_sample: SimTime::ZERO,
            next_read: SimTime::ZERO,
            handed_over: 0,
            at_warmup: vec![FlowSnapshot::default(); n_flows],
            links_at_warmup: vec![Default::default(); n_links],
            last_flow_snapshot: vec![FlowSnapshot::default(); n_flows],
            last_link_counters: vec![Default::default(); n_links],
            flow_series,
            link_series: LinkSeries::default(),
            events: 0,
            packets_forwarded: 0,
            peak_packets: 0,
            now: SimTime::ZERO,
            prev_sample: SimTime::ZERO,
            warmup_reached: None,
        };
        if w.warmup > SimTime::ZERO {
            w.queue.schedule(w.warmup, Event::WarmupEnd);
        }
        w.next_sample = (SimTime::ZERO + w.sample_interval).min(w.end);
        w.queue.schedule(w.next_sample, Event::Sample);
        w.set_next_read();
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

    /// The work done so far, in steps: events taken from the queue and packet hops (a hop
    /// without an event of its own costs about as much as one with), a measure that a run's
    /// reports of progress follow and that depends on nothing but the scenario.
    pub fn steps(&self) -> u64 {
        self.events + self.packets_forwarded
    }

    /// Runs to the end. `progress` is called with the fraction of simulated time done each time
    /// the work done crosses a multiple of [`PROGRESS_EVERY`] steps; returning `false` stops the
    /// run.
    pub fn run(&mut self, progress: &mut dyn FnMut(f64) -> bool) -> RunOutcome {
        let mut next_report = PROGRESS_EVERY;
        while let Some((t, ev)) = self.queue.pop_until(self.end) {
            self.now = t;
            self.events += 1;
            match ev {
                Event::Arrive(l) => self.on_arrive(l),
                Event::Fed { link, generation } => self.on_fed_link(link, generation),
                Event::Timer { ep, gen } => self.on_timer(ep, gen),
                Event::Sample => {
                    self.take_sample();
                    if self.now >= self.end {
                        break;
                    }
                    self.next_sample = (self.now + self.sample_interval).min(self.end);
                    self.queue.schedule(self.next_sample, Event::Sample);
                    self.set_next_read();
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

    fn on_arrive(&mut self, l: LinkId) {
        let link = &mut self.links[l.0 as usize];
        let (this, next) = link.pop_arrival(self.now);
        let id = this.id;
        if let Some(tap) = self.pcap.as_deref_mut() {
            tap.capture(l, self.now, self.slab.get(id));
        }
        let node = link.to;
        if let Some(next) = next {
            let into_leaf = link.into_leaf;
            let after = if into_leaf { link.second_in_pipe() } else { None };
            self.queue.schedule(next.at, Event::Arrive(l));
            // It is this link's next arrival: start loading it while other events run, all of
            // it where it will be delivered, what forwarding reads where it goes on (a whole
            // packet is two lines, and loads the memory system no less for being a hint).
            if into_leaf {
                self.slab.prefetch(next.id);
                self.prefetch_receivers(this, next, after);
            } else {
                self.slab.prefetch_hop(next.id);
            }
        }
        self.packets_forwarded += 1;
        self.at_node(node, id);
    }

    /// A packet reaches the far end of `l` at `at`: captured there if asked (each link's
    /// packets in order of time, some of them ahead of the clock).
    #[inline]
    fn capture(&mut self, l: LinkId, at: SimTime, id: PktId) {
        if let Some(tap) = self.pcap.as_deref_mut() {
            tap.capture(l, at, self.slab.get(id));
        }
    }

    /// Starts loading, ahead of their deliveries at a host, the state of the endpoints that the
    /// next packets on its access link go to (each packet's `tag` in the pipe): the endpoint of
    /// the next one, through its slot (loaded at the previous arrival), and the slot and counters
    /// of the one after. A host that many flows share (a background aggregate's) takes each
    /// packet on state that has left the cache since that flow's last packet; a host of one
    /// flow keeps it in the cache, so a packet for the endpoint before it needs nothing loaded.
    #[inline]
    fn prefetch_receivers(&self, this: Flight, next: Flight, after: Option<Flight>) {
        use crate::net::prefetch::{prefetch, prefetch_prefix};
        if next.tag != this.tag {
            if let Some(slot) = self.endpoints.get(next.tag as usize) {
                slot.transport.prefetch_hot();
            }
        }
        if let Some(after) = after.filter(|a| a.tag != next.tag) {
            if let Some(slot) = self.endpoints.get(after.tag as usize) {
                prefetch(slot);
            }
            // The lines a delivery updates (`FlowCounters`' layout).
            if let Some(c) = self.counters.get(EpId(after.tag).flow().0 as usize) {
                prefetch_prefix(c, FlowCounters::DELIVERY_BYTES);
            }
        }
    }

    /// A fed link's event: admit the packets it was handed that no feeder can precede any more
    /// (those reaching its input up to its lookahead past the clock), but none due at or after
    /// the next counter read; then wait for the next one.
    fn on_fed_link(&mut self, l: LinkId, generation: u32) {
        let link = &mut self.links[l.0 as usize];
        if !link.take_event(generation) {
            return; // superseded by an earlier event
        }
        let until = match link.lookahead() {
            Some(ahead) => (self.now + ahead + SimDuration::from_nanos(1)).min(self.next_read),
            None => self.next_read,
        };
        self.take_inbound(l, until);
        if let Some(at) = self.links[l.0 as usize].next_inbound() {
            self.arm(l, at);
        }
    }

    /// Admits, at the instants they reach its input, the packets in `l`'s inbound queues that
    /// reach it before `until`. Each one ends a hop over a feeder.
    fn take_inbound(&mut self, l: LinkId, until: SimTime) {
        while let Some(p) = self.links[l.0 as usize].take_inbound(until) {
            self.packets_forwarded += 1;
            self.admit(l, p.id, p.at, p.hop);
        }
    }

    /// A fed link needs an event by `at`.
    fn arm(&mut self, l: LinkId, at: SimTime) {
        if let Some(generation) = self.links[l.0 as usize].arm(at) {
            self.queue.schedule(at, Event::Fed { link: l, generation });
        }
    }

    /// Counters are about to be read: every packet that reached a fed link's input before now
    /// has been admitted there (its link's event came at or before its instant), and none due
    /// later (held back by `next_read`), so each link's state is that of now.
    fn debug_assert_inbound_caught_up(&self) {
        debug_assert!(
            self.links.iter().all(|l| l.next_inbound().is_none_or(|at| at >= self.now)),
            "a fed link has a packet due before the read at {:?} not yet admitted",
            self.now
        );
    }

    /// The next instant counters are read (a sample, the end of warm-up). A packet that a fed
    /// link would admit before then is admitted with its own arrival instant, ahead of the
    /// clock: no read can come in between to see the link ahead of time.
    fn set_next_read(&mut self) {
        self.next_read = if self.now < self.warmup {
            self.warmup.min(self.next_sample)
        } else {
            self.next_sample
        };
    }

    /// A packet is at `node`: deliver it if addressed here, else forward it.
    fn at_node(&mut self, node: NodeId, id: PktId) {
        let hop = self.slab.hop(id);
        if hop.dst == node {
            self.deliver(id);
        } else {
            self.forward(node, id, hop);
        }
    }

    /// A packet leaves `node`, not its destination, on the link its route takes from there.
    fn forward(&mut self, node: NodeId, id: PktId, hop: HopView) {
        debug_assert_ne!(hop.dst, node, "a packet forwarded from its destination");
        match self.routes.next_hop(node, hop.dst) {
            Some(l) => {
                debug_assert!(
                    !self.links[l.0 as usize].is_fed(),
                    "a packet entered link {} other than through its feeders",
                    l.0
                );
                self.admit(l, id, self.now, hop);
            }
            None => unreachable!(
                "no route from node {} to {} (checked when the scenario was built)",
                node.0, hop.dst.0
            ),
        }
    }

    /// The packet reaches `l`'s input at `at`: the link's queue takes it or drops it. Admitted
    /// onto a link that alone feeds the next one on its way, it goes on to that one at once.
    fn admit(&mut self, l: LinkId, id: PktId, at: SimTime, hop: HopView) {
        let mut onward = Some((l, at));
        while let Some((l, at)) = onward {
            onward = self.admit_one(l, id, at, hop);
        }
    }

    /// [`World::admit`] on one link: where the packet goes on to at once, if anywhere.
    #[inline]
    fn admit_one(
        &mut self,
        l: LinkId,
        id: PktId,
        at: SimTime,
        hop: HopView,
    ) -> Option<(LinkId, SimTime)> {
        let link = &mut self.links[l.0 as usize];
        let (router, far, feeds) = (link.from, link.to, link.feeds);
        let adm = link.arrive(at, hop, self.slab.get_mut(id));
        if adm.marked {
            self.counters[hop.flow.0 as usize].ce_marked_pkts += 1;
        }
        // The packet itself is read only when a Source Quench quotes it or it is dropped (rare).
        let quoted = adm.quench.map(|code| (code, *self.slab.get(id)));
        let mut onward = None;
        match adm.arrival {
            Arrival::Admitted { at } => onward = self.launch(l, feeds, id, far, hop, at),
            Arrival::Dropped(_) => {
                let c = &mut self.counters[hop.flow.0 as usize];
                match self.slab.get(id).header {
                    h if h.is_data() => {
                        c.dropped_pkts += 1;
                        c.in_flight_pkts -= 1;
                    }
                    Header::IcmpSourceQuench { .. } => c.sq_dropped_pkts += 1,
                    _ => c.ack_dropped_pkts += 1,
                }
                self.slab.remove(id);
            }
        }
        if let Some((code, pkt)) = quoted {
            self.send_source_quench(router, &pkt, code);
        }
        onward
    }

    /// Sends an admitted packet on its way to `far`, where it arrives at `at`: to the next link's
    /// inbound queues when `far` forwards it onto a fed link (no event for its arrival at
    /// `far`), or on to that link at once when `l` is its only feeder: then the link and the
    /// instant the packet reaches its input are returned; else into `l`'s pipe. `feeds` is
    /// `l`'s flag, read with the rest of the admission (not looked up again).
    #[inline]
    fn launch(
        &mut self,
        l: LinkId,
        feeds: bool,
        id: PktId,
        far: NodeId,
        hop: HopView,
        at: SimTime,
    ) -> Option<(LinkId, SimTime)> {
        let dst = hop.dst;
        if far != dst && feeds {
            // A packet goes on from `far` along its flow's route, on which `l` precedes `next`:
            // if `next` is fed, `l` is one of its feeders.
            let next = self.routes.next_hop(far, dst).expect("routed when the scenario was built");
            let fed = &self.links[next.0 as usize];
            if fed.is_fed() {
                let (lookahead, waiting) = (fed.lookahead(), !fed.inbound_is_empty());
                self.capture(l, at, id);
                let slot = match lookahead {
                    None if at < self.next_read => {
                        // Admitted now, as of `at`, after those still waiting (all earlier): no
                        // read comes before `at`, and nothing but `l` feeds `next`.
                        if waiting {
                            self.take_inbound(next, self.next_read);
                        }
                        self.packets_forwarded += 1;
                        return Some((next, at));
                    }
                    None => 0,
                    Some(_) => self.links[l.0 as usize].share_of(next),
                };
                self.handed_over = self.handed_over.wrapping_add(1);
                let fed = &mut self.links[next.0 as usize];
                fed.hand_over(slot, Incoming { at, seq: self.handed_over, id, hop });
                if let Some(generation) = fed.arm(at) {
                    self.queue.schedule(at, Event::Fed { link: next, generation });
                }
                return None;
            }
        }
        if self.links[l.0 as usize].launch(at, id, hop.flow.endpoint(hop.to_receiver).0) {
            self.queue.schedule(at, Event::Arrive(l));
        }
        None
    }

    /// The router `at` tells the source of `orig` (RFC 792): a new packet, routed from `at`.
    fn send_source_quench(&mut self, at: NodeId, orig: &Packet, code: QuenchCode) {
        let Some(sq) = icmp::source_quench(self.now, at, orig, code) else { return };
        let c = &mut self.counters[sq.flow.0 as usize];
        c.sq_sent_pkts += 1;
        c.sq_sent_bytes += sq.size as u64;
        let (id, hop) = self.slab.insert(sq);
        self.peak_packets = self.peak_packets.max(self.slab.live() as u64);
        self.forward(at, id, hop);
    }

    fn deliver(&mut self, id: PktId) {
        // Read in place, not copied out: what is read of a data segment or of an ACK without SACK
        // blocks lies in the first cache line of its slot (`net::packet`).
        let pkt = self.slab.get(id);
        let ep = pkt.flow.endpoint(pkt.header.delivered_to_receiver());
        if pkt.header.is_data() {
            let c = &mut self.counters[pkt.flow.0 as usize];
            c.delivered_pkts += 1;
            c.delivered_bytes += pkt.size as u64;
            c.in_flight_pkts -= 1;
            let delay = self.now.saturating_since(pkt.sent_at).as_nanos();
            c.interval_delay_ns += delay as u128;
            c.interval_delay_count += 1;
            if self.now >= self.warmup {
                c.delay.record(delay);
                c.jitter.record(delay);
            }
        } else if matches!(pkt.header, Header::IcmpSourceQuench { .. }) {
            let c = &mut self.counters[pkt.flow.0 as usize];
            c.sq_received_pkts += 1;
            c.sq_delay_ns += self.now.saturating_since(pkt.sent_at).as_nanos() as u128;
        }
        self.endpoints[ep.0 as usize].transport.handle_packet(self.now, pkt);
        self.slab.remove(id);
        self.service(ep);
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
    fn service(&mut self, ep: EpId) {
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

    /// A transport emitted a packet, now stored: count it and put it on its first link.
    fn emit(&mut self, id: PktId, hop: HopView) {
        let pkt = self.slab.get(id);
        if pkt.header.is_data() {
            let c = &mut self.counters[pkt.flow.0 as usize];
            c.sent_pkts += 1;
            c.sent_bytes += pkt.size as u64;
            c.in_flight_pkts += 1;
            if let Header::TcpData { retransmit: true, .. } = pkt.header {
                c.retransmitted_pkts += 1;
            }
        }
        let src = pkt.src;
        self.peak_packets = self.peak_packets.max(self.slab.live() as u64);
        self.forward(src, id, hop);
    }

    fn goodput_bytes(&self, f: usize) -> u64 {
        self.endpoint_probe(FlowId(f as u32).receiver()).delivered_bytes
    }

    fn snapshot_warmup(&mut self) {
        self.debug_assert_inbound_caught_up();
        self.set_next_read();
        self.warmup_reached = Some(std::time::Instant::now());
        for f in 0..self.flows.len() {
            self.at_warmup[f] = self.counters[f].snapshot(self.goodput_bytes(f));
        }
        for (i, l) in self.links.iter_mut().enumerate() {
            self.links_at_warmup[i] = l.window_start_counters(self.now);
            l.take_max_queue(self.now);
        }
    }

    fn take_sample(&mut self) {
        self.debug_assert_inbound_caught_up();
        let t = self.now.as_secs_f64();
        let dt = self.now.saturating_since(self.prev_sample).as_nanos().max(1) as f64;
        for f in 0..self.flows.len() {
            if !self.flows[f].sampled {
                continue;
            }
            let snap = self.counters[f].snapshot(self.goodput_bytes(f));
            let prev = std::mem::replace(&mut self.last_flow_snapshot[f], snap);
            let probe = self.endpoint_probe(FlowId(f as u32).sender());
            let c = &mut self.counters[f];
            let s = &mut self.flow_series;
            s.flow.push(f as u32);
            s.t_s.push(t);
            s.sent_pkts.push(snap.sent_pkts - prev.sent_pkts);
            s.sent_bytes.push(snap.sent_bytes - prev.sent_bytes);
            s.retransmitted_pkts.push(snap.retransmitted_pkts - prev.retransmitted_pkts);
            s.delivered_pkts.push(snap.delivered_pkts - prev.delivered_pkts);
            s.dropped_pkts.push(snap.dropped_pkts - prev.dropped_pkts);
            s.goodput_bytes.push(snap.goodput_bytes - prev.goodput_bytes);
            s.cwnd_pkts.push(probe.cwnd.unwrap_or(f64::NAN));
            s.ssthresh_pkts.push(probe.ssthresh.unwrap_or(f64::NAN));
            s.srtt_s.push(probe.srtt.map_or(f64::NAN, |d| d.as_secs_f64()));
            s.rate_bps.push(probe.rate_bps.unwrap_or(f64::NAN));
            s.delay_mean_s.push(if c.interval_delay_count > 0 {
                c.interval_delay_ns as f64 / c.interval_delay_count as f64 * 1e-9
            } else {
                f64::NAN
            });
            c.interval_delay_ns = 0;
            c.interval_delay_count = 0;
        }
        for (i, l) in self.links.iter_mut().enumerate() {
            let c = l.counters(self.now);
            let prev = std::mem::replace(&mut self.last_link_counters[i], c);
            let s = &mut self.link_series;
            s.link.push(i as u32);
            s.t_s.push(t);
            s.tx_pkts.push(c.tx_pkts - prev.tx_pkts);
            s.tx_bytes.push(c.tx_bytes - prev.tx_bytes);
            s.dropped_pkts.push(c.dropped_pkts - prev.dropped_pkts);
            s.queue_pkts.push((c.queue_pkt_ns - prev.queue_pkt_ns) as f64 / dt);
            s.queue_bytes.push((c.queue_byte_ns - prev.queue_byte_ns) as f64 / dt);
            s.max_queue_pkts.push(l.take_max_queue(self.now));
        }
        self.prev_sample = self.now;
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
        &self.counters[f.0 as usize]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endpoint_maps_back_to_its_flow() {
        for f in [0, 1, 7, u32::MAX / 2] {
            let flow = FlowId(f);
            assert_eq!((flow.sender().flow(), flow.receiver().flow()), (flow, flow));
            assert_eq!(
                (flow.endpoint(false), flow.endpoint(true)),
                (flow.sender(), flow.receiver())
            );
        }
    }

    #[test]
    fn a_flows_two_endpoint_slots_fit_in_80_bytes() {
        assert_eq!(std::mem::size_of::<EndpointSlot>(), 40);
    }

    /// Only links into hosts load whole packets ahead: elsewhere a packet is forwarded, which
    /// reads its `HopView` alone.
    #[test]
    fn links_into_hosts_and_only_those_are_marked_as_into_a_leaf() {
        let toml = r#"
            name = "leaves"
            duration = "1s"
            [topology]
            kind = "dumbbell"
            bottleneck_rate = "10Mbps"
            bottleneck_delay = "10ms"
            [[flows]]
            count = 2
            cc = "reno"
        "#;
        let built = crate::scenario::Scenario::from_toml(toml).unwrap().build().unwrap();
        let roles = built.node_roles.clone();
        let w = World::new(built.parts);
        let marked: Vec<bool> = w.links.iter().map(|l| l.into_leaf).collect();
        let into_hosts: Vec<bool> =
            w.links.iter().map(|l| roles[l.to.0 as usize] == "host").collect();
        assert_eq!(marked, into_hosts);
        assert!(marked.contains(&true) && marked.contains(&false));
    }

    #[test]
    fn equal_times_pop_in_insertion_order() {
        let mut q = EventQueue::default();
        q.schedule(SimTime::from_millis(2), Event::Sample);
        q.schedule(SimTime::from_millis(1), Event::Arrive(LinkId(7)));
        q.schedule(SimTime::from_millis(1), Event::WarmupEnd);
        q.schedule(SimTime::from_millis(1), Event::Arrive(LinkId(1)));
        let order: Vec<Event> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(
            order,
            [Event::Arrive(LinkId(7)), Event::WarmupEnd, Event::Arrive(LinkId(1)), Event::Sample]
        );
    }

    /// The queue against a reference model (a list sorted by time, stable for ties) over a long
    /// random mix of schedules and pops with many simultaneous events, as the engine produces
    /// them: each pop may schedule new events at or after the popped time.
    #[test]
    fn simultaneous_events_stay_fifo_under_interleaved_schedules_and_pops() {
        use crate::rng::{Rng, StreamKind};
        let mut rng = Rng::stream(14, StreamKind::FlowSetup, 0);
        let mut q = EventQueue::default();
        let mut model: Vec<(SimTime, u32)> = Vec::new(); // (time, label) in insertion order
        let mut label = 0u32;
        let mut now = 0u64;
        let mut popped = 0;
        for _ in 0..200_000 {
            let r = rng.next_u64();
            if r % 5 < 2 || model.is_empty() {
                // Few distinct offsets, so most events tie with others; some far in the future.
                let offset = match (r >> 8) % 8 {
                    0..=3 => 0,
                    4 => (r >> 16) % 3,
                    5 => (r >> 16) % 1000,
                    6 => (r >> 16) % 50_000_000, // up to 50 ms: every level to the fifth
                    _ => (1 << 40) | ((r >> 16) % 7),
                };
                let t = SimTime::from_nanos(now + offset);
                q.schedule(t, Event::Arrive(LinkId(label)));
                model.push((t, label));
                label += 1;
            } else {
                // The model's next event: the earliest time, and among equals the first inserted.
                let i = (0..model.len()).min_by_key(|&i| (model[i].0, i)).unwrap();
                let (t, want) = model.remove(i);
                if t.as_nanos() > now && (r >> 8).is_multiple_of(4) {
                    // As at the end of a run: an event past the end stays queued, in its place.
                    assert_eq!(
                        q.pop_until(SimTime::from_nanos(t.as_nanos() - 1)),
                        None,
                        "pop {popped}"
                    );
                    assert_eq!(q.len(), model.len() + 1);
                }
                assert_eq!(q.pop_until(t), Some((t, Event::Arrive(LinkId(want)))), "pop {popped}");
                assert_eq!(q.len(), model.len());
                now = t.as_nanos();
                popped += 1;
            }
        }
        assert!(popped > 50_000);
    }
}
