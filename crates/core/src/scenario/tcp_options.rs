//! A TCP group's options, resolved once when the scenario is read: the stack profile's defaults
//! (`tcp/stack.rs`) with the group's own keys on top, validated, and the congestion control they
//! name. Both ends of each connection run the resolved [`TcpConfig`] as it is.

use super::app_spec::AppSpec;
use super::raw::RawFlowGroup;
use super::units::Bytes;
use super::ScenarioError;
use crate::cc::{Alias, CcConfig, CcName};
use crate::tcp::{EcnFeedback, Recovery, RtoRule, Stack, TcpConfig};
use crate::time::Dur;
use serde::{Serialize, Serializer};
use serde_json::Value;
use std::borrow::Cow;

/// A TCP group's stack and that stack's profile, the default of every option.
pub(super) struct Profile {
    pub(super) stack: Stack,
    pub(super) defaults: TcpConfig,
}

impl Profile {
    /// The profile of `stack`; Linux's when neither the group nor the scenario names one.
    pub(super) fn of(stack: Option<Stack>) -> Profile {
        let stack = stack.unwrap_or_default();
        Profile { stack, defaults: stack.config() }
    }
}

/// TCP options of a flow group (absent for other protocols). The normalised form records every
/// behaviour resolved (see [`TcpKeys`]).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpOptions {
    /// The profile the defaults came from (`tcp/stack.rs`).
    pub stack: Stack,
    /// The congestion control as the group names it (the stack's default preset not applied).
    pub cc: CcName,
    pub cc_params: Value,
    pub cc_config: CcConfig,
    /// The receive window as written; `config.rwnd` counts it in whole segments.
    pub rwnd: Option<Bytes>,
    /// Every parameter of the group's connections, segment size included.
    pub config: TcpConfig,
}

/// The normalised form of a group's TCP options: the scenario keys, as a scenario writes them.
#[derive(Serialize)]
struct TcpKeys<'a> {
    stack: Stack,
    cc: &'a CcName,
    cc_params: &'a Value,
    recovery: Recovery,
    initial_cwnd: f64,
    /// Segments; `None` = unlimited.
    #[serde(skip_serializing_if = "Option::is_none")]
    initial_ssthresh: Option<f64>,
    min_rto: Dur,
    /// How the retransmission timeout follows SRTT and RTTVAR.
    rto: RtoRule,
    /// Retransmitting SND.UNA re-arms the timer (Linux); false = ns-2's one-way TCP.
    head_retransmit_rearms_rto: bool,
    /// Outside fast recovery, new data only below SND.UNA + window (ns-2); false = RFC 6675 pipe.
    window_from_una: bool,
    delayed_ack: bool,
    /// Restart from the initial window after an idle period longer than the RTO.
    slow_start_after_idle: bool,
    /// Bytes; `None` = unlimited.
    #[serde(skip_serializing_if = "Option::is_none")]
    rwnd: Option<Bytes>,
    /// ECN-capable (RFC 3168): ECT on data, reduce once per window on ECN-Echo.
    ecn: bool,
    /// SQM-Response to ICMP Source Quench (seed 004 §3.3).
    source_quench: bool,
    /// Three-way handshake before data.
    handshake: bool,
    /// RFC 7323 timestamps.
    timestamps: bool,
    /// The receiver's quick-ACK mode.
    quickack: bool,
    /// RACK-TLP loss detection (RFC 8985).
    rack_tlp: bool,
    /// Proportional Rate Reduction (RFC 6937).
    prr: bool,
    /// Receive buffer, bytes; `None` = unlimited.
    #[serde(skip_serializing_if = "Option::is_none")]
    rcv_buf: Option<Bytes>,
}

impl Serialize for TcpOptions {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let c = &self.config;
        TcpKeys {
            stack: self.stack,
            cc: &self.cc,
            cc_params: &self.cc_params,
            recovery: c.recovery,
            initial_cwnd: c.initial_cwnd,
            initial_ssthresh: c.initial_ssthresh.is_finite().then_some(c.initial_ssthresh),
            min_rto: Dur(c.min_rto),
            rto: c.rto_rule,
            head_retransmit_rearms_rto: c.head_retransmit_rearms_rto,
            window_from_una: c.window_from_una,
            delayed_ack: c.delayed_ack.is_some(),
            slow_start_after_idle: c.slow_start_after_idle,
            rwnd: self.rwnd,
            ecn: c.ecn,
            source_quench: c.source_quench,
            handshake: c.handshake,
            timestamps: c.timestamps,
            quickack: c.quickack,
            rack_tlp: c.rack_tlp,
            prr: c.prr,
            rcv_buf: (c.rcv_buf != u64::MAX).then_some(Bytes(c.rcv_buf)),
        }
        .serialize(s)
    }
}

impl TcpOptions {
    /// Reads the TCP options of group `g` (at `path`), whose segments carry `mss` bytes, over
    /// `profile`: the congestion control, then every option resolved and the keys checked.
    pub(super) fn parse(
        g: &RawFlowGroup,
        path: &str,
        app: &AppSpec,
        mss: Bytes,
        profile: Profile,
    ) -> Result<TcpOptions, ScenarioError> {
        let stack = profile.stack;
        let cc = CcName::tcp(g.cc.as_deref().unwrap_or("reno"))
            .map_err(|msg| ScenarioError::new(format!("{path}.cc"), msg))?;
        let cc_params = reno_basis_for(stack, &cc, g.cc_params.as_ref());
        let cc_config = CcConfig::new(&profile_cc_name(stack, &cc), cc_params.as_ref())
            .map_err(|e| ScenarioError::in_cc(path, e, g.cc_params.is_some()))?;
        // `newreno` names Reno's window rule with RFC 6582 recovery.
        let recovery = g.recovery.unwrap_or(if cc.alias() == Some(Alias::NewReno) {
            Recovery::NewReno
        } else {
            Recovery::Sack
        });
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
        let mut config = resolve(g, mss, recovery, profile);
        require_what_the_algorithm_reads(&cc_config, g, path, &mut config)?;
        check(g, &config, path, app)?;
        Ok(TcpOptions {
            stack,
            cc,
            cc_params: cc_config.params_json(),
            cc_config,
            rwnd: g.rwnd,
            config,
        })
    }
}

/// The one place a group's TCP configuration is made: `profile`'s defaults with the keys `g`
/// sets on top.
fn resolve(g: &RawFlowGroup, mss: Bytes, recovery: Recovery, profile: Profile) -> TcpConfig {
    let Profile { stack, defaults } = profile;
    TcpConfig {
        mss: mss.0 as u32,
        initial_cwnd: g.initial_cwnd.unwrap_or(defaults.initial_cwnd),
        initial_ssthresh: g.initial_ssthresh.unwrap_or(defaults.initial_ssthresh),
        min_rto: g.min_rto.map_or(defaults.min_rto, |d| d.0),
        rto_rule: g.rto.unwrap_or(defaults.rto_rule),
        recovery,
        delayed_ack: g
            .delayed_ack
            .unwrap_or(defaults.delayed_ack.is_some())
            .then(|| stack.delayed_ack()),
        rwnd: g.rwnd.map_or(defaults.rwnd, |b| b.0 / mss.0),
        ecn: g.ecn.unwrap_or(defaults.ecn),
        source_quench: g.source_quench.unwrap_or(defaults.source_quench),
        head_retransmit_rearms_rto: g
            .head_retransmit_rearms_rto
            .unwrap_or(defaults.head_retransmit_rearms_rto),
        slow_start_after_idle: g.slow_start_after_idle.unwrap_or(defaults.slow_start_after_idle),
        handshake: g.handshake.unwrap_or(defaults.handshake),
        timestamps: g.timestamps.unwrap_or(defaults.timestamps),
        quickack: g.quickack.unwrap_or(defaults.quickack),
        // Both need the SACK scoreboard; with another recovery variant they stay off.
        rack_tlp: g.rack_tlp.unwrap_or(defaults.rack_tlp) && recovery == Recovery::Sack,
        prr: g.prr.unwrap_or(defaults.prr) && recovery == Recovery::Sack,
        rcv_buf: g.rcv_buf.map_or(defaults.rcv_buf, |b| b.0),
        window_from_una: g.window_from_una.unwrap_or(defaults.window_from_una),
        // The profile's own: timer bounds, dupthresh and the ECN details.
        ..defaults
    }
}

/// Switches on what an algorithm cannot work without, refusing the group's key that turns it
/// off: DCTCP reads the fraction of ECN-marked segments (RFC 8257), its receiver echoing each
/// segment's mark (§3.2); LEDBAT and TCP-LP read the one-way delay from timestamps (RFC 6817
/// §3.1, Linux `tcp_lp.c`).
fn require_what_the_algorithm_reads(
    cc: &CcConfig,
    g: &RawFlowGroup,
    path: &str,
    config: &mut TcpConfig,
) -> Result<(), ScenarioError> {
    let (key, off, why) = match cc {
        CcConfig::Dctcp(_) => {
            config.ecn = true;
            config.ecn_feedback = EcnFeedback::Dctcp;
            (
                "ecn",
                g.ecn == Some(false),
                "dctcp\": DCTCP reads the fraction of ECN-marked segments (RFC 8257)",
            )
        }
        CcConfig::Ledbat(_) => {
            config.timestamps = true;
            (
                "timestamps",
                g.timestamps == Some(false),
                "ledbat\": LEDBAT measures the one-way delay from timestamps (RFC 6817)",
            )
        }
        CcConfig::Lp(_) => {
            config.timestamps = true;
            (
                "timestamps",
                g.timestamps == Some(false),
                "lp\": TCP-LP measures the one-way delay from timestamps (Linux tcp_lp.c)",
            )
        }
        _ => return Ok(()),
    };
    if off {
        return Err(ScenarioError::new(
            format!("{path}.{key}"),
            format!("false is not possible with cc = \"{why}; leave {key} out"),
        ));
    }
    Ok(())
}

/// Refuses the resolved initial window and the sizes `g` sets when out of range, or too small
/// for the group's segments (`config.mss`).
fn check(
    g: &RawFlowGroup,
    config: &TcpConfig,
    path: &str,
    app: &AppSpec,
) -> Result<(), ScenarioError> {
    let initial_cwnd = config.initial_cwnd;
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
    let mss = u64::from(config.mss);
    if let Some(b) = g.rcv_buf {
        // The window is half the buffer (receiver.rs): it must hold one segment.
        if b.0 < 2 * mss {
            return Err(ScenarioError::new(
                format!("{path}.rcv_buf"),
                format!(
                    "{}B is smaller than two segments ({}B): the window is half the buffer",
                    b.0,
                    2 * mss
                ),
            ));
        }
    }
    if let Some(r) = g.rwnd {
        if r.0 < mss {
            return Err(ScenarioError::new(
                format!("{path}.rwnd"),
                format!("{}B is smaller than one segment ({mss}B)", r.0),
            ));
        }
    }
    if let Some(packet_size) = app.packet_size() {
        if packet_size.0 > mss {
            return Err(ScenarioError::new(
                format!("{path}.app.packet_size"),
                format!(
                    "{}B exceeds the mss {mss}B: a TCP message must fit one segment",
                    packet_size.0
                ),
            ));
        }
    }
    Ok(())
}

/// The preset a plain algorithm name means under a profile: the `linux` stack runs Linux's own
/// CUBIC (`cubic@linux-6`: its constants, whole segments and jiffies); the others, and any name
/// with a preset, stay as written. The recorded `cc` keeps the name the scenario gave.
fn profile_cc_name(stack: Stack, cc: &CcName) -> Cow<'_, CcName> {
    if stack == Stack::Linux && cc.builtin_algorithm() == Some("cubic") && cc.preset().is_none() {
        Cow::Owned(cc.with_preset("linux-6"))
    } else {
        Cow::Borrowed(cc)
    }
}

/// Reno's reduction follows the profile unless the group says otherwise: Linux halves cwnd
/// (`tcp_reno_ssthresh`), as ns-2 halves its window; Reno's own default is RFC 5681 eq. (4)'s
/// FlightSize. `newreno` is Reno's window rule, so the same.
fn reno_basis_for(stack: Stack, cc: &CcName, params: Option<&Value>) -> Option<Value> {
    if cc.builtin_algorithm() != Some("reno") || stack == Stack::Rfc {
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

#[cfg(test)]
mod tests {
    use crate::scenario::Scenario;

    fn group(keys: &str) -> Result<Scenario, String> {
        let text = format!(
            "duration = \"1s\"\n[topology]\nkind = \"dumbbell\"\nbottleneck_rate = \"10Mbps\"\n\
             bottleneck_delay = \"10ms\"\n[[flows]]\n{keys}\n"
        );
        Scenario::from_toml(&text).map_err(|e| e.to_string())
    }

    #[test]
    fn newreno_is_reno_with_rfc_6582_recovery_and_keeps_its_name() {
        let s = group("cc = \"newreno\"").unwrap();
        let f = &s.normalised()["flows"][0];
        assert_eq!((f["cc"].as_str(), f["recovery"].as_str()), (Some("newreno"), Some("newreno")));
        assert_eq!(f["cc_params"]["basis"], "cwnd");
        let s = group("cc = \"newreno\"\nrecovery = \"sack\"").unwrap();
        assert_eq!(s.normalised()["flows"][0]["recovery"], "sack");
    }

    #[test]
    fn the_linux_stack_runs_linux_cubic_and_records_the_name_as_written() {
        let linux = group("cc = \"cubic\"").unwrap().normalised();
        assert_eq!(linux["flows"][0]["cc"], "cubic");
        assert_eq!(linux["flows"][0]["cc_params"]["arithmetic"], "linux");
        let rfc = group("cc = \"cubic\"\nstack = \"rfc\"").unwrap().normalised();
        assert_eq!(rfc["flows"][0]["cc_params"]["arithmetic"], "real");
    }

    #[test]
    fn a_wrong_name_is_an_error_at_cc_and_wrong_parameters_at_cc_params() {
        let e = group("cc = \"reno@x\"\ncc_params = { beta = 0.7 }").unwrap_err();
        assert!(e.starts_with("flows[0].cc: unknown preset \"x\": reno has no presets"), "{e}");
        let e = group("cc = \"py:\"\ncc_params = { a = 1 }").unwrap_err();
        assert!(e.starts_with("flows[0].cc: \"py:\" names no algorithm"), "{e}");
        let e = group("protocol = \"dccp\"\ncc = \"ccid2@x\"\ncc_params = { ack_ratio = 2 }")
            .unwrap_err();
        assert!(e.starts_with("flows[0].cc: unknown preset \"x\" of ccid2"), "{e}");
        let e = group("cc = \"cubic\"\ncc_params = { beta = 1.5 }").unwrap_err();
        assert!(e.starts_with("flows[0].cc_params.beta:"), "{e}");
    }
}
