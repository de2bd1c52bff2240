//! Who each flow and each link direction is: the first columns of a run's `flows` and `links`
//! tables, which the run's [`super::recorder::Recorder`] extends with what it counted and a
//! scenario's [`crate::plan`] holds alone (for backends that run the scenario elsewhere).

use crate::cc::CcName;
use crate::net::link::Link;
use crate::record::result::{Column, Table};
use crate::record::secs;
use crate::scenario::build::FlowMeta;

/// One row per flow, main and background: group, protocol and options, endpoints, start time
/// and base RTT.
pub fn flow_identity(metas: &[FlowMeta]) -> Table {
    let mut t = Table::default();
    let strs = |f: &dyn Fn(&FlowMeta) -> String| Column::Str(metas.iter().map(f).collect());
    t.push("flow_id", Column::U64((0..metas.len() as u64).collect()));
    t.push("group", strs(&|m| m.group.clone()));
    t.push("protocol", strs(&|m| m.protocol.to_string()));
    let cc = |f: &dyn Fn(&CcName) -> String| strs(&|m| m.cc.as_ref().map_or_else(String::new, f));
    t.push("cc", cc(&|c| c.to_string()));
    t.push("cc_algorithm", cc(&|c| c.algorithm().to_string()));
    t.push("cc_params", strs(&|m| m.cc_params.clone()));
    t.push("recovery", strs(&|m| m.recovery.clone()));
    t.push("stack", strs(&|m| m.stack.to_string()));
    t.push("app", strs(&|m| m.app.to_string()));
    t.push("role", strs(&|m| m.role.to_string()));
    t.push("src", strs(&|m| m.src.clone()));
    t.push("dst", strs(&|m| m.dst.clone()));
    t.push("start_s", Column::F64(metas.iter().map(|m| secs(m.start)).collect()));
    t.push("rtt_base_s", Column::F64(metas.iter().map(|m| m.rtt_base.as_secs_f64()).collect()));
    t
}

/// One row per link direction: its name, ends (node names), rate, delay and queue.
pub fn link_identity(links: &[Link], node_names: &[String]) -> Table {
    let mut t = Table::default();
    let node = |n: u32| node_names[n as usize].clone();
    t.push("link", Column::Str(links.iter().map(|l| l.name.clone()).collect()));
    t.push("src", Column::Str(links.iter().map(|l| node(l.from.0)).collect()));
    t.push("dst", Column::Str(links.iter().map(|l| node(l.to.0)).collect()));
    t.push("rate_bps", Column::F64(links.iter().map(|l| l.rate.as_bps_f64()).collect()));
    t.push("delay_s", Column::F64(links.iter().map(|l| l.delay.as_secs_f64()).collect()));
    t.push("queue", Column::Str(links.iter().map(|l| l.queue_description()).collect()));
    t
}
