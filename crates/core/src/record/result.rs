//! The columnar result of a run: named tables of typed columns, ready to become DataFrames.

use serde_json::{json, Value};

#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    U64(Vec<u64>),
    F64(Vec<f64>),
    Str(Vec<String>),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::U64(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Equal-length named columns, in a fixed order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(&'static str, Column)>,
}

impl Table {
    pub fn push(&mut self, name: &'static str, col: Column) {
        debug_assert!(
            self.columns.first().is_none_or(|(_, c)| c.len() == col.len()),
            "column {name} has a different length"
        );
        self.columns.push((name, col));
    }
    pub fn get(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| *n == name).map(|(_, c)| c)
    }
    pub fn u64s(&self, name: &str) -> &[u64] {
        match self.get(name) {
            Some(Column::U64(v)) => v,
            _ => panic!("no u64 column {name}"),
        }
    }
    pub fn f64s(&self, name: &str) -> &[f64] {
        match self.get(name) {
            Some(Column::F64(v)) => v,
            _ => panic!("no f64 column {name}"),
        }
    }
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }
    /// Column-oriented JSON (NaN becomes null).
    pub fn to_json(&self) -> Value {
        let mut m = serde_json::Map::new();
        for (name, col) in &self.columns {
            let v = match col {
                Column::U64(v) => json!(v),
                Column::F64(v) => Value::Array(
                    v.iter().map(|x| if x.is_finite() { json!(x) } else { Value::Null }).collect(),
                ),
                Column::Str(v) => json!(v),
            };
            m.insert(name.to_string(), v);
        }
        Value::Object(m)
    }
}

/// Engine statistics of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EngineStats {
    pub events: u64,
    pub wall_s: f64,
    /// Packet arrivals at the far end of a link (one per packet per hop).
    pub packets_forwarded: u64,
    /// Most packets stored at once.
    pub peak_packets: u64,
    /// Wall-clock seconds from the start of the run to the end of its warm-up (0 without one):
    /// `wall_s − warmup_wall_s` is what the measured part cost, which scales with its length.
    pub warmup_wall_s: f64,
}

/// Everything a run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    pub name: String,
    pub seed: u64,
    pub duration_s: f64,
    pub warmup_s: f64,
    pub sample_interval_s: f64,
    /// The scenario as run, normalised (defaults filled in).
    pub scenario: Value,
    pub engine: EngineStats,
    pub flows: Table,
    pub flow_series: Table,
    pub links: Table,
    pub link_series: Table,
    /// Each main flow's delay distribution (`record::quantiles`).
    pub delay_quantiles: Table,
}

impl RunResult {
    /// Everything except wall-clock time, as JSON: equal for equal scenario and seed.
    pub fn deterministic_json(&self) -> Value {
        json!({
            "name": self.name, "seed": self.seed, "duration_s": self.duration_s,
            "events": self.engine.events, "packets_forwarded": self.engine.packets_forwarded,
            "flows": self.flows.to_json(), "flow_series": self.flow_series.to_json(),
            "links": self.links.to_json(), "link_series": self.link_series.to_json(),
            "delay_quantiles": self.delay_quantiles.to_json(),
        })
    }
}
