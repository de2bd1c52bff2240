//! Queue specifications: `queue = { kind = "droptail" | "red" | "pie", ... }`, their validation (errors
//! name the field path) and their construction into a link's [`QueueDisc`].

use super::units::{Bytes, Limit};
use super::{kind_of, parse_at, ScenarioError};
use crate::net::queue::{
    DropTail, Pie, PieConfig, QueueDisc, QueueLimit, Red, RedConfig, RedMode, RedVariant,
};
use crate::rng::{Rng, StreamKind};
use crate::time::{Dur, Rate, SimDuration};
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
        /// Step ECN marking at this backlog (DCTCP's K), if set.
        #[serde(skip_serializing_if = "Option::is_none")]
        ecn_threshold: Option<Limit>,
    },
    Red(RedSpec),
    Pie(PieSpec),
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
    #[serde(default)]
    ecn_threshold: Option<Limit>,
}

/// A RED parameter given as a number or as `"auto"`: derived from the link as ns-2 derives it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AutoOr {
    Value(f64),
    Auto(Auto),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Auto {
    Auto,
}

impl AutoOr {
    fn value(self) -> Option<f64> {
        match self {
            AutoOr::Value(v) => Some(v),
            AutoOr::Auto(_) => None,
        }
    }
}

/// ns-2's `targetdelay_` (`ns-default.tcl`: 5 ms): the queueing delay an automatic min_th aims at.
const NS2_TARGET_DELAY_S: f64 = 0.005;

/// `kind = "red"`: Floyd & Jacobson RED (see [`crate::net::queue::red`]). Thresholds are in
/// packets; every key but `limit` has the default of [`RedConfig`]. `wq`, `min_th` and `max_th`
/// may be `"auto"`, as ns-2's `q_weight_ = -1` and `thresh_ = maxthresh_ = 0` (`red.cc`
/// `initialize_params`), from the link's rate and delay ([`RedSpec::resolve`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedSpec {
    pub limit: Limit,
    #[serde(default = "d_min_th")]
    pub min_th: AutoOr,
    #[serde(default = "d_max_th")]
    pub max_th: AutoOr,
    #[serde(default = "d_max_p")]
    pub max_p: f64,
    #[serde(default = "d_wq")]
    pub wq: AutoOr,
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
    #[serde(default = "d_variant")]
    pub variant: RedVariant,
}

/// `kind = "pie"`: PIE (RFC 8033, see [`crate::net::queue::pie`]); every key but `limit` has
/// the default of [`PieConfig`], RFC 8033's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieSpec {
    pub limit: Limit,
    #[serde(default = "d_pie_target")]
    pub target: Dur,
    #[serde(default = "d_pie_tupdate")]
    pub tupdate: Dur,
    #[serde(default = "d_pie_alpha")]
    pub alpha: f64,
    #[serde(default = "d_pie_beta")]
    pub beta: f64,
    #[serde(default = "d_pie_max_burst")]
    pub max_burst: Dur,
    #[serde(default)]
    pub ecn: bool,
    #[serde(default = "d_pie_mark_ecn_th")]
    pub mark_ecn_th: f64,
    #[serde(default = "d_pie_mean_pktsize")]
    pub mean_pktsize: Bytes,
}

fn d_pie_target() -> Dur {
    Dur(PieConfig::default().target)
}
fn d_pie_tupdate() -> Dur {
    Dur(PieConfig::default().tupdate)
}
fn d_pie_alpha() -> f64 {
    PieConfig::default().alpha
}
fn d_pie_beta() -> f64 {
    PieConfig::default().beta
}
fn d_pie_max_burst() -> Dur {
    Dur(PieConfig::default().max_burst)
}
fn d_pie_mark_ecn_th() -> f64 {
    PieConfig::default().mark_ecn_th
}
fn d_pie_mean_pktsize() -> Bytes {
    Bytes(PieConfig::default().mean_pktsize as u64)
}

fn d_min_th() -> AutoOr {
    AutoOr::Value(RedConfig::default().min_th)
}
fn d_max_th() -> AutoOr {
    AutoOr::Value(RedConfig::default().max_th)
}
fn d_max_p() -> f64 {
    RedConfig::default().max_p
}
fn d_wq() -> AutoOr {
    AutoOr::Value(RedConfig::default().wq)
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
fn d_variant() -> RedVariant {
    RedConfig::default().variant
}

impl QueueSpec {
    /// A plain tail-drop queue.
    pub fn droptail(limit: QueueLimit) -> QueueSpec {
        QueueSpec::Droptail { limit: Limit(limit), source_quench: false, ecn_threshold: None }
    }

    pub fn limit(&self) -> QueueLimit {
        match self {
            QueueSpec::Droptail { limit, .. } => limit.0,
            QueueSpec::Red(r) => r.limit.0,
            QueueSpec::Pie(p) => p.limit.0,
        }
    }

    /// The discipline of link `link` (rate `rate`, propagation delay `delay`); RED draws from
    /// the link's own queue stream.
    pub fn build(&self, rate: Rate, delay: SimDuration, seed: u64, link: u32) -> QueueDisc {
        match self {
            QueueSpec::Droptail { limit, source_quench, ecn_threshold } => {
                QueueDisc::DropTail(DropTail {
                    limit: limit.0,
                    source_quench: *source_quench,
                    ecn_threshold: ecn_threshold.map(|k| k.0),
                })
            }
            QueueSpec::Red(r) => {
                let (min_th, max_th, wq) = r.resolve(rate, delay);
                let cfg = RedConfig {
                    min_th,
                    max_th,
                    max_p: r.max_p,
                    wq,
                    gentle: r.gentle,
                    ecn: r.ecn,
                    source_quench: r.source_quench,
                    mean_pktsize: r.mean_pktsize.0 as u32,
                    mode: r.mode,
                    variant: r.variant,
                };
                let rng = Rng::stream(seed, StreamKind::Queue, link as u64);
                QueueDisc::Red(Box::new(Red::new(cfg, r.limit.0, rate, rng)))
            }
            QueueSpec::Pie(p) => {
                let cfg = PieConfig {
                    target: p.target.0,
                    tupdate: p.tupdate.0,
                    alpha: p.alpha,
                    beta: p.beta,
                    max_burst: p.max_burst.0,
                    ecn: p.ecn,
                    mark_ecn_th: p.mark_ecn_th,
                    mean_pktsize: p.mean_pktsize.0 as u32,
                };
                let rng = Rng::stream(seed, StreamKind::Queue, link as u64);
                QueueDisc::Pie(Box::new(Pie::new(cfg, p.limit.0, rng)))
            }
        }
    }
}

impl RedSpec {
    /// (min_th, max_th, wq) on a link of `rate` and `delay`, ns-2's automatic values where the
    /// scenario says `"auto"` (ns-2.35 `red.cc` `initialize_params`, with C the link's capacity
    /// in mean-size packets per second):
    /// `wq = 1 − exp(−1 / (10 · RTT · C))`, RTT = max(0.1 s, 3 · (delay + 1/C));
    /// `min_th = max(5, targetdelay · C / 2)`, targetdelay 5 ms; `max_th = 3 · min_th`.
    pub fn resolve(&self, rate: Rate, delay: SimDuration) -> (f64, f64, f64) {
        let c = rate.as_bps_f64() / (8.0 * self.mean_pktsize.0 as f64);
        let min_th = self.min_th.value().unwrap_or_else(|| (NS2_TARGET_DELAY_S * c / 2.0).max(5.0));
        let max_th = self.max_th.value().unwrap_or(3.0 * min_th);
        let wq = self.wq.value().unwrap_or_else(|| {
            let rtt = (3.0 * (delay.as_secs_f64() + 1.0 / c)).max(0.1);
            1.0 - (-1.0 / (10.0 * rtt * c)).exp()
        });
        (min_th, max_th, wq)
    }
}

pub(crate) fn parse_queue(v: &Value, path: &str) -> Result<QueueSpec, ScenarioError> {
    let (kind, rest) = kind_of(v, path, &["droptail", "red", "pie"])?;
    match kind.as_str() {
        "droptail" => {
            let p: DropTailParams = parse_at(&rest, path)?;
            if let Some(k) = p.ecn_threshold {
                check_ecn_threshold(k.0, p.limit.0, path)?;
            }
            Ok(QueueSpec::Droptail {
                limit: p.limit,
                source_quench: p.source_quench,
                ecn_threshold: p.ecn_threshold,
            })
        }
        "red" => {
            let r: RedSpec = parse_at(&rest, path)?;
            check_red(&r, path)?;
            Ok(QueueSpec::Red(r))
        }
        "pie" => {
            let p: PieSpec = parse_at(&rest, path)?;
            check_pie(&p, path)?;
            Ok(QueueSpec::Pie(p))
        }
        _ => unreachable!("kind_of checked the kind"),
    }
}

/// A marking threshold must be reachable: in the limit's own unit, below the limit (`Limit`
/// itself refuses zero).
fn check_ecn_threshold(k: QueueLimit, limit: QueueLimit, path: &str) -> Result<(), ScenarioError> {
    match (k, limit) {
        (QueueLimit::Packets(k), QueueLimit::Packets(l))
        | (QueueLimit::Bytes(k), QueueLimit::Bytes(l))
            if k >= l => {}
        _ => return Ok(()),
    }
    Err(ScenarioError::new(
        format!("{path}.ecn_threshold"),
        format!("{k} is out of range: expected a backlog below the limit ({limit}), where marking can happen"),
    ))
}

fn check_pie(p: &PieSpec, path: &str) -> Result<(), ScenarioError> {
    let bad = |key: &str, msg: String| Err(ScenarioError::new(format!("{path}.{key}"), msg));
    for (key, d) in [("target", p.target), ("tupdate", p.tupdate)] {
        if d.0 < SimDuration::from_micros(1) {
            return bad(
                key,
                format!("{} is out of range: expected at least 1us (RFC 8033: 15ms)", d.0),
            );
        }
    }
    for (key, x, rfc) in [("alpha", p.alpha, 0.125), ("beta", p.beta, 1.25)] {
        if !(x.is_finite() && (0.0..=1000.0).contains(&x)) {
            return bad(
                key,
                format!("{x} is out of range: expected 0 to 1000 per second (RFC 8033: {rfc})"),
            );
        }
    }
    if !(0.0..=1.0).contains(&p.mark_ecn_th) {
        return bad(
            "mark_ecn_th",
            format!("{} is not a probability: expected 0 to 1 (RFC 8033: 0.1)", p.mark_ecn_th),
        );
    }
    if !(1..=65_535).contains(&p.mean_pktsize.0) {
        return bad(
            "mean_pktsize",
            format!("{}B is out of range: expected 1B..65535B", p.mean_pktsize.0),
        );
    }
    Ok(())
}

fn check_red(r: &RedSpec, path: &str) -> Result<(), ScenarioError> {
    let bad = |key: &str, msg: String| Err(ScenarioError::new(format!("{path}.{key}"), msg));
    let most = super::limits::MAX_QUEUE_PKTS as f64;
    match (r.min_th.value(), r.max_th.value()) {
        (Some(min), _) if !(min.is_finite() && min >= 0.0 && min < most) => {
            return bad("min_th", format!("{min} is out of range: expected a number of packets in [0, {most}) or \"auto\""));
        }
        (Some(min), Some(max)) if !(max > min && max <= most) => {
            return bad(
                "max_th",
                format!("{max} must be greater than min_th ({min}) and at most {most}"),
            );
        }
        (None, Some(max)) => {
            return bad("max_th", format!("{max} needs a numeric min_th: with min_th = \"auto\" use max_th = \"auto\" (3 · min_th, as ns-2)"));
        }
        (Some(_), None) => {
            return bad(
                "max_th",
                "\"auto\" needs min_th = \"auto\" too (max_th = 3 · min_th, as ns-2)".to_string(),
            );
        }
        _ => {}
    }
    if !(r.max_p > 0.0 && r.max_p <= 1.0) {
        return bad("max_p", format!("{} is not a probability: expected 0 < max_p <= 1", r.max_p));
    }
    if let Some(wq) = r.wq.value().filter(|&wq| !(wq > 0.0 && wq <= 1.0)) {
        return bad("wq", format!("{wq} is out of range: expected 0 < wq <= 1 (0.002 is the classic value) or \"auto\""));
    }
    if !(1..=65_535).contains(&r.mean_pktsize.0) {
        return bad(
            "mean_pktsize",
            format!("{}B is out of range: expected 1B..65535B", r.mean_pktsize.0),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<QueueSpec, ScenarioError> {
        let v: Value = serde_json::to_value(
            toml::from_str::<toml::Table>(&format!("q = {text}")).unwrap()["q"].clone(),
        )
        .unwrap();
        parse_queue(&v, "topology.queue")
    }

    #[test]
    fn red_defaults_are_floyd_s_recommendations() {
        let QueueSpec::Red(r) = parse(r#"{ kind = "red", limit = "300pkt" }"#).unwrap() else {
            panic!()
        };
        assert_eq!(
            (r.min_th, r.max_th, r.max_p, r.wq, r.gentle, r.ecn, r.source_quench),
            (
                AutoOr::Value(5.0),
                AutoOr::Value(15.0),
                0.1,
                AutoOr::Value(0.002),
                true,
                false,
                false
            )
        );
        assert_eq!((r.mean_pktsize, r.mode), (Bytes(1000), RedMode::Packets));
        // The normalised form parses back to the same spec.
        let again =
            parse_queue(&serde_json::to_value(QueueSpec::Red(r.clone())).unwrap(), "q").unwrap();
        assert_eq!(again, QueueSpec::Red(r));
    }

    #[test]
    fn red_errors_name_the_key_and_the_allowed_values() {
        let e =
            parse(r#"{ kind = "red", limit = "300pkt", min_th = 20 }"#).unwrap_err().to_string();
        assert_eq!(
            e,
            "topology.queue.max_th: 15 must be greater than min_th (20) and at most 1000000"
        );
        let e =
            parse(r#"{ kind = "red", limit = "300pkt", max_p = 1.5 }"#).unwrap_err().to_string();
        assert!(e.starts_with("topology.queue.max_p: 1.5 is not a probability"), "{e}");
        let e = parse(r#"{ kind = "red", limit = "300pkt", wq = 0 }"#).unwrap_err().to_string();
        assert!(e.starts_with("topology.queue.wq: 0 is out of range"), "{e}");
        let e =
            parse(r#"{ kind = "red", limit = "300pkt", mode = "bits" }"#).unwrap_err().to_string();
        assert!(
            e.starts_with(
                "topology.queue.mode: unknown variant `bits`, expected `packets` or `bytes`"
            ),
            "{e}"
        );
        let e = parse(r#"{ kind = "red", limit = "300pkt", variant = "linux" }"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(
                "topology.queue.variant: unknown variant `linux`, expected `fj93` or `ns2`"
            ),
            "{e}"
        );
        let QueueSpec::Red(r) =
            parse(r#"{ kind = "red", limit = "300pkt", variant = "ns2" }"#).unwrap()
        else {
            panic!()
        };
        assert_eq!(r.variant, RedVariant::Ns2);
        let e = parse(r#"{ kind = "red", limit = "300pkt", w_q = 0.1 }"#).unwrap_err().to_string();
        assert!(e.starts_with("topology.queue.w_q: unknown field `w_q`"), "{e}");
        let e = parse(r#"{ kind = "red" }"#).unwrap_err().to_string();
        assert!(e.starts_with("topology.queue: missing field `limit`"), "{e}");
    }

    #[test]
    fn auto_parameters_follow_ns2_initialize_params() {
        let QueueSpec::Red(r) = parse(r#"{ kind = "red", limit = "300pkt", min_th = "auto", max_th = "auto", wq = "auto", mean_pktsize = "500B" }"#).unwrap() else { panic!() };
        // 10 Mbit/s of 500-byte packets: C = 2500 packets/s. Target queue 5 ms · C = 12.5
        // packets, so min_th = 6.25 (above the floor of 5), max_th = 18.75. RTT = 3 · (10 ms +
        // 0.4 ms) = 31.2 ms, below 100 ms: 100 ms, so wq = 1 − exp(−1/2500).
        let (min, max, wq) = r.resolve(Rate::mbps(10), SimDuration::from_millis(10));
        assert!((min - 6.25).abs() < 1e-12 && (max - 18.75).abs() < 1e-12, "{min} {max}");
        assert!((wq - (1.0 - (-1.0f64 / 2500.0).exp())).abs() < 1e-15, "{wq}");
        // A slow link keeps the floor of 5 packets; a long delay lengthens the RTT term.
        let (min, _, wq) = r.resolve(Rate::mbps(1), SimDuration::from_millis(100));
        let c: f64 = 250.0;
        assert_eq!(min, 5.0);
        assert!(
            (wq - (1.0 - (-1.0 / (10.0 * 3.0 * (0.1 + 1.0 / c) * c)).exp())).abs() < 1e-15,
            "{wq}"
        );
        // Mixed forms are refused in one line.
        let e = parse(r#"{ kind = "red", limit = "300pkt", min_th = "auto", max_th = 30 }"#)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("topology.queue.max_th: 30 needs a numeric min_th"), "{e}");
        let e =
            parse(r#"{ kind = "red", limit = "300pkt", wq = "often" }"#).unwrap_err().to_string();
        assert!(e.starts_with("topology.queue.wq:"), "{e}");
    }

    #[test]
    fn droptail_takes_an_optional_source_quench_flag() {
        assert_eq!(
            parse(r#"{ kind = "droptail", limit = "30pkt" }"#).unwrap(),
            QueueSpec::droptail(QueueLimit::Packets(30))
        );
        let sq = parse(r#"{ kind = "droptail", limit = "30pkt", source_quench = true }"#).unwrap();
        assert!(sq.build(Rate::mbps(1), SimDuration::ZERO, 1, 0).source_quench());
        let e =
            parse(r#"{ kind = "droptail", limit = "30pkt", ecn = true }"#).unwrap_err().to_string();
        assert!(e.starts_with("topology.queue.ecn: unknown field `ecn`"), "{e}");
    }

    #[test]
    fn droptail_takes_a_step_marking_threshold_below_its_limit() {
        let q =
            parse(r#"{ kind = "droptail", limit = "100pkt", ecn_threshold = "20pkt" }"#).unwrap();
        let QueueDisc::DropTail(d) = q.build(Rate::mbps(1), SimDuration::ZERO, 1, 0) else {
            panic!()
        };
        assert_eq!(d.ecn_threshold, Some(QueueLimit::Packets(20)));
        assert_eq!(
            serde_json::to_value(&q).unwrap(),
            serde_json::json!({"kind": "droptail", "limit": "100pkt", "ecn_threshold": "20pkt"})
        );
        let e = parse(r#"{ kind = "droptail", limit = "100pkt", ecn_threshold = "100pkt" }"#)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "topology.queue.ecn_threshold: 100pkt is out of range: expected a backlog below the limit (100pkt), where marking can happen");
        let e = parse(r#"{ kind = "droptail", limit = "100pkt", ecn_threshold = "0pkt" }"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("topology.queue.ecn_threshold: \"0pkt\" is not a queue limit"),
            "{e}"
        );
        // Bytes against packets: not compared.
        parse(r#"{ kind = "droptail", limit = "100pkt", ecn_threshold = "30000B" }"#).unwrap();
    }
}
