//! A link direction: a buffer with a queue discipline, a serialiser of fixed rate, and a
//! propagation pipe of fixed delay, or a serialiser and pipe that follow a schedule or a
//! delivery trace (`net::varying`).
//!
//! ```text
//! arrive ─► loss model ─► queue discipline ─► FIFO buffer ─► serialiser (rate) ─► pipe (delay) ─► next node
//! ```
//! The buffer is FIFO and the rate fixed (or known ahead, for a varying link), so when a packet
//! is admitted its whole future on the link is known: it starts serialisation when the packets
//! ahead of it are done, and reaches the far end `delay` after its last bit. The link therefore puts every admitted packet straight
//! into its pipe with that arrival instant, and the engine needs one event per packet hop (the
//! arrival at the far end), not two. The buffer's state at any instant (who is waiting, who is
//! in service) is brought up to date lazily, by `Link::catch_up`, whenever it is looked at: when
//! a packet arrives and when counters are read. What a hop need not pay for is left to the
//! reads: a packet's wait is known when it is admitted, so the occupancy integrals
//! (∫ queue dt = Σ waits) are added then and corrected, when counters are read, for the waits
//! still under way; the packets sent by an instant are those admitted less those still waiting
//! or in service. The engine keeps at most one pending event per link, so the event queue stays
//! O(links + timers) however many packets are in flight. A fed link (`net::feeder`) is given
//! its packets before they reach its input, when its feeders admit them: they wait in its
//! inbound queues (`net::inbound`) until the engine admits them, `arrive` taking the instant
//! each reaches the input.

use super::inbound::{Inbound, Incoming};
use super::loss::LossModel;
use super::queue::{Admit, Arriving, Occupancy, QueueDisc};
use super::ring::Ring;
use super::varying::Varying;
use crate::net::packet::LinkId;
use crate::net::packet::{HopView, NodeId, Packet, PktId};
use crate::rng::Rng;
use crate::time::{Rate, SimDuration, SimTime};
use crate::wire::QuenchCode;

/// How far ahead the link's two rings (pipe and buffer) are loaded into the cache, at the front
/// where they are read and past the back where they are written: two 64-byte lines of 16-byte
/// entries. A long ring's lines were last touched a lap ago (a full 2,500-packet buffer is
/// 40 KB, 30 ms at 1 Gbit/s), so they have left the cache when they come round again.
const RING_PREFETCH_AHEAD: usize = 8;

/// A packet in a link's pipe: when it reaches the far end, and a word the engine keeps with
/// it, which the link does not read (the endpoint it is delivered to if the far end is a
/// host: the engine loads that endpoint's state before the packet arrives). The word fills
/// what would be padding: an entry is 16 bytes either way, aligned to 16 so that it lies in one
/// cache line (one hint loads it, `net::prefetch`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(align(16))]
pub struct Flight {
    pub at: SimTime,
    pub id: PktId,
    pub tag: u32,
}

/// A packet in a link's buffer: when it starts serialisation (fixed at admission: when the one
/// before it is done), and its size. Aligned to its 16 bytes, as [`Flight`] is.
#[derive(Clone, Copy, Debug)]
#[repr(align(16))]
struct Waiting {
    start: SimTime,
    size: u32,
}

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropCause {
    /// The buffer was full.
    Queue,
    /// The queue discipline dropped it early (RED).
    Early,
    /// The link's loss model.
    Loss,
}

/// What happened to a packet handed to the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// Admitted: it waits or is serialised at once, then propagates, and reaches the far end at
    /// `at`. The engine then puts it in this link's pipe ([`Link::launch`]), or, when the far end
    /// hands it straight on to a link fed by this one alone, hands it to that link (see
    /// `engine`).
    Admitted {
        at: SimTime,
    },
    Dropped(DropCause),
}

/// What the link did with an arriving packet, and what the router must tell the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Admission {
    pub arrival: Arrival,
    /// The queue set Congestion Experienced on the packet (RFC 3168).
    pub marked: bool,
    /// The router at the link's input must send an ICMP Source Quench about the packet.
    pub quench: Option<QuenchCode>,
}

/// Cumulative counters of a link direction.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LinkCounters {
    pub tx_pkts: u64,
    pub tx_bytes: u64,
    pub dropped_pkts: u64,
    /// ∫ queue length dt, packet·nanoseconds (for time-averaged occupancy).
    pub queue_pkt_ns: u128,
    /// ∫ queue bytes dt, byte·nanoseconds.
    pub queue_byte_ns: u128,
    /// Of the drops, those the queue discipline made early (RED).
    pub early_dropped_pkts: u64,
    /// Packets marked Congestion Experienced (RFC 3168).
    pub marked_pkts: u64,
    /// ICMP Source Quench messages the router sent about packets at this link (RFC 792).
    pub quench_pkts: u64,
}

/// What a link has done since it was built that few of its hops change (see [`Link::counters`]);
/// what every admission adds to lies in the link's first lines ([`Link`]).
#[derive(Clone, Copy, Debug, Default)]
struct RareTally {
    dropped_pkts: u64,
    early_dropped_pkts: u64,
    marked_pkts: u64,
    quench_pkts: u64,
}

// Fields in declaration order (`repr(C)`), by what reads them. An admission onto an idle link
// reads and writes its first 256 bytes only, four cache lines' worth
// (`an_admission_touches_the_first_four_lines`): a seed-003 parking lot has a thousand links,
// most of them hosts' access links that each see one packet in hundreds, so each line a hop
// touches there is a likely miss. Then what a packet
// that waits adds, what fed links with several feeders use, and what only reads of the counters
// and the scenario's description touch.
#[repr(C)]
pub struct Link {
    // First line: the pipe and the serialiser.
    /// Every admitted packet not yet at the far end (waiting, in service or propagating), in
    /// order, with its arrival instant there (non-decreasing).
    pipe: Ring<Flight>,
    /// When the last admitted packet reaches the far end: a packet never overtakes the one
    /// before it, whichever pipe carries it.
    last_arrival: SimTime,
    /// When the serialiser finishes the last admitted packet.
    busy_until: SimTime,
    pub delay: SimDuration,
    // Second line: the buffer.
    /// The packets waiting for the serialiser as of the last `catch_up`.
    buffer: Ring<Waiting>,
    buffer_bytes: u64,
    /// The serialisation time of the last size seen: a link carries few distinct sizes (full
    /// segments one way, ACKs the other), and the exact division is the costliest step of a hop.
    last_tx: (u32, SimDuration),
    // Third line: admission.
    disc: QueueDisc,
    loss: Option<Box<LossModel>>,
    /// A schedule or a trace the serialiser and the pipe follow instead of `rate` and `delay`.
    varying: Option<Box<Varying>>,
    /// Scenario `jitter`: each packet's propagation takes up to this much longer, drawn per
    /// packet (order kept).
    delay_jitter: Option<Box<(SimDuration, Rng)>>,
    /// How far past the clock a fed link may admit what it was handed: its feeders' shortest
    /// propagation delay (a packet they admit from now on reaches this link no sooner), or
    /// [`SimDuration::MAX`] for no limit, with a single feeder (whose packets come in order).
    lookahead: SimDuration,
    /// Size of the packet that started serialisation last (in service until `busy_until`).
    in_service_size: u32,
    /// The queue discipline has been told the serialiser ran dry at `busy_until`.
    idle_reported: bool,
    /// Only its feeders bring this link packets (see `engine`): whether `inbound` has any
    /// feeder, kept here in the third line where every admission looks.
    fed: bool,
    /// This link feeds fed links: a packet bound for one of them is handed to it when this link
    /// admits it (see `engine`).
    pub feeds: bool,
    /// The far end has one link out, as a host behind its access link has: what arrives there
    /// is delivered there, so the engine loads a whole packet ahead, not only its [`HopView`],
    /// and the state of the endpoint it goes to (its [`Flight::tag`]).
    /// Only a hint for loading: it changes no result.
    pub into_leaf: bool,
    /// Largest buffer occupancy since the last `take_max_queue`, packets.
    max_queue: u64,
    // Fourth line: counts of every admission, and whether packets wait to be admitted.
    admitted_pkts: u64,
    admitted_bytes: u64,
    /// Packets on their way to this link over its feeders, each with the instant it reaches
    /// this link's input, not yet admitted (see `engine`: a fed link admits them in order when
    /// no feeder can bring an earlier one, instead of at an event of their own). Its count
    /// comes first, in the fourth line.
    inbound: Inbound,
    /// Σ of the admitted packets' whole waits in the buffer, nanoseconds (and byte·nanoseconds):
    /// ∫ occupancy dt up to the instant the last of them starts.
    waited_pkt_ns: u128,
    waited_byte_ns: u128,
    /// For a fed link: the instant of its pending event, and that event's generation (an event
    /// of an older generation was superseded by an earlier one).
    armed: Option<SimTime>,
    generation: u32,
    tally: RareTally,
    /// The fed links with several feeders that this link feeds, each with this link's place
    /// among their feeders (a link with a single feeder has it in place 0). A router's link in
    /// may feed hundreds of hosts' links out, but few links with several feeders.
    pub shares: Box<[(LinkId, u32)]>,
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub name: String,
}

impl Link {
    pub fn new(
        name: String,
        from: NodeId,
        to: NodeId,
        rate: Rate,
        delay: SimDuration,
        disc: QueueDisc,
        loss: Option<LossModel>,
    ) -> Self {
        Link {
            pipe: Ring::default(),
            last_arrival: SimTime::ZERO,
            busy_until: SimTime::ZERO,
            delay,
            buffer: Ring::default(),
            buffer_bytes: 0,
            last_tx: (0, SimDuration::ZERO),
            disc,
            loss: loss.map(Box::new),
            varying: None,
            delay_jitter: None,
            lookahead: SimDuration::MAX,
            in_service_size: 0,
            idle_reported: true,
            fed: false,
            feeds: false,
            into_leaf: false,
            max_queue: 0,
            admitted_pkts: 0,
            admitted_bytes: 0,
            inbound: Inbound::default(),
            waited_pkt_ns: 0,
            waited_byte_ns: 0,
            armed: None,
            generation: 0,
            tally: RareTally::default(),
            shares: Box::default(),
            from,
            to,
            rate,
            name,
        }
    }

    /// Adds up to `max` of random delay to each packet's propagation, from `rng`; a packet never
    /// overtakes the one before it (the link stays FIFO).
    pub fn with_delay_jitter(mut self, max: SimDuration, rng: Rng) -> Self {
        self.delay_jitter = (max > SimDuration::ZERO).then(|| Box::new((max, rng)));
        self
    }

    /// Makes the link follow a schedule or a trace; `rate` and `delay` stay its nominal ones
    /// (the schedule's first step, the trace's mean rate).
    pub fn with_varying(mut self, varying: Varying) -> Self {
        self.varying = Some(Box::new(varying));
        self
    }

    /// What the link follows instead of a fixed rate, if anything: `"schedule"` or `"trace"`.
    pub fn varies(&self) -> Option<&'static str> {
        self.varying.as_deref().map(|v| match v {
            Varying::Schedule(_) => "schedule",
            Varying::Trace(_) => "trace",
        })
    }

    /// The shortest propagation delay the link ever has.
    pub fn shortest_delay(&self) -> SimDuration {
        self.varying.as_deref().map_or(self.delay, |v| v.shortest_delay(self.delay))
    }

    /// What the link can send per second between `from` and `to`, on average: its rate, unless
    /// it follows a schedule or a trace.
    pub fn mean_rate_bps(&self, from: SimTime, to: SimTime) -> f64 {
        match self.varying.as_deref() {
            Some(v) => v.capacity_bits(from, to) / to.saturating_since(from).as_secs_f64(),
            None => self.rate.as_bps_f64(),
        }
    }

    pub fn queue_description(&self) -> String {
        self.disc.describe()
    }

    /// Replays what the serialiser did up to `now` (inclusive): each waiting packet whose start
    /// has come leaves the buffer, and when the serialiser has run dry the queue discipline
    /// learns when it went idle. The same steps, at the same instants, as events would have taken.
    #[inline]
    fn catch_up(&mut self, now: SimTime) {
        while let Some(&Waiting { start, size }) = self.buffer.front() {
            if start > now {
                break;
            }
            self.buffer.prefetch_from_front(RING_PREFETCH_AHEAD);
            self.buffer.pop_front();
            self.buffer_bytes -= size as u64;
            self.in_service_size = size;
        }
        if !self.idle_reported && self.busy_until <= now {
            self.idle_reported = true;
            self.disc.on_idle(self.busy_until);
        }
    }

    /// A packet arrives at the link's input at `now`. The queue may set its CE mark.
    /// `hop` is the packet's [`HopView`]; the packet itself is read only by a loss model and
    /// written only to mark it. An admitted packet is not in the pipe yet: see [`Link::launch`].
    pub fn arrive(&mut self, now: SimTime, hop: HopView, pkt: &mut Packet) -> Admission {
        if let Some(loss) = &mut self.loss {
            if loss.drops(pkt) {
                // As in seed 004 §5.3, where ns-2's error model discards at the router's queue.
                return self.dropped(DropCause::Loss);
            }
        }
        if let Some(v) = &mut self.varying {
            if v.loses(now) {
                return self.dropped(DropCause::Loss);
            }
        }
        self.catch_up(now);
        let link_idle = self.busy_until <= now;
        let occ = Occupancy { packets: self.buffer.len() as u64, bytes: self.buffer_bytes };
        let starts = if link_idle { now } else { self.busy_until };
        let (marked, quench) = match self.disc.admit(&Arriving {
            now,
            occ,
            size: hop.size,
            ect: hop.ect,
            link_idle,
            starts,
        }) {
            Admit::Enqueue => (false, None),
            Admit::EnqueueMarked => (true, None),
            Admit::EnqueueQuenched => (false, Some(QuenchCode::CongestionExperienced)),
            Admit::DropFull => return self.dropped(DropCause::Queue),
            Admit::DropEarly => return self.dropped(DropCause::Early),
        };
        if marked {
            pkt.ce = true;
            self.tally.marked_pkts += 1;
        }
        if quench.is_some() {
            self.tally.quench_pkts += 1;
        }
        self.admitted_pkts += 1;
        self.admitted_bytes += hop.size as u64;
        let start = starts;
        if link_idle {
            debug_assert!(self.buffer.is_empty());
            self.in_service_size = hop.size;
            self.idle_reported = false;
        } else {
            self.buffer.push_back(Waiting { start, size: hop.size });
            self.buffer.prefetch_past_back(RING_PREFETCH_AHEAD);
            self.buffer_bytes += hop.size as u64;
            self.max_queue = self.max_queue.max(self.buffer.len() as u64);
            let wait = start.saturating_since(now).as_nanos() as u128;
            self.waited_pkt_ns += wait;
            self.waited_byte_ns += wait * hop.size as u128;
        }
        let (done, delay) = match self.varying.as_deref_mut() {
            None => (start + self.tx_time(hop.size), self.delay),
            Some(v) => {
                let done = v.finish(now, start, hop.size);
                (done, v.delay_at(done, self.delay))
            }
        };
        self.busy_until = done;
        let extra = self.delay_jitter.as_deref_mut().map_or(SimDuration::ZERO, |(max, rng)| {
            SimDuration::from_nanos(rng.uniform_range(0.0, max.as_nanos() as f64) as u64)
        });
        let at = (done + delay + extra).max(self.last_arrival);
        self.last_arrival = at;
        Admission { arrival: Arrival::Admitted { at }, marked, quench }
    }

    /// Puts an admitted packet in the pipe, to reach the far end at `at`, with the engine's
    /// `tag` ([`Flight`]). True if it is the only packet there: the engine must then schedule
    /// its arrival (otherwise one is pending).
    #[inline]
    pub fn launch(&mut self, at: SimTime, id: PktId, tag: u32) -> bool {
        let alone = self.pipe.is_empty();
        self.pipe.push_back(Flight { at, id, tag });
        self.pipe.prefetch_past_back(RING_PREFETCH_AHEAD);
        alone
    }

    /// Makes this link fed by `feeders` links whose shortest propagation delay is `shortest`.
    pub fn set_fed(&mut self, feeders: usize, shortest: SimDuration) {
        self.inbound = Inbound::new(feeders);
        self.fed = feeders > 0;
        self.lookahead = if feeders > 1 { shortest } else { SimDuration::MAX };
    }

    /// Only its feeders bring this link packets.
    #[inline]
    pub fn is_fed(&self) -> bool {
        self.fed
    }

    /// How far past the clock this fed link may admit its inbound packets (`None`: no limit).
    #[inline]
    pub fn lookahead(&self) -> Option<SimDuration> {
        (self.lookahead != SimDuration::MAX).then_some(self.lookahead)
    }

    /// The place this link has among the feeders of `next`, a fed link with several feeders
    /// that this link feeds.
    #[inline]
    pub fn share_of(&self, next: LinkId) -> u32 {
        match self.shares.iter().find(|&&(l, _)| l == next) {
            Some(&(_, slot)) => slot,
            None => unreachable!("link {} is fed by this link, which does not feed it", next.0),
        }
    }

    /// The feeder in place `feeder` hands over a packet, to be admitted later, in order, by
    /// [`Link::take_inbound`].
    #[inline]
    pub fn hand_over(&mut self, feeder: u32, p: Incoming) {
        self.inbound.push(feeder, p);
    }

    /// Nothing waits to be admitted from the feeders.
    #[inline]
    pub fn inbound_is_empty(&self) -> bool {
        self.inbound.is_empty()
    }

    /// A fed link needs an event by `at`. Returns the generation of a new event to schedule at
    /// `at`, or `None` if one already pending comes no later.
    #[inline]
    pub fn arm(&mut self, at: SimTime) -> Option<u32> {
        if self.armed.is_some_and(|a| a <= at) {
            return None;
        }
        self.armed = Some(at);
        self.generation = self.generation.wrapping_add(1);
        Some(self.generation)
    }

    /// An event of generation `generation` has come: true if it is the pending one (the link is
    /// then unarmed until the engine arms it again), false if it was superseded.
    #[inline]
    pub fn take_event(&mut self, generation: u32) -> bool {
        let current = generation == self.generation && self.armed.is_some();
        if current {
            self.armed = None;
        }
        current
    }

    /// The next inbound packet if it reaches the link's input before `until`.
    #[inline]
    pub fn take_inbound(&mut self, until: SimTime) -> Option<Incoming> {
        self.inbound.pop_before(until)
    }

    /// When the next inbound packet reaches the input.
    #[inline]
    pub fn next_inbound(&self) -> Option<SimTime> {
        self.inbound.next_at()
    }

    #[inline]
    fn tx_time(&mut self, size: u32) -> SimDuration {
        if self.last_tx.0 != size {
            self.last_tx = (size, self.rate.tx_time(size));
        }
        self.last_tx.1
    }

    /// Counts a dropped packet; the router quenches its source if the queue says so.
    #[cold]
    fn dropped(&mut self, cause: DropCause) -> Admission {
        self.tally.dropped_pkts += 1;
        self.tally.early_dropped_pkts += (cause == DropCause::Early) as u64;
        let quench = self.disc.source_quench().then_some(QuenchCode::Dropped);
        self.tally.quench_pkts += quench.is_some() as u64;
        Admission { arrival: Arrival::Dropped(cause), marked: false, quench }
    }

    /// Removes the packet reaching the far end at `now`; returns it and the next packet in the
    /// pipe.
    #[inline]
    pub fn pop_arrival(&mut self, now: SimTime) -> (Flight, Option<Flight>) {
        let this = self.pipe.pop_front().expect("arrival event on an empty pipe");
        debug_assert_eq!(this.at, now);
        // The pipe is read in order, one entry per hop, with other links' work in between: load
        // the entries a few hops ahead now, so that reading the next one does not wait on memory.
        self.pipe.prefetch_from_front(RING_PREFETCH_AHEAD);
        (this, self.pipe.front().copied())
    }

    /// The packet that follows the pipe's next one.
    #[inline]
    pub fn second_in_pipe(&self) -> Option<Flight> {
        self.pipe.get(1).copied()
    }

    /// Counters as of `now`: the transmissions that ended by then, and the occupancy integrals
    /// up to then.
    pub fn counters(&mut self, now: SimTime) -> LinkCounters {
        self.catch_up(now);
        let t = &self.tally;
        let busy = self.busy_until > now;
        // The waits still under way were added whole at admission: take off what lies after `now`.
        let (mut ahead_pkt_ns, mut ahead_byte_ns) = (0u128, 0u128);
        for &Waiting { start, size } in self.buffer.iter() {
            let ahead = start.saturating_since(now).as_nanos() as u128;
            ahead_pkt_ns += ahead;
            ahead_byte_ns += ahead * size as u128;
        }
        LinkCounters {
            tx_pkts: self.admitted_pkts - self.buffer.len() as u64 - busy as u64,
            tx_bytes: self.admitted_bytes
                - self.buffer_bytes
                - if busy { self.in_service_size as u64 } else { 0 },
            dropped_pkts: t.dropped_pkts,
            queue_pkt_ns: self.waited_pkt_ns - ahead_pkt_ns,
            queue_byte_ns: self.waited_byte_ns - ahead_byte_ns,
            early_dropped_pkts: t.early_dropped_pkts,
            marked_pkts: t.marked_pkts,
            quench_pkts: t.quench_pkts,
        }
    }

    /// The baseline of a measurement window opening at `now`: the counters with the packet being
    /// serialised counted as already sent, so that the window counts only packets whose whole
    /// transmission lies inside it and `tx_bytes · 8 ≤ rate · window` holds exactly.
    pub fn window_start_counters(&mut self, now: SimTime) -> LinkCounters {
        let mut c = self.counters(now);
        if self.busy_until > now {
            c.tx_pkts += 1;
            c.tx_bytes += self.in_service_size as u64;
        }
        c
    }

    /// Packets waiting in the buffer at `now`.
    pub fn queue_len(&mut self, now: SimTime) -> u64 {
        self.catch_up(now);
        self.buffer.len() as u64
    }

    /// Largest occupancy since the last reset, then resets it to the occupancy at `now`.
    pub fn take_max_queue(&mut self, now: SimTime) -> u64 {
        self.catch_up(now);
        let m = self.max_queue;
        self.max_queue = self.buffer.len() as u64;
        m
    }

    /// Packets held by the link: buffered, in service, propagating (and those on their way to
    /// it over its feeders, which those links hold in fact).
    pub fn held_packets(&self) -> impl Iterator<Item = PktId> + '_ {
        self.pipe.iter().map(|f| f.id).chain(self.inbound.iter().map(|p| p.id))
    }

    /// The router at the link's input sends ICMP Source Quench about its packets.
    pub fn quenches(&self) -> bool {
        self.disc.source_quench()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::FlowId;
    use crate::net::queue::{DropTail, QueueLimit, Red, RedConfig};
    use crate::rng::{Rng, StreamKind};
    use crate::wire::Header;

    /// What an admission onto an idle fed link reads or writes lies in the link's first 256
    /// bytes (its layout, above).
    #[test]
    fn an_admission_touches_the_first_four_lines() {
        /// The size of the field a projection reaches, from its type alone.
        fn size_of_field<F>(_: fn(&Link) -> &F) -> usize {
            std::mem::size_of::<F>()
        }
        macro_rules! end {
            ($field:ident) => {
                std::mem::offset_of!(Link, $field) + size_of_field(|l| &l.$field)
            };
        }
        let ends = [
            end!(pipe),
            end!(last_arrival),
            end!(busy_until),
            end!(delay),
            end!(buffer),
            end!(buffer_bytes),
            end!(last_tx),
            end!(disc),
            end!(loss),
            end!(varying),
            end!(delay_jitter),
            end!(lookahead),
            end!(in_service_size),
            end!(idle_reported),
            end!(fed),
            end!(feeds),
            end!(into_leaf),
            end!(max_queue),
            end!(admitted_pkts),
            end!(admitted_bytes),
            // Of the inbound queues, only their count, which `Inbound` opens with (`repr(C)`).
            std::mem::offset_of!(Link, inbound) + std::mem::size_of::<usize>(),
        ];
        assert!(ends.iter().all(|&e| e <= 256), "fields end at bytes {ends:?}");
    }

    /// A ring entry lies in one cache line, so one hint loads it (`net::prefetch`).
    #[test]
    fn ring_entries_are_aligned_to_their_size() {
        use std::mem::{align_of, size_of};
        assert_eq!((size_of::<Flight>(), align_of::<Flight>()), (16, 16));
        assert_eq!((size_of::<Waiting>(), align_of::<Waiting>()), (16, 16));
    }

    fn pkt() -> Packet {
        Packet {
            flow: FlowId(0),
            src: NodeId(0),
            dst: NodeId(1),
            size: 1250,
            sent_at: SimTime::ZERO,
            ce: false,
            header: Header::Udp { seq: 0, len: 1222 },
        }
    }

    /// Admits a packet and launches it, tagged with its id; `Admitted { at }` carries the
    /// arrival instant when it is the only packet in the pipe, `SimTime::MAX` when an arrival is
    /// already pending.
    fn arrive(l: &mut Link, now: SimTime, id: PktId, p: &mut Packet) -> Admission {
        let mut a = l.arrive(now, HopView::of(p), p);
        if let Arrival::Admitted { at } = a.arrival {
            if !l.launch(at, id, id.0) {
                a.arrival = Arrival::Admitted { at: SimTime::MAX };
            }
        }
        a
    }

    const PENDING: Arrival = Arrival::Admitted { at: SimTime::MAX };

    /// Packet `id` reaching the far end at `ms`, with the tag [`arrive`] gave it (its id).
    fn flight(ms: u64, id: u32) -> Flight {
        Flight { at: SimTime::from_millis(ms), id: PktId(id), tag: id }
    }

    fn link(limit: u64) -> Link {
        let disc = QueueDisc::DropTail(DropTail::new(QueueLimit::Packets(limit)));
        Link::new(
            "a->b".into(),
            NodeId(0),
            NodeId(1),
            Rate::mbps(10),
            SimDuration::from_millis(5),
            disc,
            None,
        )
    }

    #[test]
    fn packets_serialise_back_to_back_then_propagate() {
        let mut l = link(10);
        let t0 = SimTime::ZERO;
        // 1250 B at 10 Mbit/s = 1 ms, then 5 ms of propagation; the second packet waits 1 ms.
        let first = arrive(&mut l, t0, PktId(0), &mut pkt()).arrival;
        assert_eq!(first, Arrival::Admitted { at: SimTime::from_millis(6) });
        let second = arrive(&mut l, t0, PktId(1), &mut pkt()).arrival;
        assert_eq!(second, PENDING, "an arrival is already pending");
        assert_eq!(l.queue_len(t0), 1);
        assert_eq!(l.counters(SimTime::from_nanos(999_999)).tx_pkts, 0);
        assert_eq!(
            l.queue_len(SimTime::from_millis(1)),
            0,
            "the second packet starts as the first ends"
        );
        assert_eq!(l.counters(SimTime::from_millis(1)).tx_pkts, 1);
        assert_eq!(l.pop_arrival(SimTime::from_millis(6)), (flight(6, 0), Some(flight(7, 1))));
        assert_eq!(l.pop_arrival(SimTime::from_millis(7)), (flight(7, 1), None));
        assert_eq!(l.counters(SimTime::from_millis(7)).tx_bytes, 2500);
    }

    #[test]
    fn a_packet_arriving_as_the_serialiser_frees_starts_at_once() {
        let mut l = link(1);
        arrive(&mut l, SimTime::ZERO, PktId(0), &mut pkt());
        let at_1ms = arrive(&mut l, SimTime::from_millis(1), PktId(1), &mut pkt());
        assert_eq!(at_1ms.arrival, PENDING);
        // It found the link idle: it did not wait, so a 1-packet buffer still has room.
        assert_eq!(l.queue_len(SimTime::from_millis(1)), 0);
        assert_eq!(l.pop_arrival(SimTime::from_millis(6)), (flight(6, 0), Some(flight(7, 1))));
    }

    #[test]
    fn full_buffer_drops_and_occupancy_integrates() {
        let mut l = link(1);
        let t0 = SimTime::ZERO;
        arrive(&mut l, t0, PktId(0), &mut pkt());
        assert!(matches!(
            arrive(&mut l, t0, PktId(1), &mut pkt()).arrival,
            Arrival::Admitted { .. }
        ));
        assert_eq!(
            arrive(&mut l, t0, PktId(2), &mut pkt()).arrival,
            Arrival::Dropped(DropCause::Queue)
        );
        let c = l.counters(SimTime::from_millis(3));
        assert_eq!(c.dropped_pkts, 1);
        assert_eq!(c.tx_pkts, 2);
        // One packet waited 1 ms.
        assert_eq!(c.queue_pkt_ns, 1_000_000);
        assert_eq!(c.queue_byte_ns, 1250 * 1_000_000);
    }

    #[test]
    fn red_learns_when_the_link_went_idle_even_if_nothing_looked_at_that_instant() {
        // RED ages its average over an idle period; the period starts when the last packet's
        // transmission ended (2 ms here), not when the next packet happens to arrive.
        let cfg =
            RedConfig { min_th: 0.0, max_th: 1.0, max_p: 1.0, wq: 1.0, ..RedConfig::default() };
        let red = Red::new(
            cfg,
            QueueLimit::Packets(100),
            Rate::mbps(10),
            Rng::stream(1, StreamKind::Queue, 0),
        );
        let mut l = Link::new(
            "a->b".into(),
            NodeId(0),
            NodeId(1),
            Rate::mbps(10),
            SimDuration::ZERO,
            QueueDisc::Red(Box::new(red)),
            None,
        );
        arrive(&mut l, SimTime::ZERO, PktId(0), &mut pkt());
        arrive(&mut l, SimTime::ZERO, PktId(1), &mut pkt());
        l.counters(SimTime::from_millis(10));
        let QueueDisc::Red(r) = &l.disc else { unreachable!() };
        assert_eq!(r.idle_since(), Some(SimTime::from_millis(2)));
    }

    #[test]
    fn a_quenching_queue_reports_code_zero_for_drops_and_no_message_for_admitted_packets() {
        let mut d = DropTail::new(QueueLimit::Packets(1));
        d.source_quench = true;
        let mut l = Link::new(
            "a->b".into(),
            NodeId(0),
            NodeId(1),
            Rate::mbps(10),
            SimDuration::ZERO,
            QueueDisc::DropTail(d),
            None,
        );
        let t0 = SimTime::ZERO;
        assert_eq!(arrive(&mut l, t0, PktId(0), &mut pkt()).quench, None);
        assert_eq!(arrive(&mut l, t0, PktId(1), &mut pkt()).quench, None);
        let full = arrive(&mut l, t0, PktId(2), &mut pkt());
        assert_eq!(
            (full.arrival, full.quench),
            (Arrival::Dropped(DropCause::Queue), Some(QuenchCode::Dropped))
        );
        assert_eq!(l.counters(t0).quench_pkts, 1);
    }

    #[test]
    fn red_with_ecn_marks_the_packet_in_place_instead_of_dropping_it() {
        // w_q = 1, thresholds 0..1 and max_p = 1: a packet that finds another waiting sees
        // avg ≥ max_th and is acted on for sure; ECT packets are marked, never dropped, while the
        // buffer has room.
        let cfg = RedConfig {
            min_th: 0.0,
            max_th: 1.0,
            max_p: 1.0,
            wq: 1.0,
            ecn: true,
            ..RedConfig::default()
        };
        let red = Red::new(
            cfg,
            QueueLimit::Packets(100),
            Rate::mbps(10),
            Rng::stream(1, StreamKind::Queue, 0),
        );
        let mut l = Link::new(
            "a->b".into(),
            NodeId(0),
            NodeId(1),
            Rate::mbps(10),
            SimDuration::ZERO,
            QueueDisc::Red(Box::new(red)),
            None,
        );
        let mut ect = pkt();
        ect.header = Header::TcpData {
            seq: 0,
            len: 1210,
            retransmit: false,
            ect: true,
            cwr: false,
            ts: None,
        };
        let t0 = SimTime::ZERO;
        let mut p = ect;
        assert!(!arrive(&mut l, t0, PktId(0), &mut p).marked, "avg 0: the first packet passes");
        let mut p = ect;
        assert!(!arrive(&mut l, t0, PktId(1), &mut p).marked, "the buffer was still empty");
        let mut marked = 0;
        for i in 2..10 {
            let mut p = ect;
            let a = arrive(&mut l, t0, PktId(i), &mut p);
            assert_eq!(a.arrival, PENDING);
            assert_eq!(a.marked, p.ce);
            marked += a.marked as u64;
        }
        assert_eq!(marked, 8);
        assert_eq!(l.counters(t0).marked_pkts, 8);
        assert_eq!(l.counters(t0).dropped_pkts, 0);
    }
}
