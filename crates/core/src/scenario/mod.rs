//! Scenarios: the schema of `SCENARIO.md`, its validation, and the normalised form.
//!
//! Parsing happens in two steps so that every error names the path of the offending field:
//! serde (with `deny_unknown_fields`, through `serde_path_to_error`) reads the file's structure;
//! then the tagged parts (`topology`, `queue`, `loss`, `app`, `cc_params`) are read one by one
//! with their path as prefix, and cross-field rules are checked.

pub mod app_spec;
pub mod background;
pub mod build;
pub mod jitter;
pub mod limits;
pub mod queue;
pub mod topology;
pub mod units;

use crate::cc::CcConfig;
use crate::dccp::CcidConfig;
use crate::net::queue::QueueLimit;
use crate::scenario::topology::{LanRing, ParkingLot};
use crate::tcp::{Recovery, RtoRule, Stack};
use app_spec::{FtpParams, WebParams};
use background::Background;
pub use queue::QueueSpec;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;
mod messages;
use crate::time::Dur;
use queue::parse_queue;
use units::{Bytes, RateQ, Spread};

/// An invalid scenario: which field, and what is wrong with it (one line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
}

impl ScenarioError {
    /// The error at `path`; long echoed values in either are cut (see `limits::shorten_message`).
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            path: limits::shorten_message(&path.into()),
            message: limits::shorten_message(&message.into()),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// Joins a prefix and serde_path_to_error's path ("." means the root).
fn join(prefix: &str, rest: &str) -> String {
    match (prefix.is_empty(), rest == "." || rest.is_empty()) {
        (true, _) => rest.to_string(),
        (false, true) => prefix.to_string(),
        (false, false) if rest.starts_with('[') => format!("{prefix}{rest}"),
        (false, false) => format!("{prefix}.{rest}"),
    }
}

/// Deserialises `v` as `T`, reporting errors at `prefix` + the path inside `v`.
pub(crate) fn parse_at<T: DeserializeOwned>(v: &Value, prefix: &str) -> Result<T, ScenarioError> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let path = join(prefix, &e.path().to_string());
        let message = messages::plain(&e.inner().to_string());
        // At the root serde's path is "."; name the missing key itself instead.
        match (
            path.as_str(),
            message.strip_prefix("missing field `").and_then(|m| m.strip_suffix('`')),
        ) {
            (".", Some(key)) => ScenarioError::new(
                key,
                "is required: a scenario needs at least duration, [topology] and [[flows]]",
            ),
            _ => ScenarioError::new(path, message),
        }
    })
}

/// Reads the `kind` of a tagged table and the table without it.
pub(crate) fn kind_of(
    v: &Value,
    path: &str,
    allowed: &[&str],
) -> Result<(String, Value), ScenarioError> {
    let Value::Object(m) = v else {
        return Err(ScenarioError::new(
            path,
            format!("expected a table with a `kind` ({})", allowed.join(" | ")),
        ));
    };
    let kind = match m.get("kind") {
        Some(Value::String(k)) => k.clone(),
        Some(other) => {
            return Err(ScenarioError::new(
                format!("{path}.kind"),
                format!("expected a string, got {other}"),
            ))
        }
        None => {
            return Err(ScenarioError::new(
                path,
                format!("missing `kind` (one of {})", allowed.join(", ")),
            ))
        }
    };
    if !allowed.contains(&kind.as_str()) {
        return Err(ScenarioError::new(
            format!("{path}.kind"),
            format!("unknown kind {kind:?}: expected one of {}", allowed.join(", ")),
        ));
    }
    let mut rest = m.clone();
    rest.remove("kind");
    Ok((kind, Value::Object(rest)))
}

// ---------------------------------------------------------------------------------------------
// The file's structure (first step).

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    name: Option<String>,
    duration: Dur,
    seed: Option<u64>,
    sample_interval: Option<Dur>,
    warmup: Option<Dur>,
    topology: Value,
    flows: Vec<RawFlowGroup>,
    background: Option<Vec<Value>>,
    jitter: Option<Value>,
    stack: Option<Stack>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawFlowGroup {
    name: Option<String>,
    count: Option<u32>,
    protocol: Option<Protocol>,
    cc: Option<String>,
    cc_params: Option<Value>,
    recovery: Option<Recovery>,
    mss: Option<Bytes>,
    start: Option<Spread>,
    rtt: Option<Spread>,
    app: Option<Value>,
    initial_cwnd: Option<f64>,
    initial_ssthresh: Option<f64>,
    min_rto: Option<Dur>,
    rto: Option<RtoRule>,
    head_retransmit_rearms_rto: Option<bool>,
    window_from_una: Option<bool>,
    delayed_ack: Option<bool>,
    slow_start_after_idle: Option<bool>,
    stack: Option<Stack>,
    handshake: Option<bool>,
    timestamps: Option<bool>,
    quickack: Option<bool>,
    rack_tlp: Option<bool>,
    prr: Option<bool>,
    rcv_buf: Option<Bytes>,
    stop: Option<Dur>,
    rwnd: Option<Bytes>,
    max_queue_delay: Option<Dur>,
    src: Option<String>,
    dst: Option<String>,
    ecn: Option<bool>,
    source_quench: Option<bool>,
    path: Option<String>,
    lan: Option<u32>,
}

// ---------------------------------------------------------------------------------------------
// The validated scenario (second step). Serialises to the normalised form.

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Protocol {
    Tcp,
    Udp,
    Dccp,
}

impl Protocol {
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Tcp => "tcp",
            Protocol::Udp => "udp",
            Protocol::Dccp => "dccp",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scenario {
    pub name: String,
    pub duration: Dur,
    pub seed: u64,
    pub sample_interval: Dur,
    pub warmup: Dur,
    pub topology: Topology,
    pub flows: Vec<FlowGroup>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub background: Vec<Background>,
    /// Small random offsets of flow starts and link delays (`None`: the network as written).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jitter: Option<jitter::Jitter>,
    /// The TCP profile of every TCP group and background that names none (`tcp/stack.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stack: Option<Stack>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Topology {
    Dumbbell(Dumbbell),
    Graph(Graph),
    ParkingLot(ParkingLot),
    LanRing(LanRing),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dumbbell {
    pub bottleneck_rate: RateQ,
    pub bottleneck_delay: Dur,
    pub access_rate: Option<RateQ>,
    pub access_delay: Option<Dur>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueSpec>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub access_queue: Option<QueueSpec>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossSpec>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Graph {
    pub nodes: Vec<String>,
    pub queue: QueueSpec,
    pub links: Vec<GraphLink>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphLink {
    pub a: String,
    pub b: String,
    pub rate: RateQ,
    pub delay: Dur,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueSpec>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossSpec>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LossSpec {
    Bernoulli { p: f64 },
    Periodic { every: u64 },
    DropList { flow: u32, packets: Vec<u64> },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BernoulliParams {
    p: f64,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PeriodicParams {
    every: u64,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DropListParams {
    flow: u32,
    packets: Vec<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AppSpec {
    Bulk,
    File {
        size: Bytes,
    },
    Cbr {
        rate: RateQ,
        packet_size: Bytes,
    },
    Web(WebParams),
    Ftp(FtpParams),
    /// Exponential on/off (VoIP); defaults from seed 000 (ns-2 EXPOO as configured there).
    #[serde(rename = "onoff")]
    OnOff {
        on_mean: Dur,
        off_mean: Dur,
        rate: RateQ,
        packet_size: Bytes,
    },
}

impl AppSpec {
    /// The `kind` as written in scenarios.
    pub fn kind(&self) -> &'static str {
        match self {
            AppSpec::Bulk => "bulk",
            AppSpec::File { .. } => "file",
            AppSpec::Cbr { .. } => "cbr",
            AppSpec::Web(_) => "web",
            AppSpec::Ftp(_) => "ftp",
            AppSpec::OnOff { .. } => "onoff",
        }
    }

    /// Payload bytes of one message, for applications with a fixed message size.
    fn packet_size(&self) -> Option<Bytes> {
        match self {
            AppSpec::Cbr { packet_size, .. } | AppSpec::OnOff { packet_size, .. } => {
                Some(*packet_size)
            }
            AppSpec::Bulk | AppSpec::File { .. } | AppSpec::Web(_) | AppSpec::Ftp(_) => None,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OnOffParams {
    on_mean: Option<Dur>,
    off_mean: Option<Dur>,
    rate: Option<RateQ>,
    packet_size: Option<Bytes>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoParams {}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileParams {
    size: Bytes,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CbrParams {
    rate: RateQ,
    packet_size: Bytes,
}

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

/// DCCP options of a flow group (absent for other protocols).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DccpGroupOptions {
    /// `ccid2`, `ccid3` or `fast_tfrc`.
    pub cc: String,
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

// ---------------------------------------------------------------------------------------------

impl Scenario {
    /// Parses a scenario written as TOML.
    pub fn from_toml(text: &str) -> Result<Scenario, ScenarioError> {
        let table: toml::Table = toml::from_str(text).map_err(|e| {
            let msg = e.message().to_string();
            let at = e
                .span()
                .map(|s| line_of(text, s.start))
                .map(|l| format!(" (line {l})"))
                .unwrap_or_default();
            ScenarioError::new("", format!("not valid TOML{at}: {msg}"))
        })?;
        let v = serde_json::to_value(table).map_err(|e| ScenarioError::new("", e.to_string()))?;
        Scenario::from_value(&v)
    }

    /// Parses a scenario given as JSON text (what the Python layer sends).
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let v: Value = serde_json::from_str(text)
            .map_err(|e| ScenarioError::new("", format!("not valid JSON: {e}")))?;
        Scenario::from_value(&v)
    }

    pub fn from_value(v: &Value) -> Result<Scenario, ScenarioError> {
        let raw: RawScenario = parse_at(v, "")?;
        let duration = raw.duration;
        if duration.0.as_nanos() == 0 {
            return Err(ScenarioError::new("duration", "must be longer than 0s"));
        }
        let sample_interval =
            raw.sample_interval.unwrap_or(Dur(crate::time::SimDuration::from_millis(100)));
        if sample_interval.0.as_nanos() == 0 {
            return Err(ScenarioError::new("sample_interval", "must be longer than 0s"));
        }
        if duration.0.as_nanos() / sample_interval.0.as_nanos() > 10_000_000 {
            return Err(ScenarioError::new(
                "sample_interval",
                format!(
                    "{} gives more than 10 million samples over {}",
                    sample_interval.0, duration.0
                ),
            ));
        }
        let warmup = raw.warmup.unwrap_or(Dur(crate::time::SimDuration::ZERO));
        if warmup >= duration {
            return Err(ScenarioError::new(
                "warmup",
                format!("{} must be shorter than the duration {}", warmup.0, duration.0),
            ));
        }
        let topology = parse_topology(&raw.topology)?;
        if raw.flows.is_empty() {
            return Err(ScenarioError::new("flows", "at least one [[flows]] group is required"));
        }
        let is_graph = matches!(topology, Topology::Graph(_));
        let jitter = raw.jitter.as_ref().map(jitter::Jitter::parse).transpose()?.flatten();
        let flows = raw
            .flows
            .into_iter()
            .enumerate()
            .map(|(i, mut g)| {
                // The scenario's `stack` is the default of its TCP groups (a DCCP or UDP group
                // has no TCP profile, so one scenario can switch a group's protocol in a grid).
                if matches!(g.protocol, None | Some(Protocol::Tcp)) {
                    g.stack = g.stack.or(raw.stack);
                }
                parse_group(g, &format!("flows[{i}]"), is_graph)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let background =
            background::parse(raw.background.as_deref().unwrap_or(&[]), &topology, raw.stack)?;
        let s = Scenario {
            name: raw.name.unwrap_or_else(|| "unnamed".into()),
            duration,
            seed: raw.seed.unwrap_or(1),
            sample_interval,
            warmup,
            topology,
            flows,
            background,
            jitter,
            stack: raw.stack,
        };
        let total: u64 = s.flows.iter().map(|g| u64::from(g.count)).sum();
        if total > limits::MAX_FLOWS {
            return Err(ScenarioError::new(
                "flows",
                format!(
                    "{total} flows in all groups is out of range: expected at most {}",
                    limits::MAX_FLOWS
                ),
            ));
        }
        s.check_cross_references()?;
        Ok(s)
    }

    /// Total number of flows after expanding groups.
    pub fn flow_count(&self) -> u32 {
        self.flows.iter().map(|g| g.count).sum()
    }

    /// The scenario with defaults filled in, as JSON.
    pub fn normalised(&self) -> Value {
        serde_json::to_value(self).expect("scenarios always serialise")
    }

    /// The group flow `id` belongs to (flows are numbered group by group).
    fn group_of(&self, id: u32) -> Option<&FlowGroup> {
        let mut first = 0u32;
        self.flows.iter().find(|g| {
            first += g.count;
            id < first
        })
    }

    fn check_cross_references(&self) -> Result<(), ScenarioError> {
        let n = self.flow_count();
        let losses: Vec<(String, &LossSpec)> = match &self.topology {
            Topology::Dumbbell(d) => {
                d.loss.iter().map(|l| ("topology.loss".to_string(), l)).collect()
            }
            Topology::Graph(g) => g
                .links
                .iter()
                .enumerate()
                .filter_map(|(i, l)| {
                    l.loss.as_ref().map(|x| (format!("topology.links[{i}].loss"), x))
                })
                .collect(),
            Topology::ParkingLot(_) | Topology::LanRing(_) => Vec::new(),
        };
        for (i, f) in self.flows.iter().enumerate() {
            crate::scenario::topology::check_placement(&self.topology, f, &format!("flows[{i}]"))?;
        }
        for (path, loss) in losses {
            if let LossSpec::DropList { flow, .. } = loss {
                if *flow >= n {
                    return Err(ScenarioError::new(
                        format!("{path}.flow"),
                        format!(
                            "flow {flow} does not exist: the scenario has flows 0..{}",
                            n.saturating_sub(1)
                        ),
                    ));
                }
                // The list names data packets by sequence number; DCCP gives every packet it sends,
                // acknowledgements included, a fresh number (RFC 4340 §7), so it has no stable meaning.
                if self.group_of(*flow).is_some_and(|g| g.protocol == Protocol::Dccp) {
                    return Err(ScenarioError::new(format!("{path}.flow"), format!("flow {flow} is a DCCP flow: drop_list is for TCP and UDP flows (use bernoulli or periodic loss for dccp)")));
                }
            }
        }
        if let Topology::Graph(g) = &self.topology {
            let known: std::collections::BTreeSet<&String> = g.nodes.iter().collect();
            for (i, f) in self.flows.iter().enumerate() {
                for (key, node) in [("src", &f.src), ("dst", &f.dst)] {
                    let node = node.as_ref().ok_or_else(|| {
                        ScenarioError::new(
                            format!("flows[{i}].{key}"),
                            "is required on a graph topology (a node name)",
                        )
                    })?;
                    if !known.contains(node) {
                        return Err(ScenarioError::new(
                            format!("flows[{i}].{key}"),
                            format!(
                                "unknown node {node:?}: expected one of {}",
                                g.nodes.join(", ")
                            ),
                        ));
                    }
                }
                if f.src == f.dst {
                    return Err(ScenarioError::new(
                        format!("flows[{i}].dst"),
                        "must differ from src",
                    ));
                }
            }
        }
        Ok(())
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

fn parse_loss(v: &Value, path: &str) -> Result<LossSpec, ScenarioError> {
    let (kind, rest) = kind_of(v, path, &["bernoulli", "periodic", "drop_list"])?;
    match kind.as_str() {
        "bernoulli" => {
            let p: BernoulliParams = parse_at(&rest, path)?;
            if !(0.0..=1.0).contains(&p.p) {
                return Err(ScenarioError::new(
                    format!("{path}.p"),
                    format!("{} is not a probability: expected 0 <= p <= 1", p.p),
                ));
            }
            Ok(LossSpec::Bernoulli { p: p.p })
        }
        "periodic" => {
            let p: PeriodicParams = parse_at(&rest, path)?;
            if p.every == 0 {
                return Err(ScenarioError::new(format!("{path}.every"), "must be at least 1"));
            }
            Ok(LossSpec::Periodic { every: p.every })
        }
        "drop_list" => {
            let mut p: DropListParams = parse_at(&rest, path)?;
            if p.packets.contains(&0) {
                return Err(ScenarioError::new(
                    format!("{path}.packets"),
                    "packets are counted from 1",
                ));
            }
            p.packets.sort_unstable();
            p.packets.dedup();
            Ok(LossSpec::DropList { flow: p.flow, packets: p.packets })
        }
        _ => unreachable!("kind_of checked the kind"),
    }
}

fn parse_topology(v: &Value) -> Result<Topology, ScenarioError> {
    let path = "topology";
    let (kind, rest) = kind_of(v, path, &["dumbbell", "graph", "parking_lot", "lan_ring"])?;
    let Value::Object(mut m) = rest else { unreachable!("kind_of returns a table") };
    match kind.as_str() {
        "dumbbell" => {
            let queue = m.remove("queue").map(|q| parse_queue(&q, "topology.queue")).transpose()?;
            let access_queue = m
                .remove("access_queue")
                .map(|q| parse_queue(&q, "topology.access_queue"))
                .transpose()?;
            let loss = m.remove("loss").map(|l| parse_loss(&l, "topology.loss")).transpose()?;
            let mut d: Dumbbell = parse_at(&Value::Object(m), path)?;
            d.queue = queue;
            d.access_queue = access_queue;
            d.loss = loss;
            // Fill the defaults that depend on other fields, so the normalised form is complete.
            let defaults = build::dumbbell_defaults(&d);
            d.access_rate = Some(RateQ(defaults.access_rate));
            d.access_delay = Some(Dur(defaults.access_delay));
            d.queue = Some(defaults.queue);
            d.access_queue = Some(defaults.access_queue);
            Ok(Topology::Dumbbell(d))
        }
        "graph" => parse_graph(m),
        "parking_lot" => ParkingLot::parse(m),
        "lan_ring" => LanRing::parse(m),
        _ => unreachable!("kind_of checked the kind"),
    }
}

fn parse_graph(mut m: serde_json::Map<String, Value>) -> Result<Topology, ScenarioError> {
    let queue = match m.remove("queue") {
        Some(q) => parse_queue(&q, "topology.queue")?,
        None => QueueSpec::droptail(QueueLimit::Packets(100)),
    };
    let nodes: Vec<String> = match m.remove("nodes") {
        Some(n) => parse_at(&n, "topology.nodes")?,
        None => {
            return Err(ScenarioError::new(
                "topology.nodes",
                "is required for a graph: a list of node names",
            ))
        }
    };
    let raw_links: Vec<Value> = match m.remove("links") {
        Some(l) => parse_at(&l, "topology.links")?,
        None => {
            return Err(ScenarioError::new(
                "topology.links",
                "is required for a graph: a list of { a, b, rate, delay }",
            ))
        }
    };
    if let Some(k) = m.keys().next() {
        return Err(ScenarioError::new(
            format!("topology.{k}"),
            "unknown field for kind = \"graph\": expected nodes, links, queue",
        ));
    }
    if nodes.len() > limits::MAX_GRAPH_NODES {
        return Err(ScenarioError::new(
            "topology.nodes",
            format!(
                "{} nodes is out of range: expected at most {}",
                nodes.len(),
                limits::MAX_GRAPH_NODES
            ),
        ));
    }
    let mut seen = std::collections::BTreeSet::new();
    for (i, n) in nodes.iter().enumerate() {
        if !seen.insert(n.as_str()) {
            return Err(ScenarioError::new(
                format!("topology.nodes[{i}]"),
                format!("duplicate node name {n:?}"),
            ));
        }
    }
    let mut joined = std::collections::BTreeMap::new();
    let mut links = Vec::new();
    for (i, lv) in raw_links.iter().enumerate() {
        let path = format!("topology.links[{i}]");
        let Value::Object(lm) = lv else {
            return Err(ScenarioError::new(path, "expected a table { a, b, rate, delay }"));
        };
        let mut lm = lm.clone();
        let queue =
            lm.remove("queue").map(|q| parse_queue(&q, &format!("{path}.queue"))).transpose()?;
        let loss =
            lm.remove("loss").map(|l| parse_loss(&l, &format!("{path}.loss"))).transpose()?;
        let mut link: GraphLink = parse_at(&Value::Object(lm), &path)?;
        for (key, n) in [("a", &link.a), ("b", &link.b)] {
            if !seen.contains(n.as_str()) {
                return Err(ScenarioError::new(
                    format!("{path}.{key}"),
                    format!("unknown node {n:?}: expected one of {}", nodes.join(", ")),
                ));
            }
        }
        if link.a == link.b {
            return Err(ScenarioError::new(
                format!("{path}.b"),
                "a link must join two different nodes",
            ));
        }
        // A link is duplex: a second one between the same nodes (either way round) would split
        // their traffic by routing ties and report two rows for one hop.
        let pair = if link.a < link.b {
            (link.a.clone(), link.b.clone())
        } else {
            (link.b.clone(), link.a.clone())
        };
        if let Some(first) = joined.insert(pair, i) {
            return Err(ScenarioError::new(path, format!("joins {} and {} again (topology.links[{first}] already does): one duplex link per pair of nodes", link.a, link.b)));
        }
        link.queue = queue;
        link.loss = loss;
        links.push(link);
    }
    Ok(Topology::Graph(Graph { nodes, queue, links }))
}

fn parse_app(v: &Value, path: &str) -> Result<AppSpec, ScenarioError> {
    let (kind, rest) = kind_of(v, path, &["bulk", "file", "cbr", "onoff", "web", "ftp"])?;
    match kind.as_str() {
        "bulk" => {
            let _: NoParams = parse_at(&rest, path)?;
            Ok(AppSpec::Bulk)
        }
        "file" => {
            let p: FileParams = parse_at(&rest, path)?;
            if p.size.0 == 0 {
                return Err(ScenarioError::new(format!("{path}.size"), "must be at least 1B"));
            }
            Ok(AppSpec::File { size: p.size })
        }
        "cbr" => {
            let p: CbrParams = parse_at(&rest, path)?;
            if p.packet_size.0 == 0 || p.packet_size.0 > 65_000 {
                return Err(ScenarioError::new(
                    format!("{path}.packet_size"),
                    format!("{}B is out of range: expected 1B..65000B", p.packet_size.0),
                ));
            }
            limits::check_packet_rate(p.rate.0, p.packet_size.0, path)?;
            Ok(AppSpec::Cbr { rate: p.rate, packet_size: p.packet_size })
        }
        "web" => Ok(AppSpec::Web(WebParams::parse(&rest, path)?)),
        "ftp" => Ok(AppSpec::Ftp(FtpParams::parse(&rest, path)?)),
        "onoff" => {
            let p: OnOffParams = parse_at(&rest, path)?;
            let on_mean =
                p.on_mean.unwrap_or(Dur(crate::time::SimDuration::from_micros(1_004_000)));
            let off_mean =
                p.off_mean.unwrap_or(Dur(crate::time::SimDuration::from_micros(1_587_000)));
            let rate = p.rate.unwrap_or(RateQ(crate::time::Rate(80_000)));
            let packet_size = p.packet_size.unwrap_or(Bytes(160));
            if packet_size.0 == 0 || packet_size.0 > 65_000 {
                return Err(ScenarioError::new(
                    format!("{path}.packet_size"),
                    format!("{}B is out of range: expected 1B..65000B", packet_size.0),
                ));
            }
            for (key, d) in [("on_mean", on_mean), ("off_mean", off_mean)] {
                if d.0.as_nanos() == 0 {
                    return Err(ScenarioError::new(
                        format!("{path}.{key}"),
                        "must be longer than 0s",
                    ));
                }
            }
            if rate.0 .0 == 0 {
                return Err(ScenarioError::new(format!("{path}.rate"), "must be faster than 0bps"));
            }
            limits::check_packet_rate(rate.0, packet_size.0, path)?;
            Ok(AppSpec::OnOff { on_mean, off_mean, rate, packet_size })
        }
        _ => unreachable!("kind_of checked the kind"),
    }
}

fn parse_group(g: RawFlowGroup, path: &str, is_graph: bool) -> Result<FlowGroup, ScenarioError> {
    let protocol = g.protocol.unwrap_or(Protocol::Tcp);
    let count = g.count.unwrap_or(1);
    if !(1..=limits::MAX_FLOWS).contains(&u64::from(count)) {
        return Err(ScenarioError::new(
            format!("{path}.count"),
            format!("{count} is out of range: expected 1..{}", limits::MAX_FLOWS),
        ));
    }
    // TCP's default payload keeps 1500-byte packets with the profile's options.
    let default_mss = if protocol == Protocol::Tcp {
        g.stack.unwrap_or_default().config().mss as u64
    } else {
        1460
    };
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
    let mut dccp = None;
    let tcp = match protocol {
        Protocol::Tcp => Some(parse_tcp_options(&g, path, &app, mss)?),
        Protocol::Dccp => {
            dccp = Some(parse_dccp_options(&g, path, &app, mss)?);
            None
        }
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
        (Some(t), _) => t.cc.clone(),
        (None, Some(d)) => d.cc.clone(),
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
fn tcp_only_keys(g: &RawFlowGroup) -> [(&'static str, bool); 19] {
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

/// An algorithm's parameter error `"field: what is wrong"` as an error at `path.cc_params.field`.
fn cc_params_error(path: &str, msg: String) -> ScenarioError {
    match msg.split_once(": ") {
        Some((field, rest)) if !field.contains(char::is_whitespace) => {
            ScenarioError::new(format!("{path}.cc_params.{field}"), rest)
        }
        _ => ScenarioError::new(format!("{path}.cc_params"), msg),
    }
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
    let cc = g.cc.clone().unwrap_or_else(|| "ccid2".into());
    // "field: what is wrong" becomes an error at cc_params.field.
    let params_error = |msg: String| cc_params_error(path, msg);
    let ccid = CcidConfig::from_name(&cc, g.cc_params.as_ref()).map_err(|msg| {
        if g.cc_params.is_some() && !msg.starts_with("unknown DCCP congestion control") {
            params_error(msg)
        } else {
            ScenarioError::new(format!("{path}.cc"), msg)
        }
    })?;
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

fn parse_tcp_options(
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

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"
        duration = "10s"
        [topology]
        kind = "dumbbell"
        bottleneck_rate = "10Mbps"
        bottleneck_delay = "10ms"
        [[flows]]
        cc = "reno"
    "#;

    fn err(text: &str) -> String {
        Scenario::from_toml(text).unwrap_err().to_string()
    }

    #[test]
    fn minimal_scenario_gets_defaults() {
        let s = Scenario::from_toml(BASE).unwrap();
        assert_eq!(s.seed, 1);
        assert_eq!(s.flow_count(), 1);
        let n = s.normalised();
        assert_eq!(n["sample_interval"], "100ms");
        assert_eq!(n["flows"][0]["recovery"], "sack");
        assert_eq!(n["flows"][0]["cc_params"]["beta"], 0.5);
    }

    #[test]
    fn normalised_form_parses_back_to_the_same_scenario() {
        let with_everything = BASE.replace("[[flows]]", "loss = { kind = \"periodic\", every = 100 }\n[[flows]]")
            + "rtt = { uniform = [\"30ms\", \"40ms\"] }\napp = { kind = \"file\", size = \"1MB\" }\n[[flows]]\nprotocol = \"udp\"\napp = { kind = \"cbr\", rate = \"1Mbps\", packet_size = \"500B\" }\n";
        let s = Scenario::from_toml(&with_everything).unwrap();
        let again = Scenario::from_value(&s.normalised()).unwrap();
        assert_eq!(s, again);
    }

    #[test]
    fn unknown_key_names_its_path() {
        let e = err(&BASE.replace("cc = \"reno\"", "cc = \"reno\"\nbogus = 1"));
        assert!(
            e.starts_with("flows[0].bogus: unknown field `bogus`, expected one of `name`"),
            "{e}"
        );
    }

    #[test]
    fn bad_unit_names_field_value_and_allowed_units() {
        let e = err(&BASE.replace("\"10Mbps\"", "\"10Mbs\""));
        assert!(e.starts_with("topology.bottleneck_rate: \"10Mbs\" has an unknown unit"), "{e}");
        assert!(e.contains("Mbps"), "{e}");
    }

    #[test]
    fn negative_rate_is_refused() {
        let e = err(&BASE.replace("\"10Mbps\"", "\"-5Mbps\""));
        assert!(e.starts_with("topology.bottleneck_rate:"), "{e}");
    }

    #[test]
    fn unknown_cc_lists_alternatives() {
        let e = err(&BASE.replace("\"reno\"", "\"cubicc\""));
        assert!(e.starts_with("flows[0].cc: unknown congestion control \"cubicc\""), "{e}");
    }

    #[test]
    fn nested_tagged_tables_keep_paths() {
        let e = err(&BASE
            .replace("[[flows]]", "queue = { kind = \"droptail\", limit = \"lots\" }\n[[flows]]"));
        assert!(e.starts_with("topology.queue.limit:"), "{e}");
        let e = err(&BASE.replace("[[flows]]", "loss = { kind = \"gilbert\" }\n[[flows]]"));
        assert!(e.starts_with("topology.loss.kind: unknown kind \"gilbert\""), "{e}");
        let e = err(&BASE.replace("cc = \"reno\"", "cc = \"reno\"\napp = { kind = \"file\" }"));
        assert!(e.starts_with("flows[0].app: missing field `size`"), "{e}");
        let e = err(&BASE.replace("cc = \"reno\"", "cc = \"reno\"\ncc_params = { gamma = 1 }"));
        assert!(e.starts_with("flows[0].cc_params"), "{e}");
    }

    #[test]
    fn tcp_only_keys_are_refused_on_udp_and_dccp_groups() {
        for (protocol, app) in [
            ("udp", "app = { kind = \"cbr\", rate = \"1Mbps\", packet_size = \"500B\" }"),
            ("dccp", ""),
        ] {
            for key in [
                "rto = \"linux\"",
                "slow_start_after_idle = false",
                "window_from_una = true",
                "ecn = true",
                "rwnd = \"64KB\"",
            ] {
                let text = BASE
                    .replace("cc = \"reno\"", &format!("protocol = \"{protocol}\"\n{app}\n{key}"));
                let e = err(&text);
                let name = key.split(' ').next().unwrap();
                assert!(
                    e.starts_with(&format!("flows[0].{name}: is a TCP option")),
                    "{protocol}/{key}: {e}"
                );
            }
        }
    }

    #[test]
    fn drop_list_flow_must_exist() {
        let e = err(&BASE.replace(
            "[[flows]]",
            "loss = { kind = \"drop_list\", flow = 3, packets = [5] }\n[[flows]]",
        ));
        assert!(e.starts_with("topology.loss.flow: flow 3 does not exist"), "{e}");
    }

    #[test]
    fn invalid_toml_reports_the_line() {
        let e = err("duration = \n");
        assert!(e.contains("line 1"), "{e}");
    }

    #[test]
    fn dccp_groups_default_to_ccid2_and_round_trip() {
        let text = BASE.replace("cc = \"reno\"", "protocol = \"dccp\"\nmax_queue_delay = \"150ms\"\napp = { kind = \"onoff\" }")
            + "[[flows]]\nprotocol = \"dccp\"\ncc = \"fast_tfrc\"\ncc_params = { recv_multiplier = 1.5 }\n"
            + "[[flows]]\nprotocol = \"udp\"\napp = { kind = \"onoff\", rate = \"64kbps\" }\n";
        let s = Scenario::from_toml(&text).unwrap();
        let n = s.normalised();
        let f = &n["flows"][0];
        assert_eq!(
            (f["name"].as_str(), f["cc"].as_str(), f["max_queue_delay"].as_str()),
            (Some("ccid2"), Some("ccid2"), Some("150ms"))
        );
        assert_eq!(f["cc_params"]["ack_ratio"], 2);
        assert_eq!(f["app"]["kind"], "onoff");
        assert_eq!(
            (f["app"]["on_mean"].as_str(), f["app"]["off_mean"].as_str()),
            (Some("1.004s"), Some("1.587s"))
        );
        assert_eq!(n["flows"][1]["cc_params"]["recv_multiplier"], 1.5);
        assert!(n["flows"][0].get("recovery").is_none(), "no TCP options on a DCCP group");
        assert_eq!(Scenario::from_value(&n).unwrap(), s);
    }

    #[test]
    fn dccp_errors_name_the_field() {
        let dccp = |extra: &str| {
            err(&BASE.replace("cc = \"reno\"", &format!("protocol = \"dccp\"\n{extra}")))
        };
        let e = dccp("cc = \"ccid4\"");
        assert!(e.starts_with("flows[0].cc: unknown DCCP congestion control \"ccid4\": expected one of ccid2, ccid3, fast_tfrc"), "{e}");
        let e = dccp("cc_params = { ack_ratio = 0 }");
        assert!(e.starts_with("flows[0].cc_params.ack_ratio: must be at least 1"), "{e}");
        let e = dccp("cc = \"ccid3\"\ncc_params = { n = 8 }");
        assert!(e.starts_with("flows[0].cc_params.n: unknown field `n`"), "{e}");
        let e = dccp("recovery = \"sack\"");
        assert!(
            e.starts_with("flows[0].recovery: is a TCP option: this group has protocol = \"dccp\""),
            "{e}"
        );
        let e = dccp("max_queue_delay = \"0s\"");
        assert!(e.starts_with("flows[0].max_queue_delay: must be longer than 0s"), "{e}");
        let e = dccp("app = { kind = \"onoff\", packet_size = \"2000B\" }");
        assert!(e.starts_with("flows[0].app.packet_size: 2000B exceeds the mss 1460B"), "{e}");
        let e = err(&BASE.replace("cc = \"reno\"", "cc = \"reno\"\nmax_queue_delay = \"1s\""));
        assert!(
            e.starts_with(
                "flows[0].max_queue_delay: is a DCCP option: this group has protocol = \"tcp\""
            ),
            "{e}"
        );
        let e = dccp("app = { kind = \"onoff\", on_time = \"1s\" }");
        assert!(e.starts_with("flows[0].app.on_time: unknown field `on_time`"), "{e}");
    }

    #[test]
    fn graph_flows_need_known_nodes() {
        let g = r#"
            duration = "1s"
            [topology]
            kind = "graph"
            nodes = ["A", "B"]
            links = [{ a = "A", b = "B", rate = "10Mbps", delay = "1ms" }]
            [[flows]]
            src = "A"
            dst = "C"
        "#;
        let e = err(g);
        assert!(e.starts_with("flows[0].dst: unknown node \"C\""), "{e}");
    }

    #[test]
    fn ecn_and_source_quench_are_tcp_flow_options() {
        let s = Scenario::from_toml(
            &BASE.replace("cc = \"reno\"", "cc = \"reno\"\necn = true\nsource_quench = true"),
        )
        .unwrap();
        let n = s.normalised();
        assert_eq!(
            (n["flows"][0]["ecn"].as_bool(), n["flows"][0]["source_quench"].as_bool()),
            (Some(true), Some(true))
        );
        let udp = BASE.replace("cc = \"reno\"", "protocol = \"udp\"\napp = { kind = \"cbr\", rate = \"1Mbps\", packet_size = \"500B\" }\necn = true");
        assert_eq!(err(&udp), "flows[0].ecn: is a TCP option: this group has protocol = \"udp\"");
        let e = err(&BASE.replace(
            "[[flows]]",
            "queue = { kind = \"red\", limit = \"100pkt\", max_p = 0 }\n[[flows]]",
        ));
        assert!(e.starts_with("topology.queue.max_p: 0 is not a probability"), "{e}");
    }

    #[test]
    fn missing_top_level_key_is_named() {
        assert_eq!(
            err("[[flows]]\n"),
            "duration: is required: a scenario needs at least duration, [topology] and [[flows]]"
        );
        let e = err(&BASE.replace("duration = \"10s\"", ""));
        assert!(e.starts_with("duration: is required"), "{e}");
    }

    #[test]
    fn quantities_have_physical_ranges() {
        let e = err(&BASE.replace("\"10Mbps\"", "\"1e30Gbps\""));
        assert_eq!(
            e,
            "topology.bottleneck_rate: 1e30Gbps is out of range: expected at most 1000Gbps"
        );
        let e = err(&BASE.replace("\"10ms\"", "\"1e19s\""));
        assert!(
            e.starts_with("topology.bottleneck_delay: 1e19s is out of range: expected at most"),
            "{e}"
        );
        let e = err(&BASE.replace(
            "[[flows]]",
            "queue = { kind = \"droptail\", limit = \"99999999pkt\" }\n[[flows]]",
        ));
        assert!(e.starts_with("topology.queue.limit:") && e.contains("from 1 to 1000000"), "{e}");
        let e = err(&BASE.replace("cc = \"reno\"", "cc = \"reno\"\ncount = 4000000"));
        assert_eq!(e, "flows[0].count: 4000000 is out of range: expected 1..100000");
        let e =
            err(&(BASE.replace("cc = \"reno\"", "count = 60000") + "[[flows]]\ncount = 60000\n"));
        assert!(e.starts_with("flows: 120000 flows in all groups is out of range"), "{e}");
        let e = err(&BASE.replace("cc = \"reno\"", "protocol = \"udp\"\napp = { kind = \"cbr\", rate = \"1000Gbps\", packet_size = \"1B\" }"));
        assert!(e.starts_with("flows[0].app.rate: 1000Gbps in packets of 1B is 1.250e11 packets/s: expected at most 1e7"), "{e}");
        let e = err(&BASE.replace("cc = \"reno\"", "initial_ssthresh = 1e300"));
        assert!(e.starts_with("flows[0].initial_ssthresh: 1"), "{e}");
        let e = err(&BASE.replace("cc = \"reno\"", "app = { kind = \"web\", objects = 1e9 }"));
        assert!(
            e.starts_with(
                "flows[0].app.objects: a mean of 1000000000 objects per page is out of range"
            ),
            "{e}"
        );
    }

    #[test]
    fn every_algorithm_parameter_has_an_upper_bound() {
        for (cc, param, bad) in [
            ("reno", "beta", 1.0),
            ("reno", "beta", 0.0),
            ("bic", "b", 1e30),
            ("bic", "smooth_part", 1e-30),
            ("htcp", "alpha_linear", 1e30),
            ("vegas", "min_cwnd", 1e30),
            ("compound", "alpha", 1e30),
            ("cubic", "c", 1e30),
            ("fast", "alpha", 1e30),
            ("scalable", "low_window", 1e30),
            ("libra", "k1", 1e30),
        ] {
            let e = err(&BASE.replace(
                "cc = \"reno\"",
                &format!("cc = \"{cc}\"\ncc_params = {{ {param} = {bad:?} }}"),
            ));
            assert!(
                e.starts_with(&format!(
                    "flows[0].cc_params.{param}: {bad} is out of range: expected"
                )),
                "{cc}.{param}: {e}"
            );
        }
        let dccp = BASE.replace(
            "cc = \"reno\"",
            "protocol = \"dccp\"\ncc = \"ccid3\"\ncc_params = { t_mbi_s = 1e-8 }",
        );
        assert_eq!(err(&dccp), "flows[0].cc_params.t_mbi_s: 0.00000001 is out of range: expected 1 <= t_mbi_s <= 3600 seconds");
    }

    #[test]
    fn long_values_are_cut_in_messages() {
        let e = err(&BASE.replace("\"10Mbps\"", &format!("\"{}Mbps\"", "9".repeat(100_000))));
        assert!(e.len() < 400 && e.contains('…'), "{} chars: {e}", e.len());
        let e = err(&BASE.replace("\"reno\"", &format!("\"{}\"", "x".repeat(100_000))));
        assert!(
            e.len() < 800 && e.starts_with("flows[0].cc: unknown congestion control"),
            "{} chars",
            e.len()
        );
    }

    #[test]
    fn graph_refuses_a_second_link_between_the_same_nodes() {
        let g = r#"
            duration = "1s"
            [topology]
            kind = "graph"
            nodes = ["A", "B"]
            links = [{ a = "A", b = "B", rate = "10Mbps", delay = "1ms" }, { a = "B", b = "A", rate = "1Mbps", delay = "5ms" }]
            [[flows]]
            src = "A"
            dst = "B"
        "#;
        assert_eq!(err(g), "topology.links[1]: joins B and A again (topology.links[0] already does): one duplex link per pair of nodes");
    }

    #[test]
    fn drop_list_is_refused_on_dccp_flows() {
        let text = BASE.replace(
            "[[flows]]",
            "loss = { kind = \"drop_list\", flow = 1, packets = [5] }\n[[flows]]",
        ) + "[[flows]]\nprotocol = \"dccp\"\n";
        let e = err(&text);
        assert!(
            e.starts_with(
                "topology.loss.flow: flow 1 is a DCCP flow: drop_list is for TCP and UDP flows"
            ),
            "{e}"
        );
        Scenario::from_toml(&text.replace("flow = 1", "flow = 0")).unwrap();
    }

    #[test]
    fn series_budget_is_checked_when_building() {
        let s = Scenario::from_toml(
            &BASE
                .replace("cc = \"reno\"", "count = 1000")
                .replace("duration = \"10s\"", "duration = \"100s\"\nsample_interval = \"100us\""),
        )
        .unwrap();
        let e = s.build().err().expect("over the series budget").to_string();
        assert!(
            e.starts_with(
                "sample_interval: 100us over 100s records 1000001 samples for each of 5002 series"
            ),
            "{e}"
        );
    }

    #[test]
    fn jitter_is_off_by_default_and_round_trips() {
        assert_eq!(Scenario::from_toml(BASE).unwrap().jitter, None);
        let s = Scenario::from_toml(&format!("jitter = true\n{BASE}")).unwrap();
        let n = s.normalised();
        assert_eq!(
            (n["jitter"]["start"].as_str(), n["jitter"]["delay"].as_str()),
            (Some("10ms"), Some("100us"))
        );
        assert_eq!(Scenario::from_value(&n).unwrap(), s);
    }
}
