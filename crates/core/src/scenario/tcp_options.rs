//! A TCP group's options: the stack profile's defaults (`tcp/stack.rs`) with the group's own
//! keys on top, validated, and the congestion control they name.

use super::app_spec::AppSpec;
use super::flows::cc_params_error;
use super::raw::RawFlowGroup;
use super::units::Bytes;
use super::ScenarioError;
use crate::cc::CcConfig;
use crate::tcp::{Recovery, RtoRule, Stack};
use crate::time::Dur;
use serde::Serialize;
use serde_json::Value;

/// TCP options of a flow group (absent for other protocols). The normalised form records
/// every behaviour resolved: the stack profile's defaults with the group's own keys on top.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TcpOptions {
    /// The profile the defaults came from (`tcp/stack.rs`).
    pub stack: Stack,
    pub cc: String,
    pub cc_params: Value,
    #[serde(skip)]
    pub cc_config: CcConfig,
    pub recovery: Recovery,
    pub initial_cwnd: f64,
    /// Segments; `None` = unlimited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<f64>,
    pub min_rto: Dur,
    /// How the retransmission timeout follows SRTT and RTTVAR.
    pub rto: RtoRule,
    /// Retransmitting SND.UNA re-arms the timer (Linux); false = ns-2's one-way TCP.
    pub head_retransmit_rearms_rto: bool,
    /// Outside fast recovery, new data only below SND.UNA + window (ns-2); false = RFC 6675 pipe.
    pub window_from_una: bool,
    pub delayed_ack: bool,
    /// Restart from the initial window after an idle period longer than the RTO.
    pub slow_start_after_idle: bool,
    /// Bytes; `None` = unlimited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rwnd: Option<Bytes>,
    /// ECN-capable (RFC 3168): ECT on data, reduce once per window on ECN-Echo.
    pub ecn: bool,
    /// SQM-Response to ICMP Source Quench (seed 004 §3.3).
    pub source_quench: bool,
    /// Three-way handshake before data.
    pub handshake: bool,
    /// RFC 7323 timestamps.
    pub timestamps: bool,
    /// The receiver's quick-ACK mode.
    pub quickack: bool,
    /// RACK-TLP loss detection (RFC 8985).
    pub rack_tlp: bool,
    /// Proportional Rate Reduction (RFC 6937).
    pub prr: bool,
    /// Receive buffer, bytes; `None` = unlimited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rcv_buf: Option<Bytes>,
}

pub(super) fn parse_tcp_options(
    g: &RawFlowGroup,
    path: &str,
    app: &AppSpec,
    mss: Bytes,
) -> Result<TcpOptions, ScenarioError> {
    let stack = g.stack.unwrap_or_default();
    let profile = stack.config();
    let cc = g.cc.clone().unwrap_or_else(|| "reno".into());
    let cc_params = reno_basis_for(stack, &cc, g.cc_params.as_ref());
    let cc_config =
        CcConfig::from_name(&profile_cc_name(stack, &cc), cc_params.as_ref()).map_err(|msg| {
            if g.cc_params.is_some()
                && !msg.starts_with("unknown congestion control")
                && !msg.starts_with("unknown preset")
            {
                cc_params_error(path, msg)
            } else {
                ScenarioError::new(format!("{path}.cc"), msg)
            }
        })?;
    // `newreno` names Reno's window rule with RFC 6582 recovery.
    let recovery =
        g.recovery.unwrap_or(if cc == "newreno" { Recovery::NewReno } else { Recovery::Sack });
    if matches!(cc_config, CcConfig::Bbr(_)) && recovery != Recovery::Sack {
        // BBR's window and rate samples count what SACK reports delivered; this model has no
        // validated non-SACK path for it (docs/algorithms/bbr.md: Linux with SACK off measured).
        return Err(ScenarioError::new(
            format!("{path}.recovery"),
            format!(
                "{:?} is not supported with cc = \"bbr\": BBR needs recovery = \"sack\"",
                recovery.name()
            ),
        ));
    }
    let initial_cwnd = g.initial_cwnd.unwrap_or(profile.initial_cwnd);
    if !(1.0..=1e6).contains(&initial_cwnd) {
        return Err(ScenarioError::new(
            format!("{path}.initial_cwnd"),
            format!("{initial_cwnd} is out of range: expected 1..1000000 segments"),
        ));
    }
    if let Some(s) = g.initial_ssthresh {
        if !(2.0..=crate::cc::MAX_SEGMENTS).contains(&s) {
            return Err(ScenarioError::new(
                format!("{path}.initial_ssthresh"),
                format!(
                    "{s} is out of range: expected 2..1000000 segments (leave it out for no limit)"
                ),
            ));
        }
    }
    if let Some(b) = g.rcv_buf {
        // The window is half the buffer (receiver.rs): it must hold one segment.
        if b.0 < 2 * mss.0 {
            return Err(ScenarioError::new(
                format!("{path}.rcv_buf"),
                format!(
                    "{}B is smaller than two segments ({}B): the window is half the buffer",
                    b.0,
                    2 * mss.0
                ),
            ));
        }
    }
    if let Some(r) = g.rwnd {
        if r.0 < mss.0 {
            return Err(ScenarioError::new(
                format!("{path}.rwnd"),
                format!("{}B is smaller than one segment ({}B)", r.0, mss.0),
            ));
        }
    }
    if let Some(packet_size) = app.packet_size() {
        if packet_size.0 > mss.0 {
            return Err(ScenarioError::new(
                format!("{path}.app.packet_size"),
                format!(
                    "{}B exceeds the mss {}B: a TCP message must fit one segment",
                    packet_size.0, mss.0
                ),
            ));
        }
    }
    Ok(TcpOptions {
        cc,
        cc_params: cc_config.params_json(),
        cc_config,
        recovery,
        initial_cwnd,
        initial_ssthresh: g.initial_ssthresh,
        min_rto: g.min_rto.unwrap_or(Dur(profile.min_rto)),
        rto: g.rto.unwrap_or(profile.rto_rule),
        head_retransmit_rearms_rto: g
            .head_retransmit_rearms_rto
            .unwrap_or(profile.head_retransmit_rearms_rto),
        window_from_una: g.window_from_una.unwrap_or(profile.window_from_una),
        delayed_ack: g.delayed_ack.unwrap_or(profile.delayed_ack.is_some()),
        slow_start_after_idle: g.slow_start_after_idle.unwrap_or(profile.slow_start_after_idle),
        rwnd: g.rwnd,
        ecn: g.ecn.unwrap_or(profile.ecn),
        source_quench: g.source_quench.unwrap_or(profile.source_quench),
        handshake: g.handshake.unwrap_or(profile.handshake),
        timestamps: g.timestamps.unwrap_or(profile.timestamps),
        quickack: g.quickack.unwrap_or(profile.quickack),
        // Both need the SACK scoreboard; with another recovery variant they stay off.
        rack_tlp: g.rack_tlp.unwrap_or(profile.rack_tlp) && recovery == Recovery::Sack,
        prr: g.prr.unwrap_or(profile.prr) && recovery == Recovery::Sack,
        rcv_buf: g.rcv_buf.or((profile.rcv_buf != u64::MAX).then_some(Bytes(profile.rcv_buf))),
        stack,
    })
}

/// The preset a plain algorithm name means under a profile: the `linux` stack runs Linux's own
/// CUBIC (`cubic@linux-6`: its constants, whole segments and jiffies); the others, and any name
/// with a preset, stay as written. The recorded `cc` keeps the name the scenario gave.
fn profile_cc_name(stack: Stack, cc: &str) -> String {
    match (stack, cc) {
        (Stack::Linux, "cubic") => "cubic@linux-6".into(),
        _ => cc.into(),
    }
}

/// Reno's reduction follows the profile unless the group says otherwise: Linux halves cwnd
/// (`tcp_reno_ssthresh`), as ns-2 halves its window; Reno's own default is RFC 5681 eq. (4)'s
/// FlightSize.
fn reno_basis_for(stack: Stack, cc: &str, params: Option<&Value>) -> Option<Value> {
    if !matches!(cc, "reno" | "newreno") || stack == Stack::Rfc {
        return params.cloned();
    }
    match params {
        None => Some(serde_json::json!({ "basis": "cwnd" })),
        Some(Value::Object(m)) if !m.contains_key("basis") => {
            let mut m = m.clone();
            m.insert("basis".into(), Value::String("cwnd".into()));
            Some(Value::Object(m))
        }
        Some(other) => Some(other.clone()),
    }
}
