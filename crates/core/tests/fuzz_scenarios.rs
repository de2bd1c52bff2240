//! Structure-aware fuzzing of scenario parsing, validation and a bounded run.
//!
//! Starts from the example scenarios shipped with the package, applies random mutations of the
//! classes a careless or adversarial user produces (wrong types, zero, negative, huge and tiny
//! quantities, unknown keys, removed keys, deep nesting, very long strings), and requires that
//! every input ends in `Ok` or a typed error: never a panic, and — through the event budget
//! given to the progress callback — never an unbounded run. A fixed seed and case count keep it
//! deterministic and fast enough for every `cargo test`.

use ccarena_core::rng::{Rng, StreamKind};
use ccarena_core::scenario::Scenario;
use ccarena_core::sim::{self, RunError};
use ccarena_core::time::SimDuration;
use serde_json::{json, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};

const CASES: u64 = 4000;
/// Accepted scenarios get a run of at most this much simulated time...
const RUN_FOR: SimDuration = SimDuration::from_millis(200);
/// ...and at most this many progress reports (2^18 steps each: events and packet hops).
const RUN_REPORTS: u32 = 4;

fn examples() -> Vec<(String, Value)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/ccarena/scenarios");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("example scenarios")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let table: toml::Table = toml::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                serde_json::to_value(table).unwrap(),
            )
        })
        .collect()
}

/// Every path to a value in `v` (object keys and array indices), the root excluded.
fn paths(v: &Value, prefix: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                prefix.push(json!(k));
                out.push(prefix.clone());
                paths(x, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                prefix.push(json!(i));
                out.push(prefix.clone());
                paths(x, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

fn at<'a>(v: &'a mut Value, path: &[Value]) -> Option<&'a mut Value> {
    path.iter().try_fold(v, |v, k| match (v, k) {
        (Value::Object(m), Value::String(k)) => m.get_mut(k),
        (Value::Array(a), Value::Number(i)) => a.get_mut(i.as_u64()? as usize),
        _ => None,
    })
}

fn pick<T: Clone>(rng: &mut Rng, xs: &[T]) -> T {
    xs[(rng.next_u64() % xs.len() as u64) as usize].clone()
}

/// A replacement value from one of the mutation classes.
fn mutant(rng: &mut Rng, old: &Value) -> Value {
    let unit = old
        .as_str()
        .map(|s| {
            s.trim_start_matches(|c: char| c.is_ascii_digit() || ".-+eE".contains(c)).to_string()
        })
        .unwrap_or_default();
    let nested = |depth: usize, inner: Value| {
        (0..depth).fold(inner, |v, i| if i % 2 == 0 { json!([v]) } else { json!({ "x": v }) })
    };
    match rng.next_u64() % 16 {
        0 => json!("x"),
        1 => json!([1, 2]),
        2 => json!({ "bogus": 1 }),
        3 => json!(true),
        4 => json!(0),
        5 => json!(-1),
        6 => json!(1e30),
        7 => json!(u64::MAX),
        8 => json!(format!("0{unit}")),
        9 => json!(format!("-5{unit}")),
        10 => json!(format!("1e30{unit}")),
        11 => json!(format!("1e-9{unit}")),
        12 => {
            json!(pick(rng, &["1ns", "1bps", "1B", "1pkt", "1e19s", "1e30Gbps", "100us", "1e-8"]))
        }
        13 => nested(40 + (rng.next_u64() % 200) as usize, old.clone()),
        14 => json!("9".repeat(10_000)),
        _ => json!(rng.uniform_range(-2.0, 2.0) * 10f64.powi((rng.next_u64() % 20) as i32 - 10)),
    }
}

fn mutate(rng: &mut Rng, doc: &mut Value) {
    // Mostly one mutation (so that many inputs stay valid and get run), sometimes three.
    let n = if rng.next_u64().is_multiple_of(4) { 3 } else { 1 };
    for _ in 0..n {
        let mut all = Vec::new();
        paths(doc, &mut Vec::new(), &mut all);
        if all.is_empty() {
            return;
        }
        let path = pick(rng, &all);
        let (parent, last) = path.split_at(path.len() - 1);
        let Some(parent) = at(doc, parent) else { continue };
        match (rng.next_u64() % 8, parent) {
            (0, Value::Object(m)) => {
                m.remove(last[0].as_str().unwrap());
            }
            (1, Value::Object(m)) => {
                m.insert("unknown_key".into(), json!(1));
            }
            (_, p) => {
                if let Some(v) = at(p, last) {
                    *v = mutant(rng, v);
                }
            }
        }
    }
}

/// Parses, validates, builds and runs (bounded) one document: `Err` describes a failure that
/// is neither success nor a typed error.
fn exercise(doc: &Value) -> Result<&'static str, String> {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let text = doc.to_string();
        let mut s = match Scenario::from_json(&text) {
            Ok(s) => s,
            Err(e) => {
                assert!(
                    !e.to_string().is_empty() && e.to_string().len() < 2000,
                    "error message of {} chars",
                    e.to_string().len()
                );
                return "refused";
            }
        };
        if s.build().is_err() {
            return "refused when built";
        }
        s.duration.0 = s.duration.0.min(RUN_FOR);
        s.warmup.0 = SimDuration::ZERO;
        let mut reports = 0;
        match sim::run(&s, &mut |_| {
            reports += 1;
            reports < RUN_REPORTS
        }) {
            Ok(_) => "ran",
            Err(RunError::Interrupted) => "ran (budget)",
            Err(RunError::Stalled(_)) => "stalled (typed error)",
            Err(RunError::Scenario(_)) => "refused at run",
            Err(RunError::Option(_) | RunError::Output(_)) => unreachable!("no run options here"),
        }
    }));
    outcome.map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    })
}

#[test]
fn mutated_scenarios_end_in_ok_or_a_typed_error() {
    let examples = examples();
    assert!(examples.len() >= 5, "example scenarios not found");
    let mut rng = Rng::stream(12, StreamKind::App, 0);
    let mut counts = std::collections::BTreeMap::<&str, u32>::new();
    let mut failures = Vec::new();
    for case in 0..CASES {
        let (name, base) = &examples[(case % examples.len() as u64) as usize];
        let mut doc = base.clone();
        mutate(&mut rng, &mut doc);
        match exercise(&doc) {
            Ok(kind) => *counts.entry(kind).or_default() += 1,
            Err(panic) => failures.push(format!(
                "case {case} ({name}): panic {panic}\n  {}",
                &doc.to_string().chars().take(600).collect::<String>()
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {CASES} inputs panicked:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("outcomes: {counts:?}");
    // The mutations must reach both outcomes, or the test proves nothing.
    assert!(counts.get("refused").copied().unwrap_or(0) > CASES as u32 / 4, "{counts:?}");
    assert!(
        counts.iter().filter(|(k, _)| k.starts_with("ran")).map(|(_, n)| n).sum::<u32>()
            > CASES as u32 / 40,
        "{counts:?}"
    );
}

#[test]
fn deep_nesting_and_huge_inputs_are_refused_in_one_line() {
    let deep = (0..5000).fold(json!(1), |v, _| json!([v]));
    let doc = json!({ "duration": "1s", "topology": deep, "flows": [{}] });
    let e = Scenario::from_json(&doc.to_string()).unwrap_err().to_string();
    assert!(!e.contains('\n') && e.len() < 600, "{e}");
    let toml = format!(
        "duration = \"1s\"\ntopology = {}1{}\n",
        "{ a = ".repeat(50_000),
        "}".repeat(50_000)
    );
    let e = Scenario::from_toml(&toml).unwrap_err().to_string();
    assert!(e.starts_with("not valid TOML (line 2)") && !e.contains('\n'), "{e}");
    let long = json!({ "duration": "9".repeat(1_000_000) + "s", "topology": {}, "flows": [{}] });
    let e = Scenario::from_json(&long.to_string()).unwrap_err().to_string();
    assert!(e.starts_with("duration: ") && e.len() < 300, "{} chars", e.len());
}

/// Every numeric parameter of every algorithm at extreme values (tiny, huge, and the default
/// scaled by 10⁻³ and 10³): each is refused with its range, or runs; none panics or spins.
#[test]
fn extreme_algorithm_parameters_are_refused_or_run() {
    let algorithms = ccarena_core::cc::tcp_algorithms()
        .into_iter()
        .map(|a| ("tcp", a))
        .chain(ccarena_core::dccp::dccp_algorithms().into_iter().map(|a| ("dccp", a)));
    let mut failures = Vec::new();
    let (mut refused, mut ran) = (0, 0);
    for (protocol, a) in algorithms {
        let Value::Object(params) = &a.params else { continue };
        for (name, default) in params {
            let Some(d) = default.as_f64() else { continue };
            for v in [1e-30, 1e30, d * 1e-3, d * 1e3] {
                let doc = json!({
                    "duration": "1s",
                    "topology": { "kind": "dumbbell", "bottleneck_rate": "10Mbps", "bottleneck_delay": "10ms" },
                    "flows": [{ "protocol": protocol, "cc": a.name, "cc_params": { name.as_str(): v } }],
                });
                match exercise(&doc) {
                    Ok("refused") => refused += 1,
                    Ok(_) => ran += 1,
                    Err(panic) => failures.push(format!("{}.{name} = {v}: {panic}", a.name)),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(refused > 50 && ran > 50, "refused {refused}, ran {ran}");
}
