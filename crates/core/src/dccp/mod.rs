//! DCCP: unreliable, congestion-controlled datagrams (RFC 4340) with the congestion-control
//! profiles CCID 2 (TCP-like, RFC 4341), CCID 3 (TFRC, RFC 4342 with RFC 5348) and FAST-TFRC
//! (Froldi & da Fonseca, seed 002).
//!
//! ```text
//! client (DccpSender)                                   server (DccpReceiver)
//!   Request ───────────────────────────────────────────▶  RESPOND
//!   PARTOPEN ◀───────────────────────────────────────── Response (ack = Request)
//!   DataAck / Ack (first data one RTT after start) ───▶  OPEN
//!   Data, DataAck … never retransmitted ──────────────▶  CcidRx: Ack Vector | TFRC feedback
//!   CcidTx gate: Now | NotBefore(t) | AwaitFeedback ◀── Ack (+ options)
//!   Close (finite application, all data settled) ────▶  Reset
//! ```
//!
//! Every packet, acknowledgements included, takes the next sequence number (RFC 4340 §7.1);
//! data is never retransmitted. Congestion control follows the Linux CCID split: a
//! half-connection sender ([`CcidTx`]) decides when data may leave, a half-connection receiver
//! ([`CcidRx`]) decides what feedback to return (TFRC's loss event rate is computed there).
//!
//! | file                        | job                                              | source            |
//! |-----------------------------|--------------------------------------------------|-------------------|
//! | `header.rs`                 | packet types, options, sizes on the wire         | RFC 4340 §5, §11  |
//! | `ack_vector.rs`             | the receiver's Ack Vector and its inline copy    | RFC 4340 §11.4    |
//! | `sender.rs`                 | client: handshake, send buffer, gate, Close      | RFC 4340 §8       |
//! | `receiver.rs`               | server: Response, delivery, feedback, Reset      | RFC 4340 §8       |
//! | `ccid2.rs`                  | TCP-like window, Ack Vectors, Ack Ratio          | RFC 4341          |
//! | `ccid3/equation.rs`         | the TCP throughput equation                      | RFC 5348 §3.1     |
//! | `ccid3/loss_intervals.rs`   | loss-interval history, p                         | RFC 5348 §5       |
//! | `ccid3/sender.rs`           | TFRC rate control (and FAST-TFRC's rules)        | RFC 5348 §4       |
//! | `ccid3/receiver.rs`         | loss detection, loss events, feedback            | RFC 5348 §6, 4342 |
//! | `fast_tfrc.rs`              | FAST-TFRC parameters and rate rules              | seed 002 §III     |
//!
//! Not implemented / deviates (see each file for more):
//! - Feature negotiation is implicit: both ends know the CCID and its parameters from the
//!   scenario; no Change/Confirm options are exchanged except Change R(Ack Ratio), whose bytes
//!   are counted when the value changes. Service codes, Sync/SyncAck, CloseReq, checksums,
//!   sequence-window validity checks and ECN are not modelled.
//! - The server sends no application data (one-way flows, as in the seed papers).
//! - Initial sequence numbers are 0 on both sides (deterministic; no wrap at 2^48 in practice).

pub mod ack_vector;
pub mod ccid2;
pub mod ccid3;
pub mod fast_tfrc;
pub mod receiver;
pub mod sender;

#[cfg(test)]
mod testutil;

pub use crate::wire::dccp::{DccpHeader, DccpOptions, DccpType};
pub use receiver::DccpReceiver;
pub use sender::DccpSender;

use crate::cc::{resolve, AlgorithmInfo, CcError, CcName, CcParams};
use crate::time::{SimDuration, SimTime};
use crate::transport::Probe;
use serde_json::Value;

/// What the sender-side CCID says about sending a data packet now (the typed form of Linux's
/// `ccid_hc_tx_send_packet` return value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendDecision {
    /// Send it now.
    Now,
    /// Rate-based: the packet may leave at this instant.
    NotBefore(SimTime),
    /// Window-based: the window is full; wait for acknowledgements (or a timeout).
    AwaitFeedback,
}

/// A packet the connection is putting on the wire, as its CCID sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentPacket {
    pub seq: u64,
    /// Application payload bytes (0 for packets without data).
    pub len: u32,
    pub is_data: bool,
}

/// A packet from the peer that carries an acknowledgement, as the sender's CCID sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Feedback<'a> {
    /// The peer's sequence number for this packet.
    pub seq: u64,
    /// Its acknowledgement number (the greatest sequence number the peer has received).
    pub ack: u64,
    pub options: &'a DccpOptions,
}

/// A packet from the client, as the receiver's CCID sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxPacket {
    pub seq: u64,
    pub kind: DccpType,
    pub len: u32,
    pub ccval: u8,
    /// Ack Ratio the client asks for.
    pub ack_ratio: u16,
    /// The client's acknowledgement number, if the packet has one.
    pub ack: Option<u64>,
}

/// The sending half of a CCID (Linux `ccid_hc_tx_*`).
pub trait CcidTx {
    fn name(&self) -> &'static str;
    /// The handshake completed at `now`; `rtt` is the Request → Response round trip.
    fn on_established(&mut self, now: SimTime, rtt: SimDuration);
    /// May a data packet leave at `now`?
    fn send_decision(&mut self, now: SimTime) -> SendDecision;
    /// Data was waiting and the gate held it back at `now`.
    fn on_blocked(&mut self, _now: SimTime) {}
    /// A packet (data or not) leaves at `now`; returns the CCVal to put in its header.
    fn on_sent(&mut self, now: SimTime, pkt: &SentPacket) -> u8;
    /// An acknowledgement arrived from the receiver.
    fn on_feedback(&mut self, now: SimTime, fb: &Feedback);
    /// The CCID's earliest timer (RTO, nofeedback), if armed.
    fn poll_timeout(&self) -> Option<SimTime>;
    /// The deadline of `poll_timeout` has passed.
    fn handle_timeout(&mut self, now: SimTime);
    /// The fate of every data packet sent so far is known, or will not be learnt: the
    /// connection may close.
    fn settled(&self) -> bool;
    /// The Ack Ratio to ask of the receiver (CCID 2; RFC 4340 §11.3 default 2).
    fn ack_ratio(&self) -> u16 {
        2
    }
    /// Window or rate state for the recorder (`cwnd`, `ssthresh`, `srtt`, `rate_bps`).
    fn probe(&self) -> Probe;
}

/// The receiving half of a CCID (Linux `ccid_hc_rx_*`).
pub trait CcidRx {
    /// A packet from the client arrived at `now`; true if feedback must be sent now.
    fn on_packet(&mut self, now: SimTime, pkt: &RxPacket) -> bool;
    /// Options of a feedback packet leaving now with our sequence number `seq`.
    fn feedback(&mut self, now: SimTime, seq: u64) -> DccpOptions;
    fn poll_timeout(&self) -> Option<SimTime> {
        None
    }
    /// The deadline of `poll_timeout` has passed; true if feedback must be sent now.
    fn handle_timeout(&mut self, _now: SimTime) -> bool {
        false
    }
}

/// A CCID and its parameter values, as resolved from a scenario.
#[derive(Clone, Debug, PartialEq)]
pub enum CcidConfig {
    Ccid2(ccid2::Ccid2Config),
    Ccid3(ccid3::Ccid3Config),
    FastTfrc(fast_tfrc::FastTfrcConfig),
}

/// The sending half, chosen at run time (closed set: static dispatch).
pub enum AnyCcidTx {
    Ccid2(Box<ccid2::Ccid2Tx>),
    Tfrc(Box<ccid3::sender::TfrcTx>),
}

/// The receiving half.
pub enum AnyCcidRx {
    Ccid2(Box<ccid2::Ccid2Rx>),
    Tfrc(Box<ccid3::receiver::TfrcRx>),
}

impl AnyCcidTx {
    pub fn inner(&self) -> &dyn CcidTx {
        match self {
            AnyCcidTx::Ccid2(c) => c.as_ref(),
            AnyCcidTx::Tfrc(c) => c.as_ref(),
        }
    }
    pub fn inner_mut(&mut self) -> &mut dyn CcidTx {
        match self {
            AnyCcidTx::Ccid2(c) => c.as_mut(),
            AnyCcidTx::Tfrc(c) => c.as_mut(),
        }
    }
}

impl AnyCcidRx {
    pub fn inner_mut(&mut self) -> &mut dyn CcidRx {
        match self {
            AnyCcidRx::Ccid2(c) => c.as_mut(),
            AnyCcidRx::Tfrc(c) => c.as_mut(),
        }
    }
    pub fn inner(&self) -> &dyn CcidRx {
        match self {
            AnyCcidRx::Ccid2(c) => c.as_ref(),
            AnyCcidRx::Tfrc(c) => c.as_ref(),
        }
    }
    /// CCID 2 receiver state (Ack Vector), for measurements.
    pub fn ccid2(&self) -> Option<&ccid2::Ccid2Rx> {
        match self {
            AnyCcidRx::Ccid2(r) => Some(r),
            AnyCcidRx::Tfrc(_) => None,
        }
    }
    /// TFRC receiver state (loss events, p), for measurements.
    pub fn tfrc(&self) -> Option<&ccid3::receiver::TfrcRx> {
        match self {
            AnyCcidRx::Tfrc(r) => Some(r),
            AnyCcidRx::Ccid2(_) => None,
        }
    }
}

/// The built-in CCIDs: `(name, description)`.
const CCIDS: &[(&str, &str)] = &[
    ("ccid2", "TCP-like: AIMD window in packets, Ack Vectors, Ack Ratio (RFC 4341)"),
    ("ccid3", "TFRC: rate from the TCP throughput equation, receiver-computed loss event rate (RFC 4342, RFC 5348)"),
    ("fast_tfrc", "FAST-TFRC: TFRC with delay-driven multiplicative increase and max() updates (Froldi & da Fonseca)"),
];

/// The names of the CCIDs, in listing order.
const CCID_NAMES: [&str; 3] = [CCIDS[0].0, CCIDS[1].0, CCIDS[2].0];

impl CcName {
    /// A DCCP congestion control's name: a CCID, with an optional preset (`"ccid2@preset"`).
    pub fn dccp(name: &str) -> Result<CcName, String> {
        CcName::builtin(name, &CCID_NAMES, &[]).ok_or_else(|| unknown_ccid(name))
    }
}

/// The error of a name that selects no CCID: it lists the CCIDs.
fn unknown_ccid(name: &str) -> String {
    format!("unknown DCCP congestion control {name:?}: expected one of {}", CCID_NAMES.join(", "))
}

impl CcidConfig {
    /// The configuration `name` selects (a [`CcName::dccp`]), with `params` overriding the
    /// defaults (or the preset's values).
    pub fn new(name: &CcName, params: Option<&Value>) -> Result<CcidConfig, CcError> {
        let preset = name.preset();
        match name.builtin_algorithm() {
            Some(ccid @ "ccid2") => resolve(ccid, preset, params).map(CcidConfig::Ccid2),
            Some(ccid @ "ccid3") => resolve(ccid, preset, params).map(CcidConfig::Ccid3),
            Some(ccid @ "fast_tfrc") => resolve(ccid, preset, params).map(CcidConfig::FastTfrc),
            _ => Err(CcError::Name(unknown_ccid(&name.to_string()))),
        }
    }

    /// The configuration named `name` (`"ccid2"` or `"ccid2@preset"`) with `params` overriding
    /// the defaults: [`CcName::dccp`] then [`CcidConfig::new`].
    pub fn from_name(name: &str, params: Option<&Value>) -> Result<CcidConfig, String> {
        let name = CcName::dccp(name)?;
        CcidConfig::new(&name, params).map_err(CcError::into_message)
    }

    /// The parameter values in effect.
    pub fn params_json(&self) -> Value {
        match self {
            CcidConfig::Ccid2(c) => serde_json::to_value(c),
            CcidConfig::Ccid3(c) => serde_json::to_value(c),
            CcidConfig::FastTfrc(c) => serde_json::to_value(c),
        }
        .expect("parameters serialise")
    }

    /// Checks values serde cannot (ranges); the message names the parameter.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            CcidConfig::Ccid2(c) => c.validate(),
            CcidConfig::Ccid3(c) => c.validate(),
            CcidConfig::FastTfrc(c) => c.validate(),
        }
    }

    /// Both halves, for application packets of `s` payload bytes.
    pub fn build(&self, s: u32) -> (AnyCcidTx, AnyCcidRx) {
        match self {
            CcidConfig::Ccid2(c) => (
                AnyCcidTx::Ccid2(Box::new(ccid2::Ccid2Tx::new(c.clone(), s))),
                AnyCcidRx::Ccid2(Box::new(ccid2::Ccid2Rx::new(c))),
            ),
            CcidConfig::Ccid3(c) => (
                AnyCcidTx::Tfrc(Box::new(ccid3::sender::TfrcTx::new(
                    c.clone(),
                    ccid3::sender::Variant::Standard,
                    s,
                ))),
                AnyCcidRx::Tfrc(Box::new(ccid3::receiver::TfrcRx::new(c))),
            ),
            CcidConfig::FastTfrc(c) => (
                AnyCcidTx::Tfrc(Box::new(ccid3::sender::TfrcTx::new(
                    c.tfrc(),
                    ccid3::sender::Variant::Fast(c.fast()),
                    s,
                ))),
                AnyCcidRx::Tfrc(Box::new(ccid3::receiver::TfrcRx::new(&c.tfrc()))),
            ),
        }
    }
}

fn info<P: CcParams>(name: &'static str, description: &'static str) -> AlgorithmInfo {
    AlgorithmInfo {
        name,
        description,
        params: serde_json::to_value(P::default()).expect("parameters serialise"),
        presets: P::PRESETS.to_vec(),
    }
}

/// Every built-in DCCP congestion control, in listing order (for `ccarena algorithms`).
pub fn dccp_algorithms() -> Vec<AlgorithmInfo> {
    vec![
        info::<ccid2::Ccid2Config>(CCIDS[0].0, CCIDS[0].1),
        info::<ccid3::Ccid3Config>(CCIDS[1].0, CCIDS[1].1),
        info::<fast_tfrc::FastTfrcConfig>(CCIDS[2].0, CCIDS[2].1),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_with_parameters_and_errors_name_the_parameter() {
        let c = CcidConfig::from_name("ccid2", Some(&serde_json::json!({"ack_ratio": 3}))).unwrap();
        assert_eq!(c.params_json()["ack_ratio"], 3);
        let e = CcidConfig::from_name("ccid3", Some(&serde_json::json!({"loss_histroy": 4})))
            .unwrap_err();
        assert!(e.contains("loss_histroy"), "{e}");
        let e = CcidConfig::from_name("ccid4", None).unwrap_err();
        assert!(e.contains("\"ccid4\"") && e.contains("ccid2, ccid3, fast_tfrc"), "{e}");
        let bad =
            CcidConfig::from_name("ccid2", Some(&serde_json::json!({"ack_ratio": 0}))).unwrap();
        assert!(bad.validate().unwrap_err().contains("ack_ratio"));
    }

    #[test]
    fn listing_has_the_three_ccids_with_their_defaults() {
        let list = dccp_algorithms();
        let names: Vec<_> = list.iter().map(|a| a.name).collect();
        assert_eq!(names, ["ccid2", "ccid3", "fast_tfrc"]);
        assert_eq!(list[0].params["numdupack"], 3);
        assert_eq!(list[1].params["loss_history"], 8);
        assert_eq!(list[2].params["t_mbi_s"], 64.0);
    }
}
