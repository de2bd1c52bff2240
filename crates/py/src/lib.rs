//! `ccarena._core`: the thin binding between Python and the simulator core.
//!
//! A scenario crosses once as JSON text; the run happens with the GIL released; results come
//! back as columns (dicts of lists). No per-packet or per-event call ever crosses the boundary.
//! Every error becomes a Python exception of `ccarena.errors` (`ScenarioError`, also a `ValueError`,
//! for bad scenarios; `SimulationError` for a panic, which is a bug;
//! `KeyboardInterrupt` when Ctrl-C stops a run); no Rust panic reaches Python unconverted.

use ccarena_core::cc::{external, tcp_algorithms};
use ccarena_core::dccp::dccp_algorithms;
use ccarena_core::record::pcap::PcapOptions;
use ccarena_core::record::result::{Column, RunResult, Table};
use ccarena_core::scenario::Scenario;
use ccarena_core::sim::{self, RunError};

mod pycc;
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyType};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// An exception of `ccarena.errors` (defined in Python so that every error the package raises
/// shares one base class, `ccarena.errors.Error`).
fn ccarena_error(py: Python<'_>, class: &str, message: String) -> PyErr {
    let ty = py
        .import("ccarena.errors")
        .and_then(|m| m.getattr(class))
        .and_then(|t| Ok(t.cast_into::<PyType>()?));
    match ty {
        Ok(ty) => PyErr::from_type(ty, message),
        Err(e) => e,
    }
}

fn scenario_error(message: impl std::fmt::Display) -> PyErr {
    Python::attach(|py| ccarena_error(py, "ScenarioError", message.to_string()))
}

/// A panic inside the core is a bug: report it as `SimulationError` instead of aborting Python.
fn internal_error(p: Box<dyn std::any::Any + Send>) -> PyErr {
    let msg = format!(
        "internal error in the simulator (please report it with the scenario): {}",
        panic_message(p)
    );
    Python::attach(|py| ccarena_error(py, "SimulationError", msg))
}

pub(crate) fn json_to_py<'py>(
    py: Python<'py>,
    v: &serde_json::Value,
) -> PyResult<Bound<'py, PyAny>> {
    let json = py.import("json")?;
    json.call_method1("loads", (v.to_string(),))
}

/// The table as a dict of column lists; `rows = false` keeps the columns but no rows (series
/// nobody asked for cost no Python objects).
fn table_to_py<'py>(py: Python<'py>, t: &Table, rows: bool) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, col) in &t.columns {
        let list = match (col, rows) {
            (_, false) => PyList::empty(py),
            (Column::U64(v), true) => PyList::new(py, v)?,
            (Column::F64(v), true) => PyList::new(py, v)?,
            (Column::Str(v), true) => PyList::new(py, v)?,
        };
        d.set_item(*name, list)?;
    }
    Ok(d)
}

fn result_to_py<'py>(py: Python<'py>, r: &RunResult, series: bool) -> PyResult<Bound<'py, PyDict>> {
    let meta = PyDict::new(py);
    meta.set_item("name", &r.name)?;
    meta.set_item("seed", r.seed)?;
    meta.set_item("duration_s", r.duration_s)?;
    meta.set_item("warmup_s", r.warmup_s)?;
    meta.set_item("sample_interval_s", r.sample_interval_s)?;
    meta.set_item("version", env!("CARGO_PKG_VERSION"))?;
    meta.set_item("scenario", json_to_py(py, &r.scenario)?)?;
    let engine = PyDict::new(py);
    engine.set_item("events", r.engine.events)?;
    engine.set_item("wall_s", r.engine.wall_s)?;
    engine.set_item("packets_forwarded", r.engine.packets_forwarded)?;
    engine.set_item("peak_packets", r.engine.peak_packets)?;
    engine.set_item("warmup_wall_s", r.engine.warmup_wall_s)?;
    let out = PyDict::new(py);
    out.set_item("meta", meta)?;
    out.set_item("engine", engine)?;
    out.set_item("flows", table_to_py(py, &r.flows, true)?)?;
    out.set_item("flow_series", table_to_py(py, &r.flow_series, series)?)?;
    out.set_item("links", table_to_py(py, &r.links, true)?)?;
    out.set_item("link_series", table_to_py(py, &r.link_series, series)?)?;
    Ok(out)
}

fn parse(scenario_json: &str) -> PyResult<Scenario> {
    Scenario::from_json(scenario_json).map_err(scenario_error)
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

#[pyfunction]
fn validate<'py>(py: Python<'py>, scenario_json: &str) -> PyResult<Bound<'py, PyAny>> {
    let s = parse(scenario_json)?;
    // Building catches what only wiring reveals (unreachable nodes, impossible RTTs).
    s.build().map_err(scenario_error)?;
    json_to_py(py, &s.normalised())
}

#[pyfunction]
#[pyo3(signature = (scenario_json, progress=None, series=true, pcap_dir=None, pcap_links=None, pcap_snaplen=None, cc_factory=None, progress_every_s=0.5))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    scenario_json: &str,
    progress: Option<Py<PyAny>>,
    series: bool,
    pcap_dir: Option<std::path::PathBuf>,
    pcap_links: Option<Vec<String>>,
    pcap_snaplen: Option<u32>,
    cc_factory: Option<Py<PyAny>>,
    progress_every_s: f64,
) -> PyResult<Bound<'py, PyDict>> {
    if !(progress_every_s.is_finite() && progress_every_s >= 0.0) {
        return Err(ccarena_error(
            py,
            "ArgumentError",
            format!("progress_every_s: {progress_every_s} is not a number of seconds >= 0"),
        ));
    }
    let progress_every = Duration::from_secs_f64(progress_every_s);
    let scenario = parse(scenario_json)?;
    let pcap = pcap_dir.map(|dir| PcapOptions { dir, links: pcap_links, snaplen: pcap_snaplen });
    let cc_errors: pycc::ErrorSlot = Default::default();
    let duration_s = scenario.duration.0.as_secs_f64();
    let outcome = py.detach(|| {
        let mut last = Instant::now();
        let mut callback_error: Option<PyErr> = None;
        let cc_errors_seen = cc_errors.clone();
        let mut report = |frac: f64| -> bool {
            // A Python congestion control raised: stop now, `run` re-raises its exception.
            if cc_errors_seen.lock().map(|e| e.is_some()).unwrap_or(true) {
                return false;
            }
            // Wall-clock time only paces the callbacks; it never touches simulated results.
            if last.elapsed() < progress_every {
                return true;
            }
            last = Instant::now();
            Python::attach(|py| {
                if let Err(e) = py.check_signals() {
                    callback_error = Some(e);
                    return false;
                }
                if let Some(cb) = &progress {
                    if let Err(e) = cb.call1(py, (frac, frac * duration_s)) {
                        callback_error = Some(e);
                        return false;
                    }
                }
                true
            })
        };
        let mut simulate = || {
            catch_unwind(AssertUnwindSafe(|| sim::run_with(&scenario, pcap.as_ref(), &mut report)))
        };
        let r = match cc_factory {
            Some(make) => external::with_factory(pycc::factory(make, cc_errors.clone()), simulate),
            None => simulate(),
        };
        (r, callback_error)
    });
    if let Some(e) = cc_errors.lock().ok().and_then(|mut e| e.take()) {
        return Err(e); // the user's exception, with its traceback
    }
    match outcome {
        (Ok(Ok(result)), _) => {
            if let Some(cb) = &progress {
                cb.call1(py, (1.0, duration_s))?;
            }
            result_to_py(py, &result, series)
        }
        (Ok(Err(RunError::Scenario(e))), _) => Err(scenario_error(e)),
        (Ok(Err(RunError::Interrupted)), Some(e)) => Err(e),
        (Ok(Err(RunError::Interrupted)), None) => {
            Err(PyKeyboardInterrupt::new_err("run interrupted"))
        }
        (Ok(Err(RunError::Stalled(why))), _) => {
            Err(Python::attach(|py| ccarena_error(py, "SimulationError", why)))
        }
        (Ok(Err(RunError::Option(why))), _) => {
            Err(Python::attach(|py| ccarena_error(py, "ArgumentError", why)))
        }
        (Ok(Err(RunError::Output(why))), _) => {
            Err(Python::attach(|py| ccarena_error(py, "OutputError", why)))
        }
        (Err(p), _) => Err(internal_error(p)),
    }
}

/// The network a scenario builds (nodes, link directions, flows), for drawings.
#[pyfunction]
fn topology<'py>(py: Python<'py>, scenario_json: &str) -> PyResult<Bound<'py, PyAny>> {
    let s = parse(scenario_json)?;
    match catch_unwind(AssertUnwindSafe(|| ccarena_core::scenario::topology::describe(&s))) {
        Ok(Ok(v)) => json_to_py(py, &v),
        Ok(Err(e)) => Err(scenario_error(e)),
        Err(p) => Err(internal_error(p)),
    }
}

/// A duration as scenarios write it ("600s", "2min"), in seconds: the one reader of durations,
/// so that Python (estimates, the testbed) accepts exactly what a scenario accepts.
#[pyfunction]
fn duration_s(text: &str) -> PyResult<f64> {
    ccarena_core::time::parse_duration(text).map(|d| d.as_secs_f64()).map_err(PyValueError::new_err)
}

#[pyfunction]
fn algorithms<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let rows = PyList::empty(py);
    let tcp = tcp_algorithms().into_iter().map(|a| ("tcp", a));
    let dccp = dccp_algorithms().into_iter().map(|a| ("dccp", a));
    for (protocol, a) in tcp.chain(dccp) {
        let d = PyDict::new(py);
        d.set_item("protocol", protocol)?;
        d.set_item("name", a.name)?;
        d.set_item("description", a.description)?;
        d.set_item("params", json_to_py(py, &a.params)?)?;
        d.set_item("presets", a.presets)?;
        rows.append(d)?;
    }
    Ok(rows)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(topology, m)?)?;
    m.add_function(wrap_pyfunction!(duration_s, m)?)?;
    m.add_class::<pycc::PyCcState>()?;
    Ok(())
}
