//! The `delay_quantiles` table: each main flow's distribution of one-way delays, read from its
//! delay histogram ([`Histogram::quantiles`]) once at the end of the run, for CDF plots. Only
//! main flows: background sources keep the moments of their delays alone unless asked
//! (`record::histogram`), and a table of thousands of sources would dwarf the others.

use crate::record::result::{Column, Table};
use crate::record::FlowCounters;
use crate::scenario::build::FlowMeta;

/// The table's columns, in order.
pub const DELAY_QUANTILE_COLUMNS: &[&str] = &["flow_id", "q", "delay_s"];

/// Quantiles per flow: q = 0, 0.005, …, 1.
const STEPS: u32 = 200;

/// The levels q = k / 200: q = 0.5, 0.95 and 0.99 are the doubles a literal gives, so those
/// rows equal the `flows` table's `delay_p50_s`, `delay_p95_s` and `delay_p99_s`.
fn levels() -> Vec<f64> {
    (0..=STEPS).map(|k| f64::from(k) / f64::from(STEPS)).collect()
}

/// One row per main flow × level: the flow's id, q and the q-quantile of its delays in seconds
/// (nearest rank, to within the histogram's resolution of 1/128; NaN for a flow that delivered
/// nothing after the warm-up).
pub fn delay_quantiles_table(metas: &[FlowMeta], counters: &[FlowCounters]) -> Table {
    let qs = levels();
    let (mut flow, mut q, mut delay_s) = (Vec::new(), Vec::new(), Vec::new());
    for (i, _) in metas.iter().enumerate().filter(|(_, m)| m.role == "main") {
        let values = counters[i].delay.quantiles(&qs).unwrap_or_else(|| vec![f64::NAN; qs.len()]);
        flow.extend(std::iter::repeat_n(i as u64, qs.len()));
        q.extend_from_slice(&qs);
        delay_s.extend(values.into_iter().map(|ns| ns * 1e-9));
    }
    let mut t = Table::default();
    let columns = [Column::U64(flow), Column::F64(q), Column::F64(delay_s)];
    for (&name, col) in DELAY_QUANTILE_COLUMNS.iter().zip(columns) {
        t.push(name, col);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_levels_are_the_literals_of_the_flows_percentiles() {
        let qs = levels();
        assert_eq!((qs.len(), qs[0], qs[200]), (201, 0.0, 1.0));
        assert_eq!((qs[100], qs[190], qs[198]), (0.50, 0.95, 0.99));
        assert_eq!(qs[1], 0.005);
    }

    #[test]
    fn each_main_flow_has_its_quantiles_and_background_sources_none() {
        let text = r#"
            duration = "3s"
            warmup = "0.5s"
            [topology]
            kind = "dumbbell"
            bottleneck_rate = "10Mbps"
            bottleneck_delay = "5ms"
            [[flows]]
            count = 2
            [[flows]]
            protocol = "udp"
            start = "2.9999s"
            app = { kind = "cbr", rate = "100kbps", packet_size = "1000B" }
            [[background]]
            load = 0.2
        "#;
        let r =
            crate::sim::run_quiet(&crate::scenario::Scenario::from_toml(text).unwrap()).unwrap();
        let t = &r.delay_quantiles;
        let names: Vec<&str> = t.columns.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, DELAY_QUANTILE_COLUMNS);
        assert_eq!(t.rows(), 3 * 201, "the three main flows, no background source");
        let (flow, delay) = (t.u64s("flow_id"), t.f64s("delay_s"));
        for f in 0..2u64 {
            let d: Vec<f64> = (0..t.rows()).filter(|&i| flow[i] == f).map(|i| delay[i]).collect();
            assert!(d.windows(2).all(|w| w[0] <= w[1]), "flow {f}: monotone in q");
            let row = |c: &str| r.flows.f64s(c)[f as usize];
            assert_eq!(
                (d[100], d[190], d[198]),
                (row("delay_p50_s"), row("delay_p95_s"), row("delay_p99_s"))
            );
            let max = row("delay_max_s");
            assert!(
                d[200] <= max && max - d[200] <= max / 128.0,
                "q = 1: the largest delay's bucket"
            );
        }
        let udp: Vec<f64> = (0..t.rows()).filter(|&i| flow[i] == 2).map(|i| delay[i]).collect();
        assert!(udp.iter().all(|d| d.is_nan()), "nothing delivered after the warm-up: NaN");
    }
}
