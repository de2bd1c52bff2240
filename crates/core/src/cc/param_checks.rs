//! Range checks for algorithm parameters, used as `#[serde(deserialize_with = ...)]` so that a
//! bad value is a one-line error naming the parameter (`cc_params.beta: 1.5 is out of range:
//! expected a number in (0, 1)`), never a panic or a silent nonsense run.

use serde::de::Error;
use serde::{Deserialize, Deserializer};

fn checked<'de, D: Deserializer<'de>>(d: D, ok: impl Fn(f64) -> bool, allowed: &str) -> Result<f64, D::Error> {
    let v = f64::deserialize(d)?;
    if v.is_finite() && ok(v) {
        Ok(v)
    } else {
        Err(D::Error::custom(format!("{v} is out of range: expected {allowed}")))
    }
}

/// A number strictly between 0 and 1 (multiplicative decrease factors).
pub fn unit_open<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    checked(d, |v| v > 0.0 && v < 1.0, "a number in (0, 1)")
}

/// A number greater than 0.
pub fn positive<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    checked(d, |v| v > 0.0, "a number > 0")
}

/// A number greater than or equal to 0.
pub fn non_negative<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    checked(d, |v| v >= 0.0, "a number >= 0")
}

/// A number greater than 1 (divisors that must shrink a distance).
pub fn above_one<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    checked(d, |v| v > 1.0, "a number > 1")
}
