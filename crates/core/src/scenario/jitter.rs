//! `jitter`: small random offsets that break the phase effects of a perfectly regular network.
//!
//! A simulated network without randomness is deterministic in its phases: drop-tail queues drop
//! the same flows' packets at the same moments, and the outcome (e.g. Reno's RTT-unfairness
//! ratio) depends on start times to the nanosecond (Floyd & Jacobson 1992, "On traffic phase
//! effects in packet-switched gateways"). Seed 003 §4 added "small random adjustments to the
//! start time of the TCP sources and to the links' propagation delay" for this reason; ns-2's
//! TCP agents have `overhead_` (a random wait before each send) for the same purpose.
//!
//! ```text
//! start of flow i                        += U[0, start)   once, from the stream of flow i
//! propagation of each packet over link l += U[0, delay)   per packet, from the stream of link l
//!                                          (never before the previous packet: links stay FIFO)
//! ```
//!
//! The per-packet part matters: fixed offsets only pick another deterministic cycle, and a
//! drop-tail network with bulk flows locks into one of a few cycles whatever the starts (reno-rtt
//! gives the same goodput ratio to three digits for most start offsets). A random extra delay per
//! packet, much smaller than the RTT, keeps the phases from locking, as ns-2's `overhead_` does.
//!
//! Each entity has its own stream, so adding a flow or a link leaves the others' draws as they
//! were, and the same scenario and seed give bit-identical results.

use super::{parse_at, ScenarioError};
use crate::rng::{Rng, StreamKind};
use crate::time::{Dur, SimDuration};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The offsets' upper bounds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Jitter {
    /// Each flow starts up to this much later than written.
    #[serde(default = "default_start")]
    pub start: Dur,
    /// Each packet's propagation over each link direction takes up to this much longer.
    #[serde(default = "default_delay")]
    pub delay: Dur,
}

/// 10 ms: a fraction of any RTT worth studying, several packet times at 10 Mbit/s, and short
/// against the runs (tens of seconds) whose averages it must not move.
fn default_start() -> Dur {
    Dur(SimDuration::from_millis(10))
}

/// 100 µs: about a packet time at 100 Mbit/s, so the flows' packets stop arriving at the
/// bottleneck in lock step, while RTTs grow on average by 50 µs per link crossed (well under
/// 1 % on paths of 20 ms or more).
fn default_delay() -> Dur {
    Dur(SimDuration::from_micros(100))
}

impl Default for Jitter {
    fn default() -> Self {
        Jitter { start: default_start(), delay: default_delay() }
    }
}

/// Largest offset of either kind: one second (larger is not jitter but a different scenario).
const MAX_JITTER: SimDuration = SimDuration::from_secs(1);

/// Stream indices: flows count from 0, link directions from this offset (one stream kind).
const LINK_STREAMS: u64 = 1 << 40;

impl Jitter {
    /// `jitter = true` (the defaults), `false` (none) or a table `{ start, delay }`.
    pub(crate) fn parse(v: &Value) -> Result<Option<Jitter>, ScenarioError> {
        let j = match v {
            Value::Bool(false) => return Ok(None),
            Value::Bool(true) => Jitter::default(),
            Value::Object(_) => parse_at::<Jitter>(v, "jitter")?,
            _ => {
                return Err(ScenarioError::new(
                    "jitter",
                    "expected true, false or a table { start = \"10ms\", delay = \"100us\" }",
                ))
            }
        };
        for (key, d) in [("start", j.start), ("delay", j.delay)] {
            if d.0 > MAX_JITTER {
                return Err(ScenarioError::new(
                    format!("jitter.{key}"),
                    format!("{} is out of range: expected 0s..{MAX_JITTER}", d.0),
                ));
            }
        }
        Ok(Some(j))
    }

    /// The start offset of flow `flow`.
    pub fn start_offset(&self, seed: u64, flow: u64) -> SimDuration {
        offset(self.start.0, seed, flow)
    }

    /// The generator of link direction `link`'s per-packet delays.
    pub fn link_rng(&self, seed: u64, link: u64) -> Rng {
        Rng::stream(seed, StreamKind::Jitter, LINK_STREAMS + link)
    }
}

fn offset(max: SimDuration, seed: u64, index: u64) -> SimDuration {
    if max == SimDuration::ZERO {
        return SimDuration::ZERO;
    }
    let mut rng = Rng::stream(seed, StreamKind::Jitter, index);
    SimDuration::from_nanos(rng.uniform_range(0.0, max.as_nanos() as f64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_stay_in_range_differ_by_entity_and_seed_and_repeat() {
        let j = Jitter::default();
        let starts: Vec<_> = (0..50).map(|f| j.start_offset(7, f)).collect();
        assert!(starts.iter().all(|d| *d < j.start.0));
        assert!(starts.windows(2).any(|w| w[0] != w[1]));
        assert_eq!(starts, (0..50).map(|f| j.start_offset(7, f)).collect::<Vec<_>>());
        assert_ne!(starts, (0..50).map(|f| j.start_offset(8, f)).collect::<Vec<_>>());
        assert_ne!(
            j.link_rng(7, 0),
            Rng::stream(7, StreamKind::Jitter, 0),
            "links use their own streams"
        );
    }

    #[test]
    fn parse_accepts_switches_and_tables_and_bounds_them() {
        assert_eq!(Jitter::parse(&Value::Bool(false)).unwrap(), None);
        assert_eq!(Jitter::parse(&Value::Bool(true)).unwrap(), Some(Jitter::default()));
        let j = Jitter::parse(&serde_json::json!({"start": "1ms"})).unwrap().unwrap();
        assert_eq!((j.start.0, j.delay.0), (SimDuration::from_millis(1), default_delay().0));
        let e = Jitter::parse(&serde_json::json!({"delay": "2s"})).unwrap_err().to_string();
        assert!(e.starts_with("jitter.delay: 2s is out of range"), "{e}");
        let e = Jitter::parse(&serde_json::json!(3)).unwrap_err().to_string();
        assert!(e.starts_with("jitter: expected true, false or a table"), "{e}");
    }
}
