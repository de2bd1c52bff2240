//! Seeds that matter: without randomness in the scenario, every seed of reno-rtt
//! gives the same run, so replications measure nothing; with `jitter = true` each seed is a
//! different, equally valid sample of the drop-tail phase, and ten of them summarise the
//! RTT-unfairness ratio with a confidence interval. The same seed stays bit-identical.

use ccarena_core::record::result::RunResult;
use ccarena_core::scenario::Scenario;
use ccarena_core::sim;

const SEEDS: u64 = 10;
/// Student's t, 97.5 % quantile, 9 degrees of freedom (two-sided 95 % CI of 10 samples).
const T_975_9: f64 = 2.262;

fn reno_rtt(seed: u64, jitter: bool) -> Scenario {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/ccarena/scenarios/reno-rtt.toml");
    // The example turns jitter on; the test sets it both ways.
    let text = std::fs::read_to_string(path)
        .unwrap()
        .replace("jitter = true", "")
        .replace("seed = 1", &format!("seed = {seed}\njitter = {jitter}"));
    Scenario::from_toml(&text).unwrap()
}

/// Goodput of the 80 ms flow over that of the 40 ms flow, in the measured window.
fn unfairness(r: &RunResult) -> f64 {
    let g = r.flows.u64s("meas_goodput_bytes");
    g[1] as f64 / g[0] as f64
}

#[test]
fn jitter_makes_seeds_distinct_samples_and_keeps_each_seed_reproducible() {
    let plain: Vec<f64> =
        (1..=SEEDS).map(|s| unfairness(&sim::run_quiet(&reno_rtt(s, false)).unwrap())).collect();
    assert!(
        plain.iter().all(|&x| x == plain[0]),
        "without jitter nothing in reno-rtt is random: {plain:?}"
    );

    let runs: Vec<RunResult> =
        (1..=SEEDS).map(|s| sim::run_quiet(&reno_rtt(s, true)).unwrap()).collect();
    let ratios: Vec<f64> = runs.iter().map(unfairness).collect();
    let mut distinct = ratios.clone();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    assert!(distinct.len() == ratios.len(), "every seed must be its own sample: {ratios:?}");

    let n = ratios.len() as f64;
    let mean = ratios.iter().sum::<f64>() / n;
    let sd = (ratios.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let half = T_975_9 * sd / n.sqrt();
    eprintln!("reno-rtt goodput ratio (80 ms / 40 ms) over {SEEDS} jittered seeds: {mean:.3} ± {half:.3} (95% CI), sd {sd:.3}, samples {ratios:?}; unjittered: {:.3}", plain[0]);
    // The long-RTT flow gets less (RTT bias), the seeds scatter (phase effects are real), and ten
    // of them pin the mean down to a few hundredths.
    assert!(mean < 1.0 && mean > 0.05, "{mean}");
    assert!(sd > 0.0 && half < 0.1, "CI half-width {half}");

    let again = sim::run_quiet(&reno_rtt(3, true)).unwrap();
    // JSON, because NaN (e.g. completion_s of bulk flows) is unequal to itself.
    for (a, b) in [
        (&again.flows, &runs[2].flows),
        (&again.flow_series, &runs[2].flow_series),
        (&again.link_series, &runs[2].link_series),
    ] {
        assert_eq!(
            a.to_json(),
            b.to_json(),
            "same scenario and seed must give bit-identical results"
        );
    }
}
