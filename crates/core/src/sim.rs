//! Running a scenario end to end: build, run, and have the recorder assemble the result tables.

use crate::engine::{RunOutcome, World};
use crate::record::pcap::{FlowWire, PcapOptions, PcapTap};
use crate::record::result::RunResult;
use crate::scenario::build::Built;
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
        world.recorder.attach_pcap(tap);
    }
    let outcome = world.run(&mut |frac| watchdog.observe(frac) && progress(frac));
    if let Some(tap) = world.recorder.take_pcap() {
        tap.finish().map_err(RunError::Output)?;
    }
    if let Some(why) = watchdog.stalled {
        return Err(RunError::Stalled(why));
    }
    if outcome == RunOutcome::Interrupted {
        return Err(RunError::Interrupted);
    }
    let wall_s = wall.elapsed().as_secs_f64();
    let (recorder, network) = world.into_recorder();
    let warmup_wall_s =
        recorder.warmup_reached().map_or(0.0, |t| t.duration_since(wall).as_secs_f64());
    Ok(recorder.finish(scenario, &flows, &node_names, (wall_s, warmup_wall_s), network))
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
        let names = column("link");
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
