//! The top level of a scenario, read part by part so that one file's mistakes are reported
//! together: the top-level keys, `[topology]`, each `[[flows]]` group, `[[background]]` and
//! `[jitter]` are independent, and an error in one does not hide an error in another. Rules
//! across parts (warmup against duration) are checked where both parts were read; the
//! cross-references between flows and the topology only once every part is valid, since they
//! need the whole scenario.

use super::raw::RawFlowGroup;
use super::{
    background, flows, jitter, limits, messages, parse_at, Protocol, Scenario, ScenarioError,
    Topology,
};
use crate::tcp::Stack;
use crate::time::{Dur, SimDuration};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// The keys of a scenario's top level (SCENARIO.md).
const TOP_KEYS: [&str; 10] = [
    "name",
    "duration",
    "seed",
    "sample_interval",
    "warmup",
    "topology",
    "flows",
    "background",
    "jitter",
    "stack",
];

const REQUIRED: &str = "is required: a scenario needs at least duration, [topology] and [[flows]]";

/// Errors gathered while the parts are read.
#[derive(Default)]
struct Gathered(Vec<ScenarioError>);

impl Gathered {
    /// `r`'s value, or `None` with its error kept.
    fn keep<T>(&mut self, r: Result<T, ScenarioError>) -> Option<T> {
        r.map_err(|e| self.0.push(e)).ok()
    }

    /// The scenario's first error with the others after it, if there was any.
    fn into_result(self) -> Result<(), ScenarioError> {
        let mut all = self.0.into_iter();
        match all.next() {
            None => Ok(()),
            Some(first) => Err(first.with_also(all.collect())),
        }
    }
}

/// Reads top-level key `key` as `T`, if the file has it.
fn optional<T: DeserializeOwned>(
    top: &Map<String, Value>,
    key: &str,
    errors: &mut Gathered,
) -> Option<T> {
    top.get(key).and_then(|v| errors.keep(parse_at(v, key)))
}

/// Reads required top-level key `key` as `T`.
fn required<T: DeserializeOwned>(
    top: &Map<String, Value>,
    key: &str,
    errors: &mut Gathered,
) -> Option<T> {
    match top.get(key) {
        Some(v) => errors.keep(parse_at(v, key)),
        None => errors.keep(Err(ScenarioError::new(key, REQUIRED))),
    }
}

pub(super) fn scenario(v: &Value) -> Result<Scenario, ScenarioError> {
    let Value::Object(top) = v else {
        return Err(ScenarioError::new(
            "",
            "a scenario is a table of keys (duration, topology, flows, ...)",
        ));
    };
    let mut errors = Gathered::default();
    for key in top.keys().filter(|k| !TOP_KEYS.contains(&k.as_str())) {
        let list = TOP_KEYS.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
        let serde_words = format!("unknown field `{key}`, expected one of {list}");
        errors.0.push(ScenarioError::new(key.as_str(), messages::plain_with(&serde_words, &[])));
    }
    let duration: Option<Dur> = required(top, "duration", &mut errors);
    let duration = duration.filter(|d| {
        let positive = d.0.as_nanos() > 0;
        if !positive {
            errors.0.push(ScenarioError::new("duration", "must be longer than 0s"));
        }
        positive
    });
    let name: Option<String> = optional(top, "name", &mut errors);
    let seed: Option<u64> = optional(top, "seed", &mut errors);
    let sample_interval = optional::<Dur>(top, "sample_interval", &mut errors)
        .unwrap_or(Dur(SimDuration::from_millis(100)));
    let warmup: Dur = optional(top, "warmup", &mut errors).unwrap_or(Dur(SimDuration::ZERO));
    let stack: Option<Stack> = optional(top, "stack", &mut errors);
    if let Some(duration) = duration {
        errors.keep(check_times(duration, sample_interval, warmup));
    }
    let topology = match top.get("topology") {
        Some(t) => errors.keep(Topology::parse(t)),
        None => errors.keep(Err(ScenarioError::new("topology", REQUIRED))),
    };
    // Whether flows sit on a graph is the topology's kind, even when the rest of it is wrong.
    let is_graph = match &topology {
        Some(t) => matches!(t, Topology::Graph(_)),
        None => top.get("topology").and_then(|t| t.get("kind")) == Some(&Value::from("graph")),
    };
    let groups: Vec<Value> = required(top, "flows", &mut errors).unwrap_or_default();
    if top.contains_key("flows") && groups.is_empty() {
        errors.0.push(ScenarioError::new("flows", "at least one [[flows]] group is required"));
    }
    let mut flows = Vec::with_capacity(groups.len());
    for (i, g) in groups.iter().enumerate() {
        let path = format!("flows[{i}]");
        let Some(mut g) = errors.keep(parse_at::<RawFlowGroup>(g, &path)) else { continue };
        // The scenario's `stack` is the default of its TCP groups (a DCCP or UDP group has no
        // TCP profile, so one scenario can switch a group's protocol in a grid).
        if matches!(g.protocol, None | Some(Protocol::Tcp)) {
            g.stack = g.stack.or(stack);
        }
        if let Some(group) = errors.keep(flows::parse_group(g, &path, is_graph)) {
            flows.push(group);
        }
    }
    let background = match (top.get("background"), &topology) {
        (Some(b), Some(topology)) => {
            let values: Option<Vec<Value>> = errors.keep(parse_at(b, "background"));
            errors.keep(background::parse(values.as_deref().unwrap_or(&[]), topology, stack))
        }
        _ => Some(Vec::new()),
    };
    let jitter = top.get("jitter").and_then(|j| errors.keep(jitter::Jitter::parse(j))).flatten();
    let total: u64 = flows.iter().map(|g| u64::from(g.count)).sum();
    if total > limits::MAX_FLOWS {
        errors.0.push(ScenarioError::new(
            "flows",
            format!(
                "{total} flows in all groups is out of range: expected at most {}",
                limits::MAX_FLOWS
            ),
        ));
    }
    errors.into_result()?;
    let (Some(duration), Some(topology), Some(background)) = (duration, topology, background)
    else {
        unreachable!("a part that was not read left an error")
    };
    let s = Scenario {
        name: name.unwrap_or_else(|| "unnamed".into()),
        duration,
        seed: seed.unwrap_or(1),
        sample_interval,
        warmup,
        topology,
        flows,
        background,
        jitter,
        stack,
    };
    s.check_cross_references()?;
    Ok(s)
}

/// The sampling interval and the warm-up against the run's duration.
fn check_times(duration: Dur, sample_interval: Dur, warmup: Dur) -> Result<(), ScenarioError> {
    if sample_interval.0.as_nanos() == 0 {
        return Err(ScenarioError::new("sample_interval", "must be longer than 0s"));
    }
    if duration.0.as_nanos() / sample_interval.0.as_nanos() > 10_000_000 {
        return Err(ScenarioError::new(
            "sample_interval",
            format!("{} gives more than 10 million samples over {}", sample_interval.0, duration.0),
        ));
    }
    if warmup >= duration {
        return Err(ScenarioError::new(
            "warmup",
            format!("{} must be shorter than the duration {}", warmup.0, duration.0),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::tests::BASE;
    use super::super::Scenario;

    fn lines(text: &str) -> Vec<String> {
        Scenario::from_toml(text).unwrap_err().lines()
    }

    #[test]
    fn errors_of_independent_parts_are_reported_together() {
        let text = BASE
            .replace("duration = \"10s\"", "duration = \"10s\"\ndurration = 3")
            .replace("\"10Mbps\"", "\"10Mbs\"")
            .replace("cc = \"reno\"", "cc = \"renoo\"\n[[flows]]\ncount = \"x\"");
        let got = lines(&text);
        let paths: Vec<&str> = got.iter().map(|l| l.split(':').next().unwrap()).collect();
        assert_eq!(
            paths,
            ["durration", "topology.bottleneck_rate", "flows[0].cc", "flows[1].count"],
            "{got:?}"
        );
        assert!(got[0].contains("did you mean `duration`?"), "{got:?}");
    }

    #[test]
    fn a_part_with_an_error_does_not_add_errors_of_its_own_consequences() {
        // A bad topology leaves the flows to be read on their own: no error about placement.
        let got = lines(&BASE.replace("kind = \"dumbbell\"", "kind = \"dumbel\""));
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0].starts_with("topology.kind: unknown kind \"dumbel\""), "{got:?}");
    }

    #[test]
    fn many_errors_end_with_a_count_of_the_others() {
        let groups: String = (0..10).map(|_| "[[flows]]\ncc = \"nope\"\n").collect();
        let got = lines(&BASE.replace("[[flows]]\n        cc = \"reno\"", &groups));
        assert_eq!(got.len(), super::limits::MAX_REPORTED_ERRORS, "{got:?}");
        assert_eq!(got.last().unwrap(), "... and 5 more errors in this scenario");
    }
}
