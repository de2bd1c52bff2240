//! Set-up time against scenario size, for measuring by hand (not a test of wall time):
//! `cargo test --release -p ccarena-core --test build_scale -- --ignored --nocapture`.

use ccarena_core::scenario::Scenario;
use serde_json::json;
use std::time::Instant;

fn dumbbell(flows: u32) -> serde_json::Value {
    json!({"name": "wide", "duration": "1s",
           "topology": {"kind": "dumbbell", "bottleneck_rate": "1Gbps", "bottleneck_delay": "10ms"},
           "flows": [{"name": "reno", "count": flows, "cc": "reno", "rtt": "100ms"}]})
}

fn dumbbell_groups(flows: u32) -> serde_json::Value {
    let groups: Vec<_> = (0..flows)
        .map(|i| json!({"name": format!("g{i}"), "cc": "reno", "rtt": "100ms"}))
        .collect();
    json!({"name": "wide", "duration": "1s",
           "topology": {"kind": "dumbbell", "bottleneck_rate": "1Gbps", "bottleneck_delay": "10ms"},
           "flows": groups})
}

fn chain(nodes: u32) -> serde_json::Value {
    let names: Vec<String> = (0..nodes).map(|i| format!("n{i}")).collect();
    let links: Vec<_> = (0..nodes - 1).map(|i| json!({"a": names[i as usize], "b": names[i as usize + 1], "rate": "100Mbps", "delay": "1ms"})).collect();
    json!({"name": "chain", "duration": "1s", "topology": {"kind": "graph", "nodes": names, "links": links},
           "flows": [{"name": "f", "cc": "reno", "src": "n0", "dst": names[nodes as usize - 1]}]})
}

fn time(label: &str, v: serde_json::Value) {
    let t = Instant::now();
    let s = Scenario::from_value(&v).unwrap_or_else(|e| panic!("{e}"));
    let parsed = t.elapsed().as_secs_f64();
    let b = s.build().unwrap_or_else(|e| panic!("{e}"));
    let built = t.elapsed().as_secs_f64() - parsed;
    let flows = b.flows.len();
    let w = ccarena_core::engine::World::new(b.parts);
    let world = t.elapsed().as_secs_f64() - parsed - built;
    drop(w);
    let mut short = v.clone();
    short["duration"] = json!("1ms");
    let t = Instant::now();
    let s = Scenario::from_value(&short).unwrap_or_else(|e| panic!("{e}"));
    ccarena_core::sim::run_quiet(&s).unwrap_or_else(|e| panic!("{e}"));
    let run = t.elapsed().as_secs_f64();
    println!("{label:>24}: run 1 ms {run:7.3} s");
    println!("{label:>24}: parse {parsed:7.3} s, build {built:7.3} s, world {world:7.3} s ({flows} flows)");
}

#[test]
#[ignore]
fn set_up_time_by_size() {
    for n in [2_500, 5_000, 10_000, 20_000] {
        time(&format!("dumbbell {n} flows"), dumbbell(n));
    }
    for n in [2_500, 5_000, 10_000, 20_000] {
        time(&format!("dumbbell {n} groups"), dumbbell_groups(n));
    }
    for n in [25_000, 50_000, 100_000] {
        time(&format!("graph chain {n} nodes"), chain(n));
    }
}
