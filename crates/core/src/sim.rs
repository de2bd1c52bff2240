//! Running a scenario end to end: build, run, collect the result tables.

use crate::engine::{RunOutcome, World};
use crate::net::packet::FlowId;
use crate::record::pcap::{FlowWire, PcapOptions, PcapTap};
use crate::record::result::{Column, EngineStats, RunResult, Table};
use crate::record::secs;
use crate::scenario::build::{Built, FlowMeta};
use crate::scenario::{Scenario, ScenarioError};
use crate::time::SimDuration;
use std::time::Instant;

/// Why a run did not produce a result.
#[derive(Debug)]
pub enum RunError {
    Scenario(ScenarioError),
    /// The progress callback asked to stop (e.g. Ctrl-C in Python).
    Interrupted,
    /// Simulated time stopped advancing: some handler keeps re-scheduling work at one instant.
    Stalled(String),
    /// A run option is invalid (one line naming the option, e.g. an unknown capture link).
    Option(String),
    /// An output could not be written (e.g. a packet capture file).
    Output(String),
}

impl From<ScenarioError> for RunError {
    fn from(e: ScenarioError) -> Self {
        RunError::Scenario(e)
    }
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Scenario(e) => write!(f, "{e}"),
            RunError::Interrupted => write!(f, "run interrupted"),
            RunError::Stalled(why) | RunError::Option(why) | RunError::Output(why) => {
                write!(f, "{why}")
            }
        }
    }
}

/// Runs `scenario`; `progress(fraction)` is called now and then and may return `false` to stop.
pub fn run(
    scenario: &Scenario,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<RunResult, RunError> {
    run_with(scenario, None, progress)
}

/// [`run`], writing packet captures as `pcap` asks.
pub fn run_with(
    scenario: &Scenario,
    pcap: Option<&PcapOptions>,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<RunResult, RunError> {
    run_built(scenario, scenario.build()?, pcap, progress)
}

fn run_built(
    scenario: &Scenario,
    built: Built,
    pcap: Option<&PcapOptions>,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<RunResult, RunError> {
    let Built { parts, flows, node_names, .. } = built;
    let wall = Instant::now();
    let mut watchdog = Watchdog::new(scenario.duration.0);
    let mut world = World::new(parts);
    if let Some(opts) = pcap {
        let links: Vec<String> = world.links.iter().map(|l| l.name.clone()).collect();
        let wires =
            flows.iter().map(|m| FlowWire { mss: m.mss, seg: m.mss, ends: m.nodes }).collect();
        let tap = PcapTap::open(opts, &links, wires).map_err(|e| {
            if e.starts_with("pcap:") {
                RunError::Output(e)
            } else {
                RunError::Option(e)
            }
        })?;
        world.attach_pcap(tap);
    }
    let outcome = world.run(&mut |frac| watchdog.observe(frac) && progress(frac));
    if let Some(tap) = world.take_pcap() {
        tap.finish().map_err(RunError::Output)?;
    }
    if let Some(why) = watchdog.stalled {
        return Err(RunError::Stalled(why));
    }
    if outcome == RunOutcome::Interrupted {
        return Err(RunError::Interrupted);
    }
    let wall_s = wall.elapsed().as_secs_f64();
    let warmup_wall_s = world.warmup_reached.map_or(0.0, |t| t.duration_since(wall).as_secs_f64());
    Ok(collect(scenario, &mut world, &flows, &node_names, (wall_s, warmup_wall_s)))
}

/// Fails a run whose simulated time stops advancing. The engine reports progress every 2^18
/// steps (events and packet hops); if `WINDOW` reports in a row (about 16.8 million steps) move
/// the clock by less than `MIN_ADVANCE`, some handler is re-arming itself at one instant (or
/// crawling by nanoseconds):
/// no real network does that much work in a microsecond (it would be 10⁷ packets on links of
/// 1 Tbit/s, the fastest a scenario may have), so the run stops with an error instead of spinning.
struct Watchdog {
    end_ns: f64,
    window_start_ns: f64,
    reports: u32,
    stalled: Option<String>,
}

impl Watchdog {
    const WINDOW: u32 = 64;
    const MIN_ADVANCE_NS: f64 = 1_000.0;

    fn new(duration: SimDuration) -> Self {
        Watchdog {
            end_ns: duration.as_nanos() as f64,
            window_start_ns: 0.0,
            reports: 0,
            stalled: None,
        }
    }

    /// One progress report at `frac` of the run: `false` (and `stalled` set) when stuck.
    fn observe(&mut self, frac: f64) -> bool {
        let now_ns = frac * self.end_ns;
        self.reports += 1;
        if self.reports < Self::WINDOW {
            return true;
        }
        let advance = now_ns - self.window_start_ns;
        (self.window_start_ns, self.reports) = (now_ns, 0);
        if advance >= Self::MIN_ADVANCE_NS {
            return true;
        }
        self.stalled = Some(format!(
            "simulation stalled at t = {:.9}s: about {} million events and packet hops moved simulated time by {advance:.0}ns, so some handler keeps re-scheduling itself at one instant; a parameter is probably outside its meaningful range (please report the scenario)",
            now_ns * 1e-9,
            (u64::from(Self::WINDOW) << 18) / 1_000_000,
        ));
        false
    }
}

/// Runs without progress reporting.
pub fn run_quiet(scenario: &Scenario) -> Result<RunResult, RunError> {
    run(scenario, &mut |_| true)
}

fn nan_or(x: Option<f64>) -> f64 {
    x.unwrap_or(f64::NAN)
}

/// `wall` is the run's wall-clock seconds, in all and up to the end of the warm-up.
fn collect(
    scenario: &Scenario,
    w: &mut World,
    metas: &[FlowMeta],
    node_names: &[String],
    wall: (f64, f64),
) -> RunResult {
    let (wall_s, warmup_wall_s) = wall;
    let end = w.end;
    let warmup_s = scenario.warmup.0.as_secs_f64();
    let n = metas.len();
    let in_network = w.packets_in_network();
    let mut flows = Table::default();
    let strs = |f: &dyn Fn(&FlowMeta) -> String| Column::Str(metas.iter().map(f).collect());
    flows.push("id", Column::U64((0..n as u64).collect()));
    flows.push("group", strs(&|m| m.group.clone()));
    flows.push("protocol", strs(&|m| m.protocol.to_string()));
    flows.push("cc", strs(&|m| m.cc.clone()));
    flows.push("cc_params", strs(&|m| m.cc_params.clone()));
    flows.push("recovery", strs(&|m| m.recovery.clone()));
    flows.push("stack", strs(&|m| m.stack.to_string()));
    flows.push("app", strs(&|m| m.app.to_string()));
    flows.push("role", strs(&|m| m.role.to_string()));
    flows.push("src", strs(&|m| m.src.clone()));
    flows.push("dst", strs(&|m| m.dst.clone()));
    flows.push("start_s", Column::F64(metas.iter().map(|m| secs(m.start)).collect()));
    flows.push("rtt_base_s", Column::F64(metas.iter().map(|m| m.rtt_base.as_secs_f64()).collect()));

    let c = &w.counters;
    let probes: Vec<_> = (0..n as u32)
        .map(FlowId)
        .map(|f| (w.endpoint_probe(f.sender()), w.endpoint_probe(f.receiver())))
        .collect();
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
    let meas_start =
        |i: usize| metas[i].start.max(crate::time::SimTime::ZERO + scenario.warmup.0).min(end);
    flows.push("meas_start_s", fl(&|i| secs(meas_start(i))));
    let wu = &w.at_warmup;
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
                probes[i].0.completed_at.map(|t| t.saturating_since(metas[i].start).as_secs_f64()),
            )
        }),
    );
    flows.push("timeouts", u(&|i| probes[i].0.timeouts));
    flows.push("fast_recoveries", u(&|i| probes[i].0.fast_recoveries));
    flows.push("loss_probes", u(&|i| probes[i].0.loss_probes));
    // Explicit congestion signals: ECN marks and ICMP Source Quench (whole run, warm-up included).
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

    let s = std::mem::take(&mut w.flow_series);
    let mut flow_series = Table::default();
    flow_series.push("flow", Column::U64(s.flow.iter().map(|&x| x as u64).collect()));
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

    let now = end;
    let meas_ns = (scenario.duration.0.as_nanos() - scenario.warmup.0.as_nanos()).max(1) as f64;
    let lc: Vec<_> = w.links.iter_mut().map(|l| l.counters(now)).collect();
    let lw = &w.links_at_warmup;
    let ln = w.links.len();
    let mut links = Table::default();
    links.push("name", Column::Str(w.links.iter().map(|l| l.name.clone()).collect()));
    let names = |n: u32| node_names[n as usize].clone();
    links.push("src", Column::Str(w.links.iter().map(|l| names(l.from.0)).collect()));
    links.push("dst", Column::Str(w.links.iter().map(|l| names(l.to.0)).collect()));
    links.push("rate_bps", Column::F64(w.links.iter().map(|l| l.rate.as_bps_f64()).collect()));
    links.push("delay_s", Column::F64(w.links.iter().map(|l| l.delay.as_secs_f64()).collect()));
    links.push("queue", Column::Str(w.links.iter().map(|l| l.queue_description()).collect()));
    let lu = |f: &dyn Fn(usize) -> u64| Column::U64((0..ln).map(f).collect());
    links.push("tx_pkts", lu(&|i| lc[i].tx_pkts));
    links.push("tx_bytes", lu(&|i| lc[i].tx_bytes));
    links.push("dropped_pkts", lu(&|i| lc[i].dropped_pkts));
    links.push("meas_tx_bytes", lu(&|i| lc[i].tx_bytes - lw[i].tx_bytes));
    links.push("meas_dropped_pkts", lu(&|i| lc[i].dropped_pkts - lw[i].dropped_pkts));
    links.push(
        "mean_queue_pkts",
        Column::F64(
            (0..ln).map(|i| (lc[i].queue_pkt_ns - lw[i].queue_pkt_ns) as f64 / meas_ns).collect(),
        ),
    );
    let ls = std::mem::take(&mut w.link_series);
    // Largest occupancy after warm-up: the per-interval maxima of intervals ending after it,
    // in one pass over the series (a pass per link was quadratic in the link count).
    let mut max_q = vec![0u64; ln];
    for ((&l, &t), &m) in ls.link.iter().zip(&ls.t_s).zip(&ls.max_queue_pkts) {
        if t > warmup_s {
            max_q[l as usize] = max_q[l as usize].max(m);
        }
    }
    links.push("max_queue_pkts", lu(&|i| max_q[i]));
    links.push("early_dropped_pkts", lu(&|i| lc[i].early_dropped_pkts));
    links.push("marked_pkts", lu(&|i| lc[i].marked_pkts));
    links.push("sq_sent_pkts", lu(&|i| lc[i].quench_pkts));
    links.push("meas_duration_s", Column::F64(vec![meas_ns * 1e-9; ln]));

    let link_names: Vec<String> = w.links.iter().map(|l| l.name.clone()).collect();
    let mut link_series = Table::default();
    link_series.push(
        "link",
        Column::Str(ls.link.iter().map(|&i| link_names[i as usize].clone()).collect()),
    );
    link_series.push("t_s", Column::F64(ls.t_s));
    link_series.push("tx_pkts", Column::U64(ls.tx_pkts));
    link_series.push("tx_bytes", Column::U64(ls.tx_bytes));
    link_series.push("dropped_pkts", Column::U64(ls.dropped_pkts));
    link_series.push("queue_pkts", Column::F64(ls.queue_pkts));
    link_series.push("queue_bytes", Column::F64(ls.queue_bytes));
    link_series.push("max_queue_pkts", Column::U64(ls.max_queue_pkts));

    RunResult {
        name: scenario.name.clone(),
        seed: scenario.seed,
        duration_s: scenario.duration.0.as_secs_f64(),
        warmup_s,
        sample_interval_s: scenario.sample_interval.0.as_secs_f64(),
        scenario: scenario.normalised(),
        engine: EngineStats {
            events: w.events,
            wall_s,
            packets_forwarded: w.packets_forwarded,
            peak_packets: w.peak_packets,
            warmup_wall_s,
        },
        flows,
        flow_series,
        links,
        link_series,
    }
}

#[cfg(test)]
mod tests {
    use super::{run_built, Watchdog};
    use crate::net::feeder::Feeders;
    use crate::scenario::Scenario;
    use crate::time::SimDuration;

    /// Runs `text` twice: as the engine does, and with every packet's arrival at every node an
    /// event of its own. Returns both results without the event counts, and both counts.
    fn with_and_without_fed_links(
        text: &str,
    ) -> ((serde_json::Value, u64), (serde_json::Value, u64)) {
        let scenario = Scenario::from_toml(text).unwrap();
        let run = |every_hop: bool| {
            let mut built = scenario.build().unwrap();
            if every_hop {
                built.parts.feeders = Feeders::none(built.parts.links.len());
            }
            let r = run_built(&scenario, built, None, &mut |_| true).unwrap();
            let mut json = r.deterministic_json();
            let events = json.as_object_mut().unwrap().remove("events").unwrap().as_u64().unwrap();
            (json, events)
        };
        (run(false), run(true))
    }

    #[test]
    fn fed_links_give_the_results_of_an_event_per_hop() {
        // R2 -> S1 and R2 -> S2 are fed by R1 -> R2 alone (and R1 -> C1, R1 -> C2 by R2 -> R1),
        // R1 -> R2 by C1 -> R1 and C2 -> R1 (and R2 -> R1 by S1 -> R2 and S2 -> R2): the engine
        // admits every packet at R1 and R2 without an event, the links with two feeders up to
        // their feeders' shorter delay past the clock. One link is slower than the bottleneck
        // with a short queue (drops there), one has random loss, and one runs RED with ECN (marks
        // there); the counters are read at every sample in between. Each flow has its own hosts
        // and no two packets reach a router on the same nanosecond, so the two ways must agree
        // to the last bit.
        let text = r#"
            name = "feeders"
            seed = 7
            duration = "6s"
            warmup = "1s"
            sample_interval = "50ms"
            [topology]
            kind = "graph"
            nodes = ["C1", "C2", "R1", "R2", "S1", "S2"]
            queue = { kind = "droptail", limit = "60pkt" }
            links = [
              { a = "C1", b = "R1", rate = "100Mbps", delay = "1ms" },
              { a = "C2", b = "R1", rate = "100Mbps", delay = "3ms" },
              { a = "R1", b = "R2", rate = "20Mbps", delay = "10ms" },
              { a = "R2", b = "S1", rate = "8Mbps", delay = "2ms", queue = { kind = "droptail", limit = "8pkt" } },
              { a = "R2", b = "S2", rate = "6Mbps", delay = "1ms", loss = { kind = "bernoulli", p = 0.002 }, queue = { kind = "red", limit = "40pkt", min_th = 2, max_th = 6, ecn = true } },
            ]
            [[flows]]
            src = "C1"
            dst = "S1"
            cc = "cubic"
            [[flows]]
            src = "C2"
            dst = "S2"
            cc = "reno"
            ecn = true
            [[flows]]
            src = "C1"
            dst = "S2"
            protocol = "udp"
            app = { kind = "cbr", rate = "2Mbps", packet_size = "1000B" }
        "#;
        let ((fed, fed_events), (every_hop, hop_events)) = with_and_without_fed_links(text);
        assert_eq!(fed, every_hop);
        let links = &fed["links"];
        let column = |name: &str| links[name].as_array().unwrap().clone();
        let names = column("name");
        let at = |link: &str, col: &str| {
            column(col)[names.iter().position(|n| n == link).unwrap()].as_u64().unwrap()
        };
        assert!(at("R2->S1", "dropped_pkts") > 0, "the slow link drops: {links}");
        assert!(at("R2->S2", "marked_pkts") > 0, "RED marks: {links}");
        assert!(
            fed_events < hop_events * 6 / 10,
            "{fed_events} events against {hop_events}: the fed links saved too few"
        );
    }

    /// Three CBR sources whose packets reach R1 on the same nanoseconds over access links of
    /// 1, 2 and 3 ms, each admitted to its access link a millisecond after the previous one: at
    /// R1 the one admitted first is served, the second waits in the one-packet buffer, and the
    /// last is dropped, every time. The hand-over order (C, A, B) is neither the order of the
    /// flows nor that of R1's feeders, which follows the flows.
    #[test]
    fn simultaneous_arrivals_at_a_router_enter_in_the_order_their_feeders_admitted_them() {
        let text = r#"
            name = "ties"
            duration = "2s"
            [topology]
            kind = "graph"
            nodes = ["A", "B", "C", "R1", "R2", "S"]
            queue = { kind = "droptail", limit = "100pkt" }
            links = [
              { a = "A", b = "R1", rate = "100Mbps", delay = "2ms" },
              { a = "B", b = "R1", rate = "100Mbps", delay = "1ms" },
              { a = "C", b = "R1", rate = "100Mbps", delay = "3ms" },
              { a = "R1", b = "R2", rate = "10Mbps", delay = "1ms", queue = { kind = "droptail", limit = "1pkt" } },
              { a = "R2", b = "S", rate = "100Mbps", delay = "1ms" },
            ]
            [[flows]]
            src = "A"
            dst = "S"
            protocol = "udp"
            start = "1ms"
            app = { kind = "cbr", rate = "800kbps", packet_size = "1000B" }
            [[flows]]
            src = "B"
            dst = "S"
            protocol = "udp"
            start = "2ms"
            app = { kind = "cbr", rate = "800kbps", packet_size = "1000B" }
            [[flows]]
            src = "C"
            dst = "S"
            protocol = "udp"
            app = { kind = "cbr", rate = "800kbps", packet_size = "1000B" }
        "#;
        let r = super::run_quiet(&Scenario::from_toml(text).unwrap()).unwrap();
        let json = r.deterministic_json();
        let column = |name: &str| {
            json["flows"][name]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect::<Vec<_>>()
        };
        let (sent, dropped) = (column("sent_pkts"), column("dropped_pkts"));
        assert!(sent.iter().all(|&n| n > 150), "{sent:?}");
        assert_eq!(dropped, [0, sent[1], 0], "B's packets, handed over last, are the ones dropped");
    }

    #[test]
    fn watchdog_fires_when_time_stands_still_and_not_when_it_moves() {
        let mut w = Watchdog::new(SimDuration::from_secs(10));
        // Time reaches 2 s and freezes there: the first window (0 → 2 s) passes, the next trips.
        let frozen: Vec<bool> = (0..2 * Watchdog::WINDOW).map(|_| w.observe(0.2)).collect();
        assert!(frozen[..frozen.len() - 1].iter().all(|&ok| ok) && !frozen[frozen.len() - 1]);
        assert!(
            w.stalled
                .as_deref()
                .is_some_and(|m| m.starts_with("simulation stalled at t = 2.000000000s")),
            "{:?}",
            w.stalled
        );
        // Busy but moving (10 µs per report): never trips.
        let mut w = Watchdog::new(SimDuration::from_secs(10));
        assert!((1..10_000).all(|i| w.observe(i as f64 * 1e-6)));
        assert!(w.stalled.is_none());
    }
}
