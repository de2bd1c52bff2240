//! A `[[flows]]` group's structure: what serde reads in the first step (see the module header of
//! `scenario`), with `deny_unknown_fields` so that a misspelt key names its path. Tagged tables
//! (`app`, `cc_params`, ...) stay JSON values here, read later with their path.

use super::units::{Bytes, Spread};
use super::Protocol;
use crate::tcp::{Recovery, RtoRule, Stack};
use crate::time::Dur;
use serde::Deserialize;
use serde_json::Value;

/// A `[[flows]]` table as written. A `[[background]]` fills in its TCP keys (`stack`, `cc`,
/// `cc_params`, `recovery`) to have its sources' options resolved as a group's are.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFlowGroup {
    pub(super) name: Option<String>,
    pub(super) count: Option<u32>,
    pub(super) protocol: Option<Protocol>,
    pub(super) cc: Option<String>,
    pub(super) cc_params: Option<Value>,
    pub(super) recovery: Option<Recovery>,
    pub(super) mss: Option<Bytes>,
    pub(super) start: Option<Spread>,
    pub(super) rtt: Option<Spread>,
    pub(super) app: Option<Value>,
    pub(super) initial_cwnd: Option<f64>,
    pub(super) initial_ssthresh: Option<f64>,
    pub(super) min_rto: Option<Dur>,
    pub(super) rto: Option<RtoRule>,
    pub(super) head_retransmit_rearms_rto: Option<bool>,
    pub(super) window_from_una: Option<bool>,
    pub(super) delayed_ack: Option<bool>,
    pub(super) slow_start_after_idle: Option<bool>,
    pub(super) stack: Option<Stack>,
    pub(super) handshake: Option<bool>,
    pub(super) timestamps: Option<bool>,
    pub(super) quickack: Option<bool>,
    pub(super) rack_tlp: Option<bool>,
    pub(super) prr: Option<bool>,
    pub(super) rcv_buf: Option<Bytes>,
    pub(super) stop: Option<Dur>,
    pub(super) rwnd: Option<Bytes>,
    pub(super) max_queue_delay: Option<Dur>,
    pub(super) src: Option<String>,
    pub(super) dst: Option<String>,
    pub(super) ecn: Option<bool>,
    pub(super) source_quench: Option<bool>,
    pub(super) path: Option<String>,
    pub(super) lan: Option<u32>,
}
