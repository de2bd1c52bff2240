//! Invariants over a few hundred random valid scenarios: every algorithm, bottlenecks
//! from 1 Mbit/s to 10 Gbit/s, RTTs from 1 ms to 1 s, queues of 1 to 10 000 packets, with and
//! without warm-up, with and without jitter. Whatever the combination, the counters must obey the laws of the network:
//!
//! - packet conservation per flow: sent = delivered + dropped + still in the network;
//! - delivered ≤ sent, goodput (unique payload) ≤ delivered wire bytes;
//! - the bottleneck carries no more than its rate: Σ delivered ≤ tx ≤ rate · duration, and the
//!   measured window's utilisation lies in [0, 1];
//! - Jain's index of the goodputs lies in [1/n, 1];
//! - the required columns have no NaN.
//!
//! Durations are sized to a few thousand bottleneck packets so that the whole set runs in
//! seconds.

use ccarena_core::record::result::RunResult;
use ccarena_core::rng::{Rng, StreamKind};
use ccarena_core::scenario::Scenario;
use ccarena_core::sim;

const SCENARIOS: u64 = 300;

const TCP: &[&str] = &[
    "reno",
    "newreno",
    "cubic",
    "bic",
    "highspeed",
    "scalable",
    "htcp",
    "vegas",
    "fast",
    "compound",
    "libra",
];
const DCCP: &[&str] = &["ccid2", "ccid3", "fast_tfrc"];

fn log_uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    (rng.uniform_range(lo.ln(), hi.ln())).exp()
}

/// One flow group of a random kind.
fn group(rng: &mut Rng, rate_bps: f64) -> String {
    let count = 1 + rng.next_u64() % 3;
    match rng.next_u64() % 8 {
        0 => format!("[[flows]]\ncount = {count}\nprotocol = \"dccp\"\ncc = \"{}\"\n", DCCP[(rng.next_u64() % 3) as usize]),
        1 => format!("[[flows]]\nprotocol = \"udp\"\napp = {{ kind = \"cbr\", rate = \"{:.0}bps\", packet_size = \"1000B\" }}\n", rate_bps * rng.uniform_range(0.05, 0.5)),
        _ => format!("[[flows]]\ncount = {count}\ncc = \"{}\"\nstart = {{ uniform = [\"0s\", \"5ms\"] }}\n", TCP[(rng.next_u64() % TCP.len() as u64) as usize]),
    }
}

fn scenario(rng: &mut Rng, i: u64) -> String {
    let rate = log_uniform(rng, 1e6, 1e10);
    let rtt = log_uniform(rng, 1e-3, 1.0);
    let queue = log_uniform(rng, 1.0, 10_000.0).round() as u64;
    // A few thousand full-size packets through the bottleneck, at least two RTTs.
    let duration = (3000.0 * 1500.0 * 8.0 / rate).clamp(2.0 * rtt, 3.0);
    let warmup =
        if rng.next_u64().is_multiple_of(2) { 0.0 } else { duration * rng.uniform_range(0.1, 0.6) };
    let access = (rtt / 8.0).min(1e-3);
    let bottleneck_delay = rtt / 2.0 - 2.0 * access;
    let mut text = format!(
        "name = \"inv{i}\"\nseed = {i}\njitter = {}\nduration = \"{duration:.9}s\"\nwarmup = \"{warmup:.9}s\"\nsample_interval = \"{:.9}s\"\n\
         [topology]\nkind = \"dumbbell\"\nbottleneck_rate = \"{rate:.0}bps\"\nbottleneck_delay = \"{bottleneck_delay:.9}s\"\naccess_delay = \"{access:.9}s\"\n\
         queue = {{ kind = \"droptail\", limit = \"{queue}pkt\" }}\n",
        i % 2 == 1,
        duration / 10.0
    );
    for _ in 0..1 + rng.next_u64() % 3 {
        text += &group(rng, rate);
    }
    text
}

fn jain(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().sum();
    let q: f64 = xs.iter().map(|x| x * x).sum();
    s * s / (xs.len() as f64 * q)
}

fn check(r: &RunResult, text: &str) {
    let f = &r.flows;
    let n = f.rows();
    let (sent, delivered, dropped, in_flight) = (
        f.u64s("sent_pkts"),
        f.u64s("delivered_pkts"),
        f.u64s("dropped_pkts"),
        f.u64s("in_flight_pkts"),
    );
    let (sent_b, delivered_b, goodput_b) =
        (f.u64s("sent_bytes"), f.u64s("delivered_bytes"), f.u64s("goodput_bytes"));
    for i in 0..n {
        assert_eq!(
            sent[i],
            delivered[i] + dropped[i] + in_flight[i],
            "flow {i}: packets not conserved\n{text}"
        );
        assert!(delivered_b[i] <= sent_b[i], "flow {i}: delivered more than sent\n{text}");
        assert!(
            goodput_b[i] <= delivered_b[i],
            "flow {i}: goodput {} above delivered wire bytes {}\n{text}",
            goodput_b[i],
            delivered_b[i]
        );
        assert!(
            f.u64s("meas_delivered_pkts")[i] <= delivered[i]
                && f.u64s("meas_sent_pkts")[i] <= sent[i],
            "flow {i}: window exceeds run\n{text}"
        );
    }
    for col in ["start_s", "rtt_base_s", "meas_start_s"] {
        assert!(f.f64s(col).iter().all(|x| x.is_finite()), "NaN in flows.{col}\n{text}");
    }
    for (i, &count) in f.u64s("delay_count").iter().enumerate() {
        assert!(
            count == 0 || f.f64s("delay_mean_s")[i].is_finite(),
            "flow {i}: delays counted but no mean\n{text}"
        );
    }
    let l = &r.links;
    let bneck = l.columns.iter().find(|(k, _)| *k == "link").map(|_| ()).and_then(|()| {
        match l.get("link") {
            Some(ccarena_core::record::result::Column::Str(names)) => {
                names.iter().position(|x| x == "bottleneck")
            }
            _ => None,
        }
    });
    let bneck = bneck.expect("a dumbbell has a bottleneck");
    for i in 0..l.rows() {
        let (rate, window) = (l.f64s("rate_bps")[i], l.f64s("meas_duration_s")[i]);
        let tx = l.u64s("tx_bytes")[i] as f64 * 8.0;
        assert!(
            tx <= rate * r.duration_s * (1.0 + 1e-9),
            "link {i}: carried {tx} bits in {}s at {rate} bit/s\n{text}",
            r.duration_s
        );
        let util = l.u64s("meas_tx_bytes")[i] as f64 * 8.0 / (rate * window);
        assert!((0.0..=1.0).contains(&util), "link {i}: utilisation {util}\n{text}");
        for col in ["mean_queue_pkts", "rate_bps", "delay_s", "meas_duration_s"] {
            assert!(l.f64s(col)[i].is_finite(), "NaN in links.{col}\n{text}");
        }
    }
    // Every flow crosses the bottleneck: together they cannot deliver more than it carried.
    let through: u64 = delivered_b.iter().sum();
    assert!(
        through <= l.u64s("tx_bytes")[bneck],
        "flows delivered {through} B, the bottleneck carried {}\n{text}",
        l.u64s("tx_bytes")[bneck]
    );
    let goodputs: Vec<f64> = goodput_b.iter().map(|&b| b as f64).collect();
    if goodputs.iter().any(|&g| g > 0.0) {
        let j = jain(&goodputs);
        assert!(
            j >= 1.0 / n as f64 - 1e-12 && j <= 1.0 + 1e-12,
            "Jain {j} outside [1/{n}, 1]\n{text}"
        );
    }
}

#[test]
fn random_valid_scenarios_obey_the_network_invariants() {
    let mut rng = Rng::stream(2026, StreamKind::App, 12);
    let mut events = 0;
    for i in 0..SCENARIOS {
        let text = scenario(&mut rng, i);
        let s = Scenario::from_toml(&text)
            .unwrap_or_else(|e| panic!("generator made an invalid scenario: {e}\n{text}"));
        let r = sim::run_quiet(&s).unwrap_or_else(|e| panic!("run failed: {e}\n{text}"));
        events += r.engine.events;
        check(&r, &text);
    }
    assert!(
        events > SCENARIOS * 1000,
        "the scenarios did too little to test anything: {events} events"
    );
}
