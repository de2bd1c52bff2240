//! The recorder: everything a run measures, kept beside the world that moves the packets.
//!
//! It owns the per-flow counters that forwarding updates as packets move, the engine's own
//! counts (events, hops, packets stored), the packet capture, the read schedule (the end of
//! warm-up and each sample instant), the snapshots taken at those reads, the time series they
//! append to, and the assembly of a run's result tables from all of it.
//!
//! Hot-path rules: the `count_*` methods, `capture` and `prefetch_delivery` run per packet; they
//! are `#[inline]`, touch only the lines of a flow's counters that `FlowCounters`' layout puts
//! together, and never allocate. Reads (samples, warm-up) run per interval: their series grow
//! as they are taken, and they read the network only at instants `Recorder::next_read`
//! announced in advance, so that fed links never run past one (`net::forward`).

use crate::engine::{EpId, FlowSetup};
use crate::net::link::{Link, LinkCounters};
use crate::net::packet::{FlowId, LinkId, Packet, PacketSlab, PktId};
use crate::record::identity::{flow_identity, link_identity};
use crate::record::pcap::PcapTap;
use crate::record::quantiles::delay_quantiles_table;
use crate::record::result::{Column, EngineStats, RunResult, Table};
use crate::record::{secs, FlowCounters, FlowSeries, FlowSnapshot, LinkSeries};
use crate::scenario::build::FlowMeta;
use crate::scenario::Scenario;
use crate::time::{SimDuration, SimTime};
use crate::transport::Probe;
use crate::wire::Header;
use std::time::Instant;

/// What the recorder reads of the network once the run is over ([`World::into_recorder`]).
///
/// [`World::into_recorder`]: crate::engine::World::into_recorder
pub struct NetworkAtEnd {
    /// The end of the run, to which the links' counters are brought.
    pub end: SimTime,
    pub links: Vec<Link>,
    /// Data packets of each flow held by links ([`World::packets_in_network`]).
    ///
    /// [`World::packets_in_network`]: crate::engine::World::packets_in_network
    pub in_network: Vec<u64>,
    /// Each flow's sender's and receiver's probes.
    pub probes: Vec<(Probe, Probe)>,
}

/// Counters, captures, snapshots and series of one run.
pub struct Recorder {
    /// Packet captures, when asked for (`record::pcap`).
    pcap: Option<Box<PcapTap>>,
    counters: Vec<FlowCounters>,
    warmup: SimTime,
    sample_interval: SimDuration,
    next_sample: SimTime,
    /// See [`Recorder::next_read`].
    next_read: SimTime,
    /// When the previous sample was taken.
    prev_sample: SimTime,
    /// Counters at the end of warm-up (zeros if there is none).
    at_warmup: Vec<FlowSnapshot>,
    links_at_warmup: Vec<LinkCounters>,
    last_flow_snapshot: Vec<FlowSnapshot>,
    last_link_counters: Vec<LinkCounters>,
    flow_series: FlowSeries,
    link_series: LinkSeries,
    events: u64,
    packets_forwarded: u64,
    peak_packets: u64,
    /// The wall-clock instant the warm-up ended (a cost measurement, never part of a result).
    warmup_reached: Option<Instant>,
}

impl Recorder {
    /// Counters at zero for `flows` and `n_links` links; reads at the end of `warmup` (already
    /// within the run) and every `sample_interval`.
    pub fn new(
        flows: &[FlowSetup],
        n_links: usize,
        warmup: SimTime,
        sample_interval: SimDuration,
    ) -> Self {
        let n_flows = flows.len();
        Recorder {
            pcap: None,
            counters: flows.iter().map(|f| FlowCounters::new(f.delay_quantiles)).collect(),
            warmup,
            sample_interval,
            next_sample: SimTime::ZERO,
            next_read: SimTime::ZERO,
            prev_sample: SimTime::ZERO,
            at_warmup: vec![FlowSnapshot::default(); n_flows],
            links_at_warmup: vec![Default::default(); n_links],
            last_flow_snapshot: vec![FlowSnapshot::default(); n_flows],
            last_link_counters: vec![Default::default(); n_links],
            // Series grow as samples are taken (no up-front reservation: a run that stops
            // early, or whose flows end, never pays for the rows it does not record).
            flow_series: FlowSeries::default(),
            link_series: LinkSeries::default(),
            events: 0,
            packets_forwarded: 0,
            peak_packets: 0,
            warmup_reached: None,
        }
    }

    /// Captures packets arriving over the tap's links from now on.
    pub fn attach_pcap(&mut self, tap: PcapTap) {
        self.pcap = Some(Box::new(tap));
    }

    /// The capture, to finish its files.
    pub fn take_pcap(&mut self) -> Option<PcapTap> {
        self.pcap.take().map(|b| *b)
    }

    /// A packet reaches the far end of `l` at `at`: captured there if asked (each link's
    /// packets in order of time, some of them ahead of the clock). The packet is read only
    /// when there is a capture.
    #[inline]
    pub(crate) fn capture(&mut self, l: LinkId, at: SimTime, slab: &PacketSlab, id: PktId) {
        if let Some(tap) = self.pcap.as_deref_mut() {
            tap.capture(l, at, slab.get(id));
        }
    }

    /// The instant the warm-up ends, if the run has one.
    pub fn warmup_end(&self) -> Option<SimTime> {
        (self.warmup > SimTime::ZERO).then_some(self.warmup)
    }

    /// The wall-clock instant the warm-up ended, if it did.
    pub fn warmup_reached(&self) -> Option<Instant> {
        self.warmup_reached
    }

    /// Fixes the next sample after `now` (at the latest `end`, the run's last) and returns it.
    pub(crate) fn plan_next_sample(&mut self, now: SimTime, end: SimTime) -> SimTime {
        self.next_sample = (now + self.sample_interval).min(end);
        self.set_next_read(now);
        self.next_sample
    }

    /// The next instant counters are read (a sample, the end of warm-up). A packet that a fed
    /// link would admit before then is admitted with its own arrival instant, ahead of the
    /// clock: no read can come in between to see the link ahead of time.
    #[inline]
    pub(crate) fn next_read(&self) -> SimTime {
        self.next_read
    }

    fn set_next_read(&mut self, now: SimTime) {
        self.next_read =
            if now < self.warmup { self.warmup.min(self.next_sample) } else { self.next_sample };
    }

    /// The loop took an event from its queue.
    #[inline]
    pub(crate) fn count_event(&mut self) {
        self.events += 1;
    }

    /// A packet ended a hop (reached the far end of a link, with an event or without).
    #[inline]
    pub(crate) fn count_hop(&mut self) {
        self.packets_forwarded += 1;
    }

    /// `live` packets are stored right now.
    #[inline]
    pub(crate) fn note_stored(&mut self, live: usize) {
        self.peak_packets = self.peak_packets.max(live as u64);
    }

    /// The work done so far, in steps: events taken from the queue and packet hops (a hop
    /// without an event of its own costs about as much as one with), a measure that a run's
    /// reports of progress follow and that depends on nothing but the scenario.
    #[inline]
    pub fn steps(&self) -> u64 {
        self.events + self.packets_forwarded
    }

    /// A transport emitted `pkt`.
    #[inline]
    pub(crate) fn count_emitted(&mut self, pkt: &Packet) {
        if pkt.header.is_data() {
            let c = &mut self.counters[pkt.flow.0 as usize];
            c.sent_pkts += 1;
            c.sent_bytes += pkt.size as u64;
            c.in_flight_pkts += 1;
            if let Header::TcpData { retransmit: true, .. } = pkt.header {
                c.retransmitted_pkts += 1;
            }
        }
    }

    /// `pkt` reached its endpoint at `now`: its delay is recorded once the warm-up is over.
    #[inline]
    pub(crate) fn count_delivered(&mut self, pkt: &Packet, now: SimTime) {
        if pkt.header.is_data() {
            let c = &mut self.counters[pkt.flow.0 as usize];
            c.delivered_pkts += 1;
            c.delivered_bytes += pkt.size as u64;
            c.in_flight_pkts -= 1;
            let delay = now.saturating_since(pkt.sent_at).as_nanos();
            c.interval_delay_ns += delay as u128;
            c.interval_delay_count += 1;
            if now >= self.warmup {
                c.delay.record(delay);
                c.jitter.record(delay);
            }
        } else if matches!(pkt.header, Header::IcmpSourceQuench { .. }) {
            let c = &mut self.counters[pkt.flow.0 as usize];
            c.sq_received_pkts += 1;
            c.sq_delay_ns += now.saturating_since(pkt.sent_at).as_nanos() as u128;
        }
    }

    /// A queue marked a packet of `flow` Congestion Experienced.
    #[inline]
    pub(crate) fn count_marked(&mut self, flow: FlowId) {
        self.counters[flow.0 as usize].ce_marked_pkts += 1;
    }

    /// A link dropped a packet of `flow` with this header.
    #[inline]
    pub(crate) fn count_dropped(&mut self, flow: FlowId, header: &Header) {
        let c = &mut self.counters[flow.0 as usize];
        match *header {
            h if h.is_data() => {
                c.dropped_pkts += 1;
                c.in_flight_pkts -= 1;
            }
            Header::IcmpSourceQuench { .. } => c.sq_dropped_pkts += 1,
            _ => c.ack_dropped_pkts += 1,
        }
    }

    /// A router sent the Source Quench `sq` about a packet of `sq.flow`.
    #[inline]
    pub(crate) fn count_quench_sent(&mut self, sq: &Packet) {
        let c = &mut self.counters[sq.flow.0 as usize];
        c.sq_sent_pkts += 1;
        c.sq_sent_bytes += sq.size as u64;
    }

    /// Starts loading the lines of `flow`'s counters that a delivery updates (`FlowCounters`'
    /// layout), ahead of one.
    #[inline]
    pub(crate) fn prefetch_delivery(&self, flow: FlowId) {
        use crate::net::prefetch::prefetch_prefix;
        if let Some(c) = self.counters.get(flow.0 as usize) {
            prefetch_prefix(c, FlowCounters::DELIVERY_BYTES);
        }
    }

    pub fn flow_counters(&self, f: FlowId) -> &FlowCounters {
        &self.counters[f.0 as usize]
    }

    /// The end of warm-up, at `now`: every flow's and link's counters as the measured part of
    /// the run starts from them. `probe` reads an endpoint.
    pub(crate) fn snapshot_warmup(
        &mut self,
        now: SimTime,
        links: &mut [Link],
        probe: impl Fn(EpId) -> Probe,
    ) {
        self.set_next_read(now);
        self.warmup_reached = Some(Instant::now());
        for f in 0..self.counters.len() {
            self.at_warmup[f] = self.counters[f].snapshot(goodput_bytes(&probe, f));
        }
        for (i, l) in links.iter_mut().enumerate() {
            self.links_at_warmup[i] = l.window_start_counters(now);
            l.take_max_queue(now);
        }
    }

    /// One row of every sampled flow's series and of every link's, at `now`: what changed
    /// since the previous sample, and the endpoints' state (`probe`) as it is.
    pub(crate) fn take_sample(
        &mut self,
        now: SimTime,
        flows: &[FlowSetup],
        links: &mut [Link],
        probe: impl Fn(EpId) -> Probe,
    ) {
        let t = now.as_secs_f64();
        let dt = now.saturating_since(self.prev_sample).as_nanos().max(1) as f64;
        for (f, setup) in flows.iter().enumerate() {
            if !setup.sampled {
                continue;
            }
            let snap = self.counters[f].snapshot(goodput_bytes(&probe, f));
            let prev = std::mem::replace(&mut self.last_flow_snapshot[f], snap);
            let sender = probe(FlowId(f as u32).sender());
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
            s.cwnd_pkts.push(sender.cwnd.unwrap_or(f64::NAN));
            s.ssthresh_pkts.push(sender.ssthresh.unwrap_or(f64::NAN));
            s.srtt_s.push(sender.srtt.map_or(f64::NAN, |d| d.as_secs_f64()));
            s.rate_bps.push(sender.rate_bps.unwrap_or(f64::NAN));
            s.delay_mean_s.push(if c.interval_delay_count > 0 {
                c.interval_delay_ns as f64 / c.interval_delay_count as f64 * 1e-9
            } else {
                f64::NAN
            });
            c.interval_delay_ns = 0;
            c.interval_delay_count = 0;
        }
        for (i, l) in links.iter_mut().enumerate() {
            let c = l.counters(now);
            let prev = std::mem::replace(&mut self.last_link_counters[i], c);
            let s = &mut self.link_series;
            s.link.push(i as u32);
            s.t_s.push(t);
            s.tx_pkts.push(c.tx_pkts - prev.tx_pkts);
            s.tx_bytes.push(c.tx_bytes - prev.tx_bytes);
            s.dropped_pkts.push(c.dropped_pkts - prev.dropped_pkts);
            s.queue_pkts.push((c.queue_pkt_ns - prev.queue_pkt_ns) as f64 / dt);
            s.queue_bytes.push((c.queue_byte_ns - prev.queue_byte_ns) as f64 / dt);
            s.max_queue_pkts.push(l.take_max_queue(now));
        }
        self.prev_sample = now;
    }

    /// The run's result tables. `metas` and `node_names` name the flows and nodes; `wall` is
    /// the run's wall-clock seconds, in all and up to the end of the warm-up.
    pub fn finish(
        self,
        scenario: &Scenario,
        metas: &[FlowMeta],
        node_names: &[String],
        wall: (f64, f64),
        net: NetworkAtEnd,
    ) -> RunResult {
        let (wall_s, warmup_wall_s) = wall;
        let NetworkAtEnd { end, mut links, in_network, probes } = net;
        let flows = self.flow_table(scenario, metas, end, &in_network, &probes);
        let link_table = self.link_table(scenario, &mut links, node_names, end);
        RunResult {
            name: scenario.name.clone(),
            seed: scenario.seed,
            duration_s: scenario.duration.0.as_secs_f64(),
            warmup_s: scenario.warmup.0.as_secs_f64(),
            sample_interval_s: scenario.sample_interval.0.as_secs_f64(),
            scenario: scenario.normalised(),
            engine: EngineStats {
                events: self.events,
                wall_s,
                packets_forwarded: self.packets_forwarded,
                peak_packets: self.peak_packets,
                warmup_wall_s,
            },
            flows,
            flow_series: flow_series_table(self.flow_series),
            links: link_table,
            link_series: link_series_table(self.link_series, &links),
            delay_quantiles: delay_quantiles_table(metas, &self.counters),
        }
    }

    /// One row per flow: its description, its totals (whole run and after warm-up), its delays
    /// and what its sender counted.
    fn flow_table(
        &self,
        scenario: &Scenario,
        metas: &[FlowMeta],
        end: SimTime,
        in_network: &[u64],
        probes: &[(Probe, Probe)],
    ) -> Table {
        let n = metas.len();
        let mut flows = flow_identity(metas);

        let c = &self.counters;
        let u = |f: &dyn Fn(usize) -> u64| Column::U64((0..n).map(f).collect());
        let fl = |f: &dyn Fn(usize) -> f64| Column::F64((0..n).map(f).collect());
        flows.push("sent_pkts", u(&|i| c[i].sent_pkts));
        flows.push("sent_bytes", u(&|i| c[i].sent_bytes));
        flows.push("retransmitted_pkts", u(&|i| c[i].retransmitted_pkts));
        flows.push("delivered_pkts", u(&|i| c[i].delivered_pkts));
        flows.push("delivered_bytes", u(&|i| c[i].delivered_bytes));
        flows.push("dropped_pkts", u(&|i| c[i].dropped_pkts));
        flows.push("in_flight_pkts", u(&|i| in_network[i]));
        flows.push("ack_dropped_pkts", u(&|i| c[i].ack_dropped_pkts));
        flows.push("goodput_bytes", u(&|i| probes[i].1.delivered_bytes));
        let meas_start = |i: usize| metas[i].start.max(SimTime::ZERO + scenario.warmup.0).min(end);
        flows.push("meas_start_s", fl(&|i| secs(meas_start(i))));
        let wu = &self.at_warmup;
        flows.push("meas_sent_pkts", u(&|i| c[i].sent_pkts - wu[i].sent_pkts));
        flows.push("meas_sent_bytes", u(&|i| c[i].sent_bytes - wu[i].sent_bytes));
        flows.push("meas_delivered_pkts", u(&|i| c[i].delivered_pkts - wu[i].delivered_pkts));
        flows.push("meas_goodput_bytes", u(&|i| probes[i].1.delivered_bytes - wu[i].goodput_bytes));
        flows.push("meas_dropped_pkts", u(&|i| c[i].dropped_pkts - wu[i].dropped_pkts));
        let ns = 1e-9;
        flows.push("delay_count", u(&|i| c[i].delay.count()));
        flows.push("delay_mean_s", fl(&|i| nan_or(c[i].delay.mean().map(|x| x * ns))));
        flows.push("delay_min_s", fl(&|i| nan_or(c[i].delay.min().map(|x| x as f64 * ns))));
        flows.push("delay_max_s", fl(&|i| nan_or(c[i].delay.max().map(|x| x as f64 * ns))));
        flows.push("delay_p50_s", fl(&|i| nan_or(c[i].delay.quantile(0.50).map(|x| x * ns))));
        flows.push("delay_p95_s", fl(&|i| nan_or(c[i].delay.quantile(0.95).map(|x| x * ns))));
        flows.push("delay_p99_s", fl(&|i| nan_or(c[i].delay.quantile(0.99).map(|x| x * ns))));
        flows.push("delay_jitter_s", fl(&|i| nan_or(c[i].jitter.nanos().map(|x| x * ns))));
        flows.push(
            "completion_s",
            fl(&|i| {
                nan_or(
                    probes[i]
                        .0
                        .completed_at
                        .map(|t| t.saturating_since(metas[i].start).as_secs_f64()),
                )
            }),
        );
        flows.push("timeouts", u(&|i| probes[i].0.timeouts));
        flows.push("fast_recoveries", u(&|i| probes[i].0.fast_recoveries));
        flows.push("loss_probes", u(&|i| probes[i].0.loss_probes));
        // Explicit congestion signals: ECN marks and ICMP Source Quench (whole run, warm-up
        // included).
        flows.push("ce_marked_pkts", u(&|i| c[i].ce_marked_pkts));
        flows.push("ecn_reductions", u(&|i| probes[i].0.ecn_reductions));
        flows.push("sq_sent_pkts", u(&|i| c[i].sq_sent_pkts));
        flows.push("sq_bytes", u(&|i| c[i].sq_sent_bytes));
        flows.push("sq_received_pkts", u(&|i| c[i].sq_received_pkts));
        flows.push("sq_dropped_pkts", u(&|i| c[i].sq_dropped_pkts));
        flows.push(
            "sq_delay_mean_s",
            fl(&|i| {
                if c[i].sq_received_pkts > 0 {
                    c[i].sq_delay_ns as f64 / c[i].sq_received_pkts as f64 * ns
                } else {
                    f64::NAN
                }
            }),
        );
        flows.push("sq_reductions", u(&|i| probes[i].0.sq_reductions));
        flows
    }

    /// One row per link: its description and totals, and its queue after warm-up.
    fn link_table(
        &self,
        scenario: &Scenario,
        links: &mut [Link],
        node_names: &[String],
        end: SimTime,
    ) -> Table {
        let warmup_s = scenario.warmup.0.as_secs_f64();
        let meas_ns = (scenario.duration.0.as_nanos() - scenario.warmup.0.as_nanos()).max(1) as f64;
        let lc: Vec<_> = links.iter_mut().map(|l| l.counters(end)).collect();
        let lw = &self.links_at_warmup;
        let ln = links.len();
        let mut link_table = link_identity(links, node_names);
        let lu = |f: &dyn Fn(usize) -> u64| Column::U64((0..ln).map(f).collect());
        link_table.push("tx_pkts", lu(&|i| lc[i].tx_pkts));
        link_table.push("tx_bytes", lu(&|i| lc[i].tx_bytes));
        link_table.push("dropped_pkts", lu(&|i| lc[i].dropped_pkts));
        link_table.push("meas_tx_bytes", lu(&|i| lc[i].tx_bytes - lw[i].tx_bytes));
        link_table.push("meas_dropped_pkts", lu(&|i| lc[i].dropped_pkts - lw[i].dropped_pkts));
        link_table.push(
            "mean_queue_pkts",
            Column::F64(
                (0..ln)
                    .map(|i| (lc[i].queue_pkt_ns - lw[i].queue_pkt_ns) as f64 / meas_ns)
                    .collect(),
            ),
        );
        let ls = &self.link_series;
        // Largest occupancy after warm-up: the per-interval maxima of intervals ending after it,
        // in one pass over the series (a pass per link was quadratic in the link count).
        let mut max_q = vec![0u64; ln];
        for ((&l, &t), &m) in ls.link.iter().zip(&ls.t_s).zip(&ls.max_queue_pkts) {
            if t > warmup_s {
                max_q[l as usize] = max_q[l as usize].max(m);
            }
        }
        link_table.push("max_queue_pkts", lu(&|i| max_q[i]));
        link_table.push("early_dropped_pkts", lu(&|i| lc[i].early_dropped_pkts));
        link_table.push("marked_pkts", lu(&|i| lc[i].marked_pkts));
        link_table.push("sq_sent_pkts", lu(&|i| lc[i].quench_pkts));
        link_table.push("meas_duration_s", Column::F64(vec![meas_ns * 1e-9; ln]));
        // What the link could send in the window: its rate, or for a link following a schedule
        // or a trace, its capacity there averaged (utilisation's denominator).
        let warmup = SimTime::ZERO + scenario.warmup.0;
        link_table.push(
            "meas_rate_bps",
            Column::F64(links.iter().map(|l| l.mean_rate_bps(warmup, end)).collect()),
        );
        link_table
    }
}

/// The flows' series as a table.
fn flow_series_table(s: FlowSeries) -> Table {
    let mut flow_series = Table::default();
    flow_series.push("flow_id", Column::U64(s.flow.iter().map(|&x| x as u64).collect()));
    flow_series.push("t_s", Column::F64(s.t_s));
    flow_series.push("sent_pkts", Column::U64(s.sent_pkts));
    flow_series.push("sent_bytes", Column::U64(s.sent_bytes));
    flow_series.push("retransmitted_pkts", Column::U64(s.retransmitted_pkts));
    flow_series.push("delivered_pkts", Column::U64(s.delivered_pkts));
    flow_series.push("dropped_pkts", Column::U64(s.dropped_pkts));
    flow_series.push("goodput_bytes", Column::U64(s.goodput_bytes));
    flow_series.push("cwnd_pkts", Column::F64(s.cwnd_pkts));
    flow_series.push("ssthresh_pkts", Column::F64(s.ssthresh_pkts));
    flow_series.push("srtt_s", Column::F64(s.srtt_s));
    flow_series.push("delay_mean_s", Column::F64(s.delay_mean_s));
    flow_series.push("rate_bps", Column::F64(s.rate_bps));
    flow_series
}

/// The links' series as a table, each row naming its link.
fn link_series_table(ls: LinkSeries, links: &[Link]) -> Table {
    let mut link_series = Table::default();
    link_series.push(
        "link",
        Column::Str(ls.link.iter().map(|&i| links[i as usize].name.clone()).collect()),
    );
    link_series.push("t_s", Column::F64(ls.t_s));
    link_series.push("tx_pkts", Column::U64(ls.tx_pkts));
    link_series.push("tx_bytes", Column::U64(ls.tx_bytes));
    link_series.push("dropped_pkts", Column::U64(ls.dropped_pkts));
    link_series.push("queue_pkts", Column::F64(ls.queue_pkts));
    link_series.push("queue_bytes", Column::F64(ls.queue_bytes));
    link_series.push("max_queue_pkts", Column::U64(ls.max_queue_pkts));
    link_series
}

/// Application bytes flow `f`'s receiver has delivered in order so far.
fn goodput_bytes(probe: &impl Fn(EpId) -> Probe, f: usize) -> u64 {
    probe(FlowId(f as u32).receiver()).delivered_bytes
}

fn nan_or(x: Option<f64>) -> f64 {
    x.unwrap_or(f64::NAN)
}
