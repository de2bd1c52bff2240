//! Scenarios: the schema of `SCENARIO.md`, its validation, and the normalised form.
//!
//! Parsing happens in two steps so that every error names the path of the offending field:
//! serde (with `deny_unknown_fields`, through `serde_path_to_error`) reads each part's structure;
//! then the tagged parts (`topology`, `queue`, `loss`, `app`, `cc_params`) are read one by one
//! with their path as prefix, and cross-field rules are checked. The top level is read part by
//! part (`read`), so that the errors of one file are reported together.
//!
//! | module                 | holds                                                     |
//! |------------------------|-----------------------------------------------------------|
//! | `read`                 | the top level, part by part, its errors gathered          |
//! | `raw`                  | a `[[flows]]` group's structure, as serde reads it        |
//! | `flows`, `tcp_options` | `[[flows]]` groups; a TCP group's options, resolved once  |
//! | `topology/`            | `[topology]` kinds, their defaults, and how each is built |
//! | `queue`, `losses`      | queue disciplines, link loss models                       |
//! | `app_spec`             | a group's `app` and the traffic models                    |
//! | `background/`          | `[[background]]` cross traffic and its sources            |
//! | `jitter`               | small random offsets of starts and delays                 |
//! | `units`, `limits`      | quantities with units, and their supported ranges         |
//! | `build`, `wiring`      | the runnable world, and the network under construction    |

pub mod app_spec;
pub mod background;
pub mod build;
mod flows;
pub mod jitter;
pub mod limits;
mod losses;
mod messages;
pub mod queue;
mod raw;
mod read;
mod tcp_options;
pub mod topology;
pub mod units;
pub mod varying;
mod wiring;

pub use app_spec::AppSpec;
pub use flows::{DccpGroupOptions, FlowGroup};
pub use losses::LossSpec;
pub use queue::QueueSpec;
pub use tcp_options::TcpOptions;
pub use topology::{Dumbbell, Graph, GraphLink, Topology};

use crate::cc::CcError;
use crate::tcp::Stack;
use crate::time::Dur;
use background::Background;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// An invalid scenario: which field, and what is wrong with it (one line); `also`, the other
/// errors found in the same file, in the order of its parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
    pub also: Vec<ScenarioError>,
}

impl ScenarioError {
    /// The error at `path`; long echoed values in either are cut (see `limits::shorten_message`).
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            path: limits::shorten_message(&path.into()),
            message: limits::shorten_message(&message.into()),
            also: Vec::new(),
        }
    }

    /// This error with `also` after it.
    pub(crate) fn with_also(mut self, also: Vec<ScenarioError>) -> Self {
        self.also.extend(also);
        self
    }

    /// Every error, one line each: this one and those in `also`, at most
    /// [`limits::MAX_REPORTED_ERRORS`] with a last line counting the others.
    pub fn lines(&self) -> Vec<String> {
        let all: Vec<String> = std::iter::once(self.to_string())
            .chain(self.also.iter().map(|e| e.to_string()))
            .collect();
        let keep = limits::MAX_REPORTED_ERRORS;
        if all.len() <= keep {
            return all;
        }
        let more = all.len() - (keep - 1);
        let mut lines = all[..keep - 1].to_vec();
        lines.push(format!("... and {more} more errors in this scenario"));
        lines
    }
}

impl ScenarioError {
    /// An algorithm's parameter error `"field: what is wrong"` as an error at `path.cc_params.field`.
    pub(crate) fn in_cc_params(path: &str, msg: String) -> Self {
        match msg.split_once(": ") {
            Some((field, rest)) if !field.contains(char::is_whitespace) => {
                ScenarioError::new(format!("{path}.cc_params.{field}"), rest)
            }
            _ => ScenarioError::new(format!("{path}.cc_params"), msg),
        }
    }

    /// Group `path`'s congestion control cannot be configured: a wrong name is an error at
    /// `cc`; wrong parameters, at `cc_params` (see `in_cc_params`) when the group gave them.
    pub(crate) fn in_cc(path: &str, err: CcError, params_given: bool) -> Self {
        match err {
            CcError::Params(msg) if params_given => ScenarioError::in_cc_params(path, msg),
            err => ScenarioError::new(format!("{path}.cc"), err.into_message()),
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
    parse_rest_at(v, prefix, &[])
}

/// [`parse_at`] for a table whose keys `taken` were read (and removed) before: an unknown key's
/// message names them among the allowed ones.
pub(crate) fn parse_rest_at<T: DeserializeOwned>(
    v: &Value,
    prefix: &str,
    taken: &[&str],
) -> Result<T, ScenarioError> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let path = join(prefix, &e.path().to_string());
        // `taken` are keys of the table itself, not of the tables inside it.
        let also = if e.path().iter().count() <= 1 { taken } else { &[] };
        let message = messages::plain_with(&e.inner().to_string(), also);
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

    /// Reads a scenario from its JSON value, reporting the errors of its parts together
    /// (`read`).
    pub fn from_value(v: &Value) -> Result<Scenario, ScenarioError> {
        read::scenario(v)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest valid scenario (the `read` tests share it).
    pub(super) const BASE: &str = r#"
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
