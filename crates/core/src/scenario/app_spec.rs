//! A flow group's `app` table ([`AppSpec`]) and its traffic-model keys: distributions and the
//! `web` and `ftp` applications.
//!
//! A distribution is a quantity (a fixed value) or a table with a `kind`:
//!
//! ```toml
//! size = "5MB"                                                   # fixed
//! idle = { kind = "exponential", mean = "180s" }
//! think = { kind = "pareto", scale = "1s", shape = 1.5 }         # or mean = "3s" (shape > 1)
//! size = { kind = "pareto", scale = "133KB", shape = 1.1, max = "10MB" }
//! size = { kind = "lognormal", mu = 14.45, sigma = 0.35, max = "5MB" }   # mu = ln(bytes or s)
//! size = { kind = "lognormal", mean = "2MB", sigma = 0.35 }      # mu = ln(mean) − σ²/2
//! idle = { kind = "uniform", min = "1s", max = "3s" }
//! ```
//!
//! Values are kept at the resolution of their unit (whole bytes, nanoseconds) so that the
//! normalised scenario parses back to the same thing.

use super::units::{Bytes, RateQ};
use super::{kind_of, limits, parse_at, ScenarioError};
use crate::app::dist::Dist;
use crate::app::ftp::FtpModel;
use crate::app::web::WebModel;
use crate::time::{parse_bytes, parse_duration, Dur, SimDuration};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

/// What a distribution's values measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Bytes,
    Seconds,
    /// A plain number (objects per page).
    Count,
}

/// A distribution as written in a scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct DistSpec {
    pub unit: Unit,
    pub dist: Dist,
}

impl Unit {
    fn snap(self, x: f64) -> f64 {
        match self {
            Unit::Bytes => x.round(),
            Unit::Seconds => (x * 1e9).round() / 1e9,
            Unit::Count => x,
        }
    }

    fn example(self) -> &'static str {
        match self {
            Unit::Bytes => "a size like \"5MB\"",
            Unit::Seconds => "a duration like \"2s\"",
            Unit::Count => "a number",
        }
    }

    fn parse(self, v: &Value, path: &str) -> Result<f64, ScenarioError> {
        let x = match (self, v) {
            (Unit::Bytes, Value::String(s)) => {
                parse_bytes(s).and_then(|b| limits::check_bytes(b, s)).map(|b| b as f64)
            }
            (Unit::Seconds, Value::String(s)) => parse_duration(s)
                .and_then(|d| limits::check_duration(d, s))
                .map(|d| d.as_secs_f64()),
            (Unit::Count, Value::Number(n)) => {
                n.as_f64().ok_or_else(|| format!("{n} is not a number"))
            }
            _ => Err(format!("expected {}, got {v}", self.example())),
        }
        .map_err(|m| ScenarioError::new(path, m))?;
        if !(x.is_finite() && x >= 0.0) {
            return Err(ScenarioError::new(
                path,
                format!("{v} is out of range: expected {} of at least 0", self.example()),
            ));
        }
        Ok(self.snap(x))
    }

    fn write(self, x: f64) -> Value {
        match self {
            Unit::Bytes => Value::String(format!("{}B", x.round() as u64)),
            Unit::Seconds => Value::String(SimDuration::from_secs_f64(x).to_string()),
            Unit::Count => serde_json::json!(x),
        }
    }
}

fn number(v: &Value, path: &str) -> Result<f64, ScenarioError> {
    match v.as_f64() {
        Some(x) if x.is_finite() => Ok(x),
        _ => Err(ScenarioError::new(path, format!("expected a number, got {v}"))),
    }
}

/// Takes the listed keys out of a table, refusing any other.
fn fields<'a>(
    m: &'a Map<String, Value>,
    path: &str,
    allowed: &[&str],
    what: &str,
) -> Result<impl Fn(&str) -> Option<&'a Value> + 'a, ScenarioError> {
    if let Some(k) = m.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(ScenarioError::new(
            format!("{path}.{k}"),
            format!("unknown field for {what}: expected {}", allowed.join(", ")),
        ));
    }
    Ok(move |k: &str| m.get(k))
}

fn required<'a>(v: Option<&'a Value>, path: &str, key: &str) -> Result<&'a Value, ScenarioError> {
    v.ok_or_else(|| ScenarioError::new(path, format!("missing field `{key}`")))
}

/// Parses a distribution of `unit` at `path`.
pub fn parse_dist(v: &Value, path: &str, unit: Unit) -> Result<DistSpec, ScenarioError> {
    if !v.is_object() {
        let x = unit.parse(v, path)?;
        return Ok(DistSpec { unit, dist: Dist::Fixed(x) });
    }
    let kinds = ["fixed", "exponential", "pareto", "lognormal", "uniform"];
    let (kind, rest) = kind_of(v, path, &kinds)?;
    let Value::Object(m) = rest else { unreachable!("kind_of returns a table") };
    let at = |k: &str| format!("{path}.{k}");
    let positive = |x: f64, key: &str| -> Result<f64, ScenarioError> {
        if x > 0.0 {
            Ok(x)
        } else {
            Err(ScenarioError::new(at(key), "must be greater than 0"))
        }
    };
    let dist = match kind.as_str() {
        "fixed" => {
            let f = fields(&m, path, &["value"], "a fixed value")?;
            Dist::Fixed(unit.parse(required(f("value"), path, "value")?, &at("value"))?)
        }
        "exponential" => {
            let f = fields(&m, path, &["mean"], "an exponential distribution")?;
            let mean =
                positive(unit.parse(required(f("mean"), path, "mean")?, &at("mean"))?, "mean")?;
            Dist::Exponential { mean }
        }
        "pareto" => {
            let f = fields(&m, path, &["scale", "mean", "shape", "max"], "a Pareto distribution")?;
            let shape =
                positive(number(required(f("shape"), path, "shape")?, &at("shape"))?, "shape")?;
            let scale = match (f("scale"), f("mean")) {
                (Some(s), None) => positive(unit.parse(s, &at("scale"))?, "scale")?,
                (None, Some(mv)) => {
                    if shape <= 1.0 {
                        return Err(ScenarioError::new(at("mean"), format!("a Pareto of shape {shape} has no finite mean: give `scale` instead")));
                    }
                    positive(
                        unit.snap(unit.parse(mv, &at("mean"))? * (shape - 1.0) / shape),
                        "mean",
                    )?
                }
                _ => {
                    return Err(ScenarioError::new(path, "give exactly one of `scale` and `mean`"))
                }
            };
            let max = f("max").map(|x| unit.parse(x, &at("max"))).transpose()?;
            if max.is_some_and(|p| p <= scale) {
                return Err(ScenarioError::new(at("max"), "must be larger than the scale"));
            }
            Dist::Pareto { scale, shape, max }
        }
        "lognormal" => {
            let f = fields(&m, path, &["mu", "mean", "sigma", "max"], "a lognormal distribution")?;
            let sigma =
                positive(number(required(f("sigma"), path, "sigma")?, &at("sigma"))?, "sigma")?;
            let mu = match (f("mu"), f("mean")) {
                (Some(x), None) => number(x, &at("mu"))?,
                (None, Some(mv)) => {
                    positive(unit.parse(mv, &at("mean"))?, "mean")?.ln() - sigma * sigma / 2.0
                }
                _ => return Err(ScenarioError::new(path, "give exactly one of `mu` and `mean`")),
            };
            let max = f("max").map(|x| positive(unit.parse(x, &at("max"))?, "max")).transpose()?;
            Dist::Lognormal { mu, sigma, max }
        }
        "uniform" => {
            let f = fields(&m, path, &["min", "max"], "a uniform distribution")?;
            let lo = unit.parse(required(f("min"), path, "min")?, &at("min"))?;
            let hi = unit.parse(required(f("max"), path, "max")?, &at("max"))?;
            if hi < lo {
                return Err(ScenarioError::new(at("max"), "must not be smaller than `min`"));
            }
            Dist::Uniform { lo, hi }
        }
        _ => unreachable!("kind_of checked the kind"),
    };
    Ok(DistSpec { unit, dist })
}

impl Serialize for DistSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let u = self.unit;
        let entries: Vec<(&str, Value)> = match self.dist {
            Dist::Fixed(x) => return u.write(x).serialize(s),
            Dist::Exponential { mean } => {
                vec![("kind", "exponential".into()), ("mean", u.write(mean))]
            }
            Dist::Pareto { scale, shape, max } => {
                let mut e = vec![
                    ("kind", "pareto".into()),
                    ("scale", u.write(scale)),
                    ("shape", shape.into()),
                ];
                e.extend(max.map(|p| ("max", u.write(p))));
                e
            }
            Dist::Lognormal { mu, sigma, max } => {
                let mut e =
                    vec![("kind", "lognormal".into()), ("mu", mu.into()), ("sigma", sigma.into())];
                e.extend(max.map(|p| ("max", u.write(p))));
                e
            }
            Dist::Uniform { lo, hi } => {
                vec![("kind", "uniform".into()), ("min", u.write(lo)), ("max", u.write(hi))]
            }
        };
        let mut m = s.serialize_map(Some(entries.len()))?;
        for (k, v) in entries {
            m.serialize_entry(k, &v)?;
        }
        m.end()
    }
}

/// An optional upper bound written as a size or `"none"`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MaxSize(pub Option<u64>);

impl Serialize for MaxSize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(b) => Bytes(b).serialize(s),
            None => s.serialize_str("none"),
        }
    }
}

/// Parameters of `app = { kind = "web", ... }` (defaults: SURGE, see `app/web.rs`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WebParams {
    pub body_mu: f64,
    pub body_sigma: f64,
    pub tail_scale: Bytes,
    pub tail_shape: f64,
    pub tail_fraction: f64,
    pub max_size: MaxSize,
    pub objects: DistSpec,
    pub think: DistSpec,
}

/// Default bound on web object sizes: 10 MB, two decades above SURGE's tail cutoff (see
/// `docs/traffic.md` for why a bound is needed and how it was chosen).
pub const WEB_MAX_SIZE: u64 = 10_000_000;

impl Default for WebParams {
    fn default() -> Self {
        let m = WebModel::default();
        WebParams {
            body_mu: m.body_mu,
            body_sigma: m.body_sigma,
            tail_scale: Bytes(m.tail_scale as u64),
            tail_shape: m.tail_shape,
            tail_fraction: m.tail_fraction,
            max_size: MaxSize(Some(WEB_MAX_SIZE)),
            objects: DistSpec { unit: Unit::Count, dist: m.objects },
            think: DistSpec { unit: Unit::Seconds, dist: m.think },
        }
    }
}

impl WebParams {
    pub fn model(&self) -> WebModel {
        WebModel {
            body_mu: self.body_mu,
            body_sigma: self.body_sigma,
            tail_scale: self.tail_scale.0 as f64,
            tail_shape: self.tail_shape,
            tail_fraction: self.tail_fraction,
            max_size: self.max_size.0.map(|b| b as f64),
            objects: self.objects.dist.clone(),
            think: self.think.dist.clone(),
        }
    }

    /// Reads the keys of a `web` app table (without `kind`) at `path`.
    pub fn parse(v: &Value, path: &str) -> Result<WebParams, ScenarioError> {
        let Value::Object(m) = v else { return Err(ScenarioError::new(path, "expected a table")) };
        let keys = [
            "body_mu",
            "body_sigma",
            "tail_scale",
            "tail_shape",
            "tail_fraction",
            "max_size",
            "objects",
            "think",
        ];
        let f = fields(m, path, &keys, "kind = \"web\"")?;
        let at = |k: &str| format!("{path}.{k}");
        let mut p = WebParams::default();
        if let Some(x) = f("body_mu") {
            p.body_mu = number(x, &at("body_mu"))?;
        }
        if let Some(x) = f("body_sigma") {
            p.body_sigma = number(x, &at("body_sigma"))?;
        }
        if let Some(x) = f("tail_scale") {
            p.tail_scale = Bytes(Unit::Bytes.parse(x, &at("tail_scale"))? as u64);
        }
        if let Some(x) = f("tail_shape") {
            p.tail_shape = number(x, &at("tail_shape"))?;
        }
        if p.body_sigma.is_nan() || p.body_sigma <= 0.0 {
            return Err(ScenarioError::new(at("body_sigma"), "must be greater than 0"));
        }
        if p.tail_shape.is_nan() || p.tail_shape <= 0.0 {
            return Err(ScenarioError::new(at("tail_shape"), "must be greater than 0"));
        }
        if p.tail_scale.0 == 0 {
            return Err(ScenarioError::new(at("tail_scale"), "must be at least 1B"));
        }
        p.tail_fraction = match f("tail_fraction") {
            Some(x) => number(x, &at("tail_fraction"))?,
            None => WebModel::spliced_tail_fraction(p.body_mu, p.body_sigma, p.tail_scale.0 as f64),
        };
        if !(0.0..=1.0).contains(&p.tail_fraction) {
            return Err(ScenarioError::new(
                at("tail_fraction"),
                format!("{} is not a probability: expected 0..1", p.tail_fraction),
            ));
        }
        if let Some(x) = f("max_size") {
            p.max_size = match x {
                Value::String(s) if s == "none" => MaxSize(None),
                _ => MaxSize(Some(Unit::Bytes.parse(x, &at("max_size")).map_err(|e| {
                    ScenarioError::new(e.path, format!("{} (or \"none\")", e.message))
                })? as u64)),
            };
        }
        if p.max_size.0.is_some_and(|b| b <= p.tail_scale.0) {
            return Err(ScenarioError::new(at("max_size"), "must be larger than tail_scale"));
        }
        if let Some(x) = f("objects") {
            p.objects = parse_dist(x, &at("objects"), Unit::Count)?;
        }
        let Some(objects) = p.objects.dist.mean() else {
            return Err(ScenarioError::new(
                at("objects"),
                "has no finite mean: use a Pareto shape above 1 or a `max`",
            ));
        };
        if objects > limits::MAX_WEB_OBJECTS {
            return Err(ScenarioError::new(
                at("objects"),
                format!(
                    "a mean of {objects} objects per page is out of range: expected at most {}",
                    limits::MAX_WEB_OBJECTS
                ),
            ));
        }
        if let Some(x) = f("think") {
            p.think = parse_dist(x, &at("think"), Unit::Seconds)?;
        }
        Ok(p)
    }
}

/// Parameters of `app = { kind = "ftp", ... }` (defaults: 3GPP2, see `app/ftp.rs`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FtpParams {
    pub size: DistSpec,
    pub idle: DistSpec,
}

impl Default for FtpParams {
    fn default() -> Self {
        let m = FtpModel::default();
        FtpParams {
            size: DistSpec { unit: Unit::Bytes, dist: m.size },
            idle: DistSpec { unit: Unit::Seconds, dist: m.idle },
        }
    }
}

impl FtpParams {
    pub fn model(&self) -> FtpModel {
        FtpModel { size: self.size.dist.clone(), idle: self.idle.dist.clone() }
    }

    pub fn parse(v: &Value, path: &str) -> Result<FtpParams, ScenarioError> {
        let Value::Object(m) = v else { return Err(ScenarioError::new(path, "expected a table")) };
        let f = fields(m, path, &["size", "idle"], "kind = \"ftp\"")?;
        let mut p = FtpParams::default();
        if let Some(x) = f("size") {
            p.size = parse_dist(x, &format!("{path}.size"), Unit::Bytes)?;
        }
        if let Some(x) = f("idle") {
            p.idle = parse_dist(x, &format!("{path}.idle"), Unit::Seconds)?;
        }
        Ok(p)
    }
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
    pub(super) fn packet_size(&self) -> Option<Bytes> {
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

pub(super) fn parse_app(v: &Value, path: &str) -> Result<AppSpec, ScenarioError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dist(v: Value, unit: Unit) -> Result<Dist, String> {
        parse_dist(&v, "x", unit).map(|d| d.dist).map_err(|e| e.to_string())
    }

    #[test]
    fn distributions_parse_with_units_and_round_trip() {
        assert_eq!(dist(json!("5MB"), Unit::Bytes).unwrap(), Dist::Fixed(5e6));
        assert_eq!(
            dist(json!({"kind": "exponential", "mean": "180s"}), Unit::Seconds).unwrap(),
            Dist::Exponential { mean: 180.0 }
        );
        assert_eq!(
            dist(json!({"kind": "pareto", "mean": "3s", "shape": 1.5}), Unit::Seconds).unwrap(),
            Dist::Pareto { scale: 1.0, shape: 1.5, max: None }
        );
        let ln = dist(
            json!({"kind": "lognormal", "mean": "2MB", "sigma": 0.35, "max": "5MB"}),
            Unit::Bytes,
        )
        .unwrap();
        assert!(
            matches!(ln, Dist::Lognormal { mu, max: Some(m), .. } if (mu - (2e6f64.ln() - 0.06125)).abs() < 1e-12 && m == 5e6)
        );
        for v in [
            json!({"kind": "pareto", "scale": "133KB", "shape": 1.1, "max": "10MB"}),
            json!({"kind": "uniform", "min": "1.25s", "max": "3s"}),
            json!({"kind": "lognormal", "mean": "2.5s", "sigma": 0.3}),
            json!("250ms"),
        ] {
            let unit = if v.to_string().contains("B\"") { Unit::Bytes } else { Unit::Seconds };
            let d = parse_dist(&v, "x", unit).unwrap();
            let again = parse_dist(&serde_json::to_value(&d).unwrap(), "x", unit).unwrap();
            assert_eq!(d, again, "{v}");
        }
    }

    #[test]
    fn bad_distributions_name_the_field() {
        let e =
            dist(json!({"kind": "pareto", "mean": "3s", "shape": 0.9}), Unit::Seconds).unwrap_err();
        assert!(e.starts_with("x.mean: a Pareto of shape 0.9 has no finite mean"), "{e}");
        let e = dist(json!({"kind": "gamma"}), Unit::Seconds).unwrap_err();
        assert!(e.starts_with("x.kind: unknown kind \"gamma\""), "{e}");
        let e = dist(json!({"kind": "exponential", "mean": "3s", "rate": 1}), Unit::Seconds)
            .unwrap_err();
        assert!(e.starts_with("x.rate: unknown field"), "{e}");
        let e =
            dist(json!({"kind": "uniform", "min": "3s", "max": "1s"}), Unit::Seconds).unwrap_err();
        assert!(e.starts_with("x.max:"), "{e}");
        let e = dist(json!(5), Unit::Bytes).unwrap_err();
        assert!(e.contains("expected a size like"), "{e}");
    }

    #[test]
    fn web_parameters_default_to_surge_and_validate() {
        let p = WebParams::parse(&json!({}), "app").unwrap();
        assert_eq!(p, WebParams::default());
        assert_eq!(p.model().tail_shape, 1.1);
        let p = WebParams::parse(
            &json!({"max_size": "none", "think": {"kind": "exponential", "mean": "5s"}}),
            "app",
        )
        .unwrap();
        assert_eq!(p.max_size, MaxSize(None));
        let e = WebParams::parse(&json!({"max_size": "100KB"}), "app").unwrap_err().to_string();
        assert!(e.starts_with("app.max_size: must be larger than tail_scale"), "{e}");
        let e = WebParams::parse(
            &json!({"objects": {"kind": "pareto", "scale": 1, "shape": 0.8}}),
            "app",
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("app.objects: has no finite mean"), "{e}");
        let e = WebParams::parse(&json!({"pages": 3}), "app").unwrap_err().to_string();
        assert!(e.starts_with("app.pages: unknown field for kind = \"web\""), "{e}");
    }
}
