//! Equilibrium properties of the delay-based algorithms on a dumbbell: FAST keeps α segments per
//! flow in the bottleneck queue and shares equally whatever the RTTs; Vegas keeps between α and
//! β per flow; Compound's delay window collapses once its queue exceeds γ segments.

mod support;
use support::{flow_series, goodputs_bps, jain, mean_queue_pkts, run, utilisation};

/// A dumbbell (bottleneck delay 5 ms) with one `[[flows]]` group per entry of `rtts`, `per_rtt`
/// flows each, all starting at time zero.
#[allow(clippy::too_many_arguments)]
fn dumbbell(
    cc: &str,
    params: &str,
    per_rtt: usize,
    rtts: &[&str],
    rate: &str,
    limit: u32,
    duration: u32,
    warmup: u32,
) -> String {
    let mut s = format!(
        r#"
        duration = "{duration}s"
        warmup = "{warmup}s"
        [topology]
        kind = "dumbbell"
        bottleneck_rate = "{rate}"
        bottleneck_delay = "5ms"
        queue = {{ kind = "droptail", limit = "{limit}pkt" }}
        "#
    );
    for rtt in rtts {
        s += &format!(
            "[[flows]]\ncount = {per_rtt}\ncc = \"{cc}\"\ncc_params = {params}\nrtt = \"{rtt}\"\n"
        );
    }
    s
}

/// Runs the scenario and checks what every equilibrium test needs: no loss, a full link.
/// Returns (mean bottleneck queue in packets, Jain's index of the flows' goodputs).
fn run_lossless(toml: &str) -> (f64, f64) {
    let r = run(toml);
    let drops = r.flows.u64s("dropped_pkts");
    assert!(
        drops.iter().all(|&d| d == 0),
        "delay-based flows should not fill the buffer: {drops:?}"
    );
    let util = utilisation(&r, "bottleneck");
    assert!(util > 0.98, "utilisation {util}");
    (mean_queue_pkts(&r, "bottleneck"), jain(&goodputs_bps(&r)))
}

/// N FAST flows, α = 20: about N·α segments queued, equal shares.
fn check_fast(per_rtt: usize, rtts: &[&str]) {
    let n = (per_rtt * rtts.len()) as f64;
    let alpha = 20.0;
    let (queue, fairness) =
        run_lossless(&dumbbell("fast", "{ alpha = 20 }", per_rtt, rtts, "20Mbps", 1000, 8, 4));
    let target = n * alpha;
    assert!(
        (queue - target).abs() < 0.15 * target,
        "{n} flows, RTTs {rtts:?}: queue {queue:.1} vs N·α = {target}"
    );
    assert!(fairness >= 0.95, "{n} flows, RTTs {rtts:?}: Jain {fairness:.4}");
}

#[test]
fn fast_flows_keep_n_alpha_segments_queued_and_share_equally() {
    // Measured: 39.7 and 79.4 segments, Jain 1.000.
    check_fast(2, &["40ms"]);
    check_fast(4, &["40ms"]);
}

#[test]
fn fast_shares_equally_between_flows_of_different_rtts() {
    // Measured: 39.7 and 79.6 segments, Jain ≥ 0.9999 (Reno would give the 40 ms flows about
    // twice the 80 ms flows' rate).
    check_fast(1, &["40ms", "80ms"]);
    check_fast(2, &["40ms", "80ms"]);
}

#[test]
fn fast_default_alpha_keeps_200_segments_per_flow() {
    // 100 Mbit/s, RTTs 40 and 80 ms: measured 199.8 segments per flow.
    let (queue, fairness) =
        run_lossless(&dumbbell("fast", "{}", 1, &["40ms", "80ms"], "100Mbps", 2000, 8, 4));
    assert!((queue / 2.0 - 200.0).abs() < 30.0, "queue {queue:.1}");
    assert!(fairness >= 0.95, "Jain {fairness:.4}");
}

#[test]
fn vegas_flows_keep_between_alpha_and_beta_segments_each() {
    // Vegas corrects by one segment per RTT, so the slow-start overshoot takes seconds to drain:
    // measure the second half of 20 s. Measured queue per flow: 3.3–4.05 segments.
    for (per_rtt, rtts) in [
        (1, vec!["40ms"]),
        (2, vec!["40ms"]),
        (4, vec!["40ms"]),
        (1, vec!["40ms", "80ms"]),
        (2, vec!["40ms", "80ms"]),
    ] {
        let n = (per_rtt * rtts.len()) as f64;
        let (queue, _) =
            run_lossless(&dumbbell("vegas", "{}", per_rtt, &rtts, "10Mbps", 1000, 20, 10));
        let per_flow = queue / n;
        assert!(
            (1.5..=4.5).contains(&per_flow),
            "{n} flows, RTTs {rtts:?}: {per_flow:.2} segments each, α = 2, β = 4"
        );
    }
    // The thresholds are what set the queue: α = 6, β = 8 keeps about twice as much.
    let (queue, _) = run_lossless(&dumbbell(
        "vegas",
        "{ alpha = 6, beta = 8 }",
        2,
        &["40ms"],
        "10Mbps",
        1000,
        20,
        10,
    ));
    assert!((5.5..=8.5).contains(&(queue / 2.0)), "{:.2} segments each, α = 6, β = 8", queue / 2.0);
}

/// One flow of `cc` on 10 Mbit/s, RTT 40 ms (33 segments in flight fill the pipe), a 1000-packet
/// buffer it never fills, starting in congestion avoidance at 10 segments.
fn one_flow_without_loss(cc: &str) -> (Vec<(f64, f64)>, Vec<f64>) {
    let r = run(&format!(
        r#"
        duration = "20s"
        sample_interval = "200ms"
        [topology]
        kind = "dumbbell"
        bottleneck_rate = "10Mbps"
        bottleneck_delay = "5ms"
        queue = {{ kind = "droptail", limit = "1000pkt" }}
        [[flows]]
        cc = "{cc}"
        rtt = "40ms"
        initial_ssthresh = 10
        "#
    ));
    let lost = (
        r.flows.u64s("dropped_pkts")[0],
        r.flows.u64s("fast_recoveries")[0],
        r.flows.u64s("timeouts")[0],
    );
    assert_eq!(lost, (0, 0, 0), "{cc}: the window must never fall because of a loss");
    let links = match r.link_series.get("link") {
        Some(ccarena_core::record::result::Column::Str(v)) => v.clone(),
        _ => unreachable!("link names are strings"),
    };
    let queue = links
        .iter()
        .zip(r.link_series.f64s("queue_pkts"))
        .filter(|(l, _)| *l == "bottleneck")
        .map(|(_, q)| *q)
        .collect();
    (flow_series(&r, 0, "cwnd_pkts"), queue)
}

#[test]
fn compound_delay_window_collapses_once_more_than_gamma_segments_queue() {
    let gamma = 30.0;
    let (compound, queue) = one_flow_without_loss("compound");
    let (reno, _) = one_flow_without_loss("reno");
    // Without loss the loss-based part never shrinks, so every fall of the window is the delay
    // window shrinking by ζ·diff. Find the first: measured 62.6 → 44.4 segments at 1.8 s.
    let first_fall = compound
        .windows(2)
        .position(|w| w[1].1 < w[0].1 - 10.0)
        .expect("the delay window never collapsed");
    let (t, before) = compound[first_fall];
    // It happens once the flow keeps about γ segments queued (one flow: its queue is the queue),
    assert!(
        queue[first_fall..=first_fall + 1].iter().any(|&q| q >= 0.8 * gamma),
        "t = {t}: queue {:?}",
        &queue[first_fall..=first_fall + 1]
    );
    // never while the queue was well below γ,
    let quiet = queue.iter().position(|&q| q >= 0.5 * gamma).unwrap();
    assert!(
        compound[..=quiet].windows(2).all(|w| w[1].1 >= w[0].1),
        "the window fell below γ/2 queued"
    );
    // and before it the delay window had grown: Compound was well ahead of Reno.
    assert!(
        before - reno[first_fall].1 > 10.0,
        "t = {t}: compound {before:.1} vs reno {:.1}",
        reno[first_fall].1
    );
    // Once the loss-based window alone keeps more than γ queued the delay window stays at zero:
    // the window is Reno's (measured 179.2 vs 180.8 segments at 20 s, with 144 queued).
    let (last, last_reno, last_queue) =
        (compound.last().unwrap().1, reno.last().unwrap().1, *queue.last().unwrap());
    assert!(last_queue > 3.0 * gamma, "queue {last_queue}");
    assert!(
        (last - last_reno).abs() < 0.05 * last_reno,
        "compound {last:.1} vs reno {last_reno:.1}"
    );
}

#[test]
fn the_documented_examples_run() {
    for name in ["vegas", "fast", "compound"] {
        let path = format!("{}/../../docs/algorithms/{name}.md", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let toml = text
            .split("```toml")
            .nth(1)
            .and_then(|s| s.split("```").next())
            .expect("a toml example");
        let r = run(toml);
        let ccs = match r.flows.get("cc") {
            Some(ccarena_core::record::result::Column::Str(v)) => v.clone(),
            _ => unreachable!("cc is a string column"),
        };
        assert_eq!(ccs[0], name, "{path}");
        let sent = r.flows.u64s("sent_pkts");
        assert!(sent.iter().all(|&s| s > 1000), "{path}: {sent:?}");
    }
}
