//! Congestion control: the plug-in trait, the shared Reno-family helpers, and the closed set of
//! algorithms selectable by name.
//!
//! The transport owns loss detection and recovery (dupacks, SACK scoreboard, RTO, partial ACKs);
//! an algorithm only decides the window (or pacing rate), in the spirit of Linux's
//! `tcp_congestion_ops`: `on_congestion` sets the slow-start threshold the window falls back to,
//! `on_ack` grows the window while the connection is not recovering.

pub mod reno;

use crate::time::{Rate, SimDuration, SimTime};
use serde::{Deserialize, Serialize};

/// Window state shared by the transport and its congestion controller. Windows are in segments.
#[derive(Clone, Debug)]
pub struct CcState {
    /// Congestion window, segments (fractional: growth accumulates per ACK).
    pub cwnd: f64,
    /// Slow-start threshold, segments. `f64::INFINITY` until the first congestion event.
    pub ssthresh: f64,
    /// Smoothed RTT (RFC 6298), `None` before the first sample.
    pub srtt: Option<SimDuration>,
    /// Smallest RTT sample seen (the propagation-delay estimate of delay-based algorithms).
    pub min_rtt: Option<SimDuration>,
    /// Segments sent and not yet acknowledged or deemed lost (RFC 6675 "pipe").
    pub in_flight: u64,
    /// Payload bytes per full segment.
    pub mss: u32,
}

impl CcState {
    pub fn new(initial_cwnd: f64, initial_ssthresh: f64, mss: u32) -> Self {
        CcState { cwnd: initial_cwnd, ssthresh: initial_ssthresh, srtt: None, min_rtt: None, in_flight: 0, mss }
    }
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// What one acknowledgement told the sender.
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    pub now: SimTime,
    /// Segments newly acknowledged (cumulatively or by SACK) by this ACK.
    pub acked: u64,
    /// RTT measured from this ACK (Karn's rule applied), if any.
    pub rtt: Option<SimDuration>,
}

/// Why the window must shrink.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CongestionKind {
    /// Loss inferred from duplicate ACKs or SACK (fast retransmit).
    Loss,
    /// Retransmission timeout.
    Timeout,
    /// ECN echo (RFC 3168).
    Ecn,
    /// ICMP Source Quench (SQM-Response, seed 004).
    SourceQuench,
}

#[derive(Clone, Copy, Debug)]
pub struct CongestionEvent {
    pub now: SimTime,
    pub kind: CongestionKind,
    /// Segments in flight when the congestion was detected (RFC 5681 FlightSize).
    pub flight_size: u64,
}

/// A congestion-control algorithm.
pub trait CongestionControl {
    fn name(&self) -> &'static str;
    /// Grow the window for `ack.acked` newly acknowledged segments. Called only while the
    /// connection is not in loss recovery and the window limited the sender.
    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample);
    /// Set `st.ssthresh` to the window to fall back to (the transport sets `cwnd` according to
    /// its recovery scheme) and update internal state.
    fn on_congestion(&mut self, st: &mut CcState, ev: &CongestionEvent);
    /// Every valid RTT sample, recovery or not (delay-based algorithms track RTT here).
    fn on_rtt_sample(&mut self, _st: &mut CcState, _now: SimTime, _rtt: SimDuration) {}
    /// Loss recovery ended and `cwnd` was set back to `ssthresh`.
    fn on_recovery_exit(&mut self, _st: &mut CcState, _now: SimTime) {}
    /// A data segment was sent.
    fn on_sent(&mut self, _st: &mut CcState, _now: SimTime) {}
    /// Rate at which to pace segments, if the algorithm paces.
    fn pacing_rate(&self, _st: &CcState) -> Option<Rate> {
        None
    }
}

/// Reno slow start (RFC 5681 §3.1, Linux `tcp_slow_start`): one segment per acked segment, up to
/// ssthresh. Returns the acked segments left over once ssthresh is reached.
pub fn slow_start(st: &mut CcState, acked: u64) -> u64 {
    let room = (st.ssthresh - st.cwnd).max(0.0);
    let used = (acked as f64).min(room);
    st.cwnd += used;
    acked - used.ceil().min(acked as f64) as u64
}

/// Additive increase (Linux `tcp_cong_avoid_ai`): `cwnd += acked / w`, i.e. one segment per
/// window of `w` acknowledged segments.
pub fn cong_avoid_ai(st: &mut CcState, w: f64, acked: u64) {
    st.cwnd += acked as f64 / w.max(1.0);
}

/// Algorithm parameters as written in a scenario: `cc = "reno"` plus optional `cc_params`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "cc", rename_all = "snake_case")]
pub enum CcConfig {
    Reno(reno::RenoConfig),
}

/// Names accepted by `cc =` for TCP flows, with their one-line descriptions.
pub const TCP_ALGORITHMS: &[(&str, &str)] = &[
    ("reno", "AIMD: +1 segment per RTT, halve on loss (RFC 5681)"),
    ("newreno", "alias of reno whose default recovery is newreno (RFC 6582)"),
];

impl CcConfig {
    /// Builds the config of algorithm `name` from its optional parameter table.
    pub fn from_name(name: &str, params: Option<&serde_json::Value>) -> Result<CcConfig, String> {
        let empty = serde_json::Value::Object(Default::default());
        let params = params.unwrap_or(&empty);
        fn parse<T: serde::de::DeserializeOwned>(p: &serde_json::Value) -> Result<T, String> {
            serde_path_to_error::deserialize(p).map_err(|e| {
                let path = e.path().to_string();
                if path == "." { e.inner().to_string() } else { format!("{path}: {}", e.inner()) }
            })
        }
        match name {
            "reno" | "newreno" => Ok(CcConfig::Reno(parse(params)?)),
            _ => Err(format!(
                "unknown congestion control {name:?}: expected one of {}",
                TCP_ALGORITHMS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
            )),
        }
    }

    pub fn build(&self) -> AnyCc {
        match self {
            CcConfig::Reno(c) => AnyCc::Reno(reno::Reno::new(c.clone())),
        }
    }

    /// The parameter values in effect, for the run's record of what ran.
    pub fn params_json(&self) -> serde_json::Value {
        let v = serde_json::to_value(self).unwrap_or_default();
        match v {
            serde_json::Value::Object(mut m) => {
                m.remove("cc");
                serde_json::Value::Object(m)
            }
            other => other,
        }
    }
}

/// Run-time choice among the built-in algorithms (closed enum: static dispatch, no features).
pub enum AnyCc {
    Reno(reno::Reno),
}

impl AnyCc {
    pub fn inner(&self) -> &dyn CongestionControl {
        match self {
            AnyCc::Reno(c) => c,
        }
    }
    pub fn inner_mut(&mut self) -> &mut dyn CongestionControl {
        match self {
            AnyCc::Reno(c) => c,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_stops_at_ssthresh_and_returns_leftover() {
        let mut st = CcState::new(8.0, 10.0, 1460);
        let left = slow_start(&mut st, 5);
        assert_eq!(st.cwnd, 10.0);
        assert_eq!(left, 3);
    }

    #[test]
    fn unknown_algorithm_lists_the_allowed_names() {
        let e = CcConfig::from_name("cubicc", None).unwrap_err();
        assert!(e.contains("\"cubicc\"") && e.contains("reno"), "{e}");
    }

    #[test]
    fn unknown_parameter_is_rejected() {
        let p = serde_json::json!({"betta": 0.5});
        let e = CcConfig::from_name("reno", Some(&p)).unwrap_err();
        assert!(e.contains("betta"), "{e}");
    }
}
