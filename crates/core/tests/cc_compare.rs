//! Properties that compare algorithms with each other: high-speed scalability and
//! RTT fairness.

mod support;
use support::{goodputs_bps, jain, run, utilisation};

/// 10 flows of one algorithm on 1 Gbit/s × 100 ms with a 2500-packet DropTail buffer, 60 s.
fn scalability(cc: &str) -> f64 {
    let r = run(&format!(
        r#"
        name = "scalability {cc}"
        duration = "60s"
        warmup = "10s"
        sample_interval = "1s"
        [topology]
        kind = "dumbbell"
        bottleneck_rate = "1Gbps"
        bottleneck_delay = "48ms"
        queue = {{ kind = "droptail", limit = "2500pkt" }}
        [[flows]]
        count = 10
        cc = "{cc}"
        rtt = "100ms"
        start = {{ uniform = ["0s", "2s"] }}
        "#
    ));
    utilisation(&r, "bottleneck")
}

#[test]
fn high_speed_algorithms_fill_a_1gbps_100ms_path() {
    let mut report = Vec::new();
    for cc in ["bic", "cubic", "highspeed", "htcp", "scalable", "fast", "compound", "vegas"] {
        let u = scalability(cc);
        report.push(format!("{cc}: {u:.3}"));
        assert!(u >= 0.80, "{cc} used only {u:.3} of the bottleneck ({})", report.join(", "));
    }
}

/// Jain's index of two flows of `cc` with base RTTs 40 and 80 ms sharing 20 Mbit/s.
fn rtt_fairness(cc: &str, params: &str) -> f64 {
    let r = run(&format!(
        r#"
        name = "rtt fairness {cc}"
        duration = "120s"
        warmup = "20s"
        sample_interval = "1s"
        [topology]
        kind = "dumbbell"
        bottleneck_rate = "20Mbps"
        bottleneck_delay = "10ms"
        queue = {{ kind = "droptail", limit = "100pkt" }}
        [[flows]]
        cc = "{cc}"
        cc_params = {{ {params} }}
        rtt = "40ms"
        [[flows]]
        cc = "{cc}"
        cc_params = {{ {params} }}
        rtt = "80ms"
        "#
    ));
    jain(&goodputs_bps(&r))
}

#[test]
fn libra_and_htcp_with_rtt_scaling_are_fairer_than_scalable_across_rtts() {
    let scalable = rtt_fairness("scalable", "");
    let libra = rtt_fairness("libra", "");
    let htcp = rtt_fairness("htcp", "rtt_scaling = true");
    assert!(libra > scalable, "libra {libra:.3} vs scalable {scalable:.3}");
    assert!(htcp > scalable, "htcp {htcp:.3} vs scalable {scalable:.3}");
}
