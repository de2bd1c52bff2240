//! Flow groups (`[[flows]]`): a raw group read into a validated [`FlowGroup`], with its
//! protocol's options (TCP in `tcp_options.rs`, DCCP here).

use super::app_spec::{parse_app, AppSpec};
use super::raw::RawFlowGroup;
use super::tcp_options::{Profile, TcpOptions};
use super::units::{Bytes, Spread};
use super::{limits, Protocol, ScenarioError};
use crate::cc::CcName;
use crate::dccp::CcidConfig;
use crate::time::Dur;
use serde::Serialize;
use serde_json::Value;

/// DCCP options of a flow group (absent for other protocols).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DccpGroupOptions {
    /// `ccid2`, `ccid3` or `fast_tfrc`.
    pub cc: CcName,
    pub cc_params: Value,
    #[serde(skip)]
    pub ccid: CcidConfig,
    /// Application messages waiting longer than this in the send buffer are discarded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_queue_delay: Option<Dur>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowGroup {
    pub name: String,
    pub count: u32,
    pub protocol: Protocol,
    /// TCP options, written inline in the group (as in the file).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpOptions>,
    /// DCCP options, written inline in the group.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub dccp: Option<DccpGroupOptions>,
    /// Payload bytes of a full segment or datagram (a TCP group's `tcp.config.mss` too).
    pub mss: Bytes,
    pub start: Spread,
    /// The flows stop sending at this time (any protocol); `None` = at the end of the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<Dur>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt: Option<Spread>,
    pub app: AppSpec,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub src: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dst: Option<String>,
    /// Parking lot: the hops the group crosses (`"all"`, `"hop:N"`, `"hops:A-B"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// LAN ring: the senders' LAN (1-based); `None` spreads them round-robin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lan: Option<u32>,
    /// Each flow keeps a histogram of its delays, for its percentiles: always for `[[flows]]`,
    /// for background sources when their `[[background]]` asks (`delay_quantiles`).
    #[serde(skip)]
    pub delay_quantiles: bool,
}

pub(super) fn parse_group(
    g: RawFlowGroup,
    path: &str,
    is_graph: bool,
) -> Result<FlowGroup, ScenarioError> {
    let protocol = g.protocol.unwrap_or(Protocol::Tcp);
    let count = g.count.unwrap_or(1);
    if !(1..=limits::MAX_FLOWS).contains(&u64::from(count)) {
        return Err(ScenarioError::new(
            format!("{path}.count"),
            format!("{count} is out of range: expected 1..{}", limits::MAX_FLOWS),
        ));
    }
    // A TCP group's defaults: its stack's profile, looked up once.
    let profile = (protocol == Protocol::Tcp).then(|| Profile::of(g.stack));
    // TCP's default payload keeps 1500-byte packets with the profile's options.
    let default_mss = profile.as_ref().map_or(1460, |p| u64::from(p.defaults.mss));
    let mss = g.mss.unwrap_or(Bytes(default_mss));
    if !(1..=65_000).contains(&mss.0) {
        return Err(ScenarioError::new(
            format!("{path}.mss"),
            format!("{}B is out of range: expected 1B..65000B", mss.0),
        ));
    }
    let app = match &g.app {
        Some(v) => parse_app(v, &format!("{path}.app"))?,
        None => AppSpec::Bulk,
    };
    if is_graph && g.rtt.is_some() {
        return Err(ScenarioError::new(format!("{path}.rtt"), "is not available on a graph: the path's links set the RTT (dumbbell, parking_lot and lan_ring flows have their own host links)"));
    }
    if !is_graph {
        for (key, v) in [("src", &g.src), ("dst", &g.dst)] {
            if v.is_some() {
                return Err(ScenarioError::new(format!("{path}.{key}"), "is only for graph topologies: a dumbbell gives each flow its own sender and receiver"));
            }
        }
    }
    if let Some(stop) = g.stop {
        let latest_start = match g.start {
            Some(Spread::Fixed(d)) => d.0,
            Some(Spread::Uniform(_, hi)) => hi.0,
            None => crate::time::SimDuration::ZERO,
        };
        if stop.0 <= latest_start {
            return Err(ScenarioError::new(
                format!("{path}.stop"),
                format!(
                    "{} is not after the start ({}): a flow stops after it starts",
                    stop.0, latest_start
                ),
            ));
        }
    }
    if protocol != Protocol::Dccp && g.max_queue_delay.is_some() {
        return Err(ScenarioError::new(
            format!("{path}.max_queue_delay"),
            format!("is a DCCP option: this group has protocol = \"{}\"", protocol.as_str()),
        ));
    }
    let tcp = profile.map(|p| TcpOptions::parse(&g, path, &app, mss, p)).transpose()?;
    let dccp = match protocol {
        Protocol::Tcp => None,
        Protocol::Dccp => Some(parse_dccp_options(&g, path, &app, mss)?),
        Protocol::Udp => {
            let cc_keys = [("cc", g.cc.is_some()), ("cc_params", g.cc_params.is_some())];
            if let Some((key, _)) =
                cc_keys.into_iter().chain(tcp_only_keys(&g)).find(|(_, set)| *set)
            {
                return Err(ScenarioError::new(
                    format!("{path}.{key}"),
                    "is a TCP option: this group has protocol = \"udp\"",
                ));
            }
            if !matches!(app, AppSpec::Cbr { .. } | AppSpec::OnOff { .. }) {
                return Err(ScenarioError::new(
                    format!("{path}.app"),
                    "udp flows need an app that paces itself: kind = \"cbr\" or \"onoff\"",
                ));
            }
            None
        }
    };
    let name = g.name.unwrap_or_else(|| match (&tcp, &dccp) {
        (Some(t), _) => t.cc.to_string(),
        (None, Some(d)) => d.cc.to_string(),
        (None, None) => protocol.as_str().to_string(),
    });
    Ok(FlowGroup {
        name,
        count,
        protocol,
        tcp,
        dccp,
        mss,
        start: g.start.unwrap_or(Spread::Fixed(Dur(crate::time::SimDuration::ZERO))),
        stop: g.stop,
        rtt: g.rtt,
        app,
        src: g.src,
        dst: g.dst,
        path: g.path,
        lan: g.lan,
        delay_quantiles: true,
    })
}

/// The keys only TCP groups accept, each with whether this group sets it.
pub(super) fn tcp_only_keys(g: &RawFlowGroup) -> [(&'static str, bool); 19] {
    [
        ("stack", g.stack.is_some()),
        ("handshake", g.handshake.is_some()),
        ("timestamps", g.timestamps.is_some()),
        ("quickack", g.quickack.is_some()),
        ("rack_tlp", g.rack_tlp.is_some()),
        ("prr", g.prr.is_some()),
        ("rcv_buf", g.rcv_buf.is_some()),
        ("recovery", g.recovery.is_some()),
        ("initial_cwnd", g.initial_cwnd.is_some()),
        ("initial_ssthresh", g.initial_ssthresh.is_some()),
        ("min_rto", g.min_rto.is_some()),
        ("rto", g.rto.is_some()),
        ("head_retransmit_rearms_rto", g.head_retransmit_rearms_rto.is_some()),
        ("window_from_una", g.window_from_una.is_some()),
        ("delayed_ack", g.delayed_ack.is_some()),
        ("rwnd", g.rwnd.is_some()),
        ("ecn", g.ecn.is_some()),
        ("source_quench", g.source_quench.is_some()),
        ("slow_start_after_idle", g.slow_start_after_idle.is_some()),
    ]
}

fn parse_dccp_options(
    g: &RawFlowGroup,
    path: &str,
    app: &AppSpec,
    mss: Bytes,
) -> Result<DccpGroupOptions, ScenarioError> {
    if let Some((key, _)) = tcp_only_keys(g).into_iter().find(|(_, set)| *set) {
        return Err(ScenarioError::new(
            format!("{path}.{key}"),
            "is a TCP option: this group has protocol = \"dccp\" (CCID parameters go in cc_params)",
        ));
    }
    let cc = CcName::dccp(g.cc.as_deref().unwrap_or("ccid2"))
        .map_err(|msg| ScenarioError::new(format!("{path}.cc"), msg))?;
    let ccid = CcidConfig::new(&cc, g.cc_params.as_ref())
        .map_err(|e| ScenarioError::in_cc(path, e, g.cc_params.is_some()))?;
    // "field: what is wrong" becomes an error at cc_params.field.
    let params_error = |msg: String| ScenarioError::in_cc_params(path, msg);
    ccid.validate().map_err(params_error)?;
    if let Some(d) = g.max_queue_delay {
        if d.0.as_nanos() == 0 {
            return Err(ScenarioError::new(
                format!("{path}.max_queue_delay"),
                "must be longer than 0s (leave it out to never discard)",
            ));
        }
    }
    if let Some(packet_size) = app.packet_size() {
        if packet_size.0 > mss.0 {
            return Err(ScenarioError::new(
                format!("{path}.app.packet_size"),
                format!(
                    "{}B exceeds the mss {}B: a DCCP datagram must fit one packet",
                    packet_size.0, mss.0
                ),
            ));
        }
    }
    Ok(DccpGroupOptions {
        cc,
        cc_params: ccid.params_json(),
        ccid,
        max_queue_delay: g.max_queue_delay,
    })
}
