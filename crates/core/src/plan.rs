//! A scenario's expansion, without running it: what backends that run the scenario elsewhere
//! (the kernel testbed, the peer simulators) need to run exactly the simulator's network and to
//! shape their results as a run's.
//!
//! Building the scenario expands its flow groups (counts, start times and RTTs drawn from the
//! seed, each flow's endpoints and resolved options) and names the link directions; the plan
//! holds them as the identity columns of a run's `flows` and `links` tables (the same names,
//! order and values), with the names of every column of a run's four tables.

use crate::record::identity::{flow_identity, link_identity};
use crate::record::result::Table;
use crate::scenario::{Scenario, ScenarioError};
use serde_json::Value;

/// The columns of a run's `flows` table, in order (`sim` writes them; a test keeps the two equal).
pub const FLOW_COLUMNS: &[&str] = &[
    "flow_id",
    "group",
    "protocol",
    "cc",
    "cc_algorithm",
    "cc_params",
    "recovery",
    "stack",
    "app",
    "role",
    "src",
    "dst",
    "start_s",
    "rtt_base_s",
    "sent_pkts",
    "sent_bytes",
    "retransmitted_pkts",
    "delivered_pkts",
    "delivered_bytes",
    "dropped_pkts",
    "in_flight_pkts",
    "ack_dropped_pkts",
    "goodput_bytes",
    "meas_start_s",
    "meas_sent_pkts",
    "meas_sent_bytes",
    "meas_delivered_pkts",
    "meas_goodput_bytes",
    "meas_dropped_pkts",
    "delay_count",
    "delay_mean_s",
    "delay_min_s",
    "delay_max_s",
    "delay_p50_s",
    "delay_p95_s",
    "delay_p99_s",
    "delay_jitter_s",
    "completion_s",
    "timeouts",
    "fast_recoveries",
    "loss_probes",
    "ce_marked_pkts",
    "ecn_reductions",
    "sq_sent_pkts",
    "sq_bytes",
    "sq_received_pkts",
    "sq_dropped_pkts",
    "sq_delay_mean_s",
    "sq_reductions",
];

/// The columns of a run's `flow_series` table.
pub const FLOW_SERIES_COLUMNS: &[&str] = &[
    "flow_id",
    "t_s",
    "sent_pkts",
    "sent_bytes",
    "retransmitted_pkts",
    "delivered_pkts",
    "dropped_pkts",
    "goodput_bytes",
    "cwnd_pkts",
    "ssthresh_pkts",
    "srtt_s",
    "delay_mean_s",
    "rate_bps",
];

/// The columns of a run's `links` table.
pub const LINK_COLUMNS: &[&str] = &[
    "link",
    "src",
    "dst",
    "rate_bps",
    "delay_s",
    "queue",
    "tx_pkts",
    "tx_bytes",
    "dropped_pkts",
    "meas_tx_bytes",
    "meas_dropped_pkts",
    "mean_queue_pkts",
    "max_queue_pkts",
    "early_dropped_pkts",
    "marked_pkts",
    "sq_sent_pkts",
    "meas_duration_s",
    "meas_rate_bps",
];

/// The columns of a run's `link_series` table.
pub const LINK_SERIES_COLUMNS: &[&str] = &[
    "link",
    "t_s",
    "tx_pkts",
    "tx_bytes",
    "dropped_pkts",
    "queue_pkts",
    "queue_bytes",
    "max_queue_pkts",
];

/// A run's tables by name, each with its columns.
pub const TABLE_COLUMNS: [(&str, &[&str]); 4] = [
    ("flows", FLOW_COLUMNS),
    ("flow_series", FLOW_SERIES_COLUMNS),
    ("links", LINK_COLUMNS),
    ("link_series", LINK_SERIES_COLUMNS),
];

/// A scenario as the simulator would run it, with the facts a run reports before any packet.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub name: String,
    pub seed: u64,
    pub duration_s: f64,
    pub warmup_s: f64,
    pub sample_interval_s: f64,
    /// The scenario, normalised (defaults filled in), as a run's result holds it.
    pub scenario: Value,
    /// One row per flow, main and background: the first columns of a run's `flows`.
    pub flows: Table,
    /// One row per link direction: the first columns of a run's `links`.
    pub links: Table,
}

/// Builds `scenario` (so it fails as a run would before its first event) and describes it.
pub fn plan(scenario: &Scenario) -> Result<Plan, ScenarioError> {
    let built = scenario.build()?;
    Ok(Plan {
        name: scenario.name.clone(),
        seed: scenario.seed,
        duration_s: scenario.duration.0.as_secs_f64(),
        warmup_s: scenario.warmup.0.as_secs_f64(),
        sample_interval_s: scenario.sample_interval.0.as_secs_f64(),
        scenario: scenario.normalised(),
        flows: flow_identity(&built.flows),
        links: link_identity(&built.parts.links, &built.node_names),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim;

    /// Every example scenario shipped with the package (experiments aside), shortened to 1 s.
    fn examples() -> Vec<(String, Scenario)> {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/ccarena/scenarios");
        let mut paths = Vec::new();
        let mut dirs = vec![std::path::PathBuf::from(root)];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("example scenarios") {
                let path = entry.unwrap().path();
                if path.is_dir() && !path.ends_with("experiments") {
                    dirs.push(path);
                } else if path.extension().is_some_and(|x| x == "toml") {
                    paths.push(path);
                }
            }
        }
        paths.sort();
        paths
            .into_iter()
            .map(|p| {
                let text = std::fs::read_to_string(&p).unwrap();
                let mut v: Value = toml::from_str(&text).unwrap();
                v["duration"] = "1s".into();
                v["warmup"] = "0s".into();
                // A trace file is named relative to its scenario (the Python loader's rule).
                if let Some(Value::String(t)) = v["topology"].get("bottleneck_trace").cloned() {
                    let beside = p.parent().unwrap().join(t);
                    v["topology"]["bottleneck_trace"] = beside.display().to_string().into();
                }
                let name = p.strip_prefix(root).unwrap().display().to_string();
                let s = Scenario::from_value(&v).unwrap_or_else(|e| panic!("{name}: {e}"));
                (name, s)
            })
            .collect()
    }

    fn names(t: &Table) -> Vec<&str> {
        t.columns.iter().map(|(n, _)| *n).collect()
    }

    /// The first columns of `run`, as many as `plan` has.
    fn leading(run: &Table, plan: &Table) -> Table {
        Table { columns: run.columns[..plan.columns.len()].to_vec() }
    }

    #[test]
    fn the_plan_is_what_a_run_reports_before_its_first_packet() {
        let examples = examples();
        assert!(examples.len() > 10, "{} examples", examples.len());
        for (name, s) in examples {
            let p = plan(&s).unwrap_or_else(|e| panic!("{name}: {e}"));
            let r = sim::run_quiet(&s).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(p.flows, leading(&r.flows, &p.flows), "{name}");
            assert_eq!(p.links, leading(&r.links, &p.links), "{name}");
            assert_eq!(
                (p.name, p.seed, p.duration_s, p.warmup_s, p.sample_interval_s, p.scenario),
                (r.name, r.seed, r.duration_s, r.warmup_s, r.sample_interval_s, r.scenario),
                "{name}"
            );
            let tables = [&r.flows, &r.flow_series, &r.links, &r.link_series];
            for ((table, columns), t) in TABLE_COLUMNS.iter().zip(tables) {
                assert_eq!(&names(t), columns, "{name}: {table}");
            }
        }
    }

    #[test]
    fn a_scenario_that_cannot_be_built_is_refused_as_a_run_refuses_it() {
        let text = r#"
            duration = "1s"
            [topology]
            kind = "graph"
            nodes = ["A", "B", "C"]
            links = [{ a = "A", b = "B", rate = "10Mbps", delay = "1ms" }]
            [[flows]]
            src = "A"
            dst = "C"
        "#;
        let s = Scenario::from_toml(text).unwrap();
        let refused = plan(&s).unwrap_err().to_string();
        match sim::run_quiet(&s) {
            Err(sim::RunError::Scenario(e)) => assert_eq!(refused, e.to_string()),
            other => panic!("the run was not refused: {:?}", other.map(|r| r.name)),
        }
    }
}
