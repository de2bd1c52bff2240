//! Congestion control: the plug-in trait, the shared Reno-family helpers, and the closed set of
//! algorithms selectable by name.
//!
//! The transport owns loss detection and recovery (dupacks, SACK scoreboard, RTO, partial ACKs);
//! an algorithm only decides the window (or pacing rate), in the spirit of Linux's
//! `tcp_congestion_ops`: `on_congestion` sets the slow-start threshold the window falls back to,
//! `on_ack` grows the window while the connection is not recovering.

pub mod bbr;
pub mod bic;
pub mod compound;
pub mod cubic;
mod cubic_linux;
pub mod dctcp;
pub mod external;
pub mod fast;
pub mod highspeed;
pub mod htcp;
pub mod hybla;
mod identity;
pub mod illinois;
pub mod ledbat;
pub mod libra;
pub mod lp;
pub mod reno;
mod round_rtt;
pub mod scalable;
pub mod vegas;
pub mod veno;
pub mod westwood;
pub mod yeah;

#[cfg(test)]
mod ack_clock;

pub use identity::{Algorithm, Alias, CcError, CcName};

use crate::time::{Rate, SimDuration, SimTime};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

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
    /// SND.UNA: the oldest unacknowledged segment. An algorithm that works per round trip
    /// (Vegas, FAST, HyStart) ends a round when `snd_una` passes the `snd_nxt` it noted at the
    /// round's start, as Linux's `after(ack, beg_snd_nxt)`.
    pub snd_una: u64,
    /// SND.NXT: the next new segment to be sent.
    pub snd_nxt: u64,
    /// Segments delivered so far (cumulatively acknowledged or SACKed), for rate estimates.
    pub delivered: u64,
}

impl CcState {
    pub fn new(initial_cwnd: f64, initial_ssthresh: f64, mss: u32) -> Self {
        CcState {
            cwnd: initial_cwnd,
            ssthresh: initial_ssthresh,
            srtt: None,
            min_rtt: None,
            in_flight: 0,
            mss,
            snd_una: 0,
            snd_nxt: 0,
            delivered: 0,
        }
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

/// What every acceptable ACK tells an algorithm, recovery or not
/// ([`CongestionControl::on_ack_feedback`]).
#[derive(Clone, Copy, Debug)]
pub struct AckFeedback {
    pub now: SimTime,
    /// Segments newly delivered (cumulatively acknowledged or SACKed) by this ACK.
    pub acked: u64,
    /// The ACK carried ECN-Echo.
    pub ece: bool,
    /// RTT measured from this ACK (Karn's rule applied), if any.
    pub rtt: Option<SimDuration>,
    /// The ACK's timestamps (RFC 7323, with timestamps on): TSval, the receiver's clock when
    /// it sent the ACK, and TSecr, the echo of the data's; both clocks count milliseconds
    /// (Linux `TCP_TS_HZ`).
    pub ts: Option<AckTimestamps>,
}

/// An ACK's TSval and TSecr, ms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckTimestamps {
    pub tsval: u32,
    pub tsecr: u32,
}

impl AckTimestamps {
    /// TSval − TSecr: the data's one-way delay plus the time the receiver held its ACK, ms.
    /// Sender and receiver clocks agree here; the algorithms that read it use only differences
    /// from its minimum, as they would across clocks with an offset (RFC 6817 §3.1).
    pub fn one_way_delay_ms(self) -> u32 {
        self.tsval.wrapping_sub(self.tsecr)
    }
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation §3.3, Linux
/// `struct rate_sample`), taken by the transport on every acceptable ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    pub now: SimTime,
    /// C.delivered: segments delivered (acknowledged or SACKed) so far, this ACK included.
    pub delivered_total: u64,
    /// C.delivered_time: when C.delivered last grew.
    pub delivered_time: SimTime,
    /// Segments newly delivered by this ACK.
    pub acked_sacked: u64,
    /// Segments newly deemed lost since the previous ACK (counted as they are retransmitted).
    pub losses: u64,
    /// Segments delivered over `interval` (C.delivered − P.delivered).
    pub delivered: u64,
    /// The sample's interval, max(send elapsed, ACK elapsed); `None` if this ACK gives no valid
    /// rate (nothing newly delivered, or an interval shorter than min RTT).
    pub interval: Option<SimDuration>,
    /// P.delivered of the most recently sent segment this ACK delivered: a round trip ends when
    /// it reaches the C.delivered noted at the round's start.
    pub prior_delivered: u64,
    /// The sampled segment was sent while the application, not the network, limited sending.
    pub is_app_limited: bool,
    /// Segments in flight (pipe) before this ACK.
    pub prior_in_flight: u64,
    /// RTT measured from this ACK (Karn's rule applied), if any.
    pub rtt: Option<SimDuration>,
}

impl RateSample {
    /// The delivery rate, segments per second, if the sample is valid.
    pub fn rate_segments_per_s(&self) -> Option<f64> {
        self.interval.map(|i| self.delivered as f64 / i.as_secs_f64())
    }
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
    /// Every acceptable ACK, recovery or not, before the transport acts on it (Linux's
    /// `in_ack_event`): what it delivered, its ECN-Echo (DCTCP's marked fraction is counted
    /// here) and its one-way delay (LEDBAT's and TCP-LP's signal).
    fn on_ack_feedback(&mut self, _st: &mut CcState, _fb: &AckFeedback) {}
    /// Whether the algorithm reads `on_ack_feedback`: the sender builds the feedback (and
    /// calls) only when it does, so an algorithm that overrides it must say so here.
    fn wants_ack_feedback(&self) -> bool {
        false
    }
    /// A data segment was sent.
    fn on_sent(&mut self, _st: &mut CcState, _now: SimTime) {}
    /// Every acceptable ACK, recovery or not, after the transport processed it: the
    /// delivery-rate sample (model-based algorithms such as BBR set cwnd and pacing here).
    fn on_rate_sample(&mut self, _st: &mut CcState, _rs: &RateSample) {}
    /// Whether the algorithm reads the samples of `on_rate_sample`. The sender keeps the
    /// per-segment records delivery-rate estimation needs (and passes samples) only when it
    /// does: an algorithm that overrides `on_rate_sample` must say so here.
    fn wants_rate_samples(&self) -> bool {
        false
    }
    /// Rate at which to pace segments, if the algorithm paces.
    fn pacing_rate(&self, _st: &CcState) -> Option<Rate> {
        None
    }
}

/// Reno slow start (RFC 5681 §3.1, Linux `tcp_slow_start`): one segment per acked segment, up to
/// ssthresh. Returns the acked segments left over for congestion avoidance: all of them when
/// cwnd is already at or above ssthresh, none while it stays below.
pub fn slow_start(st: &mut CcState, acked: u64) -> u64 {
    let room = (st.ssthresh - st.cwnd).max(0.0);
    let used = (acked as f64).min(room);
    st.cwnd += used;
    // The segments used, rounded up: `used` is finite and at least 0, so its ceiling is the
    // truncation plus one unless it is whole (`f64::ceil` is a library call on baseline x86-64,
    // which has no rounding instruction, and every slow-start ACK took it).
    let whole = used as u64;
    acked - (whole + u64::from((whole as f64) < used)).min(acked)
}

/// Additive increase (Linux `tcp_cong_avoid_ai`): `cwnd += acked / w`, i.e. one segment per
/// window of `w` acknowledged segments.
pub fn cong_avoid_ai(st: &mut CcState, w: f64, acked: u64) {
    st.cwnd += acked as f64 / w.max(1.0);
}

/// Reno's window growth (Linux `tcp_reno_cong_avoid`): slow start up to ssthresh, then one
/// segment per window of acknowledged segments. What the delay-based algorithms fall back to.
pub fn reno_cong_avoid(st: &mut CcState, acked: u64) {
    let acked = slow_start(st, acked);
    if acked > 0 {
        let w = st.cwnd;
        cong_avoid_ai(st, w, acked);
    }
}

/// The parameters of an algorithm: documented defaults (`Default`), optional named presets, and
/// serde with `deny_unknown_fields` so a misspelt parameter is an error.
pub trait CcParams: Default + Clone + Serialize + DeserializeOwned {
    /// Named parameter sets selectable as `cc = "name@preset"`, each with its source.
    const PRESETS: &'static [(&'static str, &'static str)] = &[];
    /// The parameters of preset `name` (one of `PRESETS`).
    fn preset(_name: &str) -> Option<Self> {
        None
    }
    /// Checks the values' ranges once parsed: `Err("name: ...")` names the bad parameter.
    fn validate(&self) -> Result<(), String> {
        Ok(())
    }
}

/// Largest window-like parameter, segments: 10⁶ segments of 1460 B in flight fill a 10 Gbit/s
/// path of 1.2 s RTT, beyond any scenario the simulator supports (`initial_cwnd` shares it).
pub const MAX_SEGMENTS: f64 = 1e6;

/// For `CcParams::validate`: unless `ok` (and the value finite), the one-line error
/// `name: value is out of range: expected allowed`. Write `ok` so that NaN fails it.
pub fn check_param(name: &str, value: f64, ok: bool, allowed: &str) -> Result<(), String> {
    if ok && value.is_finite() {
        Ok(())
    } else {
        Err(format!("{name}: {value} is out of range: expected {allowed}"))
    }
}

/// Resolves `preset` then overlays `params` (a table of parameter values). An unknown preset is
/// an error of the name; the rest, of the parameters.
pub(crate) fn resolve<P: CcParams>(
    algorithm: &str,
    preset: Option<&str>,
    params: Option<&Value>,
) -> Result<P, CcError> {
    let base = match preset {
        None => P::default(),
        Some(name) => P::preset(name).ok_or_else(|| {
            let known: Vec<&str> = P::PRESETS.iter().map(|(n, _)| *n).collect();
            CcError::Name(if known.is_empty() {
                format!("unknown preset {name:?}: {algorithm} has no presets")
            } else {
                format!(
                    "unknown preset {name:?} of {algorithm}: expected one of {}",
                    known.join(", ")
                )
            })
        })?,
    };
    overlay(base, params).map_err(CcError::Params)
}

/// `base` with `params` (a table of parameter values) on top, validated.
fn overlay<P: CcParams>(base: P, params: Option<&Value>) -> Result<P, String> {
    let Some(params) = params else { return base.validate().map(|()| base) };
    let Value::Object(overrides) = params else {
        return Err(format!("expected a table of parameters, got {params}"));
    };
    let mut merged = match serde_json::to_value(&base) {
        Ok(Value::Object(m)) => m,
        _ => unreachable!("parameter structs serialise to tables"),
    };
    for (k, v) in overrides {
        merged.insert(k.clone(), v.clone());
    }
    let resolved: P = serde_path_to_error::deserialize(&Value::Object(merged)).map_err(|e| {
        let path = e.path().to_string();
        if path == "." {
            e.inner().to_string()
        } else {
            format!("{path}: {}", e.inner())
        }
    })?;
    resolved.validate()?;
    Ok(resolved)
}

/// What `ccarena algorithms` shows about one algorithm.
#[derive(Clone, Debug, Serialize)]
pub struct AlgorithmInfo {
    pub name: &'static str,
    pub description: &'static str,
    /// Default parameter values.
    pub params: Value,
    pub presets: Vec<(&'static str, &'static str)>,
}

/// The type `AnyCc` holds an algorithm's state in: the state itself, or a box of it when the
/// state is large (`boxed`). A TCP sender holds an `AnyCc` inline, and seed 003's runs hold tens
/// of thousands of Reno senders (16 bytes of state) next to a few hundred of the others: inline,
/// CUBIC's 400 bytes made every sender 400 bytes larger and spread its fields over more lines.
macro_rules! stored {
    ($t:ty) => { $t };
    ($t:ty, boxed) => { Box<$t> };
}

/// Declares the built-in algorithms: `"name" => Variant(module::Type, module::Config), "description";`
/// (`Variant(module::Type, module::Config, boxed)` for a state larger than 64 bytes, see
/// [`stored!`]). Generates the configuration enum, the run-time enum and the name lookup, so
/// adding an algorithm is one file plus one line here.
macro_rules! algorithms {
    ($( $name:literal => $variant:ident($module:ident :: $ty:ident, $cfg:ident $(, $boxed:ident)?), $desc:literal; )*) => {
        /// An algorithm and its parameter values, as resolved from a scenario.
        #[derive(Clone, Debug, PartialEq)]
        pub enum CcConfig {
            $( $variant($module::$cfg), )*
            /// Written in Python (`cc = "py:…"`), built by the run's factory (`external.rs`).
            External(external::ExternalCc),
        }

        /// Run-time choice among the algorithms (closed enum: static dispatch, no cargo features).
        pub enum AnyCc {
            $( $variant(stored!($module::$ty $(, $boxed)?)), )*
            /// An algorithm defined outside this crate (experiments, tests).
            Custom(Box<dyn CongestionControl + Send>),
        }

        impl CcConfig {
            fn lookup(algorithm: &str, preset: Option<&str>, params: Option<&Value>) -> Option<Result<CcConfig, CcError>> {
                match algorithm {
                    $( $name => Some(resolve::<$module::$cfg>($name, preset, params).map(CcConfig::$variant)), )*
                    _ => None,
                }
            }

            /// The controller of flow `flow`; only an external algorithm can fail to build.
            pub fn build(&self, flow: u32) -> Result<AnyCc, String> {
                match self {
                    $( CcConfig::$variant(c) => Ok(AnyCc::$variant(From::from($module::$ty::new(c.clone())))), )*
                    CcConfig::External(e) => external::build(e, flow).map(AnyCc::Custom),
                }
            }

            /// The parameter values in effect, for the run's record of what ran.
            pub fn params_json(&self) -> Value {
                match self {
                    $( CcConfig::$variant(c) => serde_json::to_value(c).expect("parameters serialise"), )*
                    CcConfig::External(e) => e.params.clone(),
                }
            }
        }

        impl AnyCc {
            pub fn inner(&self) -> &dyn CongestionControl {
                match self {
                    $( AnyCc::$variant(c) => std::borrow::Borrow::<$module::$ty>::borrow(c), )*
                    AnyCc::Custom(c) => c.as_ref(),
                }
            }
            pub fn inner_mut(&mut self) -> &mut dyn CongestionControl {
                match self {
                    $( AnyCc::$variant(c) => std::borrow::BorrowMut::<$module::$ty>::borrow_mut(c), )*
                    AnyCc::Custom(c) => c.as_mut(),
                }
            }

            // The calls made on every ACK or segment: each arm calls its own type's method, so
            // the small ones (and the trait's empty defaults) are inlined, where `inner_mut`'s
            // vtable made each a call per packet (a profile-guided build promotes the hottest
            // of those itself, measured side by side).

            #[inline]
            pub fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
                match self {
                    $( AnyCc::$variant(c) => std::borrow::BorrowMut::<$module::$ty>::borrow_mut(c).on_ack(st, ack), )*
                    AnyCc::Custom(c) => c.on_ack(st, ack),
                }
            }
            #[inline]
            pub fn on_rtt_sample(&mut self, st: &mut CcState, now: SimTime, rtt: SimDuration) {
                match self {
                    $( AnyCc::$variant(c) => std::borrow::BorrowMut::<$module::$ty>::borrow_mut(c).on_rtt_sample(st, now, rtt), )*
                    AnyCc::Custom(c) => c.on_rtt_sample(st, now, rtt),
                }
            }
            #[inline]
            pub fn on_recovery_exit(&mut self, st: &mut CcState, now: SimTime) {
                match self {
                    $( AnyCc::$variant(c) => std::borrow::BorrowMut::<$module::$ty>::borrow_mut(c).on_recovery_exit(st, now), )*
                    AnyCc::Custom(c) => c.on_recovery_exit(st, now),
                }
            }
            #[inline]
            pub fn on_ack_feedback(&mut self, st: &mut CcState, fb: &AckFeedback) {
                match self {
                    $( AnyCc::$variant(c) => std::borrow::BorrowMut::<$module::$ty>::borrow_mut(c).on_ack_feedback(st, fb), )*
                    AnyCc::Custom(c) => c.on_ack_feedback(st, fb),
                }
            }
            #[inline]
            pub fn on_sent(&mut self, st: &mut CcState, now: SimTime) {
                match self {
                    $( AnyCc::$variant(c) => std::borrow::BorrowMut::<$module::$ty>::borrow_mut(c).on_sent(st, now), )*
                    AnyCc::Custom(c) => c.on_sent(st, now),
                }
            }
            #[inline]
            pub fn on_rate_sample(&mut self, st: &mut CcState, rs: &RateSample) {
                match self {
                    $( AnyCc::$variant(c) => std::borrow::BorrowMut::<$module::$ty>::borrow_mut(c).on_rate_sample(st, rs), )*
                    AnyCc::Custom(c) => c.on_rate_sample(st, rs),
                }
            }
            #[inline]
            pub fn pacing_rate(&self, st: &CcState) -> Option<Rate> {
                match self {
                    $( AnyCc::$variant(c) => std::borrow::Borrow::<$module::$ty>::borrow(c).pacing_rate(st), )*
                    AnyCc::Custom(c) => c.pacing_rate(st),
                }
            }
        }

        /// The names of the built-in TCP algorithms, in listing order.
        const TCP_NAMES: &[&str] = &[ $( $name, )* ];

        /// Every built-in TCP algorithm, in listing order.
        pub fn tcp_algorithms() -> Vec<AlgorithmInfo> {
            vec![ $( AlgorithmInfo {
                name: $name,
                description: $desc,
                params: serde_json::to_value($module::$cfg::default()).expect("parameters serialise"),
                presets: <$module::$cfg as CcParams>::PRESETS.to_vec(),
            }, )* ]
        }
    };
}

algorithms! {
    "reno" => Reno(reno::Reno, RenoConfig), "AIMD: +1 segment per RTT, halve on loss (RFC 5681)";
    "cubic" => Cubic(cubic::Cubic, CubicConfig, boxed), "W(t) = C(t-K)^3 + W_max, Reno-friendly region, HyStart (RFC 9438)";
    "bic" => Bic(bic::Bic, BicConfig, boxed), "binary search toward W_max, S_max/S_min steps, max probing (Xu et al. 2004)";
    "highspeed" => HighSpeed(highspeed::HighSpeed, HighSpeedConfig), "HighSpeed TCP: AIMD with a(w), b(w) from the window (RFC 3649)";
    "scalable" => Scalable(scalable::Scalable, ScalableConfig), "Scalable TCP: MIMD, +0.01 per acked segment, x0.875 on loss (Kelly 2003)";
    "htcp" => Htcp(htcp::Htcp, HtcpConfig, boxed), "H-TCP: increase grows with time since the last loss, adaptive backoff (Leith & Shorten 2004)";
    "hybla" => Hybla(hybla::Hybla, HyblaConfig), "RTT-scaled Reno for long paths: rho = RTT/25 ms, +2^rho-1 per ACK in slow start, +rho^2/cwnd in avoidance (Caini & Firrincieli 2004, Linux tcp_hybla.c)";
    "illinois" => Illinois(illinois::Illinois, IllinoisConfig, boxed), "loss decides when, queueing delay how much: +alpha per RTT from 10 (no delay) to 0.3, x(1-beta) on loss, beta from 1/8 to 1/2 (Liu, Basar, Srikant 2008, Linux tcp_illinois.c)";
    "vegas" => Vegas(vegas::Vegas, VegasConfig, boxed), "delay-based: keep alpha..beta segments queued, +/-1 per RTT (Brakmo et al. 1994)";
    "veno" => Veno(veno::Veno, VenoConfig, boxed), "Reno that tells random from congestive loss by a Vegas backlog estimate N: keep 4/5 of the window if N < 3, grow every other RTT if N >= 3 (Fu & Liew 2003, Linux tcp_veno.c)";
    "westwood" => Westwood(westwood::Westwood, WestwoodConfig, boxed), "Westwood+: Reno whose window falls back to the measured bandwidth x min RTT after a loss, sampled once per RTT (Grieco & Mascolo 2004, Linux tcp_westwood.c)";
    "yeah" => Yeah(yeah::Yeah, YeahConfig, boxed), "YeAH: Scalable growth while fewer than 80 segments are queued, Reno above, precautionary decongestion of its own queue, a loss removes the queue (1/8..1/2 of cwnd) (Baiocchi et al. 2007, Linux tcp_yeah.c)";
    "lp" => Lp(lp::Lp, LpConfig), "TCP-LP: Reno that halves its window (or drops it to 1 within 3 RTTs of the last cut) when the smoothed one-way delay passes 15 % of its range, so it uses only spare capacity (Kuzmanovic & Knightly 2006, Linux tcp_lp.c)";
    "fast" => Fast(fast::Fast, FastConfig, boxed), "delay-based, paced: w <- min(2w, (1-g)w + g(baseRTT/RTT w + alpha)) per RTT (Jin, Wei, Low 2004)";
    "compound" => Compound(compound::Compound, CompoundConfig, boxed), "Reno window plus a delay window grown as alpha*win^k while under gamma queued (Tan et al. 2006)";
    "libra" => Libra(libra::Libra, LibraConfig, boxed), "RTT-fair AIMD: +α·T²/(T+T₀) per RTT, α from the bottleneck capacity (packet pair) and queueing (Marfia et al. 2007)";
    "dctcp" => Dctcp(dctcp::Dctcp, DctcpConfig), "Data Center TCP: Reno cut by cwnd x alpha/2 on ECN-Echo, alpha the marked fraction per window averaged with gain 1/16; needs a step-marking queue (RFC 8257, Alizadeh et al. 2010, Linux tcp_dctcp.c)";
    "ledbat" => Ledbat(ledbat::Ledbat, LedbatConfig, boxed), "LEDBAT scavenger: aims at 100 ms of queueing delay measured one way from timestamps, cwnd += gain x (target - delay)/target per window, yields to loss-based flows (RFC 6817)";
    "bbr" => Bbr(bbr::Bbr, BbrConfig, boxed), "model-based: pace at the max delivery rate of 10 RTTs, cwnd 2 BDP, gain cycling, PROBE_RTT (Cardwell et al. 2016, Linux tcp_bbr.c)";
}

impl CcName {
    /// A TCP congestion control's name: a built-in algorithm or one of its aliases, with an
    /// optional preset (`"cubic@linux-6"`), or an external one (`"py:…"`).
    pub fn tcp(name: &str) -> Result<CcName, String> {
        CcName::external(name).unwrap_or_else(|| {
            CcName::builtin(name, TCP_NAMES, &Alias::ALL).ok_or_else(|| unknown_tcp(name))
        })
    }
}

/// The error of a name that selects no TCP algorithm: it lists the names and aliases.
fn unknown_tcp(name: &str) -> String {
    let names: Vec<&str> =
        TCP_NAMES.iter().copied().chain(Alias::ALL.iter().map(|a| a.name())).collect();
    format!("unknown congestion control {name:?}: expected one of {}", names.join(", "))
}

impl CcConfig {
    /// The configuration `name` selects, with `params` overriding the defaults (or the
    /// preset's values).
    pub fn new(name: &CcName, params: Option<&Value>) -> Result<CcConfig, CcError> {
        match name.algorithm() {
            Algorithm::External(ext) => {
                let params = params.cloned().unwrap_or_else(|| Value::Object(Default::default()));
                if !params.is_object() {
                    return Err(CcError::Params(format!(
                        "expected a table of parameters, got {params}"
                    )));
                }
                Ok(CcConfig::External(external::ExternalCc { name: ext.clone(), params }))
            }
            Algorithm::Builtin(algorithm) => CcConfig::lookup(algorithm, name.preset(), params)
                .unwrap_or_else(|| Err(CcError::Name(unknown_tcp(&name.to_string())))),
        }
    }

    /// The configuration named `name` (`"cubic"` or `"cubic@preset"`), with `params` overriding
    /// the defaults (or the preset's values): [`CcName::tcp`] then [`CcConfig::new`].
    pub fn from_name(name: &str, params: Option<&Value>) -> Result<CcConfig, String> {
        let name = CcName::tcp(name)?;
        CcConfig::new(&name, params).map_err(CcError::into_message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sender_holds_at_most_64_bytes_of_any_algorithm() {
        // Larger states are boxed (`stored!`): every TCP sender holds an `AnyCc` inline.
        assert!(
            std::mem::size_of::<AnyCc>() <= 64,
            "AnyCc is {} bytes: box the variant that grew",
            std::mem::size_of::<AnyCc>()
        );
    }

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
    fn unknown_preset_is_rejected_with_the_algorithm_named() {
        let e = CcConfig::from_name("reno@linux-2.6.22", None).unwrap_err();
        assert!(e.contains("reno has no presets"), "{e}");
    }

    #[test]
    fn params_override_defaults_and_are_recorded() {
        let p = serde_json::json!({"beta": 0.7});
        let c = CcConfig::from_name("newreno", Some(&p)).unwrap();
        assert_eq!(c.params_json(), serde_json::json!({"beta": 0.7, "basis": "flight_size"}));
        assert!(tcp_algorithms().iter().any(|a| a.name == "reno" && a.params["beta"] == 0.5));
    }

    #[test]
    fn unknown_parameter_is_rejected() {
        let p = serde_json::json!({"betta": 0.5});
        let e = CcConfig::from_name("reno", Some(&p)).unwrap_err();
        assert!(e.contains("betta"), "{e}");
    }
}
