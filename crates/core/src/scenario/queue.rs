//! Queue specifications: `queue = { kind = "droptail" | "red", ... }`, their validation (errors
//! name the field path) and their construction into a link's [`QueueDisc`].

use super::units::{Bytes, Limit};
use super::{kind_of, parse_at, ScenarioError};
use crate::net::queue::{DropTail, QueueDisc, QueueLimit, Red, RedConfig, RedMode};
use crate::rng::{Rng, StreamKind};
use crate::time::Rate;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A queue discipline and its parameters, as written in a scenario.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum QueueSpec {
    Droptail {
        limit: Limit,
        #[serde(skip_serializing_if = "is_false")]
        source_quench: bool,
    },
    Red(RedSpec),
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DropTailParams {
    limit: Limit,
    #[serde(default)]
    source_quench: bool,
}

/// `kind = "red"`: Floyd & Jacobson RED (see [`crate::net::queue::red`]). Thresholds are in
/// packets; every key but `limit` has the default of [`RedConfig`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedSpec {
    pub limit: Limit,
    #[serde(default = "d_min_th")]
    pub min_th: f64,
    #[serde(default = "d_max_th")]
    pub max_th: f64,
    #[serde(default = "d_max_p")]
    pub max_p: f64,
    #[serde(default = "d_wq")]
    pub wq: f64,
    #[serde(default = "d_gentle")]
    pub gentle: bool,
    #[serde(default)]
    pub ecn: bool,
    #[serde(default)]
    pub source_quench: bool,
    #[serde(default = "d_mean_pktsize")]
    pub mean_pktsize: Bytes,
    #[serde(default = "d_mode")]
    pub mode: RedMode,
}

fn d_min_th() -> f64 {
    RedConfig::default().min_th
}
fn d_max_th() -> f64 {
    RedConfig::default().max_th
}
fn d_max_p() -> f64 {
    RedConfig::default().max_p
}
fn d_wq() -> f64 {
    RedConfig::default().wq
}
fn d_gentle() -> bool {
    RedConfig::default().gentle
}
fn d_mean_pktsize() -> Bytes {
    Bytes(RedConfig::default().mean_pktsize as u64)
}
fn d_mode() -> RedMode {
    RedConfig::default().mode
}

impl QueueSpec {
    /// A plain tail-drop queue.
    pub fn droptail(limit: QueueLimit) -> QueueSpec {
        QueueSpec::Droptail { limit: Limit(limit), source_quench: false }
    }

    pub fn limit(&self) -> QueueLimit {
        match self {
            QueueSpec::Droptail { limit, .. } => limit.0,
            QueueSpec::Red(r) => r.limit.0,
        }
    }

    /// The discipline of link `link` (rate `rate`); RED draws from the link's own queue stream.
    pub fn build(&self, rate: Rate, seed: u64, link: u32) -> QueueDisc {
        match self {
            QueueSpec::Droptail { limit, source_quench } => {
                QueueDisc::DropTail(DropTail { limit: limit.0, source_quench: *source_quench })
            }
            QueueSpec::Red(r) => {
                let cfg = RedConfig {
                    min_th: r.min_th,
                    max_th: r.max_th,
                    max_p: r.max_p,
                    wq: r.wq,
                    gentle: r.gentle,
                    ecn: r.ecn,
                    source_quench: r.source_quench,
                    mean_pktsize: r.mean_pktsize.0 as u32,
                    mode: r.mode,
                };
                let rng = Rng::stream(seed, StreamKind::Queue, link as u64);
                QueueDisc::Red(Box::new(Red::new(cfg, r.limit.0, rate, rng)))
            }
        }
    }
}

pub(crate) fn parse_queue(v: &Value, path: &str) -> Result<QueueSpec, ScenarioError> {
    let (kind, rest) = kind_of(v, path, &["droptail", "red"])?;
    match kind.as_str() {
        "droptail" => {
            let p: DropTailParams = parse_at(&rest, path)?;
            Ok(QueueSpec::Droptail { limit: p.limit, source_quench: p.source_quench })
        }
        "red" => {
            let r: RedSpec = parse_at(&rest, path)?;
            check_red(&r, path)?;
            Ok(QueueSpec::Red(r))
        }
        _ => unreachable!("kind_of checked the kind"),
    }
}

fn check_red(r: &RedSpec, path: &str) -> Result<(), ScenarioError> {
    let bad = |key: &str, msg: String| Err(ScenarioError::new(format!("{path}.{key}"), msg));
    let most = super::limits::MAX_QUEUE_PKTS as f64;
    if !(r.min_th.is_finite() && r.min_th >= 0.0 && r.min_th < most) {
        return bad("min_th", format!("{} is out of range: expected a number of packets in [0, {most})", r.min_th));
    }
    if !(r.max_th > r.min_th && r.max_th <= most) {
        return bad("max_th", format!("{} must be greater than min_th ({}) and at most {most}", r.max_th, r.min_th));
    }
    if !(r.max_p > 0.0 && r.max_p <= 1.0) {
        return bad("max_p", format!("{} is not a probability: expected 0 < max_p <= 1", r.max_p));
    }
    if !(r.wq > 0.0 && r.wq <= 1.0) {
        return bad("wq", format!("{} is out of range: expected 0 < wq <= 1 (0.002 is the classic value)", r.wq));
    }
    if !(1..=65_535).contains(&r.mean_pktsize.0) {
        return bad("mean_pktsize", format!("{}B is out of range: expected 1B..65535B", r.mean_pktsize.0));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<QueueSpec, ScenarioError> {
        let v: Value = serde_json::to_value(toml::from_str::<toml::Table>(&format!("q = {text}")).unwrap()["q"].clone()).unwrap();
        parse_queue(&v, "topology.queue")
    }

    #[test]
    fn red_defaults_are_floyd_s_recommendations() {
        let QueueSpec::Red(r) = parse(r#"{ kind = "red", limit = "300pkt" }"#).unwrap() else { panic!() };
        assert_eq!((r.min_th, r.max_th, r.max_p, r.wq, r.gentle, r.ecn, r.source_quench), (5.0, 15.0, 0.1, 0.002, true, false, false));
        assert_eq!((r.mean_pktsize, r.mode), (Bytes(1000), RedMode::Packets));
        // The normalised form parses back to the same spec.
        let again = parse_queue(&serde_json::to_value(QueueSpec::Red(r.clone())).unwrap(), "q").unwrap();
        assert_eq!(again, QueueSpec::Red(r));
    }

    #[test]
    fn red_errors_name_the_key_and_the_allowed_values() {
        let e = parse(r#"{ kind = "red", limit = "300pkt", min_th = 20 }"#).unwrap_err().to_string();
        assert_eq!(e, "topology.queue.max_th: 15 must be greater than min_th (20) and at most 1000000");
        let e = parse(r#"{ kind = "red", limit = "300pkt", max_p = 1.5 }"#).unwrap_err().to_string();
        assert!(e.starts_with("topology.queue.max_p: 1.5 is not a probability"), "{e}");
        let e = parse(r#"{ kind = "red", limit = "300pkt", wq = 0 }"#).unwrap_err().to_string();
        assert!(e.starts_with("topology.queue.wq: 0 is out of range"), "{e}");
        let e = parse(r#"{ kind = "red", limit = "300pkt", mode = "bits" }"#).unwrap_err().to_string();
        assert!(e.starts_with("topology.queue.mode: unknown variant `bits`, expected `packets` or `bytes`"), "{e}");
        let e = parse(r#"{ kind = "red", limit = "300pkt", w_q = 0.1 }"#).unwrap_err().to_string();
        assert!(e.starts_with("topology.queue.w_q: unknown field `w_q`"), "{e}");
        let e = parse(r#"{ kind = "red" }"#).unwrap_err().to_string();
        assert!(e.starts_with("topology.queue: missing field `limit`"), "{e}");
    }

    #[test]
    fn droptail_takes_an_optional_source_quench_flag() {
        assert_eq!(parse(r#"{ kind = "droptail", limit = "30pkt" }"#).unwrap(), QueueSpec::droptail(QueueLimit::Packets(30)));
        let sq = parse(r#"{ kind = "droptail", limit = "30pkt", source_quench = true }"#).unwrap();
        assert!(sq.build(Rate::mbps(1), 1, 0).source_quench());
        let e = parse(r#"{ kind = "droptail", limit = "30pkt", ecn = true }"#).unwrap_err().to_string();
        assert!(e.starts_with("topology.queue.ecn: unknown field `ecn`"), "{e}");
    }
}
