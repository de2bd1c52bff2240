//! Forwarding: moving packets across links and nodes. A packet's arrival at the far end of a
//! link, its admission to the next link on its route (or its drop there), its delivery to the
//! endpoint at its destination, a transport's packet put on its first link, and the Source
//! Quench a router sends back (RFC 792). These are [`World`] methods: a hop reads the links,
//! the slab, the routes and the flow's counters, and schedules the link's next event, all
//! through the one `&mut World` the event loop (`engine`) runs on.
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
//!
//! Hot-path rules (everything here runs per packet but `prepare_links`): a link keeps one
//! pending event in the queue (its next arrival, or a fed link's next admission), so the queue
//! holds O(links + timers); nothing is allocated per packet (packets live in the slab, pipes
//! and inbound queues are rings that are reused); no dynamic dispatch; a packet is read whole
//! only where it is delivered or quoted, forwarded on its `HopView` alone; and the state the
//! next arrival on a link will read is prefetched while other events run.

use crate::engine::{EpId, Event, World};
use crate::net::feeder::Feeders;
use crate::net::icmp;
use crate::net::inbound::Incoming;
use crate::net::link::{Arrival, Flight, Link};
use crate::net::packet::{HopView, LinkId, NodeId, Packet, PktId};
use crate::time::{SimDuration, SimTime};
use crate::transport::Transport;
use crate::wire::QuenchCode;

/// Sets each link's part in forwarding: whether it leads into a leaf (a host), and which links
/// are fed, by which feeders (their shortest delay, and each feeder's share of the inbound
/// queues when there are several).
pub(crate) fn prepare_links(links: &mut [Link], node_count: usize, feeders: Feeders) {
    let n_links = links.len();
    // A Source Quench leaves a router, not an endpoint: no flow's route says which links it
    // enters, so no link is fed where any queue sends them.
    let feeders = if links.iter().any(Link::quenches) { Feeders::none(n_links) } else { feeders };
    let mut out_degree = vec![0u32; node_count];
    for link in links.iter() {
        out_degree[link.from.0 as usize] += 1;
    }
    for link in links.iter_mut() {
        link.into_leaf = out_degree[link.to.0 as usize] == 1;
    }
    let mut shares: Vec<Vec<(LinkId, u32)>> = vec![Vec::new(); n_links];
    for fed in (0..n_links as u32).map(LinkId) {
        let Some(from) = feeders.of(fed) else { continue };
        let shortest = from
            .iter()
            .map(|f| links[f.0 as usize].shortest_delay())
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
}

impl World {
    /// The packet at the head of `l`'s pipe reaches the far node (an `Event::Arrive`).
    pub(crate) fn on_arrive(&mut self, l: LinkId) {
        let link = &mut self.links[l.0 as usize];
        let (this, next) = link.pop_arrival(self.now);
        let id = this.id;
        self.recorder.capture(l, self.now, &self.slab, id);
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
        self.recorder.count_hop();
        self.at_node(node, id);
    }

    /// Starts loading, ahead of their deliveries at a host, the state of the endpoints that the
    /// next packets on its access link go to (each packet's `tag` in the pipe): the endpoint of
    /// the next one, through its slot (loaded at the previous arrival), and the slot and counters
    /// of the one after. A host that many flows share (a background aggregate's) takes each
    /// packet on state that has left the cache since that flow's last packet; a host of one
    /// flow keeps it in the cache, so a packet for the endpoint before it needs nothing loaded.
    #[inline]
    fn prefetch_receivers(&self, this: Flight, next: Flight, after: Option<Flight>) {
        use crate::net::prefetch::prefetch;
        if next.tag != this.tag {
            if let Some(slot) = self.endpoints.get(next.tag as usize) {
                slot.transport.prefetch_hot();
            }
        }
        if let Some(after) = after.filter(|a| a.tag != next.tag) {
            if let Some(slot) = self.endpoints.get(after.tag as usize) {
                prefetch(slot);
            }
            self.recorder.prefetch_delivery(EpId(after.tag).flow());
        }
    }

    /// A fed link's event: admit the packets it was handed that no feeder can precede any more
    /// (those reaching its input up to its lookahead past the clock), but none due at or after
    /// the next counter read; then wait for the next one.
    pub(crate) fn on_fed_link(&mut self, l: LinkId, generation: u32) {
        let link = &mut self.links[l.0 as usize];
        if !link.take_event(generation) {
            return; // superseded by an earlier event
        }
        let until = match link.lookahead() {
            Some(ahead) => {
                (self.now + ahead + SimDuration::from_nanos(1)).min(self.recorder.next_read())
            }
            None => self.recorder.next_read(),
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
            self.recorder.count_hop();
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
    /// later (held back by the recorder's next read), so each link's state is that of now.
    pub(crate) fn debug_assert_inbound_caught_up(&self) {
        debug_assert!(
            self.links.iter().all(|l| l.next_inbound().is_none_or(|at| at >= self.now)),
            "a fed link has a packet due before the read at {:?} not yet admitted",
            self.now
        );
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
            self.recorder.count_marked(hop.flow);
        }
        // The packet itself is read only when a Source Quench quotes it or it is dropped (rare).
        let quoted = adm.quench.map(|code| (code, *self.slab.get(id)));
        let mut onward = None;
        match adm.arrival {
            Arrival::Admitted { at } => onward = self.launch(l, feeds, id, far, hop, at),
            Arrival::Dropped(_) => {
                self.recorder.count_dropped(hop.flow, &self.slab.get(id).header);
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
                self.recorder.capture(l, at, &self.slab, id);
                let slot = match lookahead {
                    None if at < self.recorder.next_read() => {
                        // Admitted now, as of `at`, after those still waiting (all earlier): no
                        // read comes before `at`, and nothing but `l` feeds `next`.
                        if waiting {
                            self.take_inbound(next, self.recorder.next_read());
                        }
                        self.recorder.count_hop();
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
        self.recorder.count_quench_sent(&sq);
        let (id, hop) = self.slab.insert(sq);
        self.recorder.note_stored(self.slab.live());
        self.forward(at, id, hop);
    }

    fn deliver(&mut self, id: PktId) {
        // Read in place, not copied out: what is read of a data segment or of an ACK without SACK
        // blocks lies in the first cache line of its slot (`net::packet`).
        let pkt = self.slab.get(id);
        let ep = pkt.flow.endpoint(pkt.header.delivered_to_receiver());
        self.recorder.count_delivered(pkt, self.now);
        self.endpoints[ep.0 as usize].transport.handle_packet(self.now, pkt);
        self.slab.remove(id);
        self.service(ep);
    }

    /// A transport emitted a packet, now stored: count it and put it on its first link.
    pub(crate) fn emit(&mut self, id: PktId, hop: HopView) {
        let pkt = self.slab.get(id);
        self.recorder.count_emitted(pkt);
        let src = pkt.src;
        self.recorder.note_stored(self.slab.live());
        self.forward(src, id, hop);
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::World;

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
}
