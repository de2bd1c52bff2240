//! A run's result and a scenario's plan as Python dicts of columns. A numeric column crosses as
//! one NumPy array that takes over the column's buffer (no Python object per value); a text
//! column as a list of str.

use ccarena_core::plan::{Plan, TABLE_COLUMNS};
use ccarena_core::record::quantiles::DELAY_QUANTILE_COLUMNS;
use ccarena_core::record::result::{Column, RunResult, Table};
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::Value;

/// What a run's result and a plan both report about the scenario: `meta`.
struct Meta<'a> {
    name: &'a str,
    seed: u64,
    duration_s: f64,
    warmup_s: f64,
    sample_interval_s: f64,
    scenario: &'a Value,
}

fn meta_to_py<'py>(py: Python<'py>, m: Meta<'_>) -> PyResult<Bound<'py, PyDict>> {
    let meta = PyDict::new(py);
    meta.set_item("name", m.name)?;
    meta.set_item("seed", m.seed)?;
    meta.set_item("duration_s", m.duration_s)?;
    meta.set_item("warmup_s", m.warmup_s)?;
    meta.set_item("sample_interval_s", m.sample_interval_s)?;
    meta.set_item("version", env!("CARGO_PKG_VERSION"))?;
    meta.set_item("scenario", crate::json_to_py(py, m.scenario)?)?;
    Ok(meta)
}

/// Counters as int64, the dtype pandas gives a list of Python ints that all fit it, and as
/// uint64 otherwise, as pandas does then: a DataFrame has the dtypes it had when the columns
/// crossed as lists.
fn u64_array(py: Python<'_>, v: Vec<u64>) -> Bound<'_, PyAny> {
    if v.iter().all(|&x| i64::try_from(x).is_ok()) {
        // Collected in place: the buffer is reused, not copied.
        let signed: Vec<i64> = v.into_iter().map(|x| x as i64).collect();
        PyArray1::from_vec(py, signed).into_any()
    } else {
        PyArray1::from_vec(py, v).into_any()
    }
}

fn column_to_py(py: Python<'_>, col: Column) -> PyResult<Bound<'_, PyAny>> {
    Ok(match col {
        // An empty column stays a list: pandas gives a table without rows the dtypes (object)
        // it always had.
        c if c.is_empty() => PyList::empty(py).into_any(),
        Column::U64(v) => u64_array(py, v),
        Column::F64(v) => PyArray1::from_vec(py, v).into_any(),
        Column::Str(v) => PyList::new(py, v)?.into_any(),
    })
}

/// The table as a dict of columns; `rows = false` keeps the columns but no rows (series nobody
/// asked for cost no Python objects).
fn table_to_py(py: Python<'_>, t: Table, rows: bool) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for (name, col) in t.columns {
        let col = if rows { column_to_py(py, col)? } else { PyList::empty(py).into_any() };
        d.set_item(name, col)?;
    }
    Ok(d)
}

/// `{"meta", "engine", "flows", "flow_series", "links", "link_series", "delay_quantiles"}`;
/// `series = false` leaves the two series without rows (the quantiles, a summary per flow, stay).
pub fn result_to_py(py: Python<'_>, r: RunResult, series: bool) -> PyResult<Bound<'_, PyDict>> {
    let meta = Meta {
        name: &r.name,
        seed: r.seed,
        duration_s: r.duration_s,
        warmup_s: r.warmup_s,
        sample_interval_s: r.sample_interval_s,
        scenario: &r.scenario,
    };
    let engine = PyDict::new(py);
    engine.set_item("events", r.engine.events)?;
    engine.set_item("wall_s", r.engine.wall_s)?;
    engine.set_item("packets_forwarded", r.engine.packets_forwarded)?;
    engine.set_item("peak_packets", r.engine.peak_packets)?;
    engine.set_item("warmup_wall_s", r.engine.warmup_wall_s)?;
    let out = PyDict::new(py);
    out.set_item("meta", meta_to_py(py, meta)?)?;
    out.set_item("engine", engine)?;
    out.set_item("flows", table_to_py(py, r.flows, true)?)?;
    out.set_item("flow_series", table_to_py(py, r.flow_series, series)?)?;
    out.set_item("links", table_to_py(py, r.links, true)?)?;
    out.set_item("link_series", table_to_py(py, r.link_series, series)?)?;
    out.set_item("delay_quantiles", table_to_py(py, r.delay_quantiles, true)?)?;
    Ok(out)
}

/// `{"meta", "flows", "links", "columns"}`: `columns` names every column of each of a run's
/// tables, in order.
pub fn plan_to_py(py: Python<'_>, p: Plan) -> PyResult<Bound<'_, PyDict>> {
    let meta = Meta {
        name: &p.name,
        seed: p.seed,
        duration_s: p.duration_s,
        warmup_s: p.warmup_s,
        sample_interval_s: p.sample_interval_s,
        scenario: &p.scenario,
    };
    let columns = PyDict::new(py);
    for (table, names) in TABLE_COLUMNS {
        columns.set_item(table, PyList::new(py, names)?)?;
    }
    columns.set_item("delay_quantiles", PyList::new(py, DELAY_QUANTILE_COLUMNS)?)?;
    let out = PyDict::new(py);
    out.set_item("meta", meta_to_py(py, meta)?)?;
    out.set_item("flows", table_to_py(py, p.flows, true)?)?;
    out.set_item("links", table_to_py(py, p.links, true)?)?;
    out.set_item("columns", columns)?;
    Ok(out)
}
