//! Quantities as scenarios write them ("100ms", "1Gbps", "1500B", "2500pkt"), read by the
//! scenario's own readers: Python (the testbed, the peers, estimates) accepts exactly what a
//! scenario accepts, units and limits alike, and a bad value raises what a scenario with it
//! raises, `ccarena.errors.ScenarioError` (a `ValueError`) with the same message.

use ccarena_core::net::queue::QueueLimit;
use ccarena_core::scenario::units::{Bytes, Limit, RateQ};
use ccarena_core::time::Dur;
use pyo3::prelude::*;
use serde::de::DeserializeOwned;

fn read<T: DeserializeOwned>(text: &str) -> PyResult<T> {
    serde_json::from_value(serde_json::Value::from(text)).map_err(crate::scenario_error)
}

/// A duration ("600s", "2min"), in seconds.
#[pyfunction]
pub fn duration_s(text: &str) -> PyResult<f64> {
    read::<Dur>(text).map(|d| d.0.as_secs_f64())
}

/// A rate ("10Mbps"), in bit/s.
#[pyfunction]
pub fn rate_bps(text: &str) -> PyResult<f64> {
    read::<RateQ>(text).map(|r| r.0.as_bps_f64())
}

/// A size ("1500B", "64KB"), in bytes.
#[pyfunction]
pub fn size_bytes(text: &str) -> PyResult<u64> {
    read::<Bytes>(text).map(|b| b.0)
}

/// A queue limit ("100pkt", "150KB"): its number and unit, `"pkt"` or `"B"`.
#[pyfunction]
pub fn queue_limit(text: &str) -> PyResult<(u64, &'static str)> {
    Ok(match read::<Limit>(text)?.0 {
        QueueLimit::Packets(n) => (n, "pkt"),
        QueueLimit::Bytes(n) => (n, "B"),
    })
}
