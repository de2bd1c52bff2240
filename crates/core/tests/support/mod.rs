//! Helpers shared by scenario-level tests: run a TOML scenario and read its result columns.
#![allow(dead_code)] // each test binary uses a different subset

use ccarena_core::record::result::RunResult;
use ccarena_core::scenario::Scenario;
use ccarena_core::sim::run_quiet;

/// Parses and runs a scenario, panicking with the one-line error if it is invalid.
pub fn run(toml: &str) -> RunResult {
    let s = Scenario::from_toml(toml).unwrap_or_else(|e| panic!("{e}"));
    run_quiet(&s).unwrap_or_else(|e| panic!("{e}"))
}

/// `(t_s, value)` of a flow-series column for one flow.
pub fn flow_series(r: &RunResult, flow: u64, column: &str) -> Vec<(f64, f64)> {
    let flows = r.flow_series.u64s("flow_id");
    let t = r.flow_series.f64s("t_s");
    let values: Vec<f64> = match r.flow_series.get(column) {
        Some(ccarena_core::record::result::Column::F64(v)) => v.clone(),
        Some(ccarena_core::record::result::Column::U64(v)) => v.iter().map(|&x| x as f64).collect(),
        _ => panic!("no numeric flow_series column {column}"),
    };
    flows
        .iter()
        .zip(t)
        .zip(values)
        .filter(|((f, _), _)| **f == flow)
        .map(|((_, t), v)| (*t, v))
        .collect()
}

/// Mean of a flow-series column over samples with `t_s > after_s` (NaNs skipped).
pub fn mean_after(r: &RunResult, flow: u64, column: &str, after_s: f64) -> f64 {
    let v: Vec<f64> = flow_series(r, flow, column)
        .into_iter()
        .filter(|(t, v)| *t > after_s && v.is_finite())
        .map(|(_, v)| v)
        .collect();
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// Goodput of each flow over its measured window, bits per second.
pub fn goodputs_bps(r: &RunResult) -> Vec<f64> {
    let bytes = r.flows.u64s("meas_goodput_bytes");
    let start = r.flows.f64s("meas_start_s");
    bytes.iter().zip(start).map(|(&b, &s)| b as f64 * 8.0 / (r.duration_s - s)).collect()
}

/// Jain's fairness index (Σx)² / (n Σx²).
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * s2)
}

/// Utilisation of a link (by name) over the measured window.
pub fn utilisation(r: &RunResult, link: &str) -> f64 {
    let names = match r.links.get("link") {
        Some(ccarena_core::record::result::Column::Str(v)) => v,
        _ => unreachable!(),
    };
    let i = names.iter().position(|n| n == link).unwrap_or_else(|| panic!("no link {link}"));
    r.links.u64s("meas_tx_bytes")[i] as f64 * 8.0
        / (r.links.f64s("rate_bps")[i] * r.links.f64s("meas_duration_s")[i])
}

/// Time-averaged queue of a link (by name) over the measured window, packets.
pub fn mean_queue_pkts(r: &RunResult, link: &str) -> f64 {
    let names = match r.links.get("link") {
        Some(ccarena_core::record::result::Column::Str(v)) => v,
        _ => unreachable!(),
    };
    let i = names.iter().position(|n| n == link).unwrap_or_else(|| panic!("no link {link}"));
    r.links.f64s("mean_queue_pkts")[i]
}
