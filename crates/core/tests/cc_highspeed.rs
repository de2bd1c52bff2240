//! Scenario-level properties of the high-speed loss-based family: HighSpeed TCP's and Scalable
//! TCP's response functions under deterministic (`periodic`) loss, and H-TCP's RTT fairness.
//!
//! Response-function runs: one long-lived flow, RTT 100 ms, a queue far larger than any window
//! and a bottleneck fast enough that loss alone limits the window (utilisation is checked to stay
//! well below 1). Mean windows are averaged over 100 ms samples after a 10 s warmup, which covers
//! ten or more loss cycles. Bernoulli loss at the same rate is run alongside and printed for
//! reference (`cargo test --test cc_highspeed -- --nocapture`); the response functions are derived
//! for periodic loss, so only the periodic runs are asserted.

mod support;
use ccarena_core::record::result::RunResult;
use support::{flow_series, goodputs_bps, jain, mean_after, run, utilisation};

/// One flow of `cc` alone on a 100 ms path losing packets by `loss` (a TOML inline table).
fn long_lived(
    cc: &str,
    loss: &str,
    rate: &str,
    duration_s: u32,
    initial_ssthresh: u32,
) -> RunResult {
    run(&format!(
        r#"
        duration = "{duration_s}s"
        [topology]
        kind = "dumbbell"
        bottleneck_rate = "{rate}"
        bottleneck_delay = "48ms"
        queue = {{ kind = "droptail", limit = "20000pkt" }}
        loss = {loss}
        [[flows]]
        cc = "{cc}"
        initial_ssthresh = {initial_ssthresh}
        "#
    ))
}

/// Mean window (segments) after the warmup under periodic loss at rate `p`, and the same under
/// Bernoulli loss (printed only).
fn mean_window(cc: &str, p: f64, rate: &str, duration_s: u32, initial_ssthresh: u32) -> f64 {
    let every = (1.0 / p).round() as u64;
    let periodic = long_lived(
        cc,
        &format!("{{ kind = \"periodic\", every = {every} }}"),
        rate,
        duration_s,
        initial_ssthresh,
    );
    let u = utilisation(&periodic, "bottleneck");
    assert!(u < 0.6, "{cc} p={p}: utilisation {u}: the link, not loss, limits the window");
    let cycles = flow_series(&periodic, 0, "cwnd_pkts")
        .windows(2)
        .filter(|w| w[0].0 > 10.0 && w[1].1 < w[0].1 * 0.95)
        .count();
    assert!(cycles >= 10, "{cc} p={p}: only {cycles} loss cycles measured");
    let bernoulli = long_lived(
        cc,
        &format!("{{ kind = \"bernoulli\", p = {p} }}"),
        rate,
        duration_s,
        initial_ssthresh,
    );
    let (m, mb) =
        (mean_after(&periodic, 0, "cwnd_pkts", 10.0), mean_after(&bernoulli, 0, "cwnd_pkts", 10.0));
    println!(
        "{cc:<20} p = {p:<8} mean cwnd: periodic {m:7.1}  bernoulli {mb:7.1}  ({cycles} cycles)"
    );
    m
}

/// RFC 3649 §5's HighSpeed response function.
fn rfc3649_window(p: f64) -> f64 {
    0.12 / p.powf(0.835)
}

#[test]
fn highspeed_formula_mean_window_follows_the_rfc3649_response_function() {
    for cc in ["highspeed@rfc3649", "highspeed@ns2"] {
        for (p, rate, ssthresh) in [(1e-3, "20Mbps", 40), (1e-4, "100Mbps", 300)] {
            let m = mean_window(cc, p, rate, 60, ssthresh);
            let target = rfc3649_window(p);
            assert!(
                (m / target - 1.0).abs() < 0.2,
                "{cc} p={p}: mean window {m:.1}, 0.12/p^0.835 = {target:.1}"
            );
        }
    }
}

#[test]
fn highspeed_linux_table_mean_window_follows_its_rounded_up_response() {
    // p = 1e-4: the table follows the response function (rows 221..495, a = 4..5).
    let m = mean_window("highspeed", 1e-4, "100Mbps", 60, 300);
    assert!(
        (m / rfc3649_window(1e-4) - 1.0).abs() < 0.2,
        "mean {m:.1} vs {:.1}",
        rfc3649_window(1e-4)
    );
    // p = 1e-3 sits at Low_Window = 38, where Linux's table (row 1 for 38 < cwnd ≤ 118) already
    // uses a = 2, b = 112/256 instead of Reno's 1 and 1/2: its sawtooth averages
    // √(a(2 − b)/(2bp)) ≈ 59.8 segments, half again the response function's 38.4.
    let m = mean_window("highspeed", 1e-3, "20Mbps", 60, 40);
    let (a, b): (f64, f64) = (2.0, 112.0 / 256.0);
    let sawtooth = (a * (2.0 - b) / (2.0 * b * 1e-3)).sqrt();
    assert!((m / sawtooth - 1.0).abs() < 0.1, "mean {m:.1} vs AIMD(2, 0.4375) {sawtooth:.1}");
    assert!(m > 1.3 * rfc3649_window(1e-3), "mean {m:.1}");
}

#[test]
fn scalable_mean_window_is_inversely_proportional_to_p() {
    let (a, b): (f64, f64) = (0.01, 0.125);
    // Per cycle the window regains (1 − b)⁻¹ in ln(1/(1 − b))/ln(1 + a) ≈ 13.4 RTTs while the
    // flow sends 1/p segments: mean window ≈ 1/(13.4 p).
    let rtts_per_cycle = (1.0 / (1.0 - b)).ln() / (1.0 + a).ln();
    let p = 1e-3;
    let m1 = mean_window("scalable", p, "50Mbps", 30, 80);
    let m4 = mean_window("scalable", p / 4.0, "100Mbps", 30, 300);
    let ratio = m4 / m1;
    assert!(
        (ratio / 4.0 - 1.0).abs() < 0.25,
        "mean windows {m1:.1} at p, {m4:.1} at p/4: ratio {ratio:.2}"
    );
    for (m, p) in [(m1, p), (m4, p / 4.0)] {
        let model = 1.0 / (rtts_per_cycle * p);
        assert!((m / model - 1.0).abs() < 0.15, "p={p}: mean {m:.1} vs 1/(13.4p) = {model:.1}");
    }
}

/// Jain's index of the goodputs of two `cc` flows with RTTs 50 and 100 ms sharing 100 Mbit/s
/// (buffer ≈ one BDP at the longer RTT), after a 10 s warmup.
fn rtt_1_to_2_jain(cc: &str, params: &str) -> f64 {
    let flow = |rtt: u32, start: &str| {
        format!("[[flows]]\ncc = \"{cc}\"\ncc_params = {{ {params} }}\nrtt = \"{rtt}ms\"\nstart = \"{start}\"\n")
    };
    let r = run(&format!(
        r#"
        duration = "60s"
        warmup = "10s"
        [topology]
        kind = "dumbbell"
        bottleneck_rate = "100Mbps"
        bottleneck_delay = "10ms"
        queue = {{ kind = "droptail", limit = "800pkt" }}
        {}
        {}
        "#,
        flow(50, "0s"),
        flow(100, "0.5s")
    ));
    let g = goodputs_bps(&r);
    let u = utilisation(&r, "bottleneck");
    assert!(u > 0.95, "{cc}: utilisation {u}");
    let j = jain(&g);
    println!(
        "{cc:<10} {params:<22} goodput 50 ms {:5.1} Mbit/s, 100 ms {:5.1} Mbit/s, Jain {j:.3}",
        g[0] / 1e6,
        g[1] / 1e6
    );
    j
}

#[test]
fn htcp_with_rtt_scaling_is_fairer_than_scalable_at_rtts_1_to_2() {
    let htcp = rtt_1_to_2_jain("htcp", "rtt_scaling = true");
    let htcp_unscaled = rtt_1_to_2_jain("htcp", "rtt_scaling = false");
    let scalable = rtt_1_to_2_jain("scalable", "");
    assert!(htcp >= 0.95, "H-TCP with RTT scaling: Jain {htcp:.3}");
    assert!(htcp > scalable + 0.2, "H-TCP {htcp:.3} vs Scalable {scalable:.3}");
    // RTT scaling is what equalises: without it the 50 ms flow adds α twice as often.
    assert!(htcp > htcp_unscaled + 0.05, "scaled {htcp:.3} vs unscaled {htcp_unscaled:.3}");
}

#[test]
fn out_of_range_parameters_are_one_line_errors_naming_the_field() {
    let scenario = |cc: &str, params: &str| {
        let toml = format!("duration = \"1s\"\n[topology]\nkind = \"dumbbell\"\nbottleneck_rate = \"10Mbps\"\nbottleneck_delay = \"10ms\"\n[[flows]]\ncc = \"{cc}\"\ncc_params = {{ {params} }}\n");
        ccarena_core::scenario::Scenario::from_toml(&toml)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    let e = scenario("scalable", "b = 1.5");
    assert_eq!(e, "flows[0].cc_params.b: 1.5 is out of range: expected 0 < b < 1");
    let e = scenario("highspeed", "response = \"formula\", high_p = 0.01");
    assert!(
        e.starts_with("flows[0].cc_params.high_p: 0.01 is out of range") && !e.contains('\n'),
        "{e}"
    );
    let e = scenario("htcp", "beta_min = 0.9");
    assert!(e.starts_with("flows[0].cc_params.beta_max: 0.8 is out of range"), "{e}");
    assert_eq!(
        scenario("htcp@linux", ""),
        "flows[0].cc: unknown preset \"linux\": htcp has no presets"
    );
}
