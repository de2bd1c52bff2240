//! Simulated time, durations and link rates, all in integers.
//!
//! `SimTime` is an instant and `SimDuration` an interval, both in nanoseconds since the start of
//! the run (1500 B at 100 Gbit/s serialise in 120 ns, so microseconds would be too coarse).
//! `Rate` is bits per second. No floating point ever enters the engine's notion of time; CC code
//! that needs `f64` seconds converts with [`SimDuration::as_secs_f64`] inside one function.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant of simulated time, in nanoseconds since the run started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

/// A timer's deadline, or none: eight bytes, where an `Option<SimTime>` takes sixteen (a TCP
/// sender's six timers share one cache line, and an endpoint's slot in the engine is 40 bytes:
/// both are read after every packet). `SimTime::MAX` stands for none: no run reaches that
/// instant, so such a timer never fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline(SimTime);

/// A span of simulated time, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(pub u64);

impl Default for Deadline {
    fn default() -> Self {
        Deadline::NONE
    }
}

impl From<Option<SimTime>> for Deadline {
    fn from(t: Option<SimTime>) -> Self {
        Deadline(t.unwrap_or(SimTime::MAX))
    }
}

impl Deadline {
    pub const NONE: Deadline = Deadline(SimTime::MAX);

    pub fn get(self) -> Option<SimTime> {
        self.is_set().then_some(self.0)
    }
    pub fn set(&mut self, at: SimTime) {
        self.0 = at;
    }
    pub fn clear(&mut self) {
        *self = Deadline::NONE;
    }
    pub fn is_set(self) -> bool {
        self != Deadline::NONE
    }
    /// Set, and at or before `now`.
    pub fn is_due(self, now: SimTime) -> bool {
        self.0 <= now && self.is_set()
    }
    /// Unset, or later than `t`.
    pub fn is_after(self, t: SimTime) -> bool {
        t < self.0
    }
    /// The earliest of some deadlines (a few conditional moves).
    #[inline]
    pub fn earliest<const N: usize>(deadlines: [Deadline; N]) -> Option<SimTime> {
        Deadline(deadlines.iter().fold(SimTime::MAX, |earliest, d| earliest.min(d.0))).get()
    }
}

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    /// The earliest of some optional instants; `None` when every one is. Endpoints ask this
    /// of their timers after every packet: as a fold it compiles to a few conditional moves,
    /// where `into_iter().flatten().min()` copied the array through the stack (1 % of a
    /// parking-lot run's instructions).
    #[inline]
    pub fn earliest<const N: usize>(times: [Option<SimTime>; N]) -> Option<SimTime> {
        times.iter().fold(None, |acc, &t| match (acc, t) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, None) => a,
            (None, b) => b,
        })
    }

    pub const fn from_nanos(ns: u64) -> Self {
        SimTime(ns)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimTime(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimTime(s * 1_000_000_000)
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// `self - earlier`, or zero if `earlier` is later (never wraps).
    pub fn saturating_since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }
}

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);
    pub const MAX: SimDuration = SimDuration(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        SimDuration(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        SimDuration(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimDuration(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimDuration(s * 1_000_000_000)
    }
    /// Rounds to the nearest nanosecond; negative or NaN inputs give zero.
    pub fn from_secs_f64(s: f64) -> Self {
        if s.is_nan() || s <= 0.0 {
            SimDuration::ZERO
        } else if s >= u64::MAX as f64 * 1e-9 {
            SimDuration::MAX
        } else {
            SimDuration((s * 1e9).round() as u64)
        }
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    pub fn saturating_mul(self, k: u64) -> SimDuration {
        SimDuration(self.0.saturating_mul(k))
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}
impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Add for SimDuration {
    type Output = SimDuration;
    fn add(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(d.0))
    }
}
impl Sub for SimTime {
    type Output = SimDuration;
    /// Panics in debug builds if `rhs` is later: time differences are never negative.
    fn sub(self, rhs: SimTime) -> SimDuration {
        debug_assert!(self.0 >= rhs.0, "negative time difference {self} - {rhs}");
        SimDuration(self.0.saturating_sub(rhs.0))
    }
}

fn fmt_nanos(ns: u64, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    if ns == 0 {
        write!(f, "0s")
    } else if ns.is_multiple_of(1_000_000_000) {
        write!(f, "{}s", ns / 1_000_000_000)
    } else if ns >= 1_000_000_000 {
        write!(f, "{}s", ns as f64 / 1e9)
    } else if ns.is_multiple_of(1_000_000) {
        write!(f, "{}ms", ns / 1_000_000)
    } else if ns >= 1_000_000 {
        write!(f, "{}ms", ns as f64 / 1e6)
    } else if ns >= 1_000 {
        write!(f, "{}us", ns as f64 / 1e3)
    } else {
        write!(f, "{ns}ns")
    }
}
impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_nanos(self.0, f)
    }
}
impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_nanos(self.0, f)
    }
}

/// A duration as scenarios and algorithm parameters write it (`"100ms"`, `"1.5s"`), for serde.
/// Its serde impls are in `scenario::units` with the other quantities: reading one checks it
/// against the scenario limits (at most a day, `scenario::limits`), which this layer does not know.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Dur(pub SimDuration);

/// A data rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    pub const fn bps(b: u64) -> Self {
        Rate(b)
    }
    pub const fn mbps(m: u64) -> Self {
        Rate(m * 1_000_000)
    }
    pub const fn gbps(g: u64) -> Self {
        Rate(g * 1_000_000_000)
    }
    pub fn as_bps_f64(self) -> f64 {
        self.0 as f64
    }
    /// Time to serialise `bytes` onto a link of this rate, rounded up to the next nanosecond so
    /// that a link never runs faster than its rate.
    pub fn tx_time(self, bytes: u32) -> SimDuration {
        // bits · 10⁹ fits in 64 bits below 2³¹ bytes (every real packet): one machine division.
        match (bytes as u64).checked_mul(8_000_000_000) {
            Some(bit_ns) => SimDuration(bit_ns.div_ceil(self.0)),
            None => SimDuration((bytes as u128 * 8_000_000_000).div_ceil(self.0 as u128) as u64),
        }
    }
    /// Bytes sent in `d` at this rate (rounded down).
    pub fn bytes_in(self, d: SimDuration) -> u64 {
        (self.0 as u128 * d.0 as u128 / 8 / 1_000_000_000) as u64
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        if b >= 1_000_000_000 && b.is_multiple_of(1_000_000) {
            write!(f, "{}Gbps", b as f64 / 1e9)
        } else if b >= 1_000_000 && b.is_multiple_of(1_000) {
            write!(f, "{}Mbps", b as f64 / 1e6)
        } else if b >= 1_000 {
            write!(f, "{}kbps", b as f64 / 1e3)
        } else {
            write!(f, "{b}bps")
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing quantities written by people: "100ms", "1.5s", "1Gbps", "80kbps", "1500B", "5MB".

/// Splits "12.5ms" into (12.5, "ms"). Whitespace between number and unit is allowed.
fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(_, c)| {
            !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')
        })
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    // "e" may start a unit only if no digit follows; keep it simple: units never start with e/E.
    let value: f64 = s[..end].parse().ok()?;
    Some((value, s[end..].trim()))
}

/// Parses a duration such as "100ms", "1.5s", "250us", "10ns", "2min".
pub fn parse_duration(s: &str) -> Result<SimDuration, String> {
    let allowed = "a number with a unit: ns, us, ms, s or min (e.g. \"100ms\")";
    let (v, unit) =
        split_number(s).ok_or_else(|| format!("{s:?} is not a duration: expected {allowed}"))?;
    let scale = match unit {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        "min" => 60.0,
        "" => return Err(format!("{s:?} has no unit: expected {allowed}")),
        _ => return Err(format!("{s:?} has an unknown unit {unit:?}: expected {allowed}")),
    };
    if !v.is_finite() || v < 0.0 {
        return Err(format!("{s:?} must be a non-negative duration"));
    }
    Ok(SimDuration::from_secs_f64(v * scale))
}

/// Parses a rate such as "1Gbps", "1.94Mbps", "80kbps", "500bps".
pub fn parse_rate(s: &str) -> Result<Rate, String> {
    let allowed = "a number with a unit: bps, kbps, Mbps or Gbps (e.g. \"10Mbps\")";
    let (v, unit) =
        split_number(s).ok_or_else(|| format!("{s:?} is not a rate: expected {allowed}"))?;
    let scale = match unit {
        "bps" | "bit/s" => 1.0,
        "kbps" | "Kbps" | "kbit/s" => 1e3,
        "Mbps" | "mbps" | "Mbit/s" => 1e6,
        "Gbps" | "gbps" | "Gbit/s" => 1e9,
        "Tbps" => 1e12,
        "" => return Err(format!("{s:?} has no unit: expected {allowed}")),
        _ => return Err(format!("{s:?} has an unknown unit {unit:?}: expected {allowed}")),
    };
    let bps = v * scale;
    if !bps.is_finite() || bps < 1.0 {
        return Err(format!("{s:?} must be a positive rate of at least 1bps"));
    }
    Ok(Rate(bps.round() as u64))
}

/// Parses a size in bytes such as "1500B", "64KB", "5MB" (decimal: 1 MB = 10^6 B), "1KiB".
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let allowed = "a number with a unit: B, KB, MB, GB, KiB, MiB or GiB (e.g. \"1500B\")";
    let (v, unit) =
        split_number(s).ok_or_else(|| format!("{s:?} is not a size: expected {allowed}"))?;
    let scale = match unit {
        "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        "" => return Err(format!("{s:?} has no unit: expected {allowed}")),
        _ => return Err(format!("{s:?} has an unknown unit {unit:?}: expected {allowed}")),
    };
    let b = v * scale;
    if !b.is_finite() || b < 0.0 {
        return Err(format!("{s:?} must be a non-negative size"));
    }
    Ok(b.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unset_deadline_is_never_due_and_after_every_instant() {
        let t = SimTime::from_nanos;
        let (none, at5) = (Deadline::NONE, Deadline::from(Some(t(5))));
        assert!(
            !none.is_due(SimTime::MAX) && none.is_after(t(u64::MAX - 1)) && none.get().is_none()
        );
        assert!(at5.is_due(t(5)) && !at5.is_due(t(4)) && at5.is_after(t(4)) && !at5.is_after(t(5)));
        assert_eq!(Deadline::earliest([none, at5, Deadline::from(Some(t(9)))]), Some(t(5)));
        assert_eq!(Deadline::earliest([none, none]), None);
    }

    #[test]
    fn earliest_ignores_unset_instants_wherever_they_are() {
        let t = SimTime::from_nanos;
        assert_eq!(SimTime::earliest([None, Some(t(7)), None, Some(t(3)), Some(t(5))]), Some(t(3)));
        assert_eq!(
            SimTime::earliest([Some(t(3)), None]),
            Some(t(3)),
            "an unset last does not erase the first"
        );
        assert_eq!(SimTime::earliest([None, Some(SimTime::ZERO)]), Some(SimTime::ZERO));
        assert_eq!(SimTime::earliest::<3>([None, None, None]), None);
    }

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration("100ms").unwrap(), SimDuration::from_millis(100));
        assert_eq!(parse_duration("1.5s").unwrap(), SimDuration::from_millis(1500));
        assert_eq!(parse_duration("250us").unwrap(), SimDuration::from_micros(250));
        assert_eq!(parse_duration("2min").unwrap(), SimDuration::from_secs(120));
        assert!(parse_duration("100").unwrap_err().contains("no unit"));
        assert!(parse_duration("10 parsecs").unwrap_err().contains("unknown unit"));
        assert!(parse_duration("-1s").is_err());
    }

    #[test]
    fn rates_parse_with_units() {
        assert_eq!(parse_rate("1Gbps").unwrap(), Rate::gbps(1));
        assert_eq!(parse_rate("1.94Mbps").unwrap(), Rate(1_940_000));
        assert_eq!(parse_rate("80kbps").unwrap(), Rate(80_000));
        assert!(parse_rate("-5Mbps").is_err());
        assert!(parse_rate("0bps").is_err());
        assert!(parse_rate("10Mbs").unwrap_err().contains("unknown unit"));
    }

    #[test]
    fn sizes_are_decimal_unless_binary_unit() {
        assert_eq!(parse_bytes("1500B").unwrap(), 1500);
        assert_eq!(parse_bytes("5MB").unwrap(), 5_000_000);
        assert_eq!(parse_bytes("1KiB").unwrap(), 1024);
    }

    #[test]
    fn serialisation_time_rounds_up() {
        // 1500 B at 1 Gbit/s = 12 us exactly; at 3 bit/s it must not be shorter than the exact value.
        assert_eq!(Rate::gbps(1).tx_time(1500), SimDuration::from_micros(12));
        assert_eq!(Rate(3).tx_time(1), SimDuration(2_666_666_667));
        // Beyond 64-bit bit·ns products the exact 128-bit division still applies.
        assert_eq!(Rate::gbps(100).tx_time(u32::MAX), SimDuration(343_597_384));
        assert_eq!(
            Rate(7).tx_time(u32::MAX),
            SimDuration((u32::MAX as u128 * 8_000_000_000).div_ceil(7) as u64)
        );
        assert_eq!(Rate::mbps(10).bytes_in(SimDuration::from_secs(1)), 1_250_000);
    }

    #[test]
    fn display_is_human() {
        assert_eq!(SimDuration::from_millis(100).to_string(), "100ms");
        assert_eq!(SimTime::from_secs(3).to_string(), "3s");
        assert_eq!(Rate::gbps(1).to_string(), "1Gbps");
        assert_eq!(Rate(80_000).to_string(), "80kbps");
    }
}
