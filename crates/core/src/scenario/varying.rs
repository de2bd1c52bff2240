//! Links whose capacity varies: `schedule = [{ at, rate, delay, loss }, ...]` and
//! `trace = "file"` (Mahimahi's format) on a graph link, `schedule` and `bottleneck_trace` on a
//! dumbbell's bottleneck (docs/topologies.md, "Variable links").
//!
//! The normalised form is complete and self-contained: every step has all four values, and a
//! trace is its list of milliseconds (the file is read once, when the scenario is), so a stored
//! or distributed scenario runs the same without the file.

use super::units::RateQ;
use super::{limits, parse_at, ScenarioError};
use crate::net::schedule::{Schedule, Step};
use crate::net::trace::Trace;
use crate::net::varying::Varying;
use crate::rng::{Rng, StreamKind};
use crate::time::{parse_rate, Dur, Rate, SimDuration, SimTime};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Most steps of a schedule and lines of a trace (a day of a 1 Gbit/s trace has 7·10⁹; a
/// minute of a 100 Mbit/s one 5·10⁵).
const MAX_STEPS: usize = 10_000_000;

/// A step of a normalised schedule: the link from `at` on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StepSpec {
    pub at: Dur,
    /// `0bps` is an outage.
    pub rate: RateQ,
    pub delay: Dur,
    pub loss: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep {
    at: Dur,
    rate: Option<String>,
    delay: Option<Dur>,
    loss: Option<f64>,
}

/// A step's rate: a rate as elsewhere, or zero (an outage), which links elsewhere cannot have.
fn parse_step_rate(s: &str, path: &str) -> Result<Rate, ScenarioError> {
    let number = s.trim().trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == '/');
    match parse_rate(s) {
        Ok(r) => limits::check_rate(r, s),
        // A known unit, and the number is zero.
        Err(e)
            if e.contains("must be a positive rate") && number.trim().parse::<f64>() == Ok(0.0) =>
        {
            Ok(Rate(0))
        }
        Err(e) => Err(e),
    }
    .map_err(|e| ScenarioError::new(path, e))
}

/// Reads `schedule` at `path`, each step's missing values those of the step before (the first
/// step's, the link's own `rate` and `delay` and no loss).
pub(crate) fn parse_schedule(
    v: &Value,
    path: &str,
    rate: Rate,
    delay: SimDuration,
) -> Result<Vec<StepSpec>, ScenarioError> {
    let raw: Vec<Value> = parse_at(v, path)?;
    if raw.is_empty() || raw.len() > MAX_STEPS {
        return Err(ScenarioError::new(
            path,
            format!(
                "has {} steps: expected 1 to {MAX_STEPS} tables {{ at, rate, delay, loss }}",
                raw.len()
            ),
        ));
    }
    let mut steps: Vec<StepSpec> = Vec::with_capacity(raw.len());
    let mut last =
        StepSpec { at: Dur(SimDuration::ZERO), rate: RateQ(rate), delay: Dur(delay), loss: 0.0 };
    for (i, v) in raw.iter().enumerate() {
        let here = format!("{path}[{i}]");
        let step: RawStep = parse_at(v, &here)?;
        if step.rate.is_none() && step.delay.is_none() && step.loss.is_none() {
            return Err(ScenarioError::new(
                here,
                "changes nothing: give at least one of rate, delay, loss",
            ));
        }
        if let Some(prev) = steps.last() {
            if step.at.0 <= prev.at.0 {
                return Err(ScenarioError::new(
                    format!("{here}.at"),
                    format!(
                        "{} is not after the step before ({}): steps go in increasing order of at",
                        step.at.0, prev.at.0
                    ),
                ));
            }
        }
        if let Some(p) = step.loss {
            if !(0.0..=1.0).contains(&p) {
                return Err(ScenarioError::new(
                    format!("{here}.loss"),
                    format!("{p} is not a probability: expected 0 to 1"),
                ));
            }
        }
        let rate = match &step.rate {
            Some(s) => RateQ(parse_step_rate(s, &format!("{here}.rate"))?),
            None => last.rate,
        };
        last = StepSpec {
            at: step.at,
            rate,
            delay: step.delay.unwrap_or(last.delay),
            loss: step.loss.unwrap_or(last.loss),
        };
        steps.push(last.clone());
    }
    if last.rate.0 .0 == 0 {
        return Err(ScenarioError::new(
            format!("{path}[{}].rate", raw.len() - 1),
            "0bps for good: the last step must give the link a rate again",
        ));
    }
    Ok(steps)
}

/// A trace as the scenario gives it: a file name, or (the normalised form) its milliseconds.
#[derive(Deserialize)]
#[serde(untagged)]
enum RawTrace {
    File(String),
    Lines(Vec<u64>),
}

/// Reads a trace at `path`: a Mahimahi file (relative to the working directory; the Python
/// loader makes it relative to the scenario's file) or its list of milliseconds.
pub(crate) fn parse_trace(v: &Value, path: &str) -> Result<Vec<u32>, ScenarioError> {
    let err = |m: String| ScenarioError::new(path, m);
    let lines = match parse_at::<RawTrace>(v, path) {
        Ok(RawTrace::File(f)) => read_trace_file(&f).map_err(err)?,
        Ok(RawTrace::Lines(l)) => l,
        Err(_) => return Err(err("expected a trace file name or a list of milliseconds".into())),
    };
    let max_ms = limits::MAX_DURATION.as_nanos() / 1_000_000;
    if lines.is_empty() || lines.len() > MAX_STEPS {
        return Err(err(format!(
            "has {} lines: expected 1 to {MAX_STEPS} delivery opportunities",
            lines.len()
        )));
    }
    if let Some(i) = lines.windows(2).position(|w| w[1] < w[0]) {
        return Err(err(format!(
            "line {}: {} ms comes before the line above ({} ms): a trace is in increasing order",
            i + 2,
            lines[i + 1],
            lines[i]
        )));
    }
    let last = *lines.last().expect("not empty");
    if last == 0 || last > max_ms {
        return Err(err(format!("ends at {last} ms: a trace lasts from 1 ms to {max_ms} ms (its last line is its length)")));
    }
    Ok(lines.into_iter().map(|l| l as u32).collect())
}

/// The lines of a Mahimahi trace file: one whole number of milliseconds per line (blank lines
/// skipped).
fn read_trace_file(file: &str) -> Result<Vec<u64>, String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read trace file {}: {e}", limits::shorten(file)))?;
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let ms = line.parse::<u64>().map_err(|_| {
            format!(
                "{} line {}: {:?} is not a whole number of milliseconds",
                limits::shorten(file),
                i + 1,
                limits::shorten(line)
            )
        })?;
        lines.push(ms);
    }
    Ok(lines)
}

/// A trace's long-run rate, to the bit per second (the link's nominal rate).
pub(crate) fn trace_rate(ms: &[u32]) -> Rate {
    Rate(Trace::mean_rate_bps(ms).round() as u64)
}

/// A link's rate (`path`): `rate`, or the long-run rate of the trace (key `trace_key`), which
/// `rate` may only repeat (as the normalised form does).
pub(crate) fn rate_or_trace(
    rate: Option<RateQ>,
    trace: Option<&[u32]>,
    path: &str,
    trace_key: &str,
) -> Result<Rate, ScenarioError> {
    match (rate, trace) {
        (Some(r), None) => Ok(r.0),
        (None, Some(t)) => Ok(trace_rate(t)),
        (Some(r), Some(t)) if r.0 == trace_rate(t) => Ok(r.0),
        (Some(r), Some(t)) => Err(ScenarioError::new(path, format!("{} is not the rate of {trace_key} ({}): give {trace_key} alone, the trace sets the rate", r.0, trace_rate(t)))),
        (None, None) => Err(ScenarioError::new(path, format!("is required: the link's rate (or {trace_key}, a delivery trace)"))),
    }
}

/// What a link direction follows: `steps` (with their losses only where `lossy`: a
/// schedule's loss, as `loss`, is the forward direction's) or `trace`.
pub(crate) fn varying(
    steps: Option<&[StepSpec]>,
    trace: Option<&[u32]>,
    (rate, delay): (Rate, SimDuration),
    lossy: bool,
    (seed, link): (u64, u32),
) -> Option<Varying> {
    if let Some(ms) = trace {
        return Some(Varying::Trace(Trace::new(ms)));
    }
    let specs = steps?;
    let mut steps = vec![Step { at: SimTime::ZERO, rate, delay, loss: 0.0 }];
    for s in specs {
        let step = Step {
            at: SimTime::ZERO + s.at.0,
            rate: s.rate.0,
            delay: s.delay.0,
            loss: if lossy { s.loss } else { 0.0 },
        };
        if s.at.0 == SimDuration::ZERO {
            steps[0] = step;
        } else {
            steps.push(step);
        }
    }
    Some(Varying::Schedule(Schedule::new(
        steps,
        Rng::stream(seed, StreamKind::LinkSchedule, link as u64),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schedule(v: Value) -> Result<Vec<StepSpec>, String> {
        parse_schedule(&v, "s", Rate::mbps(10), SimDuration::from_millis(20))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn steps_carry_the_values_they_do_not_change() {
        let s = schedule(json!([{"at": "10s", "rate": "5Mbps"}, {"at": "20s", "loss": 0.01}, {"at": "30s", "rate": "0bps"}, {"at": "31s", "rate": "8Mbps", "delay": "5ms"}])).unwrap();
        let got: Vec<_> =
            s.iter().map(|s| (s.rate.0 .0, s.delay.0.as_nanos() / 1_000_000, s.loss)).collect();
        assert_eq!(
            got,
            [(5_000_000, 20, 0.0), (5_000_000, 20, 0.01), (0, 20, 0.01), (8_000_000, 5, 0.01)]
        );
        // The normalised form reads back the same.
        let again = schedule(serde_json::to_value(&s).unwrap()).unwrap();
        assert_eq!(again, s);
    }

    #[test]
    fn bad_schedules_are_refused_naming_the_step() {
        let e = schedule(json!([{"at": "10s", "rate": "5Mbps"}, {"at": "5s", "rate": "1Mbps"}]))
            .unwrap_err();
        assert!(e.starts_with("s[1].at: 5s is not after the step before (10s)"), "{e}");
        let e = schedule(json!([{"at": "10s"}])).unwrap_err();
        assert!(e.starts_with("s[0]: changes nothing"), "{e}");
        let e = schedule(json!([{"at": "1s", "loss": 1.5}])).unwrap_err();
        assert!(e.starts_with("s[0].loss: 1.5 is not a probability"), "{e}");
        let e = schedule(json!([{"at": "1s", "rate": "0bps"}])).unwrap_err();
        assert!(e.starts_with("s[0].rate: 0bps for good"), "{e}");
        let e = schedule(json!([{"at": "1s", "rate": "0furlongs"}])).unwrap_err();
        assert!(e.starts_with("s[0].rate: \"0furlongs\" has an unknown unit"), "{e}");
        let e = schedule(json!([{"at": "1s", "rate": "5Mbps", "speed": 1}])).unwrap_err();
        assert!(e.starts_with("s[0].speed: unknown field"), "{e}");
    }

    #[test]
    fn traces_are_read_from_a_file_or_a_list_and_checked() {
        let dir = std::env::temp_dir().join(format!("ccarena-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("t.trace");
        std::fs::write(&f, "1\n1\n\n3\n").unwrap();
        let v = json!(f.to_str().unwrap());
        assert_eq!(parse_trace(&v, "t").unwrap(), [1, 1, 3]);
        std::fs::write(&f, "1\nx\n").unwrap();
        let e = parse_trace(&v, "t").unwrap_err().to_string();
        assert!(e.contains("line 2: \"x\" is not a whole number of milliseconds"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
        let e = parse_trace(&json!("/nonexistent/x.trace"), "t").unwrap_err().to_string();
        assert!(e.starts_with("t: cannot read trace file /nonexistent/x.trace"), "{e}");
        let e = parse_trace(&json!([3, 2]), "t").unwrap_err().to_string();
        assert!(e.starts_with("t: line 2: 2 ms comes before the line above (3 ms)"), "{e}");
        let e = parse_trace(&json!([0, 0]), "t").unwrap_err().to_string();
        assert!(e.starts_with("t: ends at 0 ms"), "{e}");
        let e = parse_trace(&json!(5), "t").unwrap_err().to_string();
        assert!(e.starts_with("t: expected a trace file name or a list"), "{e}");
        // One opportunity per ms: 1504 B · 8 / 1 ms.
        assert_eq!(trace_rate(&[1, 2, 3, 4]), Rate(12_032_000));
    }

    fn scenario(topology: &str) -> Result<crate::scenario::Scenario, String> {
        let flow = if topology.contains("graph") { "src = \"a\"\ndst = \"b\"\n" } else { "" };
        let text =
            format!("duration = \"1s\"\n[topology]\n{topology}\n[[flows]]\ncc = \"reno\"\n{flow}");
        crate::scenario::Scenario::from_toml(&text).map_err(|e| e.to_string())
    }

    #[test]
    fn a_trace_sets_the_rate_and_the_normalised_form_reads_back() {
        let s = scenario(
            "kind = \"dumbbell\"\nbottleneck_trace = [1, 2, 3, 4]\nbottleneck_delay = \"10ms\"",
        )
        .unwrap();
        let n = s.normalised();
        assert_eq!(n["topology"]["bottleneck_rate"], "12.032Mbps");
        assert_eq!(n["topology"]["bottleneck_trace"], json!([1, 2, 3, 4]));
        assert_eq!(crate::scenario::Scenario::from_value(&n).unwrap(), s);
        let e = scenario("kind = \"dumbbell\"\nbottleneck_trace = [1, 2]\nbottleneck_rate = \"10Mbps\"\nbottleneck_delay = \"10ms\"").unwrap_err();
        assert!(
            e.starts_with(
                "topology.bottleneck_rate: 10Mbps is not the rate of bottleneck_trace (12.032Mbps)"
            ),
            "{e}"
        );
        let e = scenario("kind = \"dumbbell\"\nbottleneck_delay = \"10ms\"").unwrap_err();
        assert!(e.starts_with("topology.bottleneck_rate: is required"), "{e}");
        let e = scenario("kind = \"dumbbell\"\nbottleneck_trace = [1]\nbottleneck_delay = \"10ms\"\nschedule = [{ at = \"1s\", delay = \"5ms\" }]").unwrap_err();
        assert!(e.starts_with("topology.schedule: the bottleneck follows bottleneck_trace"), "{e}");
    }

    #[test]
    fn graph_links_take_a_schedule_or_a_trace() {
        let nodes = "kind = \"graph\"\nnodes = [\"a\", \"b\"]\n";
        let s = scenario(&format!("{nodes}links = [{{ a = \"a\", b = \"b\", rate = \"10Mbps\", delay = \"5ms\", schedule = [{{ at = \"2s\", rate = \"1Mbps\" }}] }}]")).unwrap();
        assert_eq!(crate::scenario::Scenario::from_value(&s.normalised()).unwrap(), s);
        let s = scenario(&format!(
            "{nodes}links = [{{ a = \"a\", b = \"b\", trace = [6], delay = \"5ms\" }}]"
        ))
        .unwrap();
        assert_eq!(s.normalised()["topology"]["links"][0]["rate"], "2005.333kbps");
        assert_eq!(crate::scenario::Scenario::from_value(&s.normalised()).unwrap(), s);
        let e = scenario(&format!("{nodes}links = [{{ a = \"a\", b = \"b\", delay = \"5ms\" }}]"))
            .unwrap_err();
        assert!(e.starts_with("topology.links[0].rate: is required"), "{e}");
        let e = scenario(&format!("{nodes}links = [{{ a = \"a\", b = \"b\", rate = \"1Mbps\", delay = \"5ms\", schedule = [{{ at = \"1s\" }}] }}]")).unwrap_err();
        assert!(e.starts_with("topology.links[0].schedule[0]: changes nothing"), "{e}");
    }
}
